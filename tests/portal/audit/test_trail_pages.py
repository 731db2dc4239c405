"""The audit trail in the admin as staff page through it: the newest events first, 100 a page,
every event on a page; a trail too big to count on every page counted by PostgreSQL's estimate,
and a filtered one exactly."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client

from portal.audit import events
from portal.audit.models import Event
from portal.lib.admin import EstimatedCountPaginator
from tests.portal.accounts.helpers import signed_in_staff
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db

TRAIL = "/admin/audit/event/"


@pytest.fixture
def staff(upstream_sandbox) -> Client:
    """The grower made staff, signed in."""
    return signed_in_staff("grower")


def looked_up(count: int, first: int = 0) -> list[str]:
    """`count` look-ups recorded, one after another, by visitors named by their number; the
    names, the newest first."""
    names = [f"visitor-{n}" for n in range(first, first + count)]
    for name in names:
        events.record(Event.Kind.LOOK_UP, username=name)
    return names[::-1]


def shown(staff: Client, query: str = "") -> tuple[list[str], str]:
    """The usernames of the trail's rows, in their order, and the page's words."""
    page = staff.get(f"{TRAIL}{query}")
    assert page.status_code == 200
    names = re.findall(r'<td class="field-username">([^<]*)</td>', page.content.decode())
    return names, text(page)


def test_staff_page_through_the_trail_newest_first_100_a_page(staff):
    visitors = looked_up(230)
    total = Event.objects.count()  # the look-ups, and grower's own events
    first, words = shown(staff)
    assert first == visitors[:100]
    assert f"{total} events" in words
    second, _ = shown(staff, "?p=2")
    assert second == visitors[100:200]
    last, _ = shown(staff, "?p=3")
    assert last[:30] == visitors[200:] and len(last) == total - 200
    assert sorted(first + second + last) == sorted(Event.objects.values_list("username", flat=True))


def test_a_trail_too_big_to_count_on_every_page_shows_the_databases_estimate(staff, monkeypatch):
    monkeypatch.setattr(EstimatedCountPaginator, "ESTIMATED_FROM", 100)
    looked_up(150)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE audit_event")  # as autovacuum does
    estimated = Event.objects.count()
    newer = looked_up(20, first=150)
    first, words = shown(staff)
    assert first[:20] == newer
    assert f"{estimated} events" in words  # the estimate, until the next ANALYZE
    _, filtered = shown(staff, "?kind=look-up")
    assert "170 events" in filtered  # filtered: counted exactly
    oldest, _ = shown(staff, "?o=0")  # by time, the oldest first
    assert oldest[0] == Event.objects.order_by("at", "pk").first().username
