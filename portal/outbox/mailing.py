"""The mail to an endpoint's owners when it is disabled for failing too long: to whoever
registered it, and to the clerks of a site's, each as a job of theirs (the
`webhook-disabled-mail` kind, which acts with no credentials), tried again while the mail
server is out of reach as the portal's other mail is. Each is written in its recipient's
language (portal.accounts.language.mail_languages: their choice, or Welsh and English both)."""

from __future__ import annotations

import smtplib

from celery import shared_task
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import translation
from django.utils.functional import lazy
from django.utils.translation import gettext as _

from portal.accounts import preferences
from portal.accounts.language import mail_body, mail_languages, mail_subject
from portal.assurance.client import Credentials
from portal.jobs import actions
from portal.jobs.models import Job
from portal.jobs.tasks import MailingTask, Progress, TryAgain, WorkFailed
from portal.outbox import reasons
from portal.outbox.models import Endpoint

KIND = "webhook-disabled-mail"


class DisabledMailTask(MailingTask):
    acts_as_owner = False


@shared_task(base=DisabledMailTask, name=KIND)
def disabled_mail(job: Job, credentials: Credentials | None, progress: Progress) -> None:
    """params: `endpoint` (its id), `recipient`, `reason`."""
    endpoint = Endpoint.objects.filter(pk=job.params["endpoint"]).first()
    if endpoint is None:
        raise WorkFailed(_("The endpoint was removed meanwhile: nothing was sent."))
    page = lazy(_endpoint_page, str)(endpoint.pk)  # its address in each language
    reason = lazy(reasons.reason_in_words, str)(job.params["reason"])  # in each language
    context = {"endpoint": endpoint, "reason": reason, "page": page}
    languages = mail_languages(job.owner)
    mail = EmailMessage(
        subject=mail_subject(languages, lambda: _("Webhooks to an address of yours were stopped")),
        body=mail_body(languages, "webhooks/mail/disabled.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL, to=[job.params["recipient"]],
    )  # fmt: skip
    try:
        mail.send()
    except smtplib.SMTPResponseException as answer:
        if 400 <= answer.smtp_code < 500:
            said = _("The mail server said to try later (%(code)s).") % {"code": answer.smtp_code}
            raise TryAgain(said) from answer
        said = _("The mail server refused the mail (%(code)s).") % {"code": answer.smtp_code}
        raise WorkFailed(said) from answer
    except smtplib.SMTPRecipientsRefused as refused:
        raise WorkFailed(_("The mail server refused the address.")) from refused
    except (smtplib.SMTPException, OSError) as trouble:
        raise TryAgain(_("The mail server could not be reached.")) from trouble


def tell_owners_disabled(endpoint: Endpoint, reason: str) -> int:
    """A mail queued to each owner the portal knows an address of; how many."""
    told = 0
    for user in owners(endpoint):
        address = preferences.kept_address(user) or user.email
        if not address:
            continue
        params = {"endpoint": endpoint.pk, "recipient": address, "reason": reason}
        with translation.override(preferences.language(user) or settings.LANGUAGE_CODE):
            title = _("Mail: webhooks stopped")  # in the language of the user's jobs
        actions.queue_for(user, disabled_mail, title, params)
        told += 1
    return told


def owners(endpoint: Endpoint) -> list[AbstractBaseUser]:
    """Who is told of the endpoint: whoever registered it, and a site's clerks."""
    people = {}
    if endpoint.made_by is not None and endpoint.made_by.is_active:
        people[endpoint.made_by.pk] = endpoint.made_by
    if endpoint.site is not None:
        for clerk in endpoint.site.clerks.filter(is_active=True):
            people.setdefault(clerk.pk, clerk)
    return list(people.values())


def _endpoint_page(pk: int) -> str:
    """The endpoint's page's address, in the active language."""
    return settings.PORTAL_URL + reverse("webhooks:endpoint", args=[pk])
