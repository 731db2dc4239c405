"""Passports sent by e-mail in Chromium: the grower sends one from its page (with a message) and a
batch of five from the batch's page, watches each sent, and the mails are read back from a real
SMTP server started by the test: the right headers, each passport's PDF attached (read with
pypdf), its look-up address in the body; on a phone, and with axe-core on every page.

Jobs run in a thread of this process, as a worker would run them."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pypdf
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll, sign_in
from tests.e2e.test_passport_list import a_batch_of_five
from tests.mailserver import MailServer
from tests.portal.accounts.helpers import signed_in
from tests.portal.passports.made import made_with_the_form

pytestmark = pytest.mark.browser

HAULIER = "dispatch@haulage.example"


def pdf_words(content: bytes) -> str:
    pages = pypdf.PdfReader(io.BytesIO(content)).pages
    return " ".join(page.extract_text() for page in pages).replace(" ", "")


def open_the_form(page: Page) -> None:
    """Opens the form from a passport's page: it comes with nothing marked wrong."""
    page.get_by_role("link", name="Send by e-mail").click()
    expect(page.get_by_label("Send to")).to_be_visible()
    expect(page.get_by_text("Nothing was sent")).to_have_count(0)
    expect(page.get_by_text("This field is required")).to_have_count(0)


def fill_and_send(page: Page, message: str = "") -> None:
    page.get_by_label("Send to").fill(HAULIER)
    page.get_by_label("Your e-mail address").fill("grower@example.com")
    if message:
        page.get_by_label("Message (optional)").fill(message)
    page.get_by_role("button", name="Send by e-mail").click()
    expect(page.get_by_text(re.compile(f"Sent to {re.escape(HAULIER)} on"))).to_be_visible(
        timeout=30_000
    )


def test_a_passport_is_sent_from_its_page_and_arrives_with_its_pdf(
    signed_in_page: Page, portal_url: str, worker, mail_server: MailServer
):
    page = signed_in_page
    code = made_with_the_form(signed_in("grower"))
    page.goto(f"{portal_url}/passports/{code}/")
    expect(page.get_by_role("heading", name="Send by e-mail")).to_be_visible()
    open_the_form(page)
    expect(page).to_have_url(f"{portal_url}/passports/{code}/")  # opened in the page, by htmx
    expect(page.get_by_label("Send to")).to_be_focused()
    assert_accessible(page)
    fill_and_send(page, "Load 3 of 5.\nGate B, please.")
    assert_accessible(page)

    [mail] = mail_server.wait_for(1)
    assert mail.message["To"] == HAULIER and mail.message["Reply-To"] == "grower@example.com"
    assert mail.message["Subject"] == f"Crop passport {code} from Hollowfield Farms Ltd"
    assert f"{portal_url}/p/{code}" in mail.body("plain")
    assert "Gate B, please." in mail.body("plain")
    [(name, pdf)] = mail.attachments().items()
    assert name == f"passport-{code}.pdf" and code in pdf_words(pdf)

    page.goto(f"{portal_url}/passports/{code}/")
    expect(page.locator(".mailings li")).to_contain_text(f"To {HAULIER}, asked by grower")
    expect(page.locator(".mailings li")).to_contain_text("sent at")


def test_a_batch_is_sent_whole_in_one_mail(
    signed_in_page: Page, portal_url: str, worker, mail_server: MailServer
):
    page = signed_in_page
    codes = a_batch_of_five(page, portal_url)
    page.get_by_role("button", name="Send by e-mail").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Send 5 passports by e-mail")
    expect(page.locator(".mailed-codes li")).to_have_count(5)
    assert_accessible(page)
    fill_and_send(page)

    [mail] = mail_server.wait_for(1)
    attached = mail.attachments()
    assert list(attached) == [f"passport-{code}.pdf" for code in codes]
    assert all(code in pdf_words(attached[f"passport-{code}.pdf"]) for code in codes)
    assert mail.message["Subject"] == "5 crop passports from Hollowfield Farms Ltd"


def test_the_form_reads_well_on_a_phone_and_says_what_is_wrong(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    code = made_with_the_form(signed_in("grower"))
    phone = watched_context(**PHONE).new_page()
    sign_in(phone, portal_url, *GROWER, next_path=f"/passports/{code}/")
    open_the_form(phone)
    phone.get_by_label("Send to").fill("one@example.com, two@example.com")
    phone.get_by_role("button", name="Send by e-mail").click()
    expect(phone.get_by_role("alert")).to_contain_text("Send to: Enter a valid email address.")
    expect(phone.get_by_role("alert")).to_be_focused()
    no_sideways_scroll(phone)
    assert_accessible(phone)


def test_without_javascript_the_form_opens_on_its_own_page_and_sends(
    watched_context: Callable[..., BrowserContext], portal_url: str, worker,
    mail_server: MailServer,
):  # fmt: skip
    code = made_with_the_form(signed_in("grower"))
    page = watched_context(java_script_enabled=False).new_page()
    sign_in(page, portal_url, *GROWER, next_path=f"/passports/{code}/")
    open_the_form(page)
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Send passport {code} by e-mail")
    page.get_by_role("button", name="Send by e-mail").click()
    expect(page.get_by_role("alert")).to_contain_text("Send to: This field is required.")
    fill_and_send(page)
    [mail] = mail_server.wait_for(1)
    assert mail.message["To"] == HAULIER


def test_a_welsh_speaker_sends_a_passport_and_it_arrives_in_welsh(
    watched_context: Callable[..., BrowserContext], portal_url: str, worker,
    mail_server: MailServer,
):  # fmt: skip
    """On a 360-pixel phone, from the passport's Welsh page: the form offers the mail in the
    page's language, and the mail arrives in Welsh, its look-up address the one printed."""
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, *GROWER)
    code = made_with_the_form(signed_in("grower"))
    page.goto(f"{portal_url}/cy/passports/{code}/")
    page.get_by_role("link", name="Anfon drwy e-bost").click()
    expect(page.get_by_label("Cymraeg")).to_be_checked()
    page.get_by_label("Anfon at").fill(HAULIER)
    page.get_by_label("Eich cyfeiriad e-bost").fill("grower@example.com")
    no_sideways_scroll(page)
    assert_accessible(page)
    page.get_by_role("button", name="Anfon drwy e-bost").click()
    expect(page.get_by_text(re.compile(f"Anfonwyd at {re.escape(HAULIER)} ar"))).to_be_visible(
        timeout=30_000
    )
    assert_accessible(page)

    [mail] = mail_server.wait_for(1)
    assert mail.message["Subject"] == f"Pasbort cnwd {code} gan Hollowfield Farms Ltd"
    assert f"{portal_url}/p/{code}" in mail.body("plain")
    assert "Pasbort" in mail.body("plain") and "Crop passport" not in mail.body("plain")
