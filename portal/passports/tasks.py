"""The passports' kinds of job (run on a worker by portal.jobs, with the credentials of the user
who asked): a passport's PDF, fetched from the service and kept as the job's file; a batch of
identical passports (portal.passports.batches); an export of many (portal.passports.exports);
and passports sent by e-mail (portal.passports.mailing).
"""

from __future__ import annotations

import json
import smtplib
import uuid
from collections.abc import Callable
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.db.models.fields.files import FieldFile
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from portal.assurance import codec, records
from portal.assurance.client import Credentials
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationRequired,
    NotAContact,
    NotFound,
    StatusNotValid,
    Unavailable,
)
from portal.assurance.service import client
from portal.audit import events as audit
from portal.jobs.models import Job
from portal.jobs.tasks import (
    JobCancelled,
    JobTask,
    MailingTask,
    Progress,
    ResultFile,
    TryAgain,
    WorkFailed,
)
from portal.lib.bounded import in_order
from portal.operations import recording
from portal.passports import announcing, mail_message, making, manifests, packing
from portal.passports.models import Mailing, Passport

CLAIM_NOT_VALID = gettext_noop(
    "The Assurance service gives no PDF of this passport while its membership's assurance "
    "claim is not valid."
)


class PassportPdfTask(JobTask):
    def download_address(self, job: Job) -> str:
        """The passport's own address for its PDF, which checks again that the job's owner is
        still a contact of the passport's membership."""
        return reverse("passports:pdf", args=[job.params["short_code"]])


@shared_task(base=PassportPdfTask, name="passport-pdf")
def passport_pdf(job: Job, credentials: Credentials, progress: Progress) -> ResultFile:
    short_code = job.params["short_code"]
    try:
        content = client().passport_pdf(credentials, short_code)
    except StatusNotValid:
        raise WorkFailed(gettext(CLAIM_NOT_VALID)) from None
    return ResultFile(f"passport-{short_code}.pdf", "application/pdf", content)


# --- a batch of identical passports ---------------------------------------------------------------

# A create call cut short (its worker killed, the service not answering in time) may have made
# a passport that the portal never hears of: the interface takes no key of ours. So a batch asks
# for one passport at a time, and records each before it asks for the next: cut short, it
# leaves at most one such passport, where calls at once (or asked while the one before is
# recorded) would leave as many as were under way.
# What the job's page says when the service stops a batch, by why: whole sentences, each with
# how many of the batch were made.
BATCH_STOPPED = {
    NotAContact: _(
        "The Assurance service stopped the batch: you are no longer a registered contact of the "
        "membership, or the site or store is no longer one of its own. %(made)s of %(count)s "
        "passports were made; they are listed here. Retry to make the rest."
    ),
    StatusNotValid: _(
        "The Assurance service stopped the batch: the membership's assurance claim is not valid "
        "now. %(made)s of %(count)s passports were made; they are listed here. Retry to make the "
        "rest."
    ),
    Unavailable: _(
        "The Assurance service stopped the batch: it could not be reached or did not answer. "
        "%(made)s of %(count)s passports were made; they are listed here. Retry to make the rest."
    ),
}
BATCH_REFUSED = _(
    "The Assurance service stopped the batch: it refused the passport (%(error)s). %(made)s of "
    "%(count)s passports were made; they are listed here. Retry to make the rest."
)


class BatchTask(JobTask):
    counted_running = ngettext_lazy(
        "running, %(done)s of %(total)s made", "running, %(done)s of %(total)s made", "total"
    )
    counted_failed = ngettext_lazy(
        "failed, %(done)s of %(total)s made", "failed, %(done)s of %(total)s made", "total"
    )
    outcome_template = "passports/batch_outcome.html"

    def outcome(self, job: Job) -> dict[str, Any]:
        return {"passports": list(made_in(job)), "count": job.params["count"]}


@shared_task(base=BatchTask, name="passport-batch")
def passport_batch(job: Job, credentials: Credentials, progress: Progress) -> None:
    """params: `batch` (the form's one-time key), `count`, and `request` (the passport request,
    by the interface's names). The service is asked for one passport at a time, and each is
    recorded under its own key as soon as it is made; those made before (by a run of this job
    that was cut short, or failed) are not made again. Once the service refuses one, or the job
    is cancelled, no more are asked for."""
    request = codec.decode(json.dumps(job.params["request"]), records.PassportRequest,
                           codec.Format.JSON)  # fmt: skip
    batch, count = uuid.UUID(job.params["batch"]), job.params["count"]
    made = set(made_in(job).values_list("batch_position", flat=True))
    progress(len(made), count)
    stop: Exception | None = None
    to_make = sorted(set(range(count)) - made)

    with recording.gathered():  # the calls' records, one transaction at the end
        for position in to_make:
            try:
                made_now = client().create_passport(credentials, request)
            except AssuranceError as error:
                stop = error
                break
            making.record(passport_key(batch, position), made_now, request, job.owner,
                          batch=batch, position=position, asked_at=job.created)  # fmt: skip
            made.add(position)
            stop = _progressed(progress, len(made), count)
            if stop is not None:
                break
    if isinstance(stop, JobCancelled | AuthenticationRequired):
        raise stop
    if stop is not None:
        raise WorkFailed(_batch_stopped(stop, len(made), count))


def _progressed(progress: Progress, done: int, total: int) -> JobCancelled | None:
    """The progress recorded; the cancellation it met, if the job was cancelled meanwhile."""
    try:
        progress(done, total)
    except JobCancelled as cancelled:
        return cancelled
    return None


def _batch_stopped(error: AssuranceError, made: int, count: int) -> str:
    said = next((words for kind, words in BATCH_STOPPED.items() if isinstance(error, kind)),
                BATCH_REFUSED)  # fmt: skip
    return str(said) % {"made": made, "count": count, "error": error}


def passport_key(batch: uuid.UUID, position: int) -> uuid.UUID:
    """The one-time key of the passport at `position` (from 0) of the batch `batch`."""
    return uuid.uuid5(batch, str(position))


def made_in(job: Job) -> QuerySet[Passport]:
    """The passports the batch of `job` has made so far, in their order."""
    return Passport.objects.filter(batch=job.params["batch"], made_by=job.owner,
                                   short_code__isnull=False).order_by("batch_position")  # fmt: skip


# --- an export of many passports ------------------------------------------------------------------

ZIP, PDF = "zip", "pdf"


class ExportTask(JobTask):
    counted_running = ngettext_lazy(
        "running, %(done)s of %(total)s exported",
        "running, %(done)s of %(total)s exported",
        "total",
    )
    counted_failed = ngettext_lazy(
        "failed, %(done)s of %(total)s exported", "failed, %(done)s of %(total)s exported", "total"
    )
    downloaded_event = audit.Kind.EXPORT_DOWNLOADED


@shared_task(base=ExportTask, name="passport-export")
def passport_export(job: Job, credentials: Credentials, progress: Progress) -> ResultFile:
    """params: `passports` (their ids, in the order they are exported) and `format` (ZIP or
    PDF). Passports whose membership the owner is no longer a contact of are left out."""
    asked = job.params["passports"]
    passports = _still_theirs(asked, credentials)
    answers = in_order(
        passports, _pdf_source(passports, credentials), settings.PORTAL_JOB_CALLS_AT_ONCE
    )
    fetched = ((passport, answered.result()) for passport, answered in answers)
    if job.params["format"] == PDF:
        packed = packing.one_pdf(fetched, progress, len(passports))
    else:
        manifest = manifests.Manifest([passport.pk for passport in passports])
        packed = packing.zip_of(fetched, progress, len(passports), manifest)
    note = packing.left_out(len(asked) - len(passports), packed.without_pdf)
    return ResultFile(packed.name, packed.content_type, packed.file, note)


def _still_theirs(ids: list[int], credentials: Credentials) -> list[Passport]:
    """The passports of these ids whose membership the owner of the credentials is a contact
    of now, in the order of `ids`: their columns and who made them, as a mail shows them, but
    not their whole records."""
    contact_of = [m.membership_guid for m in client().authorisation(credentials).memberships]
    theirs = Passport.objects.filter(pk__in=ids, membership_guid__in=contact_of,
                                     short_code__isnull=False)  # fmt: skip
    found = theirs.defer("record").select_related("made_by").in_bulk()
    return [found[pk] for pk in ids if pk in found]


def _pdf_source(
    passports: list[Passport], credentials: Credentials
) -> Callable[[Passport], bytes | None]:
    """How each passport's PDF is had (in a thread of its own: no database): the file of a PDF
    job the portal keeps (anyone's: a PDF is the same for every contact), or else asked of the
    service with the owner's credentials. None for a passport whose PDF the service gives no one
    (its claim not valid now)."""
    kept = _kept_pdfs([passport.short_code for passport in passports])

    def pdf_of(passport: Passport) -> bytes | None:
        kept_file = kept.get(passport.short_code)
        if kept_file is not None:
            try:
                with kept_file.open("rb") as opened:
                    return opened.read()
            except FileNotFoundError:  # removed meanwhile by the sweep
                pass
        try:
            return client().passport_pdf(credentials, passport.short_code)
        except (StatusNotValid, NotFound):
            return None

    return pdf_of


def _kept_pdfs(short_codes: list[str]) -> dict[str, FieldFile]:
    """The PDFs kept by done passport-pdf jobs that have not expired, by short code."""
    jobs = Job.objects.filter(
        kind=passport_pdf.name, state=Job.State.DONE, expires__gt=timezone.now(),
        dedupe_key__in=[pdf_job_key(code) for code in short_codes],
    ).exclude(result="")  # fmt: skip
    return {job.params["short_code"]: job.result for job in jobs}


def pdf_job_key(short_code: str) -> str:
    """The one key of the jobs fetching a passport's PDF (portal.passports.pdfs)."""
    return f"{passport_pdf.name}:{short_code}"


# --- passports sent by e-mail ---------------------------------------------------------------------


class MailTask(MailingTask):
    counted_running = ngettext_lazy(
        "sending, %(done)s of %(total)s attached",
        "sending, %(done)s of %(total)s attached",
        "total",
    )
    counted_failed = ngettext_lazy(
        "failed, %(done)s of %(total)s attached", "failed, %(done)s of %(total)s attached", "total"
    )
    outcome_template = "passports/mail_outcome.html"

    def outcome(self, job: Job) -> dict[str, Any]:
        return {"mailing": Mailing.objects.filter(job=job).first()}


@shared_task(base=MailTask, name="passport-mail")
def passport_mail(job: Job, credentials: Credentials, progress: Progress) -> None:
    """params: `mailing` (its id) and `site` (the portal's address, for the look-up addresses).
    Sends nothing if the mailing was sent already (a run cut short after the mail server took
    it); passports whose membership the owner is no longer a contact of are left out."""
    mailing = Mailing.objects.select_related("sender").get(pk=job.params["mailing"])
    if mailing.sent:
        return
    in_order_made = mailing.passports_in_order().values_list("pk", flat=True)
    passports = _still_theirs(list(in_order_made), credentials)
    if not passports:
        raise WorkFailed(gettext("Nothing was sent: you are no longer a registered contact of the "
                           "membership of these passports."))  # fmt: skip
    fetched = []
    answers = in_order(passports, _pdf_source(passports, credentials),
                       settings.PORTAL_JOB_CALLS_AT_ONCE)  # fmt: skip
    for done, (passport, answered) in enumerate(answers, 1):
        fetched.append((passport, answered.result()))
        progress(done, len(passports))
    if not mailing.message_id:
        mailing.message_id = mail_message.message_id(job.params["site"])
        mailing.save(update_fields=["message_id"])
    mail = mail_message.mail_of(mailing, fetched, job.params["site"])
    _send_once(mailing, mail, sender=job.owner, passports=len(fetched))


def _send_once(mailing: Mailing, mail: Any, *, sender: Any, passports: int) -> None:
    """The mail sent, the mailing marked sent and the sending recorded, once: a second run of
    the job at the same time (the job sent again while its first run still worked) waits on
    the mailing's row until the first has marked it, then sends nothing."""
    with transaction.atomic():
        if Mailing.objects.select_for_update().values_list("sent", flat=True).get(pk=mailing.pk):
            return
        hand_to_mail_server(mail, mailing.recipient)
        Mailing.objects.filter(pk=mailing.pk).update(sent=timezone.now())
        announcing.sent(mailing)
        audit.record(audit.Kind.MAIL_SENT, user=sender, mailing=mailing.pk, passports=passports)


def hand_to_mail_server(mail: Any, recipient: str) -> None:
    """Hands the mail to the mail server: WorkFailed if it refuses it for good (a 5xx answer),
    TryAgain if it cannot be reached or answers "try later" (4xx). Every mail job's way to
    send (the intake results' too, portal.intake.notifying)."""
    try:
        mail.send()
    except smtplib.SMTPRecipientsRefused as refused:
        code, words = next(iter(refused.recipients.values()))
        _refused(code, recipient, words)
    except smtplib.SMTPResponseException as answer:
        _refused(answer.smtp_code, None, answer.smtp_error)
    except (smtplib.SMTPException, OSError) as trouble:
        raise TryAgain(gettext("The mail server could not be reached (%(trouble)s).")
                       % {"trouble": _said(trouble)}) from trouble  # fmt: skip


def _refused(code: int, recipient: str | None, words: bytes | str) -> None:
    """The mail server's refusal, of the address `recipient` (None: of the mail), as the job's
    page says it: for now (4xx), or for good."""
    said = words.decode(errors="replace") if isinstance(words, bytes) else str(words)
    values = {"address": recipient, "code": code, "said": said}
    if 400 <= code < 500:
        if recipient is None:
            raise TryAgain(gettext("The mail server refused the mail for now (%(code)s %(said)s).")
                           % values)  # fmt: skip
        raise TryAgain(gettext("The mail server refused the address %(address)s for now (%(code)s "
                         "%(said)s).") % values)  # fmt: skip
    if recipient is None:
        raise WorkFailed(gettext("The mail server refused the mail: %(code)s %(said)s. Check the "
                           "address and send it again.") % values)  # fmt: skip
    raise WorkFailed(gettext("The mail server refused the address %(address)s: %(code)s %(said)s. "
                       "Check the address and send it again.") % values)  # fmt: skip


def _said(trouble: Exception) -> str:
    return str(trouble) or type(trouble).__name__
