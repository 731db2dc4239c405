"""The API's requests before and after their routes: no cookie taken (a token is the one way in:
a browser's session opens nothing, and no session is touched), a body read whole up to
API_BODY_BYTES (413 past it, unread; 411 for a body sent chunked where its end cannot be told);
any error answered outside the API's routes (an unknown address under /api/v1/, a method the
address does not take) given the error shape, for the API never answers with an HTML page, its
message in the person's language (Accept-Language; portal.accounts.language); and no answer kept
by a browser or proxy."""

from __future__ import annotations

import io
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils import translation
from django.utils.translation import gettext as _

from portal.accounts.language import language_of
from portal.api.errors import error_response
from portal.lib import bodies

PREFIX = "/api/"
# The sites' software's first address for its loads, kept as an alias of the API's.
ALIASES = frozenset({"/intake/api/loads"})
API_BODY_BYTES = 1024 * 1024
WITH_A_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(PREFIX) or request.path_info in ALIASES


class ApiMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not is_api(request):
            return self.get_response(request)
        request.COOKIES.pop(settings.SESSION_COOKIE_NAME, None)
        with translation.override(language_of(request)):  # its errors in the person's language
            refused = _read_body(request) if request.method in WITH_A_BODY else None
            response = refused or as_json(self.get_response(request))
        response.headers.setdefault("Cache-Control", "private, no-store")
        return response


def _read_body(request: HttpRequest) -> HttpResponse | None:
    """Reads the body whole (then kept, as Django keeps it), or the answer refusing it."""
    try:
        body = bodies.body_of(request, API_BODY_BYTES)
    except bodies.BodyTooLarge:
        # The same words as nginx's (deploy/nginx/portal.conf.template).
        message = _("The body is larger than %(most)s bytes: send less at a time.") % {
            "most": f"{API_BODY_BYTES:,}"}  # fmt: skip
        return error_response(413, "body_too_large", message)
    except bodies.LengthRequired:
        return error_response(411, "length_required", _("Send the body with a Content-Length."))
    request._body, request._stream = body, io.BytesIO(body)
    return None


def as_json(response: HttpResponseBase) -> HttpResponseBase:
    """An error response of anything but JSON, answered in the error shape instead."""
    content_type = response.get("Content-Type", "")
    if response.status_code < 400 or content_type.startswith("application/json"):
        return response
    replaced = error_response(response.status_code)
    for header in ("Allow", "Retry-After", "WWW-Authenticate"):
        if header in response:
            replaced[header] = response[header]
    return replaced
