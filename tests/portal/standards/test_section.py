"""/standards/<guid>/<sector>/<prefix>/: a section's standard points, with filters."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.portal.standards.helpers import (
    CROPS,
    HTMX,
    STORAGE,
    UNKNOWN_SCHEME,
    aim_guid,
    count_line,
    demo,
    demo_references,
    demo_section,
    main,
    shown_references,
)

pytestmark = pytest.mark.django_db
AS_PAGE_AND_FRAGMENT = pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
STORAGE_REFERENCES = demo_references("crops", "CR.ST")


def points_shown(response, headers) -> tuple[list[str], str]:
    """The references shown and the count line, from a full page or a fragment."""
    assert response.status_code == 200
    content = response.content.decode()
    if headers:
        assert "<html" not in content
        assert content.strip().startswith('<div id="points">')
    else:
        assert "<html" in content
        content = main(content)
    return shown_references(content), count_line(content)


def storage_points_where(test) -> list[str]:
    return [f"CR.ST.{p['number']}" for p in demo_section("crops", "CR.ST")["points"] if test(p)]


def test_it_shows_every_standard_point_in_order(grower):
    page = main(grower.get(STORAGE).content.decode())
    assert '<h1><span class="code">CR.ST</span> Storage</h1>' in page
    assert len(STORAGE_REFERENCES) == 21
    assert shown_references(page) == STORAGE_REFERENCES
    assert count_line(page) == "21 standard points"


def test_it_shows_everything_about_a_point(grower):
    page = main(grower.get(STORAGE).content.decode())
    start = page.index('id="point-CR-ST-3"')
    point = page[start : page.index("</details>", start)]
    assert (
        "A pre-harvest inspection of every store is carried out and recorded each year "
        "before new crop is brought in." in point
    )
    assert '<h4>How it is measured</h4><div class="html"><p>The inspection should cover' in point
    assert (
        '<h4>Record keeping</h4><div class="html"><ul><li>Pre-harvest store inspection '
        "checklist, dated and signed</li></ul></div>" in point
    )
    assert (
        '<h4>Guidance</h4><div class="html"><p>A <a href="https://example.org/templates/'
        'store-inspection" rel="noopener noreferrer nofollow">store inspection checklist</a>'
        in point
    )
    assert '<span class="code">CR.ST.3-A1</span> A dated inspection record exists' in point
    assert "<li>Compliant: inspections are recorded for all stores.</li>" in point
    assert "Score 2 · Unchanged · Aims: Crop quality, Food safety" in point
    assert f'<a href="/standards/{CROPS}/points/CR.ST.3/">Link to CR.ST.3</a>' in point


def test_it_marks_the_critical_answers(grower):
    page = main(grower.get(STORAGE).content.decode())
    start = page.index('id="point-CR-ST-3-2"')
    point = page[page.rindex("<details", 0, start) : page.index("</details>", start)]
    assert re.match(r'<details class="point point-critical[ "]', point)
    assert '<span class="badge badge-critical">Critical</span>' in point
    assert (
        '<li class="answer-critical"><strong class="badge badge-critical">Critical</strong> '
        in point
    )
    assert "<li>Compliant:" in point  # the answer that is not critical is not marked


def test_its_points_are_details_that_work_without_javascript(grower):
    page = main(grower.get(STORAGE).content.decode())
    assert page.count("<details") == page.count("<summary>") == 21
    assert " open>" not in page  # closed until the reader opens one
    assert f'<form method="get" class="filters" action="{STORAGE}"' in page


DOWNLOAD = re.compile(r'<a class="button button-secondary" href="([^"]+)">(Download [^<]*)</a>')


def downloads(response) -> dict[str, str]:
    """Each download link's text and address."""
    return {name: unescape(href) for href, name in DOWNLOAD.findall(response.content.decode())}


def test_it_offers_its_exports(grower):
    assert downloads(grower.get(STORAGE)) == {
        "Download a PDF checklist": f"{STORAGE}checklist.pdf",
        "Download CSV": f"{STORAGE}export.csv",
    }


@AS_PAGE_AND_FRAGMENT
def test_its_downloads_hold_the_points_it_shows(grower, headers):
    response = grower.get(f"{STORAGE}?revision=Unchanged&critical=1", headers=headers)
    shown, _ = points_shown(response, headers)
    query = "?critical=1&revision=Unchanged"
    assert downloads(response) == {
        f"Download a PDF checklist of these {len(shown)}": f"{STORAGE}checklist.pdf{query}",
        f"Download CSV of these {len(shown)}": f"{STORAGE}export.csv{query}",
    }


def test_with_no_point_shown_there_is_nothing_to_download(grower):
    traceability = aim_guid(grower.get(STORAGE).content.decode(), "Traceability")
    assert downloads(grower.get(f"{STORAGE}?aim={traceability}&critical=1")) == {}


def test_it_says_when_the_content_was_refreshed(grower):
    page = main(grower.get(STORAGE).content.decode())
    assert re.search(
        r"Content last refreshed from the Assurance service \d{1,2} \w{3} \d{4} at \d\d:\d\d\.",
        page,
    )


@AS_PAGE_AND_FRAGMENT
def test_it_shows_every_point_without_filters(grower, headers):
    shown, count = points_shown(grower.get(STORAGE, headers=headers), headers)
    assert shown == STORAGE_REFERENCES
    assert count == "21 standard points"


@AS_PAGE_AND_FRAGMENT
def test_it_filters_by_aim(grower, headers):
    traceability = aim_guid(grower.get(STORAGE).content.decode(), "Traceability")
    response = grower.get(f"{STORAGE}?aim={traceability}", headers=headers)
    shown, count = points_shown(response, headers)
    expected = storage_points_where(lambda p: "traceability" in p["aims"])
    assert shown == expected == ["CR.ST.18"]
    assert count == "1 of 21 standard points"


@AS_PAGE_AND_FRAGMENT
def test_it_filters_to_points_with_critical_answers(grower, headers):
    response = grower.get(f"{STORAGE}?critical=1", headers=headers)
    shown, count = points_shown(response, headers)
    expected = storage_points_where(lambda p: any(a["critical"] for a in p["answers"]))
    assert shown == expected
    assert 0 < len(expected) < 21
    assert count == f"{len(expected)} of 21 standard points"


@AS_PAGE_AND_FRAGMENT
def test_it_filters_by_revision_status(grower, headers):
    url = f"/standards/preview/{CROPS}/CR/ST/"
    changes = demo("crops-preview")["sections"]["CR.ST"]
    new = [f"CR.ST.{p['number']}" for p in changes["added"]]
    revised = [f"CR.ST.{n}" for n in changes["reworded"]]
    shown, count = points_shown(grower.get(f"{url}?revision=New", headers=headers), headers)
    assert shown == new == ["CR.ST.19", "CR.ST.20"]
    assert count == "2 of 22 standard points"
    shown, count = points_shown(grower.get(f"{url}?revision=Revised", headers=headers), headers)
    assert shown == revised == ["CR.ST.3", "CR.ST.8", "CR.ST.12"]
    assert count == "3 of 22 standard points"


@AS_PAGE_AND_FRAGMENT
def test_it_combines_filters(grower, headers):
    food_safety = aim_guid(grower.get(STORAGE).content.decode(), "Food safety")
    response = grower.get(f"{STORAGE}?aim={food_safety}&critical=1", headers=headers)
    shown, count = points_shown(response, headers)
    expected = storage_points_where(
        lambda p: "food-safety" in p["aims"] and any(a["critical"] for a in p["answers"])
    )
    assert shown == expected
    assert count == f"{len(expected)} of 21 standard points"


@AS_PAGE_AND_FRAGMENT
def test_it_says_when_no_point_matches_the_filters(grower, headers):
    traceability = aim_guid(grower.get(STORAGE).content.decode(), "Traceability")
    response = grower.get(f"{STORAGE}?aim={traceability}&critical=1", headers=headers)
    shown, count = points_shown(response, headers)
    assert shown == []
    assert count == "0 of 21 standard points"
    assert "No standard point of this section matches these filters." in response.content.decode()


@pytest.mark.parametrize("query", ["aim=zzz", "revision=<script>", "aim=' OR 1=1--"])
def test_an_aim_or_revision_the_section_does_not_have_filters_nothing(grower, query):
    response = grower.get(f"{STORAGE}?{query}")
    shown, count = points_shown(response, {})
    assert shown == STORAGE_REFERENCES
    assert count == "21 standard points"
    page = main(response.content.decode())
    assert "<script>" not in page
    assert " selected>" not in page  # the lists say "Every aim" and "Any", as the list shows


def test_the_page_keeps_the_chosen_filters(grower):
    page = main(grower.get(f"{STORAGE}?critical=1&revision=Unchanged").content.decode())
    assert '<input type="checkbox" name="critical" value="1" checked>' in page
    assert '<option value="Unchanged" selected>Unchanged</option>' in page


@pytest.mark.parametrize(
    ("query", "shown"),
    [("aim=&revision=&critical=1", "?critical=1"), ("aim=&revision=&critical=", ""),
     ("revision=Unchanged&critical=1", "?critical=1&revision=Unchanged"),
     ("revision=New%20one&critical=1", "?critical=1")],  # a revision the section lacks
)  # fmt: skip
def test_as_htmx_it_shows_an_address_with_only_the_filters_set(grower, query, shown):
    response = grower.get(f"{STORAGE}?{query}", headers=HTMX)
    assert response["HX-Push-Url"] == f"{STORAGE}{shown}"


def test_as_htmx_it_varies_on_the_htmx_header(grower):
    response = grower.get(STORAGE, headers=HTMX)
    assert "HX-Request" in response["Vary"]


def test_it_tells_apart_sections_of_two_sectors_with_one_prefix(grower):
    sugar_beet = main(grower.get(f"/standards/{CROPS}/SB/CP/").content.decode())
    combinable = main(grower.get(f"/standards/{CROPS}/CR/CP/").content.decode())
    assert '<span class="code">SB.CP</span> Crop protection' in sugar_beet
    assert shown_references(sugar_beet) == demo_references("crops", "SB.CP")
    assert shown_references(combinable) == demo_references("crops", "CR.CP")


def test_it_shows_the_preview_of_a_section(grower):
    response = grower.get(f"/standards/preview/{CROPS}/CR/ST/")
    assert response.status_code == 200
    page = main(response.content.decode())
    shown = shown_references(page)
    assert "CR.ST.15" not in shown  # removed in the preview
    assert shown[-2:] == ["CR.ST.19", "CR.ST.20"]
    assert len(shown) == 22
    assert '<span class="badge badge-preview">Preview</span>' in page
    assert f'<a href="/standards/{CROPS}/changes/">See what has changed</a>' in page
    assert f'<a href="/standards/preview/{CROPS}/points/CR.ST.19/">' in page


@pytest.mark.parametrize(
    "url",
    [
        f"/standards/{CROPS}/CR/ZZ/",
        f"/standards/{CROPS}/ZZ/ST/",
        f"/standards/{CROPS}/SB/ST/",
        f"/standards/{CROPS}/CR/STORAGE/",
        f"/standards/{UNKNOWN_SCHEME}/CR/ST/",
    ],
    ids=["unknown-prefix", "unknown-sector", "prefix-of-another-sector", "long", "unknown-scheme"],
)
def test_it_answers_404_for_an_unknown_section(grower, url):
    response = grower.get(url)
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_a_boosted_navigation_gets_the_whole_page(grower):
    response = grower.get(STORAGE, headers={**HTMX, "HX-Boosted": "true"})
    assert response.status_code == 200
    assert "<html" in response.content.decode()


def test_as_htmx_without_a_session_it_sends_the_browser_to_sign_in(client, upstream_sandbox):
    response = client.get(
        f"{STORAGE}?critical=1",
        headers={**HTMX, "HX-Current-URL": f"http://testserver{STORAGE}"},
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/accounts/sign-in/?next={STORAGE.replace('/', '%2F')}"
    assert response.content == b""


def test_sub_points_sit_under_their_parent(grower):
    page = main(grower.get(STORAGE).content.decode())

    by_point = {anchor: cls for cls, anchor in re.findall(
        r'<details class="([^"]+)" id="point-([A-Z0-9-]+)"', page)}  # fmt: skip
    assert "sub-point" in by_point["CR-ST-3-1"].split()
    assert "sub-point" not in by_point["CR-ST-3"].split()


def test_the_apply_button_shows_only_without_javascript(grower):
    page = main(grower.get(STORAGE).content.decode())
    assert re.search(
        r"<noscript>\s*<button type=\"submit\"[^>]*>Apply</button>\s*</noscript>", page
    )


@AS_PAGE_AND_FRAGMENT
def test_a_filtered_section_offers_to_clear_its_filters(grower, headers):
    filtered = grower.get(f"{STORAGE}?critical=1", headers=headers).content.decode()
    assert f'<a class="clear-filters" href="{STORAGE}">Clear filters</a>' in filtered
    whole = grower.get(STORAGE, headers=headers).content.decode()
    assert "Clear filters" not in whole
