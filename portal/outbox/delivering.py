"""A delivery's attempts, on a worker: the delivery claimed (held for a while, so that the sweep
and a second copy of its task leave it alone), signed, sent, and what came of it written with
the attempt; retried on a schedule, or given up.

Retries come at about 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
(PORTAL_WEBHOOK_RETRY_SECONDS), each a tenth earlier or later at random, or later if the
endpoint's Retry-After asks for longer. An answer of 410 Gone
disables the endpoint; so does failing for PORTAL_WEBHOOK_DISABLE_AFTER_DAYS, and its owners
are e-mailed (portal.outbox.mailing).
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone

from portal.audit import events as audit
from portal.outbox import mailing, sending, signing
from portal.outbox.models import Attempt, Delivery, Endpoint

JITTER = 0.1


def hold() -> timedelta:
    """How long a worker holds a delivery it sends: longer than any attempt takes."""
    return timedelta(seconds=settings.PORTAL_WEBHOOK_TIMEOUT_SECONDS + 45)


def attempt(delivery_id: int) -> float | None:
    """One attempt at the delivery, if it is due and no one else holds it; the seconds until
    its next attempt when it is to be tried again, None otherwise."""
    delivery = claim(delivery_id)
    if delivery is None:
        return None
    event, endpoint = delivery.event, delivery.endpoint
    body = event.body.encode()
    timestamp = int(timezone.now().timestamp())
    secrets = endpoint.signing_secrets()
    if not secrets:
        outcome = sending.Outcome(None, 0, trouble="The endpoint's secret could not be read: "
                                  "roll it to send again.")  # fmt: skip
    else:
        headers = signing.headers(secrets, event.uid, timestamp, body)
        outcome = sending.post(endpoint.url, body, headers)
    return record(delivery, outcome)


def claim(delivery_id: int) -> Delivery | None:
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("event", "endpoint")
            .filter(pk=delivery_id, state=Delivery.State.PENDING, next_attempt__lte=now,
                    endpoint__enabled=True)
            .filter(Q(held_until__isnull=True) | Q(held_until__lte=now))
            .first()
        )  # fmt: skip
        if delivery is None:
            return None
        delivery.held_until = now + hold()
        delivery.save(update_fields=["held_until"])
    return delivery


def record(delivery: Delivery, outcome: sending.Outcome) -> float | None:
    """The attempt written, and the delivery delivered, failed or waiting for its next try;
    the seconds until that try, or None."""
    now = timezone.now()
    tries = delivery.tries + 1
    changes: dict = {"tries": tries, "held_until": None, "last_status": outcome.status}
    wait = None
    if outcome.succeeded:
        changes.update(state=Delivery.State.DELIVERED, ended=now)
    elif outcome.status == 410 or tries >= len(settings.PORTAL_WEBHOOK_RETRY_SECONDS):
        changes.update(state=Delivery.State.FAILED, ended=now)
    else:
        wait = next_wait(tries, outcome.retry_after)
        changes.update(next_attempt=now + timedelta(seconds=wait))
    with transaction.atomic():
        Attempt.objects.create(
            delivery=delivery, at=now, status=outcome.status, milliseconds=outcome.milliseconds,
            answer=outcome.answer, trouble=outcome.trouble[:300],
        )  # fmt: skip
        Delivery.objects.filter(pk=delivery.pk).update(**changes)
        _endpoint_heard(delivery.endpoint, outcome, now)
    return wait


def next_wait(tries: int, retry_after: int | None) -> float:
    """Seconds until the next try after `tries` failed ones: the schedule's, jittered, or the
    endpoint's Retry-After if that is longer."""
    planned = settings.PORTAL_WEBHOOK_RETRY_SECONDS[tries] * random.uniform(1 - JITTER, 1 + JITTER)
    return max(planned, float(retry_after or 0))


def _endpoint_heard(endpoint: Endpoint, outcome: sending.Outcome, now: object) -> None:
    endpoints = Endpoint.objects.filter(pk=endpoint.pk)
    if outcome.succeeded:
        endpoints.exclude(failing_since=None).update(failing_since=None)
        return
    if outcome.status == 410:
        disable(endpoint, "The endpoint answered 410 Gone: it asked for no more events.")
        return
    endpoints.filter(failing_since=None).update(failing_since=now)
    since = endpoints.values_list("failing_since", flat=True).first()
    days = settings.PORTAL_WEBHOOK_DISABLE_AFTER_DAYS
    if since is not None and since <= now - timedelta(days=days):
        disable(endpoint, f"Every delivery failed for {days} days.", tell_owners=True)


def disable(
    endpoint: Endpoint,
    reason: str,
    *,
    tell_owners: bool = False,
    request: HttpRequest | None = None,
) -> bool:
    """The endpoint disabled with the reason, its deliveries still waiting failed, and recorded
    in the audit trail (with the request of the owner who disabled it; with none when the
    portal did); its owners told by e-mail if asked. False if it was disabled already."""
    now = timezone.now()
    with transaction.atomic():
        changed = Endpoint.objects.filter(pk=endpoint.pk, enabled=True).update(
            enabled=False, disabled_reason=reason[:300]
        )
        if not changed:
            return False
        endpoint.deliveries.filter(state=Delivery.State.PENDING).update(
            state=Delivery.State.FAILED, ended=now, held_until=None
        )
        audit.record(audit.Kind.WEBHOOK_DISABLED, request, reason=reason[:300],
                     **endpoint.audited())  # fmt: skip
        if tell_owners:
            mailing.tell_owners_disabled(endpoint, reason)
    return True


def overdue(limit: int = 500) -> list[int]:
    """Deliveries due for a while that no worker holds (their task lost, or never sent: a
    broker out of reach), taken by this sweep alone (locked, skipping those another sweep or a
    worker has locked) and marked due now, so that the next sweep takes them again only if
    they are still waiting then."""
    now = timezone.now()
    late = now - timedelta(seconds=settings.PORTAL_WEBHOOK_OVERDUE_SECONDS)
    with transaction.atomic():
        ids = list(
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(state=Delivery.State.PENDING, next_attempt__lte=late, endpoint__enabled=True)
            .filter(Q(held_until__isnull=True) | Q(held_until__lte=now))
            .order_by("next_attempt")
            .values_list("pk", flat=True)[:limit]
        )
        Delivery.objects.filter(pk__in=ids).update(next_attempt=now, held_until=None)
    return ids
