"""The intake clerks' pages (`/intake/`): a clerk's sites and each site's loads; "Record a load"
by short code, checked as the look-up checks it, through the live sandbox; the record form,
where every refused value changes nothing and the claim's verdict is kept with the record; a
load's page with its whole history; a correction with its reason. Who may do what is tested as
a table: the clerk of the site, the clerk of another site, the grower, staff, anyone."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from html import unescape

import msgspec
import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.accounts.session import portal_user
from portal.assurance import service
from portal.intake import clerking, loads
from portal.intake.models import Decision, IntakeSite, Load, LoadEntry
from portal.passports.models import Passport
from tests.demo import WENHAM
from tests.portal.accounts.helpers import signed_in, upstream_calls
from tests.portal.intake.builders import a_clerk, a_load, a_site
from tests.portal.passports.helpers import signed_address, suspended, text, within_one_window
from tests.portal.passports.made import (
    SOME_OF_THE_LOAD,
    made_elsewhere,
    made_here,
    wenham_made_here,
)

pytestmark = pytest.mark.django_db

SITE = "/intake/sites/stour-valley-sudbury/"
RECORD = f"{SITE}record"
UNKNOWN = "ABCDE-FGHJK"


@pytest.fixture
def site(db) -> IntakeSite:
    portal_user("grower")  # who makes the passports of the loads (made_here)
    return a_site()


@pytest.fixture
def other_site(db) -> IntakeSite:
    return a_site(name="Orwell Mills, Ipswich", buyer_business="Orwell Mills", code="orwell")


@pytest.fixture
def clerk(site, upstream_sandbox) -> Client:
    """The demo account `haulier`, made a clerk of the Stour Valley site, signed in."""
    a_clerk("haulier", site)
    return signed_in("haulier")


@pytest.fixture
def other_clerk(other_site, upstream_sandbox) -> Client:
    """The demo account `lapsed`, a clerk of another site only, signed in."""
    a_clerk("lapsed", other_site)
    return signed_in("lapsed")


def now_typed(**delta: float) -> str:
    return (timezone.localtime() + timedelta(**delta)).strftime("%Y-%m-%d %H:%M")


def good(**changed: object) -> dict[str, object]:
    """A wheat load's record as the clerk types it: accepted with a claim on specific weight."""
    typed = {
        "ticket": "T-2001", "arrival": now_typed(minutes=-30), "vehicle": "ae24  ktv",
        "gross_kg": "44120", "tare_kg": "15020", "sample_reference": "S-1",
        "sample_kept_days": "90", "moisture": "14.2", "specific_weight": "72.5",
        "protein": "11.8", "decision": "claim", "reasons": ["specific-weight"],
        "claim_1_parameter": "specific_weight", "claim_1_rate": "2.50",
    }  # fmt: skip
    return {key: value for key, value in (typed | changed).items() if value is not None}


def record_form(client: Client, code: str) -> tuple[object, str]:
    """The record page of `code` at the site, and the signed passport its form sends back."""
    response = client.get(RECORD, {"code": code})
    assert response.status_code == 200, text(response)[:2000]
    return response, re.search(r'name="passport" value="([^"]+)"', response.content.decode())[1]


def recorded(client: Client, code: str, **changed: object):
    """The record form of `code` sent, filled in as `good` with `changed`."""
    _, passport = record_form(client, code)
    return client.post(RECORD, good(**changed) | {"passport": passport})


def field_error(response, name: str) -> str:
    """The words beside the field `name`, checked to be tied to it for screen readers."""
    html = response.content.decode()
    found = re.search(rf'<ul class="errorlist" id="id_{name}_error">(.*?)</ul>', html, re.S)
    assert found, f"no error beside {name}"
    field = re.search(rf'<(?:input|select|textarea)[^>]*name="{name}"[^>]*>', html)[0]
    if 'type="radio"' not in field and 'type="checkbox"' not in field:
        assert 'aria-invalid="true"' in field
        assert re.search(rf'aria-describedby="[^"]*id_{name}_error', field)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", found[1])).split())


TODAY = "Loads recorded today, newest first"
EARLIER = "Loads recorded before today, newest first"


def rows(response, caption: str) -> list[str]:
    """The words of each row of the site's table of `caption`."""
    html = response.content.decode()
    table = re.search(rf"<caption>{caption}</caption>.*?</table>", html, re.S)[0]
    body = table.split("</thead>")[1]
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split())
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]  # fmt: skip


def tickets(response, caption: str) -> list[str]:
    return [row.split()[0] for row in rows(response, caption)]


# --- a clerk's sites ------------------------------------------------------------------------------


def test_a_clerk_of_one_site_goes_straight_to_it(clerk):
    response = clerk.get("/intake/")
    assert (response.status_code, response["Location"]) == (302, SITE)
    page = text(clerk.get(SITE))
    assert "Stour Valley Grain, Sudbury Intake of Stour Valley Grain Ltd" in page
    assert "No load has been recorded here today." in page
    assert f'href="{SITE}upload">upload a day\'s tickets</a>' in clerk.get(SITE).content.decode()


def test_a_clerk_of_several_sites_chooses_one(clerk, other_site, site):
    a_clerk("haulier", other_site)
    a_load(site, "T-1")
    response = clerk.get("/intake/")
    assert response.status_code == 200
    page = text(response)
    assert "Orwell Mills, Ipswich Orwell Mills 0 loads today" in page
    assert "Stour Valley Grain, Sudbury Stour Valley Grain Ltd 1 load today" in page


@pytest.mark.parametrize("who", ["grower", "staff"])
def test_someone_who_is_a_clerk_of_no_site_is_told_so(who, request, site):
    client = request.getfixturevalue(who)
    response = client.get("/intake/")
    assert response.status_code == 403
    assert "You are not a clerk of any intake site" in text(response)
    assert client.get("/intake/record?code=7KXM4-QHT2W").status_code == 403


def test_the_header_links_to_intake_for_clerks_only(clerk, grower, site):
    assert ">Intake</a>" in clerk.get("/").content.decode()
    assert ">Intake</a>" not in grower.get("/").content.decode()
    a_clerk("grower", site)  # seen on the very next page, the header's answer kept or not
    assert ">Intake</a>" in grower.get("/").content.decode()
    site.clerks.clear()
    assert ">Intake</a>" not in grower.get("/").content.decode()


def test_the_site_lists_its_loads_today_and_earlier_newest_first_with_queries_first(
    clerk, site, other_site
):
    with time_machine.travel(timezone.now() - timedelta(days=3)):
        a_load(site, "T-OLD")
    a_load(site, "T-1")
    queried = a_load(site, "T-2", vehicle="QQ11 AAA")
    LoadEntry.objects.create(load=queried, kind=LoadEntry.Kind.QUERIED, by="grower",
                             words="Our own test says 77 kg/hl.")  # fmt: skip
    a_load(other_site, "T-ELSEWHERE")
    response = clerk.get(SITE)
    page = text(response)
    assert "1 load queried by its grower Each waits for your answer" in page
    today = rows(response, TODAY)
    assert tickets(response, TODAY) == ["T-2", "T-1"]
    code = queried.passport.short_code
    assert today[0] == (f"T-2 3 September 2026, 11:15 {code} QQ11 AAA 29,100 "
                        "Accepted with a claim Queried by the grower")  # fmt: skip
    assert today[1].endswith("Accepted with a claim Recorded")
    assert tickets(response, EARLIER) == ["T-OLD"]
    assert "T-ELSEWHERE" not in page


def test_earlier_loads_come_a_page_at_a_time(clerk, site, settings):
    code = made_here()
    with time_machine.travel(timezone.now() - timedelta(days=2)):
        for number in range(27):
            a_load(site, f"T-{number:02}", Passport.objects.get(short_code=code))
    first = clerk.get(SITE)
    assert "Page 1 of 2" in text(first)
    assert len(rows(first, EARLIER)) == 25
    second = clerk.get(f"{SITE}?page=2")
    assert tickets(second, EARLIER) == ["T-01", "T-00"]
    assert "Today" not in text(second)
    assert clerk.get(f"{SITE}?page=nonsense").status_code == 200


# --- "Record a load": the code ------------------------------------------------------------------


def test_the_code_is_checked_and_the_record_form_shows_the_passport_and_its_verdict(clerk):
    code = made_here()
    response, _ = record_form(clerk, code.lower().replace("-", ""))
    page = text(response)
    assert f"Passport {code} ✓ Valid now Checked by the portal on" in page
    assert "Business name Hollowfield Farms Ltd Crop type Wheat Variety Extase" in page
    assert "Specific weight (kg/hl)" in page  # the wheat's results
    assert "Oil (%)" not in page
    assert "Record the load" in page


def test_the_record_form_shows_the_sites_specification_beside_each_result(clerk):
    response, _ = record_form(clerk, made_here())
    html = response.content.decode()
    helped = re.search(r'<div class="helptext" id="id_specific_weight_helptext">(.*?)</div>',
                       html, re.S)  # fmt: skip
    assert helped and helped[1].strip() == "The site's specification: 76 kg/hl or more."
    field = re.search(r'<input[^>]*name="specific_weight"[^>]*>', html)[0]
    assert 'aria-describedby="id_specific_weight_helptext' in field
    assert 'data-lowest="76.00"' in field and "data-highest" not in field  # for the script
    assert 'id="id_moisture_helptext"' not in html  # the site has no specification of it


def test_the_vehicle_is_filled_in_from_the_passport_where_it_names_one(clerk):
    with_a_vehicle = msgspec.structs.replace(SOME_OF_THE_LOAD, vehicle_registration="AE24 KTV")
    response, _ = record_form(clerk, made_here(with_a_vehicle))
    assert re.search(r'<input[^>]*name="vehicle"[^>]*value="AE24 KTV"', response.content.decode())
    response, _ = record_form(clerk, made_here())  # none named
    assert not re.search(r'<input[^>]*name="vehicle"[^>]*value=', response.content.decode())


def test_accepted_out_of_specification_is_warned_of_and_recorded_once_confirmed(clerk):
    accepted = {"decision": "accepted", "reasons": None, "claim_1_parameter": None,
                "claim_1_rate": None}  # fmt: skip
    _, passport = record_form(clerk, made_here())
    warned = clerk.post(RECORD, good(**accepted) | {"passport": passport})
    assert warned.status_code == 400
    assert ("Out of the site's specification: Specific weight 72.5 kg/hl (76 kg/hl or more). "
            'Tick "Accepted all the same" to record the load as accepted, or choose another '
            "decision.") in field_error(warned, "accepted_all_the_same")  # fmt: skip
    assert Load.objects.count() == 0
    confirmed = clerk.post(RECORD, good(**accepted, accepted_all_the_same="on")
                           | {"passport": passport})  # fmt: skip
    assert confirmed.status_code == 303
    assert Load.objects.get().decision == Decision.ACCEPTED
    within = good(ticket="T-2002", specific_weight="77", **accepted)
    assert clerk.post(RECORD, within | {"passport": passport}).status_code == 303  # no warning


def test_a_scanned_look_up_address_is_read_as_its_code(clerk):
    code = made_here()
    response, _ = record_form(clerk, f"https://portal.example/p/{code}")
    assert f"Passport {code}" in text(response)


def test_a_scanned_signed_address_is_read_as_its_code_once_its_signature_holds(clerk):
    code = made_here()
    address = signed_address(code)  # what the passport's QR code holds
    response, _ = record_form(clerk, address)
    assert f"Passport {code}" in text(response)
    altered = address[:-10] + ("A" if address[-10] != "A" else "B") + address[-9:]
    refused = clerk.get(RECORD, {"code": altered})
    assert refused.status_code == 400
    assert "A short code has 8 to 12 letters and numbers" in field_error(refused, "code")


@pytest.mark.parametrize(
    ("typed", "status", "words"),
    [
        ("", 400, "Enter the passport's short code."),
        ("not a code", 400, "A short code has 8 to 12 letters and numbers"),
        (UNKNOWN, 404, f"No passport has the short code {UNKNOWN}."),
    ],
)
def test_a_code_refused_says_why_beside_it(clerk, typed, status, words):
    response = clerk.get(RECORD, {"code": typed})
    assert response.status_code == status
    assert words in field_error(response, "code")
    assert "Record the load" not in text(response)


def test_a_passport_the_portal_does_not_know_is_said_so(clerk):
    code = made_elsewhere()
    response = clerk.get(RECORD, {"code": code})
    assert response.status_code == 404
    assert f"The portal has no record of passport {code}" in field_error(response, "code")


def test_the_code_counts_against_the_look_ups_allowance(clerk, settings):
    settings.PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE = 1
    code = made_here()
    with within_one_window("127.0.0.1"):
        record_form(clerk, code)
        response = clerk.get(RECORD, {"code": code})
    assert response.status_code == 429
    assert "checked as many passports as it may for now" in field_error(response, "code")
    assert int(response["Retry-After"]) > 0


# --- the record ---------------------------------------------------------------------------------


def test_a_load_is_recorded_with_the_verdict_then_and_its_page_shown(clerk, site):
    code = made_here()
    response = recorded(clerk, code)
    load = Load.objects.get()
    assert (response.status_code, response["Location"]) == (303, f"/intake/loads/{load.pk}/")
    page = text(clerk.get(response["Location"]))
    assert "Recorded: ticket T-2001 at Stour Valley Grain, Sudbury." in page
    assert "Accepted with a claim : Specific weight below specification" in page
    assert "Net weight 29,100 kg (gross 44,120 kg, tare 15,020 kg)" in page
    assert "Specific weight 72.5 kg/hl 76 kg/hl or more ✗ Out of specification" in page
    assert "Specific weight £2.50 a tonne 29.100 t £72.75" in page
    assert f"Passport {code} ✓ Valid The claim as the portal checked it on" in page
    assert "History Recorded by haulier on" in page
    [entry] = load.entries.all()
    assert entry.verdict["valid"] is True and entry.verdict["status"] == "Valid"
    assert entry.verdict["expiry"] and entry.verdict["checked_at"]
    assert (load.ticket, load.net_kg, load.passport.short_code) == ("T-2001", 29_100, code)
    assert loads.latest_figures(load).vehicle == "AE24 KTV"


def test_sending_the_form_asks_nothing_of_the_service_again(clerk):
    code = made_here()
    _, passport = record_form(clerk, code)
    with upstream_calls() as calls:
        assert clerk.post(RECORD, good() | {"passport": passport}).status_code == 303
    assert calls == []


def test_a_verdict_gone_stale_is_asked_again_before_recording(clerk, monkeypatch):
    monkeypatch.setattr(clerking, "VERDICT_HOLDS", timedelta(minutes=2))
    code = made_here()
    _, passport = record_form(clerk, code)
    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        with upstream_calls() as calls:
            response = clerk.post(RECORD, good() | {"passport": passport})
        assert response.status_code == 303
        checked_at = Load.objects.get().entries.get().verdict["checked_at"]
        assert timezone.now() - datetime.fromisoformat(checked_at) < timedelta(seconds=5)
    assert [call.operation for call in calls] == ["passport"]


def test_a_stale_verdict_that_cannot_be_asked_again_records_nothing(clerk, monkeypatch, settings):
    monkeypatch.setattr(clerking, "VERDICT_HOLDS", timedelta(minutes=2))
    _, passport = record_form(clerk, made_here())
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"  # the service out of reach
    service.client.cache_clear()
    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        response = clerk.post(RECORD, good() | {"passport": passport})
    assert response.status_code == 503
    assert ("Nothing was recorded: the passport's claim could not be checked again. The "
            "passport could not be checked: the Assurance service could not be reached.") in text(
        response
    )  # fmt: skip
    assert 'name="gross_kg" value="44120"' in response.content.decode()  # what was typed stays
    assert Load.objects.count() == 0


def test_a_passport_not_valid_is_said_so_and_its_load_may_be_rejected(clerk, upstream_sandbox):
    code = wenham_made_here()
    with suspended(upstream_sandbox, WENHAM):
        response, _ = record_form(clerk, code)
        assert "✗ Not valid The service shows nothing of a passport whose claim" in text(response)
        # A passport of no crop: the form has no quality results.
        response = recorded(clerk, code, decision="rejected", reasons=["passport"],
                            claim_1_parameter=None, claim_1_rate=None, moisture=None,
                            specific_weight=None, protein=None)  # fmt: skip
    assert response.status_code == 303
    entry = Load.objects.get().entries.get()
    assert entry.verdict["valid"] is False
    assert "✗ Not valid" in text(clerk.get(response["Location"]))


@pytest.mark.parametrize(
    ("changed", "field", "words"),
    [
        ({"gross_kg": "-5"}, "gross_kg", "greater than or equal to 1"),
        ({"gross_kg": "900000"}, "gross_kg", "less than or equal to 60000"),
        ({"tare_kg": "50000"}, "tare_kg", "below the gross weight"),
        ({"moisture": "300"}, "moisture", "cannot be measured"),
        ({"arrival": now_typed(days=40)}, "arrival", "later than now"),
        ({"arrival": "2026-08-20 10:00"}, "arrival", "before it was loaded"),
        ({"ticket": ""}, "ticket", "required"),
        ({"ticket": "=1+1"}, "ticket", "letters, digits"),
        ({"decision": "rejected", "reasons": None, "claim_1_parameter": None,
          "claim_1_rate": None}, "reasons", "Say why"),
        ({"decision": "maybe"}, "decision", "Not a decision: send one of accepted,"),
        ({"claim_1_parameter": None, "claim_1_rate": None}, "claim_1_parameter", "at least one"),
        ({"claim_1_tonnes": "40"}, "claim_1_tonnes", "at most the load's 29.100 tonnes"),
        ({"reasons": ["no-such-reason"]}, "reasons", "Not one of the reasons: send any of"),
    ],
)  # fmt: skip
def test_every_bad_value_is_said_beside_its_field_and_records_nothing(clerk, changed, field, words):
    response = recorded(clerk, made_here(), **changed)
    assert response.status_code == 400
    assert words in field_error(response, field)
    page = text(response)
    assert "Nothing was recorded." in page
    assert f'href="#id_{field}' in response.content.decode()  # the summary links to it
    assert Load.objects.count() == 0 and LoadEntry.objects.count() == 0


def test_weights_refused_with_a_claim_given_are_said_on_the_tare_only(clerk):
    response = recorded(clerk, made_here(), gross_kg="12000", tare_kg="14500")
    assert response.status_code == 400
    assert "below the gross weight" in field_error(response, "tare_kg")
    summary = re.search(r'<div class="error-summary".*?</ul>', response.content.decode(), re.S)[0]
    assert summary.count("<li>") == 1
    assert "at least one claim" not in text(response)


def test_the_labels_have_no_colon_added_after_them(clerk):
    page, _ = record_form(clerk, made_here())
    html = page.content.decode()
    for number in (1, 2, 3):
        label = re.search(rf'<label for="id_claim_{number}_parameter"[^>]*>(.*?)</label>', html)
        assert label[1] == f"Claim {number}: on"
    assert re.search(r'<label for="id_gross_kg"[^>]*>Gross weight \(kg\)</label>', html)


def test_a_claim_on_the_net_tonnes_stays_blank_and_follows_a_correction(clerk, site):
    response = recorded(clerk, made_here())  # claim 1's tonnes left blank
    load = Load.objects.get()
    assert loads.latest_figures(load).claims[0].tonnes is None
    correct = f"/intake/loads/{load.pk}/correct"
    form = clerk.get(correct).content.decode()
    assert re.search(r'<input[^>]*name="claim_1_tonnes"[^>]*>', form)[0].count("value=") == 0

    lighter = good(gross_kg="43120", claim_1_tonnes="") | {"reason": "Gross read again"}
    response = clerk.post(correct, lighter)
    assert response.status_code == 303, field_error(response, "claim_1_tonnes")
    assert loads.latest_figures(load).claims[0].tonnes is None
    page = text(clerk.get(response["Location"]))
    assert "Specific weight £2.50 a tonne 28.100 t £70.25" in page
    assert (
        "Claims: from Specific weight £2.50 a tonne on the load's net 29.100 t = £72.75 → to "
        "Specific weight £2.50 a tonne on the load's net 28.100 t = £70.25"
    ) in page


def test_a_ticket_used_at_the_site_is_refused_on_the_ticket(clerk, site):
    a_load(site, "T-2001")
    response = recorded(clerk, made_here())
    assert response.status_code == 400
    assert "Ticket T-2001 is recorded at Stour Valley Grain, Sudbury already" in field_error(
        response, "ticket"
    )
    assert Load.objects.count() == 1


def test_the_same_form_sent_twice_records_the_load_once(clerk):
    code = made_here()
    _, passport = record_form(clerk, code)
    first = clerk.post(RECORD, good() | {"passport": passport})
    again = clerk.post(RECORD, good() | {"passport": passport})
    assert again.status_code == 303 and again["Location"] == first["Location"]
    assert "was recorded already: the form was sent twice" in text(clerk.get(again["Location"]))
    assert Load.objects.count() == 1 and LoadEntry.objects.count() == 1


def test_a_form_without_its_signed_passport_records_nothing(clerk, other_site):
    code = made_here()
    _, passport = record_form(clerk, code)
    for forged in ("", "nonsense", passport[:-2] + "xx"):
        response = clerk.post(RECORD, good() | {"passport": forged})
        assert response.status_code == 400
        assert "Look the passport up by its short code first." in text(response)
    a_clerk("haulier", other_site)  # a passport looked up at one site, sent to another
    response = clerk.post("/intake/sites/orwell/record", good() | {"passport": passport})
    assert response.status_code == 400
    assert Load.objects.count() == 0


# --- a load's page and its correction -----------------------------------------------------------


def test_a_correction_is_prefilled_needs_a_reason_and_shows_in_the_history(clerk, site):
    load = a_load(site)
    correct = f"/intake/loads/{load.pk}/correct"
    form = clerk.get(correct).content.decode()
    assert re.search(r'name="tare_kg" value="15020"', form)
    assert re.search(r'name="ticket" value="T-1001"[^>]* disabled', form)
    assert "specific_weight" in re.search(r'name="claim_1_parameter".*?</select>', form, re.S)[0]

    changed = good(ticket="T-9", arrival="2026-09-03 11:15", tare_kg="14020", moisture=None,
                   decision="accepted", reasons=None, claim_1_parameter=None,
                   claim_1_rate=None, accepted_all_the_same="on")  # fmt: skip
    refused = clerk.post(correct, changed)
    assert refused.status_code == 400
    assert "Say why the record is corrected." in field_error(refused, "reason")
    assert LoadEntry.objects.count() == 1

    response = clerk.post(correct, changed | {"reason": "Tare of the wrong lorry"})
    assert (response.status_code, response["Location"]) == (303, f"/intake/loads/{load.pk}/")
    page = text(clerk.get(response["Location"]))
    assert "Corrected: ticket T-1001." in page
    assert "The record now Accepted Net weight 30,100 kg" in page
    assert "Recorded by intake on" in page
    assert "Corrected by haulier on" in page and ": Tare of the wrong lorry" in page
    for change in ("Tare weight (kg): from 15,020 → to 14,020",
                   "Net weight (kg): from 29,100 → to 30,100",
                   "Decision: from Accepted with a claim → to Accepted",
                   "Moisture (%): from 14.2 → to none",
                   "Claims: from Specific weight £2.50 a tonne on 29.100 t = £72.75 → to none",
                   ):  # fmt: skip
        assert change in page
    assert "Ticket" not in page.split("Tare of the wrong lorry")[1]  # the ticket stays
    load.refresh_from_db()
    assert (load.ticket, load.net_kg, load.decision) == ("T-1001", 30_100, Decision.ACCEPTED)


def test_a_correction_that_changes_nothing_or_is_sent_twice_adds_nothing(clerk, site):
    load = a_load(site)
    correct = f"/intake/loads/{load.pk}/correct"
    corrected = good(tare_kg="15000") | {"reason": "Tare read again"}
    assert clerk.post(correct, corrected).status_code == 303
    again = clerk.post(correct, corrected)
    assert again.status_code == 400
    assert "Nothing was changed: a correction changes at least one of the figures." in text(again)
    assert LoadEntry.objects.filter(kind="corrected").count() == 1


@pytest.mark.parametrize(
    ("changed", "field"),
    [({"gross_kg": "0"}, "gross_kg"), ({"tare_kg": "99999"}, "tare_kg"),
     ({"moisture": "300"}, "moisture"), ({"arrival": "next year"}, "arrival")],
)  # fmt: skip
def test_a_correction_with_a_bad_value_changes_nothing(clerk, site, changed, field):
    load = a_load(site)
    response = clerk.post(f"/intake/loads/{load.pk}/correct",
                          good(**changed) | {"reason": "Typing error"})  # fmt: skip
    assert response.status_code == 400
    assert field_error(response, field)
    assert "Nothing was corrected." in text(response)
    assert LoadEntry.objects.count() == 1
    load.refresh_from_db()
    assert load.net_kg == 29_100


# --- who may do what ----------------------------------------------------------------------------

# What each may do with the site's loads: see the site's page, a load's page and its correction
# form; record (the code's page, the form sent); correct (the form sent). 302: sent to sign in.
MAY = {
    "clerk": {"site": 200, "load": 200, "correct form": 200, "record": 200, "record sent": 303,
              "correct sent": 303},
    "other_clerk": dict.fromkeys(
        ["site", "load", "correct form", "record", "record sent", "correct sent"], 404),
    "grower": dict.fromkeys(
        ["site", "load", "correct form", "record", "record sent", "correct sent"], 404),
    "staff": dict.fromkeys(
        ["site", "load", "correct form", "record", "record sent", "correct sent"], 404),
    "anyone": dict.fromkeys(
        ["site", "load", "correct form", "record", "record sent", "correct sent"], 302),
}  # fmt: skip


@pytest.mark.parametrize("who", list(MAY))
def test_who_may_see_record_and_correct(who, request, clerk, site, client):
    load = a_load(site)
    _, passport = record_form(clerk, made_here())
    actor = client if who == "anyone" else request.getfixturevalue(who)
    answers = {
        "site": actor.get(SITE),
        "load": actor.get(f"/intake/loads/{load.pk}/"),
        "correct form": actor.get(f"/intake/loads/{load.pk}/correct"),
        "record": actor.get(RECORD, {"code": load.passport.short_code}),
        "record sent": actor.post(RECORD, good() | {"passport": passport}),
        "correct sent": actor.post(f"/intake/loads/{load.pk}/correct",
                                   good(tare_kg="14020") | {"reason": "Wrong lorry"}),
    }  # fmt: skip
    assert {action: answer.status_code for action, answer in answers.items()} == MAY[who]
    if who != "clerk":
        assert Load.objects.count() == 1 and LoadEntry.objects.count() == 1
        for answer in answers.values():
            assert "T-1001" not in answer.content.decode()
    if who == "anyone":
        assert answers["site"]["Location"].startswith("/accounts/sign-in/?next=")


# --- from the gate check's table ----------------------------------------------------------------


def checked(client: Client, codes: str):
    sent = client.post("/p/check", {"codes": codes})
    assert sent.status_code == 303
    return client.get(sent["Location"])


def test_the_intake_checks_table_offers_clerks_to_record_each_valid_code(clerk, grower):
    code = made_here()
    table = checked(clerk, f"{code}\n{UNKNOWN}").content.decode()
    link = f'href="/intake/record?code={code}" aria-label="Record a load of {code}">Record</a>'
    assert link in table
    assert table.count(">Record</a>") == 1  # not for the code of no passport
    assert ">Record</a>" not in checked(grower, code).content.decode()
    assert ">Record</a>" not in checked(Client(), code).content.decode()


def test_record_with_no_code_opens_the_empty_code_form_of_the_clerks_site(clerk):
    response = clerk.get("/intake/record", follow=True)
    assert response.redirect_chain == [(RECORD, 302)]
    assert response.status_code == 200
    page = text(response)
    assert "Look the passport up by its short code" in page
    assert "Enter the passport's short code." not in page


def test_record_from_the_check_lands_on_the_form_of_the_clerks_site(clerk, other_site):
    code = made_here()
    response = clerk.get("/intake/record", {"code": code}, follow=True)
    assert response.redirect_chain == [(f"{RECORD}?code={code}", 302)]
    assert "Record the load" in text(response)
    a_clerk("haulier", other_site)  # a clerk of two sites chooses where the load arrived
    page = text(clerk.get("/intake/record", {"code": code}))
    assert "You are a clerk of several sites: at which did the load arrive?" in page
    assert (
        f'href="/intake/sites/orwell/record?code={code}"'
        in clerk.get("/intake/record", {"code": code}).content.decode()
    )
