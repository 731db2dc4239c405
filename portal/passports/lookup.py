"""A passport looked up by short code for someone without an account: its verdict, asked of the
service through the portal's look-up account and kept in the shared cache for
PORTAL_LOOKUP_KEEP_SECONDS (a queue of lorries at the gate is one call, not one each), and the
look-ups each client address may make in a minute, so that short codes cannot be enumerated:
PORTAL_LOOKUPS_PER_MINUTE, or PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE for a signed-in user. Every
page that looks a code up (`/p/<code>`, `/p/check`, adding a passport by its code) counts it
here, with django-ratelimit.

Short codes and addresses stand in the cache's keys only as hashes, and nothing here logs them.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time
from dataclasses import dataclass, replace

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString
from django_ratelimit.core import get_usage

from portal.accounts.lookup import LookupAccountMissing, call_as_lookup_account
from portal.assurance import records
from portal.assurance.client import BearerToken
from portal.assurance.errors import AssuranceError, NotFound, StatusNotValid, Unavailable
from portal.assurance.service import client
from portal.audit import events as audit
from portal.lib.client_address import client_address
from portal.lib.rates import seconds_to_wait
from portal.operations import metrics
from portal.passports.sheet import sheet

NO_SUCH_PASSPORT = "none"  # kept in place of a verdict for a code the service does not know
NO_DETAILS = SafeString("")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the service answered for a short code, and when the portal asked it. `passport`
    is None when the service refused it because the claim is not valid now (StatusNotValid).
    `details` are the passport's details as the page shows them, in each language a page has
    shown them in, rendered once in each and kept with it (they do not change; the verdict is
    worked out again each time from the record); none in a verdict asked for a check at
    intake, until a look-up shows them."""

    short_code: str
    passport: records.CropPassport | None
    asked_at: float
    details: tuple[tuple[str, SafeString], ...] = ()  # (language, details)

    @property
    def shown_details(self) -> SafeString:
        """The details in the language of the page showing them."""
        return dict(self.details).get(translation.get_language(), NO_DETAILS)

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


def verdict(
    short_code: str, *, with_details: bool = True, token: BearerToken | None = None
) -> Verdict | None:
    """The verdict on `short_code` (as codes.normalise gives it), kept or asked; None when the
    service has no such passport. Raises the client's other errors (Unavailable, ...) and
    LookupAccountMissing. Without `with_details` (a check at intake, whose table shows a few
    fields), a verdict asked now is kept without its details: the first look-up that shows
    them renders them then. `token`: the look-up account's, as call_as_lookup_account takes
    it."""
    key = _key("verdict-with-details-by-language", short_code)
    keep = settings.PORTAL_LOOKUP_KEEP_SECONDS
    kept = cache.get(key) if keep > 0 else None
    if kept == NO_SUCH_PASSPORT:
        return None
    if isinstance(kept, Verdict):
        return _detailed(key, kept) if with_details else kept
    found: Verdict | None
    try:
        passport = call_as_lookup_account(
            lambda credentials: client().passport(credentials, short_code), token
        )
        details = _details(passport) if with_details else ()
        found = Verdict(short_code, passport, time.time(), details)
    except StatusNotValid:
        found = Verdict(short_code, None, time.time())
    except NotFound:
        found = None
    if keep > 0:
        cache.set(key, found or NO_SUCH_PASSPORT, keep)
    return found


def _detailed(key: str, kept: Verdict) -> Verdict:
    """A kept verdict with its details: rendered now if it was kept without them, and kept so
    for the rest of its time."""
    if kept.passport is None or translation.get_language() in dict(kept.details):
        return kept
    detailed = replace(kept, details=kept.details + _details(kept.passport))
    left = int(settings.PORTAL_LOOKUP_KEEP_SECONDS - (time.time() - kept.asked_at))
    if left > 0:
        cache.set(key, detailed, left)
    return detailed


def _details(passport: records.CropPassport) -> tuple[tuple[str, SafeString]]:
    """The passport's details as the page shows them, in the page's language."""
    shown = render_to_string("passports/details.html", {"sheet": sheet(passport)})
    return ((translation.get_language(), SafeString(shown)),)


@dataclass(frozen=True, slots=True)
class LookedUp:
    """A look-up by short code as a page answers it: the verdict (None: the service has no
    such passport), or why there is none: the address's allowance is spent (`refused`), the
    portal has no look-up account (`not_set_up`), or the service cannot be reached
    (`unavailable`, with its Retry-After if it gave one)."""

    verdict: Verdict | None = None
    refused: Allowance | None = None
    not_set_up: bool = False
    unavailable: bool = False
    retry_after: float | None = None

    @property
    def answered(self) -> bool:
        return not (self.refused or self.not_set_up or self.unavailable)

    @property
    def retry_seconds(self) -> int | None:
        """The service's Retry-After in whole seconds, as a page says it (None: not given)."""
        return round(self.retry_after) if self.retry_after else None


def look_up_now(request: HttpRequest, short_code: str | None, code: str = "") -> LookedUp:
    """The verdict on `short_code` (as codes.normalise gives it; None for a code that cannot
    be one, `code` as it was given), counted against the request's allowance and recorded in
    the audit trail: the one way every page looks a single code up."""
    allowance = take_a_look_up(request)
    if not allowance.granted:
        return LookedUp(refused=allowance)
    audit.record(audit.Kind.LOOK_UP, request, code=audit.code_hash(short_code or code))
    try:
        return LookedUp(verdict(short_code) if short_code else None)
    except LookupAccountMissing:
        return LookedUp(not_set_up=True)
    except AssuranceError as error:
        retry_after = error.retry_after if isinstance(error, Unavailable) else None
        return LookedUp(unavailable=True, retry_after=retry_after)


LOOK_UPS = "passport-look-ups"  # django-ratelimit's group: one allowance for every page


@dataclass(frozen=True, slots=True)
class Allowance:
    """Where a client address stands against its look-ups in the current window (a minute):
    whether the look-up just counted may go ahead, how many more may follow, of how many a
    window, and in how many seconds the window ends and the allowance is whole again."""

    granted: bool
    left: int
    limit: int
    seconds: int


def take_a_look_up(request: HttpRequest) -> Allowance:
    """Counts one look-up from the request's client address against its allowance."""
    return _allowance(request, increment=True)


def allowance(request: HttpRequest) -> Allowance:
    """Where the request's client address stands now, counting nothing."""
    return _allowance(request, increment=False)


def _allowance(request: HttpRequest, *, increment: bool) -> Allowance:
    usage = get_usage(request, group=LOOK_UPS, key=_address, rate=_rate, increment=increment)
    if usage is None:  # RATELIMIT_ENABLE is off: nothing is counted
        limit = _per_minute(request)
        return Allowance(granted=True, left=limit, limit=limit, seconds=60)
    limit = usage["limit"]
    if increment and usage["should_limit"]:
        _refused(request)
    return Allowance(
        granted=not usage["should_limit"],
        left=max(0, limit - usage["count"]),
        limit=limit,
        seconds=seconds_to_wait(usage),
    )


def _refused(request: HttpRequest) -> None:
    """A look-up refused by the limit: in the audit trail (who, from where: the staff
    dashboard's count) and counted for Prometheus' alerts as it happens."""
    audit.record(audit.Kind.LOOK_UP_LIMITED, request)
    metrics.look_up_limited(signed_in=request.user.is_authenticated)


def _address(group: str, request: HttpRequest) -> str:
    """The address whose allowance a look-up counts against: the client's, an IPv6 one by its
    /64 network, which one subscriber holds whole (as django-ratelimit's own `ip` key does)."""
    address = client_address(request)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False).network_address)
    return address


def _rate(group: str, request: HttpRequest) -> str:
    # django-ratelimit names a counter by its rate too: signed-in users at an address count
    # against an allowance of their own, beside that of visitors without an account.
    return f"{_per_minute(request)}/m"


def _per_minute(request: HttpRequest) -> int:
    if request.user.is_authenticated:
        return settings.PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE
    return settings.PORTAL_LOOKUPS_PER_MINUTE


def _key(kind: str, value: str) -> str:
    return f"lookup:{kind}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"
