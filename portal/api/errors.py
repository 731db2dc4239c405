"""The API's errors, one shape everywhere: `{"error": {"code", "message", "fields"}}`, `fields`
holding each refused field's messages by its name (empty when no field is at fault).

Routes raise `ApiError(status, code, message, fields)`; whatever else rises is answered here
too (`install`): the request's validation, a token refused, the Assurance service's errors, the
portal's own parts out of reach, and anything unforeseen as a 500, logged. What Django answers
before or beside the API (an unknown address under /api/v1/, a method not allowed, a body too
large) is given the same shape by portal.api.middleware and the error handlers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

import redis
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import NinjaAPI
from ninja.errors import HttpError, ValidationError

from portal.accounts.latest_sign_in import UpstreamSignInNeeded
from portal.api.tokens import Refused
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationRequired,
    NotAContact,
    NotFound,
    StatusNotValid,
    Unavailable,
    ValidationFailed,
)

logger = logging.getLogger(__name__)

# The code of each status, where nothing more particular is known.
CODES = {
    400: "bad_request", 401: "unauthorised", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 409: "conflict", 411: "length_required", 413: "body_too_large",
    415: "unsupported_media_type", 422: "invalid", 429: "rate_limited", 500: "server_error",
    502: "bad_gateway", 503: "unavailable", 504: "timeout",
}  # fmt: skip
# The words of each status, in the language of the request (the person's choice: their
# Accept-Language, portal.accounts.language); the codes stay as they are in every language.
MESSAGES = {
    400: gettext_lazy("The request could not be read."),
    401: gettext_lazy("Send a token: Authorization: Bearer <token>."),
    403: gettext_lazy("This token may not do this."),
    404: gettext_lazy("Nothing is at this address, or it is not yours to see."),
    405: gettext_lazy("This address does not take this method."),
    413: gettext_lazy("The body is too large."),
    422: gettext_lazy("Some values were refused: see fields."),
    429: gettext_lazy("Too many requests: wait and try again."),
    500: gettext_lazy("Something went wrong in the portal; it has been logged."),
    503: gettext_lazy("The portal cannot answer just now: try again shortly."),
}
REFUSED = gettext_lazy("The request was refused.")
TRY_AGAIN_SECONDS = 30
PARTS_OUT_OF_REACH = (OperationalError, InterfaceError, redis.ConnectionError, redis.TimeoutError)
# Where in the request a validation error's field was: left out of its name.
PLACES = frozenset({"body", "query", "path", "header", "cookie", "form", "file"})


class ApiError(Exception):
    """An answer of the error shape: raised by a route, answered by `install`'s handler."""

    def __init__(
        self,
        status: int,
        code: str | None = None,
        message: str | Promise | None = None,
        fields: Mapping[str, list[str | Promise]] | None = None,
        *,
        retry_after: int | None = None,
    ) -> None:
        self.status = status
        self.code = code or CODES.get(status, "error")
        self.message = message or MESSAGES.get(status, REFUSED)
        self.fields = dict(fields or {})
        self.retry_after = retry_after
        super().__init__(self.message)


def refused_field(field: str, message: str, status: int = 422, code: str = "invalid") -> ApiError:
    """An ApiError about one field."""
    return ApiError(status, code, message, {field: [message]})


def error_response(
    status: int,
    code: str | None = None,
    message: str | None = None,
    fields: Mapping[str, list[str]] | None = None,
    *,
    retry_after: int | None = None,
) -> JsonResponse:
    """The one error shape, with `Retry-After` when given."""
    error = ApiError(status, code, message, fields, retry_after=retry_after)
    return answer(error)


def answer(error: ApiError) -> JsonResponse:
    fields = {name: [str(message) for message in said] for name, said in error.fields.items()}
    body = {"error": {"code": error.code, "message": str(error.message), "fields": fields}}
    response = JsonResponse(body, status=error.status)
    if error.retry_after is not None:
        response["Retry-After"] = str(max(1, int(error.retry_after)))
    if error.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="api", error="invalid_token"'
    return response


def install(api: NinjaAPI) -> None:
    """Answers every exception a route lets rise in the one shape."""
    handled = {
        ApiError: lambda request, error: answer(error),
        Refused: lambda request, refused: error_response(401, refused.reason, str(refused)),
        ValidationError: lambda request, error: answer(_invalid(error.errors)),
        HttpError: _http_error,
        Http404: lambda request, error: error_response(404),
        ObjectDoesNotExist: lambda request, error: error_response(404),
        PermissionDenied: lambda request, error: error_response(403),
        AssuranceError: lambda request, error: answer(from_service(error)),
        Exception: _unforeseen,
    }
    for kind, handler in handled.items():
        api.add_exception_handler(kind, handler)


def _http_error(request: HttpRequest, error: HttpError) -> JsonResponse:
    status = error.status_code
    retry_after = getattr(error, "wait", None)
    message = str(error.message) if status != 400 else _("The body is not JSON, or not readable.")
    return error_response(status, None, message, retry_after=retry_after)


def _unforeseen(request: HttpRequest, error: Exception) -> JsonResponse:
    if isinstance(error, PARTS_OUT_OF_REACH):
        logger.warning("The API answered 503: %s", error)
        return error_response(503, retry_after=TRY_AGAIN_SECONDS)
    logger.exception("The API failed: %s %s", request.method, request.path, exc_info=error)
    return error_response(500)


def _invalid(errors: Iterable[Mapping[str, object]]) -> ApiError:
    """Pydantic's errors as messages by field (`items.0.weight`; `body` for the body whole)."""
    fields: dict[str, list[str]] = {}
    for error in errors:
        fields.setdefault(_field_name(error.get("loc", ())), []).append(str(error.get("msg", "")))
    return ApiError(422, "invalid", MESSAGES[422], fields)


def _field_name(location: object) -> str:
    parts = [str(part) for part in location] if isinstance(location, list | tuple) else []
    if parts and parts[0] in PLACES:
        place, parts = parts[0], parts[1:]
        if place == "body" and len(parts) > 1:
            parts = parts[1:]  # the route's name for its body
        parts = parts or [place]
    return ".".join(parts) or "request"


def from_service(error: AssuranceError) -> ApiError:
    """An error of the Assurance service as the API answers it."""
    if isinstance(error, UpstreamSignInNeeded):  # ended, or forgotten: said in its own words
        return ApiError(401, "upstream_sign_in_needed", error.message)
    if isinstance(error, AuthenticationRequired):
        return ApiError(401, "upstream_sign_in_needed", _("The Assurance service no longer "
                        "accepts your last sign-in: sign in to the portal again, and then the "
                        "token works again."))  # fmt: skip
    if isinstance(error, NotFound | NotAContact):
        return ApiError(404)
    if isinstance(error, ValidationFailed):
        return ApiError(422, "invalid", error.message, error.field_errors)
    if isinstance(error, StatusNotValid):
        return ApiError(422, "claim_not_valid", error.message)
    retry_after = error.retry_after if isinstance(error, Unavailable) else None
    return ApiError(503, "upstream_unavailable", error.message,
                    retry_after=int(retry_after or TRY_AGAIN_SECONDS))  # fmt: skip
