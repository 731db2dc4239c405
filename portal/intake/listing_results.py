"""The result of each passport's latest load, as the business's passports list shows and filters
it (portal.passports.listing, which asks for it by its `results_offered` signal: connected in
apps.py). A passport's latest load is the one recorded last (the latest created, then the
highest id), as the exports' columns take it (portal.intake.exporting)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery

from portal.intake.models import Decision, Load
from portal.passports.listing import NO_RESULT, LoadResults
from portal.passports.models import Passport


def results(sender: type, **kwargs: Any) -> LoadResults:
    """For listing.results_offered: the intake's results."""
    return LoadResults(with_latest, decided, list(Decision.choices))


def with_latest(passports: QuerySet[Passport]) -> QuerySet[Passport]:
    latest = Load.objects.filter(passport=OuterRef("pk")).order_by("-created", "-pk")
    return passports.annotate(
        intake_net_kg=Subquery(latest.values("net_kg")[:1]),
        intake_decision=Subquery(latest.values("decision")[:1]),
    )


def decided(passports: QuerySet[Passport], decision: str) -> QuerySet[Passport]:
    if decision == NO_RESULT:
        return passports.exclude(Exists(Load.objects.filter(passport=OuterRef("pk"))))
    later = Load.objects.filter(
        Q(created__gt=OuterRef("created")) | Q(created=OuterRef("created"), pk__gt=OuterRef("pk")),
        passport=OuterRef("passport"),
    )  # fmt: skip
    latest_decided = Load.objects.filter(decision=decision).exclude(Exists(later))
    return passports.filter(Exists(latest_decided.filter(passport=OuterRef("pk"))))
