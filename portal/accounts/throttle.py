"""Every login to the Assurance service, counted so that no stranger can lock sign-in.

The service locks an address out after ASSURANCE_LOCKOUT_FAILURES failed logins in a row. The
portal counts failures (a successful sign-in never uses up an allowance) and refuses further
attempts itself, without calling the service:

- per client address and per username: PORTAL_SIGN_IN_FAILURES_PER_ADDRESS and _PER_USERNAME
  in a window of PORTAL_SIGN_IN_WINDOW_SECONDS from the first failure;
- where the service counts failures against the portal's own address (the look-up account's
  always, everyone's when ASSURANCE_FORWARDS_CLIENT_ADDRESS is off): the failures passed on in
  a row since the last success. From the threshold minus 2 on (where the service warns) only
  attempts whose password has worked here before are passed on;
- a lockout the service answers is remembered for ASSURANCE_LOCKOUT_SECONDS, during which the
  service is not called, but for one attempt a minute with a password that has worked here
  before (so that a lockout lifted early ends here too; the service does not count logins
  it refuses while locked).

Each attempt costs a slow hash (below), so attempts of any kind are also limited per client
address to PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE, before any hashing: no one address can keep the
portal's processors busy.

An attempt whose password matches the verifier kept from the user's last success
(portal.accounts.verifiers) passes every limit. The counts live in the shared cache, so every
process sees the same ones; an attempt reserves its place in them before it is passed on, so
that a burst of simultaneous attempts cannot slip past a limit.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from portal.accounts import verifiers
from portal.assurance import records
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationFailed,
    LockoutActive,
    LockoutWarning,
)
from portal.assurance.service import client
from portal.operations import metrics

ATTEMPTS = "attempts"  # the client address's attempts in the last minute, failed or not
ADDRESS = "address"  # the client address's failures in the window
USERNAME = "username"  # the username's failures in the window
SHARED = "shared"  # failures in a row counted by the service against the portal's own address
SHARED_KEY = "sign-in:shared"
LOCKOUT = "lockout"  # a lockout the service answered

PROBE_SECONDS = 60


class SignInRefused(AssuranceError):
    """The portal turned a sign-in away itself, without calling the service."""

    default_message = "Sign-in is refused for a while after repeated failures."


@dataclass(frozen=True, slots=True)
class Standing:
    """Where sign-in stands against its tightest limit: the failures still allowed (0: refused
    now), and for how many seconds sign-in is refused once they are used up (None: until
    someone signs in with a password that has worked here before)."""

    limit: str
    tries: int
    seconds: float | None


def login(username: str, password: str, *, client_address: str | None) -> records.Authorization:
    """The service's login, within the portal's limits and counted by them.

    `client_address` is the end user's (None for the portal's own sign-ins). Raises
    SignInRefused, or the client's errors (AuthenticationFailed, LockoutWarning, ...). Each
    failure is counted for operators' tools (portal/operations/metrics.py).
    """
    try:
        return _login(username, password, client_address)
    except SignInRefused:
        metrics.sign_in_failed(metrics.REFUSED)
        raise
    except LockoutActive:
        metrics.sign_in_failed(metrics.LOCKED_OUT)
        raise
    except AuthenticationFailed:
        metrics.sign_in_failed(metrics.WRONG_CREDENTIALS)
        raise


def _login(username: str, password: str, client_address: str | None) -> records.Authorization:
    forwarded = client_address if settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS else None
    if client_address and _attempts(client_address).reserve() > _attempts(client_address).allowed:
        raise SignInRefused()
    verified = verifiers.matches(username, password)
    _check_lockout(forwarded, verified)
    counts = _reserve(_counts(username, client_address, forwarded), verified)
    try:
        authorization = client().login(username, password, client_address=forwarded)
    except AuthenticationFailed as failure:
        _failed(counts, warned=isinstance(failure, LockoutWarning))
        if verified:  # the service no longer takes this password
            verifiers.forget(username)
        raise
    except LockoutActive:
        _release(counts)
        _remember_lockout(forwarded)
        raise
    except BaseException:
        _release(counts)
        raise
    _succeeded(counts, forwarded)
    if not verified:
        verifiers.keep(username, password)
    return authorization


def standing(username: str, client_address: str | None) -> Standing:
    """The tightest limit a sign-in by `username` from `client_address` meets now: the fewest
    tries left, and of those the longest wait (a lockout first, then in the order counted)."""
    forwarded = client_address if settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS else None
    now = time.time()
    counts = _counts(username, client_address, forwarded)
    if client_address:
        counts.append(_attempts(client_address))
    limits = [count.standing(now) for count in counts]
    locked_until = cache.get(_lockout_key(forwarded))
    if locked_until and locked_until > now:
        limits.insert(0, Standing(LOCKOUT, 0, locked_until - now))
    return min(limits, key=lambda s: (s.tries, -_minutes(s.seconds)))


def _minutes(seconds: float | None) -> float:
    return math.inf if seconds is None else math.ceil(seconds / 60)


# --- the counts -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Count:
    """Failures counted in the shared cache, `allowed` of them before unverified attempts are
    refused; in a window from the first one, or (window None) until a success."""

    limit: str
    key: str
    allowed: int
    window: int | None
    after_warning: int | None = None  # failures still allowed once the service has warned

    def reserve(self) -> int:
        """Adds one, atomically where the cache can (Redis, memory); returns the new count."""
        now = time.time()
        if self.window is not None:
            cache.add(self._started_key, now, self.window)
        timeout = self._left(now)
        cache.add(self.key, 0, timeout)
        try:
            value = cache.incr(self.key)
        except ValueError:  # it lapsed in between
            value = 1
            cache.set(self.key, value, timeout)
        cache.touch(self.key, timeout)  # the file and database caches' incr restarts the time-out
        return value

    def release(self) -> None:
        """Takes one back (if the count has not lapsed or been cleared since)."""
        try:
            value = cache.decr(self.key)
        except ValueError:
            return
        if value < 0:
            cache.set(self.key, 0, self._left(time.time()))
        else:
            cache.touch(self.key, self._left(time.time()))

    def set_at_least(self, value: int) -> None:
        if cache.get(self.key, 0) < value:
            cache.set(self.key, value, self._left(time.time()))

    def clear(self) -> None:
        cache.delete_many([self.key, self._started_key])

    def standing(self, now: float) -> Standing:
        tries = max(0, self.allowed - cache.get(self.key, 0))
        return Standing(self.limit, tries, self._left(now))

    def _left(self, now: float) -> float | None:
        """Seconds until the window ends (the whole window if it has not started)."""
        if self.window is None:
            return None
        started = cache.get(self._started_key, now)
        return max(1.0, started + self.window - now)

    @property
    def _started_key(self) -> str:
        return f"{self.key}:started"


def _counts(username: str, client_address: str | None, forwarded: str | None) -> list[_Count]:
    window = settings.PORTAL_SIGN_IN_WINDOW_SECONDS
    per_address = settings.PORTAL_SIGN_IN_FAILURES_PER_ADDRESS
    per_username = settings.PORTAL_SIGN_IN_FAILURES_PER_USERNAME
    name = username.strip().lower()
    counts = [_Count(USERNAME, _key(USERNAME, name), per_username, window)]
    if client_address:
        # Where the service counts by this address, its warning leaves one failure before the
        # portal's limit (its lockout would come at the second).
        after_warning = 1 if forwarded else None
        address = _Count(ADDRESS, _key(ADDRESS, client_address), per_address, window, after_warning)
        counts.insert(0, address)
    if forwarded is None:
        # The service warns at the threshold minus 2 and locks at the threshold: the failures
        # between are kept for attempts with a password that has worked here before.
        allowed = max(1, settings.ASSURANCE_LOCKOUT_FAILURES - 2)
        counts.append(_Count(SHARED, SHARED_KEY, allowed, None, after_warning=0))
    return counts


def _attempts(client_address: str) -> _Count:
    allowed = settings.PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE
    return _Count(ATTEMPTS, _key(ATTEMPTS, client_address), allowed, 60)


def _key(limit: str, value: str) -> str:
    return f"sign-in:{limit}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"


def _reserve(counts: list[_Count], verified: bool) -> list[_Count]:
    """Counts the attempt as a failure in advance; refuses it past a limit (unless verified)."""
    reserved: list[_Count] = []
    for count in counts:
        value = count.reserve()
        reserved.append(count)
        if value > count.allowed and not verified:
            _release(reserved)
            raise SignInRefused()
    return reserved


def _release(counts: list[_Count]) -> None:
    """Takes back the attempt's reservation: it was not a failure."""
    for count in counts:
        count.release()


def _failed(counts: list[_Count], *, warned: bool) -> None:
    for count in counts:
        if warned and count.after_warning is not None:
            count.set_at_least(count.allowed - count.after_warning)


def _succeeded(counts: list[_Count], forwarded: str | None) -> None:
    for count in counts:
        if count.limit == ADDRESS:
            count.release()  # other people's failures from the address still stand
        else:
            count.clear()  # the service's count starts afresh; so does the username's
    cache.delete(_lockout_key(forwarded))  # a lockout lifted early


# --- the service's lockout ------------------------------------------------------------------------


def _lockout_key(forwarded: str | None) -> str:
    return _key(LOCKOUT, forwarded or "the portal's own address")


def _check_lockout(forwarded: str | None, verified: bool) -> None:
    locked_until = cache.get(_lockout_key(forwarded))
    if not locked_until or locked_until <= time.time():
        return
    if verified and cache.add(f"{_lockout_key(forwarded)}:probe", True, PROBE_SECONDS):
        return
    raise SignInRefused()


def _remember_lockout(forwarded: str | None) -> None:
    seconds = settings.ASSURANCE_LOCKOUT_SECONDS
    cache.add(_lockout_key(forwarded), time.time() + seconds, seconds)
    if forwarded is None:  # the service starts its count afresh when the lockout ends
        cache.delete(SHARED_KEY)
