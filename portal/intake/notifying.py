"""The mail to a passport's maker when a load of it is recorded or corrected at intake: the
passport's short code, the site, the decision, the net weight, the site's reasons for its
corrections (quoted as the site's words) and a link to the passport's page, in plain text.

A load's changes are gathered: a change joins the load's mail not yet sent, and a change with
none opens one, whose job (the `intake-result-mail` kind, the maker's) is queued
PORTAL_INTAKE_MAIL_WAIT_SECONDS after the change commits. The job tells the load's latest
figures and every change since the load's last mail, so a burst of changes (a site's software
sending a record and its corrections at once) is one mail. A change made while the mail is
being sent waits for it, and goes in a mail of its own.

So that a site (or a stolen token of one) cannot flood a grower, a mail is queued only while
the maker has been sent fewer than PORTAL_INTAKE_MAILS_PER_GROWER_PER_HOUR in the last hour and
the site's loads fewer than PORTAL_INTAKE_MAILS_PER_SITE_PER_DAY in the last day. A mail over
either is held, never dropped: every change of its load still joins it, and the periodic task
`intake-held-result-mails` (Celery beat, every minute) queues it once both have room, oldest
first; it then tells all that changed meanwhile.

A receiver of each entry added (connected in portal/intake/apps.py, so that whatever records a
load, the clerk's form, an upload or the sites' JSON door, is heard the same way) joins or opens
the mail within the entry's own transaction: a load recorded and then undone queues nothing.
The worker sends as passports are sent (portal.passports.tasks.hand_to_mail_server): a mail
server down or saying "try later" is tried again with back-off, and the mail is marked sent
once it has taken it, so a job run again sends nothing.

Only where the portal knows the maker's address (the one they keep on their account's page, or
their account's) and they have not turned the mail off (portal.accounts.preferences).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import gettext

from portal.accounts import preferences
from portal.accounts.language import mail_body, mail_languages, mail_subject
from portal.assurance.client import Credentials
from portal.intake import quality
from portal.intake.loads import Figures
from portal.intake.models import IntakeSite, Load, LoadEntry, ResultMail
from portal.jobs import actions
from portal.jobs.models import Job
from portal.jobs.tasks import MailingTask, Progress, WorkFailed
from portal.lib.quoting import quoted
from portal.passports.mail_message import message_id
from portal.passports.tasks import hand_to_mail_server

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
    """The mail that tells `entry` to its passport's maker: the load's mail not yet sent, which
    it joins, or a new one, queued (or held by a cap). None where the portal knows no address
    of theirs, they turned the mail off, or their account here is no longer active."""
    load = entry.load
    maker = load.passport.made_by
    address = preferences.intake_mail_address(maker) if maker and maker.is_active else ""
    if not address:
        return None
    # Locked: a mail whose job is sending now has told what it read, and once it is marked
    # sent this change no longer finds it, and opens a mail of its own.
    waiting = (
        ResultMail.objects.select_for_update(of=("self",))
        .filter(load=load, recipient=address, sent=None)
        .filter(Q(queued=None) | Q(job__state__in=(Job.State.QUEUED, Job.State.RUNNING)))
        .first()
    )
    if waiting is not None:
        return waiting
    mail = ResultMail.objects.create(load=load, entry=entry, recipient=address,
                                     message_id=message_id(settings.PORTAL_URL))  # fmt: skip
    _queue_if_room(mail, maker, settings.PORTAL_INTAKE_MAIL_WAIT_SECONDS)
    return mail


def _queue_if_room(mail: ResultMail, maker: AbstractBaseUser, countdown: int) -> bool:
    """Queues the mail's job if the caps have room; whether they had. The maker's row is
    locked first, so that two changes at once cannot both take the last room."""
    get_user_model().objects.select_for_update().filter(pk=maker.pk).first()
    now = timezone.now()
    if not has_room(maker, mail.load.site, now):
        return False
    said = {"code": mail.load.passport.short_code, "address": mail.recipient}
    title = mail_subject(mail_languages(maker), lambda: gettext(
        "Intake result of passport %(code)s by e-mail to %(address)s"
    ) % said)[:200]  # fmt: skip
    mail.job = actions.queue_for(maker, result_mail, title, {"mail": mail.pk}, countdown)
    mail.queued = now
    mail.save(update_fields=["job", "queued"])
    return True


def has_room(maker: AbstractBaseUser, site: IntakeSite, now: datetime) -> bool:
    """Whether a mail may be queued now: the maker sent fewer than their hour's cap, and the
    site's loads fewer than its day's."""
    queued = ResultMail.objects.exclude(queued=None)
    to_maker = queued.filter(load__passport__made_by=maker, queued__gt=now - timedelta(hours=1))
    if to_maker.count() >= settings.PORTAL_INTAKE_MAILS_PER_GROWER_PER_HOUR:
        return False
    of_site = queued.filter(load__site=site, queued__gt=now - timedelta(days=1))
    return of_site.count() < settings.PORTAL_INTAKE_MAILS_PER_SITE_PER_DAY


@shared_task(name="intake-held-result-mails")
def send_held_mails() -> int:
    """Queues the mails held by a cap that now has room, oldest first; how many. Sent by
    Celery beat every minute."""
    queued = 0
    held = ResultMail.objects.filter(queued=None, sent=None).order_by("created", "pk")
    for pk in held.values_list("pk", flat=True):
        with transaction.atomic():
            mail = (ResultMail.objects.select_for_update(skip_locked=True, of=("self",))
                    .select_related("load__site", "load__passport__made_by")
                    .filter(pk=pk, queued=None).first())  # fmt: skip
            if mail is not None and _queue_if_room(mail, mail.load.passport.made_by, 0):
                queued += 1
    return queued


class ResultMailTask(MailingTask):
    acts_as_owner = False  # the portal writes to its user: nothing is asked of the service

    def outcome(self, job: Job) -> dict[str, Any] | None:
        return {"mail": ResultMail.objects.filter(job=job).select_related("load").first()}

    outcome_template = "intake/mail_outcome.html"


@shared_task(base=ResultMailTask, name="intake-result-mail")
def result_mail(job: Job, credentials: Credentials | None, progress: Progress) -> None:
    """params: `mail` (its id). Sends nothing if it was sent already (a run cut short after
    the mail server took it). The mail's row is locked while it is sent: a second run waits
    until the first has marked it, and a change of the load made meanwhile waits too, then
    opens a mail of its own."""
    with transaction.atomic():
        mails = ResultMail.objects.select_for_update(of=("self",))
        mail = mails.select_related("load__site", "load__passport").get(pk=job.params["mail"])
        if mail.sent:
            return
        changes = changes_since_last_mail(mail.load)
        if not changes:
            raise WorkFailed(gettext("Nothing was sent: a later mail told what changed."))
        hand_to_mail_server(message_of(mail, changes), mail.recipient)
        ResultMail.objects.filter(pk=mail.pk).update(sent=timezone.now(), told_up_to=changes[-1])


def _said_reasons(keys: tuple[str, ...]) -> str:
    return "; ".join(str(quality.reason_label(key)) for key in keys)


# The decision's reasons, in the language of each part of the mail.
_reasons_said = lazy(_said_reasons, str)


def changes_since_last_mail(load: Load) -> list[LoadEntry]:
    """The load's recordings and corrections that no mail sent has told, oldest first."""
    told = load.mails.exclude(sent=None).exclude(told_up_to=None)
    last = told.order_by("-told_up_to").values_list("told_up_to", flat=True).first() or 0
    return list(load.entries.filter(kind__in=TOLD, pk__gt=last).order_by("pk"))


def message_of(mail: ResultMail, changes: list[LoadEntry]) -> EmailMessage:
    """The mail, plain text, in the maker's language (or Welsh and English both, asking, until
    they choose): the load's latest figures, each correction's reason in the site's words
    (quoted, as the site wrote them), and where to see the rest."""
    load = mail.load
    figures = Figures.from_json(changes[-1].figures)
    code = load.passport.short_code
    corrections = [entry for entry in changes if entry.kind == LoadEntry.Kind.CORRECTED]
    net_weight = f"{figures.net_kg:,} kg"
    context = {
        "load": load, "code": code, "figures": figures, "changes": len(changes),
        "corrected": bool(corrections), "decision": figures.decision.label,
        "reasons_said": _reasons_said(figures.reasons) if figures.reasons else "",
        "net_weight": net_weight,
        "reasons": [{"at": timezone.localtime(entry.at), "words": quoted(entry.words)}
                    for entry in corrections if entry.words.strip()],
        "portal_url": settings.PORTAL_URL,
    }  # fmt: skip
    said = {"code": code, "decision": figures.decision.label, "net_weight": net_weight}

    def subject() -> str:
        if corrections:
            return gettext("Passport %(code)s corrected: %(decision)s, %(net_weight)s") % said
        return gettext("Passport %(code)s at intake: %(decision)s, %(net_weight)s") % said

    languages = mail_languages(load.passport.made_by)
    return EmailMessage(
        subject=mail_subject(languages, subject),
        body=mail_body(languages, "intake/mail/result.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[mail.recipient],
        headers={"Message-ID": mail.message_id},
    )
