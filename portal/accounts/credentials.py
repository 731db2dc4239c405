"""The upstream token of a signed-in user, kept encrypted in their server-side session.

Never in a cookie, a page, a URL or a log: the session row holds only ciphertext, and the key
comes from the settings (PORTAL_TOKEN_KEY, or one derived from SECRET_KEY). Tokens are encrypted
with that key and read with it or any of its fallbacks (PORTAL_TOKEN_KEY_FALLBACKS, or those
derived from SECRET_KEY_FALLBACKS), so that a key can be changed without signing anyone out.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.utils import timezone

from portal.assurance.client import BearerToken

TOKEN_KEY = "assurance_token"  # noqa: S105 (a session key's name)
EXPIRES_KEY = "assurance_token_expires"


@cache
def _fernet(secret: str) -> Fernet:
    digest = hashlib.sha256(b"portal.accounts.credentials:" + secret.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


@cache
def _multi_fernet(secrets: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([_fernet(secret) for secret in secrets])


def _cipher() -> MultiFernet:
    """Encrypts with the current key; decrypts with it or any of its fallbacks."""
    if settings.PORTAL_TOKEN_KEY:
        keys = [settings.PORTAL_TOKEN_KEY, *settings.PORTAL_TOKEN_KEY_FALLBACKS]
    else:
        keys = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
    return _multi_fernet(tuple(dict.fromkeys(keys)))


def encrypt(token: str) -> str:
    return _cipher().encrypt(token.encode()).decode("ascii")


def decrypt(ciphertext: str) -> str | None:
    """The token, or None when the ciphertext is unreadable (as after a change of key)."""
    try:
        return _cipher().decrypt(ciphertext.encode("ascii")).decode()
    except (InvalidToken, ValueError):
        return None


def seal(data: bytes) -> bytes:
    """`data` encrypted as tokens are: for answers kept that may hold a secret."""
    return _cipher().encrypt(data)


def unseal(sealed: bytes) -> bytes | None:
    """What `seal` sealed, or None when it is unreadable (as after a change of key)."""
    try:
        return _cipher().decrypt(sealed)
    except (InvalidToken, ValueError):
        return None


def keep(session: SessionBase, token: str, expires: datetime | None) -> None:
    session[TOKEN_KEY] = encrypt(token)
    session[EXPIRES_KEY] = expires.isoformat() if expires else None


def expires(session: SessionBase) -> datetime | None:
    value = session.get(EXPIRES_KEY)
    return datetime.fromisoformat(value) if value else None


def has_lapsed(session: SessionBase) -> bool:
    """Whether the session holds a token that has passed its expiry, or none at all."""
    if TOKEN_KEY not in session:
        return True
    moment = expires(session)
    return moment is not None and moment <= timezone.now()


def bearer(session: SessionBase) -> BearerToken | None:
    """The user's credentials for the client, or None if there are none (or they are unreadable,
    as after a change of key)."""
    token = decrypt(session.get(TOKEN_KEY) or "")
    return BearerToken(token) if token else None
