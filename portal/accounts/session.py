"""Signing a user in through the upstream, and out again."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, get_user_model, login, logout
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django_htmx.http import HttpResponseClientRedirect

from portal.accounts import credentials, latest_sign_in, lockout
from portal.accounts.service_lockout import SignInRefused
from portal.assurance import records
from portal.assurance.client import BearerToken
from portal.assurance.errors import AuthenticationRequired
from portal.audit import events as audit
from portal.operations import metrics

# What the Assurance account's backend (portal/accounts/backends.py) leaves on the request for
# `sign_in`: a success's token; or the service's answer to a failure (Django's `authenticate`
# gives None for either failure, the portal's lockout or a wrong password).
AUTHORIZATION = "assurance_authorization"
FAILURE = "assurance_failure"
# The account as the service gave it at sign-in (records.Authorisation: its username and
# memberships), left on the request by the backend.
ACCOUNT = "assurance_account"
# Whether the account is a contact of any membership, as the service said at sign-in: kept in
# the session, for every page's menu to offer the grower's pages to growers alone
# (navigation.grower).
GROWER = "assurance_grower"


def sign_in(request: HttpRequest, username: str, password: str) -> AbstractBaseUser:
    """Signs in through Django's `authenticate` (django-axes's backend, then the Assurance
    account's: portal/accounts/backends.py), mirrors the account locally, starts the session.

    Raises the client's errors (AuthenticationFailed, LockoutWarning, ...) unchanged, and
    SignInRefused when the portal's own limits turn the attempt away.
    """
    lockout.pace(request)  # before any password is hashed
    user = authenticate(request, username=username, password=password)
    if user is None:
        failure = getattr(request, FAILURE, None)
        if failure is None:  # axes refused it before the service was asked
            metrics.sign_in_failed(metrics.REFUSED)
            raise SignInRefused(lockout.ACCOUNT)
        raise failure
    authorization: records.Authorization = getattr(request, AUTHORIZATION)
    login(request, user)  # a new session key, with the backend that authenticated the user
    credentials.keep(request.session, authorization.token, authorization.expires)
    account: records.Authorisation = getattr(request, ACCOUNT)
    request.session[GROWER] = bool(account.memberships)
    keep_account(user, account)
    latest_sign_in.keep(user, authorization.token, authorization.expires)
    return user


def kept_account(user: AbstractBaseUser) -> records.Authorisation | None:
    """The user's account as the service last gave it, kept in the shared cache for
    PORTAL_AUTHORISATION_SECONDS (from sign-in, or from the last page that asked), or None."""
    kept = cache.get(_account_key(user))
    return kept if isinstance(kept, records.Authorisation) else None


def keep_account(user: AbstractBaseUser, account: records.Authorisation) -> None:
    cache.set(_account_key(user), account, settings.PORTAL_AUTHORISATION_SECONDS)


def forget_account(user: AbstractBaseUser) -> None:
    cache.delete(_account_key(user))


def _account_key(user: AbstractBaseUser) -> str:
    return f"authorisation:{user.pk}"


def portal_user(username: str) -> AbstractBaseUser:
    """The portal's user for the service's account `username`, made on first need. Only the
    service signs portal users in: their local password is unusable."""
    user, _ = get_user_model().objects.get_or_create(
        username=username, defaults={"password": make_password(None)}
    )
    return user


def user_credentials(request: HttpRequest) -> BearerToken:
    """The signed-in user's upstream credentials; AuthenticationRequired when there are none.
    A request made with one of the user's API tokens (`request.token_auth`, set by the API's
    authentication with `request.user`) has no session: it acts with the token of the user's
    latest sign-in, or raises UpstreamSignInNeeded (an AuthenticationRequired)."""
    if getattr(request, "token_auth", False):
        return _latest_sign_in(request)
    token = credentials.bearer(request.session)
    if token is None:
        raise AuthenticationRequired()
    return token


def _latest_sign_in(request: HttpRequest) -> BearerToken:
    """The token of the user's latest sign-in, read once a request (read and decrypted, it is a
    query: a passport made through the API calls the service with it and starts its PDF's job
    with it)."""
    if not hasattr(request, "_latest_sign_in"):
        request._latest_sign_in = latest_sign_in.credentials(request.user)
    return request._latest_sign_in


def sign_out(request: HttpRequest) -> None:
    logout(request)  # flushes the session, and the token in it


def end_every_session(user: AbstractBaseUser, request: HttpRequest) -> None:
    """Ends every session `user` has, on its next request, and records that staff did it. The
    token of their latest sign-in is forgotten too: their API tokens no longer reach the service
    until they sign in again.

    Users sign in through the Assurance service and have no password here (theirs is unusable),
    so a session is tied to that unusable password's hash, which Django checks on every
    request: a new one ends every session the user has."""
    user.set_unusable_password()
    user.save(update_fields=["password"])
    latest_sign_in.forget(user)
    audit.record(audit.Kind.SESSIONS_ENDED, request, ended_for=user.get_username(),
                 ended_for_id=user.pk)  # fmt: skip


def sign_in_url(next_path: str | None = None) -> str:
    url = reverse("accounts:sign-in")
    return f"{url}?{urlencode({'next': next_path})}" if next_path else url


def safe_next(request: HttpRequest, candidate: str | None) -> str | None:
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return None


def to_sign_in_for_htmx(request: HttpRequest) -> HttpResponse:
    """Sends an htmx request with no session to sign in as a whole page, then back to the page
    it came from."""
    where = safe_next(request, request.htmx.current_url_abs_path) or request.get_full_path()
    return HttpResponseClientRedirect(sign_in_url(where))


def ended(request: HttpRequest) -> HttpResponse:
    """Ends a session whose upstream sign-in has ended and sends the user to sign in again,
    then back to where they were. An htmx request gets a client redirect, never a form."""
    sign_out(request)
    messages.info(request, _("Your sign-in has ended. Please sign in again."))
    if request.htmx:
        return to_sign_in_for_htmx(request)
    return HttpResponseRedirect(sign_in_url(request.get_full_path()))
