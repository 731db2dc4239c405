"""The audit trail is append-only in the database, not the code alone: on PostgreSQL an event is
never changed nor removed, by the ORM or by SQL, except by the sweep once past its keeping;
deleting a user keeps their events, with their username."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from portal.audit.events import Kind, record
from portal.audit.models import AppendOnly, Event
from portal.jobs.tasks import sweep

pytestmark = pytest.mark.django_db

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the trigger is PostgreSQL's"
)


def looked_up(days_ago: int = 0) -> Event:
    with time_machine.travel(timezone.now() - timedelta(days=days_ago)):
        return record(Kind.LOOK_UP, username="someone", code="0" * 32)


def refused_by_the_database(statement: str, *params: object) -> str:
    with pytest.raises(DatabaseError) as refused, transaction.atomic(), connection.cursor() as sql:
        sql.execute(statement, params)
    return str(refused.value)


def as_it_was(event: Event) -> tuple:
    stored = Event.objects.get(pk=event.pk)
    return stored.kind, stored.username, stored.detail


@on_postgresql
def test_sql_can_change_no_event():
    event = looked_up()
    refused = refused_by_the_database(
        "UPDATE audit_event SET username = 'someone else' WHERE id = %s", event.pk
    )
    assert "append-only" in refused
    assert as_it_was(event) == ("look-up", "someone", {"code": "0" * 32})


@on_postgresql
def test_sql_can_delete_no_event_of_the_last_30_days():
    event = looked_up(days_ago=29)
    assert "append-only" in refused_by_the_database("DELETE FROM audit_event")
    assert Event.objects.filter(pk=event.pk).exists()


@on_postgresql
def test_the_orm_past_the_code_s_refusal_changes_and_deletes_nothing():
    event = looked_up()
    events = Event._base_manager.filter(pk=event.pk)  # a plain queryset, as Django's own use
    with pytest.raises(DatabaseError), transaction.atomic():
        events.update(username="someone else")
    with pytest.raises(DatabaseError), transaction.atomic():
        events.delete()
    assert as_it_was(event) == ("look-up", "someone", {"code": "0" * 32})


def test_the_orm_refuses_to_update_or_delete_events():
    event = looked_up()
    with pytest.raises(AppendOnly):
        Event.objects.filter(pk=event.pk).update(username="someone else")
    with pytest.raises(AppendOnly):
        Event.objects.all().delete()
    assert as_it_was(event) == ("look-up", "someone", {"code": "0" * 32})


@pytest.mark.parametrize("days", [31, 400])
def test_the_sweep_removes_the_events_past_their_keeping_and_no_other(settings, days):
    settings.PORTAL_AUDIT_DAYS = days - 1
    past, kept, new = looked_up(days_ago=days), looked_up(days_ago=days - 2), looked_up()
    sweep()
    assert not Event.objects.filter(pk=past.pk).exists()
    assert set(Event.objects.values_list("pk", flat=True)) == {kept.pk, new.pk}


def test_an_event_just_past_its_keeping_is_removed_by_a_sweep_in_a_transaction(settings):
    settings.PORTAL_AUDIT_DAYS = 30
    with transaction.atomic():  # begun before the event was thirty days old
        just_past = looked_up(days_ago=30)
        sweep()
    assert not Event.objects.filter(pk=just_past.pk).exists()


def test_deleting_a_user_keeps_their_events_with_their_name():
    user = get_user_model().objects.create(username="leaver")
    event = record(Kind.SIGN_IN, user=user)
    user.delete()
    stored = Event.objects.get(pk=event.pk)
    assert (stored.user, stored.username) == (None, "leaver")


@on_postgresql
def test_sql_can_unset_the_user_of_no_event_while_the_user_is_there():
    user = get_user_model().objects.create(username="stayer")
    event = record(Kind.SIGN_IN, user=user)
    assert "append-only" in refused_by_the_database(
        "UPDATE audit_event SET user_id = NULL WHERE id = %s", event.pk
    )
    assert Event.objects.get(pk=event.pk).user == user
