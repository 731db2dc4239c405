"""portal.lib.commits: commits that do not wait for the disk, for their own transaction only."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from portal.audit.events import Kind, record
from portal.audit.models import Event
from portal.lib.commits import not_waiting_for_the_disk

# A transaction of its own is the point: these tests are not wrapped in one.
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own setting"),
]


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


def test_what_is_written_in_the_block_is_committed_without_waiting_for_the_disk():
    with not_waiting_for_the_disk():
        assert synchronous_commit() == "off"
        event = record(Kind.SIGN_IN, username="someone")
    assert not connection.in_atomic_block  # committed at the block's end
    assert Event.objects.get(pk=event.pk).username == "someone"


def test_what_is_written_after_it_waits_for_the_disk_again():
    with not_waiting_for_the_disk():
        pass
    assert synchronous_commit() == "on"


def test_inside_a_transaction_begun_already_it_changes_nothing():
    with transaction.atomic():
        with not_waiting_for_the_disk():
            assert synchronous_commit() == "on"
        assert synchronous_commit() == "on"
