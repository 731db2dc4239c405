from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from portal.accounts import credentials
from portal.accounts.session import ended
from portal.assurance.errors import AssuranceError, AuthenticationRequired
from portal.views import service_unavailable


class UpstreamSessionMiddleware:
    """Ends a session whose upstream token has expired, or that the upstream no longer accepts,
    and shows the unavailable page when the upstream cannot be reached."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.user.is_authenticated and credentials.has_lapsed(request.session):
            return ended(request)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, AuthenticationRequired):
            return ended(request)
        if isinstance(exception, AssuranceError):
            return service_unavailable(request, exception)
        return None
