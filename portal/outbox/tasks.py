"""The outbox's Celery tasks: a delivery's attempt (sent when its event commits, and again for
each retry due within a few minutes), and the sweep (Celery beat, every
PORTAL_WEBHOOK_SWEEP_SECONDS), which sends what is overdue: later retries, and what a lost
task or a broker out of reach left."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from celery.app.task import Task
from django.conf import settings
from django.utils import timezone

from portal.jobs.tasks import PASSING_TROUBLES, SEND_AGAIN_POLICY
from portal.outbox import delivering
from portal.outbox.models import Delivery, Event

QUEUED_WAIT_AT_MOST = 10 * 60  # a retry further off than this is left to the sweep


@shared_task(bind=True, name="outbox-deliver", acks_late=True, reject_on_worker_lost=True,
             max_retries=30)  # fmt: skip
def deliver(self: Task, delivery_id: int) -> None:
    try:
        wait = delivering.attempt(delivery_id)
    except PASSING_TROUBLES as trouble:
        raise self.retry(countdown=2, retry_policy=SEND_AGAIN_POLICY) from trouble
    if wait is not None and wait <= QUEUED_WAIT_AT_MOST:
        deliver.apply_async((delivery_id,), countdown=wait)


@shared_task(name="outbox-sweep")
def sweep() -> int:
    """Sends the deliveries overdue; removes the events past PORTAL_WEBHOOK_EVENT_DAYS whose
    deliveries have ended. How many deliveries were sent."""
    sent = delivering.overdue()
    for delivery_id in sent:
        deliver.delay(delivery_id)
    remove_old_events()
    return len(sent)


def remove_old_events() -> int:
    cutoff = timezone.now() - timedelta(days=settings.PORTAL_WEBHOOK_EVENT_DAYS)
    old = Event.objects.filter(created__lt=cutoff).exclude(deliveries__state=Delivery.State.PENDING)
    removed, _ = old.delete()
    return removed
