"""The standards kept in the portal's cache (portal/standards/cached.py), seen through the
section page: warm pages make no upstream call, stale ones are refreshed, and a cached copy
stands in while the upstream cannot be reached."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import msgspec
import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.assurance import service
from portal.assurance.client import AssuranceClient
from portal.standards import cached
from tests.portal.accounts.helpers import sign_in, upstream_calls
from tests.portal.standards.helpers import (
    CROPS,
    HTMX,
    STORAGE,
    UNKNOWN_SCHEME,
    demo,
    demo_references,
    made_points,
    main,
    refreshed_at,
    shown_references,
)

pytestmark = pytest.mark.django_db
CANNOT_BE_REACHED = "The Assurance service cannot be reached just now"


def take_the_upstream_down(settings) -> None:
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    settings.ASSURANCE_RETRIES = 1
    service.client.cache_clear()


def test_a_warm_page_makes_no_upstream_call(grower):
    with upstream_calls() as first:
        assert grower.get(STORAGE).status_code == 200
    assert "section_data" in [call.operation for call in first]
    with upstream_calls() as second:
        response = grower.get(STORAGE)
    assert response.status_code == 200
    assert second == []
    assert shown_references(main(response.content.decode())) == demo_references("crops", "CR.ST")


def test_a_warm_fragment_makes_no_upstream_call(grower):
    grower.get(STORAGE)
    with upstream_calls() as calls:
        response = grower.get(f"{STORAGE}?critical=1", headers=HTMX)
    assert response.status_code == 200
    assert calls == []


def test_the_cache_is_shared_between_sessions(grower):
    grower.get(STORAGE)
    other = Client()
    assert sign_in(other, "grower").status_code == 302
    with upstream_calls() as calls:
        assert other.get(STORAGE).status_code == 200
    assert calls == []


def test_stale_content_is_refreshed(grower, settings):
    settings.STANDARDS_FRESH_SECONDS = 0
    grower.get(STORAGE)
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert response.status_code == 200
    assert "section_data" in [call.operation for call in calls]
    assert CANNOT_BE_REACHED not in response.content.decode()


def test_the_page_says_when_the_content_was_last_refreshed(grower):
    page = main(grower.get(STORAGE).content.decode())
    now = timezone.localtime()
    assert abs(refreshed_at(page) - now) < timedelta(minutes=2)


def test_a_cached_copy_stands_in_when_the_upstream_is_down(grower, settings):
    before = main(grower.get(STORAGE).content.decode())
    settings.STANDARDS_FRESH_SECONDS = 0  # so the portal tries the upstream again
    take_the_upstream_down(settings)
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert calls and all(call.outcome != "ok" for call in calls)
    assert response.status_code == 200
    page = main(response.content.decode())
    assert CANNOT_BE_REACHED in page
    assert "so this is the copy the portal last had, from" in " ".join(page.split())
    assert shown_references(page) == shown_references(before)
    assert refreshed_at(page) == refreshed_at(before)


def test_a_cached_fragment_stands_in_when_the_upstream_is_down(grower, settings):
    grower.get(STORAGE)
    settings.STANDARDS_FRESH_SECONDS = 0
    take_the_upstream_down(settings)
    response = grower.get(STORAGE, headers=HTMX)
    assert response.status_code == 200
    assert "<html" not in response.content.decode()
    assert shown_references(response.content.decode()) == demo_references("crops", "CR.ST")


def test_a_fresh_cached_page_is_served_without_asking_the_upstream(grower, settings):
    grower.get(STORAGE)
    take_the_upstream_down(settings)
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert response.status_code == 200
    assert calls == []


def test_with_nothing_cached_it_shows_the_unavailable_page(grower, settings):
    take_the_upstream_down(settings)
    response = grower.get(STORAGE)
    assert response.status_code == 503
    content = response.content.decode()
    assert "The Assurance service is unavailable" in content
    assert f'<a href="{STORAGE}">try again</a>' in content


def test_with_nothing_cached_the_schemes_page_is_unavailable_too(grower, settings):
    take_the_upstream_down(settings)
    assert grower.get("/standards/").status_code == 503


@pytest.mark.parametrize(
    "url",
    [f"/standards/{UNKNOWN_SCHEME}/", f"/standards/{UNKNOWN_SCHEME}/CR/ST/",
     f"/standards/{CROPS}/CR/ZZ/"],
    ids=["scheme", "scheme-of-section", "section"],
)  # fmt: skip
def test_an_unknown_scheme_or_section_is_the_404_page(grower, url):
    response = grower.get(url)
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_an_outage_is_remembered_and_kept_copies_are_served_at_once(grower, settings):
    search, changes = f"/standards/{CROPS}/search/?q=store", f"/standards/{CROPS}/changes/"
    for url in (STORAGE, search, changes):
        assert grower.get(url).status_code == 200
    settings.STANDARDS_FRESH_SECONDS = 0
    take_the_upstream_down(settings)
    with upstream_calls() as first:
        assert CANNOT_BE_REACHED in grower.get(STORAGE).content.decode()
    assert any(call.attempts == 1 for call in first)  # the service was tried

    for url in (STORAGE, search, changes):
        with upstream_calls() as calls:
            response = grower.get(url)
        assert response.status_code == 200
        assert CANNOT_BE_REACHED in response.content.decode()
        assert calls and all(call.attempts == 0 for call in calls), url  # nothing waited on


def test_pages_refresh_once_the_service_is_back(grower, settings, sandbox):
    grower.get(STORAGE)
    settings.STANDARDS_FRESH_SECONDS = 0
    settings.ASSURANCE_OUTAGE_SECONDS = 1
    take_the_upstream_down(settings)
    assert CANNOT_BE_REACHED in grower.get(STORAGE).content.decode()

    settings.ASSURANCE_BASE_URL = sandbox.url
    service.client.cache_clear()
    assert CANNOT_BE_REACHED in grower.get(STORAGE).content.decode()  # still remembered
    with time_machine.travel(timedelta(seconds=1.1)), upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert ("section_data", "ok") in [(call.operation, call.outcome) for call in calls]
    assert CANNOT_BE_REACHED not in response.content.decode()


def test_with_the_service_down_an_uncached_page_is_unavailable_at_once(grower, settings):
    take_the_upstream_down(settings)
    assert grower.get(STORAGE).status_code == 503
    with upstream_calls() as calls:
        response = grower.get(f"/standards/{CROPS}/SB/GN/")
    assert response.status_code == 503
    assert calls and all(call.attempts == 0 for call in calls)


def test_a_missing_page_of_a_scheme_leads_back_to_the_scheme_and_its_search(grower):
    response = grower.get(f"/standards/{CROPS}/CR/ZZ/")
    assert response.status_code == 404
    content = response.content.decode()
    assert f'<a class="button" href="/standards/{CROPS}/">Go to the scheme' in content
    assert f'href="/standards/{CROPS}/search/">Search the scheme</a>' in content


def test_a_missing_page_of_a_preview_leads_back_to_the_preview(grower):
    response = grower.get(f"/standards/preview/{CROPS}/points/CR.ZZ.1/")
    assert response.status_code == 404
    content = response.content.decode()
    assert f'href="/standards/preview/{CROPS}/search/">Search the scheme</a>' in content


def test_a_missing_page_elsewhere_leads_home_and_to_the_standards(grower):
    response = grower.get("/no-such-page/")
    assert response.status_code == 404
    content = response.content.decode()
    assert '<a class="button" href="/">Go to the home page</a>' in content
    assert 'href="/standards/">Browse the standards</a>' in content


def test_a_section_page_is_made_once_for_every_user(grower):
    assert made_points(grower.get(STORAGE))
    assert not made_points(grower.get(STORAGE))
    other = Client()
    assert sign_in(other, "lapsed").status_code == 302
    assert not made_points(other.get(STORAGE))
    assert made_points(grower.get(f"{STORAGE}?critical=1"))  # a filter of its own
    assert not made_points(grower.get(f"{STORAGE}?critical=1"))


def test_filters_the_section_lacks_keep_no_page(grower):
    """No address, however made up, adds to what the cache keeps."""
    for _ in range(2):
        response = grower.get(f"{STORAGE}?aim=made-up&revision=nonsense")
        assert response.status_code == 200
        assert made_points(response)


def breadcrumbs(response) -> str:
    [crumbs] = re.findall(
        r'<nav class="breadcrumbs" aria-label="Breadcrumbs">(.*?)</nav>',
        response.content.decode(),
        re.S,
    )
    return " ".join(crumbs.split())


def test_a_cold_page_asks_for_its_section_and_the_scheme_list_at_once(grower, monkeypatch):
    # Each call waits for the other: they go on only if they are asked together (or the
    # barrier breaks after its time-out, and the page with it).
    together = threading.Barrier(2, timeout=10)
    for operation in ("section_data", "schemes"):
        monkeypatch.setattr(AssuranceClient, operation, waiting_for(together, operation))
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert response.status_code == 200
    assert sorted(call.operation for call in calls) == ["schemes", "section_data"]
    assert shown_references(main(response.content.decode())) == demo_references("crops", "CR.ST")


def waiting_for(together: threading.Barrier, operation: str):
    real = getattr(AssuranceClient, operation)

    def waiting(self, *args, **kwargs):
        together.wait()
        return real(self, *args, **kwargs)

    return waiting


def test_a_stale_page_of_unchanged_content_is_not_made_again(grower, settings):
    assert made_points(grower.get(STORAGE))
    settings.STANDARDS_FRESH_SECONDS = 0  # the service is asked again: the same content
    with upstream_calls() as calls:
        response = grower.get(STORAGE)
    assert "section_data" in [call.operation for call in calls]
    assert not made_points(response)
    assert shown_references(main(response.content.decode())) == demo_references("crops", "CR.ST")


def test_the_breadcrumbs_name_the_scheme_and_a_renamed_scheme_makes_the_page_again(
    grower, monkeypatch
):
    name = demo("crops")["name"]
    assert f'<a href="/standards/{CROPS}/">{name}</a>' in breadcrumbs(grower.get(STORAGE))
    as_listed = cached.schemes_if_any

    def renamed(credentials, stage):
        listed = as_listed(credentials, stage)
        items = [
            msgspec.structs.replace(s, scheme_name="Crops, renamed")
            if s.scheme_guid == CROPS else s
            for s in listed.record.items
        ]  # fmt: skip
        record = msgspec.structs.replace(listed.record, items=items)
        return cached.Fetched(lambda: record, listed.refreshed, "another version", False)

    monkeypatch.setattr(cached, "schemes_if_any", renamed)
    response = grower.get(STORAGE)
    assert made_points(response)
    assert f'<a href="/standards/{CROPS}/">Crops, renamed</a>' in breadcrumbs(response)


def test_a_page_whose_scheme_name_cannot_be_had_says_the_scheme(grower, monkeypatch):
    monkeypatch.setattr(cached, "schemes_if_any", lambda credentials, stage: None)
    response = grower.get(STORAGE)
    assert f'<a href="/standards/{CROPS}/">The scheme</a>' in breadcrumbs(response)
    assert shown_references(main(response.content.decode())) == demo_references("crops", "CR.ST")
