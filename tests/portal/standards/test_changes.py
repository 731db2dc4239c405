"""/standards/<guid>/changes/: the preview against the live standards, point by point."""

from __future__ import annotations

import re

import pytest

from tests.portal.standards.helpers import BEEF_LAMB, CROPS, UNKNOWN_SCHEME, demo, main

pytestmark = pytest.mark.django_db
CHANGES = f"/standards/{CROPS}/changes/"
PREVIEW = demo("crops-preview")["sections"]
SECTION_CODE = re.compile(r'<h2 id="changes-heading-\d+"><span class="code">([^<]+)</span>')
POINT_CHANGE = re.compile(
    r'<li class="point-change point-change-(\w+)">.*?<span class="code">([^<]+)</span>', re.S
)


def changed_sections(page: str) -> dict[str, str]:
    """Each changed section's code and its part of the page."""
    parts = re.split(r'(?=<section class="change-section")', page)[1:]
    return {SECTION_CODE.search(part)[1]: part for part in parts}


def point_changes(part: str) -> dict[str, str]:
    """The reference of each changed point and how it changed."""
    return {reference: kind for kind, reference in POINT_CHANGE.findall(part)}


def expected_changes(code: str) -> dict[str, str]:
    change = PREVIEW[code]
    return {
        **{f"{code}.{n}": "reworded" for n in change["reworded"]},
        **{f"{code}.{n}": "removed" for n in change["removed"]},
        **{f"{code}.{p['number']}": "added" for p in change["added"]},
    }


@pytest.fixture
def changes_page(grower) -> str:
    response = grower.get(CHANGES)
    assert response.status_code == 200
    return main(response.content.decode())


def test_it_compares_the_sections_that_the_preview_changes(changes_page):
    assert list(changed_sections(changes_page)) == list(PREVIEW)


def test_it_lists_the_added_removed_and_reworded_points(changes_page):
    sections = changed_sections(changes_page)
    for code in PREVIEW:
        assert point_changes(sections[code]) == expected_changes(code), code


def test_it_counts_the_changes_of_each_section(changes_page):
    storage = changed_sections(changes_page)["CR.ST"]
    assert "2 added, 3 reworded, 1 removed." in storage


def test_it_marks_the_changed_words(changes_page):
    storage = changed_sections(changes_page)["CR.ST"]
    assert (
        "A pre-harvest inspection of every <del>store</del> <ins>store, dryer and cooling "
        "system</ins> is carried out" in storage
    )
    assert "<h4>Score</h4>" in storage
    assert '<p class="diff"><del>2</del> <ins>3</ins> </p>' in storage


def test_it_shows_what_the_scheme_says_has_changed(changes_page):
    storage = changed_sections(changes_page)["CR.ST"]
    start = storage.index('<div class="what-has-changed">')
    beside = storage[start : storage.index('<ul class="point-changes">')]
    assert "<h3>What the scheme says has changed</h3>" in beside
    assert (
        "<li><strong>CR.ST.15</strong> removed: outdoor heaps no longer permitted.</li>" in beside
    )
    assert "The storage section has been updated" in beside


def test_it_links_to_the_points_of_the_preview_but_not_to_removed_ones(changes_page):
    storage = changed_sections(changes_page)["CR.ST"]
    assert f'<a href="/standards/preview/{CROPS}/points/CR.ST.19/">' in storage
    assert f'<a href="/standards/preview/{CROPS}/points/CR.ST.3/">' in storage
    assert "/points/CR.ST.15/" not in storage


def test_it_names_the_unchanged_sections(changes_page):
    changed = set(PREVIEW)
    unchanged = [
        f"{s['sector']}.{s['prefix']} {s['name']}"
        for s in demo("crops")["sections"]
        if f"{s['sector']}.{s['prefix']}" not in changed
    ]
    assert f"Unchanged: {', '.join(unchanged)}." in changes_page


def test_it_shows_each_list_item_on_a_line_of_its_own(changes_page):
    trace = changed_sections(changes_page)["CR.TR"]
    diff = re.search(r'<h4>Record keeping</h4>\s*<p class="diff">(.*?)</p>', trace, re.S)[1]
    lines = [re.sub(r"<[^>]+>", "", line).strip() for line in diff.split("<br>")]
    assert lines == [
        "Written withdrawal procedure",
        "Contact list for buyers and the certification body",
        "Record of the annual traceability test, including the time taken",
    ]
    assert (
        "<ins><br> Record of the annual traceability test, including the time taken</ins>" in diff
    )


def test_it_answers_404_for_a_scheme_with_no_preview(grower):
    response = grower.get(f"/standards/{BEEF_LAMB}/changes/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_it_answers_404_for_an_unknown_scheme(grower):
    assert grower.get(f"/standards/{UNKNOWN_SCHEME}/changes/").status_code == 404
