"""Browser tests: Debian's Chromium, headless, driven by pytest-playwright against the portal
on pytest-django's live server, with the portal's client pointed at the live sandbox.

Every page a test opens is watched for Content-Security-Policy violations (console messages
and `securitypolicyviolation` events): a test that met one fails. `assert_accessible(page)`
runs axe-core in the page and fails on any serious or critical violation; `lighthouse(url, ...)`
gives the median of Lighthouse's scores over three runs with its mobile settings, `PHONE`
is a 360-pixel phone's context, and `qr_code_read(svg)` reads a QR code as a phone would.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import pytest
import zxingcpp
from django.db import connection
from PIL import Image
from playwright.sync_api import (
    Browser,
    BrowserContext,
    BrowserType,
    ConsoleMessage,
    Locator,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from portal.assurance.client import AssuranceClient
from portal.jobs.models import Job
from tests.jobs import run

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = "/usr/bin/chromium"

GROWER = ("grower", "grower-demo-pass")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives a real browser (Chromium) against the live portal"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)


# --- the browser ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Debian's Chromium, never a downloaded one."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ],
    }


# pytest-playwright starts Playwright for the whole session, and its sync API leaves an event
# loop registered in the main thread for as long as it runs: every later test of the session
# would then meet Django's SynchronousOnlyOperation on its first query. So Playwright and the
# browser here live for this package only, and stop once its last test is done.


@pytest.fixture(scope="package")
def playwright(_pw_api_request_contexts) -> Iterator[Playwright]:
    driver = sync_playwright().start()
    if _pw_api_request_contexts:
        _pw_api_request_contexts.instrument(driver)
    yield driver
    driver.stop()


@pytest.fixture(scope="package")
def browser_context_args(
    pytestconfig: pytest.Config, playwright: Playwright, device, base_url, _pw_artifacts_folder
) -> dict:
    """pytest-playwright's, for this package's Playwright (--device, --base-url, --video)."""
    options: dict = {}
    if device:
        options.update(playwright.devices[device])
    if base_url:
        options["base_url"] = base_url
    if pytestconfig.getoption("--video") in ("on", "retain-on-failure"):
        options["record_video_dir"] = _pw_artifacts_folder.name
    return options


@pytest.fixture(scope="package")
def browser_type(playwright: Playwright, browser_name: str) -> BrowserType:
    return getattr(playwright, browser_name)


@pytest.fixture(scope="package")
def launch_browser(
    browser_type_launch_args: dict, browser_type: BrowserType
) -> Callable[..., Browser]:
    def launch(**options: object) -> Browser:
        return browser_type.launch(**{**browser_type_launch_args, **options})

    return launch


@pytest.fixture(scope="package")
def browser(launch_browser: Callable[..., Browser]) -> Iterator[Browser]:
    chromium = launch_browser()
    yield chromium
    chromium.close()


@pytest.fixture(scope="session", autouse=True)
def _database_before_browser(django_db_setup, live_server) -> None:
    """The test database and the live server, made before Playwright starts its event loop in
    this thread (Django refuses database work where an event loop runs)."""


@contextmanager
def _django_allows_sync_calls_beside_playwright() -> Iterator[None]:
    """Playwright's sync API keeps an event loop in the test's thread, and Django refuses
    database work (the flush after each test, a test's own queries) where one runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _django_allows_sync_calls_beside_playwright():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    with _django_allows_sync_calls_beside_playwright():
        return (yield)


# --- Content-Security-Policy watch ----------------------------------------------------------------

_REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolation({
    directive: event.violatedDirective,
    blocked: event.blockedURI,
    source: event.sourceFile,
    line: event.lineNumber,
    sample: event.sample,
    page: document.location.href,
  });
});
"""


@dataclass
class CspWatch:
    """CSP violations and console errors of every page of the contexts it watches."""

    violations: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def watch(self, context: BrowserContext) -> BrowserContext:
        context.expose_binding(
            "__cspViolation", lambda source, report: self.violations.append(json.dumps(report))
        )
        context.add_init_script(_REPORT_VIOLATIONS)
        context.on("console", self._on_console)
        context.on("page", lambda page: page.on("pageerror", self._on_error))
        for page in context.pages:
            page.on("pageerror", self._on_error)
        return context

    def _on_console(self, message: ConsoleMessage) -> None:
        text = f"[{message.type}] {message.text} ({message.location.get('url', '')})"
        self.console.append(text)
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.violations.append(text)

    def _on_error(self, error: Exception) -> None:
        self.console.append(f"[pageerror] {error}")

    def assert_clean(self) -> None:
        assert not self.violations, "Content-Security-Policy violations:\n" + "\n".join(
            self.violations
        )


@pytest.fixture(autouse=True)
def csp() -> CspWatch:
    return CspWatch()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A test that passed still fails if any page it opened violated the CSP."""
    with _django_allows_sync_calls_beside_playwright():
        result = yield
    watch = getattr(item, "funcargs", {}).get("csp")
    if isinstance(watch, CspWatch):
        watch.assert_clean()
    return result


@pytest.fixture
def context(new_context: Callable[..., BrowserContext], csp: CspWatch) -> BrowserContext:
    """pytest-playwright's context, watched for CSP violations."""
    return csp.watch(new_context())


@pytest.fixture
def watched_context(
    new_context: Callable[..., BrowserContext], csp: CspWatch
) -> Callable[..., BrowserContext]:
    """A factory of further contexts (`java_script_enabled=False`, a viewport...), watched."""

    def make(**options: object) -> BrowserContext:
        return csp.watch(new_context(**options))

    return make


# --- the portal -----------------------------------------------------------------------------------


@pytest.fixture
def portal_url(live_server, upstream_sandbox) -> str:
    """The live portal's address (no trailing slash), its client pointed at the sandbox."""
    return live_server.url.rstrip("/")


@pytest.fixture
def upstream_tokens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every token the upstream hands the portal from now on (its client's `login` wrapped)."""
    tokens: list[str] = []
    login = AssuranceClient.login

    def recording_login(self: AssuranceClient, username: str, password: str, **kwargs):
        authorization = login(self, username, password, **kwargs)
        tokens.append(authorization.token)
        return authorization

    monkeypatch.setattr(AssuranceClient, "login", recording_login)
    return tokens


def sign_in(page: Page, portal_url: str, username: str, password: str, next_path: str = "") -> None:
    """Opens the sign-in page and submits the form (no assertion on the outcome)."""
    query = f"?{urlencode({'next': next_path})}" if next_path else ""
    page.goto(f"{portal_url}/accounts/sign-in/{query}")
    submit_sign_in(page, username, password)


def submit_sign_in(page: Page, username: str, password: str) -> None:
    """Fills in the sign-in form and submits it; returns once the answer's page has come."""
    page.get_by_label("Username or e-mail address").fill(username)
    page.get_by_label("Password").fill(password)
    with page.expect_navigation():  # the answer may look like the page it replaces
        page.get_by_role("button", name="Sign in").click()


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("You have signed out.")).to_be_visible()


def memberships_loaded(page: Page) -> None:
    """Waits for htmx to fill in the home page's memberships panel."""
    expect(page.locator("#memberships .membership")).to_have_count(2)


@pytest.fixture
def signed_in_page(page: Page, portal_url: str) -> Page:
    """A page signed in as the grower, on the home page with its memberships panel filled in."""
    sign_in(page, portal_url, *GROWER)
    expect(page).to_have_url(f"{portal_url}/")
    memberships_loaded(page)
    return page


# --- accessibility --------------------------------------------------------------------------------


def _axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(
            f"axe-core is missing ({AXE.relative_to(ROOT)}): run make test, which installs it.",
            pytrace=False,
        )
    return AXE.read_text(encoding="utf-8")


def axe(page: Page) -> list[dict]:
    """axe-core's violations on the page as it is now.

    axe-core is evaluated through the DevTools protocol rather than added as a script tag:
    the pages' CSP forbids inline scripts, rightly. Not in a context with JavaScript off,
    where page.evaluate waits for ever.
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_source() + "\n;undefined")
    return page.evaluate(
        """async () => {
            const results = await axe.run(document, {resultTypes: ["violations"]});
            return results.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
                targets: v.nodes.map((n) => n.target.join(" ")),
            }));
        }"""
    )


def assert_accessible(page: Page) -> None:
    """Fails listing every serious or critical axe-core violation on the page."""
    serious = [v for v in axe(page) if v["impact"] in ("serious", "critical")]
    assert not serious, f"axe-core violations on {page.url}:\n" + "\n".join(
        f"- {v['id']} ({v['impact']}): {v['help']} at {', '.join(v['targets'])}" for v in serious
    )


# --- a camera that sees QR codes -----------------------------------------------------------------

# A camera and a QR reader for a page that scans passports' QR codes (the gate check, the
# clerks' Record a load, the offline checker): the reader "sees" each address of
# `window.__qrCodes` in turn, one a frame.
CAMERA_AND_QR_READER = """
window.__qrCodes = [];
window.BarcodeDetector = class {
  static async getSupportedFormats() { return ["qr_code"]; }
  async detect() {
    const next = window.__qrCodes.shift();
    return next ? [{ rawValue: next }] : [];
  }
};
navigator.mediaDevices.enumerateDevices = async () => [
  { kind: "videoinput", deviceId: "back", groupId: "phone", label: "" },
];
navigator.mediaDevices.getUserMedia = async () => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 8;
  canvas.getContext("2d").fillRect(0, 0, 8, 8);
  return canvas.captureStream();
};
"""


# --- a phone, and Lighthouse ----------------------------------------------------------------------

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def qr_code_read(svg: Locator) -> str:
    """The text of the QR code drawn by the `svg`, drawn again at 3 pixels a module (the
    smallest a print of it keeps) and read by zxing-cpp, as a phone's camera would."""
    expect(svg).to_be_visible()
    modules = int(svg.get_attribute("viewBox").split()[2])
    assert modules <= 77  # version 13 at most, with its margin of 4 on each side
    svg.evaluate("(svg, width) => { svg.style.width = svg.style.maxWidth = `${width}px`; }",
                 modules * 3)  # fmt: skip
    image = Image.open(io.BytesIO(svg.screenshot()))
    # QR codes only: zxing-cpp otherwise now and then also finds a symbol of another kind.
    [found] = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    return found.text


LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
RUNS = 3
TRIES = 3  # a run Lighthouse asks to be run again


def lighthouse(url: str, tmp_path: Path, *options: str) -> dict[str, float]:
    """Lighthouse's scores (0-100) of `url` with its default mobile settings, in Debian's
    Chromium, with any further `options` of Lighthouse's own (`--extra-headers=...`): of each
    category the median of RUNS runs, as Lighthouse's guide to its variability advises, since
    the performance score moves with the machine's load. The last run's report is left at
    `tmp_path / "lighthouse.json"`."""
    if not LIGHTHOUSE.is_file():
        pytest.fail(
            "lighthouse is missing (node_modules): run make test, which installs it.", pytrace=False
        )
    runs = [one_lighthouse_run(url, tmp_path / "lighthouse.json", options) for _ in range(RUNS)]
    return {name: statistics.median(run[name] for run in runs) for name in CATEGORIES}


def one_lighthouse_run(url: str, report: Path, options: tuple[str, ...]) -> dict[str, float]:
    flags = "--no-sandbox --headless --disable-gpu --disable-background-networking "
    flags += "--disable-component-update --no-first-run --disable-dev-shm-usage"
    command = [
        str(LIGHTHOUSE),
        url,
        "--output=json",
        f"--output-path={report}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={flags}",
        "--quiet",
        *options,
    ]
    environment = {**os.environ, "CHROME_PATH": CHROMIUM}
    for _ in range(TRIES):
        run = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=180)
        # Now and then the trace of the load comes without its start (NO_NAVSTART), and
        # Lighthouse asks to be run again; nothing was measured.
        if run.returncode == 0 or "Please run Lighthouse again" not in run.stderr:
            break
    assert run.returncode == 0, f"lighthouse failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    categories = json.loads(report.read_text())["categories"]
    return {name: round(categories[name]["score"] * 100) for name in CATEGORIES}


@pytest.fixture
def worker() -> Iterator[None]:
    """Every job queued while the test runs is run in a thread, as a worker would run it."""
    stop = threading.Event()

    def work() -> None:
        try:
            while not stop.is_set():
                for pk in Job.objects.filter(state=Job.State.QUEUED).values_list("pk", flat=True):
                    run(pk)
                stop.wait(0.1)
        finally:
            connection.close()  # the thread's own

    thread = threading.Thread(target=work, name="jobs", daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(30)
