"""Celery beat (portal/jobs/beat.py). On Redis, as real processes with a Redis of the test's own:
two beats at once send the sweep once an interval, a beat killed is taken over by the other
within the lock's time-out, and neither Redis restarted empty nor Redis out of reach when beat
starts stops the sweep. Without Redis, its schedule in memory sends the sweep on start."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings

from portal.celery import app
from portal.jobs.beat import MemoryScheduler
from scripts import servers
from tests.services import PrivateRedis, wait_for

needs_redis_server = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="no redis-server to start"
)

SWEEP_SECONDS = 2
SWEEP_TASK = b'"task": "portal.jobs.tasks.sweep"'  # in a message's headers, as kombu writes them
LOOP_SECONDS = 2  # beat's loop, shorter than production's so that a take-over is quick to see
# A beat killed holds the lock until it times out (four loops); the other tries every loop.
TAKE_OVER_SECONDS = 4 * LOOP_SECONDS + LOOP_SECONDS
OUT_OF_REACH = "Celery beat could not reach Redis"  # portal/jobs/beat.py, each time


class Beats:
    """Celery beat processes started as scripts.servers starts make run's, on the test's Redis,
    sending the sweep every SWEEP_SECONDS to a queue no worker reads: its messages of the
    sweep's task are how many times the sweep was sent (beat sends other periodic tasks too)."""

    def __init__(self, redis_server: PrivateRedis, folder: Path) -> None:
        self.redis_server = redis_server
        self.folder = folder
        self.processes: list[subprocess.Popen] = []
        self.env = {**os.environ, "REDIS_URL": redis_server.url,
                    "PORTAL_SWEEP_SECONDS": str(SWEEP_SECONDS),
                    "PORTAL_BEAT_LOOP_SECONDS": str(LOOP_SECONDS)}  # fmt: skip

    def start(self, **settings: str) -> subprocess.Popen:
        log = self.folder / f"beat-{len(self.processes) + 1}.log"
        process = servers.start_beat({**self.env, **settings}, log=log)
        self.processes.append(process)
        return process

    def sent(self) -> int:
        """Sweeps sent so far (0 while Redis is out of reach)."""
        try:
            with redis.Redis.from_url(self.redis_server.url) as client:
                queued = client.lrange(settings.CELERY_TASK_DEFAULT_QUEUE, 0, -1)
                return sum(SWEEP_TASK in message for message in queued)
        except redis.ConnectionError:
            return 0

    def sent_within(self, seconds: float) -> int:
        """Sweeps sent in the next `seconds`, counted from the first one sent in them."""
        before = self.sent()
        wait_for(lambda: self.sent() > before, "a sweep to be sent", TAKE_OVER_SECONDS + 10)
        first = self.sent()
        time.sleep(seconds)
        return self.sent() - first + 1

    def logs(self) -> str:
        return "".join(log.read_text() for log in sorted(self.folder.glob("beat-*.log")))

    def out_of_reach(self) -> list[int]:
        """How many times each beat has said it could not reach Redis."""
        return [log.read_text().count(OUT_OF_REACH)
                for log in sorted(self.folder.glob("beat-*.log"))]  # fmt: skip

    def wait_until_each_meets_no_redis(self, times: int = 1) -> None:
        """Returns once each beat has tried Redis `times` times more and met no Redis."""
        before = self.out_of_reach()
        wait_for(lambda: all(now >= then + times
                             for now, then in zip(self.out_of_reach(), before, strict=True)),
                 "each beat to meet no Redis", 15 + times * LOOP_SECONDS)  # fmt: skip

    def wait_for_loops(self, loops: int) -> None:
        """Returns once the beat holding the lock has gone through `loops` more loops, each of
        which renews the lock to its whole time-out."""
        with redis.Redis.from_url(self.redis_server.url) as client:
            [lock] = client.keys("*:lock")
            renewed, left = 0, client.pttl(lock)

            def renewed_enough() -> bool:
                nonlocal renewed, left
                now = client.pttl(lock)
                renewed, left = renewed + (now > left), now
                return renewed >= loops

            wait_for(renewed_enough, f"{loops} loops of beat", (loops + 2) * LOOP_SECONDS)

    def stop(self) -> None:
        for process in self.processes:
            servers.stop(process)


@pytest.fixture
def beats(tmp_path: Path) -> Iterator[Beats]:
    redis_server = PrivateRedis(servers.free_port(), tmp_path)
    redis_server.start()
    running = Beats(redis_server, tmp_path)
    yield running
    running.stop()
    redis_server.stop()


def once_an_interval(sent: int, seconds: float) -> bool:
    """Whether `sent` sweeps in `seconds` (from the first) is one an interval, not two."""
    return sent <= seconds / SWEEP_SECONDS + 1


@pytest.mark.slow
@needs_redis_server
def test_two_beats_at_once_send_the_sweep_once_an_interval(beats):
    beats.start()
    beats.start()
    seconds = 10 * SWEEP_SECONDS
    sent = beats.sent_within(seconds)
    assert sent >= seconds / SWEEP_SECONDS - 1, beats.logs()
    assert once_an_interval(sent, seconds), beats.logs()
    assert all(process.poll() is None for process in beats.processes), beats.logs()
    assert "Traceback" not in beats.logs() and "ERROR" not in beats.logs()


@pytest.mark.slow
@needs_redis_server
def test_a_beat_killed_is_taken_over_by_the_other_within_the_lock_s_time_out(beats):
    first = beats.start()
    wait_for(lambda: beats.sent() > 0, "the first beat to send the sweep")
    beats.start()
    first.send_signal(signal.SIGKILL)  # no chance to let go of its lock
    first.wait(10)
    killed_at, before = time.monotonic(), beats.sent()
    wait_for(lambda: beats.sent() > before, "the other beat to take over", TAKE_OVER_SECONDS + 5)
    assert time.monotonic() - killed_at <= TAKE_OVER_SECONDS + SWEEP_SECONDS
    assert once_an_interval(beats.sent_within(5 * SWEEP_SECONDS), 5 * SWEEP_SECONDS)


@pytest.mark.slow
@needs_redis_server
def test_the_sweep_goes_on_after_redis_restarted_empty(beats):
    beats.start()
    beats.start()
    wait_for(lambda: beats.sent() > 0, "a beat to send the sweep")
    beats.redis_server.kill()  # no persistence: it comes back empty, the lock and schedule gone
    beats.wait_until_each_meets_no_redis()
    beats.redis_server.start()
    seconds = 5 * SWEEP_SECONDS
    sent = beats.sent_within(seconds)
    assert once_an_interval(sent, seconds), beats.logs()
    assert all(process.poll() is None for process in beats.processes), beats.logs()


@pytest.mark.slow
@needs_redis_server
def test_a_beat_started_while_redis_is_out_of_reach_waits_for_it(beats):
    beats.redis_server.kill()
    beat = beats.start()
    beats.wait_until_each_meets_no_redis(times=3)  # as it starts, then in two of its loops
    assert beat.poll() is None, beats.logs()
    beats.redis_server.start()
    wait_for(lambda: beats.sent() > 0, "the sweep to be sent", TAKE_OVER_SECONDS)
    assert "Traceback" not in beats.logs() and "ERROR" not in beats.logs()


@pytest.mark.slow
@needs_redis_server
def test_a_first_beat_sends_the_sweep_at_once_not_an_interval_after(beats):
    beats.start(PORTAL_SWEEP_SECONDS="300")
    wait_for(lambda: beats.sent() > 0, "the sweep to be sent", 15)
    beats.wait_for_loops(2)
    assert beats.sent() == 1


def test_without_redis_beat_sends_the_sweep_on_start_not_an_interval_after():
    scheduler = MemoryScheduler(app)
    assert scheduler.schedule["jobs-sweep"].is_due().is_due
