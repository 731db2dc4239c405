"""The service's login, kept from locking out anyone but whoever failed.

The Assurance service locks an address out after ASSURANCE_LOCKOUT_FAILURES failed logins in a
row from it (warning from the threshold minus 2 on), and starts its count afresh at a success or
when a lockout ends. The address it counts is the user's where it believes the portal's
X-Forwarded-For (ASSURANCE_FORWARDS_CLIENT_ADDRESS), else the portal's own, which every user
then shares, the look-up account included. django-axes (portal.accounts.lockout) counts by
username and address; this count, the service's own, only the portal can keep:

- it keeps, in the shared cache, the failures it has passed on in a row for each address the
  service counts. From the threshold minus 2 on only attempts whose password has worked here
  before (portal.accounts.verifiers) are passed on: those all but always succeed, and a success
  sets the count back to 0, so strangers never take it to the threshold. The failure between
  is kept for such an attempt that fails. The service's warning says the count is at least the
  threshold minus 2, whatever the cache has lost;
- an attempt takes its place in the count before it is passed on, so that a burst of
  simultaneous attempts cannot slip past;
- a lockout the service answers is remembered for ASSURANCE_LOCKOUT_SECONDS, during which the
  service is not asked, but for one attempt a minute with a password that has worked here
  before (the service does not count logins it refuses while locked), so that a lockout lifted
  early ends here too.

A user's own address's count lapses ASSURANCE_LOCKOUT_SECONDS after its last failure, so that
strangers' addresses do not fill the cache; the portal's own address's lasts until a success.
"""

from __future__ import annotations

import hashlib
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

SHARED = "shared"  # the portal's own address, where the service counts everyone's failures
ADDRESS = "address"  # the user's address, where the service believes the portal's forwarding
LOCKOUT = "lockout"  # a lockout the service answered
PROBE_SECONDS = 60


class SignInRefused(AssuranceError):
    """The portal turned a sign-in away itself, without calling the service; `limit` says
    which of its limits did."""

    default_message = "Sign-in is refused for a while after repeated failures."

    def __init__(self, limit: str) -> None:
        super().__init__()
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Standing:
    """Where sign-in stands against one limit: the failures still allowed (0: refused now),
    and for how many seconds sign-in is refused once they are used up (None: until someone
    signs in with a password that has worked here before)."""

    limit: str
    tries: int
    seconds: float | None


def login(
    username: str, password: str, *, client_address: str | None, known: bool | None = None
) -> records.Authorization:
    """The service's login, unless its count or lockout of the address it counts forbids it.

    `client_address` is the end user's (None for the portal's own sign-ins); `known`, whether
    the password is one that has worked here before (asked of the verifiers if not given).
    Raises SignInRefused, or the client's errors (AuthenticationFailed, LockoutWarning, ...);
    each failure is counted for operators' tools (portal/operations/metrics.py).
    """
    if known is None:
        known = verifiers.matches(username, password)
    try:
        return _login(username, password, _Count.of(client_address), known)
    except SignInRefused:
        metrics.sign_in_failed(metrics.REFUSED)
        raise
    except LockoutActive:
        metrics.sign_in_failed(metrics.LOCKED_OUT)
        raise
    except AuthenticationFailed:
        metrics.sign_in_failed(metrics.WRONG_CREDENTIALS)
        raise


def _login(username: str, password: str, count: _Count, known: bool) -> records.Authorization:
    _check_lockout(count, known)
    count.reserve(known)
    try:
        authorization = client().login(username, password, client_address=count.address)
    except AuthenticationFailed as failure:
        if isinstance(failure, LockoutWarning):
            count.warned()
        if known:  # the service no longer takes this password
            verifiers.forget(username)
        raise
    except LockoutActive:
        count.release()
        _remember_lockout(count)
        raise
    except BaseException:
        count.release()
        raise
    count.clear()
    cache.delete(count.lockout_key)  # a lockout lifted early
    if not known:
        verifiers.keep(username, password)
    return authorization


def standing(client_address: str | None) -> list[Standing]:
    """Where a sign-in from `client_address` stands against the service's count of the address
    it counts, and its lockout if one is remembered."""
    count = _Count.of(client_address)
    now = time.time()
    standings = [count.standing(now)]
    locked_until = cache.get(count.lockout_key)
    if locked_until and locked_until > now:
        standings.insert(0, Standing(LOCKOUT, 0, locked_until - now))
    return standings


@dataclass(frozen=True, slots=True)
class _Count:
    """The failures in a row the service holds against one address, as the portal sees them:
    the user's (forwarded to the service), or None for the portal's own."""

    address: str | None

    @classmethod
    def of(cls, client_address: str | None) -> _Count:
        return cls(client_address if settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS else None)

    @property
    def limit(self) -> str:
        return SHARED if self.address is None else ADDRESS

    @property
    def allowed(self) -> int:
        """Failures passed on for any password; beyond, only for one that has worked here."""
        return max(1, settings.ASSURANCE_LOCKOUT_FAILURES - 2)

    @property
    def lapses(self) -> int | None:
        return None if self.address is None else settings.ASSURANCE_LOCKOUT_SECONDS

    def reserve(self, known: bool) -> None:
        """Counts the attempt as a failure before it is passed on (atomically where the cache
        can: Redis, memory); SignInRefused past the allowance, unless the password is known."""
        cache.add(self.key, 0, self.lapses)
        try:
            value = cache.incr(self.key)
        except ValueError:  # it lapsed in between
            value = 1
            cache.set(self.key, value, self.lapses)
        cache.touch(self.key, self.lapses)  # the file and database caches' incr restarts it
        if value > self.allowed and not known:
            self.release()
            raise SignInRefused(self.limit)
        if self.lapses is not None:
            cache.set(self.until_key, time.time() + self.lapses, self.lapses)

    def release(self) -> None:
        """Takes the attempt back: it was not a failure (if the count has not lapsed since)."""
        try:
            value = cache.decr(self.key)
        except ValueError:
            return
        if value < 0:
            cache.set(self.key, 0, self.lapses)
        else:
            cache.touch(self.key, self.lapses)

    def warned(self) -> None:
        """The service warned: its count is at least the allowance."""
        if cache.get(self.key, 0) < self.allowed:
            cache.set(self.key, self.allowed, self.lapses)

    def clear(self) -> None:
        cache.delete_many([self.key, self.until_key])

    def standing(self, now: float) -> Standing:
        tries = max(0, self.allowed - cache.get(self.key, 0))
        if self.lapses is None:
            return Standing(self.limit, tries, None)
        until = cache.get(self.until_key, now + self.lapses)
        return Standing(self.limit, tries, max(1.0, until - now))

    @property
    def key(self) -> str:
        return _key("count", self.address)

    @property
    def until_key(self) -> str:
        return f"{self.key}:until"

    @property
    def lockout_key(self) -> str:
        return _key(LOCKOUT, self.address)


def _key(kind: str, address: str | None) -> str:
    value = address or "the portal's own address"
    return f"sign-in:service:{kind}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"


def _check_lockout(count: _Count, known: bool) -> None:
    locked_until = cache.get(count.lockout_key)
    if not locked_until or locked_until <= time.time():
        return
    if known and cache.add(f"{count.lockout_key}:probe", True, PROBE_SECONDS):
        return
    raise SignInRefused(LOCKOUT)


def _remember_lockout(count: _Count) -> None:
    seconds = settings.ASSURANCE_LOCKOUT_SECONDS
    cache.add(count.lockout_key, time.time() + seconds, seconds)
    count.clear()  # the service starts its count afresh when the lockout ends
