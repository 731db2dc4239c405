"""Authentication as docs/interface.md decides: bearer tokens, session cookies, basic auth and
lockout."""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest

from portal.assurance import records
from sandbox import clock
from sandbox.errors import ServiceError
from sandbox.models import Account, Credential, LoginThrottle

REALM = "Assurance"
SESSION_COOKIE = "AssuranceSession"
WWW_AUTHENTICATE = f'Basic realm="{REALM}", Bearer realm="{REALM}"'

FAILED = "OperationError:AuthenticationFailed"
WARNING = "OperationError:AuthenticationLockoutWarning"
LOCKED = "OperationError:AuthenticationLockoutActive"
_MESSAGES = {
    FAILED: "The username or password is incorrect.",
    WARNING: "The username or password is incorrect. One or two more failures will "
    "temporarily disable sign-in from this address.",
    LOCKED: "Sign-in from this address is temporarily disabled after repeated failures.",
}
# Compared against when no account matches, so that an unknown name costs the same time.
_UNKNOWN_ACCOUNT_PASSWORD = Account(password="pbkdf2_sha256_account$100000$x$x")  # noqa: S106


def client_address(request: HttpRequest) -> str:
    """The socket's peer, or the first X-Forwarded-For address when the peer is trusted."""
    peer = request.META.get("REMOTE_ADDR", "")
    if peer in settings.SANDBOX_TRUSTED_PROXIES:
        forwarded = request.headers.get("X-Forwarded-For", "").split(",")[0].strip()
        try:
            return str(ipaddress.ip_address(forwarded))
        except ValueError:
            pass
    return peer


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def login_error(code: str) -> ServiceError:
    return ServiceError.of(400, code, _MESSAGES[code])


# --- login and lockout ----------------------------------------------------------------------------


def check_password(address: str, username: str, password: str) -> Account:
    """The account these credentials name, counting a failure against `address`.

    Raises the login error the failure earns: failed, the warning, or the lockout. The
    password is checked before the address's row is locked, so logins don't queue behind
    each other's hashing.
    """
    account = Account.find(username)
    if account is None:
        _UNKNOWN_ACCOUNT_PASSWORD.check_password(password)
    correct = account is not None and account.check_password(password)
    with transaction.atomic():
        throttle, _ = LoginThrottle.objects.select_for_update().get_or_create(address=address)
        now = clock.now()
        if throttle.locked_until and throttle.locked_until > now:
            raise login_error(LOCKED)
        if throttle.locked_until:  # a lockout that has ended starts the count afresh
            throttle.failures, throttle.locked_until = 0, None
        if correct:
            throttle.failures = 0
            throttle.save()
            return account
        code = _count_failure(throttle, now)
        throttle.save()
    raise login_error(code)


def _count_failure(throttle: LoginThrottle, now) -> str:
    throttle.failures += 1
    threshold = settings.SANDBOX_LOCKOUT_FAILURES
    if throttle.failures >= threshold:
        throttle.locked_until = now + timedelta(seconds=settings.SANDBOX_LOCKOUT_SECONDS)
        return LOCKED
    if throttle.failures >= threshold - 2:
        return WARNING
    return FAILED


def issue_token(account: Account) -> records.Authorization:
    expires = clock.now() + timedelta(days=settings.SANDBOX_TOKEN_DAYS)
    token = _new_credential(account, Credential.Kind.TOKEN, expires)
    return records.Authorization(realm=REALM, token=token, expires=expires)


def open_session(account: Account) -> str:
    """A new session for `account`; returns the cookie's value."""
    return _new_credential(account, Credential.Kind.SESSION)


def _new_credential(account: Account, kind: str, expires: datetime | None = None) -> str:
    """A new credential of `kind`; returns its secret, of which only a digest is kept."""
    secret = secrets.token_urlsafe(32)
    now = clock.now()
    Credential.objects.create(
        account=account, kind=kind, digest=digest(secret), created=now, expires=expires,
        last_seen=now,
    )  # fmt: skip
    return secret


# --- credentials on every other request -----------------------------------------------------------


def authentication_required(message: str) -> ServiceError:
    return ServiceError.of(
        401,
        "OperationError:AuthenticationRequired",
        message,
        **{"WWW-Authenticate": WWW_AUTHENTICATE},
    )


def authenticate(request: HttpRequest) -> Account:
    """The account behind the request's credentials: Authorization header first, then the cookie."""
    header = request.headers.get("Authorization", "").strip()
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return _by_token(value.strip())
        if scheme.lower() == "basic" and value.strip():
            return _by_basic(request, value.strip())
        raise authentication_required("The Authorization header is not Bearer or Basic.")
    cookie = request.COOKIES.get(SESSION_COOKIE)
    if cookie:
        return _by_session(cookie)
    raise authentication_required(
        "Credentials are required: a bearer token, the session cookie or basic authentication."
    )


def _by_token(token: str) -> Account:
    credential = (
        Credential.objects.select_related("account")
        .filter(kind=Credential.Kind.TOKEN, digest=digest(token), account__is_active=True)
        .first()
    )
    if credential is None or credential.expires <= clock.now():
        raise authentication_required("The bearer token is unknown, revoked or expired.")
    return credential.account


def _by_session(cookie: str) -> Account:
    now = clock.now()
    idle = timedelta(seconds=settings.SANDBOX_SESSION_IDLE_SECONDS)
    sessions = Credential.objects.filter(
        kind=Credential.Kind.SESSION, digest=digest(cookie), account__is_active=True
    )
    credential = sessions.select_related("account").first()
    if credential is None or credential.last_seen + idle <= now:
        sessions.delete()
        raise authentication_required("The session has ended; sign in again.")
    sessions.update(last_seen=now)
    return credential.account


def _by_basic(request: HttpRequest, value: str) -> Account:
    try:
        decoded = base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise authentication_required("The basic credentials cannot be read.") from None
    username, separator, password = decoded.partition(":")
    if not separator or not username:
        raise authentication_required("The basic credentials cannot be read.")
    try:
        return check_password(client_address(request), username, password)
    except ServiceError as error:
        if error.errors[0].code == LOCKED:
            raise
        raise authentication_required("The username or password is incorrect.") from None
