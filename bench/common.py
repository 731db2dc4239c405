"""What the benchmarks share: the benchmark section, a sandbox of their own, timing and the
report they print.

Benchmarks report; they never fail the build. Every loop has a fixed count, all traffic goes to
127.0.0.1, and a sandbox a benchmark starts is stopped however the benchmark ends.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from tempfile import TemporaryDirectory

import psycopg
import requests
from psycopg import sql

from sandbox.ids import guid_for
from scripts import servers
from scripts.servers import stop as stop_process

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"

# Benchmarks are a development command (make bench sets this too): the portals they start, and
# Django in their own process, may use the portal's development secret key.
os.environ.setdefault("PORTAL_DEVELOPMENT", "true")
REQUEST_TIMEOUT = 30  # seconds, for any one request
DEMO_USER, DEMO_PASSWORD = "grower", "grower-demo-pass"

# The section `generate_large_data` makes for the benchmarks, BM.BX of the benchmark scheme with
# 300 points: sandbox.generate's SCHEME_GUID, BENCH_SECTOR, BENCH_PREFIX and BENCH_POINTS, which
# cannot be imported from there before Django is set up.
SCHEME_GUID = guid_for("scheme:benchmark")
BENCH_SECTOR, BENCH_PREFIX, BENCH_POINTS = "BM", "BX", 300


# --- a sandbox of the benchmark's own -------------------------------------------------------------


def loopback_session() -> requests.Session:
    """A keep-alive session that never goes through a proxy (loopback only)."""
    session = requests.Session()
    session.trust_env = False
    return session


@dataclass
class Sandbox:
    """A sandbox under gunicorn on a loopback port, with its own SQLite database."""

    url: str
    process: subprocess.Popen
    database: Path
    log: Path
    workers: int
    setup_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def database_url(self) -> str:
        return f"sqlite:///{self.database}"

    def endpoint(self, path: str) -> str:
        return f"{self.url}{path}"

    def session(self) -> requests.Session:
        return loopback_session()

    def token(self, username: str = DEMO_USER, password: str = DEMO_PASSWORD) -> str:
        """A bearer token from one login (basic auth would cost a PBKDF2 check per request)."""
        response = self.session().post(
            self.endpoint("/v1/authentication/login.eb"),
            json={"type": "token", "username": username, "password": password},
            headers={"Accept": "application/json"},
            timeout=REQUEST_TIMEOUT,
        )
        response.raise_for_status()
        return response.json()["token"]


def start_sandbox(
    directory: Path, *, points: int | None = None, passports: int | None = None, workers: int = 2
) -> Sandbox:
    """The sandbox (migrated, with its demo data, as scripts.servers starts it) on a free port
    with a database in `directory`, and then `generate_large_data` in that database."""
    env = {name: value for name, value in os.environ.items() if name != "SANDBOX_ACCESS_LOG"}
    started = time.perf_counter()
    server = servers.start_sandbox(directory, workers=workers, env=env)
    setup = {"start": time.perf_counter() - started}
    database = directory / "sandbox.sqlite3"
    sizes = [*(["--points", str(points)] if points else []),
             *(["--passports", str(passports)] if passports else [])]  # fmt: skip
    started = time.perf_counter()
    _manage(database, "generate_large_data", *sizes)
    setup["generate_large_data"] = time.perf_counter() - started
    return Sandbox(server.url, server.process, database, directory / "sandbox.log", workers, setup)


def _manage(database: Path, *args: str) -> None:
    """Runs a `manage.py` command against `database` with the sandbox's settings."""
    env = {**os.environ, "SANDBOX_DATABASE_URL": f"sqlite:///{database}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = subprocess.run(
        [sys.executable, "manage.py", *args, "--settings=sandbox.settings"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr}")


@contextmanager
def running_sandbox(**options) -> Iterator[Sandbox]:
    """A sandbox in a temporary directory for the length of the `with` block."""
    with TemporaryDirectory(prefix="bench-sandbox-") as directory:
        sandbox = start_sandbox(Path(directory), **options)
        try:
            yield sandbox
        finally:
            stop_process(sandbox.process)


# --- a portal's signed-in user --------------------------------------------------------------------

_CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def csrf_token(html: str) -> str | None:
    """The CSRF token of the (first) form in a page, or None."""
    found = _CSRF_FIELD.search(html)
    return found[1] if found else None


def signed_in_cookie(portal_url: str, username: str = DEMO_USER,
                     password: str = DEMO_PASSWORD) -> str:  # fmt: skip
    """Signs in through the form, as a browser does; the Cookie header it ends with."""
    session = loopback_session()
    url = f"{portal_url}/accounts/sign-in/"
    form = session.get(url, timeout=REQUEST_TIMEOUT)
    token = csrf_token(form.text)
    if form.status_code != 200 or not token:
        raise RuntimeError(f"The sign-in form answered {form.status_code} without a CSRF token")
    answer = session.post(
        url,
        data={"csrfmiddlewaretoken": token, "username": username, "password": password},
        headers={"Referer": url},
        allow_redirects=False,
        timeout=REQUEST_TIMEOUT,
    )
    cookies = session.cookies.get_dict()
    if answer.status_code != 302 or "sessionid" not in cookies:
        raise RuntimeError(f"Signing in answered {answer.status_code}: {answer.text[:300]}")
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


class SignedIn:
    """A signed-in user's session on a portal: its address and the cookie a browser sends."""

    def __init__(self, url: str, cookie: str) -> None:
        self.url = url
        self.http = loopback_session()
        self.headers = {"Cookie": cookie}

    def get(self, path: str, **headers: str) -> requests.Response:
        return self.http.get(self.url + path, headers={**self.headers, **headers},
                             allow_redirects=False, timeout=REQUEST_TIMEOUT)  # fmt: skip

    def page(self, path: str, holding: re.Pattern) -> int:
        """The page's size in bytes, once checked to be a 200 holding `holding`."""
        answer = self.get(path)
        if answer.status_code != 200 or not holding.search(answer.text):
            raise RuntimeError(f"{path} answered {answer.status_code}: {answer.text[:600]}")
        return len(answer.content)


def signed_in_portal(stack: ExitStack, directory: Path, database: str,
                     settings: dict[str, str]) -> SignedIn:  # fmt: skip
    """A portal in `directory` on `database` (migrated) with `settings`, stopped with `stack`;
    grower signed in there through the form."""
    directory.mkdir()
    portal = servers.start_portal(directory, DATABASE_URL=database, **settings)
    stack.callback(portal.stop)
    return SignedIn(portal.url, signed_in_cookie(portal.url))


# --- timing ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """Samples in milliseconds."""

    samples: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p95(self) -> float:
        """Nearest-rank 95th percentile."""
        ordered = sorted(self.samples)
        return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]

    @property
    def minimum(self) -> float:
        return min(self.samples)


def made_superuser(connection: psycopg.Connection, username: str = DEMO_USER) -> int:
    """The id of `username` (signed in already), made staff and superuser: the admin's pages."""
    (user,) = connection.execute(
        "UPDATE auth_user SET is_staff = true, is_superuser = true "
        "WHERE username = %s RETURNING id", [username]
    ).fetchone()  # fmt: skip
    return user


def interleaved(
    steps: dict[str, Callable[[], object]],
    rounds: int,
    warmup: int = 0,
    before_each_round: Callable[[], object] = lambda: None,
) -> dict[str, Timing]:
    """Each step timed once a round, the steps in turn, in the other order every other round
    (so that none always follows the same one), for `warmup` rounds untimed and then `rounds`,
    with `before_each_round` called untimed before each: every step sees the machine as it was
    in that round. Each step's timing, by name."""
    samples: dict[str, list[float]] = {name: [] for name in steps}
    for n in range(warmup + rounds):
        before_each_round()
        names = list(steps) if n % 2 == 0 else list(reversed(steps))
        for name in names:
            timed = time_calls(steps[name], 1)
            if n >= warmup:
                samples[name] += timed.samples
    return {name: Timing(tuple(taken)) for name, taken in samples.items()}


@dataclass(frozen=True)
class Ratios:
    """A ratio measured round by round (what was measured against its baseline in the same
    round): the median of the rounds is the figure, their least and most its spread."""

    values: tuple[float, ...]

    @classmethod
    def of(cls, measured: Sequence[float], baseline: Sequence[float]) -> Ratios:
        return cls(tuple(m / b for m, b in zip(measured, baseline, strict=True)))

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def __str__(self) -> str:
        return (f"median {self.median:.2f}, from {min(self.values):.2f} to "
                f"{max(self.values):.2f} over {len(self.values)} rounds")  # fmt: skip


def time_calls(call: Callable[[], object], count: int, warmup: int = 0) -> Timing:
    """Calls `call` `warmup` times untimed, then `count` times, timing each call."""
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return Timing(tuple(samples))


def pages_in_turn[Label](
    portals: dict[Label, SignedIn],
    path: str,
    holding: re.Pattern,
    rounds: int,
    per_round: int,
    warmup: int,
) -> dict[Label, Timing]:
    """`path` on each portal, one request at a time, each answer checked to be a 200 holding
    `holding`: `warmup` untimed on each, then `rounds` rounds of `per_round` on each portal in
    turn, the order swapped every round. The times by the portals' labels."""

    def answered(portal: SignedIn) -> None:
        answer = portal.get(path)
        if answer.status_code != 200 or not holding.search(answer.text):
            raise RuntimeError(f"{path} answered {answer.status_code}: {answer.text[:600]}")

    for portal in portals.values():  # each portal's workers warm
        time_calls(partial(answered, portal), 0, warmup=warmup)
    samples: dict[Label, list[float]] = {label: [] for label in portals}
    for n in range(rounds):
        for label in list(portals) if n % 2 == 0 else reversed(list(portals)):
            samples[label] += time_calls(partial(answered, portals[label]), per_round).samples
    return {label: Timing(tuple(taken)) for label, taken in samples.items()}


# --- the report -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A figure and the bound it should meet: `value < limit` (or `<=` with `inclusive`)."""

    name: str
    value: float
    limit: float
    unit: str = "ms"
    inclusive: bool = False

    @property
    def passed(self) -> bool:
        return self.value <= self.limit if self.inclusive else self.value < self.limit

    @property
    def bound(self) -> str:
        return f"{'<=' if self.inclusive else '<'} {_number(self.limit)} {self.unit}".rstrip()


def _number(value: float) -> str:
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def ms(value: float) -> str:
    return f"{value:.1f} ms"


def size(n_bytes: int) -> str:
    return f"{n_bytes / 1024:.0f} KiB" if n_bytes >= 1024 else f"{n_bytes} B"


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        first, *rest = (str(c) for c in cells)
        parts = [first.ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(rest, widths[1:], strict=True)
        ]
        return "  ".join(parts).rstrip()

    print(line(headers))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))


def print_targets(targets: list[Target]) -> None:
    print_table(
        ["target", "measured", "bound", "result"],
        [
            [
                t.name,
                f"{_number(t.value)} {t.unit}".rstrip(),
                t.bound,
                "PASS" if t.passed else "MISS",
            ]
            for t in targets
        ],
    )


def machine_load() -> str:
    """CPUs and the 1-minute load average, with a warning when other work competes for them."""
    cpus, load = os.cpu_count() or 1, os.getloadavg()[0]
    note = f"{cpus} CPUs, load average {load:.1f}"
    if load > cpus * 0.75:
        note += " (busy: other work competes for the CPUs, so the figures are pessimistic)"
    return note


def heading(text: str) -> None:
    print()
    print(text)
    print("=" * len(text))


# --- load from wrk --------------------------------------------------------------------------------


def require_wrk_and_redis(redis_url: str) -> None:
    """Stops the benchmark, saying what to do, without `wrk` or a Redis at `redis_url`."""
    if shutil.which("wrk") is None:
        print("wrk is not installed: `apt-get install wrk` (Debian's package), then run again.")
        sys.exit(1)
    require_redis(redis_url)


def require_redis(redis_url: str) -> None:
    """Stops the benchmark, saying so, without a Redis at `redis_url`."""
    import redis

    try:
        redis.Redis.from_url(redis_url).ping()
    except redis.ConnectionError:
        print(f"This benchmark needs Redis at {redis_url}.")
        sys.exit(1)


@dataclass(frozen=True)
class Load:
    """What wrk measured of one address."""

    label: str
    requests: int
    throughput: float  # requests a second
    median_ms: float


class AtLeast(Target):
    """A figure that should be at least its bound (`value >= limit`)."""

    @property
    def passed(self) -> bool:
        return self.value >= self.limit

    @property
    def bound(self) -> str:
        return f">= {self.limit:.2f} {self.unit}".rstrip()


class NoAnswer(RuntimeError):
    """wrk saw no answer at all in its time: the machine stalled (a busy disk, other work), as a
    page never does alone."""


def wrk(url: str, cookie: str, label: str, connections: int, seconds: int, body_bytes: int,
        headers: Sequence[str] = ()) -> Load:  # fmt: skip
    """`wrk` against `url` with the session's cookie (none if blank) and `headers` ("Name:
    value"). Refuses a run with an error, an answer
    that is not a 2xx, or fewer bytes than `body_bytes` an answer: a redirect to sign-in (a 3xx)
    cannot pass for speed.

    Each request comes on a connection of its own, as nginx sends them to the portal (the
    deployment keeps no idle upstream connections): a kept-alive connection stays with the
    gunicorn worker that took it, and when all of them land on one of the two, a run's
    throughput halves (seen here: the home page at 650 or 1,550 a second, run to run)."""
    command = ["wrk", f"--connections={connections}", f"--threads={min(connections, 2)}",
               f"--duration={seconds}s", "--latency", "--timeout=10s",
               *(f"--header={header}" for header in [*([f"Cookie: {cookie}"] if cookie else []),
                                                     *headers]),
               "--header=Connection: close", url]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout
    requests = int(re.search(r"(\d+) requests in", output)[1])
    if requests == 0:
        raise NoAnswer(f"{label}: no answer in {seconds} s (the machine stalled?):\n{output}")
    read = re.search(r"requests in [\d.]+\w+, ([\d.]+)([KMG]?B) read", output)
    unit = {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30}[read[2]]
    # wrk rounds what it read to two decimals of its unit ("1.49GB"): allow for that rounding
    per_answer = (float(read[1]) + 0.005) * unit / requests
    if "Non-2xx" in output or "Socket errors" in output or per_answer < body_bytes:
        raise RuntimeError(f"{label}: not every answer was the page:\n{output}")
    return Load(
        label,
        requests,
        float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1]),
        _milliseconds(re.search(r"50%\s+([\d.]+)(us|ms|s)\b", output)),
    )


def _milliseconds(found: re.Match) -> float:
    return float(found[1]) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[found[2]]


WARM_UP_REQUESTS = 5  # of each page, one at a time, before its loads
TRIES_OF_A_ROUND = 3


def loads_in_turn(
    first: tuple[str, str, int],
    second: tuple[str, str, int],
    cookie: str,
    *,
    connections: int,
    seconds: int,
    rounds: int,
) -> list[tuple[Load, Load]]:
    """`wrk` against two pages in turn, each (label, URL, least bytes an answer) as `wrk` takes
    them, for `rounds` rounds, the order swapped every round (so that neither always runs on
    the machine the other left); after a few requests of each one at a time, untimed, to warm
    the workers (a second of wrk may end with no answer on a busy machine). A round in which a
    page had no answer at all (NoAnswer) is measured again. Each round's loads, the first
    page's first."""
    session = loopback_session()
    for _, url, _ in (first, second):
        for _ in range(WARM_UP_REQUESTS):
            session.get(url, headers={"Cookie": cookie}, timeout=REQUEST_TIMEOUT)
    found = []
    for n in range(1, rounds + 1):
        pair = (first, second) if n % 2 else (second, first)
        for tries_left in reversed(range(TRIES_OF_A_ROUND)):
            try:
                measured = {label: wrk(url, cookie, f"{n}: {label}", connections, seconds, size)
                            for label, url, size in pair}  # fmt: skip
                break
            except NoAnswer:
                if not tries_left:
                    raise
        found.append((measured[first[0]], measured[second[0]]))
    return found


def print_loads(loads: list[Load]) -> None:
    print_table(
        ["page", "requests", "throughput", "median"],
        [[r.label, str(r.requests), f"{r.throughput:.0f}/s", ms(r.median_ms)] for r in loads],
    )


def print_timings(timings: list[tuple[str, Timing]]) -> None:
    print_table(
        ["", "median", "p95", "min"],
        [[name, ms(t.median), ms(t.p95), ms(t.minimum)] for name, t in timings],
    )


# --- databases ------------------------------------------------------------------------------------

POSTGRES_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


@contextmanager
def databases(
    prefix: str, names: list[str], directory: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    """A database for each name (`bench_<prefix>_<pid>_<name>`), dropped afterwards: on
    PostgreSQL, production's database, if it answers at BENCH_POSTGRES_URL's server, else SQLite
    files in `directory`. The kind ("PostgreSQL" or "SQLite") and each name's URL."""
    try:
        admin = psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        yield "SQLite", {name: f"sqlite:///{directory / f'{name}.sqlite3'}" for name in names}
        return
    made = {name: f"bench_{prefix}_{os.getpid()}_{name}" for name in names}
    base = POSTGRES_URL.rsplit("/", 1)[0]
    with admin:
        try:
            for database in made.values():
                admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
            yield "PostgreSQL", {name: f"{base}/{database}" for name, database in made.items()}
        finally:
            for database in made.values():
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(database)))  # fmt: skip


# --- a portal's page against itself ---------------------------------------------------------------


@dataclass(frozen=True)
class PageBench:
    """What a benchmark of a portal's page starts: its temporary directory, the URL of its own
    PostgreSQL database, the sandbox, and the settings a portal on them takes."""

    directory: Path
    database: str
    sandbox: Sandbox
    settings: dict[str, str]


def page_bench(stack: ExitStack, name: str, redis_url: str, passports: int) -> PageBench:
    """The start every page benchmark makes: `wrk` and Redis there (its database emptied, and
    emptied again at the end), a PostgreSQL database of its own (`bench_<name>_<pid>_portal`,
    dropped with `stack`), and a sandbox with `passports` of the benchmark's business. Stops
    the benchmark, saying why, without PostgreSQL."""
    require_wrk_and_redis(redis_url)
    import redis

    cache = redis.Redis.from_url(redis_url)
    cache.flushdb()
    print(f"Machine before: {machine_load()}")
    directory = Path(stack.enter_context(TemporaryDirectory(prefix=f"bench-{name}-")))
    stack.callback(cache.flushdb)
    kind, urls = stack.enter_context(databases(name, ["portal"], directory))
    if kind != "PostgreSQL":
        print(f"This benchmark needs PostgreSQL at {POSTGRES_URL}.")
        sys.exit(1)
    (directory / "sandbox").mkdir()
    sandbox = start_sandbox(directory / "sandbox", passports=passports)
    stack.callback(stop_process, sandbox.process)
    settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": redis_url,
                "PORTAL_LOG_LEVEL": "WARNING"}  # fmt: skip
    return PageBench(directory, urls["portal"], sandbox, settings)
