"""Who calls the API: `auth=scoped("passports:read")` on a route (or a router) lets in a request
with a token (`Authorization: Bearer cpp_...`) that holds every scope named, and no other.

On success:
- `request.auth` is the token (portal.api.models.Token: `.user` or `.site`, `.scopes`);
- `request.user` is the token's user (a user's token), else AnonymousUser (a site's token);
- `request.token_auth` is True: what the request may do, it may through the token alone (no
  session, no cookie, no CSRF). portal.accounts.session.user_credentials(request) then gives
  the upstream token of the user's latest sign-in, so that code written for pages serves API
  calls as it is.

Refused: 401 with the reason (`token_missing`, `token_malformed`, `token_checksum_wrong`,
`token_unknown`, `token_expired`, `token_revoked`), 403 `scope_missing` for a token without a
scope named, 429 (`Retry-After`) past PORTAL_API_REQUESTS_PER_MINUTE requests of one token in a
minute, or past FAILURES_PER_MINUTE refused tokens from one client address (tokens cannot be
guessed). A token's `last_used` is written at most every few minutes (portal.api.tokens.used).

What a token reaches beyond its scopes is its owner's: a route looks a thing up among its
user's or its site's (portal.api.intake.sites_of; each app's own rules, as its pages apply
them), and answers 404 for anything else, as the pages do.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django_ratelimit.core import get_usage
from ninja.security.http import HttpAuthBase

from portal.api import tokens
from portal.api.errors import ApiError
from portal.api.models import Scope, Token
from portal.lib.client_address import client_address
from portal.lib.rates import seconds_to_wait

FAILURES_PER_MINUTE = 20


class TokenAuth(HttpAuthBase):
    """The API's one way in: a bearer token holding `scopes`."""

    openapi_scheme = "bearer"
    openapi_description = ("A token made on Your account → API tokens (or by a site's clerks): "
                           "Authorization: Bearer cpp_...")  # fmt: skip

    def __init__(self, *scopes: str) -> None:
        unknown = [scope for scope in scopes if scope not in Scope.values]
        if unknown:
            raise ValueError(f"No such scope: {', '.join(unknown)}")
        self.scopes = scopes
        super().__init__()

    def __call__(self, request: HttpRequest) -> Token:
        if _failures(request, increment=False):
            raise ApiError(429, "rate_limited", _("Too many requests with a refused token from "
                           "this address: wait a minute."), retry_after=60)  # fmt: skip
        try:
            token = found(request)
        except tokens.Refused:
            _failures(request, increment=True)
            raise
        missing = [scope for scope in self.scopes if not token.allows(scope)]
        if missing:
            raise ApiError(403, "scope_missing", _("This token lacks the scope %(scope)s: make "
                           "a token with it.") % {"scope": missing[0]})  # fmt: skip
        _within_the_limit(request, token)
        tokens.used(token)
        request.user = token.user if token.user_id else AnonymousUser()
        request.token_auth = True
        return token


def scoped(*scopes: str) -> TokenAuth:
    """The auth of a route that needs a token holding every one of `scopes`."""
    return TokenAuth(*scopes)


def found(request: HttpRequest) -> Token:
    """The token the request carries, found once per request (portal.api.tokens.find);
    tokens.Refused if it opens nothing."""
    if not hasattr(request, "_api_token"):
        try:
            request._api_token = tokens.find(request.headers.get("Authorization", ""), request)
        except tokens.Refused as refused:
            request._api_token = refused
    if isinstance(request._api_token, tokens.Refused):
        raise request._api_token
    return request._api_token


def _failures(request: HttpRequest, *, increment: bool) -> bool:
    """Whether the client address has sent FAILURES_PER_MINUTE refused tokens (or, counting
    this one, more) in the current minute."""
    usage = get_usage(request, group="api-refused", key=lambda g, r: client_address(r),
                      rate=f"{FAILURES_PER_MINUTE}/m", increment=increment)  # fmt: skip
    return usage is not None and usage["count"] >= usage["limit"] + increment


def _within_the_limit(request: HttpRequest, token: Token) -> None:
    rate = f"{settings.PORTAL_API_REQUESTS_PER_MINUTE}/m"
    usage = get_usage(request, group="api", key=lambda g, r: str(token.pk), rate=rate,
                      increment=True)  # fmt: skip
    if usage is not None and usage["should_limit"]:
        raise ApiError(429, "rate_limited", _("Too many requests with this token: wait a minute."),
                       retry_after=seconds_to_wait(usage))  # fmt: skip
