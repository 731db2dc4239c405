"""The figures of each passport's latest load at intake, as columns of the business's exports
(portal.passports.manifests, which asks for them by its `columns_added` signal: connected in
apps.py). A passport's latest load is the one recorded last, as the list shows it; its figures
are its latest record or correction's.

The columns, after the passport's own: the site, the ticket, the arrival, the net weight in kg,
the decision and its reasons, each quality parameter of every crop (portal.intake.quality, in
its units), and the claims' total in pounds. Headed as the passport's own columns are, by a
name without spaces; the manifests write each value as the passport's of the same kind (the
arrival as a date and time in UTC, numbers as numbers, text safe from spreadsheets' formulas).
A passport with no load has them empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import translation

from portal.intake import quality
from portal.intake.loads import Figures
from portal.intake.models import Load, LoadEntry
from portal.passports.manifests import Added

# Every crop's parameters, each once, in the order of the table.
PARAMETERS = tuple({p.key: p for crop in quality.PARAMETERS.values() for p in crop}.values())


def _heading(key: str) -> str:
    return "Intake" + "".join(part.capitalize() for part in key.split("_"))


HEADINGS = (
    "IntakeSite", "IntakeTicket", "IntakeArrival", "IntakeNetKg", "IntakeDecision",
    "IntakeReasons", *(_heading(p.key) for p in PARAMETERS), "IntakeClaimsTotal",
)  # fmt: skip


def columns(sender: type, **kwargs: Any) -> Added:
    """For manifests.columns_added: the intake's columns."""
    return Added(HEADINGS, cells_of)


def cells_of(passport_ids: list[int]) -> dict[int, Sequence[object]]:
    """The cells of each of these passports that has a load, by its id: two queries."""
    latest: dict[int, Load] = {}
    loads = Load.objects.filter(passport_id__in=passport_ids).select_related("site")
    for load in loads.order_by("passport_id", "-created", "-pk"):
        latest.setdefault(load.passport_id, load)
    figures = _latest_figures(list(latest.values()))
    return {passport_id: _cells(load, figures[load.pk]) for passport_id, load in latest.items()}


def _latest_figures(loads: list[Load]) -> dict[int, Figures]:
    """Each load's figures as its latest record or correction gives them, by the load's id."""
    kept: dict[int, dict] = {}
    entries = LoadEntry.objects.filter(load__in=loads, figures__isnull=False)
    for load_id, figures in entries.order_by("load_id", "-at", "-pk").values_list(
        "load_id", "figures"
    ):
        kept.setdefault(load_id, figures)
    return {load_id: Figures.from_json(figures) for load_id, figures in kept.items()}


def _neutral(label: object) -> str:
    """A decision's label as the exports' values have it in every language: in English."""
    with translation.override(None):
        return str(label)


def _cells(load: Load, figures: Figures) -> tuple[object, ...]:
    return (
        load.site.name, load.ticket, figures.arrival, figures.net_kg,
        _neutral(figures.decision.label), "; ".join(figures.reasons),
        *(figures.results.get(p.key) for p in PARAMETERS),
        figures.claimed,
    )  # fmt: skip
