"""Creating a passport in Chromium: the grower follows "Create a passport", chooses membership,
site and store, creates it and downloads its PDF from the page once it is ready; the same
without JavaScript; the form for a user whose memberships are not valid now, and for one who is
a contact of none; and a form sent twice that makes one passport. axe-core on each form and page
(axe needs JavaScript: the page without it is checked as that page's HTML, shown with
JavaScript on).

The PDF's job runs in a thread of this process, as a worker would run it (tests/portal/jobs/
test_worker.py runs jobs on a real worker)."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable
from pathlib import Path

import pypdf
import pytest
from playwright.sync_api import BrowserContext, Page, Request, Route, expect

from portal.assurance.client import AssuranceClient, BearerToken
from portal.assurance.service import client
from portal.passports import codes
from portal.passports.models import Passport
from sandbox.ids import guid_for
from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll, sign_in

pytestmark = pytest.mark.browser

LAPSED = ("lapsed", "lapsed-demo-pass")
HAULIER = ("haulier", "haulier-demo-pass")
PASSPORT_PAGE = re.compile(r"/passports/([0-9A-Z]{4,6}-?[0-9A-Z]{4,6})/$")


# --- what the tests share -------------------------------------------------------------------------


@pytest.fixture
def slow_creation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service takes a moment to make a passport: long enough for a second click."""
    create_passport = AssuranceClient.create_passport

    def slowly(self: AssuranceClient, *args, **kwargs):
        time.sleep(0.6)
        return create_passport(self, *args, **kwargs)

    monkeypatch.setattr(AssuranceClient, "create_passport", slowly)


def open_the_form(page: Page, portal_url: str) -> None:
    """From the page of a signed-in user, through the navigation."""
    page.get_by_role("navigation", name="Main").get_by_role(
        "link", name="Create a passport"
    ).click()
    expect(page).to_have_url(f"{portal_url}/passports/new")


def radio(page: Page, starts_with: str):
    return page.get_by_role("radio", name=re.compile(rf"^\s*{re.escape(starts_with)}"))


def field(page: Page, name: str):
    """A field of the form by its name (the record's attribute's)."""
    return page.locator(f"#passport-form [name={name}]")


def lands_on_the_passport(page: Page, portal_url: str) -> str:
    """The short code of the passport whose page the browser is on, which the page shows
    (however it spaces or spells it out)."""
    expect(page).to_have_url(PASSPORT_PAGE)
    match = PASSPORT_PAGE.search(page.url)
    assert match is not None
    code = codes.normalise(match[1])
    assert code is not None
    shown = page.locator(".short-code").first
    expect(shown).to_be_visible()
    assert bare(code) in bare(shown.inner_text()), shown.inner_text()
    return code


def bare(code: str) -> str:
    return re.sub(r"[^0-9A-Z]", "", code.upper())


def sends_create(request: Request) -> bool:
    return request.method == "POST" and "step=create" in (request.post_data or "")


def passports_made() -> int:
    return Passport.objects.exclude(short_code=None).count()


def pdf_text(content: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(content))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def one_line(text: str) -> str:
    return " ".join(text.split())


def axe_without_javascript(page: Page, javascript_on: BrowserContext) -> None:
    """axe-core on the page as a browser without JavaScript has it: its HTML (what <noscript>
    holds shown) opened at its own address in a context with JavaScript on."""
    html = re.sub(r"</?noscript>", "", page.content())
    url = page.url

    def fulfil(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)

    same = javascript_on.new_page()
    same.route(url, fulfil)
    same.goto(url)
    assert_accessible(same)
    same.close()


# --- the grower -----------------------------------------------------------------------------------


def test_the_grower_creates_a_passport_and_downloads_its_pdf_once_ready(
    signed_in_page: Page, portal_url: str, worker
):
    page = signed_in_page
    open_the_form(page, portal_url)
    expect(page.locator("form#passport-form")).to_be_visible()
    assert_accessible(page)

    page.evaluate("() => { window.__samePage = 'still here'; }")
    radio(page, "Hollowfield Farms Ltd").check()
    marsh_end = radio(page, "Marsh End Barns")
    expect(marsh_end).to_be_visible()  # swapped in by htmx
    marsh_end.check()
    store = page.get_by_label("Grain store")
    expect(store).to_be_visible()
    store.select_option(label="Marsh End flat store")
    assert page.evaluate("() => window.__samePage") == "still here", "the page was reloaded"
    field(page, "crop_type").fill("Barley")
    field(page, "variety").fill("Laureate")
    field(page, "haulier_company_name").fill("Stour Valley Haulage")
    field(page, "vehicle_registration").fill("AE24 KTV")
    assert_accessible(page)
    page.get_by_role("button", name="Create passport").click()

    code = lands_on_the_passport(page, portal_url)
    made = Passport.objects.get(short_code__in=[code, bare(code)])
    assert made.store_guid == guid_for("store:flat-store")
    address = made.record["CollectionAddress"]
    assert "Marsh End Barns" in address
    assert address in one_line(page.locator("main").inner_text())

    page.evaluate("() => { window.__samePage = 'still here'; }")
    pdf_part = page.locator("#passport-pdf")
    link = pdf_part.get_by_role("link", name="Download the PDF")
    expect(link).to_be_visible(timeout=30_000)  # polled, no reload
    assert page.evaluate("() => window.__samePage") == "still here", "the page was reloaded"
    assert_accessible(page)
    with page.expect_download() as downloaded:
        link.click()
    content = Path(downloaded.value.path()).read_bytes()
    assert content.startswith(b"%PDF")
    text = pdf_text(content)
    hyphenated = f"{bare(code)[:5]}-{bare(code)[5:]}"
    assert hyphenated in text or bare(code) in text, text[:500]
    assert address in text, text[:1500]


def test_without_javascript_show_sites_brings_the_memberships_sites(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(java_script_enabled=False).new_page()
    sign_in(page, portal_url, *GROWER)
    page.goto(f"{portal_url}/passports/new")
    expect(radio(page, "Marsh End Barns")).to_have_count(0)
    radio(page, "Hollowfield Farms Ltd").check()
    page.get_by_role("button", name="Show sites").click()

    expect(radio(page, "Hollowfield Farms Ltd")).to_be_checked()
    expect(radio(page, "Marsh End Barns")).to_be_visible()
    expect(radio(page, "Hollowfield Farm ")).to_be_visible()
    axe_without_javascript(page, watched_context())
    radio(page, "Marsh End Barns").check()
    store = page.get_by_label("Grain store")
    if not store.is_visible():  # the site's stores come with "Show stores"
        page.get_by_role("button", name="Show stores").click()
        expect(radio(page, "Marsh End Barns")).to_be_checked()
    store.select_option(label="Marsh End flat store")
    field(page, "crop_type").fill("Wheat")
    page.get_by_role("button", name="Create passport").click()

    code = lands_on_the_passport(page, portal_url)
    made = Passport.objects.get(short_code__in=[code, bare(code)])
    assert (made.site_guid, made.store_guid) == (guid_for("site:marsh-end"),
                                                 guid_for("store:flat-store"))  # fmt: skip


# --- users who cannot create ----------------------------------------------------------------------


def test_memberships_not_valid_now_are_shown_with_why_and_cannot_be_chosen(
    page: Page, portal_url: str, upstream_sandbox
):
    sign_in(page, portal_url, *LAPSED)
    page.goto(f"{portal_url}/passports/new")
    form = page.locator("form#passport-form")
    suspended, expired = radio(page, "Coldharbour Farm"), radio(page, "Ridgeway Arable")
    expect(suspended).to_be_disabled()
    expect(expired).to_be_disabled()
    expect(form).to_contain_text("Suspended")
    ridgeway = next(
        m
        for m in client().authorisation(BearerToken(client().login(*LAPSED).token)).memberships
        if m.business_name == "Ridgeway Arable"
    )
    expiry = ridgeway.expiry_date
    expect(form).to_contain_text(f"expired on {expiry.day} {expiry:%B %Y}")
    expect(page.locator("button:enabled", has_text="Create passport")).to_have_count(0)
    assert_accessible(page)

    # Sent anyway, as if the radio were not disabled: no passport.
    sent = page.request.post(
        f"{portal_url}/passports/new",
        form={
            "csrfmiddlewaretoken": form.locator("[name=csrfmiddlewaretoken]").input_value(),
            "submission": form.locator("[name=submission]").input_value(),
            "membership": guid_for("membership:coldharbour"),
            "site": guid_for("site:coldharbour"),
            "step": "create",
        },
        max_redirects=0,
    )
    assert sent.status == 400
    assert passports_made() == 0


def test_a_user_who_is_no_memberships_contact_is_told_why_they_cannot_create(
    page: Page, portal_url: str
):
    sign_in(page, portal_url, *HAULIER)
    page.goto(f"{portal_url}/passports/new")
    expect(page.get_by_text("not a registered contact of any membership")).to_be_visible()
    expect(page.locator("form#passport-form")).to_have_count(0)
    assert_accessible(page)


# --- a form sent twice ----------------------------------------------------------------------------


def test_a_form_sent_twice_makes_one_passport(
    signed_in_page: Page, portal_url: str, upstream_sandbox, slow_creation
):
    page = signed_in_page
    open_the_form(page, portal_url)
    radio(page, "Wenham Grange Partnership").check()
    site = radio(page, "Wenham Grange Wenham Grange")
    expect(site).to_be_visible()
    site.check()
    expect(page.get_by_label("Grain store")).to_be_visible()
    field(page, "crop_type").fill("Oats")
    sent_form = page.evaluate(
        "() => Object.fromEntries(new FormData(document.getElementById('passport-form')))"
    )
    at_the_service = upstream_sandbox.count("sandbox_passport")
    creates: list[Request] = []
    page.on("request", lambda r: creates.append(r) if sends_create(r) else None)

    # Clicked, and clicked again while the service makes the passport.
    page.evaluate(
        """() => {
            const button = document.querySelector("#passport-form button[value=create]");
            button.click();
            setTimeout(() => button.click(), 150);
        }"""
    )
    # The second sending is answered at once: the first is still being made, and the page
    # says so, then looks again until it is.
    expect(page.get_by_role("heading", level=1)).to_have_text("Your passport is being made")
    expect(page).to_have_url(re.compile(r"/passports/new/[0-9a-f-]{36}/$"))
    assert_accessible(page)
    code = lands_on_the_passport(page, portal_url)
    assert len(creates) == 2, "the browser sent the form once"

    # And once more, as a browser asked to send it again does.
    again = page.request.post(
        f"{portal_url}/passports/new", form={**sent_form, "step": "create"}, max_redirects=0
    )
    assert again.status == 303
    assert PASSPORT_PAGE.search(again.headers["location"])[1] == PASSPORT_PAGE.search(page.url)[1]
    assert passports_made() == 1
    assert Passport.objects.get().short_code in (code, bare(code))
    assert upstream_sandbox.count("sandbox_passport") == at_the_service + 1


# --- in Welsh -------------------------------------------------------------------------------------


def test_a_welsh_speaker_switches_a_half_filled_form_to_cymraeg_and_makes_the_passport(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """On a 360-pixel phone: what was typed into the English form is still there once the
    switch has led to the Welsh one, which makes the passport in Welsh."""
    phone = watched_context(**PHONE).new_page()
    sign_in(phone, portal_url, *GROWER)
    phone.goto(f"{portal_url}/passports/new")
    field(phone, "crop_type").fill("Barley")
    field(phone, "variety").fill("Laureate")
    field(phone, "vehicle_registration").fill("AE24 KTV")

    phone.locator(".language-switch a[hreflang='cy']").click()
    expect(phone).to_have_url(f"{portal_url}/cy/passports/new")
    expect(phone.locator("html")).to_have_attribute("lang", "cy")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Creu pasbort cnwd")
    expect(field(phone, "crop_type")).to_have_value("Barley")
    expect(field(phone, "variety")).to_have_value("Laureate")
    expect(field(phone, "vehicle_registration")).to_have_value("AE24 KTV")
    no_sideways_scroll(phone)
    assert_accessible(phone)

    radio(phone, "Hollowfield Farms Ltd").check()
    marsh_end = radio(phone, "Marsh End Barns")
    expect(marsh_end).to_be_visible()  # swapped in by htmx, in Welsh
    marsh_end.check()
    store = phone.get_by_label("Storfa rawn")
    expect(store).to_be_visible()
    store.select_option(label="Marsh End flat store")
    field(phone, "harvest_year").fill("26")
    phone.get_by_role("button", name="Creu pasbort").click()
    expect(phone.get_by_role("alert").first).to_contain_text("Ni wnaed y pasbort.")
    expect(phone.locator("#id_harvest_year_error")).to_have_text(
        "Rhowch flwyddyn y cynhaeaf fel pedwar digid, er enghraifft 2026."
    )
    expect(field(phone, "crop_type")).to_have_value("Barley")
    assert_accessible(phone)
    field(phone, "harvest_year").fill("2026")
    phone.get_by_role("button", name="Creu pasbort").click()

    expect(phone).to_have_url(re.compile(r"/cy/passports/[0-9A-Z-]+/$"))
    expect(phone.get_by_role("heading", level=1)).to_have_text("Pasbort cnwd")
    expect(phone.get_by_role("heading", name="Manylion y llwyth")).to_be_visible()
    code = bare(phone.url.rstrip("/").rsplit("/", 1)[1])
    made = Passport.objects.get(short_code__in=[code, f"{code[:5]}-{code[5:]}"])
    record = made.crop_passport
    assert (record.crop_type, record.variety, record.vehicle_registration) == (
        "Barley", "Laureate", "AE24 KTV"
    )  # fmt: skip
    no_sideways_scroll(phone)
    assert_accessible(phone)


def test_the_switch_keeps_the_membership_site_and_store_that_htmx_brought_both_ways(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """On a 360-pixel phone: the membership, the site and the store chosen (each one's choices
    brought by htmx when the one before it is chosen) are still chosen once the switch has led
    to the Welsh form, and again once it has led back to the English one, with what was
    typed."""
    phone = watched_context(**PHONE).new_page()
    sign_in(phone, portal_url, *GROWER)
    phone.goto(f"{portal_url}/passports/new")
    radio(phone, "Hollowfield Farms Ltd").check()
    radio(phone, "Marsh End Barns").check()  # swapped in by htmx
    phone.get_by_label("Grain store").select_option(label="Marsh End flat store")
    field(phone, "crop_type").fill("Barley")
    field(phone, "vehicle_registration").fill("AE24 KTV")

    phone.locator(".language-switch a[hreflang='cy']").click()
    expect(phone).to_have_url(f"{portal_url}/cy/passports/new")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Creu pasbort cnwd")
    still_chosen(phone, "Storfa rawn")
    no_sideways_scroll(phone)
    assert_accessible(phone)

    phone.get_by_role("navigation", name="Iaith").get_by_role(
        "link", name="Change the language to English"
    ).click()
    expect(phone).to_have_url(f"{portal_url}/passports/new")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Create a crop passport")
    still_chosen(phone, "Grain store")


def still_chosen(page: Page, store_label: str) -> None:
    expect(radio(page, "Hollowfield Farms Ltd")).to_be_checked()
    expect(radio(page, "Marsh End Barns")).to_be_checked()
    expect(page.get_by_label(store_label).locator("option:checked")).to_have_text(
        "Marsh End flat store"
    )
    expect(field(page, "crop_type")).to_have_value("Barley")
    expect(field(page, "vehicle_registration")).to_have_value("AE24 KTV")
