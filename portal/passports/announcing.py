"""The webhook events of passports (portal.outbox): `passport.created` when the service has made
one here, `passport.sent` when the mail server has taken a mail of it; each to the endpoints of
the passport's business alone, in the transaction that records the change."""

from __future__ import annotations

from django.conf import settings

from portal.outbox import events
from portal.outbox.models import EventType
from portal.passports.models import Mailing, Passport


def api_address(passport: Passport) -> str:
    return f"{settings.PORTAL_URL}/api/v1/passports/{passport.short_code}"


def created(passport: Passport) -> None:
    data = {"passport": {"short_code": passport.short_code, "status": "created"},
            "url": api_address(passport)}  # fmt: skip
    events.emit(EventType.PASSPORT_CREATED, data, membership_guid=passport.membership_guid)


def sent(mailing: Mailing) -> None:
    for passport in mailing.passports.all():
        data = {"passport": {"short_code": passport.short_code, "status": "sent"},
                "mailing": mailing.pk, "url": api_address(passport)}  # fmt: skip
        events.emit(EventType.PASSPORT_SENT, data, membership_guid=passport.membership_guid)
