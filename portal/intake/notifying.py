"""The mail to a passport's maker when a load of it is recorded or corrected at intake: the
passport's short code, the site, the decision, the net weight and a link to the passport's
page, in plain text, short.

A receiver of each entry added (connected in portal/intake/apps.py, so that whatever records a
load, the clerk's form, an upload or the sites' JSON door, is heard the same way) queues the
mail within the entry's own transaction, as a job of the maker's (the `intake-result-mail`
kind): a load recorded and then undone queues nothing, and the job is sent to a worker once
the transaction commits. The worker sends it as passports are sent
(portal.passports.tasks.hand_to_mail_server): a mail server down or saying "try later" is tried
again with back-off, and the mail is marked sent once it has taken it, so a job run again sends
nothing.

Only where the portal knows the maker's address (the one they keep on their account's page, or
their account's) and they have not turned the mail off (portal.accounts.preferences).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from portal.accounts import preferences
from portal.assurance.client import Credentials
from portal.intake.loads import Figures
from portal.intake.models import LoadEntry, ResultMail
from portal.jobs import actions
from portal.jobs.models import Job
from portal.jobs.tasks import Progress
from portal.passports.mail_message import message_id
from portal.passports.tasks import MailingTask, hand_to_mail_server

TOLD = (LoadEntry.Kind.RECORDED, LoadEntry.Kind.CORRECTED)


def entry_added(sender: type, instance: LoadEntry, created: bool, raw: bool = False,
                **kwargs: Any) -> None:  # fmt: skip
    """For post_save of LoadEntry: a load recorded or corrected is told to its passport's
    maker."""
    if created and not raw and instance.kind in TOLD:
        queue_mail(instance)


def entries_recorded(sender: type, entries: list[LoadEntry], **kwargs: Any) -> None:
    """For loads.many_recorded (an upload's rows): each load recorded told to its maker."""
    for entry in entries:
        queue_mail(entry)


def queue_mail(entry: LoadEntry) -> ResultMail | None:
    """The mail of `entry` to its passport's maker, its job queued once the transaction commits;
    None where the portal knows no address of theirs, they turned the mail off, or their
    account here is no longer active."""
    passport = entry.load.passport
    maker = passport.made_by
    address = preferences.intake_mail_address(maker) if maker and maker.is_active else ""
    if not address:
        return None
    what = "corrected" if entry.kind == LoadEntry.Kind.CORRECTED else "recorded"
    title = f"Intake result of passport {passport.short_code} ({what}) by e-mail to {address}"
    job = actions.queue_for(maker, result_mail, title[:200], {"entry": entry.pk})
    return ResultMail.objects.create(entry=entry, recipient=address, job=job,
                                     message_id=message_id(settings.PORTAL_URL))  # fmt: skip


class ResultMailTask(MailingTask):
    counted = "sent"
    acts_as_owner = False  # the portal writes to its user: nothing is asked of the service

    def outcome(self, job: Job) -> dict[str, Any] | None:
        return {"mail": ResultMail.objects.filter(job=job).first()}

    outcome_template = "intake/mail_outcome.html"


@shared_task(base=ResultMailTask, name="intake-result-mail")
def result_mail(job: Job, credentials: Credentials | None, progress: Progress) -> None:
    """params: `entry` (the id of the entry told). Sends nothing if its mail was sent already
    (a run cut short after the mail server took it); a second run at the same time waits on
    the mail's row until the first has marked it."""
    mail = ResultMail.objects.select_related(
        "entry__load__site", "entry__load__passport"
    ).get(entry=job.params["entry"])  # fmt: skip
    if mail.sent:
        return
    message = message_of(mail)
    with transaction.atomic():
        if ResultMail.objects.select_for_update().values_list("sent", flat=True).get(pk=mail.pk):
            return
        hand_to_mail_server(message, mail.recipient)
        ResultMail.objects.filter(pk=mail.pk).update(sent=timezone.now())


def message_of(mail: ResultMail) -> EmailMessage:
    """The mail, plain text: what the entry says of the load, and where to see the rest."""
    entry, load = mail.entry, mail.entry.load
    figures = Figures.from_json(entry.figures)
    code = load.passport.short_code
    context = {
        "entry": entry, "load": load, "code": code, "figures": figures,
        "corrected": entry.kind == LoadEntry.Kind.CORRECTED,
        "decision": figures.decision.label, "net_weight": f"{figures.net_kg:,} kg",
        "passport_page": settings.PORTAL_URL + reverse("passports:passport", args=[code]),
        "account_page": settings.PORTAL_URL + reverse("accounts:you"),
    }  # fmt: skip
    what = "corrected" if context["corrected"] else "at intake"
    return EmailMessage(
        subject=f"Passport {code} {what}: {figures.decision.label}, {context['net_weight']}",
        body=render_to_string("intake/mail/result.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[mail.recipient],
        headers={"Message-ID": mail.message_id},
    )
