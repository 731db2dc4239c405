"""Celery beat's schedulers (CELERY_BEAT_SCHEDULER). Where the portal has Redis, RedisScheduler:
celery-redbeat's, which keeps the schedule (each task's last run) in Redis under the portal's
key prefix, and sends only while it holds a lock there. Any number of beats may run, on any
machines: the one holding the lock sends; the others wait to take it, and one does within the
lock's time-out and a loop of beat's once the holder stops (at once when it stops cleanly,
since it lets go of the lock).

This scheduler outlasts Redis's troubles, which would stop RedBeat's own: Redis out of reach
for a while (it tries again at the next loop), and Redis restarted empty (the lock and the
schedule lost: it takes the lock again if no other beat has, and writes the schedule again).
A task with no last run in Redis is sent at once, not an interval after beat starts. With no
Redis, `make run` uses Celery's own scheduler in memory (MemoryScheduler): it keeps no file
that could be corrupted, and it is for one beat on one machine only.

Only the libraries' public parts: RedBeat's scheduler and entry, with its own lock turned off
by its documented setting (`redbeat_lock_key = None`: RedBeat takes its lock once, waiting, in
a handler of beat_init, and stops beat when it is lost); in its place a lock of redis-py's,
taken in beat's loop (Celery's `Scheduler.tick`) and renewed to the full time-out each loop.
What this leans on beyond their documents, tests/library_parts/test_celery_redbeat.py checks.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import redis
from celery import Celery
from celery.beat import ScheduleEntry, Scheduler
from redbeat import RedBeatScheduler, RedBeatSchedulerEntry

log = logging.getLogger(__name__)

# RedBeat's settings that it reads only when given under their own names (redbeat_redis_url),
# which Django's CELERY_ namespace hides: without them it would fall back to the broker's.
OWN_NAMED_SETTINGS = ("redbeat_redis_url", "redbeat_redis_options")
# RedBeat's default prefix, should the settings name none.
DEFAULT_KEY_PREFIX = "redbeat:"


def every_interval(entry: ScheduleEntry) -> bool:
    """Whether the entry runs every so many seconds (the sweep), not at times of day."""
    return getattr(entry.schedule, "run_every", None) is not None


class DueAtOnceEntry(RedBeatSchedulerEntry):
    """RedBeat's entry, except that one made with no last run that runs every interval has
    never run (RedBeat's `last_run_at` None), so is due at once, as in MemoryScheduler:
    Celery's entry would take its making for its last run, and the first run would come an
    interval after beat starts. Entries of the settings' schedule that Redis has a last run of
    keep that (RedBeat's update_from_dict), so a new deployment, or a Redis restarted empty,
    sweeps at once, and a beat restarted never early."""

    def __init__(self, *args: Any, last_run_at: datetime | None = None, **kwargs: Any) -> None:
        super().__init__(*args, last_run_at=last_run_at, **kwargs)
        if last_run_at is None and every_interval(self):
            self.last_run_at = None


class RedisScheduler(RedBeatScheduler):
    """RedBeat's scheduler with a lock of its own, taken in beat's loop: made to go on through
    Redis's troubles rather than stop."""

    Entry = DueAtOnceEntry

    def __init__(self, app: Celery, *args: Any, **kwargs: Any) -> None:
        for name in OWN_NAMED_SETTINGS:
            if (value := app.conf.first(name)) is not None:
                app.conf[name] = value
        app.conf["redbeat_lock_key"] = None  # RedBeat's own lock off: this scheduler's instead
        self.holding = False  # until this beat holds the lock and has written the schedule
        super().__init__(app, *args, **kwargs)
        self.lock_seconds = int(app.conf.first("redbeat_lock_timeout") or 5 * self.max_interval)
        client = redis.Redis.from_url(
            app.conf.first("redbeat_redis_url"), **(app.conf.first("redbeat_redis_options") or {})
        )
        # The key RedBeat's own lock has, so that beats of a release before this one, which
        # take RedBeat's, and beats of this one never send at once.
        prefix = app.conf.first("redbeat_key_prefix") or DEFAULT_KEY_PREFIX
        self.beat_lock = client.lock(f"{prefix}:lock", timeout=self.lock_seconds)

    @property
    def info(self) -> str:
        """What beat says of its scheduler as it starts: where Redis is, and the lock."""
        lock = f"       . lock -> `{self.beat_lock.name}` ({self.lock_seconds} s)"
        return f"{super().info}\n{lock}"

    def setup_schedule(self) -> None:
        """At start: the schedule written to Redis, if Redis can be reached; it is written
        again once this beat holds the lock."""
        try:
            super().setup_schedule()
        except redis.exceptions.RedisError as trouble:
            self._out_of_reach(trouble)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            if not self.holds_lock():
                return self.max_interval
            return super().tick(*args, **kwargs)
        except redis.exceptions.LockError:
            # Redis restarted empty, or this beat was cut off from it for longer than the
            # lock's time-out and another took it over.
            log.warning("Celery beat lost its lock in Redis; it sends nothing until it holds "
                        "it again.")  # fmt: skip
            self.holding = False
        except redis.exceptions.RedisError as trouble:
            self._out_of_reach(trouble)
        return self.max_interval

    def holds_lock(self) -> bool:
        """Whether this beat holds the lock, for the lock's whole time-out from now: it is
        renewed, or taken if no beat holds it (LockError if this beat has lost it). Once taken,
        the schedule is written again, as Redis may have lost it since this beat started (each
        task's last run is kept when Redis has it)."""
        if self.holding:
            self.beat_lock.extend(self.lock_seconds, replace_ttl=True)
            return True
        if not (self.beat_lock.owned() or self.beat_lock.acquire(blocking=False)):
            return False
        super().setup_schedule()
        self.holding = True
        log.info("Celery beat holds its lock in Redis, and sends.")
        return True

    def close(self) -> None:
        """Lets go of the lock, so that another beat takes over at once."""
        if self.holding:
            self.holding = False
            try:
                self.beat_lock.release()
            except redis.exceptions.RedisError as trouble:
                log.warning("Celery beat could not let go of its lock in Redis (%s); another beat "
                            "takes over once it times out.", type(trouble).__name__)  # fmt: skip
        super().close()

    def _out_of_reach(self, trouble: redis.exceptions.RedisError) -> None:
        log.warning("Celery beat could not reach Redis (%s); it tries again in %s s.",
                    type(trouble).__name__, self.max_interval)  # fmt: skip


class MemoryScheduler(Scheduler):
    """Celery's scheduler, which keeps the schedule in memory only, sending each task at start
    (as RedBeat does the first time) rather than an interval after: a short `make run` without
    Redis sweeps too."""

    def setup_schedule(self) -> None:
        super().setup_schedule()
        for entry in self.schedule.values():
            if every_interval(entry):
                entry.last_run_at = self.app.now() - entry.schedule.run_every
