"""Making a passport at the service once for a one-time key: the create form's (one passport)
and a batch's job (one key for each of its passports) both make them here.

The portal's row is written, under the key, before the service is asked, and its short code
once the service has answered; a row whose creation failed is deleted. So a second sending of a
form, or a batch's job run again, finds the passport made, or still being made, rather than
making a second one.

The interface takes no key of its own: if the process asking dies while the service makes the
passport, the service may have made one that the portal never hears of (nobody has its code).
The row left without a short code is cleared by whoever comes next under that key, once it is
known that the first cannot still be asking (docs/interface.md).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from portal.assurance import records
from portal.assurance.client import Credentials
from portal.passports.models import Passport
from portal.service import client


def claim(
    key: uuid.UUID,
    request: records.PassportRequest,
    made_by: AbstractBaseUser,
    *,
    batch: uuid.UUID | None = None,
    position: int | None = None,
) -> Passport | None:
    """The row for `key`, written now; None if there is one already (made, or being made)."""
    try:
        with transaction.atomic():
            return Passport.objects.create(
                submission=key, membership_guid=request.membership_guid or "",
                site_guid=request.site_guid or "", store_guid=request.store_guid or "",
                made_by=made_by, batch=batch, batch_position=position,
            )  # fmt: skip
    except IntegrityError:
        return None


def make(passport: Passport, credentials: Credentials, request: records.PassportRequest) -> None:
    """Asks the service to create the passport claimed as `passport`, and records it. On any
    error the row is deleted (nothing was made) and the error raised."""
    try:
        record = client().create_passport(credentials, request)
    except BaseException:
        passport.delete()
        raise
    passport.keep_record(record)
    passport.save()


def abandoned_before() -> datetime:
    """A row still without a short code that was claimed before this was abandoned: no call to
    the service lasts that long, so whoever claimed it died asking."""
    return timezone.now() - timedelta(seconds=settings.ASSURANCE_TOTAL_TIMEOUT + 30)


def clear(passport: Passport) -> None:
    """Deletes the row of a passport that was being made, if it still was."""
    Passport.objects.filter(pk=passport.pk, short_code__isnull=True).delete()
