"""Creating passports through the portal, one or a batch; the time until a page offers a PDF;
an export of 100.

    python -m bench passports

Starts, on loopback only, a sandbox of its own with its demo data and `generate_large_data`'s
100 passports of "Benchmark Farms Ltd" (grower is its contact), the portal under gunicorn as
`make run` starts it (2 workers x 4 threads) and a Celery worker as `make run` starts it (two
processes), with a database of its own on PostgreSQL (production's, where a batch's every
passport commits; as bench.common.databases makes it, SQLite if none answers), the jobs' files
in a temporary directory and Redis database 13 on 127.0.0.1:6379 as the cache and the jobs'
broker. It signs in as grower through
the sign-in form and then, round after round, one after another so that each sees the same
machine:

- the service's create call alone (the client's `create_passport` with a bearer token, in this
  process), and the portal's create form submitted with the same fields: the form fetched
  (untimed) for its one-time `submission` key, then its POST timed until its answer, the 303 to
  the new passport's page. Target: the portal adds at most 30 ms to the call's median.
- for that new passport: from the POST's answer, its page (as a browser follows the redirect),
  then its PDF's state fragment (`pdf/state`, as htmx asks it) every 20 ms until it answers 286
  with the download link; against the service's PDF call alone (the client's `passport_pdf`
  for the same short code). Target: at most one second added to the call's median.

Then, for the business's passports (bench/business.py):

- (`python -m bench batches`, a benchmark of its own on the same start, so that each stays
  within the time `make bench` gives one) a batch of 50 made with the create form (from its
  POST until its job ended, as the job's row says), against what a grower would otherwise do,
  the same 50 made one by one through the create form as a browser makes them (the form
  fetched, sent, and the new passport's page its answer leads to, 50 times), and against 50 of
  the service's create calls one after another through the client; the three in turn (the
  order swapped every round; after each step, the PDFs a new passport starts cancelled if they
  have not ended and the worker left idle, untimed), 15 rounds (three gave 1.42 and 1.64 in
  two runs of the same code). The batch records each passport before it asks for the next, so
  that a batch cut short leaves at most one unknown: it cannot be faster than the calls alone.
  Targets (issue 37): the median of the rounds' ratios at most 1.0 to the 50 through the form,
  and at most 1.6 to the create calls (1.55 in issue 37).
- the 100 passports of the sandbox recorded in the portal (as "added by code" records,
  fetched through the client), then an export of them as a ZIP (from its POST until its job
  ended; the job removed after it), against the same 100 PDFs fetched from the sandbox through
  the client at the same concurrency (PORTAL_JOB_CALLS_AT_ONCE, 4, each thread asking for the
  next as soon as it is free), the same 100 passports in each of four rounds (a PDF takes the
  sandbox one to three renders, so other passports would be other work), which goes first
  taking turns. Target: the median of the rounds' ratios at most 1.2 (issue 26: from 0.54 to
  1.55 run to run, when each round took other passports; 100 rather than 200 since issue 37,
  for the benchmark's time).

The business's list with ten times the passports, and an export's memory with 500 passports
against with 50, are `bench business`'s.

The first answers are checked: the 303 to the passport's page, the state's link to a PDF. The
page itself asks for the state less often than the benchmark does (its interval is printed):
a visitor sees the link up to one interval after the figure measured here. Every export's ZIP
is opened and must hold every PDF asked for.
"""

from __future__ import annotations

import os
import re
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, date, datetime
from datetime import time as day_time
from functools import partial
from html import unescape
from pathlib import Path
from tempfile import TemporaryDirectory

import redis

from bench import business
from bench.common import (
    BENCH_POINTS,
    DEMO_PASSWORD,
    DEMO_USER,
    REQUEST_TIMEOUT,
    SignedIn,
    Target,
    Timing,
    csrf_token,
    databases,
    heading,
    machine_load,
    print_targets,
    print_timings,
    require_wrk_and_redis,
    signed_in_cookie,
    start_sandbox,
    stop_process,
    time_calls,
)
from portal.assurance import records
from portal.assurance.client import AssuranceClient, BearerToken
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/13"
ROUNDS, WARMUP = 20, 2
POLL_SECONDS = 0.02  # how often the benchmark asks for the PDF's state
PDF_WAIT_SECONDS = 60  # for one PDF, the worker's start included
CREATE_EXTRA_MS, PDF_EXTRA_MS = 30.0, 1000.0
DONE = 286  # htmx's "stop polling": the job has ended
FORM_PATH = "/passports/new"

# The load on every passport, in the form's fields (the record's attribute names).
LOAD = {
    "crop_type": "Wheat",
    "variety": "Extase",
    "store_or_bin_name": "Bay 3",
    "haulier_company_name": "Stour Valley Haulage",
    "vehicle_registration": "AE24 KTV",
    "trailer_number": "T12",
    "haulier_collection_ticket_no": "SVH-40117",
    "post_harvest_treatment_option": "A",
    "don_risk_assessment_result": "12",
}

_SUBMISSION = re.compile(r'<input\b[^>]*name="submission"[^>]*>')
_VALUE = re.compile(r'value="([^"]*)"')
_CODE_PAGE = re.compile(r"^/passports/([^/]+)/$")
_DOWNLOAD = re.compile(r'<a\b[^>]*href="([^"]+)"[^>]*>\s*Download the PDF')
_POLL_EVERY = re.compile(r'hx-trigger="[^"]*every (\d+(?:\.\d+)?)(m?s)')


@dataclass(frozen=True)
class Choice:
    """The membership, site and store every passport of the benchmark is made for."""

    membership_guid: str
    site_guid: str
    store_guid: str

    def form_data(self, today: date) -> dict[str, str]:
        return {
            "membership": self.membership_guid, "site": self.site_guid, "store": self.store_guid,
            "loading_date": today.isoformat(), "harvest_year": str(today.year), **LOAD,
            "step": "create",
        }  # fmt: skip

    def request(self, today: date) -> records.PassportRequest:
        numbers = {"don_risk_assessment_result": float(LOAD["don_risk_assessment_result"])}
        return records.PassportRequest(
            membership_guid=self.membership_guid, site_guid=self.site_guid,
            store_guid=self.store_guid,
            loading_date=datetime.combine(today, day_time(0), tzinfo=UTC),
            harvest_year=str(today.year), **{**LOAD, **numbers},
        )  # fmt: skip


def grower_choice(authorisation: records.Authorisation) -> Choice:
    """The grower's first valid membership with a site that has a store."""
    for membership in authorisation.memberships:
        if membership.status != "Valid":
            continue
        for site in membership.sites:
            if site.stores:
                return Choice(membership.membership_guid, site.site_guid, site.stores[0].store_guid)
    raise RuntimeError("The grower has no valid membership with a site that has a store")


# --- the portal, as a browser uses it -------------------------------------------------------------


class Portal(SignedIn):
    """The portal's create form and a passport's page, with the grower's session."""

    def blank_form(self) -> dict[str, str]:
        """A new form's CSRF token and one-time submission key."""
        form = self.get(FORM_PATH)
        token, field = csrf_token(form.text), _SUBMISSION.search(form.text)
        key = _VALUE.search(field[0]) if field else None
        if form.status_code != 200 or not token or not key:
            raise RuntimeError(f"{FORM_PATH} answered {form.status_code} without a form")
        return {"csrfmiddlewaretoken": token, "submission": unescape(key[1])}

    def create(self, data: dict[str, str]) -> tuple[float, str]:
        """POSTs the form: the time to its answer (ms), and the passport page's path."""
        started = time.perf_counter()
        answer = self.http.post(self.url + FORM_PATH, data=data, headers=self.headers,
                                allow_redirects=False, timeout=REQUEST_TIMEOUT)  # fmt: skip
        taken = (time.perf_counter() - started) * 1000
        location = answer.headers.get("Location", "")
        if answer.status_code != 303 or not _CODE_PAGE.match(location):
            raise RuntimeError(f"Creating answered {answer.status_code} ({location or 'nowhere'})"
                               f", not 303 to a passport's page: {answer.text[:600]}")  # fmt: skip
        return taken, location

    def until_pdf_offered(self, page_path: str) -> tuple[float, str]:
        """From now: the passport's page, then its PDF's state until it offers the download.
        The time (ms) and the download link's path."""
        started = time.perf_counter()
        page = self.get(page_path)
        if page.status_code != 200:
            raise RuntimeError(f"{page_path} answered {page.status_code}")
        deadline = started + PDF_WAIT_SECONDS
        while time.perf_counter() < deadline:
            state = self.get(f"{page_path}pdf/state", **{"HX-Request": "true"})
            if state.status_code == DONE:
                taken = (time.perf_counter() - started) * 1000
                link = _DOWNLOAD.search(state.text)
                if not link:
                    raise RuntimeError(f"The PDF's state ended without the PDF: {state.text[:600]}")
                return taken, unescape(link[1])
            if state.status_code != 200:
                raise RuntimeError(f"The PDF's state answered {state.status_code}")
            time.sleep(POLL_SECONDS)
        raise RuntimeError(f"{page_path}: no PDF offered in {PDF_WAIT_SECONDS} s")

    def poll_interval(self, page_path: str) -> str:
        """How often the passport's page asks for its PDF's state (from a page still waiting:
        the first of a new passport)."""
        found = _POLL_EVERY.search(self.get(page_path).text)
        return f"every {found[1]} {found[2]}" if found else "(no polling found on the page)"


def checked_pdf(portal: Portal, link: str) -> int:
    answer = portal.get(link)
    if answer.status_code != 200 or not answer.content.startswith(b"%PDF"):
        raise RuntimeError(f"The download link {link} answered {answer.status_code}, not a PDF")
    return len(answer.content)


# --- the benchmark --------------------------------------------------------------------------------


@dataclass
class Figures:
    portal_create: list[float]
    create_alone: list[float]
    pdf_offered: list[float]
    pdf_alone: list[float]
    poll_interval: str = ""
    pdf_bytes: int = 0


def measure(portal: Portal, client: AssuranceClient, credentials: BearerToken,
            choice: Choice) -> Figures:  # fmt: skip
    today = date.today()
    figures = Figures([], [], [], [])
    for n in range(WARMUP + ROUNDS):
        alone = time_calls(lambda: client.create_passport(credentials, choice.request(today)), 1)
        form = {**portal.blank_form(), **choice.form_data(today)}
        created, page_path = portal.create(form)
        if n == 0:
            figures.poll_interval = portal.poll_interval(page_path)
        offered, link = portal.until_pdf_offered(page_path)
        if n == 0:
            figures.pdf_bytes = checked_pdf(portal, link)
        code = _CODE_PAGE.match(page_path)[1]
        pdf_alone = time_calls(partial(client.passport_pdf, credentials, code), 1)
        if n >= WARMUP:
            figures.create_alone += alone.samples
            figures.portal_create.append(created)
            figures.pdf_offered.append(offered)
            figures.pdf_alone += pdf_alone.samples
    return figures


def main() -> None:
    measured(batches=False)


def measured(*, batches: bool) -> None:
    """Starts the sandbox, the portal and its worker, and measures: the business's batches
    (bench/batches.py), or the rest."""
    heading("bench.batches: a batch of passports against the same made one by one" if batches
            else "bench.passports: creating passports, their PDFs, and an export")  # fmt: skip
    require_wrk_and_redis(REDIS_URL)
    cache = redis.Redis.from_url(REDIS_URL)
    cache.flushdb()  # the benchmark's own database: nothing queued or kept from an earlier run
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-passports-")))
        stack.callback(cache.flushdb)
        (directory / "sandbox").mkdir()
        sandbox = start_sandbox(directory / "sandbox", points=BENCH_POINTS,
                                passports=business.PASSPORTS)  # fmt: skip
        stack.callback(stop_process, sandbox.process)
        kind, urls = stack.enter_context(databases("passports", ["portal"], directory))
        print(f"The portal's database: {kind}.")
        database = urls["portal"]
        settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": REDIS_URL,
                    "PORTAL_JOB_FILES_DIR": str(directory / "jobs"), "DATABASE_URL": database,
                    "PORTAL_LOG_LEVEL": "WARNING"}  # fmt: skip
        portal_server = servers.start_portal(directory, **settings)
        stack.callback(portal_server.stop)
        worker_env = {**os.environ, "PORTAL_DEVELOPMENT": "true", **settings}
        worker = servers.start_worker(worker_env, log=directory / "worker.log")
        stack.callback(stop_process, worker)

        client = AssuranceClient(sandbox.url)
        credentials = BearerToken(client.login(DEMO_USER, DEMO_PASSWORD).token)
        choice = grower_choice(client.authorisation(credentials))
        cookie = signed_in_cookie(portal_server.url)
        portal = Portal(portal_server.url, cookie)
        bench = business.Bench(portal.url, cookie, portal, client, credentials, sandbox,
                               directory, worker_env, stack)  # fmt: skip
        try:
            figures = None if batches else measure(portal, client, credentials, choice)
            business.setup_django(settings)
            found = (business.measure_batches(bench, choice) if batches
                     else business.measure_exports(bench))  # fmt: skip
        except RuntimeError:
            log = directory / "worker.log"
            print(f"The worker's log:\n{log.read_text()[-4000:]}", file=sys.stderr)
            raise
    if figures is None:
        business.report_batches(found)
    else:
        report(figures)
        business.report_exports(found)


def report(figures: Figures) -> None:
    create, create_alone = Timing(tuple(figures.portal_create)), Timing(tuple(figures.create_alone))
    offered, pdf_alone = Timing(tuple(figures.pdf_offered)), Timing(tuple(figures.pdf_alone))
    print(f"\nSequential, {ROUNDS} rounds after {WARMUP} untimed, each round in turn: the "
          f"service's create call alone, the portal's create form, the new passport's PDF "
          f"offered on its page, the service's PDF call alone.")  # fmt: skip
    print_timings([
        ("portal: create form POST to its 303", create),
        ("service's create call alone", create_alone),
        ("portal: 303 to the PDF offered", offered),
        ("service's PDF call alone", pdf_alone),
    ])  # fmt: skip
    print(f"\nThe PDF: {figures.pdf_bytes} bytes. The state asked every "
          f"{POLL_SECONDS * 1000:.0f} ms here; the passport's page asks "
          f"{figures.poll_interval}.")  # fmt: skip
    print(f"Ratios of medians: create {create.median / create_alone.median:.2f}x the call, "
          f"PDF offered {offered.median / pdf_alone.median:.2f}x the call.\n")  # fmt: skip
    print_targets([
        Target("create form - service's create call, median", create.median - create_alone.median,
               CREATE_EXTRA_MS, inclusive=True),
        Target("PDF offered - service's PDF call, median", offered.median - pdf_alone.median,
               PDF_EXTRA_MS, inclusive=True),
    ])  # fmt: skip


if __name__ == "__main__":
    main()
