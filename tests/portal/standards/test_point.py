"""/standards/<guid>/points/<reference>/: a standard point's permanent address."""

from __future__ import annotations

import pytest

from tests.portal.standards.helpers import CROPS, demo_section, main, shown_references

pytestmark = pytest.mark.django_db


def question(code: str, number: str) -> str:
    return next(p for p in demo_section("crops", code)["points"] if p["number"] == number)[
        "question"
    ]


def test_it_shows_the_point(grower):
    response = grower.get(f"/standards/{CROPS}/points/CR.ST.3/")
    assert response.status_code == 200
    page = main(response.content.decode())
    assert "<h1>CR.ST.3</h1>" in page
    assert shown_references(page) == ["CR.ST.3"]
    assert question("CR.ST", "3") in page
    assert '<details class="point" id="point-CR-ST-3" open>' in page
    assert "<h4>What the assessor checks</h4>" in page


def test_it_links_back_to_the_point_in_its_section(grower):
    page = main(grower.get(f"/standards/{CROPS}/points/CR.ST.3.1/").content.decode())
    assert f'<a href="/standards/{CROPS}/CR/ST/#point-CR-ST-3-1">Storage</a>' in page
    assert shown_references(page) == ["CR.ST.3.1"]


def test_it_finds_the_point_in_the_right_sector(grower):
    sugar_beet = main(grower.get(f"/standards/{CROPS}/points/SB.CP.3/").content.decode())
    combinable = main(grower.get(f"/standards/{CROPS}/points/CR.CP.3/").content.decode())
    assert question("SB.CP", "3") in sugar_beet
    assert question("CR.CP", "3") not in sugar_beet
    assert f'<a href="/standards/{CROPS}/SB/CP/#point-SB-CP-3">' in sugar_beet
    assert question("CR.CP", "3") in combinable


def test_it_reads_a_reference_in_any_case(grower):
    response = grower.get(f"/standards/{CROPS}/points/cr.st.3/")
    assert response.status_code == 200
    assert shown_references(main(response.content.decode())) == ["CR.ST.3"]


def test_it_shows_a_point_of_the_preview(grower):
    response = grower.get(f"/standards/preview/{CROPS}/points/CR.ST.19/")
    assert response.status_code == 200
    page = main(response.content.decode())
    assert '<span class="badge badge-preview">Preview</span>' in page
    assert f'<a href="/standards/preview/{CROPS}/CR/ST/#point-CR-ST-19">Storage</a>' in page


@pytest.mark.parametrize(
    "reference",
    ["CR.ST.99", "CR.ST.19", "CR.ZZ.1", "CR.ST", "CR.ST.3.", "ST.3", "nonsense", "CR.ST.x"],
)
def test_it_answers_404_for_a_bad_reference_or_an_unknown_point(grower, reference):
    response = grower.get(f"/standards/{CROPS}/points/{reference}/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()
