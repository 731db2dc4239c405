"""A passport's page, as its grower sees it, says what its load's intake recorded ("At intake"):
the weights, the decision and its reasons, each result beside the site's specification, each
claim with its calculation, and the history of the record; the public look-up says none of it."""

from __future__ import annotations

import pytest

from portal.intake import loads
from portal.intake.models import Decision
from tests.portal.intake.builders import a_load, a_site, figures
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db


def test_the_grower_sees_the_load_the_result_beside_the_specification_and_the_claim(grower):
    load = a_load(a_site())
    page = text(grower.get(f"/passports/{load.passport.short_code}/"))
    assert "At intake Stour Valley Grain, Sudbury, ticket T-1001" in page
    assert "Accepted with a claim : Specific weight under specification" in page
    assert "Net weight 29,100 kg (gross 44,120 kg, tare 15,020 kg)" in page
    assert "Specific weight 72.5 kg/hl 76 kg/hl or more ✗ Out of specification" in page
    assert "Moisture 14.2 % None given — Specific weight 72.5" in page  # in the crop's order
    assert "Specific weight £2.50 a tonne 29.10 t £72.75" in page
    assert "Recorded by intake on" in page


def test_a_correction_shows_with_its_reason_and_the_record_before_it(grower):
    load = a_load(a_site())
    corrected = figures(tare_kg=14_020, decision=Decision.ACCEPTED, claims=(), reasons=())
    loads.correct(load, corrected, by="intake", reason="Tare of the wrong lorry")
    page = text(grower.get(f"/passports/{load.passport.short_code}/"))
    assert "Accepted Net weight 30,100 kg" in page
    assert "Claims" not in page
    assert "Recorded by intake on" in page and "Corrected by intake on" in page
    assert page.index("Recorded by intake") < page.index("Tare of the wrong lorry")


def test_a_passport_without_a_load_recorded_says_nothing_of_intake(grower):
    load = a_load(a_site())
    assert "At intake" not in text(grower.get("/passports/7KXM4-QHT2W/"))
    assert "At intake" in text(grower.get(f"/passports/{load.passport.short_code}/"))


def test_the_public_look_up_shows_nothing_of_intake(grower, client):
    load = a_load(a_site())
    page = text(client.get(f"/p/{load.passport.short_code}"))
    assert "The assurance claim is valid now" in page
    for recorded in ("At intake", "T-1001", "29,100", "Stour Valley Grain", "Specific weight"):
        assert recorded not in page
