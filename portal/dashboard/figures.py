"""The staff dashboard's figures (`/staff/`), from what the portal records as it works: the
Assurance service's calls by minute (portal/operations/models.py), the jobs, the audit trail
(portal/audit), the requests counted in the cache (portal/operations/counting.py) and the
sessions. Each is an aggregate over a bounded time (the last hour, day, two days or 30 days)
read through an index: none grows with the records ever made beyond that. Those of a day or
more are counted an hour at a time, the hours that have passed kept in the cache
(portal/dashboard/hourly.py), so that they do not grow with the portal's use either.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db.models import Count, F, Max, Min, Q, QuerySet, Sum
from django.db.models.functions import TruncHour
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from portal.audit.models import Event
from portal.dashboard import hourly
from portal.jobs.models import Job
from portal.operations import counting, health, heartbeat, periodic
from portal.operations.call_bands import BAND_FIELDS, BANDS_MS
from portal.operations.models import ServiceCalls, ServiceError

JOB_WAIT_WARNING = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A line of "Now": its subject, whether all is well, the figure and what it means."""

    subject: str
    ok: bool
    figure: str
    words: str


PORTAL_ERRORS_WARNING = 0.01  # of requests in the last hour
SERVICE_ERRORS_WARNING = 0.05  # of calls in the last hour


def now(last_hour: list[Operation]) -> list[Verdict]:
    """The verdicts, the service's errors from its calls of the last hour by operation."""
    return [_service(), _workers(), _oldest_waiting(), _sweep(), _lockouts(), _portal_errors(),
            _service_errors(last_hour)]  # fmt: skip


def _service() -> Verdict:
    try:
        health.upstream()
    except health.Down as down:
        since = _down_since()
        if since:
            words = _("Not answering since %(time)s (%(reason)s).") % {
                "time": f"{timezone.localtime(since):%H:%M:%S}",
                "reason": down.message,
            }
        else:
            words = _("Not answering now (%(reason)s).") % {"reason": down.message}
        return Verdict(_("The Assurance service"), False, _("Not answering"), words)
    return Verdict(_("The Assurance service"), True, _("Answering"),
                   _("It answers the portal now."))  # fmt: skip


def _down_since() -> datetime | None:
    """When the outage began, as recorded: the first failed call after the last minute in
    which a call was answered (to within that minute); None if no failed call is recorded."""
    last_answered = ServiceCalls.objects.filter(calls__gt=F("errors")).aggregate(Max("minute"))
    failed = ServiceError.objects.order_by("at")
    if last_answered["minute__max"] is not None:
        failed = failed.filter(at__gte=last_answered["minute__max"])
    return failed.values_list("at", flat=True).first()


def _workers() -> Verdict:
    last = heartbeat.last()
    if last is None:
        seconds = settings.PORTAL_WORKER_HEARTBEAT_SECONDS
        words = _("No worker has written a heartbeat in the last %(seconds)s s: jobs wait.") % {
            "seconds": seconds
        }
        return Verdict(_("Workers"), False, _("None alive"), words)
    return Verdict(
        _("Workers"),
        True,
        _("Alive"),
        _("The last heartbeat was %(seconds)s s ago.") % {"seconds": f"{last[1]:.0f}"},
    )


def _oldest_waiting() -> Verdict:
    oldest = Job.objects.filter(state=Job.State.QUEUED).aggregate(Min("created"))["created__min"]
    if oldest is None:
        return Verdict(_("Jobs waiting"), True, _("None"), _("No job is waiting to start."))
    waited = timezone.now() - oldest
    ok = waited < JOB_WAIT_WARNING
    return Verdict(_("Oldest job waiting"), ok, _duration(waited),
                   _("Workers are keeping up.") if ok else _("Jobs wait longer than they should: "
                   "are the workers running, and enough of them?"))  # fmt: skip


def _sweep() -> Verdict:
    last = periodic.sweep()
    every = _duration(last.interval)
    if last.finished is None:
        return Verdict(_("The periodic sweep"), False, _("Not run yet"),
                       _("The sweep has not run yet; it runs every %(every)s while Celery beat "
                         "runs.") % {"every": every})  # fmt: skip
    ran = {"time": _time_of_day(last.finished), "every": every}
    if last.late:
        return Verdict(_("The periodic sweep"), False, _("Late"),
                       _("Sweep last ran at %(time)s; it runs every %(every)s: are Celery beat "
                         "and a worker running? Until it runs, lost jobs are not sent again and "
                         "expired files stay.") % ran)  # fmt: skip
    return Verdict(
        _("The periodic sweep"),
        True,
        _("On time"),
        _("Sweep last ran at %(time)s; it runs every %(every)s.") % ran,
    )


def _time_of_day(moment: datetime) -> str:
    """HH:MM:SS, with the day when it is not today's."""
    local = timezone.localtime(moment)
    if local.date() == timezone.localdate():
        return f"{local:%H:%M:%S}"
    return _("%(time)s on %(day)s") % {
        "time": f"{local:%H:%M:%S}",
        "day": formats.date_format(local, "j M"),
    }


def _lockouts() -> Verdict:
    """The lockouts met in the sign-in cool-off (by address and username tried) that no sign-in
    under that username has followed since."""
    window = timedelta(seconds=settings.PORTAL_SIGN_IN_COOL_OFF_SECONDS)
    since = timezone.now() - window
    met = (
        Event.objects.filter(kind=Event.Kind.LOCKOUT_MET, at__gte=since)
        .values("client_address", "username")
        .annotate(last=Max("at"))
    )
    signed_in = dict(
        Event.objects.filter(kind=Event.Kind.SIGN_IN, at__gte=since)
        .values_list("username")
        .annotate(last=Max("at"))
    )
    count = sum(1 for row in met if signed_in.get(row["username"], row["last"]) <= row["last"])
    return Verdict(
        _("Lockouts in force"),
        count == 0,
        str(count),
        _(
            "Addresses and usernames refused sign-in for repeated failures in the last "
            "%(window)s, and not signed in since."
        )
        % {"window": _duration(window)},
    )


def _portal_errors() -> Verdict:
    hour = timedelta(hours=1)
    requests = counting.requests(hour)
    failed = counting.total(counting.REQUESTS_FAILED, hour)
    rate = failed / requests if requests else 0.0
    return Verdict(
        _("The portal's errors"),
        rate < PORTAL_ERRORS_WARNING,
        _percent(rate),
        ngettext(
            "%(failed)s of %(requests)s request in the last hour failed with an "
            "error of the portal's own (5xx; the service's outages are counted "
            "above).",
            "%(failed)s of %(requests)s requests in the last hour failed with an "
            "error of the portal's own (5xx; the service's outages are counted "
            "above).",
            requests,
        )
        % {"failed": failed, "requests": requests},
    )


def _service_errors(last_hour: list[Operation]) -> Verdict:
    calls = sum(operation.calls for operation in last_hour)
    errors = sum(operation.errors for operation in last_hour)
    rate = errors / calls if calls else 0.0
    return Verdict(_("Errors calling the service"), rate < SERVICE_ERRORS_WARNING, _percent(rate),
                   ngettext("%(errors)s of %(calls)s call in the last hour failed.",
                            "%(errors)s of %(calls)s calls in the last hour failed.", calls)
                   % {"errors": errors, "calls": calls})  # fmt: skip


# --- the Assurance service ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    calls: int
    errors: int
    median: str
    p95: str

    @property
    def error_rate(self) -> str:
        return _percent(self.errors / self.calls if self.calls else 0.0)


def operations(since: timedelta) -> list[Operation]:
    """Each operation's calls since `since` ago: how many, errors, median and 95th percentile
    (as the band of time they fall in)."""
    by_operation: dict[str, Counter] = {}
    for hour in SERVICE_CALLS.since(timezone.now() - since).values():
        for operation, sums in hour.items():
            by_operation.setdefault(operation, Counter()).update(sums)
    return [
        Operation(name, sums["calls"], sums["errors"], _quantile(sums, 0.5), _quantile(sums, 0.95))
        for name, sums in sorted(by_operation.items())
    ]


SUMMED = ("calls", "errors", *BAND_FIELDS)


def _service_calls(start: datetime, end: datetime | None) -> dict[datetime, dict[str, Counter]]:
    """The calls recorded from `start` to `end`, by hour and operation: their sums."""
    rows = (
        _between(ServiceCalls.objects, "minute", start, end)
        .annotate(hour=TruncHour("minute", tzinfo=UTC))
        .values("hour", "operation")
        .annotate(**{f"{name}_": Sum(name) for name in SUMMED})
    )
    by_hour: dict[datetime, dict[str, Counter]] = {}
    for row in rows:
        sums = Counter({name: row[f"{name}_"] for name in SUMMED})
        by_hour.setdefault(row["hour"], {})[row["operation"]] = sums
    return by_hour


SERVICE_CALLS = hourly.Kept("service-calls", _service_calls, hours=48, parts=SUMMED)


def last_errors(count: int = 10) -> list[ServiceError]:
    return list(ServiceError.objects.all()[:count])


def _quantile(sums: Counter, q: float) -> str:
    bound = _quantile_bound(sums, q)
    if not bound:
        return "—"
    if bound in BANDS_MS:
        return _("under %(ms)s ms") % {"ms": f"{bound:,}"}
    return _("over %(ms)s ms") % {"ms": f"{BANDS_MS[-2]:,}"}


def _quantile_bound(sums: Counter, q: float) -> int:
    """The upper bound in ms of the band the `q` quantile falls in (twice the last bound for the
    slowest band); 0 with no calls."""
    total = sum(sums[name] for name in BAND_FIELDS)
    seen = 0
    for bound, name in zip(BANDS_MS, BAND_FIELDS, strict=True):
        seen += sums[name]
        if total and seen >= q * total:
            return bound or 2 * BANDS_MS[-2]
    return 0


# --- use -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Figure:
    label: str
    value: int | str
    note: str = ""


@dataclass(frozen=True, slots=True)
class Counted:
    """A figure of "Use" that counts the audit trail's events matching `events`; `name` keys
    its counts in the cache, the same in every language."""

    name: str
    label: str  # in the page's language
    events: Q
    note: str = ""


USE = (
    Counted("sign-ins", gettext_lazy("Sign-ins"), Q(kind=Event.Kind.SIGN_IN)),
    Counted("failed-sign-ins", gettext_lazy("Failed sign-ins"),
            Q(kind=Event.Kind.SIGN_IN_FAILED)),
    Counted("lockouts-met", gettext_lazy("Lockouts met"), Q(kind=Event.Kind.LOCKOUT_MET)),
    Counted("look-ups", gettext_lazy("Look-ups"), Q(kind=Event.Kind.LOOK_UP)),
    Counted("look-ups-limited", gettext_lazy("Look-ups limited"),
            Q(kind=Event.Kind.LOOK_UP_LIMITED),
            gettext_lazy("refused by the limit of their address")),
    Counted("intake-checks", gettext_lazy("Intake checks"), Q(kind=Event.Kind.INTAKE_CHECK)),
    Counted("passports-one-at-a-time", gettext_lazy("Passports made one at a time"),
            Q(kind=Event.Kind.PASSPORT_CREATED) & ~Q(detail__has_key="batch")),
    Counted("passports-in-batches", gettext_lazy("Passports made in batches"),
            Q(kind=Event.Kind.PASSPORT_CREATED, detail__has_key="batch")),
    Counted("pdfs-downloaded", gettext_lazy("PDFs downloaded"),
            Q(kind=Event.Kind.PDF_DOWNLOADED)),
    Counted("mails-sent", gettext_lazy("Mails sent"), Q(kind=Event.Kind.MAIL_SENT)),
    Counted("exports", gettext_lazy("Exports"), Q(kind=Event.Kind.EXPORT_REQUESTED)),
)  # fmt: skip


def use(since: timedelta) -> list[Figure]:
    """What was done since `since` ago, from the audit trail; the standards cache's hit rate,
    and the sessions active now."""
    counts = Counter()
    for hour in USE_COUNTED.since(timezone.now() - since).values():
        counts.update(hour)
    figures = [Figure(c.label, counts[c.name], c.note) for c in USE]
    active = Session.objects.filter(expire_date__gt=timezone.now()).count()
    return [
        *figures,
        _standards_cache(since),
        Figure(_("Active sessions"), active, pgettext("active sessions", "now")),
    ]


def _use(start: datetime, end: datetime | None) -> dict[datetime, Counter]:
    """The events of each figure of USE from `start` to `end`, by hour: one query."""
    rows = (
        _between(Event.objects, "at", start, end)
        .annotate(hour=TruncHour("at", tzinfo=UTC))
        .values("hour")
        .annotate(**{f"use_{n}": Count("pk", filter=c.events) for n, c in enumerate(USE)})
    )
    return {row["hour"]: Counter({c.name: row[f"use_{n}"] for n, c in enumerate(USE)})
            for row in rows}  # fmt: skip


USE_COUNTED = hourly.Kept("use", _use, hours=24, parts=(f"{c.name}: {c.events}" for c in USE))


def _standards_cache(since: timedelta) -> Figure:
    """The share of the standards' pages served from the cache alone, without asking the
    service for any record."""
    pages = counting.total(counting.STANDARDS_PAGES, since)
    kept = pages - counting.total(counting.STANDARDS_PAGES_ASKED, since)
    rate = _percent(kept / pages) if pages else "—"
    note = ngettext(
        "%(kept)s of %(pages)s page from the cache",
        "%(kept)s of %(pages)s pages from the cache",
        pages,
    )
    return Figure(_("Standards cache hit rate"), rate, note % {"kept": kept, "pages": pages})


# --- people ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Person:
    """Someone who signed in lately, on a line of their own: staff can end their sessions."""

    user_id: int
    username: str
    sign_ins: int
    last_sign_in: datetime
    is_staff: bool


def people(since: timedelta, most: int = 50) -> list[Person]:
    """Those who signed in since `since` ago, the latest first, at most `most`."""
    signed_in: dict[int, tuple[int, datetime]] = {}
    for hour in SIGN_INS.since(timezone.now() - since).values():
        for user_id, (count, last) in hour.items():
            before, latest = signed_in.get(user_id, (0, last))
            signed_in[user_id] = (before + count, max(latest, last))
    latest = sorted(signed_in, key=lambda user_id: signed_in[user_id][1], reverse=True)[:most]
    users = get_user_model().objects.in_bulk(latest)
    return [
        Person(user_id, users[user_id].get_username(), *signed_in[user_id],
               users[user_id].is_staff)
        for user_id in latest
        if user_id in users
    ]  # fmt: skip


def _sign_ins(
    start: datetime, end: datetime | None
) -> dict[datetime, dict[int, tuple[int, datetime]]]:
    """Each user's sign-ins from `start` to `end`, by hour: how many, and the last."""
    rows = (
        _between(Event.objects.filter(kind=Event.Kind.SIGN_IN, user__isnull=False), "at",
                 start, end)
        .annotate(hour=TruncHour("at", tzinfo=UTC))
        .values("hour", "user_id")
        .annotate(sign_ins=Count("pk"), last=Max("at"))
    )  # fmt: skip
    by_hour: dict[datetime, dict[int, tuple[int, datetime]]] = {}
    for row in rows:
        by_hour.setdefault(row["hour"], {})[row["user_id"]] = (row["sign_ins"], row["last"])
    return by_hour


SIGN_INS = hourly.Kept("sign-ins-by-user", _sign_ins, hours=24)


# --- jobs ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JobCounts:
    kind: str
    by_state: dict[str, int] = field(default_factory=dict)

    @property
    def in_order(self) -> list[int]:
        """The counts in the order of JOB_STATES."""
        return [self.by_state.get(state, 0) for state in JOB_STATES]

    @property
    def by_state_in_order(self) -> list[tuple[Job.State, int]]:
        """Each state of JOB_STATES with its count (a phone's card names each count)."""
        return list(zip(JOB_STATES, self.in_order, strict=True))


JOB_STATES = (Job.State.QUEUED, Job.State.RUNNING, Job.State.FAILED, Job.State.DONE)


def jobs(since: timedelta) -> list[JobCounts]:
    """The jobs made since `since` ago, by kind and state."""
    rows = (
        Job.objects.filter(created__gte=timezone.now() - since)
        .values("kind", "state")
        .annotate(count=Count("pk"))
        .order_by("kind")
    )
    kinds: dict[str, JobCounts] = {}
    for row in rows:
        kinds.setdefault(row["kind"], JobCounts(row["kind"])).by_state[row["state"]] = row["count"]
    return list(kinds.values())


# --- charts --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: int
    # Where the SVG draws it, as written there (one decimal): formatted once here rather than
    # by a filter for each number of each of the page's 170-odd bars.
    x: str
    y: str
    height: str


@dataclass(frozen=True, slots=True)
class Chart:
    """A bar chart drawn by the template as SVG, in a box of WIDTH x HEIGHT."""

    title: str
    description: str
    bars: list[Bar]
    largest: int
    bar_width: str  # as Bar's numbers
    unit: str = ""  # after the numbers said, as " ms"

    WIDTH, HEIGHT = 600, 160


def bar_chart(title: str, description: str, values: list[tuple[str, int]], unit: str = "") -> Chart:
    largest = max((value for _, value in values), default=0)
    width = Chart.WIDTH / max(1, len(values))
    bars = []
    for position, (label, value) in enumerate(values):
        height = (value / largest) * (Chart.HEIGHT - 10) if largest else 0
        bars.append(Bar(label, value, f"{position * width:.1f}", f"{Chart.HEIGHT - height:.1f}",
                        f"{height:.1f}"))  # fmt: skip
    return Chart(title, description, bars, largest, f"{max(1.0, width - 2):.1f}", unit)


def passports_a_day(days: int = 30) -> Chart:
    today = timezone.localdate()
    first = today - timedelta(days=days - 1)
    start = timezone.make_aware(datetime.combine(first, datetime.min.time()))
    by_day = Counter()
    for hour, made in PASSPORTS_MADE.since(start).items():
        by_day[timezone.localtime(hour).date()] += made
    values = [(formats.date_format(first + timedelta(days=n), "d M"),
               by_day.get(first + timedelta(days=n), 0)) for n in range(days)]  # fmt: skip
    return bar_chart(_("Passports made a day"),
                     _("Passports made each day of the last %(days)s days.") % {"days": days},
                     values)  # fmt: skip


def _passports(start: datetime, end: datetime | None) -> dict[datetime, int]:
    """The passports made from `start` to `end`, by hour, from the audit trail."""
    made = (
        _between(Event.objects.filter(kind=Event.Kind.PASSPORT_CREATED), "at", start, end)
        .annotate(hour=TruncHour("at", tzinfo=UTC))
        .values("hour")
        .annotate(count=Count("pk"))
    )
    return {row["hour"]: row["count"] for row in made}


PASSPORTS_MADE = hourly.Kept("passports-made", _passports, hours=31 * 24)


def service_by_hour(hours: int = 48) -> tuple[Chart, Chart, Chart]:
    """The service's calls, their time (the 95th percentile's band) and its errors by hour over
    the last `hours`."""
    start = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=hours - 1)
    found = SERVICE_CALLS.since(start)
    slots = []
    for n in range(hours):
        slot = start + timedelta(hours=n)
        sums = sum(found.get(slot, {}).values(), Counter())
        slots.append((formats.date_format(timezone.localtime(slot), "d M H:00"), sums))
    calls = [(label, sums["calls"]) for label, sums in slots]
    p95 = [(label, _quantile_bound(sums, 0.95)) for label, sums in slots]
    errors = [(label, sums["errors"]) for label, sums in slots]
    over = {"hours": hours}
    return (
        bar_chart(_("Calls to the service by hour"),
                  _("Calls each hour over the last %(hours)s hours.") % over, calls),
        bar_chart(_("Time the slowest calls took, by hour"),
                  _("The 95th percentile of the time calls took each hour, as the upper bound of "
                    "its band in milliseconds, over the last %(hours)s hours.") % over, p95,
                  " ms"),
        bar_chart(_("Errors by hour"),
                  _("Failed calls each hour over the last %(hours)s hours.") % over, errors),
    )  # fmt: skip


def _between(records: QuerySet, field: str, start: datetime, end: datetime | None) -> QuerySet:
    """The records whose `field` is from `start` to before `end` (None: to any time)."""
    records = records.filter(**{f"{field}__gte": start})
    return records if end is None else records.filter(**{f"{field}__lt": end})


def _duration(span: timedelta) -> str:
    seconds = int(span.total_seconds())
    if seconds < 120:
        return _("%(count)s s") % {"count": seconds}
    if seconds < 2 * 3600:
        return _("%(count)s min") % {"count": seconds // 60}
    return _("%(count)s h") % {"count": seconds // 3600}


def _percent(rate: float) -> str:
    return f"{rate:.1%}"
