"""Passwords that have worked here before, recognised without being kept.

After each successful sign-in the portal keeps a verifier of the password for the name the user
typed: a slow, salted, memory-hard hash made by Django's preferred hasher (scrypt, the first of
the settings' PASSWORD_HASHERS). An attempt whose password matches it passes the portal's
lockout (portal.accounts.lockout) and the care of the service's count
(portal.accounts.service_lockout), so that strangers' failures never keep out someone who has
signed in here before.
"""

from __future__ import annotations

import secrets
from functools import cache

from django.contrib.auth.hashers import check_password, get_hasher, make_password
from django.utils import timezone

from portal.accounts.models import PasswordVerifier


def _name(username: str) -> str:
    return username.strip().lower()


@cache
def _no_verifier(algorithm: str) -> str:
    return make_password(secrets.token_urlsafe(), hasher=algorithm)


def matches(username: str, password: str) -> bool:
    """Whether `password` is the one that last worked for `username` here."""
    kept = (
        PasswordVerifier.objects.filter(username=_name(username))
        .values_list("verifier", flat=True)
        .first()
    )
    if kept is None:
        # As slow, so that the time taken does not tell who has a verifier.
        check_password(password, _no_verifier(get_hasher().algorithm))
        return False
    return check_password(password, kept, setter=lambda raw: keep(username, raw))


def keep(username: str, password: str) -> None:
    PasswordVerifier.objects.update_or_create(
        username=_name(username),
        defaults={"verifier": make_password(password), "kept": timezone.now()},
    )


def forget(username: str) -> None:
    PasswordVerifier.objects.filter(username=_name(username)).delete()
