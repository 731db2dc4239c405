from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url

from portal.accounts import credentials
from portal.accounts.session import ended, to_sign_in_for_htmx

# What a signed-in page sends unless its view says otherwise: no copy outside the one response
# (a shared computer's back button or disk cache, a proxy).
SIGNED_IN_CACHE_CONTROL = "private, no-store"


class SignedInNoStoreMiddleware:
    """Signed-in pages, error pages included, are kept by no browser's or proxy's cache."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # No user when a middleware before authentication answered (a static file, a redirect).
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            response.headers.setdefault("Cache-Control", SIGNED_IN_CACHE_CONTROL)
        return response


class UpstreamSessionMiddleware:
    """Ends a session whose upstream token has expired (the service's refusal of a token is
    seen by portal.errors)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.user.is_authenticated:
            if credentials.has_lapsed(request.session):
                return ended(request)
            _keep_alive(request)
        response = self.get_response(request)
        if request.htmx and _is_redirect_to_sign_in(response):
            # login_required's redirect would swap the sign-in page into a fragment.
            return to_sign_in_for_htmx(request)
        return response


def _is_redirect_to_sign_in(response: HttpResponse) -> bool:
    if response.status_code != 302:
        return False
    return response["Location"].split("?", 1)[0] == resolve_url(settings.LOGIN_URL)


SEEN_KEY = "portal_seen"
TOUCH_EVERY_SECONDS = 60


def _keep_alive(request: HttpRequest) -> None:
    """Moves the idle time-out on: the session is saved (so its expiry and cookie renewed) at
    most once a minute, not on every request."""
    now = int(time.time())
    if now - request.session.get(SEEN_KEY, 0) >= TOUCH_EVERY_SECONDS:
        request.session[SEEN_KEY] = now
