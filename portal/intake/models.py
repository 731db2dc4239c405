"""What intake sites record of each load a passport went with: its weights, its quality, and the
buyer's decision, for the grower to see. The Assurance service holds none of it: it is the
portal's own record.

A load (`Load`) is recorded once per ticket of its site; what is known of it is a history of
entries (`LoadEntry`): recorded, corrected with a reason, queried by the grower, answered or
stood by. Nothing is edited in place: each entry keeps what was there before, and on
PostgreSQL the database refuses to change or delete one (migrations/0002_append_only.py), as
it does the audit trail's events. The load keeps a copy of its latest figures (net weight,
decision) for the business's list to filter and show."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from portal.intake import quality


class AppendOnly(Exception):
    """A load's entry was to be changed or deleted: its history is append-only."""


class IntakeSite(models.Model):
    """A buyer's intake (a store, a mill, a port), made by staff in the admin. Its clerks record
    and see the loads that arrive there, and only those."""

    name = models.CharField(max_length=200)
    buyer_business = models.CharField(max_length=200)
    code = models.SlugField(
        max_length=40, unique=True, help_text="A short name, as `grant_intake` takes it."
    )
    clerks = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="intake_sites"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Specification(models.Model):
    """A site's specification of one quality parameter of a crop: a result outside it is marked
    as out of specification (which is not refused: the load was measured so). Each record and
    correction keeps the specification it was judged against (`LoadEntry.specification`), so a
    specification changed later leaves the loads before it as they were marked."""

    site = models.ForeignKey(IntakeSite, on_delete=models.CASCADE, related_name="specifications")
    crop = models.CharField(max_length=40, choices=[(c, c.capitalize()) for c in quality.CROPS])
    parameter = models.CharField(max_length=40)
    lowest = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    highest = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["site", "crop", "parameter"], name="one_specification_a_parameter"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.site}: {self.crop} {self.parameter}"


class Decision(models.TextChoices):
    ACCEPTED = "accepted", _("Accepted")
    CLAIM = "claim", _("Accepted with a claim")
    REDIRECTED = "redirected", _("Redirected")
    REJECTED = "rejected", _("Rejected")


class Load(models.Model):
    """One load, by its site's ticket number, and the passport it came with."""

    site = models.ForeignKey(IntakeSite, on_delete=models.PROTECT, related_name="loads")
    ticket = models.CharField(max_length=40)
    passport = models.ForeignKey(
        "passports.Passport", on_delete=models.PROTECT, related_name="intake_loads"
    )
    created = models.DateTimeField(default=timezone.now)
    # When its latest entry was added (LoadEntry.save): the API's changes feed of a site's loads.
    updated = models.DateTimeField(default=timezone.now)
    # Copied from its latest figures, for the business's list.
    net_kg = models.PositiveIntegerField()
    decision = models.CharField(max_length=16, choices=Decision.choices)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [models.UniqueConstraint(fields=["site", "ticket"], name="one_load_a_ticket")]
        indexes = [models.Index(fields=["site", "updated", "id"], name="intake_load_changes")]

    def __str__(self) -> str:
        return f"{self.site} ticket {self.ticket}"


class EntryQuerySet(models.QuerySet):
    def update(self, **kwargs: object) -> int:
        raise AppendOnly("A load's history is never changed: add an entry.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnly("A load's history is never removed.")


class LoadEntry(models.Model):
    """One step of a load's history. `figures` (recorded and corrected entries) holds the whole
    record as it stood from then on, and `specification` the site's specification of the crop
    its results were judged against then (portal.intake.loads.Bounds, by parameter); `verdict`,
    the passport's claim as the look-up gave it when the load was recorded."""

    class Kind(models.TextChoices):
        RECORDED = "recorded", _("Recorded")
        CORRECTED = "corrected", _("Corrected")
        QUERIED = "queried", _("Queried")
        ANSWERED = "answered", _("Answered")
        STOOD_BY = "stood-by", _("Result upheld")

    load = models.ForeignKey(Load, on_delete=models.PROTECT, related_name="entries")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    at = models.DateTimeField(default=timezone.now)
    by = models.CharField(max_length=150)  # the username, kept as it was
    words = models.TextField(blank=True)  # a correction's reason, a query, an answer
    figures = models.JSONField(null=True, blank=True)
    specification = models.JSONField(null=True, blank=True)
    verdict = models.JSONField(null=True, blank=True)
    certificate = models.FileField(upload_to="intake/certificates/", blank=True)

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["at", "pk"]
        verbose_name_plural = "load entries"

    def __str__(self) -> str:
        return f"{self.get_kind_display()} by {self.by} ({self.at:%Y-%m-%d %H:%M})"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise AppendOnly("A load's entry is never changed: add another.")
        super().save(*args, **kwargs)
        if self.kind != self.Kind.RECORDED:  # a load recorded is as new as its first entry
            Load.objects.filter(pk=self.load_id).update(updated=self.at)

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise AppendOnly("A load's entry is never removed.")


class ResultMail(models.Model):
    """The mail telling a passport's maker what changed of a load at intake (recorded,
    corrected): one for a burst of changes, each change joining the load's mail not yet sent
    (portal.intake.notifying); sent by a job of the maker's (the `intake-result-mail` kind),
    which tells the load's latest figures and every change since the load's last mail, up to
    `told_up_to`. A mail over a cap (the maker's in an hour, the site's in a day) is held, with
    no job, until the caps have room again; `queued` is when its job was queued. Marked sent
    once the mail server has taken it: a job run again sends nothing then."""

    load = models.ForeignKey(Load, on_delete=models.PROTECT, related_name="mails")
    entry = models.ForeignKey(LoadEntry, on_delete=models.PROTECT, related_name="mails",
                              help_text="The change that opened the mail.")  # fmt: skip
    told_up_to = models.ForeignKey(
        LoadEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    recipient = models.EmailField()
    job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)
    queued = models.DateTimeField(null=True, blank=True)
    sent = models.DateTimeField(null=True, blank=True)
    message_id = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [
            models.Index(fields=["queued"], name="intake_resultmail_queued"),
            models.Index(
                fields=["created"],
                condition=models.Q(queued__isnull=True),
                name="intake_resultmail_held",
            ),
        ]

    def __str__(self) -> str:
        return f"Mail to {self.recipient} of {self.load}"


# --- many loads at once: a site's uploads ------------------------------------------------------


class UploadedRow(models.Model):
    """A row of an upload (a job of the `intake-upload` kind) that recorded or corrected a load,
    written in the same transaction as the load's entry: the job run again (its worker killed)
    finds the row done and says so in its report, rather than recording it twice or calling it
    recorded before. Goes with its job."""

    job = models.ForeignKey("jobs.Job", on_delete=models.CASCADE, related_name="+")
    row = models.PositiveIntegerField()
    load = models.ForeignKey(Load, on_delete=models.CASCADE, related_name="+")
    outcome = models.CharField(max_length=16)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "row"], name="one_outcome_a_row")]

    def __str__(self) -> str:
        return f"Row {self.row} of job {self.job_id}: {self.outcome}"
