"""A batch's signed codes, to print: every passport of a batch (portal.passports.batches) with
the signed QR code its own page shows (portal.passports.signing) and its short code in large
type, laid out for A4, where the service's PDFs carry only their look-up codes. For the contacts
of the batch's membership only: anyone else finds the portal's 404 page, as for a passport.

A QR code drawn takes some 16 ms and is kept an hour; a batch larger than PER_PAGE (only where
PORTAL_BATCH_LIMIT is raised above it) is shown PER_PAGE codes at a time, so that no page waits
for more than that many drawn at once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from portal.lib.numbers import page_number
from portal.passports import contacts, signing
from portal.passports.models import Passport

# Five sheets of A4 at twelve codes a sheet: a batch of the default PORTAL_BATCH_LIMIT (50) is
# one page.
PER_PAGE = 60


@dataclass(frozen=True, slots=True)
class BatchCode:
    """A passport of the batch as the page shows it: its place in the batch (from 1), its
    short code in its two groups, and its signed QR code (None where none could be made)."""

    number: int
    short_code: str
    signed: signing.SignedQr | None

    @property
    def groups(self) -> list[str]:
        first, _, second = self.short_code.partition("-")
        return [first, second] if second else [first]

    @property
    def spelt(self) -> str:
        return ", ".join(" ".join(group) for group in self.groups)


@require_safe
@login_required
def batch_codes(request: HttpRequest, batch: uuid.UUID) -> HttpResponse:
    passports = _batch_for_contact(request, batch)
    page = Paginator(passports, PER_PAGE).get_page(page_number(request.GET.get("page")))
    rows = list(page.object_list)
    codes = _codes(request, rows, page.start_index())
    context = {
        "batch": batch,
        "first": rows[0],
        "page": page,
        "codes": codes,
        "signed": any(code.signed for code in codes),
        "signing_off": not settings.PORTAL_SIGNED_PASSPORTS,
        "expires": _earliest_expiry(codes),
        "days": settings.PORTAL_SIGNED_PASSPORT_DAYS,
        "per_page": PER_PAGE,
    }
    return render(request, "passports/batch_codes.html", context)


def _batch_for_contact(request: HttpRequest, batch: uuid.UUID) -> QuerySet[Passport]:
    """The batch's passports made so far, in its order, of the memberships the user is a
    contact of; Http404 if there are none (no such batch, or not theirs)."""
    theirs = [membership.membership_guid for membership in contacts.memberships(request)]
    passports = Passport.objects.filter(batch=batch, short_code__isnull=False,
                                        membership_guid__in=theirs)  # fmt: skip
    passports = passports.order_by("batch_position", "pk")
    if not passports.exists():
        raise Http404("No batch of passports has this key.")
    return passports


def _codes(request: HttpRequest, rows: list[Passport], first_number: int) -> list[BatchCode]:
    """The passports with their signed QR codes, numbered from `first_number`."""
    return [BatchCode(number, row.short_code or "", signing.signed_qr(request, row.crop_passport))
            for number, row in enumerate(rows, start=first_number)]  # fmt: skip


def _earliest_expiry(codes: list[BatchCode]) -> datetime | None:
    """When the first of these signed codes expires (each is kept an hour once signed, so
    they need not all expire on the same day)."""
    return min((code.signed.expires for code in codes if code.signed is not None), default=None)
