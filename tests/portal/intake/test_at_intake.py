"""A passport's page, as its grower sees it, says what its load's intake recorded ("At intake"):
the weights, the decision and its reasons, each result beside the site's specification, each
claim with its calculation, and the history of the record; the public look-up says none of it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from portal.intake import loads
from portal.intake.models import Decision
from portal.passports.models import Passport
from tests.portal.intake.builders import a_load, a_signed_in_clerk, a_site, figures, queried
from tests.portal.passports.helpers import text
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.django_db


def test_the_grower_sees_the_load_the_result_beside_the_specification_and_the_claim(grower):
    load = a_load(a_site())
    page = text(grower.get(f"/passports/{load.passport.short_code}/"))
    assert "At intake Stour Valley Grain, Sudbury, ticket T-1001" in page
    assert "Accepted with a claim : Specific weight below specification" in page
    assert "Net weight 29,100 kg (gross 44,120 kg, tare 15,020 kg)" in page
    assert "Specific weight 72.5 kg/hl 76 kg/hl or more ✗ Out of specification" in page
    assert "Moisture 14.2 % None given — Specific weight 72.5" in page  # in the crop's order
    assert "Specific weight £2.50 a tonne 29.100 t £72.75" in page
    assert "Recorded by intake on" in page


def test_a_correction_shows_with_its_reason_and_the_record_before_it(grower):
    load = a_load(a_site())
    corrected = figures(tare_kg=14_020, decision=Decision.ACCEPTED, claims=(), reasons=())
    loads.correct(load, corrected, by="intake", reason="Tare of the wrong lorry")
    page = text(grower.get(f"/passports/{load.passport.short_code}/"))
    assert "Accepted Net weight 30,100 kg" in page
    assert "Specific weight £2.50 a tonne 29.100 t £72.75" not in page  # no claim now
    assert "Recorded by intake on" in page and "Corrected by intake on" in page
    assert page.index("Recorded by intake") < page.index("Tare of the wrong lorry")
    for change in (
        "Tare weight (kg): from 15,020 → to 14,020",
        "Net weight (kg): from 29,100 → to 30,100",
        "Decision: from Accepted with a claim → to Accepted",
        "Claims: from Specific weight £2.50 a tonne on 29.100 t = £72.75 → to none",
    ):
        assert change in page  # what the correction changed, as the clerk's page says it


def test_a_sites_words_are_quoted_under_its_name_and_nothing_in_them_is_a_link(grower):
    load = a_load(a_site())
    reason = "Tare read again. Pay the claim at https://claims.example/pay <a href=x>here</a>"
    loads.correct(load, figures(tare_kg=14_020), by="intake", reason=reason)
    html = grower.get(f"/passports/{load.passport.short_code}/").content.decode()
    assert (
        '<figure class="site-words"><figcaption>Stour Valley Grain, Sudbury wrote:</figcaption>'
        '<blockquote class="entry-words">Tare read again. Pay the claim at '
        "https://claims.example/pay &lt;a href=x&gt;here&lt;/a&gt;</blockquote></figure>"
    ) in html
    assert "<a href=x" not in html


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


def test_the_page_reads_its_loads_in_as_many_queries_however_many_loads_and_entries(grower):
    passport = Passport.objects.get(short_code=made_here())
    stour, other = a_site(), a_site(name="Ouse Mill, Ely", code="ouse-mill")
    other.specifications.create(crop="wheat", parameter="moisture", highest=15)
    page = f"/passports/{passport.short_code}/"

    def queries(page: str = page) -> int:
        grower.get(page)  # the membership's authorisation kept
        with CaptureQueriesContext(connection) as done:
            assert grower.get(page).status_code == 200
        return len(done)

    without_a_load = queries(f"/passports/{made_here()}/")
    first = a_load(stour, "T-1", passport=passport)
    one = queries()
    assert one == without_a_load  # each entry keeps its specification: no query of its own
    loads.correct(first, figures(tare_kg=14_020), by="intake", reason="Tare of the wrong lorry")
    queried(first)
    for site, ticket in ((stour, "T-2"), (other, "T-3"), (other, "T-4")):
        loads.correct(a_load(site, ticket, passport=passport), figures(vehicle="AE24 KTW"),
                      by="intake", reason="Vehicle misread")  # fmt: skip
    assert queries() == one
    shown = text(grower.get(page))
    assert all(f"ticket {ticket}" in shown for ticket in ("T-1", "T-2", "T-3", "T-4"))
    assert "Moisture 14.2 % at most 15 % ✓ In" in shown  # Ouse Mill's own specification


def test_a_specification_changed_later_leaves_a_load_as_it_was_judged_until_it_is_corrected(
    grower,
):
    site = a_site()  # specific weight 76 kg/hl or more
    load = a_load(site)  # 72.5 kg/hl
    clerk = a_signed_in_clerk(site)
    pages = (f"/passports/{load.passport.short_code}/", f"/intake/loads/{load.pk}/")
    site.specifications.filter(parameter="specific_weight").update(lowest=70)
    site.specifications.create(crop="wheat", parameter="moisture", highest=14)
    for page in (text(grower.get(pages[0])), text(clerk.get(pages[1]))):
        assert "Specific weight 72.5 kg/hl 76 kg/hl or more ✗ Out of specification" in page
        assert "Moisture 14.2 % None given —" in page
    loads.correct(load, figures(vehicle="AE24 KTW"), by="intake", reason="Vehicle misread")
    for page in (text(grower.get(pages[0])), text(clerk.get(pages[1]))):
        assert "Specific weight 72.5 kg/hl 70 kg/hl or more ✓ In" in page
        assert "Moisture 14.2 % at most 14 % ✗ Out of specification" in page
