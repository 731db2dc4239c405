from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url

from portal.accounts import credentials
from portal.accounts.session import ended, to_sign_in_for_htmx
from portal.assurance.errors import AssuranceError, AuthenticationRequired, NotFound
from portal.views import page_not_found, service_unavailable


class UpstreamSessionMiddleware:
    """Ends a session whose upstream token has expired, or that the upstream no longer accepts,
    and shows the unavailable page when the upstream cannot be reached."""

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

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, AuthenticationRequired):
            return ended(request)
        if isinstance(exception, NotFound):
            return page_not_found(request, exception)
        if isinstance(exception, AssuranceError):
            return service_unavailable(request, exception)
        return None


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
