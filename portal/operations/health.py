"""/healthz and /readyz, for load balancers and monitors. /healthz says only that the process
answers. /readyz runs its checks with django-health-check, at once, each given CHECK_SECONDS
(and a second more for its own time-out to report): the database (the library's check), Redis
(the cache keeps a key, and the job broker, when it is Redis, answers the library's ping), a
Celery worker alive (its heartbeat, portal/operations/heartbeat.py) and the Assurance service
answering. It names each, and answers 503 when any is down. It also says when the periodic
sweep last ran and whether it is late (portal/operations/periodic.py), which does not count
towards readiness.

The answer is public: a failure is given in the portal's own words, or as the kind of the error
behind it (`OperationalError`), never in the error's own words, which may name hosts, ports or
users; those go to the portal's log."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import logging
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import redis.asyncio
from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from health_check import Database, HealthCheck
from health_check.base import HealthCheckResult
from health_check.contrib.redis import Redis
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView

from portal.assurance import service
from portal.assurance.errors import AssuranceError
from portal.operations import heartbeat, periodic

log = logging.getLogger(__name__)

# Each check's time, and the service's to answer: the library waits a second more for a check,
# so that the answer comes within 3 s whatever hangs.
CHECK_SECONDS = 2.0
UPSTREAM_SECONDS = 2.0
# The service's answer is kept for everyone this long, so that a flood of /readyz requests
# never becomes a flood of calls to the service.
UPSTREAM_KEEP_SECONDS = 5
UPSTREAM_KEY = "health:upstream"
SWEEP = "sweep"  # said in the answer, not counted towards readiness
THREADS = 6  # one for each check that blocks


class Down(ServiceUnavailable):
    """A check's failure, in words fit for the public answer."""


def alive(request: HttpRequest) -> HttpResponse:
    """For load balancers and monitors: the portal's process answers."""
    return HttpResponse("ok\n", content_type="text/plain; charset=utf-8")


class Ready(HealthCheckView):
    """Whether the portal can serve: each check named, with its time or what is wrong. JSON
    whatever the request accepts: {"status": "ok" | "down", "checks": {name: {"ok": ...}},
    "sweep": {"ok": ...}}."""

    http_method_names = ["get", "head"]

    async def get(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        await super().get(request, *args, **kwargs)  # the checks run, their results kept
        return self.answer(self.results)

    def get_checks(self) -> Iterator[HealthCheck]:
        self.parts: list[tuple[str, str | None]] = []
        for name, part, check in checks():
            check.timeout = datetime.timedelta(seconds=CHECK_SECONDS)
            self.parts.append((name, part))
            yield check

    def get_executor(self) -> contextlib.AbstractContextManager[ThreadPoolExecutor]:
        """Threads of the request's own for the checks that block, one each, left to end by
        their own time-outs once the answer is given (the event loop's would be waited for)."""
        return _threads_left_to_end(max_workers=THREADS)

    def answer(self, results: list[HealthCheckResult]) -> JsonResponse:
        named: dict[str, dict[str, object]] = {}
        for (name, part), result in zip(self.parts, results, strict=True):
            named[name] = _merged(named.get(name), _said(name, part, result))
        swept = named.pop(SWEEP)
        ok = all(check["ok"] for check in named.values())
        return JsonResponse(
            {"status": "ok" if ok else "down", "checks": named, "sweep": swept},
            status=200 if ok else 503,
        )


def checks() -> Iterator[tuple[str, str | None, HealthCheck]]:
    """Each check: the name it is given in the answer, the part of it that it checks (said
    before its error), and the check."""
    yield "database", None, Database()
    yield "redis", "cache", CacheKeeps()
    broker = settings.CELERY_BROKER_URL
    if broker.startswith(("redis://", "rediss://", "unix://")):

        def client() -> redis.asyncio.Redis:
            return redis.asyncio.Redis.from_url(broker, socket_connect_timeout=1, socket_timeout=1)

        yield "redis", "broker", Redis(client_factory=client)
    yield "workers", None, WorkerAlive()
    yield "upstream", None, ServiceAnswers()
    yield SWEEP, None, SweepOnTime()


@contextlib.contextmanager
def _threads_left_to_end(max_workers: int) -> Iterator[ThreadPoolExecutor]:
    executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="readyz")
    try:
        yield executor
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


def _said(name: str, part: str | None, result: HealthCheckResult) -> dict[str, object]:
    """A check's result as the answer gives it; a failure logged whole."""
    error = result.error
    if error is None:
        ms = round(result.time_taken * 1000, 1)
        return {"ok": True, "ms": ms, **getattr(result.check, "details", {})}
    behind = error.__cause__ or error.__context__
    if behind is not None:
        log.warning("/readyz: %s: %s: %s", part or name, type(behind).__name__, behind)
    public = error.message if error.__cause__ is None else type(error.__cause__).__name__
    return {"ok": False, "error": f"{part}: {public}" if part else str(public)}


def _merged(first: dict[str, object] | None, then: dict[str, object]) -> dict[str, object]:
    """Two parts of one check (the cache and the broker): ok if both are, else the first
    failure; their time the longer, as they ran at once."""
    if first is None:
        return then
    if not first["ok"]:
        return first
    if not then["ok"]:
        return then
    return {**first, **then, "ms": max(float(first["ms"]), float(then["ms"]))}


# --- the portal's own checks ----------------------------------------------------------------------


@dataclasses.dataclass
class _Check(HealthCheck):
    """A check of the portal's own: blocking (run in a thread of the request's), saying what
    it found in `details` when it passes."""

    details: dict[str, object] = dataclasses.field(default_factory=dict, init=False, repr=False)


@dataclasses.dataclass
class CacheKeeps(_Check):
    """The cache keeps and gives back a key (under the portal's key prefix). Not the library's
    Cache check: that one is asynchronous, and Django runs a cache call made from asynchronous
    code in the request's own thread, which a Redis that hangs would then hold past any
    time-out; here it holds only a thread of the check's."""

    def run(self) -> None:
        key, value = f"health:{uuid.uuid4().hex}", uuid.uuid4().hex
        try:
            cache.set(key, value, timeout=10)
            kept = cache.get(key)
            cache.delete(key)
        except Exception as error:
            raise Down(type(error).__name__) from None
        if kept != value:
            raise Down("a key written was not read back")


@dataclasses.dataclass
class WorkerAlive(_Check):
    """A worker's heartbeat newer than PORTAL_WORKER_HEARTBEAT_SECONDS. The heartbeat rather
    than the library's Celery ping: a ping asks every worker at every probe, and waits for
    their answers."""

    def run(self) -> None:
        try:
            last = heartbeat.last()
        except Exception as error:
            raise Down(f"cache: {type(error).__name__}") from None
        if last is None:
            raise Down(
                f"no worker has written a heartbeat in the last "
                f"{settings.PORTAL_WORKER_HEARTBEAT_SECONDS} s"
            )
        self.details["heartbeat_age_s"] = round(last[1], 1)


@dataclasses.dataclass
class ServiceAnswers(_Check):
    """The Assurance service answers (upstream, below)."""

    def run(self) -> None:
        self.details.update(upstream())


@dataclasses.dataclass
class SweepOnTime(_Check):
    """When the periodic sweep last finished (on a connection of this thread's own, given back
    after); down when it is late."""

    def run(self) -> None:
        try:
            last = periodic.sweep()
        finally:
            connections["default"].close()
        finished = last.finished.isoformat() if last.finished else None
        if last.late:
            every = int(last.interval.total_seconds())
            when = f"last ran at {finished}" if finished else "has not run yet"
            raise Down(f"late: the sweep {when}, and runs every {every} s")
        self.details["last_ran"] = finished


def upstream() -> dict[str, object]:
    """The Assurance service answers a GET without credentials (any HTTP status: 401 is what it
    says to one), or Down; its answer kept for everyone for UPSTREAM_KEEP_SECONDS. Also the
    staff dashboard's probe."""
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
    """What went wrong, for the answer: only its kind (or the client's own message). Its whole
    text goes to the portal's log."""
    log.warning("/readyz: upstream: %s: %s", type(error).__name__, error)
    if isinstance(error, AssuranceError):
        return error.message  # the portal's own words
    return type(error).__name__
