"""A passport's loads as its grower sees them on the passport's page ("At intake"): the latest
figures of each, each result beside the site's specification, each claim with its calculation,
and the history of the record."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from itertools import groupby
from operator import attrgetter

from portal.intake import quality
from portal.intake.loads import Claim, Figures, figures_of
from portal.intake.models import Load, LoadEntry, Specification
from portal.intake.queries import open_query
from portal.passports.models import Passport


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


def loads_of(passport: Passport) -> list[ShownLoad]:
    """The loads recorded of `passport`, newest first: their entries, each with its load and
    site, in one query, and the sites' specifications of its crop in a second (asked only when
    a load was recorded)."""
    entries = (LoadEntry.objects.filter(load__passport=passport).select_related("load__site")
               .order_by("-load__created", "-load__pk", "at", "pk"))  # fmt: skip
    histories = [list(history) for _, history in groupby(entries, key=attrgetter("load_id"))]
    if not histories:
        return []
    crop = passport.crop_type
    sites = {history[0].load.site_id for history in histories}
    kept = Specification.objects.filter(site__in=sites, crop=crop.lower())
    specifications: dict[int, dict[str, Specification]] = {site: {} for site in sites}
    for specification in kept:
        specifications[specification.site_id][specification.parameter] = specification
    shown_loads = []
    for history in histories:
        load = history[0].load
        load.passport = passport
        shown_loads.append(_shown(load, crop, history, specifications[load.site_id]))
    return shown_loads


def shown(load: Load) -> ShownLoad:
    """One load as it is shown: its latest figures, results, claims and history."""
    crop = load.passport.crop_type
    kept = load.site.specifications.filter(crop=crop.lower())
    specifications = {specification.parameter: specification for specification in kept}
    return _shown(load, crop, list(load.entries.all()), specifications)


def _shown(
    load: Load, crop: str, history: list[LoadEntry], specifications: dict[str, Specification]
) -> ShownLoad:
    """The load with its `history` (its entries in order) and its site's `specifications` of
    `crop`, by parameter."""
    figures = figures_of(history)
    order = [p.key for p in quality.parameters_of(crop)]
    measured = sorted(figures.results.items(), key=lambda item: _place(order, item[0]))
    results = [_result(crop, key, value, specifications.get(key)) for key, value in measured]
    claims = [ShownClaim(_label(crop, c.parameter), c) for c in figures.claims]
    return ShownLoad(load, figures, results, claims, history)


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
