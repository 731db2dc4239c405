"""celery-redbeat, as portal/jobs/beat.py's RedisScheduler uses it: RedBeat's scheduler and entry
with RedBeat's own lock turned off (`redbeat_lock_key = None`, its documented switch), and a lock
of redis-py's taken in beat's loop instead. It relies on RedBeat then touching no lock anywhere
(beat's start, its loop, its close), and on RedBeat making the settings' schedule's entries with
the scheduler's `Entry`, with no last run when Redis has none (RedBeat's "never run": due now).
Each test has a Redis of its own and an app of its own, its broker in memory."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from celery import Celery
from celery.beat import Service
from celery.schedules import crontab
from celery.signals import beat_init
from redbeat import RedBeatScheduler, RedBeatSchedulerEntry

from portal.jobs.beat import RedisScheduler
from scripts import servers
from tests.services import PrivateRedis

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="no redis-server to start"
)

PREFIX = "library-parts.beat:"
LOCK_KEY = f"{PREFIX}:lock"  # the key RedBeat's own lock would have
LOCK_SECONDS = 4


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = PrivateRedis(servers.free_port(), tmp_path)
    server.start()
    yield server.url
    server.stop()


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    with redis.Redis.from_url(redis_url) as connection:
        yield connection


def beat_app(redis_url: str) -> Celery:
    app = Celery("library-parts", broker="memory://", set_as_current=False)
    app.conf.update(
        redbeat_redis_url=redis_url,
        redbeat_key_prefix=PREFIX,
        redbeat_lock_timeout=LOCK_SECONDS,
        beat_max_loop_interval=1,
        result_expires=None,  # no backend_cleanup entry of Celery's own
        beat_schedule={
            "sweep": {"task": "sweep", "schedule": 60},
            "nightly": {"task": "nightly", "schedule": crontab(hour=3, minute=0)},
        },
    )
    return app


def stored(app: Celery, name: str) -> RedBeatSchedulerEntry:
    return RedBeatSchedulerEntry.from_key(RedBeatSchedulerEntry.generate_key(app, name), app=app)


def test_with_its_lock_key_none_redbeat_takes_no_lock_as_beat_starts(redis_url, client):
    service = Service(beat_app(redis_url), scheduler_cls=RedisScheduler)
    assert not service.scheduler.lock_key
    beat_init.send(sender=service)  # as Service.start sends it, to RedBeat's handler too
    assert service.scheduler.lock is None
    assert client.exists(LOCK_KEY) == 0


def test_with_its_lock_key_none_redbeats_loop_and_close_touch_no_lock(redis_url, client):
    scheduler = RedisScheduler(beat_app(redis_url))
    assert scheduler.holds_lock()
    token = client.get(LOCK_KEY)
    RedBeatScheduler.tick(scheduler)  # neither extends nor fails for want of its own lock
    assert 0 < client.pttl(LOCK_KEY) <= LOCK_SECONDS * 1000
    RedBeatScheduler.close(scheduler)  # lets go of no lock but its own
    assert client.get(LOCK_KEY) == token


def test_redbeat_makes_a_new_entry_with_the_schedulers_entry_and_no_last_run(redis_url):
    app = beat_app(redis_url)
    RedisScheduler(app)
    sweep = stored(app, "sweep")
    assert sweep.last_run_at is None
    assert sweep.is_due().is_due
    assert stored(app, "nightly").last_run_at is not None  # times of day: as Celery's


def test_redbeat_keeps_the_last_run_redis_has_when_it_writes_the_schedule_again(redis_url):
    app = beat_app(redis_url)
    RedisScheduler(app)
    ran_at = app.now() - timedelta(seconds=10)
    stored(app, "sweep").reschedule(ran_at)
    RedisScheduler(app).holds_lock()  # writes the schedule again, as on taking the lock
    sweep = stored(app, "sweep")
    assert sweep.last_run_at == ran_at
    assert not sweep.is_due().is_due


def test_the_lock_is_renewed_to_its_time_out_never_beyond(redis_url, client):
    scheduler = RedisScheduler(beat_app(redis_url))
    for _ in range(10):
        assert scheduler.holds_lock()
    assert 0 < client.pttl(LOCK_KEY) <= LOCK_SECONDS * 1000
