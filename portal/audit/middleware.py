"""The request being served, for the events recorded from Django's signals rather than from a
view (a user's rights changed in the admin): by whom and from which address."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

acting_request: ContextVar[HttpRequest | None] = ContextVar("audit_acting_request", default=None)


class ActingRequestMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        reset = acting_request.set(request)
        try:
            return self.get_response(request)
        finally:
            acting_request.reset(reset)
