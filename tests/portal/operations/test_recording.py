"""The service's calls as recorded for the dashboard (portal/operations/recording.py): by minute,
folded by the sweep into a row an hour once the hour is two hours old, with the dashboard's
figures unchanged by the folding, and pruned after PORTAL_METRICS_DAYS."""

from __future__ import annotations

import contextvars
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection

from portal.assurance.client import CallReport
from portal.audit import events as audit
from portal.dashboard import figures as dashboard
from portal.jobs.tasks import sweep
from portal.operations import recording
from portal.operations.models import ServiceCalls, ServiceError

pytestmark = pytest.mark.django_db

DAY, TWO_DAYS = timedelta(days=1), timedelta(days=2)


def called(operation: str, *, seconds: float = 0.03, failed: bool = False) -> None:
    """A call the client reports, as it reports it."""
    status, outcome = (None, "Unavailable") if failed else (200, "ok")
    recording.call_reported(None, CallReport(operation, status, outcome, seconds, 100, 1))


def figures() -> tuple[list, list]:
    """The dashboard's figures of the service, counted from the rows as they are now (the
    hours it kept in the cache forgotten)."""
    cache.clear()
    by_hour = dashboard.service_by_hour()
    return dashboard.operations(DAY), [[bar.value for bar in chart.bars] for chart in by_hour]


def test_the_sweep_folds_old_minutes_into_hours_and_the_figures_stay_the_same():
    with time_machine.travel("2026-11-24 09:10:00Z", tick=False) as moment:
        called("login")
        called("login", seconds=0.3, failed=True)
        moment.shift(timedelta(minutes=30))
        called("login", seconds=1.2)
        called("authorisation")
        moment.shift(timedelta(minutes=25))  # 10:05
        called("login")
        moment.move_to("2026-11-24 12:20:00Z")
        called("passport")
        before = figures()
        rows_before = ServiceCalls.objects.count()
        sweep()
        assert figures() == before
        hourly = ServiceCalls.objects.filter(writer=recording.HOURLY)
        assert sorted(hourly.values_list("operation", "calls", "errors")) == [
            ("authorisation", 1, 0), ("login", 3, 1),
        ]  # fmt: skip
        assert ServiceCalls.objects.count() == rows_before - 1  # 09:00's login rows made one
        sweep()  # again: nothing more to fold
        assert figures() == before
        moment.move_to("2026-11-24 13:01:00Z")
        an_hour_on = figures()  # the windows have moved on an hour
        sweep()  # 10:00 is two hours old now: folded into its own hour's row
        assert figures() == an_hour_on
        assert ServiceCalls.objects.filter(writer=recording.HOURLY).count() == 3


def test_calls_gathered_in_threads_are_recorded_together_when_the_block_ends():
    def in_a_thread(context, operation: str, failed: bool) -> None:
        thread = threading.Thread(
            target=context.run, args=(called, operation), kwargs={"failed": failed}
        )
        thread.start()
        thread.join()

    # Measured from what is there already: calls other tests' threads recorded on
    # connections of their own are committed, beyond their tests' transactions.
    before, errors_before = (
        calls_by_operation(),
        list(ServiceError.objects.values_list("pk", flat=True)),
    )
    with recording.gathered():
        context = contextvars.copy_context()
        for n in range(5):
            in_a_thread(context.copy(), "passport", failed=n == 4)
        called("login")
        assert calls_by_operation() == before  # not yet
    assert calls_by_operation() - before == Counter(
        {("login", "calls"): 1, ("passport", "calls"): 5, ("passport", "errors"): 1}
    )
    recorded_errors = ServiceError.objects.exclude(pk__in=errors_before)
    assert list(recorded_errors.values_list("operation", flat=True)) == ["passport"]


def calls_by_operation() -> Counter:
    """The dashboard's calls and errors of the last day, by operation."""
    cache.clear()
    counted = Counter()
    for operation in dashboard.operations(DAY):
        counted[operation.name, "calls"] += operation.calls
        counted[operation.name, "errors"] += operation.errors
    return counted


def test_what_is_older_than_the_days_kept_is_pruned(settings):
    settings.PORTAL_METRICS_DAYS = 2
    with time_machine.travel("2026-11-20 09:10:00Z", tick=False) as moment:
        called("login", failed=True)
        moment.move_to("2026-11-22 09:00:00Z")
        called("login", failed=True)
        moment.move_to("2026-11-22 09:20:00Z")
        sweep()
        # (What a real worker recorded in another test, committed, is days ahead: left alone.)
        before = datetime(2026, 11, 23, tzinfo=UTC)
        assert [row.minute.day for row in ServiceCalls.objects.filter(minute__lt=before)] == [22]
        assert [error.at.day for error in ServiceError.objects.filter(at__lt=before)] == [22]


@pytest.mark.django_db(transaction=True)
def test_calls_not_recorded_are_logged_in_one_line_when_it_stops_and_when_it_works_again(caplog):
    with time_machine.travel("2026-11-24 09:10:00Z", tick=False) as moment:
        called("login")
        caplog.clear()
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE operations_servicecalls RENAME TO servicecalls_away")
        try:
            called("login")
            moment.shift(timedelta(seconds=31))
            called("passport")
        finally:
            with connection.cursor() as cursor:
                cursor.execute("ALTER TABLE servicecalls_away RENAME TO operations_servicecalls")
        moment.shift(timedelta(seconds=29))
        called("passport")  # not tried: recording failed less than 30 s ago
        assert not ServiceCalls.objects.filter(operation="passport").exists()
        moment.shift(timedelta(seconds=1))
        called("passport")
    logged = [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records
              if r.name == "portal.operations.recording"]  # fmt: skip
    assert [(level, message.split(":")[0], exc_info) for level, message, exc_info in logged] == [
        ("WARNING", "Calls to the service are not being recorded", None),
        ("INFO", "Calls to the service are being recorded again.", None),
    ]
    assert "operations_servicecalls" in logged[0][1]
    assert ServiceCalls.objects.get(operation="passport").calls == 1


def passports_made(count: int) -> None:
    for _ in range(count):
        audit.record(audit.Kind.PASSPORT_CREATED, username="grower")


def chart_of_passports() -> dict[str, int]:
    return {bar.label: bar.value for bar in dashboard.passports_a_day().bars}


def test_passports_a_day_count_past_days_once_and_today_as_it_goes():
    with time_machine.travel("2026-11-23 10:00:00Z", tick=False) as moment:
        passports_made(1)
        moment.move_to("2026-11-24 09:00:00Z")
        passports_made(2)
        chart = chart_of_passports()
        assert (chart["23 Nov"], chart["24 Nov"], len(chart)) == (1, 2, 30)
        passports_made(1)
        assert chart_of_passports()["24 Nov"] == 3
        moment.move_to("2026-11-25 08:00:00Z")
        passports_made(4)
        chart = chart_of_passports()
        assert (chart["23 Nov"], chart["24 Nov"], chart["25 Nov"]) == (1, 3, 4)
        assert sum(chart.values()) == 8
