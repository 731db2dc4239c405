"""The API and its webhooks (issue 38): the API's passport list against the list page, a passport
made through the API against the create form, a load recorded with webhook endpoints subscribed
against with none, and the outbox's deliveries against a bare loop of the same signed POSTs.

    python -m bench api
    python -m bench.api making recording    # some of its parts only: list, making, recording,
                                            # delivering (everything is started all the same)

Starts, on loopback only, a sandbox of its own (its demo data and a few of `generate_large_data`'s
passports of "Benchmark Farms Ltd", of which grower is a contact), the portal under gunicorn as
`make run` starts it (2 workers x 4 threads) with a Celery worker as `make run` starts it (two
processes), on a PostgreSQL database of its own (as bench.common.page_bench makes it) and Redis
database 11 on 127.0.0.1:6379, with PORTAL_WEBHOOK_ALLOWED_NETWORKS at 127.0.0.0/8 (so that the
portal delivers to a receiver on 127.0.0.1) and the API's limit of requests a minute out of the
way. It signs in as grower through the sign-in form (which keeps the upstream token the API's
calls use), makes grower's API token and two intake sites' tokens as the tokens' pages make them
(portal.api.tokens), and then measures:

- the list: 10,000 passports of the business written with SQL (bench.business.fill); the API's
  list (`/api/v1/passports?limit=50`, the token's bearer header) against the list page
  (`/passports/`, 50 a page, the session's cookie), with `wrk` at 16 connections (a request
  each, as nginx sends them) for LOAD_SECONDS each, the two in turn (the order swapped every
  round). Target: the median of the rounds' ratios of the API's throughput to the page's at
  least 1.5.
- a passport made: the create form as bench/passports.py measures it (the form fetched untimed
  for its one-time key, its POST timed until its 303) against `POST /api/v1/passports` with the
  same fields and an `Idempotency-Key`, timed until its 201; in turn, the order swapped every
  round, each once the PDF the one before started is cancelled and the worker is idle
  (untimed; the form fetched before that wait, so that neither POST follows a request just
  answered). Target: the median of the rounds' ratios of the API's time to the form's at most
  1.05.
- a load recorded: `POST /api/v1/intake/loads` (a site's token, a new ticket of a passport made
  above) at a site with three endpoints that want `intake.load.recorded` against at a site with
  none, in turn, after the receiver has had every delivery of the round before (untimed).
  Target: the median of the rounds' ratios at most 1.1 (the deliveries are sent after the
  commit, by the worker).
- deliveries: 2,000 events to the three endpoints (portal.outbox.events.emit, as the apps emit
  them, written untimed in one transaction), from its commit until the receiver has verified
  every delivery, against a bare loop making the same POSTs, signed as Standard Webhooks says
  (the `standardwebhooks` package's signature), from as many threads as the worker sends at
  once (its processes times PORTAL_WEBHOOK_SENDS_AT_ONCE), in turn. Target: the median of the
  rounds' ratios of the loop's time to the outbox's at least 0.5 (the outbox at least half as
  fast).

The receiver is a process of its own (a ThreadingHTTPServer on 127.0.0.1, as `make run`'s): it
verifies every POST with the `standardwebhooks` package and the secret of its path, and answers
204; one that does not verify fails the benchmark. Every answer timed is checked: the 303 to the
new passport, the API's 201 with a short code, a load's 201 "recorded", wrk's every answer a 2xx
of at least the page's size; every delivery of the outbox must end delivered.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.sharedctypes import Synchronized

from bench import business
from bench.common import (
    DEMO_PASSWORD,
    DEMO_USER,
    REQUEST_TIMEOUT,
    AtLeast,
    Load,
    Ratios,
    Target,
    Timing,
    heading,
    loopback_session,
    machine_load,
    page_bench,
    print_loads,
    print_targets,
    print_timings,
    signed_in_cookie,
    stop_process,
    wrk,
)
from bench.passports import Choice, Portal, grower_choice
from portal.assurance.client import AssuranceClient, BearerToken
from scripts import servers

# Another database for a run beside another one (it is emptied).
REDIS_URL = os.environ.get("BENCH_API_REDIS_URL", "redis://127.0.0.1:6379/11")
LIST_SIZE, PAGE = 10_000, 50
LIST_PAGE, API_LIST = "/passports/", f"/api/v1/passports?limit={PAGE}"
LIST_COUNT = re.compile(r"1–50 of [\d,]+ passports")
CONNECTIONS, LOAD_SECONDS, LOAD_ROUNDS = 16, 3, 5
CREATE_ROUNDS, RECORD_ROUNDS, WARMUP = 16, 20, 2  # each spread from 0.5 to 4 or 5
EVENTS, ENDPOINTS, DELIVERY_ROUNDS = 2_000, 3, 3
WORKER_PROCESSES = 2  # the Celery worker's, as `make run` starts it
SENDS_AT_ONCE = 8  # a worker process's (PORTAL_WEBHOOK_SENDS_AT_ONCE, its default)
SENDERS = WORKER_PROCESSES * SENDS_AT_ONCE  # the bare loop's threads: as many at once
LIST_RATIO, CREATE_RATIO, RECORD_RATIO, DELIVERY_RATIO = 1.5, 1.05, 1.1, 0.5
DELIVERY_SECONDS = 300  # for one round's deliveries, at most
RECORDED_EVENT = "intake.load.recorded"


# --- the receiver -------------------------------------------------------------------------------


def receive(port: int, secrets: dict[str, str], verified: Synchronized, refused: Synchronized,
            ready: multiprocessing.synchronize.Event) -> None:  # fmt: skip
    """Serves on 127.0.0.1:`port` until killed: each POST verified with the secret of its path
    (Standard Webhooks), counted, and answered 204."""
    from standardwebhooks import Webhook

    checkers = {path: Webhook(secret) for path, secret in secrets.items()}

    class Verifying(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {name.lower(): value for name, value in self.headers.items()}
            try:
                checkers[self.path].verify(body, headers)
            except Exception:
                with refused.get_lock():
                    refused.value += 1
                self.send_response(400)
            else:
                with verified.get_lock():
                    verified.value += 1
                self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # its listen(): the default 5 resets senders many at once
        daemon_threads = True

    server = Server(("127.0.0.1", port), Verifying)
    ready.set()
    server.serve_forever()


@dataclass
class Receiver:
    url: str
    verified: Synchronized
    refused: Synchronized
    process: multiprocessing.Process

    def until(self, count: int, seconds: float = DELIVERY_SECONDS) -> None:
        """Returns once `count` POSTs have verified in all; raises if one did not verify, or
        after `seconds`."""
        deadline = time.monotonic() + seconds
        while self.verified.value < count:
            if self.refused.value:
                raise RuntimeError(f"{self.refused.value} POSTs to the receiver did not verify")
            if time.monotonic() > deadline:
                raise RuntimeError(f"The receiver had {self.verified.value} of {count} POSTs "
                                   f"after {seconds} s")  # fmt: skip
            time.sleep(0.005)


def start_receiver(stack: ExitStack, port: int, secrets: dict[str, str]) -> Receiver:
    """The receiver on `port`, stopped with `stack`."""
    spawn = multiprocessing.get_context("spawn")
    verified, refused, ready = spawn.Value("q", 0), spawn.Value("q", 0), spawn.Event()
    process = spawn.Process(target=receive, args=(port, secrets, verified, refused, ready),
                            daemon=True)  # fmt: skip
    process.start()
    stack.callback(process.kill)
    if not ready.wait(30):
        raise RuntimeError("The receiver did not start")
    return Receiver(f"http://127.0.0.1:{port}", verified, refused, process)


# --- what is started, and the API's callers ----------------------------------------------------


@dataclass
class Started:
    portal: Portal
    grower_token: str
    quiet_token: str  # a site with no endpoint
    watched_token: str  # a site with ENDPOINTS endpoints
    watched_site: int
    receiver: Receiver
    secrets: dict[str, str]  # by the receiver's path
    choice: Choice
    database: str


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def posted(started: Started, path: str, token: str, body: object) -> tuple[float, object]:
    """The JSON POSTed with the token and a new Idempotency-Key: ms until its answer, and the
    answer."""
    session = started.portal.http
    headers = {**bearer(token), "Idempotency-Key": str(uuid.uuid4())}
    begun = time.perf_counter()
    answer = session.post(started.portal.url + path, json=body, headers=headers,
                          timeout=REQUEST_TIMEOUT)  # fmt: skip
    return (time.perf_counter() - begun) * 1000, answer


def api_fields(choice: Choice, today: date) -> dict[str, str]:
    """The create form's fields, as the API takes them."""
    fields = choice.form_data(today)
    del fields["step"]
    return fields


def start(stack: ExitStack) -> Started:
    bench = page_bench(stack, "api", REDIS_URL, passports=10)
    settings = {**bench.settings, "DATABASE_URL": bench.database,
                "PORTAL_JOB_FILES_DIR": str(bench.directory / "jobs"),
                "PORTAL_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
                "PORTAL_WEBHOOK_SENDS_AT_ONCE": str(SENDS_AT_ONCE),
                "PORTAL_API_REQUESTS_PER_MINUTE": "1000000"}  # fmt: skip
    (bench.directory / "portal").mkdir()
    server = servers.start_portal(bench.directory / "portal", **settings)
    stack.callback(server.stop)
    worker_env = {**os.environ, "PORTAL_DEVELOPMENT": "true", **settings}
    worker = servers.start_worker(worker_env, concurrency=WORKER_PROCESSES,
                                  log=bench.directory / "worker.log")  # fmt: skip
    stack.callback(stop_process, worker)
    portal = Portal(server.url, signed_in_cookie(server.url))
    business.setup_django(settings)
    client = AssuranceClient(bench.sandbox.url)
    credentials = BearerToken(client.login(DEMO_USER, DEMO_PASSWORD).token)
    choice = grower_choice(client.authorisation(credentials))
    grower_token, quiet, watched = _tokens()
    port = servers.free_port()
    secrets = _endpoints(watched[1], f"http://127.0.0.1:{port}")
    receiver = start_receiver(stack, port, secrets)
    return Started(portal, grower_token, quiet[0], watched[0], watched[1], receiver, secrets,
                   choice, bench.database)  # fmt: skip


def _tokens() -> tuple[str, tuple[str, int], tuple[str, int]]:
    """grower's token (every scope), and a token of each of two new intake sites with their
    ids: one that will have endpoints, one that will not."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from portal.api import tokens
    from portal.api.models import Scope
    from tests.portal.intake.builders import a_site

    expires = timezone.now() + timedelta(days=30)
    grower = get_user_model().objects.get(username=DEMO_USER)
    _, grower_token = tokens.make(grower, name="bench", scopes=Scope.values, expires=expires)
    made = []
    for code in ("bench-quiet", "bench-watched"):
        site = a_site(code=code, name=f"Bench mill {code}")
        _, secret = tokens.make(site, name="bench", scopes=[Scope.INTAKE_READ, Scope.INTAKE_WRITE],
                                expires=expires, made_by="bench")  # fmt: skip
        made.append((secret, site.pk))
    return grower_token, made[0], made[1]


def _endpoints(site_id: int, url: str) -> dict[str, str]:
    """ENDPOINTS endpoints of the site that want RECORDED_EVENT, each a path of `url` (the
    receiver's); their secrets by path."""
    from django.contrib.auth import get_user_model

    from portal.outbox import endpoints

    grower = get_user_model().objects.get(username=DEMO_USER)
    secrets = {}
    for n in range(1, ENDPOINTS + 1):
        path = f"/endpoint-{n}"
        _, secrets[path] = endpoints.register(endpoints.Owner(site_id=site_id), url + path,
                                              [RECORDED_EVENT], "bench", grower)  # fmt: skip
    return secrets


# --- the measures --------------------------------------------------------------------------------


@dataclass
class Found:
    loads: list[tuple[Load, Load]] = field(default_factory=list)  # (the API, the page)
    sizes: dict[str, int] = field(default_factory=dict)  # bytes an answer, by path
    by_form: list[float] = field(default_factory=list)
    by_api: list[float] = field(default_factory=list)
    quiet: list[float] = field(default_factory=list)
    watched: list[float] = field(default_factory=list)
    outbox: list[float] = field(default_factory=list)
    loop: list[float] = field(default_factory=list)
    made: str = ""  # a short code the API made (measure_making)


def measure_the_list(started: Started, found: Found) -> None:
    """wrk on the API's list and on the list page, in turn, the order swapped every round."""
    business.fill(started.database, LIST_SIZE)
    portal, api_headers = started.portal, bearer(started.grower_token)
    found.sizes[LIST_PAGE] = portal.page(LIST_PAGE, LIST_COUNT)
    found.sizes[API_LIST] = _api_list_size(started)
    for _ in range(business.WARMUP):  # untimed, one at a time: the workers warm
        portal.page(LIST_PAGE, LIST_COUNT)
        _api_list_size(started)
    header_lines = [f"{name}: {value}" for name, value in api_headers.items()]
    for n in range(1, LOAD_ROUNDS + 1):
        measured = {}
        for path in [API_LIST, LIST_PAGE] if n % 2 else [LIST_PAGE, API_LIST]:
            api = path == API_LIST
            measured[path] = wrk(portal.url + path, "" if api else portal.headers["Cookie"],
                                 f"{n}: {'API' if api else 'page'} {path}", CONNECTIONS,
                                 LOAD_SECONDS, found.sizes[path],
                                 headers=header_lines if api else ())  # fmt: skip
        found.loads.append((measured[API_LIST], measured[LIST_PAGE]))


def _api_list_size(started: Started) -> int:
    answer = started.portal.http.get(started.portal.url + API_LIST,
                                     headers=bearer(started.grower_token),
                                     timeout=REQUEST_TIMEOUT)  # fmt: skip
    if answer.status_code != 200 or len(answer.json().get("items", [])) != PAGE:
        raise RuntimeError(f"{API_LIST} answered {answer.status_code}: {answer.text[:600]}")
    return len(answer.content)


def measure_making(started: Started, found: Found) -> str:
    """The create form and the API's POST, in turn; a short code the API made."""
    today = date.today()
    form_data, fields = started.choice.form_data(today), api_fields(started.choice, today)
    made = ""

    def by_form(blank: dict[str, str]) -> float:
        return started.portal.create({**blank, **form_data})[0]

    def by_api(_: object) -> float:
        nonlocal made
        taken, answer = posted(started, "/api/v1/passports", started.grower_token, fields)
        if answer.status_code != 201 or not answer.json().get("short_code"):
            raise RuntimeError(f"POST /api/v1/passports answered {answer.status_code}: "
                               f"{answer.text[:600]}")  # fmt: skip
        made = answer.json()["short_code"]
        return taken

    # What each needs before it, untimed: the form its one-time key (a GET of the form); fetched
    # before the wait, so that neither POST follows a request just answered.
    ready = {"form": started.portal.blank_form, "api": lambda: None}
    steps = {"form": by_form, "api": by_api}
    for n in range(WARMUP + CREATE_ROUNDS):
        taken = {}
        for name in steps if n % 2 == 0 else reversed(steps):
            needed = ready[name]()
            business._until_idle()  # the PDF the step before started cancelled, the worker idle
            taken[name] = steps[name](needed)
        if n >= WARMUP:
            found.by_form.append(taken["form"])
            found.by_api.append(taken["api"])
    business._until_idle()
    return made


def measure_recording(started: Started, found: Found, short_code: str) -> None:
    """A load recorded at the site with no endpoint and at the one with ENDPOINTS, in turn,
    each round once the receiver has had the deliveries of the round before."""
    from tests.portal.intake.builders import upload_row

    delivered = started.receiver.verified.value
    tokens = {"quiet": started.quiet_token, "watched": started.watched_token}
    for n in range(WARMUP + RECORD_ROUNDS):
        started.receiver.until(delivered)
        taken = {}
        for name in tokens if n % 2 == 0 else reversed(tokens):
            row = upload_row(short_code, ticket=f"{name}-{n}")
            taken[name], answer = posted(started, "/api/v1/intake/loads", tokens[name], row)
            if answer.status_code != 201 or answer.json().get("status") != "recorded":
                raise RuntimeError(f"Recording a load answered {answer.status_code}: "
                                   f"{answer.text[:600]}")  # fmt: skip
        delivered += ENDPOINTS
        if n >= WARMUP:
            found.quiet.append(taken["quiet"])
            found.watched.append(taken["watched"])
    started.receiver.until(delivered)


def measure_delivering(started: Started, found: Found) -> None:
    """EVENTS events to the ENDPOINTS endpoints through the outbox, and the same POSTs by a bare
    loop, in turn."""
    for n in range(DELIVERY_ROUNDS):
        steps = [lambda: found.outbox.append(through_the_outbox(started)),
                 lambda: found.loop.append(by_a_bare_loop(started))]  # fmt: skip
        for step in steps if n % 2 == 0 else reversed(steps):
            step()


def _event_data(n: int) -> dict[str, object]:
    """A load's event's data, as portal.intake emits it (thin: ids, a status, an address)."""
    return {"load": {"id": n, "site": "bench-watched", "ticket": f"bench-{n}",
                     "passport": "7KXM4QHT2W"}, "entry": {"id": n, "kind": "recorded"},
            "status": "claim", "url": f"http://127.0.0.1/api/v1/intake/loads/{n}"}  # fmt: skip


def through_the_outbox(started: Started) -> float:
    """EVENTS emitted in one transaction (untimed): ms from its commit, which sends their
    deliveries to the worker, until the receiver has verified them all; then every delivery
    checked to have ended delivered (untimed)."""
    from django.db import transaction

    from portal.outbox import events
    from portal.outbox.models import Delivery

    receiver = started.receiver
    expected = receiver.verified.value + EVENTS * ENDPOINTS
    with transaction.atomic():
        for n in range(EVENTS):
            events.emit(RECORDED_EVENT, _event_data(n), site_id=started.watched_site)
        begun = time.perf_counter()
    receiver.until(expected)
    taken = (time.perf_counter() - begun) * 1000
    deadline = time.monotonic() + 60
    while Delivery.objects.exclude(state=Delivery.State.DELIVERED).exists():
        if time.monotonic() > deadline:
            raise RuntimeError("Deliveries not marked delivered a minute after they arrived")
        time.sleep(0.2)
    return taken


def by_a_bare_loop(started: Started) -> float:
    """The same POSTs (EVENTS bodies of the same shape, each to the ENDPOINTS paths, signed
    with their secrets by the `standardwebhooks` package), from SENDERS threads: ms
    until every one has answered 2xx."""
    from standardwebhooks import Webhook

    signers = {path: Webhook(secret) for path, secret in started.secrets.items()}
    bodies = [json.dumps({"type": RECORDED_EVENT, "timestamp": datetime.now(UTC).isoformat(),
                          "data": _event_data(n)}, separators=(",", ":"))
              for n in range(EVENTS)]  # fmt: skip
    url = started.receiver.url

    def post_all(share: list[tuple[str, str]]) -> None:
        session = loopback_session()
        for path, body in share:
            webhook_id, now = f"msg_{uuid.uuid4().hex}", datetime.now(UTC)
            headers = {"webhook-id": webhook_id, "webhook-timestamp": str(int(now.timestamp())),
                       "webhook-signature": signers[path].sign(webhook_id, now, body),
                       "Content-Type": "application/json"}  # fmt: skip
            answer = session.post(url + path, data=body.encode(), headers=headers,
                                  timeout=REQUEST_TIMEOUT)  # fmt: skip
            if not answer.ok:
                raise RuntimeError(f"The receiver answered {answer.status_code}")

    posts = [(path, body) for body in bodies for path in signers]
    shares = [posts[k::SENDERS] for k in range(SENDERS)]
    begun = time.perf_counter()
    with ThreadPoolExecutor(SENDERS) as pool:
        list(pool.map(post_all, shares))
    return (time.perf_counter() - begun) * 1000


# --- the report ----------------------------------------------------------------------------------


PARTS = ("list", "making", "recording", "delivering")


def main(argv: list[str] | None = None) -> None:
    parts = _parts(sys.argv[1:] if argv is None else argv)
    begun = time.monotonic()
    heading("bench.api: the API's list and making, and webhooks from the outbox")
    found, took = Found(), {}
    with ExitStack() as stack:
        started = timed(took, "start", lambda: start(stack))
        if "list" in parts:
            timed(took, "list", lambda: measure_the_list(started, found))
        if "making" in parts:
            found.made = timed(took, "making", lambda: measure_making(started, found))
        if "recording" in parts:
            short_code = found.made or made_untimed(started)
            timed(took, "recording", lambda: measure_recording(started, found, short_code))
        if "delivering" in parts:
            timed(took, "delivering", lambda: measure_delivering(started, found))
    report(found)
    print(f"Machine after: {machine_load()}")
    spent = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in took.items())
    print(f"bench.api took {time.monotonic() - begun:.0f} s ({spent}).")


def _parts(names: list[str]) -> list[str]:
    """The parts named (all of them when none is), in PARTS' order; SystemExit for another."""
    unknown = [name for name in names if name not in PARTS]
    if unknown:
        sys.exit(f"No such part of bench.api: {', '.join(unknown)} (there are {', '.join(PARTS)})")
    return [part for part in PARTS if part in names or not names]


def made_untimed(started: Started) -> str:
    """A passport made through the API, for the loads recorded when making is not measured."""
    _, answer = posted(started, "/api/v1/passports", started.grower_token,
                       api_fields(started.choice, date.today()))  # fmt: skip
    if answer.status_code != 201:
        raise RuntimeError(f"POST /api/v1/passports answered {answer.status_code}: "
                           f"{answer.text[:600]}")  # fmt: skip
    business._until_idle()
    return answer.json()["short_code"]


def timed[T](took: dict[str, float], name: str, step: Callable[[], T]) -> T:
    """What `step` gives; the seconds it took into `took` under `name`."""
    begun = time.monotonic()
    try:
        return step()
    finally:
        took[name] = time.monotonic() - begun


def report(found: Found) -> list[Target]:
    """The figures of the parts measured, and their targets."""
    targets = []
    if found.loads:
        targets.append(report_the_list(found))
    if found.by_api:
        targets.append(report_making(found))
    if found.watched:
        targets.append(report_recording(found))
    if found.outbox:
        targets.append(report_delivering(found))
    print_targets(targets)
    return targets


def report_the_list(found: Found) -> Target:
    print(f"\nThe list with {LIST_SIZE:,} passports, {PAGE} a page: wrk at {CONNECTIONS} "
          f"connections for {LOAD_SECONDS} s each, {LOAD_ROUNDS} rounds in turn "
          f"({found.sizes[API_LIST]:,} and {found.sizes[LIST_PAGE]:,} bytes an "
          "answer).")  # fmt: skip
    print_loads([load for pair in found.loads for load in pair])
    list_ratios = Ratios([api.throughput / page.throughput for api, page in found.loads])
    print(f"Ratios of the API's throughput to the page's: {list_ratios}.")
    return AtLeast("API list / list page, throughput (median of rounds)", list_ratios.median,
                   LIST_RATIO, "x")  # fmt: skip


def report_making(found: Found) -> Target:
    print(f"\nA passport made, {CREATE_ROUNDS} rounds after {WARMUP} untimed, in turn:")
    print_timings(
        [
            ("create form: POST to its 303", Timing(tuple(found.by_form))),
            ("API: POST /api/v1/passports to its 201", Timing(tuple(found.by_api))),
        ]
    )
    create_ratios = Ratios.of(found.by_api, found.by_form)
    print(f"Ratios of the API's to the form's: {create_ratios}.")
    return Target("API POST / create form, time (median of rounds)", create_ratios.median,
                  CREATE_RATIO, "x", inclusive=True)  # fmt: skip


def report_recording(found: Found) -> Target:
    print(f"\nA load recorded through the API, {RECORD_ROUNDS} rounds after {WARMUP} untimed, "
          f"in turn:")  # fmt: skip
    print_timings([(f"site with {ENDPOINTS} endpoints", Timing(tuple(found.watched))),
                   ("site with none", Timing(tuple(found.quiet)))])  # fmt: skip
    record_ratios = Ratios.of(found.watched, found.quiet)
    print(f"Ratios of with {ENDPOINTS} endpoints to with none: {record_ratios}.")
    return Target(f"load recorded with {ENDPOINTS} endpoints / with none (median)",
                  record_ratios.median, RECORD_RATIO, "x", inclusive=True)  # fmt: skip


def report_delivering(found: Found) -> Target:
    deliveries = EVENTS * ENDPOINTS
    print(f"\n{EVENTS:,} events to {ENDPOINTS} endpoints ({deliveries:,} POSTs), "
          f"{DELIVERY_ROUNDS} rounds in turn, {SENDERS} at once ({WORKER_PROCESSES} worker "
          f"processes x {SENDS_AT_ONCE}):")  # fmt: skip
    print_timings(
        [
            ("outbox: commit to every delivery verified", Timing(tuple(found.outbox))),
            ("bare loop of the same signed POSTs", Timing(tuple(found.loop))),
        ]
    )
    delivery_ratios = Ratios.of(found.loop, found.outbox)
    print(f"Ratios of the loop's time to the outbox's (its speed relative): {delivery_ratios}.\n")
    return AtLeast("outbox's speed / bare loop's (median of rounds)", delivery_ratios.median,
                   DELIVERY_RATIO, "x")  # fmt: skip


if __name__ == "__main__":
    main()
