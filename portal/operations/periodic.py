"""When the periodic sweep (portal/jobs/tasks.py, sent by Celery beat every PORTAL_SWEEP_SECONDS)
last finished, and whether it is late: not finished for two of its intervals, or never. /readyz
and the staff dashboard's Now say so. A late sweep does not make /readyz answer 503: every
portal process would leave the load balancer at once for work that serving pages does not need;
monitors alert on its `late` instead (docs/running/scheduler.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from portal.operations.models import PeriodicRun

SWEEP = "sweep"
LATE_AFTER_INTERVALS = 2


@dataclass(frozen=True, slots=True)
class LastRun:
    finished: datetime | None  # None: never
    late: bool
    interval: timedelta


def record_finished(task: str) -> None:
    """Records that `task` finished now."""
    PeriodicRun.objects.update_or_create(task=task, defaults={"finished": timezone.now()})


def sweep() -> LastRun:
    """When the sweep last finished, and whether that is too long ago."""
    interval = timedelta(seconds=settings.PORTAL_SWEEP_SECONDS)
    finished = PeriodicRun.objects.filter(task=SWEEP).values_list("finished", flat=True).first()
    late = finished is None or timezone.now() - finished > LATE_AFTER_INTERVALS * interval
    return LastRun(finished, late, interval)
