"""`make soak` (python -m soak): the whole system on parts of its own, under load from Locust,
with its parts killed and restarted on a seeded schedule; then a quiet period, the check of
what was lost, doubled, stuck or unexpected, and the report (printed, and as JSON in
var/soak/<when>/report.json with the processes' logs beside it).

SOAK_MINUTES      how long the load runs (10)
SOAK_SEED         the faults' schedule (printed; random when unset)
SOAK_FAULTS       the kinds of fault, comma-separated (all of soak.faults.FAULTS)
SOAK_GAP_SECONDS  the pause between one fault's end and the next's start, as "20-40"
SOAK_USERS        Locust users (6: two growers, an intake office, an intake clerk, a
                  haulier, staff)

Exits 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import psycopg

from bench.passports import grower_choice
from portal.assurance.client import AssuranceClient, BearerToken
from scripts.servers import ROOT, stop, stop_with_parent
from soak import check, faults, report
from soak.stack import Stack, resident_kib

WARM_UP_SECONDS = 20  # of load before the first fault
TAIL_SECONDS = 40  # of load after the last fault, to see each kind of work succeed again
QUIET_SECONDS = (10, 180)  # after the load: at least, and at most while jobs are under way


def _settings() -> tuple[float, int, list[str], tuple[float, float], int]:
    minutes = float(os.environ.get("SOAK_MINUTES") or 10)
    seed = int(os.environ.get("SOAK_SEED") or random.SystemRandom().randrange(10**6))
    kinds = [k.strip() for k in os.environ.get("SOAK_FAULTS", "").split(",") if k.strip()]
    unknown = set(kinds) - faults.FAULTS.keys()
    if unknown:
        raise SystemExit(f"SOAK_FAULTS: no such fault {', '.join(sorted(unknown))}; "
                         f"the kinds are {', '.join(faults.FAULTS)}")  # fmt: skip
    low, high = (float(n) for n in (os.environ.get("SOAK_GAP_SECONDS") or "20-40").split("-"))
    return (
        minutes,
        seed,
        kinds or list(faults.FAULTS),
        (low, high),
        int(os.environ.get("SOAK_USERS") or 6),
    )


class Monitor(threading.Thread):
    """Every second: PostgreSQL's connections (their peak), the processes the stack's parts
    have forked (so that none outlives the soak), and a worker or beat that ended on its own
    started again, as systemd would."""

    def __init__(self, stack: Stack) -> None:
        super().__init__(daemon=True)
        self.stack, self.peak, self.running = stack, 0, True

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, self.stack.postgres.connections() or 0)
            self.stack.remember_children()
            self.stack.restart_the_ended()
            time.sleep(1)


def start_locust(stack: Stack, folder: Path, seconds: int, users: int) -> subprocess.Popen:
    assert stack.sandbox is not None and stack.portal is not None
    client = AssuranceClient(stack.sandbox.url)
    token = BearerToken(client.login("grower", "grower-demo-pass").token)
    choice = grower_choice(client.authorisation(token))
    chosen = {"membership": choice.membership_guid, "site": choice.site_guid,
              "store": choice.store_guid}  # fmt: skip
    env = {
        **os.environ,
        "SOAK_OPERATIONS": str(folder / "operations.jsonl"),
        "SOAK_REQUESTS": str(folder / "requests.jsonl"),
        "SOAK_CHOICE": json.dumps(chosen),
    }
    command = [sys.executable, "-m", "locust", "-f", str(ROOT / "soak" / "locustfile.py"),
               "--headless", "--host", stack.portal.url, "--users", str(users),
               "--spawn-rate", str(users), "--run-time", f"{seconds}s", "--stop-timeout", "45",
               "--only-summary", "--loglevel", "WARNING"]  # fmt: skip
    with (folder / "logs" / "locust.log").open("w") as log:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                preexec_fn=stop_with_parent)  # fmt: skip


def make_faults(stack: Stack, rng: random.Random, kinds: list[str], gap: tuple[float, float],
                load_ends: float) -> list[faults.Fault]:  # fmt: skip
    """Faults one every `gap` seconds (start to start), each at least gap's shorter time after
    the one before ended, the last ending TAIL_SECONDS before the load does."""
    made: list[faults.Fault] = []
    for kind in faults.schedule(rng, kinds):
        after = rng.uniform(*gap)
        starts = max(made[-1].started + after, made[-1].ended + gap[0]) if made else time.time()
        if starts + faults.SECONDS.get(kind, 1) + TAIL_SECONDS > load_ends:
            break
        time.sleep(max(0.0, starts - time.time()))
        fault = faults.make(kind, stack, rng)
        print(f"  {time.strftime('%H:%M:%S')} {fault.kind}: {fault.note} "
              f"({fault.ended - fault.started:.1f} s)", flush=True)  # fmt: skip
        made.append(fault)
    return made


def quiet(stack: Stack) -> None:
    """Waits while jobs are queued or running, or webhooks wait to be delivered, between
    QUIET_SECONDS."""
    started = time.monotonic()
    time.sleep(QUIET_SECONDS[0])
    url = stack.postgres.url.replace("postgres://", "postgresql://", 1)
    while time.monotonic() - started < QUIET_SECONDS[1]:
        try:
            with psycopg.connect(url, connect_timeout=3) as db:
                if not db.execute("SELECT 1 FROM jobs_job WHERE state IN ('queued', 'running')"
                                  " UNION ALL SELECT 1 FROM outbox_delivery"
                                  " WHERE state = 'pending' LIMIT 1").fetchone():  # fmt: skip
                    return
        except psycopg.Error:
            pass
        time.sleep(2)


def workers_memory(stack: Stack) -> dict[str, int]:
    return {f"worker-{n}": resident_kib(w.pid) for n, w in enumerate(stack.workers) if w}


def soak(stack: Stack, folder: Path, seed: int, minutes: float, kinds: list[str],
         gap: tuple[float, float], users: int) -> dict:  # fmt: skip
    print("Starting the soak's own PostgreSQL, Redis, sandbox, portal, workers, beat, mail "
          "server and webhook receiver...", flush=True)  # fmt: skip
    stack.start()
    monitor = Monitor(stack)
    monitor.start()
    seconds = int(minutes * 60)
    locust = start_locust(stack, folder, seconds, users)
    print(f"Load for {minutes:g} minutes; faults ({', '.join(kinds)}):", flush=True)
    time.sleep(WARM_UP_SECONDS)
    memory_start = workers_memory(stack)  # once they have loaded the portal and done some jobs
    try:
        made = make_faults(stack, random.Random(seed), kinds, gap, time.time() + seconds)
        locust.wait()
    finally:
        stop(locust)  # stopped early (Ctrl-C): no load left on ports soon free for others
    print("Load ended; quiet period while jobs finish...", flush=True)
    quiet(stack)
    memory_end = workers_memory(stack)
    monitor.running = False
    operations = check.read_operations(folder / "operations.jsonl")
    rows = check.portal_rows(stack.postgres.url)
    report.write({"jobs": rows["jobs"], "mailings": rows["mailings"]}, folder / "jobs.json")
    checked = check.check(operations, rows,
                          check.service_tickets(stack.sandbox_database),
                          check.kept_mails(stack.maildir),
                          Path(stack.env["PORTAL_JOB_FILES_DIR"]),
                          check.received_webhooks(stack.webhooks), stack.receiver_url)  # fmt: skip
    memory = {name: {"start": memory_start.get(name, 0), "end": memory_end.get(name, 0)}
              for name in memory_start}  # fmt: skip
    return report.build(seed=seed, minutes=minutes, operations=operations, faults=made,
                        checked=checked,
                        requests=check.read_operations(folder / "requests.jsonl"),
                        memory=memory, peak_connections=monitor.peak,
                        crashed=stack.crashed)  # fmt: skip


def main() -> int:
    minutes, seed, kinds, gap, users = _settings()
    folder = ROOT / "var" / "soak" / time.strftime("%Y%m%d-%H%M%S")
    (folder / "logs").mkdir(parents=True)
    print(f"Soak seed {seed} (SOAK_SEED={seed} repeats this schedule); its files in {folder}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    with TemporaryDirectory(prefix="soak-") as data:
        os.chmod(data, 0o755)  # PostgreSQL's user (when run as root) reaches its folder
        stack = Stack(Path(data), folder / "logs")
        try:
            result = soak(stack, folder, seed, minutes, kinds, gap, users)
        except KeyboardInterrupt:
            print("Interrupted: stopping everything.", file=sys.stderr)
            return 1
        finally:
            stack.stop()
    report.write(result, folder / "report.json")
    report.show(result)
    print(f"\nReport: {folder / 'report.json'}")
    return 0 if result["targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
