"""Section pages kept for every user (portal/standards/pages.py): a small entry in the shared
cache for the page's heading, the points' HTML beside it under their digest, and the points also
held in each process's memory. The shared cache's entry is what finds a page: emptying it
empties every page, and the points are made again whenever neither copy is left."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from datetime import timedelta

import pytest
from django.core.cache import cache

from portal.assurance.errors import Unavailable
from portal.standards import library, pages
from portal.standards.content import Filters
from portal.standards.pages import SectionPage
from tests.portal.accounts.helpers import upstream_calls
from tests.portal.standards.helpers import (
    CROPS,
    HTMX,
    STORAGE,
    count_line,
    demo,
    demo_critical_references,
    demo_references,
    kept_page_key,
    main,
    refreshed_at,
    shown_references,
)

pytestmark = pytest.mark.django_db
EVERY_POINT = demo_references("crops", "CR.ST")
CRITICAL_POINTS = demo_critical_references("crops", "CR.ST")
_BREADCRUMBS = re.compile(r'<nav class="breadcrumbs" aria-label="Breadcrumbs">(.*?)</nav>', re.S)


def kept_page(filters: Filters | None = None) -> SectionPage | None:
    """The storage section's entry in the shared cache, for `filters` (none by default)."""
    return cache.get(kept_page_key(filters))


def points_key(page: SectionPage) -> str:
    return f"standards:points:{page.points_digest}"


def shown(response) -> list[str]:
    assert response.status_code == 200
    return shown_references(main(response.content.decode()))


def breadcrumbs(response) -> str:
    [crumbs] = _BREADCRUMBS.findall(response.content.decode())
    return " ".join(crumbs.split())


def test_the_page_is_kept_with_its_points_in_the_cache_and_in_memory(grower):
    grower.get(STORAGE)
    page = kept_page()
    assert page is not None
    assert page.title == "Storage"
    points = cache.get(points_key(page))
    assert shown_references(points.decode()) == EVERY_POINT
    assert pages._points_in_memory[page.points_digest] == points


def test_emptying_the_shared_cache_asks_the_upstream_again(grower):
    grower.get(STORAGE)
    digest = kept_page().points_digest
    cache.clear()
    assert digest in pages._points_in_memory  # but no page leads to them
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert "section_data" in [call.operation for call in calls]
    assert shown(response) == EVERY_POINT


def test_points_held_in_memory_serve_a_warm_page_without_the_upstream(grower):
    grower.get(STORAGE)
    page = kept_page()
    assert cache.delete(points_key(page))
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert calls == []
    assert shown(response) == EVERY_POINT
    assert cache.get(points_key(page)) is None  # served from memory, not made again


def test_points_neither_in_memory_nor_in_the_cache_are_made_again(grower):
    grower.get(STORAGE)
    page = kept_page()
    pages.forget()
    assert cache.delete(points_key(page))
    response = grower.get(STORAGE)
    assert shown(response) == EVERY_POINT
    assert count_line(main(response.content.decode())) == "21 standard points"
    assert demo("crops")["name"] in breadcrumbs(response)
    assert shown_references(cache.get(points_key(page)).decode()) == EVERY_POINT  # kept again


def test_a_cold_page_names_its_scheme_in_the_breadcrumbs(grower):
    assert kept_page() is None
    response = grower.get(STORAGE)
    name = demo("crops")["name"]
    assert breadcrumbs(response) == (
        f'<a href="/standards/">Standards</a> \N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK} '
        f'<a href="/standards/{CROPS}/">{name}</a>'
    )
    assert breadcrumbs(grower.get(STORAGE)) == breadcrumbs(response)  # and so does the warm one


def test_a_filtered_page_is_kept_apart_from_the_unfiltered_one(grower):
    assert shown(grower.get(STORAGE)) == EVERY_POINT
    assert 0 < len(CRITICAL_POINTS) < len(EVERY_POINT)
    filtered = grower.get(f"{STORAGE}?critical=1")
    assert shown(filtered) == CRITICAL_POINTS
    assert 'name="critical" value="1" checked' in filtered.content.decode()
    unfiltered = grower.get(STORAGE)
    assert shown(unfiltered) == EVERY_POINT
    assert 'name="critical" value="1" checked' not in unfiltered.content.decode()
    assert kept_page(Filters(critical=True)) != kept_page()


def test_an_htmx_request_gets_just_the_points_for_its_filter(grower):
    grower.get(STORAGE)
    response = grower.get(f"{STORAGE}?critical=1", headers=HTMX)
    assert response.status_code == 200
    fragment = response.content.decode()
    assert "<html" not in fragment
    assert "<nav" not in fragment
    assert fragment.strip().startswith('<div id="points">')
    assert shown_references(fragment) == CRITICAL_POINTS
    assert count_line(fragment) == f"{len(CRITICAL_POINTS)} of 21 standard points"
    everything = grower.get(STORAGE, headers=HTMX).content.decode()
    assert shown_references(everything) == EVERY_POINT


def test_a_stale_page_of_unchanged_content_is_not_made_again_but_says_when_it_was_checked(
    grower, settings, monkeypatch
):
    grower.get(STORAGE)
    hour_ago = kept_page().refreshed - timedelta(hours=1)
    cache.set(
        kept_page_key(),
        replace(kept_page(), refreshed=hour_ago),
    )
    settings.STANDARDS_FRESH_SECONDS = 0  # the library asks the upstream again, too
    monkeypatch.setattr(pages, "_make", lambda *args: pytest.fail("the page was made again"))
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert "section_data" in [call.operation for call in calls]
    assert shown(response) == EVERY_POINT
    assert kept_page().refreshed > hour_ago + timedelta(minutes=59)
    assert refreshed_at(response.content.decode()) >= hour_ago + timedelta(minutes=59)


def test_a_stale_page_whose_scheme_was_renamed_is_made_again(grower, settings):
    name = demo("crops")["name"]
    grower.get(STORAGE)
    kept = kept_page()
    header = kept.header_html.replace(name.encode(), b"Former name")
    as_before = replace(kept, scheme_name="Former name", header_html=header)
    cache.set(kept_page_key(), as_before)
    assert "Former name" in breadcrumbs(grower.get(STORAGE))  # fresh: used as it is
    settings.STANDARDS_FRESH_SECONDS = 0
    renamed = breadcrumbs(grower.get(STORAGE))
    assert name in renamed
    assert "Former name" not in renamed
    assert kept_page().scheme_name == name


def slow_name(*args) -> str:
    time.sleep(1)
    return "Too late"


def no_name(*args) -> str:
    raise Unavailable("The Assurance service cannot be reached.")


@pytest.mark.parametrize("scheme_name", [slow_name, no_name], ids=["slow", "unavailable"])
def test_a_page_whose_scheme_name_cannot_be_had_says_the_scheme(grower, monkeypatch, scheme_name):
    monkeypatch.setattr(pages, "NAME_WAIT_SECONDS", 0.1)
    monkeypatch.setattr(library, "scheme_name", scheme_name)
    response = grower.get(STORAGE)
    assert shown(response) == EVERY_POINT
    assert f'<a href="/standards/{CROPS}/">The scheme</a>' in breadcrumbs(response)
    assert kept_page().scheme_name is None  # so the next check for changes puts the name in
