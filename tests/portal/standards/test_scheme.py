"""/standards/<guid>/: a scheme's scopes and sections, filtered by sector where it has several."""

from __future__ import annotations

import re

import pytest

from tests.portal.standards.helpers import BEEF_LAMB, CROPS, UNKNOWN_SCHEME, demo, main

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
SECTION_LINK = re.compile(r'<span class="code">([A-Z]{2}\.[A-Z]{2})</span>')


def crops_codes(sector: str | None = None) -> list[str]:
    return [
        f"{s['sector']}.{s['prefix']}"
        for s in demo("crops")["sections"]
        if sector is None or s["sector"] == sector
    ]


def test_it_shows_the_scopes_with_their_dates(grower):
    page = main(grower.get(f"/standards/{CROPS}/").content.decode())
    assert "<h1>Combinable Crops and Sugar Beet</h1>" in page
    assert (
        "<strong>Combinable Crops and Sugar Beet Standards 2025</strong>: "
        "from 1 Oct 2025 to 30 Sep 2027" in page
    )


def test_it_lists_the_sections_in_order(grower):
    page = main(grower.get(f"/standards/{CROPS}/").content.decode())
    assert SECTION_LINK.findall(page) == crops_codes()
    assert f'<a href="/standards/{CROPS}/CR/ST/">' in page
    assert f'<a href="/standards/{CROPS}/SB/CP/">' in page


def test_it_offers_the_sector_filter_when_the_scheme_has_several_sectors(grower):
    page = main(grower.get(f"/standards/{CROPS}/").content.decode())
    assert '<input type="radio" name="sector" value="CR">' in page
    assert '<input type="radio" name="sector" value="SB">' in page
    assert '<input type="radio" name="sector" value="" checked>' in page


def test_it_offers_no_sector_filter_when_the_scheme_has_one_sector(grower):
    response = grower.get(f"/standards/{BEEF_LAMB}/")
    assert response.status_code == 200
    page = main(response.content.decode())
    assert 'name="sector"' not in page
    assert SECTION_LINK.findall(page) == ["BL.AH", "BL.MD", "BL.FW", "BL.HH"]


def test_it_shows_only_the_sections_of_the_chosen_sector(grower):
    page = main(grower.get(f"/standards/{CROPS}/?sector=SB").content.decode())
    assert SECTION_LINK.findall(page) == crops_codes("SB") == ["SB.SM", "SB.CP", "SB.HA"]
    assert '<input type="radio" name="sector" value="SB" checked>' in page


def test_it_ignores_a_sector_the_scheme_does_not_have(grower):
    page = main(grower.get(f"/standards/{CROPS}/?sector=ZZ").content.decode())
    assert SECTION_LINK.findall(page) == crops_codes()


def test_as_htmx_it_returns_only_the_sections(grower):
    response = grower.get(f"/standards/{CROPS}/?sector=SB", headers=HTMX)
    assert response.status_code == 200
    fragment = response.content.decode()
    assert "<html" not in fragment
    assert fragment.strip().startswith('<ol id="sections"')
    assert "Scopes" not in fragment
    assert SECTION_LINK.findall(fragment) == ["SB.SM", "SB.CP", "SB.HA"]
    assert "HX-Request" in response["Vary"]


def test_it_points_to_the_preview_and_what_has_changed(grower):
    page = main(grower.get(f"/standards/{CROPS}/").content.decode())
    assert f'<a href="/standards/preview/{CROPS}/">read the preview</a>' in page
    assert f'<a href="/standards/{CROPS}/changes/">see what has changed</a>' in page


def test_the_preview_is_marked_as_not_in_force(grower):
    page = main(grower.get(f"/standards/preview/{CROPS}/").content.decode())
    assert '<span class="badge badge-preview">Preview</span>' in page
    assert "it is not in force yet" in page
    assert "Combinable Crops and Sugar Beet Standards 2027" in page
    assert f'<a href="/standards/preview/{CROPS}/CR/ST/">' in page


def test_it_answers_404_for_an_unknown_scheme(grower):
    response = grower.get(f"/standards/{UNKNOWN_SCHEME}/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_it_answers_404_for_the_preview_of_a_scheme_with_none(grower):
    assert grower.get(f"/standards/preview/{BEEF_LAMB}/").status_code == 404
