"""The upstream token of each user's latest sign-in, kept so that requests made without a
session (the user's API tokens) call the Assurance service as the user.

Every sign-in keeps its token (encrypted, portal.accounts.credentials) with its expiry, in place
of the one before; staff ending every session of a user forget it. `credentials(user)` gives it
back, or raises UpstreamSignInNeeded once it has expired, is missing, or can no longer be read
(its key dropped): the user must sign in to the portal again. The service gives a token for
about thirty days; a week before it ends, the user is mailed (portal.api.reminders).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from portal.accounts import credentials as encryption
from portal.accounts.models import LatestSignIn
from portal.assurance.client import BearerToken
from portal.assurance.errors import AuthenticationRequired


class UpstreamSignInNeeded(AuthenticationRequired):
    """The user's latest sign-in to the portal has ended (or none is kept): what is done without
    a session (an API token's request) cannot call the service until they sign in again."""

    default_message = (
        "Your sign-in to the Assurance service has ended. Sign in to the portal again: your API "
        "tokens then work with the service for about thirty days more."
    )


def keep(user: AbstractBaseUser, token: str, expires: datetime | None) -> None:
    """Keeps `token` as the user's latest sign-in's, in place of any before."""
    LatestSignIn.objects.update_or_create(
        user=user,
        defaults={"token": encryption.encrypt(token), "expires": expires,
                  "signed_in": timezone.now()},
    )  # fmt: skip


def forget(user: AbstractBaseUser) -> None:
    LatestSignIn.objects.filter(user=user).delete()


def credentials(user: AbstractBaseUser) -> BearerToken:
    """The upstream credentials of the user's latest sign-in; UpstreamSignInNeeded if none is
    kept, it has expired, or it cannot be read."""
    kept = _kept(user)
    if kept is None:
        raise UpstreamSignInNeeded()
    ciphertext, expires = kept
    if expires is not None and expires <= timezone.now():
        raise UpstreamSignInNeeded()
    token = encryption.decrypt(ciphertext)
    if not token:
        raise UpstreamSignInNeeded()
    return BearerToken(token)


def _kept(user: AbstractBaseUser) -> tuple[str, datetime | None] | None:
    """The user's latest sign-in's token, encrypted, and its expiry: as read with the user when
    it was (an API token's user, read with its token: portal.api.tokens.find), else read now."""
    if type(user).latest_sign_in.is_cached(user):
        row = getattr(user, "latest_sign_in", None)  # None when the user has none
        return (row.token, row.expires) if row is not None else None
    return LatestSignIn.objects.filter(user=user).values_list("token", "expires").first()
