"""Creating a passport through the portal's form, against the live sandbox (pytest-httpserver
only for answers the sandbox cannot give)."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from portal.accounts import credentials
from portal.assurance import codec, records, service
from portal.jobs.models import Job
from portal.passports import making
from portal.passports.forms import PassportForm
from portal.passports.models import Passport
from tests.demo import (
    HOLLOWFIELD,
    HOLLOWFIELD_FARM,
    MAIN_STORE,
    MARSH_END,
    WENHAM_SITE,
)
from tests.portal.accounts.helpers import sign_in
from tests.portal.passports.helpers import text
from tests.portal.passports.made import filled

pytestmark = pytest.mark.django_db


# --- the form ---------------------------------------------------------------------------------


def test_the_form_offers_the_growers_memberships_and_sensible_defaults(grower):
    response = grower.get("/passports/new")
    assert response.status_code == 200
    page = text(response)
    assert "Hollowfield Farms Ltd" in page and "Wenham Grange Partnership" in page
    assert "disabled" not in response.content.decode().split('name="membership"')[1][:200]
    today = timezone.localdate()
    assert f'value="{today:%Y-%m-%d}"' in response.content.decode()
    year = today.year if today.month >= 7 else today.year - 1
    assert f'name="harvest_year" value="{year}"' in response.content.decode()
    assert "Choose a membership to see its sites." in page
    for heading in ("The load", "Post-harvest treatment", "Mycotoxin risk"):
        assert heading in page
    assert "No post-harvest treatment has been applied to this grain." in page


def test_someone_with_no_memberships_is_told_why_they_cannot_create(client, upstream_sandbox):
    sign_in(client, "haulier")
    response = client.get("/passports/new")
    assert response.status_code == 200
    assert "You are not a registered contact of any membership" in text(response)
    assert 'id="passport-form"' not in response.content.decode()


def test_memberships_whose_claim_is_not_valid_cannot_be_chosen(client, upstream_sandbox):
    sign_in(client, "lapsed")
    response = client.get("/passports/new")
    html = response.content.decode()
    radios = re.findall(r'<input type="radio" name="membership"[^>]*>', html)
    assert len(radios) == 2 and all("disabled" in radio for radio in radios)
    page = text(response)
    assert "Suspended" in page and "The certificate expired on" in page
    assert "None of your memberships has an assurance claim that is valid now" in page
    assert "Create passport" not in page


def test_without_javascript_choosing_a_membership_shows_its_sites(grower):
    form = {"submission": str(uuid.uuid4()), "membership": HOLLOWFIELD, "step": "choose"}
    response = grower.post("/passports/new", form)
    assert response.status_code == 200
    page = text(response)
    assert "Hollowfield Farm" in page and "Marsh End Barns" in page
    assert "Wenham Grange, The Street" not in page
    assert "errorlist" not in response.content.decode()  # nothing asked of the user yet
    stores = grower.post("/passports/new", {**form, "site": MARSH_END})
    assert "Marsh End flat store" in text(stores) and "Main grain store" not in text(stores)


def test_with_htmx_a_choice_swaps_only_what_it_narrows(grower):
    form = {"membership": HOLLOWFIELD, "step": "choose"}
    places = grower.post(
        "/passports/new", form, headers={"HX-Request": "true", "HX-Target": "places"}
    )
    assert places.content.decode().lstrip().startswith('<div id="places">')
    assert "Marsh End Barns" in text(places) and "<html" not in places.content.decode()
    stores = grower.post(
        "/passports/new",
        {**form, "site": HOLLOWFIELD_FARM},
        headers={"HX-Request": "true", "HX-Target": "stores"},
    )
    assert stores.content.decode().lstrip().startswith('<div id="stores">')
    assert "Dryer bins 1-6" in text(stores)


# --- creating ---------------------------------------------------------------------------------


def test_the_grower_creates_a_passport_which_is_recorded_and_its_pdf_started(grower):
    response = grower.post("/passports/new", filled(grower))
    assert response.status_code == 303
    code = re.fullmatch(r"/passports/([A-Z0-9]+-[A-Z0-9]+)/", response["Location"])[1]
    passport = Passport.objects.get(short_code=code)
    assert passport.membership_guid == HOLLOWFIELD and passport.site_guid == HOLLOWFIELD_FARM
    assert passport.store_guid == MAIN_STORE
    assert passport.made_by.username == "grower"
    record = passport.crop_passport
    assert record.crop_type == "Wheat" and record.vehicle_registration == "AB12 CDE"
    assert record.loading_date.date().isoformat() == "2026-08-21"
    assert record.don_risk_assessment_result == 12
    assert record.business_name == "Hollowfield Farms Ltd"
    assert "Long Lane" in record.collection_address
    job = Job.objects.get(owner=passport.made_by, kind="passport-pdf")
    assert code in job.title


def test_empty_optional_fields_are_left_out_of_the_request(grower):
    form = filled(grower, crop_type="", variety="", store="", don_risk_assessment_result="")
    form["post_harvest_treatment_option"] = ""
    response = grower.post("/passports/new", form)
    assert response.status_code == 303
    record = Passport.objects.get().crop_passport
    assert record.crop_type is None and record.variety is None and record.store_guid is None
    assert record.don_risk_assessment_result is None


def first_still_being_made(grower: Client, form: dict) -> Passport:
    """The row the first sending of `form` has written before it asks the service, as it is
    while the service makes the passport."""
    passport = making.claim(uuid.UUID(form["submission"]), _request_of(grower, form),
                            get_user_model().objects.get(username="grower"))  # fmt: skip
    assert passport is not None
    return passport


def test_the_same_form_sent_twice_makes_one_passport(grower):
    form = filled(grower)
    first = grower.post("/passports/new", form)
    second = grower.post("/passports/new", form)
    assert second.status_code == 303 and second["Location"] == first["Location"]
    assert Passport.objects.count() == 1


def test_a_second_sending_answers_at_once_while_the_first_is_still_being_made(grower):
    form = filled(grower)
    in_flight = first_still_being_made(grower, form)
    response = grower.post("/passports/new", form)
    assert response.status_code == 303
    waiting = f"/passports/new/{form['submission']}/"
    assert response["Location"] == waiting
    page = grower.get(waiting)
    assert "Your passport is being made" in text(page)
    assert '<meta http-equiv="refresh" content="3">' in page.content.decode()
    making.make(in_flight, credentials.bearer(grower.session), _request_of(grower, form))
    made = grower.get(waiting)
    assert made.status_code == 302
    assert made["Location"] == f"/passports/{in_flight.short_code}/"
    assert Passport.objects.count() == 1


def test_when_the_first_sending_failed_meanwhile_the_page_says_so_and_the_next_makes_it(grower):
    form = filled(grower)
    first_still_being_made(grower, form)
    assert grower.post("/passports/new", form)["Location"].startswith("/passports/new/")
    Passport.objects.all().delete()  # as the first sending does when the service refuses it
    page = grower.get(f"/passports/new/{form['submission']}/")
    assert "Your passport was not made" in text(page)
    again = grower.post("/passports/new", form)
    assert again.status_code == 303
    assert Passport.objects.get().short_code in again["Location"]


def test_a_submission_abandoned_by_a_process_that_died_is_made_by_the_next(grower):
    form = filled(grower)
    first_still_being_made(grower, form)
    with time_machine.travel(timezone.now() + timedelta(minutes=5)):
        assert "Your passport was not made" in text(
            grower.get(f"/passports/new/{form['submission']}/")
        )
        response = grower.post("/passports/new", form)
    assert response.status_code == 303
    passport = Passport.objects.get()
    assert passport.is_made and passport.short_code in response["Location"]


def test_with_htmx_the_waiting_page_hears_only_when_something_changed(grower):
    form = filled(grower)
    in_flight = first_still_being_made(grower, form)
    waiting = f"/passports/new/{form['submission']}/"
    htmx = {"HX-Request": "true"}
    page = grower.get(waiting).content.decode()
    assert f'hx-get="{waiting}" hx-trigger="every 2s"' in page
    assert grower.get(waiting, headers=htmx).status_code == 204  # still being made
    making.make(in_flight, credentials.bearer(grower.session), _request_of(grower, form))
    made = grower.get(waiting, headers=htmx)
    assert made["HX-Redirect"] == f"/passports/{in_flight.short_code}/"


def test_with_htmx_the_waiting_page_says_when_the_first_sending_failed(grower):
    form = filled(grower)
    first_still_being_made(grower, form).delete()  # as a refused first sending does
    response = grower.get(f"/passports/new/{form['submission']}/", headers={"HX-Request": "true"})
    assert response.status_code == 286  # nothing more to look for
    assert "Your passport was not made" in text(response)
    assert "<html" not in response.content.decode()


def test_someone_else_finds_nothing_at_a_forms_waiting_address(grower, partner):
    form = filled(grower)
    first_still_being_made(grower, form)
    page = partner.get(f"/passports/new/{form['submission']}/")
    assert "Your passport was not made" in text(page)


def _request_of(grower: Client, form: dict) -> records.PassportRequest:
    """The service's request for the form, as the create view makes it."""
    memberships = service.client().authorisation(credentials.bearer(grower.session)).memberships
    bound = PassportForm(form, memberships=memberships)
    assert bound.is_valid()
    return bound.passport_request()


# --- errors -----------------------------------------------------------------------------------


def test_form_errors_sit_beside_their_fields_and_nothing_typed_is_lost(grower):
    form = filled(
        grower, membership="", site="", harvest_year="26", don_risk_assessment_result="-3",
        loading_date="21st of August", variety="Skyfall", post_harvest_treatment_option="B",
    )  # fmt: skip
    response = grower.post("/passports/new", form)
    assert response.status_code == 400
    html, page = response.content.decode(), text(response)
    assert "The passport was not made." in page
    assert "Choose the membership this load is assured under." in page
    assert "Enter the harvest year as four digits, for example 2026." in page
    assert "The DON risk score cannot be below 0." in page
    assert "Enter the loading date as a real date." in page
    assert "Option B is a treatment: give the date it was treated." in page
    assert 'value="Skyfall"' in html and 'value="21st of August"' in html
    assert 'aria-invalid="true"' in html
    assert Passport.objects.count() == 0


def test_a_site_of_another_membership_cannot_be_chosen(grower):
    response = grower.post("/passports/new", filled(grower, site=WENHAM_SITE))
    assert response.status_code == 400
    assert "Choose one of this membership's sites." in text(response)
    assert Passport.objects.count() == 0


def test_the_services_data_errors_sit_beside_the_fields_they_name(grower, httpserver, settings):
    form = filled(grower)  # the memberships are kept from the form's page
    httpserver.expect_request("/v1/passports.eb", method="POST").respond_with_json(
        {"Errors": [
            {"Code": "DataError:LoadingDate:FormatRule", "Message": "LoadingDate is not a date."},
            {"Code": "DataError:body:FormatRule", "Message": "The body could not be read."},
        ]},
        status=400,
    )  # fmt: skip
    settings.ASSURANCE_BASE_URL = httpserver.url_for("/")
    service.client.cache_clear()
    response = grower.post("/passports/new", form)
    assert response.status_code == 400
    html = response.content.decode()
    loading = html.split('id="id_loading_date"')[0].rsplit('<div class="field', 1)[1]
    assert "LoadingDate is not a date." in loading
    assert "The body could not be read." in text(response)
    assert 'value="Extase"' in html
    assert Passport.objects.count() == 0


@pytest.mark.parametrize(
    ("code", "status", "said"),
    [
        ("OperationError:NotAContact", 403, "you are not a registered contact of this membership"),
        ("OperationError:StatusNotValid", 400, "The assurance claim of this membership is not"),
    ],
)
def test_refusals_say_what_to_do(grower, httpserver, settings, code, status, said):
    form = filled(grower)
    httpserver.expect_request("/v1/passports.eb", method="POST").respond_with_json(
        {"Errors": [{"Code": code, "Message": "No."}]}, status=status
    )
    kept = cache.get(f"authorisation:{get_user_model().objects.get(username='grower').pk}")
    httpserver.expect_request("/v1/authorisation.eb").respond_with_json(codec.to_mapping(kept))
    settings.ASSURANCE_BASE_URL = httpserver.url_for("/")
    service.client.cache_clear()
    response = grower.post("/passports/new", form)
    assert response.status_code == 400
    assert said in text(response)
    assert 'value="Extase"' in response.content.decode()
    assert Passport.objects.count() == 0


def test_a_service_that_does_not_answer_loses_nothing(grower, httpserver, settings):
    form = filled(grower)
    httpserver.expect_request("/v1/passports.eb", method="POST").respond_with_data(
        "down", status=503
    )
    settings.ASSURANCE_BASE_URL = httpserver.url_for("/")
    service.client.cache_clear()
    response = grower.post("/passports/new", form)
    assert response.status_code == 400
    assert "Nothing you typed is lost" in text(response)
    assert 'value="Extase"' in response.content.decode()
    assert Passport.objects.count() == 0


def test_when_the_sign_in_has_ended_what_was_typed_waits_for_the_next_one(grower):
    form = filled(grower, variety="Graham")
    session = grower.session
    session[credentials.TOKEN_KEY] = credentials.encrypt("a token the service does not know")
    session.save()
    response = grower.post("/passports/new", form)
    assert response.status_code == 302 and "/accounts/sign-in" in response["Location"]
    sign_in(grower, "grower")
    again = grower.get("/passports/new")
    assert "Your sign-in ended as you sent this form" in text(again)
    assert 'value="Graham"' in again.content.decode()
    assert Passport.objects.count() == 0


def test_a_sign_in_whose_token_cannot_be_read_leaves_nothing_half_made(grower):
    """As after the token key changed with no fallback: the form is kept for the next sign-in,
    and no passport is left being made that no sending will make."""
    form = filled(grower, variety="Graham")
    session = grower.session
    session[credentials.TOKEN_KEY] = "unreadable"
    session.save()
    response = grower.post("/passports/new", form)
    assert response.status_code == 302 and "/accounts/sign-in" in response["Location"]
    assert not Passport.objects.exists()
    sign_in(grower, "grower")
    assert 'value="Graham"' in grower.get("/passports/new").content.decode()
