"""/healthz and /readyz, for load balancers and monitors. /healthz says only that the process
answers. /readyz checks, at once and within READY_SECONDS in all, what the portal needs to
serve: the database, Redis (the cache, and the job broker when it is Redis), a Celery worker
alive (its heartbeat, portal/operations/heartbeat.py) and the Assurance service answering; it names
each, and answers 503 when any is down. It also says when the periodic sweep last ran and
whether it is late (portal/operations/periodic.py), which does not count towards readiness."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from portal.assurance import service
from portal.assurance.errors import AssuranceError
from portal.operations import heartbeat, periodic

log = logging.getLogger(__name__)

READY_SECONDS = 2.5  # for all the checks together
UPSTREAM_SECONDS = 2.0  # for the service to answer
# The service's answer is kept for everyone this long, so that a flood of /readyz requests
# never becomes a flood of calls to the service.
UPSTREAM_KEEP_SECONDS = 5
UPSTREAM_KEY = "health:upstream"

Check = Callable[[], dict[str, object]]


class Down(Exception):
    """A check's failure, with a message fit for the answer."""


def alive(request: HttpRequest) -> HttpResponse:
    """For load balancers and monitors: the portal's process answers."""
    return HttpResponse("ok\n", content_type="text/plain; charset=utf-8")


@require_safe
@never_cache
def ready(request: HttpRequest) -> JsonResponse:
    """Whether the portal can serve: each check named, with its time or what is wrong."""
    checks = run_checks({"database": database, "redis": redis_check, "workers": workers,
                         "upstream": upstream, "sweep": sweep}, READY_SECONDS)  # fmt: skip
    swept = checks.pop("sweep")
    ok = all(result["ok"] for result in checks.values())
    response = JsonResponse(
        {"status": "ok" if ok else "down", "checks": checks, "sweep": swept},
        status=200 if ok else 503,
    )
    response["Cache-Control"] = "no-store"
    return response


def run_checks(checks: dict[str, Check], seconds: float) -> dict[str, dict[str, object]]:
    """Each check's result, the checks run at once, each in a thread of its own; a check that
    has not ended after `seconds` is down (its thread is left to end by its own time-outs)."""
    results: dict[str, dict[str, object]] = {}
    threads = [
        threading.Thread(target=_timed, args=(name, check, results), daemon=True)
        for name, check in checks.items()
    ]
    deadline = time.monotonic() + seconds
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    late = {"ok": False, "error": f"no answer within {seconds:g} s"}
    answered = dict(results)
    return {name: answered.get(name, late) for name in checks}


def _timed(name: str, check: Check, results: dict[str, dict[str, object]]) -> None:
    started = time.perf_counter()
    try:
        details = check()
    except Down as down:
        results[name] = {"ok": False, "error": str(down)}
    except Exception as error:  # whatever went wrong, said without secrets
        results[name] = {"ok": False, "error": _without_secrets(error)}
    else:
        ms = round((time.perf_counter() - started) * 1000, 1)
        results[name] = {"ok": True, "ms": ms, **details}


# --- the checks -----------------------------------------------------------------------------------


def database() -> dict[str, object]:
    """A SELECT 1 on a connection of this thread's own, given back after."""
    connection = connections["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()
    return {}


def redis_check() -> dict[str, object]:
    """The cache keeps and gives back a key (under the portal's key prefix); the broker, when it
    is Redis, answers a PING."""
    key, value = f"health:{uuid.uuid4().hex}", uuid.uuid4().hex
    try:
        cache.set(key, value, timeout=10)
        kept = cache.get(key)
        cache.delete(key)
    except Exception as error:
        raise Down(f"cache: {_without_secrets(error)}") from None
    if kept != value:
        raise Down("cache: a key written was not read back")
    broker = settings.CELERY_BROKER_URL
    if broker.startswith(("redis://", "rediss://", "unix://")):
        try:
            client = redis.Redis.from_url(broker, socket_connect_timeout=1, socket_timeout=1)
            with client:
                client.ping()
        except Exception as error:
            raise Down(f"broker: {_without_secrets(error)}") from None
    return {}


def workers() -> dict[str, object]:
    """A worker's heartbeat newer than PORTAL_WORKER_HEARTBEAT_SECONDS."""
    try:
        last = heartbeat.last()
    except Exception as error:
        raise Down(f"cache: {_without_secrets(error)}") from None
    if last is None:
        raise Down(
            f"no worker has written a heartbeat in the last "
            f"{settings.PORTAL_WORKER_HEARTBEAT_SECONDS} s"
        )
    return {"heartbeat_age_s": round(last[1], 1)}


def sweep() -> dict[str, object]:
    """When the periodic sweep last finished (on a connection of this thread's own, given back
    after); down when it is late."""
    try:
        last = periodic.sweep()
    finally:
        connections["default"].close()
    finished = last.finished.isoformat() if last.finished else None
    if last.late:
        every = int(last.interval.total_seconds())
        when = f"last ran at {finished}" if finished else "has not run yet"
        raise Down(f"late: the sweep {when}, and runs every {every} s")
    return {"last_ran": finished}


def upstream() -> dict[str, object]:
    """The Assurance service answers a GET without credentials (any HTTP status: 401 is what it
    says to one); its answer kept for everyone for UPSTREAM_KEEP_SECONDS."""
    try:
        kept = cache.get(UPSTREAM_KEY)
    except Exception:  # the cache down: the redis check says so
        kept = None
    if kept is None:
        try:
            status = service.client().answers(UPSTREAM_SECONDS)
        except Exception as error:
            kept = {"ok": False, "error": _without_secrets(error)}
        else:  # any answer but a gateway's (or the service's) 5xx: 401, as expected
            kept = (
                {"ok": True, "status": status}
                if status < 500
                else {"ok": False, "error": f"the service answered {status}"}
            )
        with contextlib.suppress(Exception):  # the cache down: the redis check says so
            cache.set(UPSTREAM_KEY, kept, timeout=UPSTREAM_KEEP_SECONDS)
    if not kept["ok"]:
        raise Down(str(kept["error"]))
    return {"status": kept["status"]}


def _without_secrets(error: BaseException) -> str:
    """What went wrong, for the answer: /readyz is public, and an error's own words may name
    hosts, ports or users, so only its kind is given (or the client's own message). Its whole
    text goes to the portal's log."""
    log.warning("/readyz: %s: %s", type(error).__name__, error)
    if isinstance(error, AssuranceError):
        return error.message  # the portal's own words
    return type(error).__name__
