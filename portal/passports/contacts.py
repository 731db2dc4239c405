"""The memberships the signed-in user is a registered contact of (the service's authorisation
call), kept in the shared cache for PORTAL_AUTHORISATION_SECONDS: the create form asks for them
on every step, and a passport's page and its PDF are for contacts of its membership only.

Whether the user is a contact of any membership, as the service last said, is kept in their
session too, for the page frame's menu to offer the grower's pages to growers alone (`grower`)
without asking the service on every page."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.service import client


def memberships(request: HttpRequest) -> list[records.Membership]:
    """The signed-in user's memberships, kept or asked. Raises the client's errors
    (AuthenticationRequired when the sign-in has ended, Unavailable, ...)."""
    key = _key(request)
    authorisation = cache.get(key)
    if not isinstance(authorisation, records.Authorisation):
        authorisation = client().authorisation(user_credentials(request))
        cache.set(key, authorisation, settings.PORTAL_AUTHORISATION_SECONDS)
    _remember_grower(request, bool(authorisation.memberships))
    return authorisation.memberships


GROWER = "passports.grower"  # the session's: whether the user is a contact of any membership


def grower(request: HttpRequest) -> dict[str, object]:
    """The context processor: `grower`, false once the service has said that the signed-in
    user is a contact of no membership (an intake clerk, a haulier), true until it has said
    (read from the session only when a template reads it)."""
    session = getattr(request, "session", None)
    if session is None:
        return {"grower": True}
    return {"grower": SimpleLazyObject(lambda: session.get(GROWER, True))}


def _remember_grower(request: HttpRequest, is_grower: bool) -> None:
    """Kept in a signed-in session only: an API call's request makes no session of its own."""
    session = getattr(request, "session", None)
    if session is not None and SESSION_KEY in session and session.get(GROWER) != is_grower:
        session[GROWER] = is_grower


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
