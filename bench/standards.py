"""The portal's page of a 300-point section, warm and cold, against a bare page and the upstream.

    python -m bench standards

Starts, in one run and on loopback only:

- a sandbox of its own (as bench.sandbox: a fresh SQLite database, the demo data and
  `generate_large_data`, whose section BM.BX of the benchmark scheme has 300 points);
- the portal under gunicorn as scripts/run.py starts it (2 workers x 4 threads) on a free port,
  with a fresh PostgreSQL database `bench_portal_<pid>` if PostgreSQL answers on 127.0.0.1:5432
  (migrated, and dropped at the end) or else a temporary SQLite file, and Redis database 15 on
  127.0.0.1:6379 if it answers (flushed before and after) or else a file cache in a temporary
  directory.

It signs in as grower through the sign-in form (with its CSRF token), then measures:

- warm: the section page, once fetched and made, at 16 concurrent keep-alive connections for a
  fixed time, against the bare page /healthz with the same gunicorn and concurrency, the two in
  turn for a few rounds (target: the median of the rounds' ratios of the page's throughput to
  the bare page's at least 1/4); and, for reference, /healthz with the session cookie;
- cold: the section page with the cache emptied before each request, sequentially, against the
  upstream call alone (the client's `section_data` for the same section with a bearer token, in
  this process), the two interleaved so that both see the same machine and the same warm
  sandbox (target: the page adds at most 25 ms to the upstream call's median). After emptying
  the cache, an untimed request for the home page puts the user's session back, as it is while
  they browse: what is cold is the section, not the sign-in.

The load comes from Python threads with `http.client` in this process (on this machine `wrk`
gave the same figures within the noise). Every measured response must be a 200 with the
section's 300 points (a redirect to sign-in cannot pass for speed): the first is counted, and
each answer under load must match it byte for byte after the page's frame; otherwise the
benchmark stops. Where a target is missed it times the page, whole and in parts, in this
process (through Django's WSGI handler, with the same session, database and cache) and prints
where the time goes.
"""

from __future__ import annotations

import http.client
import io
import itertools
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory

from bench.common import (
    BENCH_POINTS,
    BENCH_PREFIX,
    BENCH_SECTOR,
    DEMO_PASSWORD,
    DEMO_USER,
    LOOPBACK,
    REQUEST_TIMEOUT,
    ROOT,
    SCHEME_GUID,
    Sandbox,
    Target,
    Timing,
    free_port,
    heading,
    loopback_session,
    machine_load,
    ms,
    print_table,
    print_targets,
    profile_by_own_time,
    size,
    start_sandbox,
    stop_process,
    wait_until_it_answers,
)

PORTAL_WORKERS, PORTAL_THREADS = 2, 4  # as scripts/run.py starts the portal

CONCURRENCY = 16
LOAD_WARMUP_SECONDS = 1.5  # untimed, at full concurrency, before each measured run
LOAD_SECONDS = 5.0
WARM_ROUNDS = 3  # the page and the bare page in turn, so that both see the same machine
LOAD_MAX_REQUESTS = 40_000  # per run, whichever comes first
COLD_WARMUP, COLD_REQUESTS = 2, 15
SANDBOX_WARMUP = 8  # upstream calls, each on a new connection, so that every sandbox worker
# has the section encoded in its own cache before either cold figure is taken
PROFILE_RUNS = 10

WARM_RATIO = 0.25  # the warm page's throughput / the bare page's, at least
COLD_EXTRA_MS = 25.0  # the cold page's median - the upstream call's median, at most

POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_PORT, REDIS_DB = 6379, 15
CACHE_DIR_VARIABLE = "BENCH_PORTAL_CACHE_DIR"

# One per standard point: <details class="point"> or <details class="point point-critical">.
# (`class="point` alone also matches each point's point-question, point-body and point-facts.)
POINT_MARK = b'<details class="point'
HEALTH_BODY = b"ok\n"


# --- the portal under gunicorn --------------------------------------------------------------------


def _answers(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=1):
            return True
    except OSError:
        return False


@dataclass
class PortalCache:
    """The portal's cache: REDIS_URL (Redis database 15) or a file cache in `directory`."""

    redis_url: str
    directory: Path | None
    note: str
    _redis: object = None

    def clear(self) -> None:
        if self._redis is not None:
            self._redis.flushdb()
            return
        for entry in self.directory.iterdir():
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


def _portal_cache(stack: ExitStack, directory: Path) -> PortalCache:
    if _answers(REDIS_PORT):
        try:
            import redis

            client = redis.Redis(host=LOOPBACK, port=REDIS_PORT, db=REDIS_DB, socket_timeout=10)
            client.flushdb()
        except Exception as error:  # any failure means: fall back
            note = f"Redis answered but refused ({error}); "
        else:
            stack.callback(client.close)
            stack.callback(_quietly, client.flushdb)
            url = f"redis://{LOOPBACK}:{REDIS_PORT}/{REDIS_DB}"
            return PortalCache(url, None, f"Redis {url} (flushed before and after)", client)
    else:
        note = ""
    cache_dir = directory / "cache"
    cache_dir.mkdir()
    return PortalCache("", cache_dir, f"{note}a file cache in {cache_dir}")


def _portal_database(stack: ExitStack, directory: Path) -> tuple[str, str]:
    """DATABASE_URL for the portal, and what it is."""
    note = ""
    if _answers(5432):
        name = f"bench_portal_{os.getpid()}"
        try:
            import psycopg

            with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=3) as db:
                db.execute(f'DROP DATABASE IF EXISTS "{name}"')
                db.execute(f'CREATE DATABASE "{name}"')
        except Exception as error:  # any failure means: fall back
            note = f"PostgreSQL answered but refused ({error}); "
        else:
            stack.callback(_drop_database, name)
            return (
                f"postgres://postgres@{LOOPBACK}:5432/{name}",
                f"PostgreSQL on {LOOPBACK}:5432, database {name} (dropped at the end)",
            )
    database = directory / "portal.sqlite3"
    return f"sqlite:///{database}", f"{note}SQLite in {database}"


def _drop_database(name: str) -> None:
    if "django.db" in sys.modules:  # this process's own connections, if it made any
        from django.db import connections

        connections.close_all()
    import psycopg

    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=3) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _quietly(call: Callable[[], object]) -> None:
    try:
        call()
    except Exception as error:  # clean-up must not hide what went before
        print(f"(clean-up: {error})", file=sys.stderr)


def file_cache_application():
    """The portal's WSGI application with its file cache in $BENCH_PORTAL_CACHE_DIR.

    gunicorn's application factory for the file-cache fallback: the settings put the file cache
    in var/cache, which is the developer's own (and shared with `make run`)."""
    _use_cache_dir(os.environ[CACHE_DIR_VARIABLE])
    from portal.wsgi import application

    return application


def _use_cache_dir(directory: str) -> None:
    """Points the file cache at `directory`; before Django reads the settings."""
    import portal.settings

    if portal.settings.CACHES["default"]["BACKEND"].endswith("FileBasedCache"):
        portal.settings.CACHES["default"]["LOCATION"] = directory


@dataclass
class Portal:
    url: str
    port: int
    process: subprocess.Popen
    log: Path
    env: dict[str, str]
    database_note: str
    cache: PortalCache
    setup_seconds: dict[str, float] = field(default_factory=dict)


def start_portal(stack: ExitStack, directory: Path, sandbox: Sandbox) -> Portal:
    database_url, database_note = _portal_database(stack, directory)
    cache = _portal_cache(stack, directory)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": cache.redis_url,
        "ASSURANCE_BASE_URL": sandbox.url,
        "DEBUG": "false",
    }
    if cache.directory is not None:
        env[CACHE_DIR_VARIABLE] = str(cache.directory)
    started = time.perf_counter()
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity=0"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if migrate.returncode != 0:
        raise RuntimeError(f"The portal's migrations failed:\n{migrate.stderr}")
    setup = {"migrate": time.perf_counter() - started}

    port = free_port()
    application = (
        "portal.wsgi:application"
        if cache.directory is None
        else "bench.standards:file_cache_application()"
    )
    log = directory / "portal.log"
    started = time.perf_counter()
    with log.open("w") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", application, "--bind", f"{LOOPBACK}:{port}",
             "--workers", str(PORTAL_WORKERS), "--threads", str(PORTAL_THREADS),
             "--log-level", "warning", "--graceful-timeout", "5"],
            cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT,
            preexec_fn=_stop_with_parent,
        )  # fmt: skip
    portal = Portal(f"http://{LOOPBACK}:{port}", port, process, log, env, database_note, cache)
    stack.callback(stop_process, process)
    wait_until_it_answers(process, log, f"{portal.url}/healthz")
    setup["start"] = time.perf_counter() - started
    portal.setup_seconds = setup
    return portal


def _stop_with_parent() -> None:
    """In the child before gunicorn starts: on Linux, SIGTERM when this benchmark dies, even by
    SIGKILL (as on `python -m bench`'s time limit), so that no portal outlives it."""
    if sys.platform == "linux":
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


# --- signing in -----------------------------------------------------------------------------------

_CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def sign_in(portal: Portal) -> dict[str, str]:
    """Signs in as grower through the form, as a browser does; the cookies it ends with."""
    session = loopback_session()
    url = f"{portal.url}/accounts/sign-in/"
    form = session.get(url, timeout=REQUEST_TIMEOUT)
    found = _CSRF_FIELD.search(form.text)
    if form.status_code != 200 or not found:
        raise RuntimeError(f"The sign-in form answered {form.status_code} without a CSRF token")
    answer = session.post(
        url,
        data={
            "csrfmiddlewaretoken": found.group(1),
            "username": DEMO_USER,
            "password": DEMO_PASSWORD,
        },
        headers={"Referer": url},
        allow_redirects=False,
        timeout=REQUEST_TIMEOUT,
    )
    cookies = session.cookies.get_dict()
    if answer.status_code != 302 or "sessionid" not in cookies:
        raise RuntimeError(f"Signing in answered {answer.status_code}: {answer.text[:300]}")
    return cookies


def _cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


# --- load -----------------------------------------------------------------------------------------


def _page_problem(status: int, body: bytes) -> str | None:
    if status != 200:
        return f"status {status}"
    points = body.count(POINT_MARK)
    return None if points == BENCH_POINTS else f"{points} points, not {BENCH_POINTS}"


POINTS_START = b'<div id="points">'


def same_page_as(reference: bytes) -> Callable[[int, bytes], str | None]:
    """A check that an answer is the page `reference` (already checked to hold the section's
    points) again: the same length, and the same bytes from the points to the end. Only the
    frame before the points changes from one request to the next (its CSP nonce and masked
    CSRF token, both of fixed length). A comparison of bytes costs this process, which shares
    the machine with the portal, a tenth of what counting the points again would."""
    start = reference.find(POINTS_START)
    if start < 0:
        raise RuntimeError("The page has no points")
    stable = reference[start:]

    def check(status: int, body: bytes) -> str | None:
        if status != 200:
            return f"status {status}"
        if len(body) != len(reference) or body[start:] != stable:
            return "not the same page as the first answer"
        return None

    return check


def _health_problem(status: int, body: bytes) -> str | None:
    if status != 200:
        return f"status {status}"
    return None if body == HEALTH_BODY else f"body {body[:40]!r}"


@dataclass(frozen=True)
class Load:
    """A run of requests at fixed concurrency."""

    count: int
    seconds: float
    latencies: Timing
    body_bytes: int
    problems: Counter

    @property
    def throughput(self) -> float:
        return self.count / self.seconds


def run_load(
    port: int,
    path: str,
    headers: dict[str, str],
    check: Callable[[int, bytes], str | None],
    seconds: float,
    max_requests: int = LOAD_MAX_REQUESTS,
    concurrency: int = CONCURRENCY,
) -> Load:
    """GETs `path` on `concurrency` keep-alive connections (a thread each) until `seconds` have
    passed or `max_requests` were sent; checks every answer with `check`."""
    issued = itertools.count()
    latencies: list[float] = []
    problems: Counter[str] = Counter()
    sizes: list[int] = []
    lock = threading.Lock()
    started = time.perf_counter()
    deadline = started + seconds

    def connect() -> http.client.HTTPConnection:
        return http.client.HTTPConnection(LOOPBACK, port, timeout=REQUEST_TIMEOUT)

    def work() -> None:
        connection, mine, my_problems = connect(), [], Counter()
        size_seen = 0
        while time.perf_counter() < deadline and next(issued) < max_requests:
            sent = time.perf_counter()
            try:
                connection.request("GET", path, headers=headers)
                response = connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as error:
                my_problems[f"{type(error).__name__}"] += 1
                connection.close()
                connection = connect()
                continue
            mine.append((time.perf_counter() - sent) * 1000)
            problem = check(response.status, body)
            if problem:
                my_problems[problem] += 1
            size_seen = len(body)
        connection.close()
        with lock:
            latencies.extend(mine)
            problems.update(my_problems)
            sizes.append(size_seen)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.perf_counter()) + REQUEST_TIMEOUT + 5)
    took = time.perf_counter() - started
    if any(thread.is_alive() for thread in threads):
        raise RuntimeError(f"GET {path}: a load thread did not finish")
    if not latencies:
        raise RuntimeError(f"GET {path}: no answer at all ({dict(problems)})")
    return Load(len(latencies), took, Timing(tuple(latencies)), max(sizes), problems)


def measure_load(
    portal: Portal, path: str, headers: dict[str, str], check, label: str
) -> tuple[Load, list[str]]:
    run_load(portal.port, path, headers, check, LOAD_WARMUP_SECONDS)  # untimed
    load = run_load(portal.port, path, headers, check, LOAD_SECONDS)
    if load.problems:
        raise RuntimeError(
            f"{label}: {sum(load.problems.values())} of {load.count} answers were not right: "
            f"{dict(load.problems.most_common(5))}"
        )
    row = [
        label,
        str(load.count),
        f"{load.throughput:.0f}/s",
        ms(load.latencies.median),
        ms(load.latencies.p95),
        size(load.body_bytes),
    ]
    return load, row


# --- cold -----------------------------------------------------------------------------------------


def _setup_django(portal: Portal) -> None:
    """Django in this process with the portal's settings, database and cache."""
    for name in (
        "DJANGO_SETTINGS_MODULE",
        "DATABASE_URL",
        "REDIS_URL",
        "ASSURANCE_BASE_URL",
        "DEBUG",
    ):
        os.environ[name] = portal.env[name]
    if portal.cache.directory is not None:
        _use_cache_dir(str(portal.cache.directory))
    import logging

    import django

    django.setup()
    logging.getLogger("portal").setLevel(logging.WARNING)  # not a line per upstream call


def _get(connection: http.client.HTTPConnection, path: str, headers: dict[str, str]):
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


HOME_PATH = "/"
SIGNED_IN_MARK = b"Sign out"


def _home_problem(status: int, body: bytes) -> str | None:
    if status != 200:
        return f"status {status}"
    return None if SIGNED_IN_MARK in body else "not signed in"


def _empty_cache(portal: Portal, read_session_back: Callable[[], tuple[int, bytes]]) -> None:
    """Empties the portal's cache, then asks for the home page as the signed-in user, which
    puts their session back, so that only the section is cold."""
    portal.cache.clear()
    if problem := _home_problem(*read_session_back()):
        raise RuntimeError(f"GET {HOME_PATH} (signed in): {problem}")


def measure_cold(
    portal: Portal, sandbox: Sandbox, path: str, headers: dict[str, str]
) -> tuple[Timing, Timing]:
    """The cold page and the upstream call alone, interleaved: (page, upstream) Timings."""
    from portal.assurance.client import BearerToken
    from portal.upstream import build_client

    credentials = BearerToken(sandbox.token())
    _warm_sandbox_workers(sandbox, credentials.token)
    upstream = build_client(base_url=sandbox.url)

    def call_upstream():
        record = upstream.section_data(credentials, SCHEME_GUID, BENCH_PREFIX, sector=BENCH_SECTOR)
        if len(record.standard_points) != BENCH_POINTS:
            raise RuntimeError(f"section_data has {len(record.standard_points)} points")
        return record

    connection = http.client.HTTPConnection(LOOPBACK, portal.port, timeout=REQUEST_TIMEOUT)
    page, alone = [], []
    try:
        for n in range(COLD_WARMUP + COLD_REQUESTS):
            _empty_cache(portal, lambda: _get(connection, HOME_PATH, headers))
            sent = time.perf_counter()
            status, body = _get(connection, path, headers)
            took = (time.perf_counter() - sent) * 1000
            if problem := _page_problem(status, body):
                raise RuntimeError(f"cold GET {path}: {problem}")
            sent = time.perf_counter()
            call_upstream()
            took_alone = (time.perf_counter() - sent) * 1000
            if n >= COLD_WARMUP:
                page.append(took)
                alone.append(took_alone)
    finally:
        connection.close()
        upstream.close()
    return Timing(tuple(page)), Timing(tuple(alone))


def _warm_sandbox_workers(sandbox: Sandbox, token: str) -> None:
    """Asks for the section on a new connection each time, to reach every sandbox worker."""
    section_url = sandbox.endpoint(f"/v1/standards/{SCHEME_GUID}/{BENCH_PREFIX}.eb")
    for _ in range(SANDBOX_WARMUP):
        with sandbox.session() as session:
            session.get(
                section_url,
                params={"SectorPrefixFilter": BENCH_SECTOR},
                headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
                timeout=REQUEST_TIMEOUT,
            ).raise_for_status()


# --- where the time goes, in this process ---------------------------------------------------------


@dataclass(frozen=True)
class Spent:
    """Wall-clock and this thread's CPU time of the same calls, in milliseconds."""

    wall: Timing
    cpu: Timing


def _spent(
    call: Callable[[], object],
    runs: int = PROFILE_RUNS,
    warmup: int = 1,
    before: Callable[[], object] = lambda: None,
) -> Spent:
    """Times `call`, with `before` run untimed ahead of each."""
    for _ in range(warmup):
        before()
        call()
    wall, cpu = [], []
    for _ in range(runs):
        before()
        started, started_cpu = time.perf_counter(), time.thread_time()
        call()
        cpu.append((time.thread_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return Spent(Timing(tuple(wall)), Timing(tuple(cpu)))


def _wsgi_get(handler, path: str, cookie: str | None) -> tuple[int, bytes]:
    """GET `path` through Django's WSGI handler itself: all the middleware, no HTTP, no test
    client (whose instrumentation of templates would weigh on the figures)."""
    environ = {
        "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "", "SCRIPT_NAME": "",
        "SERVER_NAME": LOOPBACK, "SERVER_PORT": "80", "HTTP_HOST": LOOPBACK,
        "REMOTE_ADDR": LOOPBACK, "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_ACCEPT": "text/html",
        "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr, "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0), "wsgi.multithread": True, "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }  # fmt: skip
    if cookie:
        environ["HTTP_COOKIE"] = cookie
    statuses: list[str] = []
    result = handler(environ, lambda status, headers, exc_info=None: statuses.append(status))
    try:
        body = b"".join(result)
    finally:
        result.close()  # request_finished, as under gunicorn
    return int(statuses[0].split()[0]), body


def breakdown(
    portal: Portal, path: str, cookies: dict[str, str]
) -> tuple[list[list[str]], str, str]:
    """The page's parts timed one by one in this process, with the portal's database and cache;
    and cProfiles of the whole view, warm and cold."""
    from django.core.handlers.wsgi import WSGIHandler

    handler, cookie = WSGIHandler(), _cookie_header(cookies)

    def view() -> None:
        status, body = _wsgi_get(handler, path, cookie)
        if problem := _page_problem(status, body):
            raise RuntimeError(f"in-process GET {path}: {problem}")

    def empty_cache() -> None:
        _empty_cache(portal, lambda: _wsgi_get(handler, HOME_PATH, cookie))

    def health(with_cookie: bool) -> None:
        status, body = _wsgi_get(handler, "/healthz", cookie if with_cookie else None)
        if problem := _health_problem(status, body):
            raise RuntimeError(f"in-process GET /healthz: {problem}")

    view()
    rows: list[list[str]] = []

    def row(name: str, spent: Spent) -> None:
        wall, cpu = spent.wall, spent.cpu
        rows.append([name, str(wall.n), ms(wall.median), ms(wall.minimum), ms(cpu.median)])

    row("/healthz, no cookie (WSGI handler, all middleware)", _spent(lambda: health(False), 50, 5))
    row("/healthz with the session cookie", _spent(lambda: health(True), 50, 5))
    row("section page, warm (WSGI handler, all middleware)", _spent(view, PROFILE_RUNS * 2, 3))
    cold = _spent(view, PROFILE_RUNS, before=empty_cache)
    row("section page, cold (the cache emptied, the session back)", cold)

    cold_profile = profile_by_own_time(view, PROFILE_RUNS, before=empty_cache)
    return rows, profile_by_own_time(view, PROFILE_RUNS * 2), cold_profile


@dataclass(frozen=True)
class AtLeast(Target):
    """A figure that should be at least its bound (`value >= limit`)."""

    @property
    def passed(self) -> bool:
        return self.value >= self.limit

    @property
    def bound(self) -> str:
        return f">= {self.limit:.2f} {self.unit}".rstrip()


# --- the benchmark --------------------------------------------------------------------------------


def main() -> None:
    heading("bench.standards: a 300-point section page, warm and cold")
    # A SIGTERM unwinds like an exception, so that the portal, the sandbox, the database and the
    # cache are still stopped, dropped and flushed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"Machine before: {machine_load()}")
    path = f"/standards/{SCHEME_GUID}/{BENCH_SECTOR}/{BENCH_PREFIX}/"
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-standards-")))
        (directory / "sandbox").mkdir()
        sandbox = start_sandbox(directory / "sandbox")
        stack.callback(stop_process, sandbox.process)
        portal = start_portal(stack, directory, sandbox)
        _print_setup(sandbox, portal)

        cookies = sign_in(portal)
        headers = {"Cookie": _cookie_header(cookies), "Accept": "text/html"}
        first = http.client.HTTPConnection(LOOPBACK, portal.port, timeout=REQUEST_TIMEOUT)
        status, body = _get(first, path, headers)  # fills the cache: upstream, points HTML
        first.close()
        if problem := _page_problem(status, body):
            raise RuntimeError(f"GET {path} (signed in): {problem}")

        page_check = same_page_as(body)
        rounds = []
        for n in range(1, WARM_ROUNDS + 1):
            warm, warm_row = measure_load(
                portal, path, headers, page_check, f"{n}: section page, warm"
            )
            bare, bare_row = measure_load(
                portal, "/healthz", {}, _health_problem, f"{n}: /healthz (bare)"
            )
            rounds.append((warm.throughput / bare.throughput, warm_row, bare_row))
        _, signed_row = measure_load(
            portal, "/healthz", headers, _health_problem, "/healthz with the session cookie"
        )
        ratio = statistics.median(r[0] for r in rounds)

        _setup_django(portal)
        cold, alone = measure_cold(portal, sandbox, path, headers)
        targets = [
            AtLeast(
                f"warm page / bare page, throughput (median of {WARM_ROUNDS} rounds)",
                ratio,
                WARM_RATIO,
                unit="x",
            ),
            Target(
                "cold page - upstream call, median",
                cold.median - alone.median,
                COLD_EXTRA_MS,
                inclusive=True,
            ),
        ]
        parts = None
        if not all(t.passed for t in targets):
            parts = breakdown(portal, path, cookies)

    print(
        f"\nUnder load: {CONCURRENCY} keep-alive connections (Python threads, http.client), "
        f"{LOAD_SECONDS:.0f} s each after {LOAD_WARMUP_SECONDS} s untimed, the page and the "
        f"bare page in turn for {WARM_ROUNDS} rounds; every answer checked (200, and the page "
        f"with its {BENCH_POINTS} points or 'ok'):"
    )
    print_table(
        ["page", "requests", "throughput", "median", "p95", "size"],
        [row for _, *pair in rounds for row in pair] + [signed_row],
    )
    print("Ratios by round: " + ", ".join(f"{r:.2f}x" for r, *_ in rounds))
    print(
        f"\nCold page, sequential, the cache emptied before each request (the session then put "
        f"back by an untimed request for the home page), interleaved with the "
        f"upstream call alone ({COLD_REQUESTS} each after {COLD_WARMUP} untimed; the sandbox's "
        f"own cache of the encoded section warm for both):"
    )
    print_table(
        ["request", "n", "median", "p95", "min"],
        [
            [
                "cold section page (HTTP, signed in)",
                str(cold.n),
                ms(cold.median),
                ms(cold.p95),
                ms(cold.minimum),
            ],
            [
                "upstream section_data alone (client)",
                str(alone.n),
                ms(alone.median),
                ms(alone.p95),
                ms(alone.minimum),
            ],
        ],
    )
    if parts is not None:
        rows, warm_profile, cold_profile = parts
        print(
            "\nWhere the time goes, in this process with the portal's database and cache (the "
            "whole page through Django's WSGI handler, then its parts alone; wall-clock median "
            "and min, and this thread's CPU median):"
        )
        print_table(["step", "n", "median", "min", "CPU"], rows)
        if not targets[0].passed:
            print("\nThe warm view under cProfile, by own time (cProfile inflates small calls):")
            print(warm_profile)
        if not targets[1].passed:
            print("\nThe cold view under cProfile, by own time:")
            print(cold_profile)
    print(f"\nMachine after: {machine_load()}")
    print()
    print_targets(targets)


def _print_setup(sandbox: Sandbox, portal: Portal) -> None:
    steps = ", ".join(f"{n} {s:.1f} s" for n, s in sandbox.setup_seconds.items())
    print(f"Sandbox at {sandbox.url} ({sandbox.workers} gunicorn workers, SQLite); set-up: {steps}")
    steps = ", ".join(f"{n} {s:.1f} s" for n, s in portal.setup_seconds.items())
    print(
        f"Portal at {portal.url} (gunicorn, {PORTAL_WORKERS} workers x {PORTAL_THREADS} "
        f"threads); set-up: {steps}"
    )
    print(f"Portal database: {portal.database_note}")
    print(f"Portal cache: {portal.cache.note}")


if __name__ == "__main__":
    main()
