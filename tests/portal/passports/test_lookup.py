"""The public look-up of a passport by short code (`/p/`, `/p/<short code>`), through the
portal's look-up account, against the live sandbox."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.assurance import records, service
from portal.passports import codes, lookup
from tests.conftest import Sandbox
from tests.demo import HOLLOWFIELD, HOLLOWFIELD_FARM, MAIN_STORE
from tests.portal.accounts.helpers import upstream_calls
from tests.portal.passports.helpers import grower_creates, suspended_after_it_was_made, text

pytestmark = pytest.mark.django_db

DEMO = "7KXM4-QHT2W"
UNKNOWN = "ABCDE-FGHJK"


def lookups(calls) -> int:
    return sum(1 for report in calls if report.operation == "passport")


# --- the verdict ----------------------------------------------------------------------------------


def test_the_demo_passport_is_valid_with_its_details(visitor):
    response = visitor.get(f"/p/{DEMO}")
    assert response.status_code == 200
    page = text(response)
    assert "✓ Valid" in page
    assert "The assurance claim is valid now." in page
    assert "Not valid" not in page
    assert "Checked by the portal just now; the claim was recorded on" in page
    for detail in ("Wheat", "Extase", "Bay 3", "2026", "Stour Valley Haulage", "AE24 KTV"):
        assert detail in page
    assert "A: No post-harvest treatment has been applied to this grain." in page
    assert "DON risk assessment result (score) 12" in page
    assert 'class="verdict verdict-valid"' in response.content.decode()
    assert f"Passport {DEMO}" in page


@pytest.mark.parametrize(
    "spelling", ["7kxm4qht2w", "7KXM4QHT2W", "7kxm4-qht2w", "7KXM4 QHT2W", " 7kxm 4qht 2w"]
)
def test_every_spelling_of_the_code_leads_to_its_canonical_address(visitor, spelling):
    response = visitor.get(f"/p/{spelling}", follow=True)
    assert response.redirect_chain == [(f"/p/{DEMO}", 302)]
    assert response.status_code == 200
    assert "✓ Valid" in text(response)


def test_the_canonical_address_is_not_redirected(visitor):
    assert visitor.get(f"/p/{DEMO}").status_code == 200


def test_the_form_leads_to_the_verdict(visitor):
    form = visitor.get("/p/")
    assert form.status_code == 200
    assert "Check a passport" in text(form)
    assert 'action="/p/"' in form.content.decode()
    response = visitor.get("/p/", {"code": "7kxm4 qht2w"}, follow=True)
    assert response.redirect_chain == [(f"/p/{DEMO}", 302)]
    assert "✓ Valid" in text(response)


def test_the_form_asks_for_a_code(visitor):
    with upstream_calls() as calls:
        response = visitor.get("/p/", {"code": "   "})
    assert response.status_code == 400
    assert "Enter the passport's short code." in text(response)
    assert 'aria-invalid="true"' in response.content.decode()
    assert calls == []


def test_the_form_refuses_a_code_too_long(visitor):
    response = visitor.get("/p/", {"code": "A" * 41})
    assert response.status_code == 400
    assert "A short code has 8 to 12 letters and numbers" in text(response)


def test_every_detail_the_service_gives_is_shown_with_its_dates_as_given(visitor):
    made = grower_creates(
        records.PassportRequest(
            membership_guid=HOLLOWFIELD,
            site_guid=HOLLOWFIELD_FARM,
            store_guid=MAIN_STORE,
            crop_type="Oilseed rape",
            variety="Campus",
            store_or_bin_name="Bin 7",
            loading_date=datetime(2026, 8, 21, 7, 30, tzinfo=UTC),
            harvest_year="2026",
            haulier_company_name="Marsh Lane Haulage Ltd",
            vehicle_registration="AB12 CDE",
            trailer_number="TR-0457",
            haulier_collection_ticket_no="MLH-882913",
            post_harvest_treatment_option="B",
            post_harvest_treatment_date=datetime(2026, 8, 2, 23, 30, tzinfo=UTC),
            post_harvest_treatment_product="K-Obiol EC 25",
            don_risk_assessment_result=12.5,
            don_test_date=datetime(2026, 8, 15, 11, 20, tzinfo=UTC),
            don_test_result="Below 200 µg/kg",
            zon_test_date=datetime(2026, 8, 16, 11, 20, tzinfo=UTC),
            zon_test_result="Below 20 µg/kg",
        )
    )
    page = text(visitor.get(f"/p/{codes.normalise(made.short_code)}"))
    assert "✓ Valid" in page
    expected = [
        "Crop type Oilseed rape",
        "Variety Campus",
        "Store or bin name Bin 7",
        # A calendar day, its day as the service gives it (UTC): its time is not written.
        "Loading date 21 August 2026 Harvest year",
        "Harvest year 2026",
        f"Business name {made.business_name}",
        "Haulier company name Marsh Lane Haulage Ltd",
        "Vehicle registration AB12 CDE",
        "Trailer number TR-0457",
        "Haulier collection ticket no. MLH-882913",
        "Treatment option B: Treated after harvest: date and product below.",
        "Treatment date 2 August 2026",  # 00:30 on the 3rd in London
        "Product used K-Obiol EC 25",
        "DON risk assessment result (score) 12.5",
        "DON test date 15 August 2026 DON test result Below 200 µg/kg",
        "ZON test date 16 August 2026 ZON test result Below 20 µg/kg",
        f"Membership number {made.membership_number}",
        f"Certifier {made.certifier_name}",
    ]
    for detail in expected:
        assert detail in page
    assert made.collection_address and made.collection_address.split("\n")[0] in page


# --- unknown and malformed codes ------------------------------------------------------------------


def but_its_address(content: bytes) -> bytes:
    """A page without its own address, which the language switch's links carry back."""
    return re.sub(rb"next=[^\"]*", b"next=", content)


def test_unknown_and_malformed_codes_get_the_same_answer(visitor):
    unknown = visitor.get(f"/p/{UNKNOWN}")
    malformed = [
        visitor.get(f"/p/{code}") for code in ("0OIL1-0OIL1", "ABC", "a/b/c", "ABCDE--FGHJK")
    ]
    assert unknown.status_code == 404
    assert "No passport has that short code." in text(unknown)
    assert '<form method="get" action="/p/"' in unknown.content.decode()
    for response in malformed:
        assert response.status_code == 404
        assert but_its_address(response.content) == but_its_address(unknown.content)


def test_a_malformed_code_from_the_form_is_answered_as_an_unknown_one(visitor):
    unknown = visitor.get("/p/", {"code": UNKNOWN.lower()}, follow=True)
    malformed = visitor.get("/p/", {"code": "not a code"}, follow=True)
    assert unknown.status_code == malformed.status_code == 404
    assert but_its_address(unknown.content) == but_its_address(malformed.content)


@pytest.mark.parametrize("typed", ["..", "../admin/", "a/b", "?", "#", "%2F"])
def test_a_malformed_code_from_the_form_stays_on_the_look_up(visitor, typed):
    response = visitor.get("/p/", {"code": typed})
    assert response.status_code == 302
    assert response["Location"].startswith("/p/") and ".." not in response["Location"]
    assert visitor.get(response["Location"]).status_code == 404


def test_a_malformed_code_makes_no_call(visitor):
    with upstream_calls() as calls:
        visitor.get("/p/0000000000")
    assert calls == []


# --- a claim no longer valid ----------------------------------------------------------------------


@pytest.fixture
def suspended_later(upstream_sandbox: Sandbox) -> Iterator[str]:
    with suspended_after_it_was_made(upstream_sandbox) as short_code:
        yield short_code


def test_a_passport_whose_membership_was_suspended_since_is_not_valid(visitor, suspended_later):
    response = visitor.get(f"/p/{suspended_later}")
    assert response.status_code == 200
    page = text(response)
    assert "✗ Not valid" in page
    assert "The assurance claim is not valid now." in page
    assert "✓" not in page and "Valid " not in page.replace("Not valid", "")
    assert f"Passport {suspended_later}" in page
    # The service gave nothing but its refusal: nothing else is shown.
    assert "Barley" not in page and "The load" not in page
    assert 'class="verdict verdict-not-valid"' in response.content.decode()


# --- kept a minute --------------------------------------------------------------------------------


def test_a_verdict_is_kept_so_the_next_look_up_makes_no_call(visitor):
    with upstream_calls() as calls:
        first = visitor.get(f"/p/{DEMO}")
        second = visitor.get(f"/p/{DEMO}")
    assert lookups(calls) == 1
    assert "✓ Valid" in text(first) and "✓ Valid" in text(second)


def test_a_verdict_is_kept_for_the_setting_and_no_longer(visitor, settings, monkeypatch):
    settings.PORTAL_LOOKUP_KEEP_SECONDS = 0
    with upstream_calls() as calls:
        visitor.get(f"/p/{DEMO}")
        visitor.get(f"/p/{DEMO}")
    assert lookups(calls) == 2


def test_an_unknown_code_is_kept_too(visitor):
    with upstream_calls() as calls:
        visitor.get(f"/p/{UNKNOWN}")
        response = visitor.get(f"/p/{UNKNOWN}")
    assert lookups(calls) == 1
    assert response.status_code == 404


def test_a_kept_verdict_says_how_long_ago_the_portal_checked(visitor):
    with time_machine.travel(timezone.now(), tick=False) as clock:
        visitor.get(f"/p/{DEMO}")
        clock.shift(timedelta(seconds=40))
        assert "Checked by the portal 40 seconds ago" in text(visitor.get(f"/p/{DEMO}"))


# --- the rate limit -------------------------------------------------------------------------------


def test_look_ups_are_limited_per_client_address(visitor, settings, client_address, one_window):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 3
    for _ in range(3):
        assert visitor.get(f"/p/{UNKNOWN}").status_code == 404
    with upstream_calls() as calls:
        refused = visitor.get(f"/p/{DEMO}")
    assert calls == []
    assert refused.status_code == 429
    seconds = int(refused["Retry-After"])
    assert 1 <= seconds <= 61
    page = text(refused)
    assert "Too many look-ups" in page
    assert f"Try again in {seconds} second" in page
    assert "Valid" not in page

    other = Client(REMOTE_ADDR="203.0.113.77")
    assert other.get(f"/p/{DEMO}").status_code == 200


def test_an_ipv4_address_reached_over_ipv6_shares_its_allowance(
    visitor, settings, client_address, one_window
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 2
    assert visitor.get(f"/p/{UNKNOWN}").status_code == 404
    visitor.defaults["REMOTE_ADDR"] = f"::ffff:{client_address}"  # a dual-stack socket's
    assert visitor.get(f"/p/{UNKNOWN}").status_code == 404
    assert visitor.get(f"/p/{UNKNOWN}").status_code == 429
    visitor.defaults["REMOTE_ADDR"] = client_address
    assert visitor.get(f"/p/{UNKNOWN}").status_code == 429


def test_a_redirect_to_the_canonical_address_is_not_counted(visitor, settings, one_window):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    assert visitor.get("/p/7kxm4qht2w", follow=True).status_code == 200


# --- logs -----------------------------------------------------------------------------------------


def test_no_log_record_holds_a_whole_short_code(
    visitor, settings, caplog, suspended_later, one_window
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 6
    caplog.set_level(logging.DEBUG)
    visitor.get("/p/7kxm4qht2w", follow=True)
    visitor.get(f"/p/{suspended_later}")
    visitor.get(f"/p/{UNKNOWN}")
    visitor.get("/p/", {"code": "not a code"}, follow=True)
    visitor.get(f"/p/{DEMO}")
    visitor.get(f"/p/{DEMO}")
    assert visitor.get(f"/p/{DEMO}").status_code == 429
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    settings.PORTAL_LOOKUPS_PER_MINUTE = 100
    service.client.cache_clear()
    assert visitor.get("/p/ZZZZZ-ZZZZZ").status_code == 503
    assert caplog.records, "nothing was logged at all: the test would prove nothing"
    logged = "\n".join(
        f"{record.getMessage()} {record.args!r} {record.__dict__!r}" for record in caplog.records
    ).upper()
    for code in (DEMO, suspended_later, UNKNOWN, "ZZZZZ-ZZZZZ", "NOT A CODE"):
        assert code not in logged
        assert code.replace("-", "") not in logged
    assert codes.normalise("zzzzzzzzzz") == "ZZZZZ-ZZZZZ"


# --- the service and the portal's account ---------------------------------------------------------


def test_a_service_down_gives_a_page_that_says_so(visitor, settings):
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    service.client.cache_clear()
    response = visitor.get(f"/p/{DEMO}")
    assert response.status_code == 503
    page = text(response)
    assert "Cannot check just now" in page
    assert "Do not take this as a verdict either way." in page
    assert "Valid" not in page.replace("verdict", "")


def test_a_portal_without_a_look_up_account_says_so(visitor, settings):
    settings.ASSURANCE_LOOKUP_USERNAME = ""
    with upstream_calls() as calls:
        response = visitor.get(f"/p/{DEMO}")
    assert calls == []
    assert response.status_code == 503
    assert "it has no account for look-ups" in text(response)


# --- the pages around it --------------------------------------------------------------------------


def test_sign_in_offers_the_look_up(client):
    response = client.get("/accounts/sign-in/")
    assert '<a href="/p/">Check a passport by its short code</a>' in response.content.decode()


def test_the_navigation_offers_the_look_up_to_those_signed_in(grower):
    assert '<a href="/p/">Look up a passport</a>' in grower.get("/").content.decode()


def test_a_signed_in_user_sees_the_verdict_too(grower):
    assert "✓ Valid" in text(grower.get(f"/p/{DEMO}"))


def test_the_page_needs_its_stylesheet_alone(visitor):
    html = visitor.get(f"/p/{DEMO}").content.decode()
    assert re.findall(r'<link rel="stylesheet" href="([^"]+)"', html) == ["/static/css/lookup.css"]
    # The language switch's script only (it keeps what was typed into a form).
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/js/language.js" defer>']
    assert re.findall(r'(?:src|href)="(/[^"]*)"', html)  # links, and nothing fetched but the CSS
    assert not re.findall(r'<img|<iframe|<video|rel="preload"|rel="icon" href="/', html)


def test_only_get_is_allowed(visitor):
    assert visitor.post(f"/p/{DEMO}").status_code == 405
    assert visitor.post("/p/").status_code == 405


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("7kxm4qht2w", "7KXM4-QHT2W"),
        ("7KXM4-QHT2W", "7KXM4-QHT2W"),
        (" 7k xm4-qh t2w ", "7KXM4-QHT2W"),
        ("abcdefgh", "ABCD-EFGH"),
        ("ABCDEFGHJ", "ABCD-EFGHJ"),
        ("ABCDEFGHJKMN", "ABCDEF-GHJKMN"),
        ("ABCDEFG", None),
        ("ABCDEFGHJKMNP", None),
        ("ABCDE-FGH-JK", None),
        ("ABCDEFGHIJ", None),
        ("ABCDEFGH0J", None),
        ("ABCDEFGHLJ", None),
        ("ABCDEFGHOJ", None),
        ("ABCDEFGH1J", None),
        ("", None),
        ("ABCDÉFGHJK", None),
    ],
)
def test_short_codes_are_normalised_and_checked_in_one_place(typed, expected):
    assert codes.normalise(typed) == expected


# --- the verdict from the record ------------------------------------------------------------------


def record(status: str | None, expiry: datetime | None) -> lookup.Verdict:
    passport = records.CropPassport(short_code=DEMO, status=status, expiry_date=expiry)
    return lookup.Verdict(DEMO, passport, time.time())


@pytest.mark.parametrize(
    ("status", "expiry", "valid"),
    [
        ("Valid", datetime(2999, 1, 1, tzinfo=UTC), True),
        ("Grace", datetime(2999, 1, 1, tzinfo=UTC), True),
        ("Valid", None, True),
        ("Valid", datetime(2020, 1, 1, tzinfo=UTC), False),  # its expiry has passed
        ("Suspended", datetime(2999, 1, 1, tzinfo=UTC), False),
        ("Expired", None, False),
        ("Withdrawn", None, False),
        (None, None, False),
    ],
)
def test_the_claim_is_valid_only_with_a_valid_status_before_its_expiry(status, expiry, valid):
    assert record(status, expiry).is_valid is valid


def test_a_refused_passport_is_not_valid():
    assert not lookup.Verdict(DEMO, None, time.time()).is_valid


@pytest.mark.parametrize("spelling", [DEMO, DEMO.lower(), DEMO.replace("-", "")])
def test_a_code_with_a_slash_after_it_goes_to_its_verdict(visitor, spelling):
    response = visitor.get(f"/p/{spelling}/")
    assert response.status_code == 302 and response["Location"] == f"/p/{DEMO}"
