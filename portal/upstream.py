"""The portal's one Assurance client, built from the settings, and its call reports."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.dispatch import Signal

from portal.assurance.client import AssuranceClient, CallReport, RetryPolicy
from portal.assurance.codec import Format

# Sent with `report=` (a CallReport) after every upstream call; the dashboard listens.
call_reported = Signal()


def _report(report: CallReport) -> None:
    call_reported.send(sender=AssuranceClient, report=report)


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
    )


@cache
def client() -> AssuranceClient:
    """The client every view and job shares (one per process: it pools connections)."""
    return build_client()
