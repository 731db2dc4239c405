"""The passports the portal has made: the interface has no call that lists them, so the portal
keeps its own record of each (and later lists, batches and exports build on it)."""

from __future__ import annotations

import json
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from portal.assurance import codec, records
from portal.passports import codes


class Passport(models.Model):
    """One passport made through the portal.

    A row is written before the service is asked to create the passport, under the form's
    one-time `submission` key, and holds no short code until the service answers: a second
    submission of the same form (a double click, a browser sending it again) finds the row and
    waits for it rather than making a second passport. A row whose creation failed is deleted.
    """

    submission = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    short_code = models.CharField(max_length=16, unique=True, null=True, blank=True)
    membership_guid = models.CharField(max_length=64, db_index=True)
    site_guid = models.CharField(max_length=64)
    store_guid = models.CharField(max_length=64, blank=True)
    business_name = models.CharField(max_length=200, blank=True)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now, db_index=True)
    # The passport as the service returned it, by the interface's own field names.
    record = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["membership_guid", "-created"])]

    def __str__(self) -> str:
        return self.short_code or f"(being made, {self.submission})"

    @property
    def is_made(self) -> bool:
        return bool(self.short_code)

    def keep_record(self, passport: records.CropPassport) -> None:
        self.record = codec.to_mapping(passport)
        self.short_code = codes.normalise(passport.short_code or "") or passport.short_code
        self.business_name = (passport.business_name or "")[:200]

    @property
    def crop_passport(self) -> records.CropPassport:
        """The record the service returned, read back as the client reads it."""
        body = json.dumps(self.record)
        return codec.decode(body, records.CropPassport, codec.Format.JSON)
