"""The standards' routes, read only, as the pages show them: the schemes, a scheme's sections in
order, a section's standard points with their audit points and answers; with a person's token of
any scope (the upstream sign-in of that person: portal.accounts.session.user_credentials); a
site's token reads none; a scheme or section unknown is 404 in the API's shape."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.portal.api.builders import bearer, made_on_the_page, site_token
from tests.portal.intake.builders import a_site
from tests.portal.standards.helpers import CROPS, UNKNOWN_SCHEME, demo_section

pytestmark = pytest.mark.django_db
SCHEMES = "/api/v1/standards/schemes"


@pytest.fixture
def token(grower) -> str:
    return made_on_the_page(grower, scopes=["passports:read"])


def got(address: str, token: str, **query: str):
    return Client().get(address, query, headers=bearer(token))


def test_the_schemes_and_a_scheme_s_sections(token):
    schemes = got(SCHEMES, token)
    assert schemes.status_code == 200, schemes.content
    crops = next(s for s in schemes.json()["items"] if s["guid"] == CROPS)
    assert crops["url"] == f"/api/v1/standards/schemes/{CROPS}/sections"
    sections = got(crops["url"], token).json()
    assert sections["scheme"]["guid"] == CROPS
    storage = next(s for s in sections["items"] if (s["sector"], s["prefix"]) == ("CR", "ST"))
    assert storage["url"] == f"/api/v1/standards/schemes/{CROPS}/sections/CR/ST"


def test_a_section_s_points_as_the_page_shows_them(token):
    section = got(f"/api/v1/standards/schemes/{CROPS}/sections/CR/ST", token)
    assert section.status_code == 200
    points = section.json()["points"]
    demo = demo_section("crops", "CR.ST")["points"]
    third = next(p for p in points if p["reference"] == "CR.ST.3")
    assert third["question"] == next(p for p in demo if p["number"] == "3")["question"]
    assert "<script" not in "".join(p["guidance"] + p["guidelines"] for p in points)


def test_the_preview_is_asked_by_its_stage(token):
    preview = got(SCHEMES, token, stage="preview")
    assert preview.status_code == 200
    assert all("?stage=preview" in s["url"] for s in preview.json()["items"])
    assert got(SCHEMES, token, stage="draft").status_code == 422


def test_an_unknown_scheme_is_404(token):
    response = got(f"/api/v1/standards/schemes/{UNKNOWN_SCHEME}/sections", token)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_a_site_s_token_reads_no_standards(upstream_sandbox):
    response = got(SCHEMES, site_token(a_site()))
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "person_token_needed"
