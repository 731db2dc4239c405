"""A site's day of tickets uploaded at once, against the same loads recorded one by one through the
clerk's form; a 2,000-row upload as a clerk waits for it, and the hostile workbook's request; and
reading an upload of 20,000 rows against 2,000.

    python -m bench uploads

Starts, on loopback only, a sandbox of its own (its demo data), with Redis database 12 on
127.0.0.1:6379 as the portal's cache and the jobs' broker (the verdicts kept a minute, the
look-up account's token), and a database of the benchmark's own on PostgreSQL at 127.0.0.1:5432
(user postgres; BENCH_POSTGRES_URL names another server), production's database, made and
dropped here (`bench_uploads_<pid>_<name>`). The benchmark's own steps run in processes of this
module's own (`--measure`), with the portal's code: 20 wheat passports made by grower at the
sandbox and recorded as the portal records those it makes, an intake site with haulier its
clerk (a new one for each upload), and 2,000 loads of those passports (100 each), all good.

- Time, as a clerk: the portal under gunicorn as `make run` starts it (2 workers x 4 threads)
  and a Celery worker (two processes). haulier, signed in through the sign-in form, sends the
  2,000 as a CSV file through the upload form, as a browser sends it: how long they take a
  clerk, from sending the file to its job's end (its rows counted, each recorded, the verdicts
  asked, the report written). Against 500 of the same recorded one by one as the clerk's form
  records a load (a transaction each, so that its time a load is the same however many: 2,000
  took three minutes of the benchmark): `LoadForm` (portal/intake/forms.py) made and checked
  for the row, the passport's verdict asked as the look-up asks it, `loads.record`. That is
  the form's work in process, not the clerk's page over HTTP (a request, its session, its
  page sent back for each load would only slow the one-by-one side): the baseline is the
  harder one. And the hostile workbook (1.29 million empty texts in 38 KB,
  tests/portal/intake/builders.py's) sent through the same form, its job then refused. Each on
  a site of its own, the three in turn (the order swapped every round), for 3 rounds after one
  of 100 rows untimed. Targets: the median of the rounds' ratios of the upload's time a load to
  the one-by-one's at most 0.5; the hostile workbook's request (from sending the file to the
  form's answer) at most 1 s, printed beside the 2,000 rows' (it held a web worker 55-108 s
  when the form counted the rows).
- Memory: an upload of 2,000 rows and of 20,000, each in a fresh process, CSV and XLSX, read
  through as its job reads it (the rows, the report, the tally) without recording (the job
  records ROWS_AT_ONCE rows at a time whatever the file's size): the peak of the memory Python
  allocated (tracemalloc), and the process's peak resident size. Target: the CSV's peak at
  20,000 rows at most 1.2 times at 2,000 (the workbook's is printed beside: openpyxl keeps a
  workbook's table of distinct strings, its tickets among them, in memory). Recording 20,000
  rows under tracemalloc took longer than `make bench` gives a benchmark (600 s).

Each upload must end done with every row recorded; each one-by-one load must be valid.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from tempfile import TemporaryDirectory

import redis

from bench.common import (
    POSTGRES_URL,
    ROOT,
    Ratios,
    Target,
    databases,
    heading,
    machine_load,
    print_table,
    print_targets,
    require_redis,
)
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/12"
ROWS, MANY_ROWS = 2_000, 20_000
ONE_BY_ONE = 500  # rows recorded one by one through the form: a transaction each
PASSPORTS = 20
ROUNDS = 3
TIME_RATIO, MEMORY_RATIO = 0.5, 1.2
HOSTILE_REQUEST_SECONDS = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.uploads")
    parser.add_argument("--measure", choices=["time", "memory"])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--kind", default="csv")
    parser.add_argument("--portal", default="")
    arguments = parser.parse_args()
    if arguments.measure:
        print(json.dumps(_measured(arguments.measure, arguments.rows, arguments.kind,
                                   arguments.portal)))  # fmt: skip
        return
    heading("bench.uploads: a day's tickets uploaded at once, as a clerk waits, and its memory")
    require_redis(REDIS_URL)
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-uploads-")))
        cache = redis.Redis.from_url(REDIS_URL)
        cache.flushdb()
        stack.callback(cache.flushdb)
        kind, urls = stack.enter_context(databases("uploads", ["portal"], directory))
        if kind != "PostgreSQL":
            print(f"This benchmark needs PostgreSQL at {POSTGRES_URL}.")
            sys.exit(1)
        sandbox = servers.start_sandbox(directory)
        stack.callback(sandbox.stop)
        environment = {
            **os.environ, "DATABASE_URL": urls["portal"], "REDIS_URL": REDIS_URL,
            "ASSURANCE_BASE_URL": sandbox.url, "ASSURANCE_LOOKUP_USERNAME": "haulier",
            "ASSURANCE_LOOKUP_PASSWORD": "haulier-demo-pass", "PORTAL_LOG_LEVEL": "WARNING",
            "PORTAL_JOB_FILES_DIR": str(directory / "jobs"), "PORTAL_DEVELOPMENT": "true",
        }  # fmt: skip
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
                       cwd=ROOT, env=environment, check=True)  # fmt: skip
        memory = {(kind, rows): _in_a_process(environment, "memory", rows, kind)
                  for kind in ("csv", "xlsx") for rows in (ROWS, MANY_ROWS)}  # fmt: skip
        (directory / "portal").mkdir()
        portal = servers.start_portal(directory / "portal", env=environment,
                                      DATABASE_URL=urls["portal"])  # fmt: skip
        stack.callback(portal.stop)
        worker = servers.start_worker(environment, log=directory / "worker.log")
        stack.callback(servers.stop, worker)
        timed = _in_a_process(environment, "time", portal=portal.url)
    report(timed, memory)


def _in_a_process(environment: dict, measure: str, rows: int = ROWS, kind: str = "csv",
                  portal: str = "") -> dict:  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "bench.uploads", "--measure", measure, "--rows", str(rows),
         "--kind", kind, "--portal", portal], cwd=ROOT, env=environment, check=False,
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        print(done.stderr[-3000:], file=sys.stderr)
        raise RuntimeError(f"measuring {measure} ({kind}, {rows} rows) broke")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(timed: dict, memory: dict) -> None:
    upload, one_by_one = timed["upload"], timed["one_by_one"]
    ratios = Ratios.of([t / ROWS for t in upload], [t / ONE_BY_ONE for t in one_by_one])
    hostile_kb = timed["hostile_bytes"][0] / 1024
    print(f"\n{ROWS:,} loads of {PASSPORTS} passports, {ROUNDS} rounds after one of 100 rows "
          "untimed, each on a site of its own:")  # fmt: skip
    print_table(
        ["", "median s", "least s", "most s", "ms a load"],
        [[name, f"{_median(t):.2f}", f"{min(t):.2f}", f"{max(t):.2f}",
          f"{_median(t) * 1000 / loads:.2f}" if loads else ""]
         for name, t, loads in (
             (f"uploaded, {ROWS:,} rows: sending the file to the job's end", upload, ROWS),
             (f"recorded one by one through the form, {ONE_BY_ONE:,} of them", one_by_one,
              ONE_BY_ONE),
             ("uploaded: the request (to the form's answer)", timed["request"], 0),
             (f"hostile workbook ({hostile_kb:.0f} KB): the request", timed["hostile"], 0))],
    )  # fmt: skip
    print(f"The upload's time a load over the one-by-one's: {ratios}.")
    hostile, normal = _median(timed["hostile"]), _median(timed["request"])
    print(f"How long {ROWS:,} rows take a clerk, from sending the file to the job's end: "
          f"{_median(upload):.1f} s (median).")  # fmt: skip
    print(f"The hostile workbook's request over the {ROWS:,} rows' request: "
          f"{hostile / normal:.2f}; its job refused it each time.")  # fmt: skip
    print("\nAn upload read through as its job reads it, nothing recorded, each in a fresh "
          "process:")  # fmt: skip
    rows_of = []
    for (kind, rows), found in memory.items():
        traced, rss = found["traced"] / 2**20, found["rss"] / 2**20
        rows_of.append([f"{kind}, {rows:,} rows", f"{found['seconds']:.1f}", f"{traced:.1f}",
                        f"{rss:.0f}"])  # fmt: skip
    print_table(["upload", "s (traced)", "peak MiB allocated", "peak RSS MiB"], rows_of)
    csv_ratio = memory["csv", MANY_ROWS]["traced"] / memory["csv", ROWS]["traced"]
    xlsx_ratio = memory["xlsx", MANY_ROWS]["traced"] / memory["xlsx", ROWS]["traced"]
    rss_ratio = memory["csv", MANY_ROWS]["rss"] / memory["csv", ROWS]["rss"]
    print(f"Peak allocated at {MANY_ROWS:,} rows over at {ROWS:,}: CSV {csv_ratio:.2f}, XLSX "
          f"{xlsx_ratio:.2f}; the CSV's peak RSS {rss_ratio:.2f}.\n")  # fmt: skip
    print_targets([
        Target(f"upload of {ROWS:,} / one by one through the form, a load, median of rounds",
               ratios.median, TIME_RATIO, "x", True),
        Target("hostile workbook's request, median", hostile, HOSTILE_REQUEST_SECONDS, "s",
               True),
        Target(f"upload read through, peak memory, {MANY_ROWS:,} / {ROWS:,} rows (CSV)",
               csv_ratio, MEMORY_RATIO, "x", True),
    ])  # fmt: skip
    print(f"Machine after: {machine_load()}")


def _median(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2]


# --- in the measuring process: the portal's code, as a worker runs it ------------------------


def _measured(measure: str, rows: int, kind: str, portal: str) -> dict:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    django.setup()
    from bench import _uploads  # the portal's code is importable once Django is set up

    bench = _uploads.Bench.made(PASSPORTS)
    if measure == "time":
        return bench.timed(portal, ROWS, ONE_BY_ONE, ROUNDS)
    return bench.memory(rows, kind)


if __name__ == "__main__":
    main()
