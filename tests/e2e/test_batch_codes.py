"""A batch's signed codes in Chromium, on a 360-pixel phone: the grower makes a batch of 13 with
the create form, opens its signed codes from the batch's page, and prints them: the Print button
prints; on paper no header or navigation, three codes across and twelve to a sheet, each whole
on one sheet (the page printed to PDF, read back with pypdf), and a code of the printed page
read by zxing-cpp at 3 pixels a module is genuine. Without JavaScript no Print button, the same
codes. axe-core on the page.

Jobs run in a thread of this process, as a worker would run them."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pypdf
import pytest
from playwright.sync_api import BrowserContext, expect

from portal.passports import signing
from tests.e2e.conftest import (
    GROWER,
    PHONE,
    assert_accessible,
    no_sideways_scroll,
    qr_code_read,
    sign_in,
)
from tests.e2e.test_passport_list import a_batch_of_five

pytestmark = pytest.mark.browser

LOADS = 13  # a sheet of twelve, and one over
A4 = {"width": 794, "height": 1123}  # in CSS pixels


def test_a_phone_prints_the_signed_codes_of_a_batch(
    watched_context: Callable[..., BrowserContext], portal_url: str, worker
):
    phone = watched_context(**PHONE).new_page()
    sign_in(phone, portal_url, *GROWER)
    short_codes = a_batch_of_five(phone, portal_url, loads=LOADS)
    phone.get_by_role("link", name="Their signed QR codes with their short codes, to print").click()
    expect(phone.get_by_role("heading", level=1)).to_have_text("Signed codes of the batch")
    codes = phone.locator(".batch-print-code")
    expect(codes).to_have_count(LOADS)
    expect(codes.locator(".batch-print-short-code [aria-hidden]")).to_have_text(
        [code.replace("-", " ") for code in short_codes]
    )
    no_sideways_scroll(phone)
    assert_accessible(phone)

    phone.evaluate("() => { window.printed = 0; window.print = () => { window.printed += 1; }; }")
    phone.get_by_role("button", name="Print the codes").click()
    assert phone.evaluate("window.printed") == 1

    phone.set_viewport_size(A4)
    phone.emulate_media(media="print")
    for hidden in (".site-header", ".site-footer", "[data-print]", ".screen-only"):
        expect(phone.locator(hidden).first).to_be_hidden()
    address = qr_code_read(phone.locator(".batch-print-code svg").nth(4))
    checked = signing.check(address.rpartition(signing.PATH)[2])
    assert checked.is_genuine and checked.short_code == short_codes[4]

    phone.reload()  # the code drawn at the stylesheet's size again
    sheets = pypdf.PdfReader(io.BytesIO(phone.pdf(format="A4"))).pages
    on_each = [[code for code in short_codes if code.replace("-", " ") in sheet.extract_text()]
               for sheet in sheets]  # fmt: skip
    assert on_each == [short_codes[:12], short_codes[12:]]  # every code whole on one sheet


def test_without_javascript_the_codes_are_there_without_a_print_button(
    watched_context: Callable[..., BrowserContext], portal_url: str, worker
):
    page = watched_context().new_page()
    sign_in(page, portal_url, *GROWER)
    short_codes = a_batch_of_five(page, portal_url, loads=2)
    codes_page = page.get_by_role("link", name=re.compile("signed QR codes")).get_attribute("href")
    without_scripts = watched_context(java_script_enabled=False)
    without_scripts.add_cookies(page.context.cookies())
    plain = without_scripts.new_page()
    plain.goto(f"{portal_url}{codes_page}")
    expect(plain.locator(".batch-print-short-code [aria-hidden]")).to_have_text(
        [code.replace("-", " ") for code in short_codes]
    )
    expect(plain.locator("[data-print]")).to_be_hidden()
    assert qr_code_read(plain.locator(".batch-print-code svg").first).startswith(
        f"{portal_url.upper()}/V/"
    )
