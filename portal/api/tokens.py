"""The API's tokens: made, found from a request's `Authorization: Bearer` header, revoked.

A token is `cpp_`, 30 random characters and a 6-character checksum (CRC32 of the random part),
all in base62, as GitHub's tokens are: a secret scanner can tell a token from a random string,
and a token mistyped or cut short is told apart from one unknown without asking the database.
Tokens of sites made before the API (`intake_` and 43 characters) are found as before.

A token is 178 random bits: its SHA-256 needs no salt nor slowness to stand against guessing.
Each token made, revoked, or sent after it was revoked is recorded in the audit trail.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string
import zlib
from collections.abc import Iterable
from datetime import datetime, timedelta
from enum import StrEnum

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy

from portal.api.models import SITE_SCOPES, Scope, Token
from portal.audit import events as audit
from portal.intake.models import IntakeSite

PREFIX = "cpp_"
ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase  # base62
RANDOM_LENGTH, CHECKSUM_LENGTH = 30, 6
FORMAT = re.compile(rf"{PREFIX}[0-9A-Za-z]{{{RANDOM_LENGTH + CHECKSUM_LENGTH}}}")
# A site's token made before the API: "intake_" and 32 random bytes, URL-safe base64.
FORMER_FORMAT = re.compile(r"intake_[0-9A-Za-z_-]{43}")
LONGEST_DAYS = 365
LAST_USED_EVERY = timedelta(minutes=5)  # last_used is written at most this often


class Reason(StrEnum):
    """Why a request's token opens nothing: the `code` of its 401."""

    MISSING = "token_missing"
    MALFORMED = "token_malformed"
    CHECKSUM_WRONG = "token_checksum_wrong"
    UNKNOWN = "token_unknown"
    EXPIRED = "token_expired"
    REVOKED = "token_revoked"


MESSAGES = {
    Reason.MISSING: gettext_lazy("Send a token: Authorization: Bearer <token>."),
    Reason.MALFORMED: gettext_lazy(
        "This is not a portal token: a token is cpp_ and 36 letters and digits."
    ),
    Reason.CHECKSUM_WRONG: gettext_lazy(
        "The token's checksum is wrong: it was mistyped or cut short."
    ),
    Reason.UNKNOWN: gettext_lazy("No such token: make one on Your account → API tokens."),
    Reason.EXPIRED: gettext_lazy("The token has expired: make another."),
    Reason.REVOKED: gettext_lazy("The token was revoked: make another."),
}


class Refused(Exception):
    """A request's token opens nothing, for `reason` (its message in the language of the
    request that is answered)."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(MESSAGES[reason])
        self.reason = reason


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    body = "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_LENGTH))
    return PREFIX + body + checksum(body)


def checksum(body: str) -> str:
    """The CRC32 of `body` in base62, six characters."""
    number, digits = zlib.crc32(body.encode()), []
    for _ in range(CHECKSUM_LENGTH):
        number, digit = divmod(number, len(ALPHABET))
        digits.append(ALPHABET[digit])
    return "".join(reversed(digits))


def longest_expiry() -> datetime:
    return timezone.now() + timedelta(days=LONGEST_DAYS)


# --- made and revoked ------------------------------------------------------------------------


def make(
    owner: AbstractBaseUser | IntakeSite,
    *,
    name: str,
    scopes: Iterable[str],
    expires: datetime,
    request: HttpRequest | None = None,
    made_by: str = "",
) -> tuple[Token, str]:
    """A new token of `owner` (a user or a site) and its secret, shown once; ValueError for
    scopes not allowed to the owner, or an expiry not within a year from now."""
    made = Token(name=name, scopes=list(scopes), expires=expires, made_by=made_by)
    if isinstance(owner, IntakeSite):
        made.site = owner
    else:
        made.user = owner
    return made, issue(made, request)


def issue(made: Token, request: HttpRequest | None = None) -> str:
    """Saves `made` (a new token, its owner, name, scopes and expiry set) with the hash of a new
    secret, and records it in the audit trail; the secret. ValueError as `make` says."""
    made.scopes = sorted(set(made.scopes))
    _check(made.site if made.site_id else made.user, made.scopes, made.expires)
    secret = new_secret()
    made.digest, made.made_by = digest(secret), made.made_by[:150]
    made.save()
    audit.record(audit.Kind.API_TOKEN_MADE, request, **_described(made))
    return secret


def _check(owner: AbstractBaseUser | IntakeSite, scopes: list[str], expires: datetime) -> None:
    allowed = SITE_SCOPES if isinstance(owner, IntakeSite) else Scope.values
    if not scopes or any(scope not in allowed for scope in scopes):
        raise ValueError(f"Choose scopes among {', '.join(allowed)}.")
    if not timezone.now() < expires <= longest_expiry():
        raise ValueError(f"A token expires within {LONGEST_DAYS} days from now.")


def revoke(tokens: QuerySet[Token], request: HttpRequest | None = None) -> int:
    """Revokes those of `tokens` not revoked yet; how many."""
    revoked = 0
    for token in tokens.filter(revoked__isnull=True).select_related("site", "user"):
        if Token.objects.filter(pk=token.pk, revoked__isnull=True).update(revoked=timezone.now()):
            revoked += 1
            audit.record(audit.Kind.API_TOKEN_REVOKED, request, **_described(token))
    return revoked


def _described(token: Token) -> dict[str, object]:
    """A token as the audit trail names it: never its secret nor its hash."""
    owner = {"site": token.site.code} if token.site_id else {"owner": token.user.get_username()}
    return {"token": token.pk, "name": token.name, "scopes": token.scopes, **owner}


# --- found -----------------------------------------------------------------------------------


def secret_of(authorization: str) -> str:
    """The token an Authorization header carries; Refused if it carries none."""
    scheme, _, secret = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise Refused(Reason.MISSING)
    return secret.strip()


def check_format(secret: str) -> None:
    """Refused unless `secret` is written as a token is: without asking the database."""
    if FORMER_FORMAT.fullmatch(secret):
        return
    if not FORMAT.fullmatch(secret):
        raise Refused(Reason.MALFORMED)
    body = secret[len(PREFIX) : -CHECKSUM_LENGTH]
    if not secrets.compare_digest(checksum(body), secret[-CHECKSUM_LENGTH:]):
        raise Refused(Reason.CHECKSUM_WRONG)


def find(authorization: str, request: HttpRequest | None = None) -> Token:
    """The token an Authorization header carries, if it may be used now; Refused with the
    reason if not. A revoked token sent is recorded in the audit trail."""
    secret = secret_of(authorization)
    check_format(secret)
    # The user's latest sign-in with it: what the token's calls to the service are made with.
    token = (
        Token.objects.select_related("site", "user", "user__latest_sign_in")
        .filter(digest=digest(secret))
        .first()
    )
    if token is None:
        raise Refused(Reason.UNKNOWN)
    if token.is_revoked:
        audit.record(audit.Kind.API_TOKEN_USED_REVOKED, request, **_described(token))
        raise Refused(Reason.REVOKED)
    if token.is_expired:
        raise Refused(Reason.EXPIRED)
    return token


def used(token: Token) -> None:
    """Notes that `token` was used now: written at most once every LAST_USED_EVERY."""
    now = timezone.now()
    if token.last_used is not None and now - token.last_used < LAST_USED_EVERY:
        return
    Token.objects.filter(pk=token.pk).update(last_used=now)
    token.last_used = now


def of_user(user: AbstractBaseUser) -> QuerySet[Token]:
    return Token.objects.filter(user=user)


def of_site(site: IntakeSite) -> QuerySet[Token]:
    return Token.objects.filter(site=site)
