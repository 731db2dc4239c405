"""The API's periodic work (Celery beat, in settings): the answers kept for Idempotency-Keys
removed once past their keeping (`api-sweep`), and the mail to those whose API tokens' sign-in
ends within a week (`upstream-sign-in-reminders`)."""

from __future__ import annotations

from celery import shared_task

from portal.api import idempotency, reminders


@shared_task(name="api-sweep")
def sweep() -> int:
    return idempotency.sweep()


@shared_task(name="upstream-sign-in-reminders")
def sign_in_reminders() -> int:
    return reminders.send_reminders()
