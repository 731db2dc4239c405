"""/standards/<guid>/search/: search a scheme by reference or by words."""

from __future__ import annotations

import re

import pytest

from tests.portal.standards.helpers import BEEF_LAMB, CROPS, UNKNOWN_SCHEME, main

pytestmark = pytest.mark.django_db
SEARCH = f"/standards/{CROPS}/search/"
HIT = re.compile(r'<a href="[^"]*/points/[^"]+/"><span class="code">([^<]+)</span>')
GROUP = re.compile(r'<h2 id="group-\d+"><a href="([^"]+)">([^<]+)</a></h2>')


def groups(page: str) -> list[tuple[str, str, list[str]]]:
    """Each group of hits: its section's address and name, and the references found in it."""
    found = []
    parts = re.split(r'(?=<section class="search-group")', page)[1:]
    for part in parts:
        [(url, name)] = GROUP.findall(part)
        found.append((url, name, HIT.findall(part)))
    return found


def search(grower, query: str, url: str = SEARCH) -> str:
    response = grower.get(url, {"q": query})
    assert response.status_code == 200
    return main(response.content.decode())


def test_an_empty_query_shows_just_the_form(grower):
    for url in (SEARCH, f"{SEARCH}?q=", f"{SEARCH}?q=+++"):
        page = main(grower.get(url).content.decode())
        assert f'<form class="search-form" method="get" action="{SEARCH}" role="search">' in page
        assert 'class="count"' not in page
        assert "search-group" not in page


def test_it_finds_a_reference_and_the_points_under_it(grower):
    page = search(grower, "CR.ST.3")
    [(url, name, references)] = groups(page)
    assert (url, name) == (f"/standards/{CROPS}/CR/ST/", "Storage")
    assert references[:2] == ["CR.ST.3", "CR.ST.3.1"]
    assert all(r == "CR.ST.3" or r.startswith("CR.ST.3.") for r in references)
    assert f"{len(references)} standard points found under CR.ST.3." in page
    assert f'<a href="/standards/{CROPS}/points/CR.ST.3.1/">' in page


def test_it_finds_a_reference_in_any_case(grower):
    [(_, name, references)] = groups(search(grower, "cr.st.3.1"))
    assert (name, references) == ("Storage", ["CR.ST.3.1"])


def test_a_reference_does_not_find_its_neighbours(grower):
    [(_, _, references)] = groups(search(grower, "CR.ST.1"))
    assert references == ["CR.ST.1"]  # not CR.ST.10 ... CR.ST.18


def test_it_finds_the_sections_of_a_sector(grower):
    found = groups(search(grower, "SB.CP"))
    assert [(url, name) for url, name, _ in found] == [
        (f"/standards/{CROPS}/SB/CP/", "Crop protection")
    ]


def test_a_word_search_needs_every_word(grower):
    assert groups(search(grower, "bait")) == [
        (f"/standards/{CROPS}/CR/ST/", "Storage", ["CR.ST.6", "CR.ST.6.1"])
    ]
    assert groups(search(grower, "rodent bait")) == [
        (f"/standards/{CROPS}/CR/ST/", "Storage", ["CR.ST.6"])
    ]
    nothing = search(grower, "bait zebra")
    assert groups(nothing) == []
    assert "Nothing found for “bait zebra”." in nothing


def test_it_groups_the_hits_by_section_with_the_words_marked(grower):
    page = search(grower, "passport")
    found = groups(page)
    assert len(found) > 1
    names = [name for _, name, _ in found]
    assert "Traceability" in names
    for url, _, references in found:
        prefix = url.removeprefix(f"/standards/{CROPS}/").rstrip("/").replace("/", ".")
        assert all(r.startswith(prefix + ".") for r in references)
    assert "<mark>passport</mark>" in page.lower()
    total = sum(len(refs) for _, _, refs in found)
    assert f"{total} standard points found with every word of “passport”." in page


def test_it_escapes_a_query_with_html_in_it(grower):
    page = search(grower, "<script>")
    assert "<script" not in page
    assert 'value="&lt;script&gt;"' in page
    assert "Nothing found for “&lt;script&gt;”." in page
    assert groups(page) == []


def test_it_escapes_html_around_the_words_it_finds(grower):
    page = search(grower, "<b>rodent</b> plan")
    assert "<b>" not in page
    assert "“&lt;b&gt;rodent&lt;/b&gt; plan”" in page
    assert groups(page)
    assert "<mark>rodent</mark>" in page.lower()


def test_it_escapes_the_words_it_marks(grower):
    page = search(grower, "buyer's")
    assert groups(page)
    assert "<mark>buyer&#x27;s</mark>" in page.lower()


def test_it_searches_the_preview(grower):
    page = search(grower, "CR.ST.19", f"/standards/preview/{CROPS}/search/")
    [(url, _, references)] = groups(page)
    assert url == f"/standards/preview/{CROPS}/CR/ST/"
    assert references == ["CR.ST.19"]
    assert groups(search(grower, "CR.ST.19")) == []  # not in force yet


def test_it_searches_only_the_scheme_asked_for(grower):
    page = search(grower, "CR.ST.3", f"/standards/{BEEF_LAMB}/search/")
    assert groups(page) == []


def test_it_answers_404_for_an_unknown_scheme(grower):
    assert grower.get(f"/standards/{UNKNOWN_SCHEME}/search/?q=store").status_code == 404
