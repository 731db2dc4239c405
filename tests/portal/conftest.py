"""Fixtures of the portal's tests: the portal pointed at the live sandbox, a clean cache."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from portal import upstream


@pytest.fixture(autouse=True)
def clean_cache(settings, request) -> None:
    """A cache of the test's own, in memory: sign-in throttles and the look-up token start
    afresh, and no real cache (a developer's Redis or var/cache) is touched."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": request.node.nodeid,
        }
    }


@pytest.fixture
def upstream_sandbox(sandbox, settings) -> Iterator[object]:
    """The portal's client pointed at the shared live sandbox."""
    settings.ASSURANCE_BASE_URL = sandbox.url
    settings.ASSURANCE_LOOKUP_USERNAME = "haulier"
    settings.ASSURANCE_LOOKUP_PASSWORD = "haulier-demo-pass"
    upstream.client.cache_clear()
    yield sandbox
    upstream.client.cache_clear()


@pytest.fixture
def fresh_lockouts(sandbox) -> Iterator[None]:
    """For tests that fail sign-ins through the portal: the portal reaches the sandbox from
    127.0.0.1, so its failures would lock every other test out. They are cleared on both
    sides of the test."""
    sandbox.reset_lockouts()
    yield
    sandbox.reset_lockouts()
