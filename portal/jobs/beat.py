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
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from celery import Celery
from celery.beat import ScheduleEntry, Scheduler
from celery.signals import beat_init
from redbeat.schedulers import (
    LUA_EXTEND_TO_SCRIPT,
    RedBeatScheduler,
    acquire_distributed_beat_lock,
    get_redis,
)

log = logging.getLogger(__name__)

# RedBeat's settings that it reads only when given under their own names (redbeat_redis_url),
# which Django's CELERY_ namespace hides: without them it would fall back to the broker's.
OWN_NAMED_SETTINGS = ("redbeat_redis_url", "redbeat_redis_options")

# RedBeat takes its lock in a handler of beat_init, waiting there until it has it, and a beat
# that starts while Redis is out of reach fails; RedisScheduler takes it in its loop instead.
beat_init.disconnect(acquire_distributed_beat_lock)


class RedisScheduler(RedBeatScheduler):
    """RedBeat's scheduler, made to go on through Redis's troubles rather than stop."""

    def __init__(self, app: Celery, *args: Any, **kwargs: Any) -> None:
        for name in OWN_NAMED_SETTINGS:
            app.conf[name] = app.conf.first(name)
        self.holding = False  # until this beat holds the lock and has written the schedule
        super().__init__(app, *args, **kwargs)

    def setup_schedule(self) -> None:
        """At start: the schedule written to Redis, if Redis can be reached; it is written
        again once this beat holds the lock."""
        try:
            super().setup_schedule()
        except redis.exceptions.RedisError as trouble:
            self._out_of_reach(trouble)

    def _maybe_entry(self, name: str, entry: Any) -> Any:
        """An entry of the settings' schedule. One run every interval is due at once when Redis
        has no last run of it (RedBeat's update_from_dict gives it the last run Redis has), as
        in MemoryScheduler, rather than an interval after beat starts: a new deployment, or a
        Redis restarted empty, sweeps at once."""
        made = super()._maybe_entry(name, entry)
        if every_interval(made):
            made.last_run_at = None  # RedBeat's "never run"
        return made

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            if not (self.holding or self.take_lock()):
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

    def take_lock(self) -> bool:
        """Takes the lock if no beat holds it; whether this beat holds it now. Once it does, the
        schedule is written again, as Redis may have lost it since this beat started (each
        task's last run is kept when Redis has it)."""
        if self.lock is None:
            client = get_redis(self.app)
            self.lock = client.lock(self.lock_key, timeout=self.lock_timeout)
            self.lock.lua_extend = client.register_script(LUA_EXTEND_TO_SCRIPT)
        if not (self.lock.owned() or self.lock.acquire(blocking=False)):
            return False
        super().setup_schedule()
        self.holding = True
        log.info("Celery beat holds its lock in Redis, and sends.")
        return True

    def close(self) -> None:
        """Lets go of the lock, so that another beat takes over at once."""
        try:
            super().close()
        except redis.exceptions.RedisError as trouble:
            log.warning("Celery beat could not let go of its lock in Redis (%s); another beat "
                        "takes over once it times out.", type(trouble).__name__)  # fmt: skip

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


def every_interval(entry: ScheduleEntry) -> bool:
    """Whether the entry runs every so many seconds (the sweep), not at times of day."""
    return getattr(entry.schedule, "run_every", None) is not None
