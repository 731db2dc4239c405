"""The dashboard's figures over a day or more, counted an hour at a time. The records they count
(the audit trail's events, the service's calls by minute and by hour) never change once their
hour is over, so each whole hour that has passed is counted once and its figures kept in the
cache; only the parts of hours at either end of a window are counted each time. A figure of the
last day then reads its kept hours (one value in the cache) and at most two hours of records,
however busy the day was: the dashboard's time does not grow with the portal's use.

An hour's figures are kept once it ended SETTLED ago: a record is written with the time it was
made, and the transaction writing it has long ended by then.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

from django.core.cache import cache
from django.utils import timezone

HOUR = timedelta(hours=1)
SETTLED = timedelta(minutes=5)

# The figures of each hour from a start to an end (None: to now, and any record since), by the
# hour's start in UTC (an hour with nothing to count may be left out): one query, grouped by
# hour (TruncHour(..., tzinfo=UTC)).
Count = Callable[[datetime, datetime | None], dict[datetime, object]]


class Kept:
    """A figure of the last `hours` at most, counted by `count` an hour at a time, its hours
    that have passed kept in the cache under `name`; `parts` name what it counts, so that the
    hours kept before it changed are counted again."""

    def __init__(self, name: str, count: Count, *, hours: int, parts: Iterable[str] = ()) -> None:
        digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]
        self.key = f"dashboard:{name}:{digest}"
        self.count = count
        self.span = timedelta(hours=hours)

    def since(self, start: datetime) -> dict[datetime, object]:
        """The figures of the records since `start`, by the hour they fall in."""
        first, last = _hour_after(start), _hour_of(timezone.now())
        if first >= last:
            return self.count(start, None)
        found = self._whole_hours(first, last)
        if start < first:
            found |= self.count(start, first)
        return found | self.count(last, None)

    def _whole_hours(self, first: datetime, last: datetime) -> dict[datetime, object]:
        """The figures of each whole hour from `first` to before `last`: from the cache, and
        those it lacks counted at once (and kept there, once settled)."""
        kept = cache.get(self.key) or {}
        hours = [first + n * HOUR for n in range((last - first) // HOUR)]
        missing = [hour for hour in hours if hour not in kept]
        if missing:
            counted = self.count(missing[0], missing[-1] + HOUR)
            fresh = {hour: counted.get(hour) for hour in missing}  # None: nothing that hour
            settled = timezone.now() - SETTLED
            kept = {hour: figures for hour, figures in kept.items() if hour >= last - self.span}
            cache.set(self.key, kept | {hour: figures for hour, figures in fresh.items()
                                        if hour + HOUR <= settled},
                      int((self.span + HOUR).total_seconds()))  # fmt: skip
            kept |= fresh
        return {hour: kept[hour] for hour in hours if kept[hour] is not None}


def _hour_of(moment: datetime) -> datetime:
    """The start of the hour (of UTC, as the counts group by) that `moment` falls in."""
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def _hour_after(moment: datetime) -> datetime:
    """The first hour's start at or after `moment`."""
    hour = _hour_of(moment)
    return hour if hour == moment else hour + HOUR
