"""The service's HTTP conventions: content negotiation, bodies, the one error shape, endpoints."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from portal.assurance import codec, records
from portal.assurance.codec import Format
from sandbox import auth
from sandbox.errors import ServiceError

JSON, XML, XML_ALIAS, PDF = "application/json", "text/xml", "application/xml", "application/pdf"
_FORMAT_OF = {JSON: Format.JSON, XML: Format.XML, XML_ALIAS: Format.XML}


def not_found(message: str = "Nothing was found at this address.") -> ServiceError:
    return ServiceError.of(404, "OperationError:NotFound", message)


def data_error(field: str, rule: str, message: str) -> records.ErrorItem:
    return records.ErrorItem(code=f"DataError:{field}:{rule}", message=message)


def required_errors(
    fields: dict[str, object], errors: list[records.ErrorItem]
) -> list[records.ErrorItem]:
    """A RequiredRule error for each field (wire name: value) that is missing or empty, unless
    `errors` already reports its value as of the wrong type."""
    wrong_type = {(e.code or "").split(":")[1] for e in errors if (e.code or "").count(":") == 2}
    return [
        data_error(name, "RequiredRule", f"{name} is required.")
        for name, value in fields.items()
        if not (value.strip() if isinstance(value, str) else value) and name not in wrong_type
    ]


# --- negotiation ----------------------------------------------------------------------------------


def _preferred(request: HttpRequest, offers: list[str]) -> str | None:
    if not request.headers.get("Accept", "").strip():
        return offers[0]
    return request.get_preferred_type(offers)


def error_format(request: HttpRequest) -> str:
    """Errors come as XML when the client asks for it, else as JSON."""
    return _preferred(request, [JSON, XML, XML_ALIAS]) or JSON


def wire_response(request: HttpRequest, record: Any, status: int = 200) -> HttpResponse:
    media_type = getattr(request, "media_type", None) or error_format(request)
    fmt = _FORMAT_OF.get(media_type, Format.JSON)
    if media_type not in _FORMAT_OF:
        media_type = JSON
    return HttpResponse(
        codec.encode(record, fmt), status=status, content_type=f"{media_type}; charset=utf-8"
    )


def error_response(request: HttpRequest, error: ServiceError) -> HttpResponse:
    request.media_type = error_format(request)
    response = wire_response(request, records.ErrorBody(errors=error.errors), error.status)
    for name, value in error.headers.items():
        response[name] = value
    return response


def wants_pdf(request: HttpRequest) -> bool:
    return getattr(request, "media_type", None) == PDF


def pdf_response(content: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=PDF)
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


# --- request bodies -------------------------------------------------------------------------------


def read_body[R](request: HttpRequest, record_type: type[R]) -> tuple[R, list[records.ErrorItem]]:
    """The record a request carries, and a FormatRule error for each value of the wrong type."""
    fmt = codec.format_of_media_type(request.META.get("CONTENT_TYPE"))
    if fmt is None:
        raise ServiceError.of(
            415,
            "OperationError:UnsupportedMediaType",
            "Send the body as text/xml or application/json.",
        )
    try:
        body = request.body
    except RequestDataTooBig:
        raise _too_large() from None
    if len(body) > settings.SANDBOX_MAX_BODY_BYTES:
        raise _too_large()
    try:
        record, problems = codec.decode_partially(body, record_type, fmt)
    except codec.WireFormatError as exc:
        message = exc.errors[0].message if exc.errors else "The body could not be read."
        raise ServiceError(400, [data_error("body", "FormatRule", message)]) from None
    errors = [data_error(p.field, "FormatRule", f"{p.field}: {p.message}") for p in problems]
    # Text the service keeps is answered in XML too, which cannot carry every character (nor
    # can a database keep a NUL in text).
    for attr, wire in codec.text_fields(record_type):
        if found := codec.not_carried_by_xml(getattr(record, attr) or ""):
            setattr(record, attr, None)
            message = f"{wire} holds U+{ord(found):04X}, a character XML cannot carry."
            errors.append(data_error(wire, "FormatRule", message))
    return record, errors


_DISCARD_AT_MOST = 4 * 1024 * 1024


def _discard_unread_body(request: HttpRequest) -> None:
    """Reads what is left of a body an error answered before reading, so that the server can
    keep the connection open for the client's next request."""
    if getattr(request, "_read_started", False) or hasattr(request, "_body"):
        return
    remaining = _DISCARD_AT_MOST
    while remaining > 0 and (chunk := request.read(min(remaining, 64 * 1024))):
        remaining -= len(chunk)


def _too_large() -> ServiceError:
    limit = settings.SANDBOX_MAX_BODY_BYTES
    return ServiceError.of(
        413, "OperationError:PayloadTooLarge", f"The body is larger than {limit} bytes."
    )


# --- endpoints ------------------------------------------------------------------------------------


def endpoint(
    *methods: str, pdf: bool = False, authenticated: bool = True
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Wraps a view of the service: method, `Accept`, credentials, then the view; any
    `ServiceError` on the way becomes the error body."""
    offers = [JSON, XML, XML_ALIAS, *([PDF] if pdf else [])]

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def handle(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                if request.method not in methods:
                    allowed = ", ".join(methods)
                    raise ServiceError.of(
                        405,
                        "OperationError:MethodNotAllowed",
                        f"This address answers {allowed} only.",
                        Allow=allowed,
                    )
                request.media_type = _preferred(request, offers)
                if request.media_type is None:
                    can = ", ".join(o for o in offers if o != XML_ALIAS)
                    raise ServiceError.of(
                        406, "OperationError:NotAcceptable", f"This address can answer {can}."
                    )
                if authenticated:
                    request.account = auth.authenticate(request)
                return view(request, *args, **kwargs)
            except ServiceError as error:
                _discard_unread_body(request)
                return error_response(request, error)

        return handle

    return decorate
