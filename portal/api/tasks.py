"""The API's periodic work (Celery beat, `api-sweep` in settings): the answers kept for
Idempotency-Keys removed once past their keeping."""

from __future__ import annotations

from celery import shared_task

from portal.api import idempotency


@shared_task(name="api-sweep")
def sweep() -> int:
    return idempotency.sweep()
