"""The pictures of the docs' "Using the portal" pages, taken as each person uses the portal: a
grower, a haulier on a phone, an intake clerk, staff. Each test walks its person's pages in
Chromium, checks what they see, and photographs each page.

In the suite the pictures go to a temporary folder, so a run leaves the work tree as it was;
with PORTAL_SCREENSHOTS set (`make screenshots`: docs/images) they are written there, to be
committed. The docs show exactly the pictures these tests take: one more on either side fails."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from playwright.sync_api import Browser, BrowserContext, Page, expect

from portal.accounts.session import portal_user
from portal.intake import loads, uploads
from portal.passports.models import Passport
from tests.conftest import ROOT
from tests.e2e.conftest import (
    GROWER,
    PHONE,
    CspWatch,
    memberships_loaded,
    qr_code_read,
    sign_in,
)
from tests.jobs import run_queued
from tests.portal.accounts.helpers import signed_in
from tests.portal.intake.builders import a_load, a_site, figures, queried, tickets_file, upload_row
from tests.portal.passports.made import made_with_the_form
from tests.portal.standards.helpers import STORAGE

pytestmark = pytest.mark.browser

CLERK = ("intake", "intake-demo-pass")
STAFF = ("partner", "partner-demo-pass")
DESK = {"width": 1200, "height": 820}

# Every picture, by the person whose page of the docs shows it.
PICTURES = {
    "growers": {"grower-home", "grower-section", "grower-create", "grower-passport",
                "grower-passports"},
    "hauliers": {"haulier-lookup", "haulier-signed-code", "haulier-checker"},
    "clerks": {"clerk-gate-check", "clerk-site", "clerk-record", "clerk-load", "clerk-upload"},
    "staff": {"staff-dashboard", "staff-audit"},
}  # fmt: skip


def _folder(tmp_path: Path) -> Path:
    chosen = os.environ.get("PORTAL_SCREENSHOTS", "").strip()
    if not chosen:
        return tmp_path
    folder = Path(chosen) if Path(chosen).is_absolute() else ROOT / chosen
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def camera(tmp_path: Path) -> Iterator[Callable[[Page, str], None]]:
    """`camera(page, name)` photographs the page as it is now, as `name`.png; at the end, every
    picture of the person's page of the docs must have been taken."""
    folder, taken = _folder(tmp_path), set()

    def shoot(page: Page, name: str) -> None:
        page.wait_for_load_state("networkidle")
        path = folder / f"{name}.png"
        page.screenshot(path=path, animations="disabled", caret="hide")
        assert path.stat().st_size > 5_000, f"{name}: an empty picture"
        taken.add(name)

    yield shoot
    person = next(person for person, names in PICTURES.items() if taken <= names)
    assert taken == PICTURES[person]


@pytest.fixture
def desk(browser: Browser, csp: CspWatch) -> Iterator[Page]:
    context = csp.watch(browser.new_context(viewport=DESK))
    yield context.new_page()
    context.close()


@pytest.fixture
def phone(browser: Browser, csp: CspWatch) -> Iterator[Page]:
    context: BrowserContext = csp.watch(browser.new_context(**PHONE))
    yield context.new_page()
    context.close()


def heading(page: Page, text: str | re.Pattern) -> None:
    expect(page.get_by_role("heading", level=1)).to_have_text(text)


def a_load_corrected_and_queried(site_code: str | None = None):
    """A passport the grower made, with a load recorded at the demo clerk's site, corrected and
    queried by the grower: what every person's pages show."""
    code = made_with_the_form(signed_in("grower"), crop_type="Wheat", variety="Skyfall")
    site = a_site(**({"code": site_code} if site_code else {}))
    site.clerks.add(portal_user(CLERK[0]))
    load = a_load(site, passport=Passport.objects.get(short_code=code))
    loads.correct(load, figures(gross_kg=44_020), by=CLERK[0], reason="The weighbridge's ticket")
    queried(load, "Our own test of the sample gave 77.1 kg/hl, above the specification.")
    return code, site, load


def test_a_grower_reads_the_standards_makes_a_passport_and_sees_its_load(
    desk: Page, portal_url: str, camera
):
    code, _, _ = a_load_corrected_and_queried()
    sign_in(desk, portal_url, *GROWER)
    memberships_loaded(desk)
    heading(desk, "Welcome, grower")
    camera(desk, "grower-home")

    desk.goto(f"{portal_url}{STORAGE}")
    expect(desk.locator(".point").first).to_be_visible()
    camera(desk, "grower-section")

    menu = desk.get_by_role("navigation", name="Main")
    menu.get_by_role("link", name="Create a passport").click()
    desk.get_by_role("radio", name=re.compile(r"^\s*Hollowfield Farms Ltd")).check()
    marsh_end = desk.get_by_role("radio", name=re.compile(r"^\s*Marsh End Barns"))
    marsh_end.check()
    expect(desk.get_by_label("Grain store")).to_be_visible()
    camera(desk, "grower-create")

    desk.goto(f"{portal_url}/passports/{code}/")
    heading(desk, "Crop passport")
    expect(desk.get_by_text("At intake").first).to_be_visible()
    camera(desk, "grower-passport")

    desk.goto(f"{portal_url}/passports/")
    heading(desk, "Your business's passports")
    expect(desk.locator("main")).to_contain_text(code[:5])
    camera(desk, "grower-passports")


def test_a_haulier_checks_a_passport_on_a_phone(phone: Page, desk: Page, portal_url: str, camera):
    code = made_with_the_form(signed_in("grower"), crop_type="Wheat", variety="Skyfall")
    phone.goto(f"{portal_url}/p/{code}")
    expect(phone.locator(".verdict-valid").first).to_be_visible()
    camera(phone, "haulier-lookup")

    sign_in(desk, portal_url, *GROWER)  # the grower's page, whose QR code the haulier scans
    desk.goto(f"{portal_url}/passports/{code}/")
    phone.goto(qr_code_read(desk.locator("figure.qr svg")))
    expect(phone.locator(".verdict-valid").first).to_contain_text("Genuine")
    camera(phone, "haulier-signed-code")

    phone.goto(f"{portal_url}/V/")
    heading(phone, "Check a passport's signed code")
    camera(phone, "haulier-checker")


def test_an_intake_clerk_checks_records_and_uploads_loads(desk: Page, portal_url: str, camera):
    code, site, load = a_load_corrected_and_queried()
    desk.goto(f"{portal_url}/p/check")
    desk.get_by_label("Short codes").fill(f"{code}\nABCDE-FGHJK\n7KXM4-QHT2W")
    desk.get_by_role("button", name="Check", exact=True).click()
    heading(desk, "Loads checked")
    camera(desk, "clerk-gate-check")

    sign_in(desk, portal_url, *CLERK)
    desk.goto(f"{portal_url}/intake/sites/{site.code}/")
    heading(desk, site.name)
    expect(desk.locator("main")).to_contain_text(load.ticket)
    camera(desk, "clerk-site")

    desk.goto(f"{portal_url}/intake/sites/{site.code}/record?code={code}")
    heading(desk, "Record a load")
    expect(desk.get_by_role("button", name="Record the load")).to_be_visible()
    camera(desk, "clerk-record")

    desk.goto(f"{portal_url}/intake/loads/{load.pk}/")
    heading(desk, f"Ticket {load.ticket}")
    camera(desk, "clerk-load")

    tickets = tickets_file([upload_row(code, "T-2"), upload_row(code, "T-3", moisture="300")])
    sent = signed_in(CLERK[0]).post(
        f"/intake/sites/{site.code}/upload",
        {"key": str(uuid.uuid4()), "file": SimpleUploadedFile("monday.csv", tickets)},
    )
    assert sent.status_code == 303
    job = run_queued(uploads.KIND)
    desk.goto(f"{portal_url}/jobs/{job.pk}/")
    expect(desk.locator("main")).to_contain_text("refused")
    camera(desk, "clerk-upload")


def test_staff_watch_the_dashboard_and_the_audit_trail(desk: Page, portal_url: str, camera):
    a_load_corrected_and_queried()
    call_command("grant_staff", STAFF[0], "--superuser", stdout=StringIO())
    sign_in(desk, portal_url, *STAFF)
    desk.goto(f"{portal_url}/staff/")
    heading(desk, "Staff dashboard")
    camera(desk, "staff-dashboard")

    desk.goto(f"{portal_url}/admin/audit/event/")
    expect(desk.locator("#result_list")).to_be_visible()
    camera(desk, "staff-audit")


def test_the_docs_show_exactly_the_pictures_taken():
    for person, names in PICTURES.items():
        page = (ROOT / "docs" / "using" / f"{person}.md").read_text(encoding="utf-8")
        shown = set(re.findall(r"\]\(\.\./images/([\w-]+)\.png\)", page))
        assert shown == names, person
