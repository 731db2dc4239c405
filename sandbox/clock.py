"""The sandbox's clock. Tests move it forward through /_testing/clock (SANDBOX_TESTING only)."""

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone


def now() -> datetime:
    current = timezone.now()
    if settings.SANDBOX_TESTING:
        from sandbox.models import ClockOffset

        current += timedelta(seconds=ClockOffset.current_seconds())
    return current
