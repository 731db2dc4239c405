"""Deliveries' attempts, on a worker: a task's deliveries claimed a few dozen at a time (each
claim one query, held for a while, so that the sweep and a second copy of the task leave them
alone), signed and sent PORTAL_WEBHOOK_SENDS_AT_ONCE at once, and what came of each claim's
written with their attempts; retried on a schedule, or given up. The next claim is made, and
the last one's written, while sends are under way.

Retries come at about 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
(PORTAL_WEBHOOK_RETRY_SECONDS), each a tenth earlier or later at random, or later if the
endpoint's Retry-After asks for longer. An answer of 410 Gone
disables the endpoint; so does failing for PORTAL_WEBHOOK_DISABLE_AFTER_DAYS, and its owners
are e-mailed (portal.outbox.mailing).
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone

from portal.audit import events as audit
from portal.lib import bounded
from portal.outbox import mailing, reasons, sending, signing
from portal.outbox.models import Attempt, Delivery, Endpoint

log = logging.getLogger(__name__)

JITTER = 0.1
MARGIN = timedelta(seconds=45)  # beyond the attempts' time-outs: resolving, the database
ROUNDS_A_CLAIM = 8  # a claim: this many times PORTAL_WEBHOOK_SENDS_AT_ONCE deliveries


def hold(count: int = 1) -> timedelta:
    """How long a worker holds the `count` deliveries it claims together: longer than their
    attempts take, PORTAL_WEBHOOK_SENDS_AT_ONCE at a time, each within the time-out, after
    those of the claim before still under way or waiting to be written (at most
    bounded.WAITING_PER_THREAD rounds)."""
    rounds = math.ceil(max(1, count) / settings.PORTAL_WEBHOOK_SENDS_AT_ONCE)
    rounds += bounded.WAITING_PER_THREAD
    return rounds * timedelta(seconds=settings.PORTAL_WEBHOOK_TIMEOUT_SECONDS) + MARGIN


@dataclass
class Attempted:
    """What came of a task's attempts: the seconds until the next try of each delivery to be
    tried again, by its id; and the deliveries it left unclaimed, its time being up."""

    waits: dict[int, float] = field(default_factory=dict)
    left: list[int] = field(default_factory=list)


def attempt(delivery_ids: Iterable[int], *, until: float = math.inf) -> Attempted:
    """One attempt at each of the deliveries that is due and that no one else holds, claimed
    ROUNDS_A_CLAIM times PORTAL_WEBHOOK_SENDS_AT_ONCE at a time; none claimed after `until`
    (time.monotonic()) but the first."""
    ids, at_once = list(delivery_ids), settings.PORTAL_WEBHOOK_SENDS_AT_ONCE
    size = at_once * ROUNDS_A_CLAIM
    attempted = Attempted()
    claims: deque[int] = deque()  # how many deliveries each claim under way holds, in turn

    def claimed() -> Iterator[Delivery]:  # taken as the threads are ready for more
        for start in range(0, len(ids), size):
            if start and time.monotonic() >= until:
                attempted.left = ids[start:]
                return
            deliveries = claim(ids[start : start + size])
            if deliveries:
                claims.append(len(deliveries))
                yield from deliveries

    answered: list[tuple[Delivery, tuple[datetime, sending.Outcome]]] = []
    for delivery, answer in bounded.in_order(claimed(), send, at_once):
        answered.append((delivery, _outcome(delivery, answer)))
        if len(answered) == claims[0]:  # the claim's every attempt: written together
            claims.popleft()
            attempted.waits.update(record(answered))
            answered = []
    return attempted


def send(delivery: Delivery) -> tuple[datetime, sending.Outcome]:
    """The delivery's event signed with its endpoint's secrets and POSTed, once; when the
    answer came, and what came of it."""
    event, endpoint = delivery.event, delivery.endpoint
    secrets = endpoint.signing_secrets()
    if not secrets:
        return timezone.now(), sending.Outcome(
            None, 0, trouble="The endpoint's secret could not be read: roll it to send again."
        )
    body = event.body.encode()
    headers = signing.headers(secrets, event.uid, int(timezone.now().timestamp()), body)
    outcome = sending.post(endpoint.url, body, headers)
    return timezone.now(), outcome


def _outcome(
    delivery: Delivery, answer: Future[tuple[datetime, sending.Outcome]]
) -> tuple[datetime, sending.Outcome]:
    """What came of the delivery's attempt; a failure if it broke, so that the others sent
    with it are still written (and not sent again by the sweep)."""
    try:
        return answer.result()
    except Exception as trouble:
        log.exception("Delivery %s broke on its attempt", delivery.pk)
        return timezone.now(), sending.Outcome(
            None, 0, trouble=f"The portal failed to send it ({type(trouble).__name__})."
        )


def claim(delivery_ids: Iterable[int]) -> list[Delivery]:
    """Those of the deliveries due that no one else holds, held by this worker: locked in one
    query (skipping those another worker or the sweep has locked) and marked held."""
    now = timezone.now()
    with transaction.atomic():
        deliveries = list(
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("event", "endpoint")
            .filter(pk__in=list(delivery_ids), state=Delivery.State.PENDING,
                    next_attempt__lte=now, endpoint__enabled=True)
            .filter(Q(held_until__isnull=True) | Q(held_until__lte=now))
            .order_by("pk")
        )  # fmt: skip
        if deliveries:
            Delivery.objects.filter(pk__in=[d.pk for d in deliveries]).update(
                held_until=now + hold(len(deliveries))
            )
    return deliveries


def record(outcomes: list[tuple[Delivery, tuple[datetime, sending.Outcome]]]) -> dict[int, float]:
    """Each attempt written, and each delivery delivered, failed or waiting for its next try,
    in one transaction, with what the endpoints' answers mean for them. The seconds until the
    next try of those waiting, by id."""
    now = timezone.now()
    waits: dict[int, float] = {}
    changed: dict[tuple, list[int]] = defaultdict(list)  # the same changes: one UPDATE
    for delivery, (_, outcome) in outcomes:
        changes, wait = _changes(delivery, outcome, now)
        changed[tuple(sorted(changes.items()))].append(delivery.pk)
        if wait is not None:
            waits[delivery.pk] = wait
    with transaction.atomic():
        Attempt.objects.bulk_create(
            Attempt(delivery=delivery, at=at, status=outcome.status,
                    milliseconds=outcome.milliseconds, answer=outcome.answer,
                    trouble=outcome.trouble[:300])
            for delivery, (at, outcome) in outcomes
        )  # fmt: skip
        for changes, ids in changed.items():
            Delivery.objects.filter(pk__in=ids).update(**dict(changes))
        _endpoints_heard([(delivery, outcome) for delivery, (_, outcome) in outcomes], now)
    return waits


def _changes(
    delivery: Delivery, outcome: sending.Outcome, now: datetime
) -> tuple[dict, float | None]:
    """What the attempt changes of the delivery, and the seconds until its next, if any."""
    tries = delivery.tries + 1
    changes: dict = {"tries": tries, "held_until": None, "last_status": outcome.status}
    if outcome.succeeded:
        changes.update(state=Delivery.State.DELIVERED, ended=now)
    elif outcome.status == 410 or tries >= len(settings.PORTAL_WEBHOOK_RETRY_SECONDS):
        changes.update(state=Delivery.State.FAILED, ended=now)
    else:
        wait = next_wait(tries, outcome.retry_after)
        changes.update(next_attempt=now + timedelta(seconds=wait))
        return changes, wait
    return changes, None


def next_wait(tries: int, retry_after: int | None) -> float:
    """Seconds until the next try after `tries` failed ones: the schedule's, jittered, or the
    endpoint's Retry-After if that is longer."""
    planned = settings.PORTAL_WEBHOOK_RETRY_SECONDS[tries] * random.uniform(1 - JITTER, 1 + JITTER)
    return max(planned, float(retry_after or 0))


def _endpoints_heard(outcomes: list[tuple[Delivery, sending.Outcome]], now: datetime) -> None:
    """An endpoint that answered 410 disabled; one a delivery to which worked no longer
    failing; one all of whose attempts failed failing since now, if it was not already, and
    disabled once that is PORTAL_WEBHOOK_DISABLE_AFTER_DAYS ago."""
    endpoints = {delivery.endpoint_id: delivery.endpoint for delivery, _ in outcomes}
    gone, worked = set(), set()
    for delivery, outcome in outcomes:
        if outcome.status == 410:
            gone.add(delivery.endpoint_id)
        elif outcome.succeeded:
            worked.add(delivery.endpoint_id)
    Endpoint.objects.filter(pk__in=worked - gone).exclude(failing_since=None).update(
        failing_since=None
    )
    for endpoint_id in gone:
        disable(endpoints[endpoint_id], reasons.GONE)
    failing = endpoints.keys() - worked - gone
    if not failing:
        return
    Endpoint.objects.filter(pk__in=failing, failing_since=None).update(failing_since=now)
    days = settings.PORTAL_WEBHOOK_DISABLE_AFTER_DAYS
    too_long = Endpoint.objects.filter(
        pk__in=failing, enabled=True, failing_since__lte=now - timedelta(days=days)
    )
    for endpoint in too_long:
        disable(endpoint, reasons.FAILED_FOR.format(days=days), tell_owners=True)


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
