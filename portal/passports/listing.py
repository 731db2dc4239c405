"""The business's passports: every passport the portal has recorded for the memberships the user
is a registered contact of now (the service's authorisation), whoever in the business made it;
narrowed by the list's filters. The list page and its exports ask here, so that no address
reaches a passport of a membership the user is not a contact of.

The result of each passport's latest load at intake (its net weight and decision) is shown and
filtered here too, as the intake app offers it (`results_offered`): that app sits above this
one, which cannot import it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import F, QuerySet, Value
from django.db.models.functions import Replace
from django.dispatch import Signal

from portal.assurance import records
from portal.lib.weights import tonnes_of_kg
from portal.passports import codes
from portal.passports.models import Passport


def visible(memberships: list[records.Membership]) -> QuerySet[Passport]:
    """The passports of these memberships, newest first."""
    guids = [m.membership_guid for m in memberships if m.membership_guid]
    return Passport.objects.filter(membership_guid__in=guids, short_code__isnull=False)


def narrowed(passports: QuerySet[Passport], filters: dict[str, Any]) -> QuerySet[Passport]:
    """`passports` narrowed by the valid filters of a PassportFilters form (its `applied`)."""
    if "membership" in filters:
        passports = passports.filter(membership_guid=filters["membership"])
    if "site" in filters:
        passports = passports.filter(site_guid=filters["site"])
    if "crop" in filters:
        passports = passports.filter(crop_type__iexact=filters["crop"])
    if "year" in filters:
        passports = passports.filter(harvest_year=filters["year"])
    if "loaded_from" in filters:
        passports = passports.filter(loading_date__gte=_start_of(filters["loaded_from"]))
    if "loaded_to" in filters and filters["loaded_to"] < date.max:  # every date is by the last
        passports = passports.filter(loading_date__lt=_start_of(filters["loaded_to"], 1))
    if "code" in filters:
        bare = Replace(F("short_code"), Value("-"), Value(""))
        passports = passports.alias(bare_code=bare).filter(bare_code__contains=filters["code"])
    if "decision" in filters:
        passports = _decided(passports, filters["decision"])
    return passports


def for_rows(passports: QuerySet[Passport]) -> QuerySet[Passport]:
    """What the list's rows (and the API's list) show of each passport (not its whole record),
    who made it, and its latest load's net weight and decision at intake (`intake_net_kg`,
    `intake_decision`, None without one), in the same query."""
    rows = passports.select_related("made_by").only(
        "short_code", "membership_guid", "site_guid", "business_name", "crop_type", "variety",
        "loading_date", "harvest_year", "haulier_company_name", "origin", "created",
        "made_by__username",
    )  # fmt: skip
    results = _results()
    return rows if results is None else results.with_latest(rows)


# --- the result at intake -------------------------------------------------------------------------

NO_RESULT = "none"  # the decision filter's choice of the passports with no load recorded


@dataclass(frozen=True, slots=True)
class Result:
    """A passport's latest load at intake as the list shows it."""

    net_tonnes: str  # as every view writes tonnes (portal.lib.weights)
    decision: str  # its value, as the filter takes it
    decision_label: str


@dataclass(frozen=True, slots=True)
class LoadResults:
    """What the app that records loads at intake (portal.intake) offers the list, as a receiver
    of `results_offered` answers: the passports with their latest load's net weight in kg and
    decision (`intake_net_kg`, `intake_decision`: None without a load) in the same query; the
    passports whose latest load has a decision (or, NO_RESULT, that have no load); and the
    decisions a load can have, (value, label)."""

    with_latest: Callable[[QuerySet[Passport]], QuerySet[Passport]]
    decided: Callable[[QuerySet[Passport], str], QuerySet[Passport]]
    decisions: list[tuple[str, str]]


# Sent as the list is drawn or filtered: the intake app answers with its LoadResults. The
# passports' app cannot import the apps above it; they offer their columns so.
results_offered = Signal()


def _results() -> LoadResults | None:
    return next((answer for _, answer in results_offered.send(sender=Passport)), None)


def decisions() -> list[tuple[str, str]]:
    """The decisions a load can have, as the intake app offers them: (value, label)."""
    results = _results()
    return [] if results is None else results.decisions


def result_of(passport: Passport) -> Result | None:
    """The result of a passport of `for_rows`, or None before any load of it is recorded."""
    decision = getattr(passport, "intake_decision", None)
    if decision is None:
        return None
    label = dict(decisions()).get(decision, decision)
    return Result(tonnes_of_kg(passport.intake_net_kg), decision, label)


def _decided(passports: QuerySet[Passport], decision: str) -> QuerySet[Passport]:
    results = _results()
    return passports.none() if results is None else results.decided(passports, decision)


def ids_as_made(passports: QuerySet[Passport]) -> list[int]:
    """The ids of these passports in the order they were made, oldest first, a batch's in the
    order of their places: the order they are exported and printed in."""
    return list(passports.order_by(*Passport.AS_MADE).values_list("pk", flat=True))


@dataclass(frozen=True, slots=True)
class Ticked:
    """The passports ticked in the list (for a mail, an export): those of the codes ticked that
    the user may see, oldest first, the order they are sent, exported and printed in; and how
    many different codes were ticked, a malformed one included. Fewer passports than codes: some
    codes are not the business's passports' (or no passport's)."""

    passports: QuerySet[Passport]
    codes: int


def ticked(passports: QuerySet[Passport], typed: list[str]) -> Ticked:
    """The passports of `passports` (those the user may see) whose codes were ticked, as the
    list's form sends them (`typed`: any case, with or without the hyphen)."""
    short_codes = {codes.normalise(code) for code in typed}
    found = passports.filter(short_code__in=short_codes - {None}).order_by(*Passport.AS_MADE)
    return Ticked(found, len(short_codes))


# What each membership's passports offer the list's filters, kept in the cache: finding it
# reads every passport of the membership, the one part of the list that grows with them all.
# Forgotten when a passport of the membership is saved or deleted (portal/passports/apps.py).
OFFERED_KEY = "passports.offered.{}"
OFFERED_SECONDS = 24 * 60 * 60


@dataclass(frozen=True, slots=True)
class Offered:
    """What the list's filters offer of the memberships' passports: their crops (each once
    whatever its case), A to Z, and their harvest years, the latest first."""

    crops: list[str]
    harvest_years: list[str]

    @classmethod
    def to(cls, memberships: list[records.Membership]) -> Offered:
        pairs = {pair for kept in _offered_by_membership(memberships) for pair in kept}
        crops: dict[str, str] = {}
        for crop in sorted(crop for crop, _ in pairs if crop):
            crops.setdefault(crop.lower(), crop)
        years = sorted({year for _, year in pairs if year}, reverse=True)
        return cls(sorted(crops.values(), key=str.lower), years)


def _offered_by_membership(memberships: list[records.Membership]) -> list[list[tuple]]:
    """Each membership's (crop, harvest year) pairs, from the cache or, where it has none, from
    the database (then kept)."""
    keys = {m.membership_guid: OFFERED_KEY.format(m.membership_guid)
            for m in memberships if m.membership_guid}  # fmt: skip
    kept = cache.get_many(list(keys.values()))
    missing = [guid for guid, key in keys.items() if key not in kept]
    if missing:
        found: dict[str, set[tuple]] = {guid: set() for guid in missing}
        rows = (Passport.objects.filter(membership_guid__in=missing, short_code__isnull=False)
                .values_list("membership_guid", "crop_type", "harvest_year")
                .order_by().distinct())  # fmt: skip
        for guid, crop, year in rows:
            found[guid].add((crop, year))
        fresh = {keys[guid]: list(pairs) for guid, pairs in found.items()}
        cache.set_many(fresh, OFFERED_SECONDS)
        kept |= fresh
    return list(kept.values())


def forget_offered(sender: type, instance: Passport, **kwargs: Any) -> None:
    """For post_save and post_delete: the passport's membership offers what it has now. Forgotten
    at once and again once the change is committed, so that a list shown in between cannot
    keep what was there before."""
    key = OFFERED_KEY.format(instance.membership_guid)
    cache.delete(key)
    transaction.on_commit(lambda: cache.delete(key))


def _start_of(day: date, days_after: int = 0) -> datetime:
    """The start of `day` (or of a day after it) in UTC: loading dates are compared as the
    service writes them, as the pages show them."""
    return datetime.combine(day + timedelta(days=days_after), time.min, tzinfo=UTC)
