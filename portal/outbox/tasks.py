"""The outbox's Celery tasks: the attempts at the deliveries a commit made (a task for each
PORTAL_WEBHOOK_DELIVERIES_A_TASK of them, sent once it commits: portal.outbox.events), and at the
retries due within a few minutes; and the sweep (Celery beat, every
PORTAL_WEBHOOK_SWEEP_SECONDS), which sends what is overdue: later retries, and what a lost task
or a broker out of reach left.

A task carries many deliveries, not one, because the worker replaces its process every
PORTAL_JOB_TASKS_PER_CHILD tasks (WeasyPrint's memory): a task a delivery spent most of its
time starting processes again. It claims them a few dozen at a time (portal.outbox.delivering),
each claim held only as long as its attempts may take, so that what a lost worker leaves is
sent again soon; what it has not claimed after HAND_ON_SECONDS (slow endpoints) it hands on
as a task of its own, so that no task runs long."""

from __future__ import annotations

import logging
import math
import time
from collections import defaultdict
from datetime import timedelta

from celery import shared_task
from celery.app.task import Task
from django.conf import settings
from django.utils import timezone

from portal.jobs.tasks import PASSING_TROUBLES, SEND_AGAIN_POLICY
from portal.outbox import delivering
from portal.outbox.models import Delivery, Event

log = logging.getLogger(__name__)

QUEUED_WAIT_AT_MOST = 10 * 60  # a retry further off than this is left to the sweep
HAND_ON_SECONDS = 60  # a task hands on, as a task of its own, what it has not claimed by then


@shared_task(bind=True, name="outbox-deliver", acks_late=True, reject_on_worker_lost=True,
             max_retries=30)  # fmt: skip
def deliver(self: Task, delivery_ids: list[int]) -> None:
    try:
        attempted = delivering.attempt(delivery_ids, until=time.monotonic() + HAND_ON_SECONDS)
    except PASSING_TROUBLES as trouble:
        raise self.retry(countdown=2, retry_policy=SEND_AGAIN_POLICY) from trouble
    send_soon(attempted.left)  # handed on
    try_again_soon(attempted.waits)


def try_again_soon(waits: dict[int, float]) -> None:
    """A task for the deliveries to be tried again within QUEUED_WAIT_AT_MOST, one for those due
    in the same second; the sweep sends those due later."""
    by_second: dict[int, list[int]] = defaultdict(list)
    for delivery_id, wait in waits.items():
        if wait <= QUEUED_WAIT_AT_MOST:
            by_second[math.ceil(wait)].append(delivery_id)
    for countdown, ids in by_second.items():
        send_soon(ids, countdown)


def send_soon(delivery_ids: list[int], countdown: float = 0) -> None:
    """The deliveries' tasks sent to the workers, PORTAL_WEBHOOK_DELIVERIES_A_TASK a task at
    most. A broker out of reach loses none: the sweep sends what is overdue."""
    most = settings.PORTAL_WEBHOOK_DELIVERIES_A_TASK
    for start in range(0, len(delivery_ids), most):
        try:
            deliver.apply_async((delivery_ids[start : start + most],), countdown=countdown,
                                retry=False)  # fmt: skip
        except Exception as trouble:
            log.warning("Deliveries %s were not queued (%s); the sweep sends them.",
                        delivery_ids[start:], type(trouble).__name__)  # fmt: skip
            return


@shared_task(name="outbox-sweep")
def sweep() -> int:
    """Sends the deliveries overdue; removes the events past PORTAL_WEBHOOK_EVENT_DAYS whose
    deliveries have ended. How many deliveries were sent."""
    sent = delivering.overdue()
    send_soon(sent)
    remove_old_events()
    return len(sent)


def remove_old_events() -> int:
    cutoff = timezone.now() - timedelta(days=settings.PORTAL_WEBHOOK_EVENT_DAYS)
    old = Event.objects.filter(created__lt=cutoff).exclude(deliveries__state=Delivery.State.PENDING)
    removed, _ = old.delete()
    return removed
