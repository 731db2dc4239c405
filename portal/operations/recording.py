"""Each call to the Assurance service added to its minute's row (portal/operations/models.py),
as the client reports it (portal.assurance.service.call_reported): one UPDATE, an INSERT the
first time in a minute, committed without waiting for the disk (portal.lib.commits: a page that
asks the service many times, intake's, waited for the disk after every call). A page that asks
the service many times at once gathers its calls (`gathered`) and records them together when
it is done, in one transaction: intake's check of 50 codes spent more of its time recording
its calls, a transaction each, than making them. A failure to record is ignored but for one
line of the log when recording stops and one when it works again: the call itself went on,
and an operator wants to know that the dashboard misses calls, not a traceback for each call.
After a failure, recording is tried again RETRY_AFTER later, not on every call."""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from portal.assurance.client import CallReport
from portal.lib.commits import not_waiting_for_the_disk
from portal.operations.call_bands import BAND_FIELDS, band_of
from portal.operations.models import ServiceCalls, ServiceError

log = logging.getLogger(__name__)
ERRORS_KEPT = 200  # the last errors kept, beside the counts


# After a call this process could not record, the calls of the next RETRY_AFTER are not tried:
# a database out of reach (its pool waiting for a connection) is not waited for on every call.
RETRY_AFTER = timedelta(seconds=30)
_failed_at: datetime | None = None


# The calls gathered by the block of `gathered` under way, to be recorded at its end.
_gathering: ContextVar[list[CallReport] | None] = ContextVar("gathering", default=None)


@contextmanager
def gathered() -> Iterator[None]:
    """The calls reported in the block, by its threads too where they run in copies of its
    context, recorded together at its end."""
    reports: list[CallReport] = []
    token = _gathering.set(reports)
    try:
        yield
    finally:
        _gathering.reset(token)
        if reports:
            _recorded(reports)


def call_reported(sender: object, report: CallReport, **kwargs: object) -> None:
    if not settings.PORTAL_METRICS_RECORDING:
        return
    gathering = _gathering.get()
    if gathering is not None:
        gathering.append(report)
    else:
        _recorded([report])


def _recorded(reports: list[CallReport]) -> None:
    global _failed_at
    if _failed_at is not None and timezone.now() - _failed_at < RETRY_AFTER:
        return
    try:
        with not_waiting_for_the_disk():
            record(reports)
    except Exception as error:  # the database out of reach, not migrated, or not to be used here
        if _failed_at is None:
            log.warning("Calls to the service are not being recorded: %s", _reason(error))
        _failed_at = timezone.now()
    else:
        if _failed_at is not None:
            log.info("Calls to the service are being recorded again.")
        _failed_at = None


def _reason(error: Exception) -> str:
    """The error in one line, as a database driver's first line says it."""
    first_line = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {first_line}".rstrip(": ")


def record(reports: list[CallReport]) -> None:
    """The calls added to this minute's row of each of their operations, and each failed one
    kept with its error."""
    now = timezone.now()
    minute = now.replace(second=0, microsecond=0)
    by_operation: dict[str, Counter[str]] = {}
    for report in reports:
        counts = by_operation.setdefault(report.operation, Counter(calls=0, errors=0))
        counts["calls"] += 1
        counts["errors"] += int(_failed(report))
        counts[band_of(report.duration)] += 1
    for operation, counts in by_operation.items():
        _added({"minute": minute, "operation": operation, "writer": _writer()}, counts)
    ServiceError.objects.bulk_create(
        ServiceError(at=now, operation=r.operation, status=r.status, outcome=r.outcome[:60])
        for r in reports
        if _failed(r)
    )


def _added(mine: dict[str, object], counts: Counter[str]) -> None:
    """`counts` added to the row of `mine` (its minute, operation and writer); the row made if
    it is the first of them."""
    existing = ServiceCalls.objects.filter(**mine)
    added = {name: F(name) + count for name, count in counts.items()}
    if existing.update(**added):
        return
    try:
        with transaction.atomic():
            ServiceCalls.objects.create(**mine, **counts)
    except IntegrityError:  # made just now: by this writer, in a transaction of its own
        existing.update(**added)


def _failed(report: CallReport) -> bool:
    """Whether the service failed the call: no answer, or a 5xx one. A 4xx answer (a wrong
    password, a code no passport has) is the service doing its work, not failing."""
    return report.outcome != "ok" and (report.status is None or report.status >= 500)


def _writer() -> str:
    """This thread of this process: its rows are its own, so that a writer never waits on a
    row another holds (a request's transaction, a job's calls made a few at once)."""
    return f"{socket.gethostname()[:20]}:{os.getpid()}:{threading.get_ident() % 100_000}"


# The writer of a row holding a whole hour's calls of an operation, folded by the sweep from the
# minutes' rows once the hour is FOLD_AFTER old: the dashboard's windows of a day and two days
# then read a row an hour, however many calls and writers there were.
HOURLY = "hourly"
FOLD_AFTER = timedelta(hours=2)


def fold() -> None:
    """Folds the minutes' rows of each whole hour older than FOLD_AFTER into the hour's row (its
    `minute` the hour's start), an operation at a time. Nothing records into those minutes any
    more: a call is recorded in the minute it ends."""
    before = (timezone.now() - FOLD_AFTER).replace(minute=0, second=0, microsecond=0)
    minutes = ServiceCalls.objects.filter(minute__lt=before).exclude(writer=HOURLY)
    fields = ("calls", "errors", *BAND_FIELDS)
    with transaction.atomic():
        hours = (
            minutes.annotate(hour=TruncHour("minute"))
            .values("hour", "operation")
            .annotate(**{f"{name}_": Sum(name) for name in fields})
        )
        for row in hours:
            sums = {name: row[f"{name}_"] for name in fields}
            mine = {"minute": row["hour"], "operation": row["operation"], "writer": HOURLY}
            added = {name: F(name) + value for name, value in sums.items()}
            if not ServiceCalls.objects.filter(**mine).update(**added):
                ServiceCalls.objects.create(**mine, **sums)
        minutes.delete()


def prune() -> None:
    """Removes what is older than PORTAL_METRICS_DAYS, and all but the last ERRORS_KEPT errors."""
    cutoff = timezone.now() - timedelta(days=settings.PORTAL_METRICS_DAYS)
    ServiceCalls.objects.filter(minute__lt=cutoff).delete()
    last = ServiceError.objects.values_list("at", flat=True)[ERRORS_KEPT : ERRORS_KEPT + 1]
    ServiceError.objects.filter(at__lt=cutoff).delete()
    if last:
        ServiceError.objects.filter(at__lte=last[0]).delete()
