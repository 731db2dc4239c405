"""The passport checker with no signal, in Chromium on a 360-pixel phone: a passport's signed
address opened once with signal installs the checker (its service worker, scoped to /V/);
with the browser then offline, the same address shows "Genuine" with its essentials, checked
on the phone; one character changed: "Not genuine"; a code past its expiry: "Expired"; one
signed by a key the portal does not know: "Not recognised"; never "Valid". The Scan button
checks a code it reads. axe-core on the pages online and offline."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.test import RequestFactory
from playwright.sync_api import BrowserContext, Page, expect

from portal.assurance import records
from portal.lib.signing_keys import add_key
from portal.passports import signing
from tests.e2e.conftest import CAMERA_AND_QR_READER, PHONE, assert_accessible, no_sideways_scroll
from tests.e2e.test_signed_code import changed, signed_address
from tests.portal.passports.helpers import with_s_flipped

pytestmark = pytest.mark.browser

A_PASSPORT = records.CropPassport(
    short_code="7KXM4QHT2W",
    business_name="Coldharbour Farm",
    crop_type="Barley",
    status="Valid",
    check_date=datetime(2026, 8, 1, tzinfo=UTC),
)


def signed_elsewhen(portal_url: str, signed_at: datetime, key_folder: Path | None = None) -> str:
    """A_PASSPORT's signed address on the live portal, signed at `signed_at` by the portal's
    key then, or by a new key of `key_folder` (one the portal does not know)."""
    request = RequestFactory().get("/", HTTP_HOST=urlsplit(portal_url).netloc)
    if key_folder is None:
        key = signing.signing_key(signed_at)
    else:
        key = add_key(key_folder, datetime(2020, 1, 1, tzinfo=UTC), 21)
    return signing.signed_address(request, A_PASSPORT, key, signed_at)


# Whether the checker's worker is ready and controls the page, waiting up to 10 s for it (through
# the DevTools protocol, which the pages' CSP allows).
CONTROLLED = """async () => {
  await navigator.serviceWorker.ready;
  if (navigator.serviceWorker.controller) return true;
  return await new Promise((done) => {
    navigator.serviceWorker.addEventListener("controllerchange", () => done(true));
    setTimeout(() => done(false), 10000);
  });
}"""


def controlled(phone: Page) -> None:
    """Waits until the checker's worker controls the page. A page whose load began while the
    worker was still being installed is not among those it claims as it starts: the worker
    controls it from its next load, as a person's next visit."""
    if not phone.evaluate(CONTROLLED):
        phone.reload()
        assert phone.evaluate(CONTROLLED), "The checker's worker never controlled the page"


def installed(context: BrowserContext, address: str) -> Page:
    """A phone's page that opened `address` with signal and whose checker's worker now
    controls it."""
    phone = context.new_page()
    phone.goto(address)
    controlled(phone)
    return phone


def assert_not_valid(phone: Page, title: str, words: str) -> None:
    expect(phone).to_have_title(f"{title} · Assurance portal")
    verdict = phone.locator(".verdict-not-valid, .verdict-unknown")
    expect(verdict).to_have_attribute("role", "alert")
    expect(verdict).to_contain_text(f"✗ {title}")
    expect(verdict).to_contain_text(words)
    main = phone.get_by_role("main")
    expect(main).not_to_contain_text("Valid")
    expect(main).not_to_contain_text("Genuine")
    no_sideways_scroll(phone)
    assert_accessible(phone)


def test_a_code_opened_with_no_signal_is_checked_on_the_phone(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    short_code, address = signed_address(watched_context(), portal_url)
    context = watched_context(**PHONE)
    phone = installed(context, address)
    expect(phone.get_by_role("region", name="The claim now")).to_be_visible()  # online

    context.set_offline(True)
    phone.goto(address)
    expect(phone).to_have_title(f"Genuine: {short_code} · Assurance portal")
    expect(phone.get_by_role("heading", level=1)).to_have_text(f"Passport {short_code}")
    signed = phone.get_by_role("region", name="The signed copy")
    expect(signed.locator(".verdict-valid")).to_contain_text("✓ Genuine")
    today = signing.day_written(datetime.now(UTC))
    in_21_days = signing.day_written(datetime.now(UTC) + timedelta(days=21))
    expect(signed).to_contain_text(
        f"Genuine: signed by the portal on {today}; the claim was valid when checked then; "
        f"this signed copy expires on {in_21_days}; the claim cannot be checked now without "
        f"signal (keys last updated {today}"
    )
    for label, value in (("Passport short code", short_code),
                         ("Business name", "Hollowfield Farms Ltd"), ("Crop type", "Wheat"),
                         ("Loading date", "21 August 2026"), ("Status", "Valid"),
                         ("Certifier", "Left out to fit the code")):  # fmt: skip
        expect(signed.locator(".row", has_text=label)).to_contain_text(value)
    expect(signed).to_contain_text("with its key ")
    expect(phone.get_by_role("region", name="The claim now")).to_have_count(0)
    no_sideways_scroll(phone)
    assert_accessible(phone)

    phone.goto(changed(address))
    assert_not_valid(phone, "Not genuine", "This code has been altered since it was signed")

    phone.goto(address[: len(address) - 40])  # cut short
    assert_not_valid(phone, "Not a passport's code", "cut short, mistyped or altered")


def test_an_expired_code_and_one_of_a_key_not_known_are_refused_with_no_signal(
    watched_context: Callable[..., BrowserContext], portal_url: str, tmp_path: Path
):
    expired = signed_elsewhen(portal_url, datetime.now(UTC) - timedelta(days=22))
    not_known = signed_elsewhen(portal_url, datetime.now(UTC), tmp_path / "other-keys")
    context = watched_context(**PHONE)
    phone = installed(context, f"{portal_url}/V/")
    context.set_offline(True)

    phone.goto(expired)
    expect(phone).to_have_title("Expired: 7KXM4-QHT2W · Assurance portal")
    verdict = phone.locator(".verdict-unknown")
    expect(verdict).to_contain_text("✗ Expired")
    expect(verdict).to_contain_text("what it says is too old to go by")
    expect(phone.get_by_role("main")).not_to_contain_text("Valid")
    assert_accessible(phone)

    phone.goto(not_known)
    assert_not_valid(phone, "Not recognised", "signed with a key that this portal does not know")


def test_a_code_with_its_signatures_s_flipped_is_refused_with_no_signal(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """ECDSA takes (r, n - s) as it takes (r, s): the checker takes only the low s the portal
    writes, so that a passport has one genuine code."""
    address = signed_elsewhen(portal_url, datetime.now(UTC))
    at, code = address.rsplit("/V/", 1)
    context = watched_context(**PHONE)
    phone = installed(context, f"{portal_url}/V/")
    context.set_offline(True)
    phone.goto(address)
    expect(phone.locator(".verdict-valid")).to_contain_text("✓ Genuine")
    phone.goto(f"{at}/V/{with_s_flipped(code)}")
    assert_not_valid(phone, "Not genuine", "This code has been altered since it was signed")


def test_the_checkers_page_scans_a_code_and_checks_it_with_no_signal(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    _, address = signed_address(watched_context(), portal_url)
    context = watched_context(**PHONE)
    context.add_init_script(CAMERA_AND_QR_READER)
    phone = installed(context, f"{portal_url}/V/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Check a passport's signed code")
    no_sideways_scroll(phone)
    assert_accessible(phone)

    context.set_offline(True)
    phone.reload()
    scan = phone.get_by_role("button", name="Scan a passport's QR code")
    expect(scan).to_be_visible()
    phone.evaluate("code => { window.__qrCodes.push('HTTP://ELSEWHERE.EXAMPLE/P/X', code); }",
                   address)  # fmt: skip
    scan.click()
    expect(phone).to_have_url(re.compile(r"/V/[A-Z2-7]+$"))
    expect(phone.locator(".verdict-valid")).to_contain_text("✓ Genuine")
    expect(phone.get_by_role("main")).to_contain_text("the claim cannot be checked now without")


def variants(code: str) -> list[str]:
    """`code` changed in many ways: each of some characters replaced, cut, lengthened, in
    lower case."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    found = [code, code.lower(), code[:-1], code[:-2], code + "A", code + "AA", "A" + code]
    for position in range(0, len(code), 7):
        other = alphabet[(alphabet.index(code[position]) + 1) % 32]
        found.append(code[:position] + other + code[position + 1 :])
    found.append(code[:-1] + alphabet[(alphabet.index(code[-1]) + 1) % 32])  # its unused bits
    found.append(with_s_flipped(code))
    return found


def test_the_checker_reads_codes_as_strictly_as_the_portal(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    _, address = signed_address(watched_context(), portal_url)
    code = address.rsplit("/V/", 1)[1]
    context = watched_context(**PHONE)
    phone = installed(context, f"{portal_url}/V/")
    context.set_offline(True)
    phone.reload()
    codes = variants(code)
    on_the_phone = phone.evaluate(
        """async (codes) => {
            const keySet = await (await fetch("/.well-known/passport-keys.json")).json();
            const now = Math.floor(Date.now() / 1000);
            const read = (c) => window.passportChecker.readCode(c, keySet, now);
            return Promise.all(codes.map(async (c) => (await read(c)).state));
        }""",
        codes,
    )
    on_the_portal = [str(signing.check(variant).state) for variant in codes]
    assert on_the_phone == on_the_portal
    assert on_the_portal[0] == "genuine" and {"altered", "malformed"} <= set(on_the_portal)


# --- in Welsh -------------------------------------------------------------------------------------

CHECKER_IN_WELSH = "Gwirio cod pasbort wedi’i lofnodi"  # "Check a passport's signed code"


def test_a_welsh_speakers_checker_gives_its_verdicts_in_welsh_with_no_signal(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """Cymraeg chosen with the switch (its cookie): the checker's page and the code's page in
    Welsh with signal; with none, the worker's shell and the scripts' words in Welsh too."""
    short_code, address = signed_address(watched_context(), portal_url)
    context = watched_context(**PHONE)
    chooser = context.new_page()
    chooser.goto(f"{portal_url}/language/cy?next=/V/")
    expect(chooser.get_by_role("heading", level=1)).to_have_text(CHECKER_IN_WELSH)
    chooser.close()
    phone = installed(context, address)
    expect(phone.locator("html")).to_have_attribute("lang", "cy")
    expect(phone.get_by_role("region", name="Yr honiad nawr")).to_be_visible()  # online

    context.set_offline(True)
    phone.goto(address)
    expect(phone.locator("html")).to_have_attribute("lang", "cy")
    expect(phone).to_have_title(f"Go iawn: {short_code} · Porth sicrwydd")
    expect(phone.get_by_role("heading", level=1)).to_have_text(f"Pasbort {short_code}")
    signed = phone.get_by_role("region", name="Y copi wedi’i lofnodi")
    expect(signed.locator(".verdict-valid")).to_contain_text("✓ Go iawn")
    today = datetime.now(UTC)
    months = ("Ionawr", "Chwefror", "Mawrth", "Ebrill", "Mai", "Mehefin", "Gorffennaf", "Awst",
              "Medi", "Hydref", "Tachwedd", "Rhagfyr")  # fmt: skip
    signed_on = f"{today.day} {months[today.month - 1]} {today.year}"
    expect(signed).to_contain_text(f"Go iawn: llofnodwyd gan y porth ar {signed_on}; ")
    expect(signed).to_contain_text("roedd yr honiad yn ddilys pan gafodd ei wirio bryd hynny; ")
    expect(signed).to_contain_text(
        f"ni ellir gwirio’r honiad nawr heb signal (diweddarwyd yr allweddi ddiwethaf "
        f"{signed_on} am "
    )
    expect(signed.locator(".left-out").first).to_have_text("Wedi’i adael allan i ffitio’r cod")
    expect(signed).to_contain_text("Wedi’i lofnodi gan ")
    main = phone.get_by_role("main")
    for english in ("Genuine", "signed by the portal", "the claim", "Left out"):
        expect(main).not_to_contain_text(english)
    no_sideways_scroll(phone)
    assert_accessible(phone)

    phone.goto(changed(address))
    expect(phone).to_have_title("Nid yw’n go iawn · Porth sicrwydd")
    verdict = phone.locator(".verdict-not-valid")
    expect(verdict).to_contain_text("✗ Nid yw’n go iawn")
    expect(verdict).to_contain_text("Mae’r cod hwn wedi’i newid ers iddo gael ei lofnodi")
    expect(phone.get_by_role("main")).to_contain_text("Gwiriwch y pasbort drwy’r cod byr")
    assert_accessible(phone)


def test_the_checker_speaks_the_browsers_language_and_then_the_one_chosen_with_no_signal(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """No choice made: the checker in the browser's language (Accept-Language: cy), offline
    too; English chosen with the switch afterwards: English offline from then on."""
    _, address = signed_address(watched_context(), portal_url)
    context = watched_context(**PHONE, locale="cy")
    phone = installed(context, f"{portal_url}/V/")
    expect(phone.get_by_role("heading", level=1)).to_have_text(CHECKER_IN_WELSH)
    context.set_offline(True)
    phone.goto(address)
    expect(phone.locator(".verdict-valid")).to_contain_text("✓ Go iawn")

    context.set_offline(False)
    phone.goto(f"{portal_url}/language/en-gb?next=/V/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Check a passport's signed code")
    controlled(phone)
    context.set_offline(True)
    phone.goto(address)
    expect(phone.locator("html")).to_have_attribute("lang", "en-GB")
    expect(phone.locator(".verdict-valid")).to_contain_text("✓ Genuine")
    expect(phone.get_by_role("main")).to_contain_text("the claim cannot be checked now without")
