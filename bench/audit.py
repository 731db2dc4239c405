"""The audit trail in Django's admin with a million events against with ten thousand.

    python -m bench audit

Starts, on loopback only, a sandbox of its own (its demo data) and two portals under gunicorn as
`make run` starts them (2 workers x 4 threads), with Redis database 12 on 127.0.0.1:6379 as
their cache, each on a database of the benchmark's own on PostgreSQL at 127.0.0.1:5432 (user
postgres; BENCH_POSTGRES_URL names another server), production's database, made and dropped here
(`bench_audit_<pid>_<name>`). It signs in as grower through the sign-in form on each, makes
grower a superuser there, and writes with SQL (INSERT ... SELECT generate_series: the trail
refuses UPDATE and DELETE, not INSERT) 10,000 events to one and 1,000,000 to the other, spread
evenly over the PORTAL_AUDIT_DAYS they are kept (365), of the kinds in the shares a portal makes
them (look-ups by visitors without an account, the rest by grower), then vacuumed and analysed as
autovacuum would have. Then the audit trail's page in the admin (`/admin/audit/event/`, the page
staff open: the newest events, 100 a page), one request at a time, the two portals in turn (the
order swapped every round) for 10 rounds of 3. Target: the median with a million events is at
most 1.5 times the median with ten thousand.

Every answer must be a 200 with the trail's rows.
"""

from __future__ import annotations

import re
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from tempfile import TemporaryDirectory

import psycopg
import redis

from bench.common import (
    DEMO_USER,
    POSTGRES_URL,
    Target,
    Timing,
    databases,
    heading,
    machine_load,
    made_superuser,
    ms,
    pages_in_turn,
    print_targets,
    print_timings,
    require_redis,
    signed_in_portal,
)
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/12"
FEW, MANY = 10_000, 1_000_000
KEPT_DAYS = 365  # settings.PORTAL_AUDIT_DAYS's default
TRAIL_PATH = "/admin/audit/event/"
TRAIL_ROWS = re.compile(r'<td class="field-what">')  # a row's kind, in words
ROUNDS, PER_ROUND, WARMUP = 10, 3, 3
SCALING_RATIO = 1.5

# The events, one every KEPT_DAYS / count back from now, of the kinds in the shares (per cent) a
# portal makes them, by a hash of the event's number.
FILL_EVENTS = """
WITH kinds (kind, first, last) AS (
    VALUES ('sign-in', 0, 12), ('sign-out', 12, 17), ('sign-in-failed', 17, 20),
           ('passport-created', 20, 50), ('pdf-downloaded', 50, 70), ('look-up', 70, 92),
           ('intake-check', 92, 95), ('mail-sent', 95, 96), ('export-requested', 96, 98),
           ('export-downloaded', 98, 100)
)
INSERT INTO audit_event (kind, at, user_id, username, client_address, request_id, detail)
SELECT kinds.kind, now() - n * %(days)s * interval '1 day' / %(count)s,
       CASE WHEN kinds.kind = 'look-up' THEN NULL ELSE %(user)s END,
       CASE WHEN kinds.kind = 'look-up' THEN '' ELSE %(username)s END,
       ('10.' || n %% 256 || '.' || n / 256 %% 256 || '.' || 1 + n / 65536 %% 254)::inet,
       md5('request:' || n), '{}'::jsonb
FROM generate_series(1, %(count)s) AS n
JOIN kinds ON abs(hashint4(n)) %% 100 >= kinds.first AND abs(hashint4(n)) %% 100 < kinds.last
"""


def main() -> None:
    heading("bench.audit: the audit trail in the admin, with a million events")
    require_redis(REDIS_URL)
    cache = redis.Redis.from_url(REDIS_URL)
    cache.flushdb()  # the benchmark's own database: nothing kept from an earlier run
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-audit-")))
        stack.callback(cache.flushdb)
        kind, urls = stack.enter_context(databases("audit", ["few", "many"], directory))
        if kind != "PostgreSQL":
            print(f"This benchmark needs PostgreSQL at {POSTGRES_URL}.")
            sys.exit(1)
        sandbox = servers.start_sandbox(directory)
        stack.callback(sandbox.stop)
        settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": REDIS_URL,
                    "PORTAL_LOG_LEVEL": "WARNING"}  # fmt: skip
        portals, filled = {}, {}
        for name, count in (("few", FEW), ("many", MANY)):
            portals[count] = signed_in_portal(stack, directory / name, urls[name], settings)
            filled[count] = fill(urls[name], count)
        sizes = {count: len(portal.get(TRAIL_PATH).content) for count, portal in portals.items()}
        times = pages_in_turn(portals, TRAIL_PATH, TRAIL_ROWS, ROUNDS, PER_ROUND, WARMUP)
    report(filled, sizes, times)


def fill(database: str, count: int) -> float:
    """`count` events written to the portal's `database`, with grower (signed in already) made
    a superuser, vacuumed and analysed; the seconds it took."""
    started = time.perf_counter()
    with psycopg.connect(database, autocommit=True) as connection:
        user = made_superuser(connection)
        connection.execute(FILL_EVENTS, {"days": KEPT_DAYS, "count": count, "user": user,
                                         "username": DEMO_USER})  # fmt: skip
        connection.execute("VACUUM ANALYZE audit_event")
    return time.perf_counter() - started


def report(filled: dict[int, float], sizes: dict[int, int], times: dict[int, Timing]) -> None:
    print("\nThe portals' databases, filled: "
          + ", ".join(f"{count:,} events in {seconds:.1f} s" for count, seconds in filled.items())
          + ".")  # fmt: skip
    print(f"\nThe audit trail in the admin ({sizes[MANY]:,} bytes with {MANY:,} events, "
          f"{sizes[FEW]:,} with {FEW:,}), signed in as staff, one request at a time, {ROUNDS} "
          f"rounds of {PER_ROUND} on each portal in turn:")  # fmt: skip
    print_timings([(f"audit trail, {MANY:,} events", times[MANY]),
                   (f"audit trail, {FEW:,} events", times[FEW])])  # fmt: skip
    ratio = times[MANY].median / times[FEW].median
    print(f"With {MANY:,} it takes {ms(times[MANY].median - times[FEW].median)} more, "
          f"{ratio:.2f} times as long.\n")  # fmt: skip
    print_targets([Target(f"audit trail in the admin, {MANY:,} / {FEW:,} events, medians",
                          ratio, SCALING_RATIO, "x", True)])  # fmt: skip
    print(f"Machine after: {machine_load()}")


if __name__ == "__main__":
    main()
