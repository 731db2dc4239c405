"""The staff dashboard after real use, in Chromium: people sign in (one with a wrong password
first), someone meets a lockout, the grower reads the schemes twice, makes a passport and
downloads its PDF, makes a batch and exports passports, a haulier looks passports up until the
limit of their address, and the Assurance service stops and comes back. The dashboard then shows
exactly that use: its verdicts (red while the service is stopped, and its errors listed), the
service's calls by operation, the use figures, who signed in, the jobs, the charts with their
numbers; axe-core on it. Staff then end the grower's sessions from the grower's line, and the
grower's browsers are sent to sign in.

All of it real and in other processes but the portal (pytest-django's live server): a sandbox
of the test's own (the shared one must not stop under other tests), stopped and started again
on its port with its database kept; a Redis of the test's own as the portal's cache and
broker; a real Celery worker (tests/workers.py) that runs the jobs and writes
its heartbeat; the test database on PostgreSQL.

The figures expected are counted from what the test did and saw, never read from the portal:
each sign-in answered, each page that failed during the outage. The service's calls are
counted from the sandbox's own access log (a request it answered is a call the portal made),
with the calls the portal failed while it was stopped.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import BrowserContext, Download, Page, Request, Response, expect

from portal.accounts.refusals import LOCKED_TO_NEW, UNAVAILABLE
from portal.assurance import service
from portal.lib.env import database_label
from scripts import servers
from tests.e2e.conftest import GROWER, assert_accessible, memberships_loaded
from tests.e2e.test_passport_list import a_batch_of_five
from tests.e2e.test_passports import lands_on_the_passport
from tests.services import PrivateRedis, wait_for
from tests.workers import ON_A_WORKER, Worker, started, worker_environment

pytestmark = [pytest.mark.browser, *ON_A_WORKER]

PARTNER = ("partner", "partner-demo-pass")
BATCH = 3
# How long the portal remembers that the service could not be reached (every call fails at
# once meanwhile): short, so that the test does not wait long on it once the service is back.
OUTAGE_MEMORY_SECONDS = 2
BACK_SECONDS = 30  # for the dashboard, then sign-in, to find the service answering again


# --- the service, the cache, the worker -----------------------------------------------------------

ACCESS_LOG = "--access-logformat 'sandbox-call %(m)s %(U)s %(s)s %({accept}i)s'"
CALL = re.compile(r"^sandbox-call (?P<method>\S+) (?P<path>\S+) (?P<status>\d+) (?P<accept>.*)$")


@dataclass
class OwnSandbox:
    """A sandbox of the test's own on a port that stays its own: stopped and started again
    there, its database kept. Each run logs every request it answers (`sandbox-call ...`)."""

    folder: Path
    port: int = field(default_factory=servers.free_port)
    process: object | None = None
    logs: list[Path] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://{servers.LOOPBACK}:{self.port}"

    def start(self) -> None:
        run = self.folder / f"run-{len(self.logs) + 1}"
        run.mkdir()
        server = servers.start_sandbox(
            run, self.port, SANDBOX_DATABASE_URL=f"sqlite:///{self.folder / 'sandbox.sqlite3'}",
            SANDBOX_ACCESS_LOG="true", GUNICORN_CMD_ARGS=ACCESS_LOG,
        )  # fmt: skip
        self.process = server.process
        self.logs.append(server.log)

    def stop(self) -> None:
        servers.stop(self.process)

    def calls(self) -> Counter[str]:
        """The portal's calls that the service answered, by operation (the interface's
        endpoints, as the portal's client names them), from its access logs."""
        calls: Counter[str] = Counter()
        for log in self.logs:
            for line in log.read_text().splitlines():
                if (found := CALL.match(line)) and (operation := _operation(**found.groupdict())):
                    calls[operation] += 1
        return calls


def _operation(method: str, path: str, status: str, accept: str) -> str | None:
    """The client's name of the call the service answered; None for what is no call of the
    portal's client: the start-up check of the sandbox, and the health check of the dashboard
    (a GET of the schemes without credentials, answered 401)."""
    pdf = accept == "application/pdf"
    if not path.startswith("/v1/") or (path == "/v1/standards.eb" and status == "401"):
        return None
    if (method, path) == ("POST", "/v1/authentication/login.eb"):
        return "login"
    if (method, path) == ("GET", "/v1/authorisation.eb"):
        return "authorisation"
    if (method, path) == ("POST", "/v1/passports.eb"):
        return "create_passport_pdf" if pdf else "create_passport"
    if method == "GET" and re.fullmatch(r"/v1/passports/[^/]+\.eb", path):
        return "passport_pdf" if pdf else "passport"
    if method == "GET" and path in ("/v1/standards.eb", "/v1/standards/preview/.eb"):
        return "schemes"
    if method == "GET" and (found := re.fullmatch(r"/v1/standards/(preview/)?[^/]+(/[^/]+)?\.eb",
                                                  path)):  # fmt: skip
        return "section_data" if found[2] else "sections"
    raise AssertionError(f"a call this test does not expect: {method} {path} ({status})")


@pytest.fixture
def own_sandbox(tmp_path: Path) -> Iterator[OwnSandbox]:
    sandbox = OwnSandbox(tmp_path / "sandbox")
    sandbox.folder.mkdir()
    sandbox.start()
    yield sandbox
    sandbox.stop()


@pytest.fixture
def portal(live_server, own_sandbox: OwnSandbox, redis_server: PrivateRedis, settings) -> str:
    """The live portal's address, its client pointed at the test's sandbox, its cache the
    test's Redis under the key prefix the worker's settings give it (the worker's heartbeat is
    read from there)."""
    settings.ASSURANCE_BASE_URL = own_sandbox.url
    settings.ASSURANCE_LOOKUP_USERNAME = "haulier"
    settings.ASSURANCE_LOOKUP_PASSWORD = "haulier-demo-pass"
    settings.ASSURANCE_OUTAGE_SECONDS = OUTAGE_MEMORY_SECONDS
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": redis_server.url,
            "OPTIONS": {"COMPRESSOR": "django_redis.compressors.lz4.Lz4Compressor"},
            "KEY_PREFIX": f"portal.{database_label(settings.DATABASES['default'])}",
        }
    }
    service.client.cache_clear()
    yield live_server.url.rstrip("/")
    service.client.cache_clear()


@pytest.fixture
def worker(portal, redis_server, own_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    """A real Celery worker (in place of tests/e2e/conftest.py's thread), on the test's sandbox,
    Redis and database: its heartbeat is the dashboard's "Workers", its calls are counted too."""
    environment = worker_environment(
        redis_server, own_sandbox, job_files,
        ASSURANCE_OUTAGE_SECONDS=str(OUTAGE_MEMORY_SECONDS),
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


# --- what people do -------------------------------------------------------------------------------


def answer_to_sign_in(page: Page, username: str, password: str) -> int:
    """The sign-in form (on the page already) filled in and sent; the answer's status, once
    its page has come."""
    page.get_by_label("Username or e-mail address").fill(username)
    page.get_by_label("Password").fill(password)
    with (
        page.expect_response(lambda r: r.request.method == "POST") as answer,
        page.expect_navigation(),
    ):
        page.get_by_role("button", name="Sign in").click()
    return answer.value.status


def signed_in(context: BrowserContext, portal: str, username: str, password: str) -> Page:
    page = context.new_page()
    page.goto(f"{portal}/accounts/sign-in/")
    assert answer_to_sign_in(page, username, password) == 302
    expect(page).to_have_url(f"{portal}/")
    return page


def a_passport(page: Page, portal: str) -> str:
    """One passport made with the create form; its short code."""
    page.goto(f"{portal}/passports/new")
    page.get_by_role("radio", name=re.compile(r"^\s*Hollowfield Farms Ltd\b")).check()
    page.get_by_role("radio", name=re.compile(r"^\s*Hollowfield Farm\b")).check()
    page.get_by_label("Crop type").fill("Wheat")
    page.get_by_role("button", name="Create passport").click()
    return lands_on_the_passport(page, portal)


def its_pdf_downloaded(page: Page) -> None:
    """From the passport's page, once the worker has fetched the PDF."""
    link = page.locator("#passport-pdf").get_by_role("link", name="Download the PDF")
    expect(link).to_be_visible(timeout=30_000)
    with page.expect_download() as download:
        link.click()
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF")


def an_export(page: Page, portal: str, codes: list[str]) -> None:
    """The passports of `codes` ticked in the list and exported as a ZIP, made by the worker."""
    page.goto(f"{portal}/passports/")
    for code in codes:
        page.get_by_role("checkbox", name=f"Tick passport {code}").check()
    page.get_by_role("button", name="Export ticked as ZIP").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{len(codes)} passports as a ZIP")
    link = page.get_by_role("link", name=re.compile(r"Download passports-.*\.zip"))
    expect(link).to_be_visible(timeout=30_000)


# --- what the dashboard shows ---------------------------------------------------------------------

READ_DASHBOARD = """() => {
  const text = (node) => node ? node.textContent.replace(/\\s+/g, " ").trim() : null;
  const section = (heading) => [...document.querySelectorAll("section")]
    .find((s) => text(s.querySelector("h2")) === heading);
  const rows = (table) => table ? [...table.querySelectorAll("tbody tr")]
    .map((tr) => [...tr.children].map(text)) : null;
  const captioned = (caption) => [...document.querySelectorAll("table")]
    .find((t) => text(t.caption) === caption);
  const now = {};
  for (const item of section("Now").querySelectorAll("li")) {
    now[text(item.querySelector(".verdict-subject"))] = {
      ok: item.classList.contains("verdict-ok"),
      figure: text(item.querySelector(".verdict-figure")).replace(/^[✓✗]\\s*/, ""),
      words: text(item.querySelector(".verdict-words")),
    };
  }
  const use = {};
  for (const term of section("Use in the last day").querySelectorAll("dt")) {
    use[text(term)] = text(term.nextElementSibling);
  }
  const people = section("Who signed in in the last day");
  const jobs = section("Jobs in the last day").querySelector("table");
  return {
    now, use,
    hour: rows(captioned("Calls in the last hour")),
    day: rows(captioned("Calls in the last day")),
    lastErrors: [...section("The Assurance service").querySelectorAll("h3 + ul li")].map(text),
    people: people ? rows(people.querySelector("table")) : null,
    jobsHead: jobs ? [...jobs.querySelectorAll("thead th")].map(text) : null,
    jobs: rows(jobs),
    charts: Object.fromEntries([...section("Trends").querySelectorAll("figure")].map((f) => [
      text(f.querySelector("svg title")),
      {role: f.querySelector("svg").getAttribute("role"),
       numbers: rows(f.querySelector("details table"))},
    ])),
  };
}"""


def dashboard(page: Page, portal: str) -> dict:
    """The dashboard opened, as it reads: each part as text, tables as rows of cells."""
    page.goto(f"{portal}/staff/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Staff dashboard")
    return page.evaluate(READ_DASHBOARD)


def until_the_service_is(page: Page, portal: str, figure: str) -> dict:
    """The dashboard, opened again until the service's verdict is `figure` (its check of the
    service is kept for a few seconds); as it is then."""
    shown: list[dict] = []

    def says_it() -> bool:
        shown.append(dashboard(page, portal))
        return shown[-1]["now"]["The Assurance service"]["figure"] == figure

    wait_for(says_it, f"the dashboard to say the service is {figure}", BACK_SECONDS)
    return shown[-1]


def percent(part: int, whole: int) -> str:
    return f"{part / whole:.1%}"


def calls_table(calls: Counter[str], errors: Counter[str]) -> dict[str, list[str]]:
    """Each operation's calls and errors as the service's tables show them."""
    return {
        operation: [str(count), f"{errors[operation]} ({percent(errors[operation], count)})"]
        for operation, count in (calls + errors).items()
    }


TIME_BAND = re.compile(r"^(under|over) [\d,]+ ms$")


def shown_calls(rows: list[list[str]]) -> dict[str, list[str]]:
    """A table of the service's calls by operation, each row checked to give its median and
    95th percentile (as the band of time they fall in)."""
    for operation, _calls, _errors, median, p95 in rows:
        assert TIME_BAND.match(median) and TIME_BAND.match(p95), (operation, median, p95)
    return {operation: [calls, errors] for operation, calls, errors, _, _ in rows}


ERROR_LINE = re.compile(r"^\d{1,2} \w{3}, \d\d:\d\d:\d\d: (?P<what>.+)$")


def shown_errors(lines: list[str]) -> list[str]:
    """The last errors as listed, their times checked and left out."""
    found = [ERROR_LINE.match(line) for line in lines]
    assert all(found), lines
    return [match["what"] for match in found if match]


def service_verdict(failed: int, calls: int) -> dict:
    return {
        "ok": failed / calls < 0.05,  # the dashboard's warning: 5 % of the calls failed
        "figure": percent(failed, calls),
        "words": f"{failed} of {calls} calls in the last hour failed.",
    }


# --- the test -------------------------------------------------------------------------------------


@dataclass
class Browsers:
    """The test's browser contexts (CSP-watched), and every answer of the portal they had: the
    requests the portal counts for its error rate are those but for its static files'."""

    make: Callable[..., BrowserContext]
    answers: list[Response] = field(default_factory=list)
    downloads: list[Download] = field(default_factory=list)  # answers kept as files
    sent: list[Request] = field(default_factory=list)

    def new(self) -> BrowserContext:
        context = self.make()
        context.on("response", lambda answer: self.answers.append(answer))
        context.on("request", lambda request: self.sent.append(request))
        context.on(
            "page", lambda page: page.on("download", lambda file: self.downloads.append(file))
        )
        return context

    def requests(self) -> int:
        pages = [r for r in self.answers if not urlsplit(r.url).path.startswith("/static/")]
        return len(pages) + len(self.downloads)

    def requests_sent(self) -> int:
        """At most what the portal may have counted: also a request the browser gave up when
        it left the page (a poll under way), which the portal may still have answered."""
        pages = [r for r in self.sent if not urlsplit(r.url).path.startswith("/static/")]
        return len(pages) + len(self.downloads)


def test_the_dashboard_shows_the_use_made_and_the_outage_met(
    watched_context: Callable[..., BrowserContext],
    portal: str,
    own_sandbox: OwnSandbox,
    worker,
    settings,
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    call_command("grant_staff", "partner", "--superuser", stdout=StringIO())
    browsers = Browsers(watched_context)
    signed_in_now: set[BrowserContext] = set()
    sign_ins: Counter[str] = Counter()
    failed_sign_ins = lockouts_met = 0

    # The grower signs in and reads the schemes twice (the second time from the cache), makes
    # a passport and downloads its PDF, makes a batch, and exports two passports.
    grower_browser = browsers.new()
    grower = signed_in(grower_browser, portal, *GROWER)
    sign_ins["grower"] += 1
    signed_in_now.add(grower_browser)
    for _ in range(2):
        assert grower.goto(f"{portal}/standards/").status == 200
    code = a_passport(grower, portal)
    its_pdf_downloaded(grower)
    batch = a_batch_of_five(grower, portal, loads=BATCH)
    an_export(grower, portal, [code, batch[0]])

    # A haulier, with no account, looks the passport up, and then another: one too many.
    haulier = browsers.new().new_page()
    look_ups = look_ups_limited = 0
    for looked_up in [code, *batch]:
        status = haulier.goto(f"{portal}/p/{looked_up}").status
        if status == 429:
            look_ups_limited += 1
            break
        assert status == 200
        expect(haulier).to_have_title(f"Valid: {looked_up} · Assurance portal")
        look_ups += 1
    assert look_ups_limited == 1, "a look-up past the address's allowance of one a minute"

    # Partner, who is staff, gets the password wrong once, then signs in.
    staff_browser = browsers.new()
    staff = staff_browser.new_page()
    staff.goto(f"{portal}/accounts/sign-in/?next=/staff/")
    assert answer_to_sign_in(staff, "partner", "not-the-password") == 400
    failed_sign_ins += 1
    assert answer_to_sign_in(staff, *PARTNER) == 302
    sign_ins["partner"] += 1
    signed_in_now.add(staff_browser)
    expect(staff.get_by_role("heading", level=1)).to_have_text("Staff dashboard")

    # Someone tries passwords for lapsed until the portal locks them out.
    stranger = browsers.new().new_page()
    stranger.goto(f"{portal}/accounts/sign-in/")
    answers: list[int] = []
    while not answers or answers[-1] == 400:
        answers.append(answer_to_sign_in(stranger, "lapsed", f"guess-{len(answers)}"))
        assert len(answers) <= 10, answers
    assert answers[-1] == 429 and len(answers) > 1, answers
    expect(stranger.locator(".error-summary")).to_have_text(LOCKED_TO_NEW)
    failed_sign_ins += answers.count(400)
    lockouts_met += answers.count(429)

    # The service stops. The grower, signing in elsewhere, is told it cannot be reached, twice;
    # their memberships' page fails. The staff see the service not answering, and the errors.
    own_sandbox.stop()
    answered_before = own_sandbox.calls()
    failed: list[str] = []  # the operations the portal could not make, in order
    elsewhere_browser = browsers.new()
    elsewhere = elsewhere_browser.new_page()
    elsewhere.goto(f"{portal}/accounts/sign-in/")
    for _ in range(2):
        assert answer_to_sign_in(elsewhere, *GROWER) == 503
        expect(elsewhere.locator(".error-summary")).to_have_text(UNAVAILABLE)
        failed.append("login")
    assert grower.goto(f"{portal}/memberships/").status == 503
    failed.append("authorisation")

    down = until_the_service_is(staff, portal, "Not answering")
    assert down["now"]["The Assurance service"]["ok"] is False
    assert down["now"]["The Assurance service"]["words"].startswith("Not answering since ")
    so_far = answered_before.total() + len(failed)
    assert down["now"]["Errors calling the service"] == service_verdict(len(failed), so_far)
    assert shown_errors(down["lastErrors"]) == [f"{o}, Unavailable" for o in reversed(failed)]
    assert shown_calls(down["hour"]) == calls_table(answered_before, Counter(failed))
    assert_accessible(staff)

    # The service is back: the staff see it answer, and the grower signs in (the portal
    # fails at once while it remembers the outage: each such try is one more failed call).
    own_sandbox.start()
    until_the_service_is(staff, portal, "Answering")
    deadline = time.monotonic() + BACK_SECONDS
    while (status := answer_to_sign_in(elsewhere, *GROWER)) == 503:
        failed.append("login")
        assert time.monotonic() < deadline, "sign-in still fails with the service back"
        time.sleep(0.5)
    assert status == 302
    memberships_loaded(elsewhere)
    sign_ins["grower"] += 1
    signed_in_now.add(elsewhere_browser)

    # The dashboard shows all of it.
    answered, sent = browsers.requests(), browsers.requests_sent()
    board = dashboard(staff, portal)
    errors, calls = Counter(failed), own_sandbox.calls()
    assert calls["create_passport"] == 1 + BATCH  # one at a time, and the batch's
    total = calls.total() + errors.total()
    assert board["now"] == {
        "The Assurance service": {
            "ok": True, "figure": "Answering", "words": "It answers the portal now.",
        },
        "Workers": board["now"]["Workers"] | {"ok": True, "figure": "Alive"},
        "Jobs waiting": {"ok": True, "figure": "None", "words": "No job is waiting to start."},
        "The periodic sweep": board["now"]["The periodic sweep"]
        | {"ok": False, "figure": "Not run yet"},  # no beat here: tests/portal/jobs/test_beat.py
        "Lockouts in force": board["now"]["Lockouts in force"]
        | {"ok": False, "figure": str(lockouts_met)},
        "The portal's errors": board["now"]["The portal's errors"] | {"ok": True, "figure": "0.0%"},
        "Errors calling the service": service_verdict(errors.total(), total),
    }  # fmt: skip
    own_errors = board["now"]["The portal's errors"]["words"]
    counted = re.match(r"0 of (\d+) requests in the last hour failed", own_errors)
    assert counted and answered <= int(counted[1]) <= sent, (own_errors, answered, sent)
    assert shown_calls(board["hour"]) == calls_table(calls, errors)
    assert shown_calls(board["day"]) == calls_table(calls, errors)
    assert shown_errors(board["lastErrors"]) == [f"{o}, Unavailable" for o in reversed(failed)][:10]
    # The first reading of the schemes asked the service, the second found all in the cache.
    standards_pages, from_the_cache = 2, 1
    made_one_at_a_time, made_in_batches, pdfs_downloaded, exports = 1, len(batch), 1, 1
    assert board["use"] == {
        "Sign-ins": str(sign_ins.total()),
        "Failed sign-ins": str(failed_sign_ins),
        "Lockouts met": str(lockouts_met),
        "Look-ups": str(look_ups),
        "Intake checks": "0",
        "Look-ups limited (refused by the limit of their address)": str(look_ups_limited),
        "Passports made one at a time": str(made_one_at_a_time),
        "Passports made in batches": str(made_in_batches),
        "PDFs downloaded": str(pdfs_downloaded),
        "Mails sent": "0",
        "Exports": str(exports),
        f"Standards cache hit rate ({from_the_cache} of {standards_pages} pages from the cache)":
            percent(from_the_cache, standards_pages),
        "Active sessions (now)": str(len(signed_in_now)),
    }  # fmt: skip
    # Each job ended done; none waits, runs or failed.
    kind, *states = board["jobsHead"]
    assert kind == "Kind" and len(states) == 4 and {"Running", "Failed", "Done"} < set(states)
    assert {row[0]: dict(zip(states, row[1:], strict=True)) for row in board["jobs"]} == {
        kind: {state: "1" if state == "Done" else "0" for state in states}
        for kind in ("passport-batch", "passport-export", "passport-pdf")
    }
    # The people who signed in, the latest first, each with a button to end their sessions.
    assert [[who, count, button] for who, count, _last, button in board["people"]] == [
        ["grower", str(sign_ins["grower"]), "End all sessions"],
        ["partner (staff)", str(sign_ins["partner"]), "End all sessions"],
    ]

    charts = board["charts"]
    assert list(charts) == [
        "Passports made a day", "Calls to the service by hour",
        "Time the slowest calls took, by hour", "Errors by hour",
    ]  # fmt: skip
    for name, chart in charts.items():
        assert chart["role"] == "img"
        expect(staff.get_by_role("img", name=name)).to_be_visible()
    today = f"{timezone.localdate():%d %b}"
    made = charts["Passports made a day"]["numbers"]
    assert len(made) == 30
    assert made == [*([label, "0"] for label, _ in made[:-1]),
                    [today, str(made_one_at_a_time + made_in_batches)]]  # fmt: skip
    by_hour = {name: [int(value) for _, value in charts[name]["numbers"]]
               for name in list(charts)[1:]}  # fmt: skip
    for name, values in by_hour.items():
        assert len(values) == 48 and not any(values[:-2]), (name, values)  # this hour, the last
    calls_by_hour = by_hour["Calls to the service by hour"]
    assert sum(calls_by_hour) == total
    assert sum(by_hour["Errors by hour"]) == errors.total()
    slowest = by_hour["Time the slowest calls took, by hour"]
    assert [bool(value) for value in slowest] == [bool(value) for value in calls_by_hour]
    staff.locator("summary", has_text="The numbers").first.click()
    expect(staff.locator(".chart-numbers").first).to_be_visible()
    assert_accessible(staff)

    # Staff end the grower's sessions from the grower's line: both of the grower's browsers
    # are sent to sign in on their next request.
    staff.get_by_role("button", name="End all sessions of grower").click()
    expect(staff.get_by_text("Every session of grower is ended")).to_be_visible()
    for page in (grower, elsewhere):
        page.goto(f"{portal}/passports/")
        expect(page).to_have_url(re.compile(r"/accounts/sign-in/\?next="))
    assert dashboard(staff, portal)["use"]["Active sessions (now)"] == str(len(signed_in_now) - 2)
