"""A passport looked up by short code for someone without an account: its verdict, asked of the
service through the portal's look-up account and kept in the shared cache for
PORTAL_LOOKUP_KEEP_SECONDS (a queue of lorries at the gate is one call, not one each), and the
look-ups each client address may make in a minute (PORTAL_LOOKUPS_PER_MINUTE), so that short
codes cannot be enumerated.

Short codes stand in the cache's keys only as hashes, and nothing here logs them.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from portal.accounts.lookup import call_as_lookup_account
from portal.assurance import records
from portal.assurance.errors import NotFound, StatusNotValid
from portal.passports.sheet import sheet
from portal.service import client

NO_SUCH_PASSPORT = "none"  # kept in place of a verdict for a code the service does not know
NO_DETAILS = SafeString("")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the service answered for a short code, and when the portal asked it. `passport`
    is None when the service refused it because the claim is not valid now (StatusNotValid).
    `details` is the passport's details as the page shows them, rendered once and kept with
    it (they do not change; the verdict is worked out again each time from the record)."""

    short_code: str
    passport: records.CropPassport | None
    asked_at: float
    details: SafeString = NO_DETAILS

    @property
    def is_valid(self) -> bool:
        """The claim is valid now: the service gave the passport, its status is Valid or Grace,
        and its expiry (if it gave one) has not passed."""
        passport = self.passport
        return passport is not None and passport.is_valid and not passport.has_expired

    @property
    def has_expired(self) -> bool:
        return self.passport is not None and self.passport.has_expired

    @property
    def seconds_since_asked(self) -> int:
        return max(0, int(time.time() - self.asked_at))


def verdict(short_code: str) -> Verdict | None:
    """The verdict on `short_code` (as codes.normalise gives it), kept or asked; None when the
    service has no such passport. Raises the client's other errors (Unavailable, ...) and
    LookupAccountMissing."""
    key = _key("verdict", short_code)
    keep = settings.PORTAL_LOOKUP_KEEP_SECONDS
    kept = cache.get(key) if keep > 0 else None
    if kept == NO_SUCH_PASSPORT:
        return None
    if isinstance(kept, Verdict):
        return kept
    found: Verdict | None
    try:
        passport = call_as_lookup_account(
            lambda credentials: client().passport(credentials, short_code)
        )
        found = Verdict(short_code, passport, time.time(), _details(passport))
    except StatusNotValid:
        found = Verdict(short_code, None, time.time())
    except NotFound:
        found = None
    if keep > 0:
        cache.set(key, found or NO_SUCH_PASSPORT, keep)
    return found


def _details(passport: records.CropPassport) -> SafeString:
    return SafeString(render_to_string("passports/details.html", {"sheet": sheet(passport)}))


@dataclass(frozen=True, slots=True)
class Refusal:
    """Too many look-ups from one address: the next may come in `seconds`."""

    seconds: int


def take_a_look_up(client_address: str) -> Refusal | None:
    """Counts one look-up from `client_address` in the current minute; a Refusal past
    PORTAL_LOOKUPS_PER_MINUTE. The count is one atomic increment where the cache has one (one
    round trip to Redis but for the minute's first look-up)."""
    now = time.time()
    minute = int(now // 60)
    key = _key(f"from:{minute}", client_address)
    try:
        count = cache.incr(key)
    except ValueError:  # the minute's first look-up (or another made it just now)
        count = 1 if cache.add(key, 1, 60) else cache.incr(key)
    if count > settings.PORTAL_LOOKUPS_PER_MINUTE:
        return Refusal(max(1, int((minute + 1) * 60 - now) + 1))
    return None


def _key(kind: str, value: str) -> str:
    return f"lookup:{kind}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"
