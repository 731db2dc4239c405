"""/passports/: the business's passports, for every current contact of their membership, filtered
and paginated; and a passport made elsewhere added by its code. Owner, business partner and
strangers are tried against each."""

from __future__ import annotations

import re

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from portal.assurance.passport_fields import FIELDS
from portal.assurance.records import PassportRequest
from portal.intake.models import Decision
from portal.passports.models import Passport
from tests.demo import HOLLOWFIELD, MARSH_END, OAKHURST, OAKHURST_SITE, WENHAM, WENHAM_SITE
from tests.portal.accounts.helpers import AFTER_THE_ACCOUNT_KEPT_AT_SIGN_IN, signed_in
from tests.portal.intake.builders import a_load, a_site
from tests.portal.passports.helpers import (
    details_of,
    no_longer_a_contact,
    table_of,
    text,
    within_one_window,
)
from tests.portal.passports.made import (
    batch_of_50,
    made_elsewhere,
    made_here,
    made_with_the_form,
    wenham_made_here,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def listed(client: Client, query: str = "") -> list[str]:
    """The short codes the list shows, in its order."""
    page = client.get(f"/passports/{query}").content.decode()
    return re.findall(r'<a class="code" href="/passports/([^/]+)/">', page)


def wenham_with_the_form(client: Client, **fields: str) -> str:
    return made_with_the_form(client, membership=WENHAM, site=WENHAM_SITE, store="", **fields)


def test_it_lists_the_business_passports_newest_first_with_their_details(grower):
    first = made_with_the_form(grower, crop_type="Barley", variety="Laureate",
                               haulier_company_name="Stour Valley Haulage")  # fmt: skip
    second = wenham_with_the_form(grower, crop_type="Beans")
    response = grower.get("/passports/")
    assert response.status_code == 200
    assert listed(grower) == [second, first]
    assert "1–2 of 2 passports" in text(response)
    _, (beans, barley) = table_of(response, "passports")
    assert barley["Business name"] == "Hollowfield Farms Ltd"
    assert barley["Site"] == "Hollowfield Farm"
    assert (barley["Crop type"], barley["Variety"]) == ("Barley", "Laureate")
    assert (barley["Loading date"], barley["Harvest year"]) == ("21 August 2026", "2026")
    assert barley["Haulier company name"] == "Stour Valley Haulage"
    assert re.fullmatch(r"Made by grower \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d", barley["Made"])
    assert (beans["Business name"], beans["Crop type"]) == ("Wenham Grange Partnership", "Beans")
    assert beans["Haulier company name"] == "—"


def test_its_columns_are_headed_by_the_labels_the_passport_prints(grower):
    code = made_with_the_form(grower)
    headers, _ = table_of(grower.get("/passports/"), "passports")
    printed = [FIELDS[name].label for name in ("crop_type", "variety", "loading_date",
                                               "harvest_year", "haulier_company_name")]  # fmt: skip
    assert headers == ["Tick to export", FIELDS["short_code"].label,
                       FIELDS["business_name"].label, "Site", *printed, "Net tonnes",
                       "Intake decision", "Made"]  # fmt: skip
    on_its_page = details_of(grower.get(f"/passports/{code}/"))
    assert set([FIELDS["business_name"].label, *printed]) <= set(on_its_page)


def test_a_partner_sees_the_business_passports_whoever_made_them_but_no_other_business(
    grower, partner
):
    hollowfield = made_with_the_form(grower)
    wenham_with_the_form(grower)  # a membership partner is not a contact of
    own = made_with_the_form(partner)
    assert listed(partner) == [own, hollowfield]
    assert "Made by partner" in text(partner.get("/passports/"))
    assert set(listed(grower)) >= {own, hollowfield}


def test_lapsed_sees_none_and_is_told_why(grower, lapsed):
    made_with_the_form(grower)
    page = text(lapsed.get("/passports/"))
    assert listed(lapsed) == []
    assert "Your business has no passports here yet." in page


def test_someone_with_no_membership_is_told_why_nothing_is_listed(grower):
    made_with_the_form(grower)
    haulier = signed_in("haulier")
    page = text(haulier.get("/passports/"))
    assert "You are not a registered contact of any membership" in page
    assert listed(haulier) == []


def test_a_contact_no_longer_sees_the_passports_of_a_membership_they_left(
    grower, upstream_sandbox, settings
):
    settings.PORTAL_AUTHORISATION_SECONDS = 0  # the service is asked on every page
    with time_machine.travel(AFTER_THE_ACCOUNT_KEPT_AT_SIGN_IN):
        hollowfield, wenham = made_with_the_form(grower), wenham_with_the_form(grower)
        with no_longer_a_contact(upstream_sandbox, WENHAM, "grower"):
            assert listed(grower) == [hollowfield]
        assert listed(grower) == [wenham, hollowfield]


def test_it_needs_a_sign_in(client: Client):
    response = client.get("/passports/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/sign-in/")


# --- filters --------------------------------------------------------------------------------------


def test_each_filter_narrows_the_list(grower):
    wheat = made_with_the_form(grower, crop_type="Wheat", loading_date="2026-08-21")
    barley = made_with_the_form(grower, crop_type="Barley", site=MARSH_END, store="",
                                loading_date="2026-08-25", harvest_year="2025")  # fmt: skip
    beans = wenham_with_the_form(grower, crop_type="Beans", loading_date="2026-09-02")
    assert listed(grower, f"?membership={HOLLOWFIELD}") == [barley, wheat]
    assert listed(grower, f"?site={MARSH_END}") == [barley]
    assert listed(grower, "?crop=Beans") == [beans]
    assert listed(grower, "?crop=beans") == [beans]  # as typed in another case
    assert listed(grower, "?year=2025") == [barley]
    assert listed(grower, "?loaded_from=2026-08-22") == [beans, barley]
    assert listed(grower, "?loaded_to=2026-08-25") == [barley, wheat]
    assert listed(grower, "?loaded_from=2026-08-25&loaded_to=2026-08-25") == [barley]
    part = beans.replace("-", "")[3:8].lower()  # a part across the hyphen, in lower case
    assert listed(grower, f"?code={part}") == [beans]
    assert listed(grower, "?crop=Wheat&year=2025") == []


def test_the_filters_offer_the_users_own_memberships_sites_crops_and_years(grower, partner):
    made_with_the_form(grower, crop_type="Barley", harvest_year="2024")
    wenham_with_the_form(grower, crop_type="Beans")
    page = partner.get("/passports/").content.decode()
    assert f'<option value="{HOLLOWFIELD}"' in page
    assert f'<option value="{WENHAM}"' not in page and f'<option value="{WENHAM_SITE}"' not in page
    assert '<option value="Barley">' in page and '<option value="2024">' in page
    assert '<option value="Beans">' not in page  # a crop of another business's passports


def test_a_crop_first_made_after_the_list_was_shown_is_offered_at_once(grower, partner):
    made_with_the_form(grower, crop_type="Barley", harvest_year="2024")
    assert '<option value="Oats">' not in partner.get("/passports/").content.decode()
    made_with_the_form(grower, crop_type="Oats", harvest_year="2023")
    page = partner.get("/passports/").content.decode()
    assert '<option value="Oats">' in page and '<option value="2023">' in page
    assert '<option value="Barley">' in page and '<option value="2024">' in page


def test_with_htmx_the_filters_answer_with_the_results_alone(grower):
    made_with_the_form(grower, crop_type="Barley")
    response = grower.get("/passports/?crop=Barley", headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html
    assert html.lstrip().startswith('<div id="passport-results"')
    assert "1–1 of 1 passport that match" in text(response)
    assert response["Vary"].count("HX-Request") == 1


def test_without_javascript_the_filters_are_a_form_that_gets_the_list(grower):
    html = grower.get("/passports/").content.decode()
    assert '<form method="get" action="/passports/"' in html
    assert ">Show these</button>" in html


@pytest.mark.parametrize(
    ("query", "said"),
    [
        (f"?membership={OAKHURST}", "Membership: Choose one of your memberships."),
        (f"?site={OAKHURST_SITE}", "Site: Choose one of your sites."),
        ("?crop=Mangelwurzel", "No passport of yours has that crop"),
        ("?year=1066", "No passport of yours has that harvest year"),
        ("?loaded_from=31-02-2026", "Enter the first loading date as a real date."),
        ("?loaded_from=2026-08-21&loaded_to=2026-08-01", "The last loading date is before"),
        ("?code=0OIL1", "A short code has only letters and numbers"),
        ("?code=" + "A" * 30, "A short code has at most 12 letters and numbers."),
        ("?decision=maybe", "Intake decision: Choose one of the decisions listed."),
    ],
)
def test_a_filter_that_is_not_valid_is_said_and_leaves_the_list_unfiltered(grower, query, said):
    made = made_with_the_form(grower)
    response = grower.get(f"/passports/{query}")
    assert response.status_code == 200
    assert said in text(response)
    assert listed(grower, query) == [made]


def test_when_nothing_matches_it_says_so_and_how_to_see_everything(grower):
    made_with_the_form(grower, crop_type="Barley")
    page = text(grower.get("/passports/?code=ZZZZZ"))
    assert "No passport matches these filters." in page
    assert "Clear filters" in page


def test_with_no_passports_yet_it_says_what_to_do(grower):
    page = text(grower.get("/passports/"))
    assert "Your business has no passports here yet." in page
    assert "Create a passport" in page


# --- pages ----------------------------------------------------------------------------------------


@pytest.fixture
def fifty_one(grower) -> list[str]:
    """51 passports of the grower's, made as a batch is, newest first."""
    batch_of_50(grower)
    made_with_the_form(grower)
    return listed(grower) + listed(grower, "?page=2")


def test_fifty_a_page_with_a_count_and_links_to_the_others(grower, fifty_one):
    assert len(fifty_one) == 51 == len(set(fifty_one))
    first = grower.get("/passports/")
    assert "1–50 of 51 passports" in text(first)
    assert 'href="?page=2"' in first.content.decode()
    second = grower.get("/passports/?page=2")
    assert "51–51 of 51 passports" in text(second)
    assert 'href="?page=1"' in second.content.decode()


@pytest.mark.parametrize("page", ["99", "-1", "0", "two", "1e9", ""])
def test_a_page_past_the_end_or_malformed_shows_a_page_that_is_there(grower, fifty_one, page):
    response = grower.get(f"/passports/?page={page}")
    assert response.status_code == 200
    assert re.search(r"(1–50|51–51) of 51 passports", text(response))


def test_the_pages_keep_the_filters(grower, fifty_one):
    html = grower.get("/passports/?crop=Wheat").content.decode()
    assert 'href="?crop=Wheat&amp;page=2"' in html


def test_filtered_by_crop_in_any_case_its_pages_count_and_hold_each_match_once(grower):
    for crop in ("Wheat", "Barley", "wheat", "Barley", "WHEAT"):  # as typed, batch by batch
        batch_of_50(grower, crop)
    everyone = [code for n in range(1, 6) for code in listed(grower, f"?page={n}")]
    pages = [listed(grower, f"?crop=wheat&page={n}") for n in (1, 2, 3)]
    assert [len(page) for page in pages] == [50, 50, 50]
    wheat = [code for page in pages for code in page]
    assert len(set(wheat)) == 150
    assert wheat == [code for code in everyone if code in wheat]  # newest first, as unfiltered
    counts = [text(grower.get(f"/passports/?crop=Wheat&page={n}")) for n in (1, 3)]
    assert "1–50 of 150 passports that match" in counts[0]
    assert "101–150 of 150 passports that match" in counts[1]
    barley = listed(grower, "?crop=BARLEY") + listed(grower, "?crop=BARLEY&page=2")
    assert len(barley) == 100 and not set(barley) & set(wheat)
    assert "1–50 of 250 passports" in text(grower.get("/passports/"))


# --- a passport added by its code -----------------------------------------------------------------


def test_a_passport_made_elsewhere_is_added_by_its_code(grower, partner):
    short_code = made_elsewhere()
    response = partner.post("/passports/add", {"code": short_code.replace("-", "").lower()})
    assert response.status_code == 302
    assert response["Location"] == f"/passports/{short_code}/"
    passport = Passport.objects.get(short_code=short_code)
    assert passport.origin == Passport.Origin.ADDED and passport.made_by.username == "partner"
    assert listed(grower) == [short_code]
    assert "Added by partner" in text(grower.get("/passports/"))
    again = partner.post("/passports/add", {"code": short_code}, follow=True)
    assert f"Passport {short_code} is listed already." in text(again)
    assert Passport.objects.count() == 1


def test_a_passport_of_another_business_is_answered_as_an_unknown_code(grower, partner):
    wenham = made_elsewhere(PassportRequest(membership_guid=WENHAM, site_guid=WENHAM_SITE))
    recorded = wenham_with_the_form(grower)
    unknown = partner.post("/passports/add", {"code": "ABCDE-FGHJK"})
    assert unknown.status_code == 404
    for code in (wenham, recorded):
        response = partner.post("/passports/add", {"code": code})
        assert response.status_code == 404
        assert _said(response) == _said(unknown)
    assert not Passport.objects.filter(short_code=wenham).exists()
    assert listed(partner) == []


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "Enter the passport's short code."),
        ("0OIL1-0OIL1", "A short code has 8 to 12 letters and numbers (no 0, 1, I, L or O)"),
        ("ABC", "A short code has 8 to 12 letters and numbers (no 0, 1, I, L or O)"),
        ("A" * 50, "A short code has 8 to 12 letters and numbers: check what you typed."),
    ],
)
def test_a_code_that_cannot_be_one_is_refused_with_a_reason(grower, typed, said):
    response = grower.post("/passports/add", {"code": typed})
    assert response.status_code == 400
    assert said in text(response)
    assert Passport.objects.count() == 0


def test_adding_counts_against_the_addresss_look_ups(grower, settings):
    settings.PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE = 2
    with within_one_window("127.0.0.1"):
        for _ in range(2):
            assert grower.post("/passports/add", {"code": "ABCDE-FGHJK"}).status_code == 404
        assert grower.get("/p/ABCDE-FGHJK").status_code == 429  # one allowance for both
        refused = grower.post("/passports/add", {"code": "ABCDE-FGHJK"})
    assert refused.status_code == 429
    assert "Too many passports looked up from here just now" in text(refused)


def _said(response) -> str:
    return re.search(r'id="id_code_error"[^>]*>(.*?)</ul>', response.content.decode(), re.S)[1]


def test_no_address_of_the_list_reaches_another_business_passports(grower, partner):
    wenham = wenham_with_the_form(grower)
    own = made_with_the_form(partner)
    bare = wenham.replace("-", "")
    for query in (f"?membership={WENHAM}", f"?site={WENHAM_SITE}", f"?code={bare}",
                  f"?code={bare[:6]}", f"?crop=Wheat&code={wenham}"):  # fmt: skip
        assert wenham not in listed(partner, query), query
        assert wenham not in partner.get(f"/passports/{query}", headers=HTMX).content.decode()
    assert listed(partner, f"?membership={WENHAM}") == [own]  # not applied: not theirs
    assert partner.get(f"/passports/{wenham}/").status_code == 404


# --- the result at intake -------------------------------------------------------------------------


def passport_of(code: str) -> Passport:
    return Passport.objects.get(short_code=code)


@pytest.fixture
def results(grower) -> dict[str, str]:
    """Passports of the grower's, by what intake made of them: one accepted with a claim; one
    whose first load was rejected and whose latest, recorded after, was accepted; one rejected;
    one with no load yet."""
    site = a_site()
    claimed = a_load(site, "T-1").passport.short_code
    twice = a_load(site, "T-2", decision=Decision.REJECTED).passport
    a_load(site, "T-3", passport=twice, gross_kg=40_000, tare_kg=14_545, decision=Decision.ACCEPTED,
           claims=(), reasons=())  # fmt: skip
    rejected = a_load(site, "T-4", decision=Decision.REJECTED, reasons=("Ergot",)).passport
    return {"claim": claimed, "accepted": twice.short_code, "rejected": rejected.short_code,
            "none": made_here()}  # fmt: skip


def test_each_row_shows_the_net_tonnes_and_decision_of_its_latest_load(grower, results):
    _, rows = table_of(grower.get("/passports/"), "passports")
    shown = {row["Passport short code"]: (row["Net tonnes"], row["Intake decision"])
             for row in rows}  # fmt: skip
    assert shown == {
        results["none"]: ("", ""),
        results["rejected"]: ("29.100", "Rejected"),
        results["accepted"]: ("25.455", "Accepted"),  # 25,455 kg: the latest load's
        results["claim"]: ("29.100", "Accepted with a claim"),
    }
    html = grower.get("/passports/").content.decode()  # empty, so a phone's card leaves them out
    assert '<td data-label="Net tonnes"></td>' in html
    assert '<td data-label="Intake decision"></td>' in html


def test_the_decision_filter_keeps_the_passports_whose_latest_load_had_it(grower, results):
    assert listed(grower, "?decision=claim") == [results["claim"]]
    assert listed(grower, "?decision=rejected") == [results["rejected"]]  # not the one since
    assert listed(grower, "?decision=accepted") == [results["accepted"]]
    assert listed(grower, "?decision=redirected") == []
    assert listed(grower, "?decision=none") == [results["none"]]
    assert len(listed(grower)) == 4
    page = text(grower.get("/passports/?decision=none"))
    assert "1–1 of 1 passport that match" in page


def test_the_decision_filter_offers_each_decision_and_no_result_yet(grower, results):
    html = grower.get("/passports/?decision=rejected").content.decode()
    select = re.search(r'<select name="decision" id="id_decision">(.*?)</select>', html, re.S)[1]
    offered = re.findall(r'<option value="([^"]*)"( selected)?>([^<]*)</option>', select)
    assert [(value, label) for value, _, label in offered] == [
        ("", "Any decision"), ("accepted", "Accepted"), ("claim", "Accepted with a claim"),
        ("redirected", "Redirected"), ("rejected", "Rejected"), ("none", "No result yet"),
    ]  # fmt: skip
    assert [value for value, selected, _ in offered if selected] == ["rejected"]
    assert '<label for="id_decision">Intake decision</label>' in html


def test_the_decision_filter_works_with_htmx_the_other_filters_and_the_export(grower, results):
    response = grower.get("/passports/?crop=Wheat&decision=claim", headers=HTMX)
    assert "<html" not in response.content.decode()
    assert response["HX-Push-Url"] == "/passports/?crop=Wheat&decision=claim"
    assert "1–1 of 1 passport that match" in text(response)
    html = response.content.decode()
    assert '<input type="hidden" name="decision" value="claim">' in html
    assert listed(grower, f"?code={results['rejected'][:5]}&decision=claim") == []


def test_the_decision_filter_keeps_to_its_pages(grower):
    site, first = a_site(), made_here()
    for n in range(51):
        a_load(site, f"T-{n}", passport=passport_of(first) if n == 0 else None)
    html = grower.get("/passports/?decision=claim").content.decode()
    assert "1–50 of 51 passports that match" in text(grower.get("/passports/?decision=claim"))
    assert 'href="?decision=claim&amp;page=2"' in html
    assert len(listed(grower, "?decision=claim&page=2")) == 1


def test_the_list_reads_its_rows_and_their_results_in_one_query_however_many(grower):
    site = a_site()

    def queries() -> int:
        grower.get("/passports/")  # the memberships and the filters' offer kept
        with CaptureQueriesContext(connection) as done:
            assert grower.get("/passports/").status_code == 200
        return len(done)

    a_load(site, "T-1")
    few = queries()
    for n in range(2, 8):
        a_load(site, f"T-{n}")
    assert queries() == few
    assert listed(grower) and "Accepted with a claim" in text(grower.get("/passports/"))


def test_another_business_sees_nothing_of_the_results(grower, partner, lapsed):
    site = a_site()
    wenham = a_load(site, "T-W", passport=passport_of(wenham_made_here()))
    hollowfield = a_load(site, "T-H", decision=Decision.REJECTED)
    for query in ("", "?decision=claim", "?decision=rejected", "?decision=none"):
        assert listed(lapsed, query) == []
        assert "29.100" not in text(lapsed.get(f"/passports/{query}"))
        assert wenham.passport.short_code not in listed(partner, query)
    assert listed(partner, "?decision=claim") == []  # Wenham's claim is not theirs to see
    assert listed(partner, "?decision=rejected") == [hollowfield.passport.short_code]
