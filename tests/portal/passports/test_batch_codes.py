"""A batch's signed codes, to print (`/passports/batch/<key>/codes`): linked from the batch's page
and from each of its passports' pages; every passport of the batch with the signed QR code its
own page shows (read back at 3 pixels a module, and genuine by the portal's check) and its short
code; for the contacts of its membership only; said plainly when codes are not signed; a batch
larger than a page shown a page at a time; no key or page number that makes a 500."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from portal.jobs.models import Job
from portal.passports import signing
from portal.passports.codes import normalise
from portal.passports.models import Passport
from portal.passports.tasks import passport_batch
from portal.passports.views import batch as batch_view
from tests.jobs import run_queued
from tests.portal.accounts.helpers import signed_in
from tests.portal.passports.helpers import qr_text_of, text
from tests.portal.passports.made import filled

pytestmark = pytest.mark.django_db

PREFIX = "HTTP://TESTSERVER/V/"
CODES_LINK = re.compile(r'href="(/passports/batch/[0-9a-f-]+/codes)"')


def a_batch(grower: Client, loads: int = 3) -> tuple[str, list[str]]:
    """A batch of `loads` made with the create form, its job run: the address of its codes'
    page, as the batch's page links it, and its short codes in its order."""
    response = grower.post("/passports/new", filled(grower, loads=str(loads), crop_type="Barley"))
    assert response.status_code == 303
    assert run_queued(passport_batch.name).state == Job.State.DONE
    batch_page = grower.get(response["Location"]).content.decode()
    [address] = CODES_LINK.findall(batch_page)
    made = Passport.objects.filter(batch__isnull=False).order_by("batch_position")
    return address, [passport.short_code for passport in made]


def codes_shown(response) -> list[tuple[str, str | None]]:
    """Each code of the page, in order: its short code and the text its QR code holds (read at
    3 pixels a module), None where it has none."""
    shown = []
    html = response.content.decode()
    for item in re.findall(r'<li class="batch-print-code">(.*?)</li>', html, re.S):
        short_code = re.search(r'href="/passports/([^/]+)/"', item)[1]
        svg = re.search(r"<svg .*?</svg>", item, re.S)
        shown.append((short_code, qr_text_of(svg[0]) if svg else None))
    return shown


def test_every_passport_of_the_batch_has_its_genuine_signed_code_and_its_short_code(grower):
    address, short_codes = a_batch(grower)
    response = grower.get(address)
    assert response.status_code == 200
    shown = codes_shown(response)
    assert [short_code for short_code, _ in shown] == short_codes
    for (short_code, signed_address), row in zip(shown, Passport.objects.filter(
        short_code__in=short_codes).order_by("batch_position"), strict=True):  # fmt: skip
        assert signed_address.startswith(PREFIX)
        checked = signing.check(signed_address.removeprefix(PREFIX))
        assert checked.is_genuine and checked.short_code == short_code
        assert checked.matches(row.crop_passport)
    words = text(response)
    assert "3 passports for Hollowfield Farms Ltd: Barley, Extase, harvest 2026." in words
    first, second = short_codes[0].split("-")
    assert f"Passport 1: {' '.join(first)}, {' '.join(second)}" in words  # read out, grouped
    expires = signing.day_written(datetime.now(UTC) + timedelta(days=21))
    assert f"The signed codes hold for 21 days: the first expires on {expires}." in words
    assert "Print the codes" in words
    html = response.content.decode()
    assert '<link rel="stylesheet" href="/static/css/batch_codes.css">' in html
    assert '<script src="/static/js/print.js" defer></script>' in html


def test_each_code_is_the_one_its_passports_page_shows(grower):
    address, short_codes = a_batch(grower, loads=2)
    shown = dict(codes_shown(grower.get(address)))
    for short_code in short_codes:
        page = grower.get(f"/passports/{short_code}/").content.decode()
        assert f'href="{address}"' in page  # the passport's page leads to its batch's codes
        figure = re.search(r'<figure class="qr">(.*?)</figure>', page, re.S)[1]
        assert qr_text_of(figure) == shown[short_code]


def test_another_contact_of_the_membership_sees_them_too(grower, partner):
    address, short_codes = a_batch(grower, loads=2)
    response = partner.get(address)
    assert response.status_code == 200
    assert [short_code for short_code, _ in codes_shown(response)] == short_codes


@pytest.mark.parametrize("username", ["haulier", "lapsed"])
def test_anyone_not_a_contact_of_its_membership_finds_no_such_page(grower, username):
    address, short_codes = a_batch(grower, loads=2)
    stranger = signed_in(username)
    unknown = stranger.get(f"/passports/batch/{uuid.uuid4()}/codes")
    response = stranger.get(address)
    assert response.status_code == 404
    assert text(response) == text(unknown)  # just as for a batch that does not exist
    assert not any(short_code in text(response) for short_code in short_codes)


def test_it_needs_a_sign_in(grower):
    address, _ = a_batch(grower, loads=2)
    response = Client().get(address)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/sign-in/")


@pytest.mark.parametrize("key", ["not-a-key", "0" * 32 + "zz", "%00", "../7KXM4-QHT2W"])
def test_a_key_that_is_not_a_batchs_is_a_404(grower, key):
    response = grower.get(f"/passports/batch/{key}/codes")
    assert response.status_code == 404
    assert "Page not found" in text(response)


def test_a_batch_larger_than_a_page_is_shown_a_page_at_a_time(grower, monkeypatch):
    address, short_codes = a_batch(grower, loads=5)
    monkeypatch.setattr(batch_view, "PER_PAGE", 2)
    first = grower.get(address)
    assert [code for code, _ in codes_shown(first)] == short_codes[:2]
    assert "Codes 1–2 of 5, 2 to a page: print each page." in text(first)
    assert 'href="?page=2" rel="next"' in first.content.decode()
    last = grower.get(f"{address}?page=3")
    assert [code for code, _ in codes_shown(last)] == short_codes[4:]
    assert "5 of 5" in text(last)
    for page in ("0", "999", "two", "-1", "%00"):  # any other page: the nearest one, never 500
        assert grower.get(f"{address}?page={page}").status_code == 200


def test_without_signed_codes_it_says_so_and_gives_the_short_codes(grower, settings):
    address, short_codes = a_batch(grower)
    settings.PORTAL_SIGNED_PASSPORTS = False
    response = grower.get(address)
    assert response.status_code == 200
    words = text(response)
    assert "This portal does not sign passports' codes, so there are no signed codes to print." in (
        words
    )
    assert [code for code, qr in codes_shown(response) if qr is None] == short_codes
    assert "Print the codes" not in words


def test_with_no_key_signing_it_says_they_cannot_be_signed_now(grower, settings, tmp_path):
    address, short_codes = a_batch(grower, loads=2)
    settings.PORTAL_PASSPORT_KEYS_DIR = str(tmp_path / "none-here")
    response = grower.get(address)
    assert response.status_code == 200
    assert "Passports' codes cannot be signed just now, so there are no signed codes to print." in (
        text(response)
    )
    assert [code for code, qr in codes_shown(response) if qr is None] == short_codes


def test_a_passport_whose_code_could_not_be_signed_says_so_beside_the_others(grower, monkeypatch):
    address, short_codes = a_batch(grower)
    real_signed_qr = signing.signed_qr

    def none_for_the_second(request, passport):  # as for a code too long to sign
        second = normalise(passport.short_code) == short_codes[1]
        return None if second else real_signed_qr(request, passport)

    monkeypatch.setattr(signing, "signed_qr", none_for_the_second)
    response = grower.get(address)
    assert [code for code, qr in codes_shown(response) if qr is None] == [short_codes[1]]
    assert "No signed code could be made for this passport: its PDF's QR code looks it up." in (
        text(response)
    )
    assert "Print the codes" in text(response)
