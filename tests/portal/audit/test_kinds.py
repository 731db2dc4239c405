"""The kinds of audit event live in code (Event.Kind): a new kind is added there, with no
migration; an event of a kind the code does not name is refused and nothing is kept; staff
filter the trail by every kind, in words."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils.html import escape

from portal.audit.events import Kind, record
from portal.audit.models import Event, UnknownKind
from tests.portal.accounts.helpers import signed_in_staff

pytestmark = pytest.mark.django_db

TRAIL = "/admin/audit/event/"


def test_the_models_and_their_migrations_agree():
    """Every model change has its migration, and the kinds need none."""
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


def test_an_event_of_a_kind_not_in_the_code_is_refused_and_not_kept():
    before = Event.objects.count()
    with pytest.raises(UnknownKind, match="not a kind of audit event"):
        record("screenings-changed", username="someone")
    assert Event.objects.count() == before


def test_staff_filter_the_trail_by_every_kind_in_words(upstream_sandbox):
    staff = signed_in_staff("grower")
    record(Kind.LOOK_UP, username="visitor")
    record(Kind.WEBHOOK_REGISTERED, username="contact")
    page = staff.get(TRAIL).content.decode()
    for label in Kind.labels:
        assert f">{escape(label)}</a>" in page, label
    filtered = staff.get(f"{TRAIL}?kind={Kind.WEBHOOK_REGISTERED.value}").content.decode()
    names = re.findall(r'<td class="field-username">([^<]*)</td>', filtered)
    assert names == ["contact"]
    assert '<td class="field-what">Webhook endpoint registered</td>' in filtered
