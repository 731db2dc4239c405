"""The Assurance service as the portal reaches it: the one client, built from the settings, its
call reports, and the memory of an outage shared by every process."""

from __future__ import annotations

from functools import cache as once

from django.conf import settings
from django.core.cache import cache
from django.dispatch import Signal

from portal.assurance.client import AssuranceClient, CallReport, RetryPolicy
from portal.assurance.codec import Format

# Sent with `report=` (a CallReport) after every upstream call; the dashboard listens.
call_reported = Signal()


def _report(report: CallReport) -> None:
    call_reported.send(sender=AssuranceClient, report=report)


class CachedOutage:
    """The client's memory of an outage, in the shared cache: once a call has failed to reach the
    service, every process fails its calls at once for ASSURANCE_OUTAGE_SECONDS, serving the
    copies it keeps, and then tries the service again."""

    KEY = "assurance:outage"

    def is_down(self) -> bool:
        return cache.get(self.KEY) is not None

    def remember(self) -> None:
        if settings.ASSURANCE_OUTAGE_SECONDS > 0:
            cache.set(self.KEY, True, settings.ASSURANCE_OUTAGE_SECONDS)


def build_client(base_url: str | None = None, fmt: str | None = None) -> AssuranceClient:
    """A client configured by the settings; `base_url` and `fmt` override them."""
    chosen = (fmt or settings.ASSURANCE_FORMAT).lower()
    if chosen not in Format:
        raise ValueError(f"ASSURANCE_FORMAT must be json or xml, not {chosen!r}")
    return AssuranceClient(
        base_url or settings.ASSURANCE_BASE_URL,
        fmt=Format(chosen),
        connect_timeout=settings.ASSURANCE_CONNECT_TIMEOUT,
        read_timeout=settings.ASSURANCE_READ_TIMEOUT,
        total_timeout=settings.ASSURANCE_TOTAL_TIMEOUT,
        retry=RetryPolicy(attempts=max(1, settings.ASSURANCE_RETRIES)),
        max_body_bytes=settings.ASSURANCE_MAX_BODY_BYTES,
        on_call=_report,
        outage=CachedOutage(),
    )


@once
def client() -> AssuranceClient:
    """The client every view and job shares (one per process: it pools connections)."""
    return build_client()
