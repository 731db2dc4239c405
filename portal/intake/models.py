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
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.intake import quality


class AppendOnly(Exception):
    """A load's entry was to be changed or deleted: its history is append-only."""


class IntakeSite(models.Model):
    """A buyer's intake (a store, a mill, a port), made by staff in the admin. Its clerks record
    and see the loads that arrive there, and only those."""

    name = models.CharField(_("name"), max_length=200)
    buyer_business = models.CharField(_("buyer business"), max_length=200)
    code = models.SlugField(
        _("code"), max_length=40, unique=True,
        help_text=_("A short name, as `grant_intake` takes it."),
    )  # fmt: skip
    clerks = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="intake_sites",
        verbose_name=_("clerks"),
    )  # fmt: skip

    class Meta:
        verbose_name = _("intake site")
        verbose_name_plural = _("intake sites")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Specification(models.Model):
    """A site's specification of one quality parameter of a crop: a result outside it is marked
    as out of specification (which is not refused: the load was measured so). Each record and
    correction keeps the specification it was judged against (`LoadEntry.specification`), so a
    specification changed later leaves the loads before it as they were marked."""

    site = models.ForeignKey(IntakeSite, on_delete=models.CASCADE, related_name="specifications",
                             verbose_name=_("site"))  # fmt: skip
    crop = models.CharField(_("crop"), max_length=40, choices=list(quality.CROP_NAMES.items()))
    parameter = models.CharField(_("parameter"), max_length=40)
    lowest = models.DecimalField(_("lowest"), max_digits=8, decimal_places=2, null=True,
                                 blank=True)  # fmt: skip
    highest = models.DecimalField(_("highest"), max_digits=8, decimal_places=2, null=True,
                                  blank=True)  # fmt: skip

    class Meta:
        verbose_name = _("specification")
        verbose_name_plural = _("specifications")
        constraints = [
            models.UniqueConstraint(
                fields=["site", "crop", "parameter"], name="one_specification_a_parameter"
            ),
        ]

    def __str__(self) -> str:
        measured = quality.parameter(self.crop, self.parameter)
        return gettext("%(site)s: %(crop)s, %(parameter)s") % {
            "site": self.site, "crop": quality.CROP_NAMES.get(self.crop, self.crop),
            "parameter": measured.label if measured else self.parameter,
        }  # fmt: skip


class Decision(models.TextChoices):
    ACCEPTED = "accepted", _("Accepted")
    CLAIM = "claim", _("Accepted with a claim")
    REDIRECTED = "redirected", _("Redirected")
    REJECTED = "rejected", _("Rejected")


class Load(models.Model):
    """One load, by its site's ticket number, and the passport it came with."""

    site = models.ForeignKey(IntakeSite, on_delete=models.PROTECT, related_name="loads",
                             verbose_name=_("site"))  # fmt: skip
    ticket = models.CharField(_("ticket"), max_length=40)
    passport = models.ForeignKey(
        "passports.Passport", on_delete=models.PROTECT, related_name="intake_loads",
        verbose_name=_("passport"),
    )  # fmt: skip
    created = models.DateTimeField(_("created"), default=timezone.now)
    # When its latest entry was added (LoadEntry.save): the API's changes feed of a site's loads.
    updated = models.DateTimeField(_("updated"), default=timezone.now)
    # Copied from its latest figures, for the business's list.
    net_kg = models.PositiveIntegerField(_("net weight (kg)"))
    decision = models.CharField(_("decision"), max_length=16, choices=Decision.choices)

    class Meta:
        verbose_name = _("load")
        verbose_name_plural = _("loads")
        ordering = ["-created", "-pk"]
        constraints = [models.UniqueConstraint(fields=["site", "ticket"], name="one_load_a_ticket")]
        indexes = [models.Index(fields=["site", "updated", "id"], name="intake_load_changes")]

    def __str__(self) -> str:
        return gettext("%(site)s ticket %(ticket)s") % {"site": self.site, "ticket": self.ticket}


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

    load = models.ForeignKey(Load, on_delete=models.PROTECT, related_name="entries",
                             verbose_name=_("load"))  # fmt: skip
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    at = models.DateTimeField(_("at"), default=timezone.now)
    by = models.CharField(_("by"), max_length=150)  # the username, kept as it was
    # A correction's reason, a query, an answer.
    words = models.TextField(_("words"), blank=True)
    figures = models.JSONField(_("figures"), null=True, blank=True)
    specification = models.JSONField(_("specification"), null=True, blank=True)
    verdict = models.JSONField(_("verdict"), null=True, blank=True)
    certificate = models.FileField(_("certificate"), upload_to="intake/certificates/",
                                   blank=True)  # fmt: skip

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["at", "pk"]
        verbose_name = _("load entry")
        verbose_name_plural = _("load entries")

    def __str__(self) -> str:
        return gettext("%(kind)s by %(by)s (%(at)s)") % {
            "kind": self.get_kind_display(), "by": self.by, "at": f"{self.at:%Y-%m-%d %H:%M}",
        }  # fmt: skip

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

    load = models.ForeignKey(Load, on_delete=models.PROTECT, related_name="mails",
                             verbose_name=_("load"))  # fmt: skip
    entry = models.ForeignKey(LoadEntry, on_delete=models.PROTECT, related_name="mails",
                              verbose_name=_("entry"),
                              help_text=_("The change that opened the mail."))  # fmt: skip
    told_up_to = models.ForeignKey(
        LoadEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name=_("told up to"),
    )  # fmt: skip
    recipient = models.EmailField(_("recipient"))
    job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("job"),
    )  # fmt: skip
    created = models.DateTimeField(_("created"), default=timezone.now)
    queued = models.DateTimeField(_("queued"), null=True, blank=True)
    sent = models.DateTimeField(_("sent"), null=True, blank=True)
    message_id = models.CharField(_("message ID"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("result mail")
        verbose_name_plural = _("result mails")
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

    job = models.ForeignKey("jobs.Job", on_delete=models.CASCADE, related_name="+",
                            verbose_name=_("job"))  # fmt: skip
    row = models.PositiveIntegerField(_("row"))
    load = models.ForeignKey(Load, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("load"))  # fmt: skip
    outcome = models.CharField(_("outcome"), max_length=16)

    class Meta:
        verbose_name = _("uploaded row")
        verbose_name_plural = _("uploaded rows")
        constraints = [models.UniqueConstraint(fields=["job", "row"], name="one_outcome_a_row")]

    def __str__(self) -> str:
        return f"Row {self.row} of job {self.job_id}: {self.outcome}"
