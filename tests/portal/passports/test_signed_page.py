"""A passport's signed code on the web: the QR code of its page (read back from the page with
zxing-cpp at 3 pixels a module) holds its signed address, which `/V/...` checks for anyone,
with the claim now beside it; every code that is not genuine refused in words, never with a
500; the public keys at `/.well-known/passport-keys.json`; `manage.py new_passport_key`."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, RequestFactory
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from portal.assurance import records
from portal.lib.signing_keys import add_key, read_key_set
from portal.passports import signing
from tests.portal.accounts.helpers import upstream_calls
from tests.portal.passports.helpers import (
    qr_text_of,
    suspended_after_it_was_made,
    text,
    with_s_flipped,
    within_one_window,
    words,
)
from tests.portal.passports.made import made_elsewhere, made_here

pytestmark = pytest.mark.django_db

PREFIX = "HTTP://TESTSERVER/V/"


@pytest.fixture
def stranger(upstream_sandbox, client_address: str) -> Client:
    """Someone without an account (beside the grower, who has one), from an address of the
    test's own: a haulier's phone."""
    return Client(REMOTE_ADDR=client_address)


def qr_of(response) -> tuple[str, str]:
    """The QR code's text, read from the page's SVG at 3 pixels a module, and the SVG tag."""
    html = response.content.decode()
    figure = re.search(r'<figure class="qr">(.*?)</figure>', html, re.S)
    assert figure, html
    return qr_text_of(figure[1]), re.search(r"<svg [^>]*>", figure[1])[0]


def signed_address_of(grower, short_code: str) -> str:
    address, _ = qr_of(grower.get(f"/passports/{short_code}/"))
    return address


def path_of(address: str) -> str:
    return address.removeprefix("HTTP://TESTSERVER")


def changed(address: str, position: int = -20) -> str:
    """The address with one character of its code changed."""
    character = address[position]
    return address[:position] + ("A" if character != "A" else "B") + address[position + 1 :]


def main_text(response) -> str:
    """The words of the page's <main>."""
    return words(re.search(r"<main[^>]*>(.*)</main>", response.content.decode(), re.S)[1])


# --- the passport's page -----------------------------------------------------------------------


def test_the_qr_code_holds_the_passports_signed_address_read_at_3_pixels_a_module(grower):
    short_code = made_here()
    response = grower.get(f"/passports/{short_code}/")
    address, svg = qr_of(response)
    assert address.startswith(PREFIX)
    assert re.fullmatch(r"[A-Z2-7]+", address.removeprefix(PREFIX))
    size = int(re.search(r'viewBox="0 0 (\d+) ', svg)[1])
    assert size <= 13 * 4 + 17 + 8  # version 13 at most, with its quiet zone
    assert 'role="img"' in svg
    assert "QR code of the passport&#x27;s signed copy" in svg
    html = response.content.decode()
    assert f'<a href="{address}">what it carries</a>' in html
    look_up = f"http://testserver/p/{short_code}"
    assert f'<a class="look-up-address" href="{look_up}">{look_up}</a>' in html


def test_the_code_is_kept_for_the_next_view_of_the_page(grower):
    short_code = made_here()
    assert signed_address_of(grower, short_code) == signed_address_of(grower, short_code)


def test_a_passport_made_elsewhere_has_a_signed_code_too(grower, stranger):
    short_code = made_elsewhere()
    page = stranger.get(path_of(signed_address_of(grower, short_code)))
    assert f"Genuine: {short_code}" in text(page)


def test_without_signed_codes_the_qr_code_holds_the_look_up_address(grower, settings):
    settings.PORTAL_SIGNED_PASSPORTS = False
    short_code = made_here()
    address, svg = qr_of(grower.get(f"/passports/{short_code}/"))
    assert address == f"http://testserver/p/{short_code}"
    assert f'aria-label="QR code of the passport&#x27;s look-up address, {address}"' in svg


def test_with_no_key_signing_the_qr_code_holds_the_look_up_address_and_it_is_logged(
    grower, settings, tmp_path, caplog
):
    settings.PORTAL_PASSPORT_KEYS_DIR = str(tmp_path / "none-here")
    short_code = made_here()
    for _ in range(2):
        address, _svg = qr_of(grower.get(f"/passports/{short_code}/"))
        assert address == f"http://testserver/p/{short_code}"
    said = [r for r in caplog.records if "codes are not signed" in r.getMessage()]
    assert len(said) == 1  # once, not at every view
    assert "manage.py new_passport_key" in said[0].getMessage()


# --- /V/: genuine ------------------------------------------------------------------------------


def test_a_genuine_code_says_so_with_its_essentials_and_the_claim_now(grower, stranger):
    short_code = made_here()
    address = signed_address_of(grower, short_code)
    with upstream_calls() as calls:
        response = stranger.get(path_of(address))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    page = main_text(response)
    today = signing.day_written(datetime.now(UTC))
    in_21_days = signing.day_written(datetime.now(UTC) + timedelta(days=21))
    assert page.startswith(f"Passport {short_code} The signed copy ✓ Genuine Genuine: signed by "
                           f"the portal on {today}; the claim was valid when checked")  # fmt: skip
    assert f"this signed copy expires on {in_21_days}." in page
    for row in (f"Passport short code {short_code}", "Business name Hollowfield Farms Ltd",
                "Crop type Wheat", "Variety Extase", "Harvest year 2026",
                "Loading date 21 August 2026", "Status Valid",
                "Certifier Meridian Farm Certification Ltd",
                "Membership number CCSB-204817"):  # fmt: skip
        assert row in page, row
    assert "Left out to fit the code" not in page  # online, the record gives what the code left out
    assert "Collection address" not in page and "Haulier" not in page
    assert "Signed by testserver with its key" in page
    assert "The claim now ✓ Valid The assurance claim is valid now. Checked by the portal" in page
    assert "The service's record of the passport is the one the portal signed." in page
    assert [call.operation for call in calls if call.operation.startswith("passport")] == [
        "passport"
    ]  # the claim now, once


def test_a_genuine_code_whose_claim_was_not_valid_when_signed_says_so(stranger, settings):
    passport = records.CropPassport(short_code="7KXM4QHT2W", business_name="Coldharbour Farm",
                                    status="Suspended", check_date=datetime(2026, 8, 1, tzinfo=UTC),
                                    expiry_date=datetime(2026, 9, 1, tzinfo=UTC))  # fmt: skip
    found = signing.signed_qr(RequestFactory().get("/"), passport)
    page = main_text(stranger.get(path_of(found.address)))
    assert "✗ Genuine, claim not valid" in page
    assert ("the claim was not valid when checked on 1 August 2026: its status was Suspended; "
            "the certificate expired on 1 September 2026;") in page  # fmt: skip


def test_the_claim_now_is_not_valid_for_a_passport_suspended_since_it_was_signed(
    grower, stranger, upstream_sandbox
):
    with suspended_after_it_was_made(upstream_sandbox) as short_code:
        passport = records.CropPassport(short_code=short_code, status="Valid")
        found = signing.signed_qr(RequestFactory().get("/"), passport)
        page = main_text(stranger.get(path_of(found.address)))
    assert "✓ Genuine" in page
    assert "The claim now ✗ Not valid The assurance claim is not valid now." in page


def test_the_claim_now_counts_against_the_look_ups_allowance(
    grower, stranger, settings, client_address
):
    address = signed_address_of(grower, made_here())
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    with within_one_window(client_address):
        assert "The claim now ✓ Valid" in main_text(stranger.get(path_of(address)))
        with upstream_calls() as calls:
            response = stranger.get(path_of(address))
    assert response.status_code == 200
    page = main_text(response)
    assert "✓ Genuine" in page  # the signed copy needs no look-up
    assert "Not checked now: this connection has checked too many passports" in page
    assert not [call for call in calls if call.operation.startswith("passport")]


def test_the_signed_copy_holds_when_the_service_cannot_be_reached(grower, stranger, settings):
    address = signed_address_of(grower, made_here())
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    from portal.assurance import service

    service.client.cache_clear()
    response = stranger.get(path_of(address))
    assert response.status_code == 200
    page = main_text(response)
    assert "✓ Genuine" in page
    assert "Not checked now: the Assurance service cannot be reached just now." in page
    assert "Certifier Left out to fit the code" in page  # as the paper copy carries it
    service.client.cache_clear()


# --- /V/: refused ------------------------------------------------------------------------------


def assert_refused(response, headline: str, status: int = 200) -> str:
    assert response.status_code == status
    page = main_text(response)
    assert f"✗ {headline}" in page
    assert "Valid" not in page and "Genuine" not in page
    assert "The claim now" not in page
    return page


def test_a_code_changed_by_one_character_is_not_genuine_and_not_looked_up(grower, stranger):
    address = signed_address_of(grower, made_here())
    with upstream_calls() as calls:
        response = stranger.get(path_of(changed(address)))
    page = assert_refused(response, "Not genuine")
    assert "This code has been altered since it was signed" in page
    assert "Check a passport by its short code" in page
    assert not calls


def test_a_code_with_its_signatures_s_flipped_is_not_genuine_and_not_looked_up(grower, stranger):
    address = signed_address_of(grower, made_here())
    code = address.rsplit("/V/", 1)[1]
    assert stranger.get(f"/V/{code}").status_code == 200  # the code itself: genuine
    with upstream_calls() as calls:
        response = stranger.get(f"/V/{with_s_flipped(code)}")
    page = assert_refused(response, "Not genuine")
    assert "This code has been altered since it was signed" in page
    assert not calls


def test_an_expired_code_says_when_it_expired_and_where_to_check_the_claim(grower, stranger):
    short_code = made_here()
    address = signed_address_of(grower, short_code)
    with time_machine.travel(datetime.now(UTC) + timedelta(days=21, minutes=1)):
        response = stranger.get(path_of(address))
    page = assert_refused(response, "Expired")
    assert f"Check passport {short_code} now by its short code" in page
    assert f'href="/p/{short_code}"' in response.content.decode()
    assert "<title>Expired: " in response.content.decode()


def test_a_code_signed_by_a_key_the_portal_does_not_know_is_not_recognised(
    grower, stranger, settings, tmp_path
):
    address = signed_address_of(grower, made_here())
    settings.PORTAL_PASSPORT_KEYS_DIR = str(tmp_path / "other-keys")
    add_key(settings.PORTAL_PASSPORT_KEYS_DIR, datetime(2020, 1, 1, tzinfo=UTC), 21)
    page = assert_refused(stranger.get(path_of(address)), "Not recognised")
    assert "signed with a key that this portal does not know" in page


@pytest.mark.parametrize("payload", ["HELLO", "A" * 500, "MZXW6YTBOI", "2" * 330, "%00",
                                     "../p/7KXM4-QHT2W", "é"])  # fmt: skip
def test_what_is_not_a_code_is_answered_400_in_words(stranger, payload):
    assert_refused(stranger.get(f"/V/{payload}"), "Not a passport's code", status=400)


@hypothesis_settings(max_examples=60, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="/?#"), max_size=400))
def test_no_code_makes_a_500(stranger, payload):
    assert stranger.get(f"/V/{payload}").status_code in (200, 400)


def test_a_trailing_slash_a_reader_added_is_read_past(grower, stranger):
    address = signed_address_of(grower, made_here())
    assert "✓ Genuine" in main_text(stranger.get(path_of(address) + "/"))


def test_the_check_is_logged_without_the_code(grower, stranger, caplog):
    address = signed_address_of(grower, made_here())
    caplog.clear()
    stranger.get(path_of(changed(address)))
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert "GET /V/… 200" in logged
    assert address.removeprefix(PREFIX)[:20] not in logged


# --- the public keys ---------------------------------------------------------------------------


def test_the_key_set_is_public_cached_and_open_to_any_site(stranger, settings):
    response = stranger.get("/.well-known/passport-keys.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/jwk-set+json"
    assert response["Cache-Control"] == "public, max-age=3600"
    assert response["Access-Control-Allow-Origin"] == "*"
    [key] = json.loads(response.content)["keys"]
    [ours] = read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).keys
    assert (key["kid"], key["kty"], key["crv"], key["alg"]) == (ours.kid, "EC", "P-256", "ES256")
    assert base64.urlsafe_b64decode(key["x"] + "=") == ours.x
    unchanged = stranger.get("/.well-known/passport-keys.json", HTTP_IF_NONE_MATCH=response["ETag"])
    assert unchanged.status_code == 304


def test_a_new_key_is_published_with_its_times(stranger, settings):
    add_key(settings.PORTAL_PASSPORT_KEYS_DIR, datetime.now(UTC) + timedelta(days=7), 21)
    old, new = json.loads(stranger.get("/.well-known/passport-keys.json").content)["keys"]
    assert new["from"] - datetime.now(UTC).timestamp() > 6 * 86400
    assert old["until"] == new["from"] + 21 * 86400


def test_a_key_directory_that_cannot_be_read_is_a_503_not_an_empty_set(
    stranger, settings, tmp_path
):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "keys.json").write_text("{not json")
    settings.PORTAL_PASSPORT_KEYS_DIR = str(broken)
    response = stranger.get("/.well-known/passport-keys.json")
    assert response.status_code == 503
    assert "keys" not in json.loads(response.content)


# --- manage.py new_passport_key ----------------------------------------------------------------


def command(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("new_passport_key", *args, stdout=out)
    return out.getvalue()


def test_the_command_makes_a_key_that_signs_at_once_and_lists_the_keys(settings, tmp_path):
    settings.PORTAL_PASSPORT_KEYS_DIR = str(tmp_path / "keys")
    said = command()
    [key] = read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).keys
    assert f"Made key {key.kid}" in said
    assert f"{key.kid}: signs from" in said and "current; published; private key here" in said
    assert read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).signing_key(datetime.now(UTC)) == key


def test_the_command_with_if_none_leaves_a_signing_key_alone(settings):
    before = read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).keys
    assert "Made key" not in command("--if-none")
    assert read_key_set(settings.PORTAL_PASSPORT_KEYS_DIR).keys == before


def test_the_command_rolls_over_and_the_old_key_verifies_what_it_signed(grower, stranger, settings):
    keys_dir = settings.PORTAL_PASSPORT_KEYS_DIR
    [old] = read_key_set(keys_dir).keys
    address = signed_address_of(grower, made_here())
    said = command("--in-days", "2")
    [_, new] = read_key_set(keys_dir).keys
    assert f"{old.kid}: signs from 2020-01-01 00:00 UTC, verifies until" in said
    with time_machine.travel(datetime.now(UTC) + timedelta(days=3)):
        said = command("--if-none")
        assert f"Deleted the private key of {old.kid}: it signs no more." in said
        assert not (Path(keys_dir) / f"{old.kid}.pem").exists()
        assert "✓ Genuine" in main_text(stranger.get(path_of(address)))
        signing_key = read_key_set(keys_dir).signing_key(datetime.now(UTC))
        assert signing_key.kid == new.kid


def test_the_command_refuses_days_gone_by(settings):
    with pytest.raises(CommandError, match="--in-days cannot be less than 0"):
        command("--in-days", "-1")
