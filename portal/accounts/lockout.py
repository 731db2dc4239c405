"""The portal's own sign-in lockout: django-axes, by username and client address together.

Axes (the first of AUTHENTICATION_BACKENDS, and Django's user_login_failed signal) counts each
failed sign-in in PostgreSQL (`axes_accessattempt`) under the username as typed (trimmed, in
lower case) and the client address together, and refuses that username from that address once
PORTAL_SIGN_IN_FAILURES have failed within PORTAL_SIGN_IN_COOL_OFF_SECONDS, until that long after
the last of them. A stranger at another address never locks a user out, and a password that has
worked here before is never refused (`known_password`, axes' whitelist). Staff see the attempts
in the admin, and lift a lockout by deleting its row.

Before any of it, and before any password is hashed, attempts of any kind are paced per client
address (PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE, counted in the cache by django-ratelimit), so that no
one address can keep the portal's processors busy. That bounds the rows a stranger can make too:
at most that many a minute from one address, each deleted a cool-off after its last failure (by
axes at the next sign-in, sign-out or failure of anyone's, and by the periodic sweep).
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta

from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django_ratelimit.core import get_usage

from portal.accounts import verifiers
from portal.accounts.service_lockout import SignInRefused, Standing
from portal.lib.client_address import client_address
from portal.lib.rates import seconds_to_wait
from portal.operations import metrics

ACCOUNT = "account"  # one username from one address: axes
PACE = "pace"  # attempts of any kind from one address in a minute
PACE_GROUP = "sign-in-attempts"  # django-ratelimit's group
KNOWN = "known_password"  # the request's attribute: whether the attempt's password is known


def pace(request: HttpRequest) -> None:
    """Counts an attempt from the request's client address; SignInRefused past its allowance."""
    usage = get_usage(request, group=PACE_GROUP, key=_address_of, rate=_rate, increment=True)
    if usage is not None and usage["should_limit"]:
        metrics.sign_in_failed(metrics.REFUSED)
        raise SignInRefused(PACE)


def standing(request: HttpRequest, typed: str) -> list[Standing]:
    """Where a sign-in as `typed` from the request's address stands against axes' lockout and
    the pace of attempts."""
    return [_account(request, typed), _pace(request)]


def forget_expired() -> int:
    """Deletes the attempts whose cool-off has passed (the periodic sweep); how many."""
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    deleted, _ = AccessAttempt.objects.filter(attempt_time__lt=since).delete()
    return deleted


# --- axes' settings (AXES_USERNAME_CALLABLE, _CLIENT_IP_, _WHITELIST_, _LOCKOUT_CALLABLE) ---------


def username(request: HttpRequest, credentials: dict | None) -> str | None:
    """The username an attempt is counted under: as typed, trimmed, in lower case."""
    typed = (credentials or request.POST).get("username")
    return typed.strip().lower() if typed else None


def address(request: HttpRequest) -> str | None:
    """The client's address as the portal tells it (behind trusted proxies too); None where it
    is no IP address (a Unix socket's peer), as axes keeps it in a column of addresses."""
    found = client_address(request)
    try:
        ipaddress.ip_address(found)
    except ValueError:
        return None
    return found


def known_password(request: HttpRequest, credentials: dict | None) -> bool:
    """Whether the attempt's password has worked here before for its username: then axes
    neither refuses nor counts it. Asked once an attempt (a slow hash), when axes first checks
    it; kept on the request for the rest (Django hides the password from user_login_failed)."""
    known = getattr(request, KNOWN, None)
    if known is None:
        credentials = credentials or {}
        typed, password = credentials.get("username"), credentials.get("password")
        known = bool(typed and password) and verifiers.matches(typed, password)
        setattr(request, KNOWN, known)
    return known


def sign_in_page_as_answered(
    request: HttpRequest, original_response: HttpResponse, credentials: dict | None
) -> HttpResponse:
    """Axes' answer to a request it has locked out (AXES_LOCKOUT_CALLABLE, for its
    middleware): the sign-in page's own, which says for how long (portal/accounts/refusals.py)."""
    return original_response


# --- standings ------------------------------------------------------------------------------------


def tries_left(failures: int) -> int:
    """The sign-ins an account and address may still fail before axes locks them out."""
    return max(0, settings.AXES_FAILURE_LIMIT - failures)


def _account(request: HttpRequest, typed: str) -> Standing:
    """The failures of `typed` from the request's address in the cool-off, as axes counts them
    (AXES_LOCKOUT_PARAMETERS: username and address together); refused for a cool-off after the
    last of them."""
    now, cool_off = timezone.now(), settings.AXES_COOLOFF_TIME
    recent = AccessAttempt.objects.filter(
        username=username(request, {"username": typed}),
        ip_address=address(request),
        attempt_time__gte=now - cool_off,
    ).aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
    tries = tries_left(recent["failures"] or 0)
    ends = (recent["last"] or now) + cool_off
    return Standing(ACCOUNT, tries, max(1.0, (ends - now) / timedelta(seconds=1)))


def _pace(request: HttpRequest) -> Standing:
    usage = get_usage(request, group=PACE_GROUP, key=_address_of, rate=_rate, increment=False)
    if usage is None:  # RATELIMIT_ENABLE is off: nothing is counted
        return Standing(PACE, settings.PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE, 60)
    return Standing(PACE, max(0, usage["limit"] - usage["count"]), seconds_to_wait(usage))


def _address_of(group: str, request: HttpRequest) -> str:
    return client_address(request)


def _rate(group: str, request: HttpRequest) -> str:
    return f"{settings.PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE}/m"
