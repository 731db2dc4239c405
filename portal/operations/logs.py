"""The portal's logs: in production one JSON object a line on standard output
(PORTAL_LOG_FORMAT), one record for each request, and the request's id on every record made
while it is served, and while a job it started runs on a worker.

A record of a request holds its id, the user's id (the portal user's primary key, never a
username or an e-mail address), the method, the path (through the masks the apps register: a
passport's short code masked, nothing of a look-up's code; never the query string), the status
and the time taken. Nothing else of the request is written: no header, cookie or credential.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime

from celery._state import get_current_task
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from portal.lib.client_address import from_trusted_proxy

# The id of the request being served (or of the request that started the job being run).
request_id: ContextVar[str | None] = ContextVar("portal_request_id", default=None)

HEADER = "X-Request-ID"
# An id a trusted proxy sends is taken only if it is a short token (nginx's $request_id is 32
# hexadecimal digits, a UUID 36 characters).
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
_LONGEST_PATH = 300  # characters of a path written
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
READY_PATH = "/readyz"
PROBE_PATHS = ("/healthz", READY_PATH)

access_log = logging.getLogger("portal.requests")

# What an app keeps out of the paths written (a passport's short code): each mask rewrites a
# path, registered by its app's AppConfig.ready() through mask_paths_with.
_path_masks: list[Callable[[str], str]] = []

# What of a record the JSON lines hold beside its time, level, logger and message: fields given
# by name, so that nothing else a record carries (Django's request, say) is ever written.
FIELDS = ("request_id", "user_id", "method", "path", "status", "duration_ms",
          "task_id", "task_name")  # fmt: skip


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, the FIELDS a record has, and
    the exception's traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, object] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None and value != "-":
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class WithRequestId(logging.Filter):
    """Puts the id of the request being served (`-` outside one), and in a worker the job's
    task, on every record a handler writes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            # Django logs an error answer after the middleware has ended, with the request.
            of_request = getattr(getattr(record, "request", None), "request_id", None)
            record.request_id = of_request or request_id.get() or "-"
        if not hasattr(record, "task_id"):
            task = get_current_task()
            if task is not None and task.request.id:
                record.task_id, record.task_name = task.request.id, task.name
        return True


class LeaveOutReadiness(logging.Filter):
    """Drops Django's request records of /readyz's 503s: its answer names what is down, and
    monitors ask every few seconds (`portal.requests` logs each answer)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(getattr(record, "request", None), "path", "") != READY_PATH


class RefusalsInOneLine(logging.Filter):
    """Leaves the traceback out of Django's record of a 403: someone refused a page they may
    not see is the portal working as it should, and one line says all of it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403:
            record.exc_info, record.exc_text = None, None
        return True


class RequestLogMiddleware:
    """Gives each request an id (a trusted proxy's X-Request-ID, or one of its own), sends it
    back as X-Request-ID, and logs one record for the request at INFO on `portal.requests` (the
    health checks' successes at DEBUG: load balancers ask every few seconds)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        identifier = _request_id(request)
        request.request_id = identifier  # type: ignore[attr-defined]
        reset = request_id.set(identifier)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response[HEADER] = identifier
            _log(request, response.status_code, time.perf_counter() - started)
            return response
        finally:
            request_id.reset(reset)


def _request_id(request: HttpRequest) -> str:
    sent = request.headers.get(HEADER, "")
    if sent and from_trusted_proxy(request) and _TOKEN.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


def _log(request: HttpRequest, status: int, seconds: float) -> None:
    path = _CONTROL.sub("?", _masked(request.path))  # no forged lines in plain text
    if len(path) > _LONGEST_PATH:
        path = path[:_LONGEST_PATH] + "…"
    probe = request.path in PROBE_PATHS and status < 400
    ms = round(seconds * 1000, 1)
    access_log.log(
        logging.DEBUG if probe else logging.INFO,
        "%s %s %s %.0f ms",
        request.method,
        path,
        status,
        ms,
        extra={
            "request_id": request.request_id,  # type: ignore[attr-defined]
            "user_id": _user_id(request),
            "method": request.method,
            "path": path,
            "status": status,
            "duration_ms": ms,
        },
    )


def mask_paths_with(mask: Callable[[str], str]) -> None:
    """Has every path written go through `mask` first; called from an app's AppConfig.ready()."""
    if mask not in _path_masks:
        _path_masks.append(mask)


def _masked(path: str) -> str:
    for mask in _path_masks:
        path = mask(path)
    return path


def _user_id(request: HttpRequest) -> int | None:
    """The signed-in portal user's primary key; None for anyone else, or when it cannot be told
    (a request answered before authentication, the session's store out of reach)."""
    user = getattr(request, "user", None)
    try:
        return user.pk if user is not None and user.is_authenticated else None
    except Exception:  # a log line never fails a request
        return None


# --- jobs: the id of the request that started a job, on the job's records ------------------------


def send_request_id(headers: dict | None = None, **_: object) -> None:
    """Celery's before_task_publish: a task sent while a request is served carries its id."""
    identifier = request_id.get()
    if identifier and headers is not None:
        headers.setdefault("portal_request_id", identifier)


def take_request_id(task: object = None, **_: object) -> None:
    """Celery's task_prerun: the task's records carry the id of the request that sent it."""
    request_id.set(getattr(getattr(task, "request", None), "portal_request_id", None))


def drop_request_id(**_: object) -> None:
    """Celery's task_postrun."""
    request_id.set(None)


def format_celery_handlers(logger: logging.Logger | None = None, **_: object) -> None:
    """Celery's after_setup_logger and after_setup_task_logger: the worker's own handlers put
    the request id on records too and, with PORTAL_LOG_FORMAT=json, write JSON lines to
    standard output as the portal does."""
    if logger is None:
        return
    for handler in logger.handlers:
        if not any(isinstance(f, WithRequestId) for f in handler.filters):
            handler.addFilter(WithRequestId())
        if settings.PORTAL_LOG_FORMAT == "json":
            handler.setFormatter(JsonFormatter())
            if isinstance(handler, logging.StreamHandler) and handler.stream in (
                sys.__stderr__,
                sys.stderr,
            ):
                handler.setStream(sys.__stdout__)
