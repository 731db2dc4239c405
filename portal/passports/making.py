"""Making a passport at the service once for a one-time key: the create form's (one passport)
and a batch's job (one key for each of its passports) both make them here, and each passport
made is recorded in the audit trail here.

The create form's row is written (claimed), under the key, before the service is asked, and
its short code once the service has answered; a row whose creation failed is deleted. So a
second sending of the form, which may come while the first is still asking, finds the passport
made, or still being made, rather than making a second one. A row left without a short code by
a sending whose process died is cleared by the next, once the first cannot still be asking
(`make_once` does all of this).

A batch's passports are made by one job at a time (a job runs again only once its worker has
died), so each is recorded once the service has made it, in one write: the job run again finds
the keys recorded and makes only the rest.

The interface takes no key of its own: if the process asking dies while the service makes the
passport, the service may have made one that the portal never hears of (nobody has its code)
and that is made again under the same key (docs/interface.md).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone

from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.client import Credentials
from portal.assurance.service import client
from portal.audit import events as audit
from portal.passports import announcing
from portal.passports.models import Passport


@dataclass(frozen=True, slots=True)
class Sending:
    """What one sending of the create form came to: the passport of its key, made now by this
    sending (`made_now`), or made or still being made by a first one; None while a sending
    that claimed the key after the first failed is still making it."""

    passport: Passport | None
    made_now: bool = False


def make_once(
    request: HttpRequest, key: uuid.UUID, passport_request: records.PassportRequest
) -> Sending:
    """The create form's passport for its one-time `key`, made now by the signed-in user unless
    a first sending of the form made it or is making it; made now, it is recorded in the audit
    trail. Raises the client's errors when the service did not make it (the key is free again)."""
    credentials = user_credentials(request)  # before a row is claimed that none would make
    passport = claim(key, passport_request, request.user)
    if passport is None:
        first = _first_sending(key, request.user)
        if first is not None:
            return Sending(first)
        passport = claim(key, passport_request, request.user)  # the first failed, or died
        if passport is None:
            return Sending(None)
    make(passport, credentials, passport_request)
    audit.record(audit.Kind.PASSPORT_CREATED, request, code=audit.code_hash(passport.short_code))
    return Sending(passport, made_now=True)


def claimed(key: uuid.UUID, made_by: AbstractBaseUser) -> Passport | None:
    """The row `made_by`'s create form claimed under `key`: made, being made, or abandoned."""
    return Passport.objects.filter(submission=key, made_by=made_by).first()


def _first_sending(key: uuid.UUID, made_by: AbstractBaseUser) -> Passport | None:
    """The passport a first sending of the form made or is making; None if it failed, or if its
    sender died asking (its row cleared: this sending makes it)."""
    first = claimed(key, made_by)
    if first is not None and is_abandoned(first):
        clear(first)
        return None
    return first


def claim(
    key: uuid.UUID, request: records.PassportRequest, made_by: AbstractBaseUser
) -> Passport | None:
    """The create form's row for `key`, written now; None if there is one already (made, or
    being made)."""
    passport = _row(key, request, made_by)
    return passport if _inserted(passport) else None


def make(passport: Passport, credentials: Credentials, request: records.PassportRequest) -> None:
    """Asks the service to create the passport claimed as `passport`, and records it. On any
    error the row is deleted (nothing was made) and the error raised."""
    try:
        made = client().create_passport(credentials, request)
    except BaseException:
        passport.delete()
        raise
    passport.keep_record(made)
    with transaction.atomic():  # the passport and its event in one commit
        passport.save()
        announcing.created(passport)


def is_abandoned(passport: Passport) -> bool:
    """Whether the row of a passport still being made was left by a sending whose process died
    asking: it was claimed longer ago than any call to the service lasts."""
    too_long = timedelta(seconds=settings.ASSURANCE_TOTAL_TIMEOUT + 30)
    return not passport.is_made and passport.created < timezone.now() - too_long


def clear(passport: Passport) -> None:
    """Deletes the row of a passport that was being made, if it still was."""
    Passport.objects.filter(pk=passport.pk, short_code__isnull=True).delete()


def record(
    key: uuid.UUID,
    made: records.CropPassport,
    request: records.PassportRequest,
    made_by: AbstractBaseUser,
    *,
    batch: uuid.UUID,
    position: int,
    asked_at: datetime,
) -> None:
    """Records the passport of `key` that the service has made for `request`: a batch's,
    whose passports are all made when it was asked for (`asked_at`), in the order of their
    places. A key recorded already (by another run of the batch's job) is left as it is."""
    passport = _row(key, request, made_by)
    passport.batch, passport.batch_position, passport.created = batch, position, asked_at
    passport.keep_record(made)
    try:
        with transaction.atomic():  # the row and its events in one commit, with no savepoint
            passport.save(force_insert=True)
            announcing.created(passport)
            audit.record(audit.Kind.PASSPORT_CREATED, user=made_by, code=audit.code_hash(
                passport.short_code), batch=str(batch), position=position)  # fmt: skip
    except IntegrityError:
        if not Passport.objects.filter(submission=key).exists():
            raise


def _row(key: uuid.UUID, request: records.PassportRequest, made_by: AbstractBaseUser) -> Passport:
    return Passport(submission=key, membership_guid=request.membership_guid or "",
                    site_guid=request.site_guid or "", store_guid=request.store_guid or "",
                    made_by=made_by)  # fmt: skip


def _inserted(passport: Passport) -> bool:
    """Whether the row was written: False if its key has one already."""
    try:
        with transaction.atomic():
            passport.save(force_insert=True)
    except IntegrityError:
        return False
    return True
