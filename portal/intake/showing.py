"""A passport's loads as its grower sees them on the passport's page ("At intake"): the latest
figures of each, each result beside the site's specification, each claim with its calculation,
and the history of the record."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from portal.intake import quality
from portal.intake.loads import Claim, Figures, latest_figures
from portal.intake.models import Load, LoadEntry, Specification
from portal.intake.queries import open_query


@dataclass(frozen=True)
class Result:
    label: str
    value: Decimal
    unit: str
    specification: str  # in words: "76 or more", "" when the site has none
    within: bool | None  # None: no specification to be within


@dataclass(frozen=True)
class ShownClaim:
    label: str
    claim: Claim


@dataclass(frozen=True)
class ShownLoad:
    load: Load
    figures: Figures
    results: list[Result]
    claims: list[ShownClaim]
    history: list[LoadEntry]

    @property
    def reasons(self) -> list[str]:
        return [quality.reason_label(key) for key in self.figures.reasons]

    @property
    def claimed(self) -> Decimal:
        return sum((c.claim.total for c in self.claims), Decimal("0.00"))

    @property
    def open_query(self) -> LoadEntry | None:
        """The grower's query not yet answered, stood by or corrected."""
        return open_query(self.history)


def loads_of(passport: object) -> list[ShownLoad]:
    """The loads recorded of `passport` (a passports.models.Passport), newest first."""
    loads = Load.objects.filter(passport=passport).select_related("site", "passport")
    return [shown(load) for load in loads.prefetch_related("entries", "site__specifications")]


def shown(load: Load) -> ShownLoad:
    """One load as it is shown: its latest figures, results, claims and history."""
    figures = latest_figures(load)
    crop = load.passport.crop_type
    specifications = {
        s.parameter: s for s in load.site.specifications.all() if s.crop == crop.lower()
    }
    order = [p.key for p in quality.parameters_of(crop)]
    measured = sorted(figures.results.items(), key=lambda item: _place(order, item[0]))
    results = [_result(crop, key, value, specifications.get(key)) for key, value in measured]
    claims = [ShownClaim(_label(crop, c.parameter), c) for c in figures.claims]
    return ShownLoad(load, figures, results, claims, list(load.entries.all()))


def _result(crop: str, key: str, value: Decimal, specification: Specification | None) -> Result:
    parameter = quality.parameter(crop, key)
    label, unit = (parameter.label, parameter.unit) if parameter else (key, "")
    if specification is None:
        return Result(label, value, unit, "", None)
    return Result(label, value, unit, _in_words(specification, unit), specification.holds(value))


def _place(order: list[str], key: str) -> int:
    """A parameter's place in its crop's table (one it lacks, last)."""
    return order.index(key) if key in order else len(order)


def _label(crop: str, key: str) -> str:
    parameter = quality.parameter(crop, key)
    return parameter.label if parameter else key


def _in_words(specification: Specification, unit: str) -> str:
    low, high = (_plain(specification.lowest), _plain(specification.highest))
    if low and high:
        return f"{low} to {high} {unit}"
    if low:
        return f"{low} {unit} or more"
    return f"at most {high} {unit}" if high else ""


def _plain(value: Decimal | None) -> str:
    """A number as a person writes it: 76, 2.5 (not 76.00, nor 7.6E+1)."""
    return "" if value is None else format(value.normalize(), "f")
