"""Workers' heartbeat: each Celery worker writes to the shared cache, every third of
PORTAL_WORKER_HEARTBEAT_SECONDS, that it is alive; /readyz reads it
(portal/operations/health.py). A worker that stops (stopped, killed, its machine gone) stops
writing, and the heartbeat is stale after that many seconds. One key for all of them: /readyz
asks whether any worker is alive."""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.core.cache import cache

KEY = "jobs:worker-heartbeat"

log = logging.getLogger(__name__)
_stop = threading.Event()


def beat(worker: str) -> None:
    """Writes that `worker` is alive now."""
    cache.set(KEY, {"worker": worker, "at": time.time()}, timeout=_limit())


def last() -> tuple[str, float] | None:
    """The worker that wrote last and how many seconds ago, or None if none did within
    PORTAL_WORKER_HEARTBEAT_SECONDS."""
    value = cache.get(KEY)
    if not isinstance(value, dict):
        return None
    age = max(0.0, time.time() - float(value["at"]))
    return (str(value["worker"]), age) if age <= _limit() else None


def _limit() -> int:
    return max(1, settings.PORTAL_WORKER_HEARTBEAT_SECONDS)


def start(sender: object = None, **_: object) -> None:
    """Celery's worker_ready: a thread of the worker's main process beats until it stops."""
    worker = str(getattr(sender, "hostname", None) or "worker")
    _stop.clear()
    threading.Thread(target=_beat_until_stopped, args=(worker,), name="heartbeat",
                     daemon=True).start()  # fmt: skip


def stop(**_: object) -> None:
    """Celery's worker_shutting_down: no more beats (a worker finishing its jobs still beats
    until then, and then its heartbeat goes stale)."""
    _stop.set()


def _beat_until_stopped(worker: str) -> None:
    failing = False
    while not _stop.is_set():
        try:
            beat(worker)
        except Exception:  # the cache out of reach: said once, tried again at the next beat
            if not failing:
                log.warning("The worker's heartbeat could not be written to the cache.")
            failing = True
        else:
            if failing:
                log.info("The worker's heartbeat is written again.")
            failing = False
        _stop.wait(max(0.5, _limit() / 3))
