"""The mail to a user with an API token whose latest sign-in (portal.accounts.latest_sign_in)
ends within a week: sign in to the portal again to keep your API tokens working. Celery beat
sends `upstream-sign-in-reminders` (portal.api.tasks) every hour; each expiry is told once, and a
sign-in that renews the token brings a new expiry, told in its turn. Only users who hold a token
neither revoked nor expired are mailed: the others have nothing the sign-in keeps working.

Each reminder is a mail job of its user's (the `sign-in-reminder-mail` kind, which acts with no
credentials), queued by the hourly run in the transaction that finds it due, and sent as the
portal's other mail is (portal.jobs.tasks.MailingTask): a mail server out of reach, or saying
"try later", is tried again with back-off; a job lost, or whose worker died, runs again. The
expiry is marked told only once the mail server has taken the mail, with the job's row locked
meanwhile, so that a second run of the job sends nothing. A job that failed at every try is
queued again by the next hourly run; one the mail server refused for good (a 5xx answer) marks
the expiry told, and is not tried again. A reminder is lost to nothing but the expiry passing;
it is sent twice only if a worker dies after the mail server took it and before it was marked.

The mail goes to where the portal writes to the user (portal.accounts.preferences), and to
active accounts only; a sign-in that renewed the token before the job ran sends nothing. It is
written in the user's language (portal.accounts.language.mail_languages: their choice, or Welsh
and English both, asking them to choose).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Exists, F, OuterRef, QuerySet
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.functional import lazy
from django.utils.translation import gettext as _

from portal.accounts import preferences
from portal.accounts.language import mail_body, mail_languages, mail_subject
from portal.accounts.models import LatestSignIn
from portal.api.models import Token
from portal.assurance.client import Credentials
from portal.jobs import actions
from portal.jobs.models import Job
from portal.jobs.tasks import MailingTask, Progress, WorkFailed
from portal.passports.tasks import hand_to_mail_server

KIND = "sign-in-reminder-mail"
REMIND_BEFORE = timedelta(days=7)


def send_reminders() -> int:
    """Queues the reminder of each active user with a live API token whose latest sign-in ends
    within a week and who was not told of that expiry yet, unless its job is waiting or
    running already; how many were queued."""
    queued = 0
    now = timezone.now()
    for pk in _due(now).values_list("pk", flat=True):
        with transaction.atomic():
            # Locked while its job is found or queued: two runs at once queue one.
            kept = (_due(now).select_for_update(skip_locked=True, of=("self",))
                    .select_related("user").filter(pk=pk).first())  # fmt: skip
            if kept is not None and _queue(kept):
                queued += 1
    return queued


def _due(now: datetime) -> QuerySet[LatestSignIn]:
    live_tokens = Token.objects.filter(user=OuterRef("user"), revoked=None, expires__gt=now)
    ending = LatestSignIn.objects.filter(
        Exists(live_tokens), expires__gt=now, expires__lte=now + REMIND_BEFORE,
        user__is_active=True,
    )  # fmt: skip
    return ending.exclude(reminded_of=F("expires")).order_by("expires")


def _queue(kept: LatestSignIn) -> bool:
    """The reminder of the kept sign-in's expiry queued, or its job that failed queued again;
    False if its job is waiting or running (or was cancelled by its owner), or the portal
    knows no address of the user's."""
    job = reminder_job(kept)
    if job is not None:
        return job.state == Job.State.FAILED and actions.queue_again(job)
    if not preferences.mail_address(kept.user):
        return False
    ends = timezone.localtime(kept.expires)
    with translation.override(preferences.language(kept.user) or settings.LANGUAGE_CODE):
        title = _("Mail to you: sign in by %(day)s to keep your API tokens working") % {
            "day": date_format(ends, "j F")}  # in the language of the user's jobs  # fmt: skip
    actions.queue_for(kept.user, reminder_mail, title, {"expires": kept.expires.isoformat()})
    return True


def reminder_job(kept: LatestSignIn) -> Job | None:
    """The job that tells the kept sign-in's expiry, if one was queued."""
    return Job.objects.filter(owner=kept.user_id, kind=KIND,
                              params__expires=kept.expires.isoformat()).first()  # fmt: skip


class ReminderTask(MailingTask):
    acts_as_owner = False  # the portal writes to its user: nothing is asked of the service


@shared_task(base=ReminderTask, name=KIND)
def reminder_mail(job: Job, credentials: Credentials | None, progress: Progress) -> None:
    """params: `expires`, the expiry of the owner's latest sign-in that it tells."""
    expires = datetime.fromisoformat(job.params["expires"])
    try:
        _send_once(job, expires)
    except WorkFailed:
        _told(job.owner_id, expires)  # refused for good: not asked again for this expiry
        raise


def _send_once(job: Job, expires: datetime) -> None:
    """The reminder sent and its expiry marked told, once: a second run of the job at the same
    time waits on the job's row until the first has marked it, then sends nothing. Nothing is
    sent either once a sign-in has renewed the token, or the expiry has passed."""
    with transaction.atomic():
        Job.objects.select_for_update().filter(pk=job.pk).first()
        kept = (LatestSignIn.objects.select_related("user")
                .filter(user=job.owner_id, expires=expires, expires__gt=timezone.now())
                .exclude(reminded_of=F("expires")).first())  # fmt: skip
        if kept is None:
            return
        address = preferences.mail_address(kept.user)
        if not address:
            raise WorkFailed(_("Nothing was sent: the portal knows no address of yours."))
        hand_to_mail_server(message(kept, address), address)
        _told(kept.user_id, expires)


def _told(user_id: int, expires: datetime) -> None:
    LatestSignIn.objects.filter(user=user_id, expires=expires).update(reminded_of=expires)


def message(kept: LatestSignIn, address: str) -> EmailMessage:
    """The reminder, plain text, in the user's language: when the sign-in ends, and where to
    sign in again."""
    ends = timezone.localtime(kept.expires)
    languages = mail_languages(kept.user)
    context = {
        "ends": ends,
        "username": kept.user.get_username(),
        "sign_in_page": lazy(_portal_page, str)("accounts:sign-in"),  # in each language
    }

    def subject() -> str:
        return _("Sign in to the Assurance portal by %(day)s to keep your API tokens "
                 "working") % {"day": date_format(ends, "j F")}  # fmt: skip

    return EmailMessage(
        subject=mail_subject(languages, subject),
        body=mail_body(languages, "api/mail/sign_in_reminder.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[address],
    )


def _portal_page(name: str) -> str:
    """The portal's page's address, in the active language."""
    return settings.PORTAL_URL + reverse(name)
