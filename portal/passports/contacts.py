"""The memberships the signed-in user is a registered contact of (the service's authorisation
call), kept with the account (portal.accounts.session.kept_account) from sign-in or the last
page that asked: the create form asks for them on every step, and a passport's page and its PDF
are for contacts of its membership only."""

from __future__ import annotations

from django.http import HttpRequest

from portal.accounts.session import forget_account, keep_account, kept_account, user_credentials
from portal.assurance import records
from portal.assurance.service import client


def memberships(request: HttpRequest) -> list[records.Membership]:
    """The signed-in user's memberships, kept or asked. Raises the client's errors
    (AuthenticationRequired when the sign-in has ended, Unavailable, ...)."""
    kept = kept_account(request.user)
    if kept is not None:
        return kept.memberships
    account = client().authorisation(user_credentials(request))
    keep_account(request.user, account)
    return account.memberships


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
    forget_account(request.user)
