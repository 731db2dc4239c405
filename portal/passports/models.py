"""The passports the portal knows: the interface has no call that lists them, so the portal keeps
its own record of each one it makes, and of each one a contact adds by its code. The business's
list, batches and exports read these records."""

from __future__ import annotations

import json
import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Upper
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.assurance import codec, records
from portal.passports import codes

TEXT = 200  # the longest text kept in a column of its own


class Passport(models.Model):
    """One passport, made through the portal or added by its code.

    A passport the portal makes has its row written before the service is asked to create it,
    under a one-time `submission` key (the create form's, or one of a batch's), and holds no
    short code until the service answers: a second sending of the same form (a double click, a
    browser sending it again) or a batch's job run again finds the row rather than making a
    second passport. A row whose creation failed is deleted.

    The record is kept whole, as the service returned it; the few of its fields that the list
    filters and shows are copied into columns of their own.
    """

    class Origin(models.TextChoices):
        MADE = "made", _("Made here")
        ADDED = "added", _("Added by its code")

    submission = models.UUIDField(_("submission"), unique=True, default=uuid.uuid4,
                                  editable=False)  # fmt: skip
    short_code = models.CharField(_("short code"), max_length=16, unique=True, null=True,
                                  blank=True)  # fmt: skip
    membership_guid = models.CharField(_("membership GUID"), max_length=64, db_index=True)
    site_guid = models.CharField(_("site GUID"), max_length=64)
    store_guid = models.CharField(_("store GUID"), max_length=64, blank=True)
    business_name = models.CharField(_("business name"), max_length=TEXT, blank=True)
    # Who made it here, or added it by its code.
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("made by"),
    )  # fmt: skip
    origin = models.CharField(_("origin"), max_length=8, choices=Origin.choices,
                              default=Origin.MADE)  # fmt: skip
    # When it was made or added; a batch's passports, all when the batch was asked for.
    created = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    # A passport of a batch: the batch's key (its form's) and its place in the batch, from 0.
    batch = models.UUIDField(_("batch"), null=True, blank=True, db_index=True)
    batch_position = models.PositiveIntegerField(_("batch position"), null=True, blank=True)
    crop_type = models.CharField(_("crop type"), max_length=TEXT, blank=True)
    variety = models.CharField(_("variety"), max_length=TEXT, blank=True)
    harvest_year = models.CharField(_("harvest year"), max_length=TEXT, blank=True)
    loading_date = models.DateTimeField(_("loading date"), null=True, blank=True)
    haulier_company_name = models.CharField(_("haulier company name"), max_length=TEXT,
                                            blank=True)  # fmt: skip
    # The passport as the service returned it, by the interface's own field names.
    record = models.JSONField(_("record"), default=dict, blank=True)

    # The order passports were made in (a batch's by their place in it); the list is newest first.
    AS_MADE = ("created", "batch_position", "pk")

    class Meta:
        verbose_name = _("passport")
        verbose_name_plural = _("passports")
        ordering = ["-created", "-batch_position", "-pk"]
        indexes = [
            models.Index(fields=["membership_guid", "-created"]),
            # The list filtered by crop in any case, and counted, from the index alone; and the
            # crops and harvest years its filters offer.
            models.Index(
                F("membership_guid"), Upper("crop_type"), F("crop_type"), F("harvest_year"),
                condition=Q(short_code__isnull=False), name="passport_membership_crop",
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return self.short_code or gettext("(being made, %(submission)s)") % {
            "submission": self.submission
        }

    @property
    def is_made(self) -> bool:
        return bool(self.short_code)

    @property
    def made_by_whom(self) -> str:
        """Who made it here, or added it, as the list, its page and the mail say it; when is
        its `created`, a moment (Django's DATETIME_FORMAT)."""
        added = self.origin == self.Origin.ADDED
        if self.made_by is None:
            return gettext("Added by someone no longer here") if added else gettext(
                "Made by someone no longer here"
            )  # fmt: skip
        said = gettext("Added by %(who)s") if added else gettext("Made by %(who)s")
        return said % {"who": self.made_by.get_username()}

    def keep_record(self, passport: records.CropPassport) -> None:
        self.record = codec.to_mapping(passport)
        self.short_code = codes.normalise(passport.short_code or "") or passport.short_code
        self.business_name = _text(passport.business_name)
        self.crop_type = _text(passport.crop_type)
        self.variety = _text(passport.variety)
        self.harvest_year = _text(passport.harvest_year)
        self.loading_date = passport.loading_date
        self.haulier_company_name = _text(passport.haulier_company_name)

    @property
    def crop_passport(self) -> records.CropPassport:
        """The record the service returned, read back as the client reads it."""
        body = json.dumps(self.record)
        return codec.decode(body, records.CropPassport, codec.Format.JSON)


def _text(value: str | None) -> str:
    return (value or "").strip()[:TEXT]


class Mailing(models.Model):
    """Passports sent by e-mail at a user's request (portal.passports.mailing): who asked, to
    whom, which passports, when, and how it ended. Sent by a job (the `passport-mail` kind);
    the record stays when the job is removed."""

    # The form's one-time key: the same form sent twice is one mailing, and one mail.
    key = models.UUIDField(_("key"), unique=True, editable=False)
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("sender"),
    )  # fmt: skip
    sender_email = models.EmailField(_("sender's e-mail address"), blank=True)
    recipient = models.EmailField(_("recipient"), db_index=True)
    note = models.TextField(_("note"), blank=True,
                            help_text=_("The sender's own message, plain text."))  # fmt: skip
    passports = models.ManyToManyField(Passport, related_name="mailings",
                                       verbose_name=_("passports"))  # fmt: skip
    job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="mailing",
        verbose_name=_("job"),
    )  # fmt: skip
    created = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    # Set once the mail server has taken the mail: a job run again sends nothing then.
    sent = models.DateTimeField(_("sent"), null=True, blank=True)
    message_id = models.CharField(_("message ID"), max_length=200, blank=True)
    # The language the mail is written in, as its sender chose: its recipient (a haulier, a
    # buyer's office) has no account whose choice the portal knows.
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, default="en-gb"
    )

    class Meta:
        verbose_name = _("mailing")
        verbose_name_plural = _("mailings")
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["sender", "-created"])]

    def __str__(self) -> str:
        return gettext("Mail to %(recipient)s (%(created)s)") % {
            "recipient": self.recipient, "created": f"{self.created:%Y-%m-%d %H:%M}",
        }  # fmt: skip

    SENT, SENDING, NOT_SENT = "sent", "sending", "not-sent"

    def passports_in_order(self) -> models.QuerySet[Passport]:
        """Its passports in the order they were made (a batch's by their place in it)."""
        return self.passports.order_by(*Passport.AS_MADE)

    @property
    def status(self) -> str:
        """SENT once the mail server took it; NOT_SENT if its job failed, was cancelled or is
        gone; SENDING until then (its job's message says when it is tried again)."""
        if self.sent:
            return self.SENT
        if self.job is None or self.job.state in (self.job.State.FAILED, self.job.State.CANCELLED):
            return self.NOT_SENT
        return self.SENDING
