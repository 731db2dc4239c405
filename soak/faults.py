"""The faults the soak makes, real ones: signals to the stack's real processes, PostgreSQL
stopped in immediate mode. Each returns when its part is back (or, for the frozen service,
running again), and the soak notes when the fault began and ended.

The schedule is drawn from a seeded random generator: the seed is printed, and the same seed
gives the same faults in the same order at the same times.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg

from soak.stack import Stack, children

POSTGRES_DOWN_SECONDS = 10
RECEIVER_DOWN_SECONDS = 10
FREEZE_SECONDS = 30
GAP_SECONDS = (20, 40)  # between the end of one fault and the start of the next
MID_JOB_WAIT_SECONDS = 15  # how long a fault aimed at a job waits for one to be running


@dataclass
class Fault:
    kind: str
    started: float
    ended: float
    note: str = ""


def postgres_restarted(stack: Stack, rng: random.Random) -> str:
    stack.postgres.stop("immediate")
    time.sleep(POSTGRES_DOWN_SECONDS)
    stack.postgres.start()
    return f"down {POSTGRES_DOWN_SECONDS} s"


def redis_killed(stack: Stack, rng: random.Random) -> str:
    assert stack.redis.process is not None
    stack.redis.process.kill()
    stack.redis.process.wait(10)
    stack.redis.start()
    return "SIGKILL, started again"


def worker_child_killed(stack: Stack, rng: random.Random) -> str:
    pools = {child: worker.pid for worker in stack.workers for child in children(worker.pid)}
    if not pools:
        return "no child to kill"
    child = busiest(list(pools))
    stack.seen.add(child)
    try:
        os.kill(child, signal.SIGKILL)
    except ProcessLookupError:  # it ended while it was watched: its worker replaced it
        return f"pool process {child} of worker {pools[child]} had ended on its own"
    return f"pool process {child} of worker {pools[child]}"


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime and stime


def busiest(pids: list[int]) -> int:
    """The process that worked most over half a second: the one with a job under way, most
    likely."""
    before = {pid: _cpu_ticks(pid) for pid in pids}
    time.sleep(0.5)
    return max(pids, key=lambda pid: _cpu_ticks(pid) - before[pid])


def busiest_worker(stack: Stack) -> int:
    """The number of the worker whose pool has the busiest process."""
    pools = {child: n for n, worker in enumerate(stack.workers) for child in children(worker.pid)}
    return pools[busiest(list(pools))] if pools else 0


def worker_killed(stack: Stack, rng: random.Random) -> str:
    number = busiest_worker(stack)
    worker = stack.workers[number]
    stack.seen.update(children(worker.pid))
    worker.kill()
    worker.wait(10)
    stack.workers[number] = stack.start_worker(number)
    return f"worker {worker.pid} SIGKILLed, started again"


def worker_stopped(stack: Stack, rng: random.Random) -> str:
    """SIGTERM, a warm shutdown (as systemd stops it): the jobs under way finish first."""
    number = busiest_worker(stack)
    worker = stack.workers[number]
    stack.seen.update(children(worker.pid))
    worker.terminate()
    try:
        worker.wait(timeout=90)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(10)
    stack.workers[number] = stack.start_worker(number)
    return f"worker {worker.pid} SIGTERMed mid-job, started again"


def beat_killed(stack: Stack, rng: random.Random) -> str:
    assert stack.beat is not None
    stack.beat.kill()
    stack.beat.wait(10)
    stack.start_beat()
    return "SIGKILL, started again"


def service_frozen(stack: Stack, rng: random.Random) -> str:
    assert stack.sandbox is not None
    frozen = [stack.sandbox.process.pid, *children(stack.sandbox.process.pid)]
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(FREEZE_SECONDS)
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    return f"SIGSTOP {FREEZE_SECONDS} s"


def web_process_killed(stack: Stack, rng: random.Random) -> str:
    assert stack.portal is not None
    processes = children(stack.portal.process.pid)
    if not processes:
        return "no gunicorn worker to kill"
    victim = rng.choice(processes)
    stack.seen.add(victim)
    os.kill(victim, signal.SIGKILL)
    return f"gunicorn worker {victim}"


def webhook_receiver_killed(stack: Stack, rng: random.Random) -> str:
    assert stack.receiver is not None
    stack.receiver.kill()
    stack.receiver.wait(10)
    time.sleep(RECEIVER_DOWN_SECONDS)
    stack.start_receiver()
    return f"SIGKILL, down {RECEIVER_DOWN_SECONDS} s"


FAULTS: dict[str, Callable[[Stack, random.Random], str]] = {
    "postgres-restart": postgres_restarted,
    "redis-kill": redis_killed,
    "worker-child-kill": worker_child_killed,
    "worker-kill": worker_killed,
    "worker-term": worker_stopped,
    "beat-kill": beat_killed,
    "service-freeze": service_frozen,
    "gunicorn-kill": web_process_killed,
    "webhook-receiver-kill": webhook_receiver_killed,
}
# How long each kind lasts, where it lasts (the others take a second or so).
SECONDS = {"postgres-restart": POSTGRES_DOWN_SECONDS + 1, "service-freeze": FREEZE_SECONDS,
           "worker-term": 5, "webhook-receiver-kill": RECEIVER_DOWN_SECONDS + 1}  # fmt: skip
# The suite's short soak makes one of each of these.
MAIN_KINDS = ("postgres-restart", "redis-kill", "worker-child-kill", "worker-kill",
              "service-freeze", "gunicorn-kill")  # fmt: skip


def schedule(rng: random.Random, kinds: list[str]) -> list[str]:
    """Every kind in turn, each round in a shuffled order: as many as the time allows."""
    while True:
        round_ = list(kinds)
        rng.shuffle(round_)
        yield from round_


# Faults aimed at a job under way: they wait for one to be running first.
MID_JOB = ("worker-child-kill", "worker-kill", "worker-term")


def make(kind: str, stack: Stack, rng: random.Random) -> Fault:
    if kind in MID_JOB:
        _wait_for_a_running_job(stack)
    with stack.lock:  # the supervisor leaves alone what the fault kills and starts again
        started = time.time()
        note = FAULTS[kind](stack, rng)
        return Fault(kind, started, time.time(), note)


def _wait_for_a_running_job(stack: Stack) -> None:
    """Up to MID_JOB_WAIT_SECONDS for a job to be running, so that the fault lands mid-job."""
    deadline = time.monotonic() + MID_JOB_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            with psycopg.connect(stack.postgres.url.replace("postgres://", "postgresql://"),
                                 connect_timeout=2) as db:  # fmt: skip
                if db.execute("SELECT 1 FROM jobs_job WHERE state = 'running' LIMIT 1").fetchone():
                    return
        except psycopg.Error:
            pass
        time.sleep(0.2)
