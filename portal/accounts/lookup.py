"""The portal's own account for short-code look-ups by people without an account.

Configured by ASSURANCE_LOOKUP_USERNAME and ASSURANCE_LOOKUP_PASSWORD. Its token is shared by
every portal process through the cache (encrypted, like users' tokens), and when the upstream
stops accepting it the account signs in again, once, and the call is repeated. Its sign-ins
come from the portal's own address, and go through the care that keeps the service from locking
it (portal.accounts.service_lockout) like everyone's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from portal.accounts import credentials, service_lockout
from portal.assurance.client import BearerToken
from portal.assurance.errors import AssuranceError, AuthenticationRequired

CACHE_KEY = "lookup-account:token"
FALLBACK_LIFETIME = timedelta(hours=1)  # when the upstream gives no expiry


class LookupAccountMissing(AssuranceError):
    default_message = "Look-ups are not set up on this portal: it has no look-up account."


def call_as_lookup_account[T](
    operation: Callable[[BearerToken], T], token: BearerToken | None = None
) -> T:
    """`operation(credentials)` as the look-up account, signing in again if its token lapsed.
    `token`, the account's token as a caller making many calls at once read it for the first,
    spares reading (and decrypting) it again for each of the others."""
    if token is not None:
        try:
            return operation(token)
        except AuthenticationRequired:
            pass  # it lapsed since the caller read it: as if it had not been given
    try:
        return operation(_token())
    except AuthenticationRequired:
        cache.delete(CACHE_KEY)
        return operation(_token())


def _token() -> BearerToken:
    cached = credentials.decrypt(cache.get(CACHE_KEY) or "")
    if cached:
        return BearerToken(cached)
    username, password = settings.ASSURANCE_LOOKUP_USERNAME, settings.ASSURANCE_LOOKUP_PASSWORD
    if not username or not password:
        raise LookupAccountMissing()
    authorization = service_lockout.login(username, password, client_address=None)
    lifetime = (authorization.expires - timezone.now()) if authorization.expires else None
    seconds = (lifetime or FALLBACK_LIFETIME).total_seconds() - 60  # renew a little early
    if seconds > 0:
        cache.set(CACHE_KEY, credentials.encrypt(authorization.token), timeout=seconds)
    return BearerToken(authorization.token)
