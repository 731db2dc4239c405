"""The memberships the signed-in user is a registered contact of (the service's authorisation
call), kept in the shared cache for PORTAL_AUTHORISATION_SECONDS: the create form asks for them
on every step, and a passport's page and its PDF are for contacts of its membership only."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.service import client


def memberships(request: HttpRequest) -> list[records.Membership]:
    """The signed-in user's memberships, kept or asked. Raises the client's errors
    (AuthenticationRequired when the sign-in has ended, Unavailable, ...)."""
    key = _key(request)
    kept = cache.get(key)
    if isinstance(kept, records.Authorisation):
        return kept.memberships
    authorisation = client().authorisation(user_credentials(request))
    cache.set(key, authorisation, settings.PORTAL_AUTHORISATION_SECONDS)
    return authorisation.memberships


def membership(request: HttpRequest, membership_guid: str | None) -> records.Membership | None:
    """The user's membership of this GUID, or None if they are not its contact."""
    if not membership_guid:
        return None
    return next((m for m in memberships(request) if m.membership_guid == membership_guid), None)


def is_contact(request: HttpRequest, membership_guid: str | None) -> bool:
    return membership(request, membership_guid) is not None


def forget(request: HttpRequest) -> None:
    """Drops the kept memberships: the service said something they did not foresee (the user is
    no longer a contact, a claim is no longer valid)."""
    cache.delete(_key(request))


def _key(request: HttpRequest) -> str:
    return f"authorisation:{request.user.pk}"
