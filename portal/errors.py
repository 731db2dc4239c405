"""The error pages, and the one place where the service's errors become them. The API's
addresses are answered in the API's own shape (portal.api.errors), never with a page.

A view lets the client's errors rise: no such scheme, section or passport is the 404 page, a
service that cannot be reached (or answers what cannot be read) the 503 page, and a sign-in the
service no longer accepts sends the user to sign in again. The portal's own database or Redis
out of reach for a moment gives a 503 that asks to try again, not the 500 page.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve, reverse
from django.utils import translation
from django_htmx.http import reswap

from portal.accounts import language
from portal.accounts.session import ended
from portal.api.errors import error_response
from portal.api.middleware import is_api
from portal.assurance.errors import AssuranceError, AuthenticationRequired, NotFound, Unavailable
from portal.lib.htmx import wants_fragment
from portal.standards.addresses import LIVE, standards_url

# The portal's own parts out of reach for a moment: its database, or Redis (the cache).
PARTS_OUT_OF_REACH = (OperationalError, InterfaceError, redis.ConnectionError, redis.TimeoutError)
TRY_AGAIN_SECONDS = 30


class ServiceErrorMiddleware:
    """Turns the errors of the Assurance service that a view lets rise into their pages."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, AuthenticationRequired):
            return ended(request)
        if isinstance(exception, NotFound):
            return page_not_found(request, exception)
        if isinstance(exception, AssuranceError):
            return service_unavailable(request, exception)
        return None


def service_unavailable(request: HttpRequest, error: AssuranceError) -> HttpResponse:
    """The page for a service that cannot be reached (or answers what cannot be read)."""
    retry_after = error.retry_after if isinstance(error, Unavailable) else None
    context = {"retry_url": _page_path(request), "retry_after": retry_after}
    response = _error_page(request, "errors/503.html", context, 503)
    if retry_after:
        response["Retry-After"] = str(int(retry_after))
    return response


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return error_response(404)
    return _error_page(request, "errors/404.html", {"way_back": _way_back(request)}, 404)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return error_response(400)
    return render(request, "errors/400.html", status=400)


def address_too_long(request: HttpRequest) -> HttpResponse:
    """What gunicorn's worker answers a request line too long with
    (portal/operations/web_worker.py)."""
    return render(request, "errors/400.html", {"address_too_long": True}, status=414)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return error_response(403)
    return render(request, "errors/403.html", status=403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return render(request, "errors/403_csrf.html", status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 page; or, for the database or Redis out of reach (restarting, failing over),
    a 503 that asks to try again shortly: Django calls this while handling the exception."""
    if is_api(request):
        out_of_reach = isinstance(sys.exc_info()[1], PARTS_OUT_OF_REACH)
        return error_response(
            503 if out_of_reach else 500, retry_after=TRY_AGAIN_SECONDS if out_of_reach else None
        )
    if isinstance(sys.exc_info()[1], PARTS_OUT_OF_REACH):
        response = _server_error_page(request, out_of_reach=True, status=503)
        response["Retry-After"] = str(TRY_AGAIN_SECONDS)
        return response
    return _server_error_page(request, out_of_reach=False, status=500)


def _server_error_page(request: HttpRequest, *, out_of_reach: bool, status: int) -> HttpResponse:
    """The 500 page in the language of its address, which it reads itself: the failure may
    have come before the page's language was set (a middleware's), and the page reads nothing
    of what the context processors give, which may be what failed."""
    code = language.language_of(request)
    with translation.override(code):
        context = {
            "out_of_reach": out_of_reach,
            "page_language": language.LANGUAGES.get(
                code, language.LANGUAGES[settings.LANGUAGE_CODE]
            ).tag,
            "home": reverse("home"),
        }
        return render(request, "errors/500.html", context, status=status)


def _way_back(request: HttpRequest) -> dict[str, str]:
    """Where a missing page of a scheme's standards leads back to: the scheme and its search.
    Elsewhere the error page offers the home page alone."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return {}
    scheme_guid = match.kwargs.get("scheme_guid")
    if match.namespace != "standards" or not scheme_guid:
        return {}
    stage = match.kwargs.get("stage", LIVE)
    return {
        "scheme": standards_url("scheme", stage, scheme_guid),
        "search": standards_url("search", stage, scheme_guid),
    }


def _page_path(request: HttpRequest) -> str:
    """The page the user is on: for an htmx request, the one that made it."""
    current = request.htmx.current_url_abs_path if request.htmx else None
    return current or request.get_full_path()


def _error_page(request: HttpRequest, template: str, context: dict, status: int) -> HttpResponse:
    """The error page; for an htmx request, its message alone, put inside the element that
    asked (htmx is configured to swap error answers)."""
    if wants_fragment(request):
        response = render(request, f"{template}#message", context, status=status)
        return reswap(response, "innerHTML")
    return render(request, template, context, status=status)
