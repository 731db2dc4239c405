"""Django's list of a transaction's commit callbacks, as portal/outbox/events.send_on_commit reads
it to gather a commit's deliveries into tasks of a few dozen: `transaction.on_commit` registers a
callback, but nothing documented tells whether one is registered already in the transaction
under way, so send_on_commit looks for its own in `connection.run_on_commit`. It relies on each
registration being appended there as a (savepoint ids, callback, robust) triple, in order; a
savepoint rolled back taking away the callbacks registered within it, and no other; and the
list being empty once the outermost transaction has committed or rolled back.
test_emit.py checks send_on_commit's whole."""

from __future__ import annotations

from contextlib import suppress

import pytest
from django.db import connection, transaction

pytestmark = pytest.mark.django_db(transaction=True)  # commits of its own, the outermost


def registered() -> list[object]:
    return [callback for _savepoints, callback, _robust in connection.run_on_commit]


def first() -> None: ...


def second() -> None: ...


def test_each_registration_is_appended_as_a_triple_in_order():
    with transaction.atomic():
        transaction.on_commit(first)
        transaction.on_commit(second, robust=True)
        assert [(callback, robust) for _savepoints, callback, robust
                in connection.run_on_commit] == [(first, False), (second, True)]  # fmt: skip


def test_a_savepoint_rolled_back_takes_away_its_own_callbacks_alone():
    with transaction.atomic():
        transaction.on_commit(first)
        with suppress(RuntimeError), transaction.atomic():
            transaction.on_commit(second)
            assert registered() == [first, second]
            raise RuntimeError("the savepoint's change failed")
        assert registered() == [first]


def test_the_list_is_empty_once_the_transaction_has_committed():
    ran: list[str] = []
    with transaction.atomic():
        transaction.on_commit(lambda: ran.append("sent"))
    assert ran == ["sent"]
    assert registered() == []


def test_the_list_is_empty_once_the_transaction_has_rolled_back():
    with suppress(RuntimeError), transaction.atomic():
        transaction.on_commit(first)
        raise RuntimeError("the change failed")
    assert registered() == []
