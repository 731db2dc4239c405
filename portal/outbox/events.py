"""Emitting events, the one way apps tell the outside world what changed: `emit` writes the event
and a delivery for each endpoint that wants it, in the caller's transaction, and sends them
once it commits, with the other deliveries that transaction made (a task for each
PORTAL_WEBHOOK_DELIVERIES_A_TASK of them). A change rolled back sends nothing; one committed
loses nothing (what a lost task or a broker out of reach leaves, the sweep sends:
portal.outbox.tasks)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from portal.outbox.models import Delivery, Endpoint, Event, EventType
from portal.outbox.tasks import send_soon

LARGEST_BODY = 20 * 1024


def emit(
    event_type: str, data: dict, *, membership_guid: str = "", site_id: int | None = None
) -> Event | None:
    """The event of `event_type`, for the endpoints of the business (`membership_guid`) and of
    the intake site (`site_id`) it concerns, and no one else's; None when no endpoint of theirs
    wants it. `data` is thin: ids, a status, and the API address to fetch the rest from."""
    owners = Q(pk__in=[])
    if membership_guid:
        owners |= Q(membership_guid=membership_guid)
    if site_id is not None:
        owners |= Q(site_id=site_id)
    endpoints = [e for e in Endpoint.objects.filter(owners, enabled=True) if e.wants(event_type)]
    if not endpoints:
        return None
    return _write(event_type, data, endpoints, membership_guid=membership_guid, site_id=site_id)


TESTS_A_MINUTE = 5  # test events to one endpoint: no more, so the portal floods no one


def may_send_test(endpoint: Endpoint) -> bool:
    """Whether a test event may be sent to the endpoint now: fewer than TESTS_A_MINUTE in the
    last minute."""
    since = timezone.now() - timedelta(minutes=1)
    recent = endpoint.deliveries.filter(event__type=EventType.PING, created__gt=since)
    return recent.count() < TESTS_A_MINUTE


def send_test(endpoint: Endpoint) -> Event:
    """A `ping` to this endpoint alone ("Send a test event")."""
    data = {"endpoint": endpoint.pk, "message": "A test event from the assurance portal."}
    return _write(EventType.PING, data, [endpoint], membership_guid=endpoint.membership_guid,
                  site_id=endpoint.site_id)  # fmt: skip


def resend(delivery: Delivery) -> bool:
    """The delivery sent again, as it was (the same webhook-id), whatever came of it before
    ("Resend"); False while it is still being tried, or its endpoint is disabled."""
    return _send_again(Delivery.objects.filter(pk=delivery.pk)) == 1


def resend_failed_since(endpoint: Endpoint, since: datetime) -> int:
    """Every delivery to the endpoint that failed, of events since `since`, sent again; how many
    ("Send again all that failed since")."""
    return _send_again(endpoint.deliveries.filter(event__created__gte=since,
                                                  state=Delivery.State.FAILED))  # fmt: skip


def _send_again(deliveries: QuerySet[Delivery]) -> int:
    now = timezone.now()
    with transaction.atomic():
        ids = list(
            deliveries.exclude(state=Delivery.State.PENDING)
            .filter(endpoint__enabled=True)
            .values_list("pk", flat=True)
        )
        Delivery.objects.filter(pk__in=ids).update(
            state=Delivery.State.PENDING, tries=0, next_attempt=now, held_until=None, ended=None
        )
        send_on_commit(ids)
    return len(ids)


def _write(
    event_type: str, data: dict, endpoints: list[Endpoint], *, membership_guid: str,
    site_id: int | None,
) -> Event:  # fmt: skip
    now = timezone.now()
    body = json.dumps(
        {"type": str(event_type), "timestamp": now.isoformat().replace("+00:00", "Z"),
         "data": data},
        separators=(",", ":"), ensure_ascii=False,
    )  # fmt: skip
    if len(body.encode()) >= LARGEST_BODY:
        raise ValueError(f"An event's body is under {LARGEST_BODY} bytes: {event_type} is not.")
    with transaction.atomic():
        event = Event.objects.create(uid=Event.new_uid(), type=event_type, created=now, body=body,
                                     membership_guid=membership_guid, site_id=site_id)  # fmt: skip
        made = Delivery.objects.bulk_create(
            Delivery(event=event, endpoint=endpoint, next_attempt=now, created=now)
            for endpoint in endpoints
        )
        send_on_commit([d.pk for d in made])
    return event


class _Commit:
    """The deliveries a transaction has made so far, sent to the workers together once it
    commits."""

    def __init__(self) -> None:
        self.delivery_ids: list[int] = []

    def send(self) -> None:
        delivery_ids, self.delivery_ids = self.delivery_ids, []
        send_soon(delivery_ids)


def send_on_commit(delivery_ids: list[int]) -> None:
    """The deliveries sent to the workers once the transaction commits, with every other the
    transaction made: a commit of 2,000 events to three endpoints is 12 tasks, not 2,000.
    Each call asks the transaction to send them on commit (so that a savepoint rolled back
    takes no other call's request with it); the first request that runs sends them all, and
    the others have nothing left. An id of a row rolled back with its savepoint is sent too,
    and its task finds nothing to send (portal.outbox.delivering.claim). Django documents no
    way to tell whether a callback is registered already: this reads its list of them
    (`connection.run_on_commit`), as tests/library_parts/test_django_on_commit.py checks."""
    connection = transaction.get_connection()
    commit = getattr(connection, "outbox_commit", None)
    if commit is None or not any(  # the latest request is near the end
        callback == commit.send for _, callback, _ in reversed(connection.run_on_commit)
    ):  # the transaction's first, or the last one's committed or rolled back
        commit = connection.outbox_commit = _Commit()
    commit.delivery_ids.extend(delivery_ids)
    transaction.on_commit(commit.send, robust=True)
