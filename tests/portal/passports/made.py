"""Passports for the tests: the create form as the grower fills it (`filled`), and passports
made through it (`made_with_the_form`, `batch_of_50`); passports made at the sandbox by the
grower, either recorded as the portal's create view records them ("made here") or not ("made
elsewhere")."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.contrib.auth import get_user_model
from django.test import Client

from portal.assurance import records
from portal.jobs.models import Job
from portal.passports import codes
from portal.passports.models import Passport
from portal.passports.tasks import passport_batch
from tests.demo import HOLLOWFIELD, HOLLOWFIELD_FARM, MAIN_STORE, WENHAM, WENHAM_SITE
from tests.jobs import run_queued
from tests.portal.passports.helpers import grower_creates

# Section 1 with some of its optional values, and sections 4 and 5 in full.
SOME_OF_THE_LOAD = records.PassportRequest(
    membership_guid=HOLLOWFIELD,
    site_guid=HOLLOWFIELD_FARM,
    store_guid=MAIN_STORE,
    crop_type="Wheat",
    variety="Extase",
    loading_date=datetime(2026, 8, 21, 7, 30, tzinfo=UTC),
    harvest_year="2026",
    post_harvest_treatment_option="B",
    post_harvest_treatment_date=datetime(2026, 8, 10, tzinfo=UTC),
    post_harvest_treatment_product="Actellic Smoke Generator No. 20",
    don_risk_assessment_result=14,
    don_test_date=datetime(2026, 8, 12, tzinfo=UTC),
    don_test_result="412 ppb",
    zon_test_date=datetime(2026, 8, 12, tzinfo=UTC),
    zon_test_result="38 ppb",
)
LEFT_EMPTY = [
    "Store or bin name",
    "Haulier company name",
    "Vehicle registration",
    "Trailer number",
    "Haulier collection ticket no.",
]


def made_elsewhere(request: records.PassportRequest = SOME_OF_THE_LOAD) -> str:
    """The short code of a passport the grower made at the service, unknown to the portal."""
    return codes.normalise(grower_creates(request).short_code)


def made_here(request: records.PassportRequest = SOME_OF_THE_LOAD) -> str:
    """The short code of a passport the grower made, recorded as the portal records those it
    makes."""
    made = grower_creates(request)
    row = Passport(
        membership_guid=request.membership_guid,
        site_guid=request.site_guid,
        store_guid=request.store_guid or "",
        made_by=get_user_model().objects.get(username="grower"),
    )
    row.keep_record(made)
    row.save()
    return row.short_code


def wenham_made_here() -> str:
    """A passport of the grower's Wenham Grange membership, recorded by the portal."""
    return made_here(records.PassportRequest(membership_guid=WENHAM, site_guid=WENHAM_SITE))


def submission_of(response) -> str:
    return re.search(r'name="submission" value="([^"]+)"', response.content.decode())[1]


def filled(grower: Client, **fields: str) -> dict[str, str]:
    """The form as the grower fills it for Hollowfield Farm's main store, with `fields` over."""
    form = {
        "submission": submission_of(grower.get("/passports/new")),
        "membership": HOLLOWFIELD,
        "site": HOLLOWFIELD_FARM,
        "store": MAIN_STORE,
        "crop_type": "Wheat",
        "variety": "Extase",
        "loading_date": "2026-08-21",
        "harvest_year": "2026",
        "vehicle_registration": "AB12 CDE",
        "post_harvest_treatment_option": "A",
        "don_risk_assessment_result": "12",
        "step": "create",
    }
    return {**form, **fields}


def made_with_the_form(client: Client, **fields: str) -> str:
    """The short code of a passport made through the create form (as `filled`, with `fields`
    over), by the signed-in user of `client`."""
    response = client.post("/passports/new", filled(client, **fields))
    assert response.status_code == 303, response.content.decode()[:2000]
    return response["Location"].split("/")[2]


def batch_of_50(client: Client, crop: str = "Wheat") -> None:
    """50 passports of `crop` made through the create form as a batch, by the signed-in user of
    `client`, its job run."""
    form = filled(client, loads="50", crop_type=crop)
    assert client.post("/passports/new", form).status_code == 303
    assert run_queued(passport_batch.name).state == Job.State.DONE
