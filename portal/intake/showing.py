"""A passport's loads as its grower sees them on the passport's page ("At intake"), and a load
as its clerk sees it: the latest figures of each, each result beside the site's specification
they were judged against, each claim with its calculation, and the history of the record."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from itertools import groupby
from operator import attrgetter

from portal.intake import changes, quality
from portal.intake.loads import Bounds, Claim, Figures, figures_of, specification_of
from portal.intake.models import Load, LoadEntry
from portal.intake.queries import open_query
from portal.lib.weights import tonnes
from portal.passports.models import Passport


@dataclass(frozen=True)
class Result:
    label: str
    measured: str  # the value and its unit: "72.5 kg/hl"
    specification: str  # in words: "76 kg/hl or more", "" when the site has none
    within: bool | None  # None: no specification to be within


@dataclass(frozen=True)
class ShownClaim:
    """A claim's calculation, each figure as written: rate a tonne, tonnes, and total."""

    label: str
    rate: str
    tonnes: str
    total: str


@dataclass(frozen=True)
class ShownLoad:
    """A load as its page shows it, each figure worked out once here rather than in the
    templates: its results beside the specification, its claims, the reasons for its decision,
    the total claimed, and the grower's query not yet answered, stood by or corrected."""

    load: Load
    figures: Figures
    results: list[Result]
    claims: list[ShownClaim]
    history: list[LoadEntry]
    steps: list[changes.Step]  # the history, each correction with what it changed
    reasons: list[str]
    claimed: str
    open_query: LoadEntry | None


def loads_of(passport: Passport) -> list[ShownLoad]:
    """The loads recorded of `passport`, newest first, in one query however many: their
    entries with their loads and sites."""
    shown_loads = []
    for history in _histories(passport):
        load = history[0].load
        load.passport = passport
        shown_loads.append(_shown(load, history))
    return shown_loads


def _histories(passport: Passport) -> list[list[LoadEntry]]:
    """Each load's entries in order, each entry with its load and site, newest load first."""
    entries = (LoadEntry.objects.filter(load__passport=passport).select_related("load__site")
               .order_by("-load__created", "-load__pk", "at", "pk"))  # fmt: skip
    return [list(history) for _, history in groupby(entries, key=attrgetter("load_id"))]


def shown(load: Load) -> ShownLoad:
    """One load as it is shown: its latest figures, results, claims and history."""
    return _shown(load, list(load.entries.all()))


def _shown(load: Load, history: list[LoadEntry]) -> ShownLoad:
    """The load with its `history` (its entries in order), its results beside the specification
    its latest figures were judged against."""
    crop = load.passport.crop_type
    figures, specifications = figures_of(history), specification_of(history)
    order = [p.key for p in quality.parameters_of(crop)]
    measured = sorted(figures.results.items(), key=lambda item: _place(order, item[0]))
    results = [_result(crop, key, value, specifications.get(key)) for key, value in measured]
    claims = [_claim(crop, claim, figures.net_tonnes) for claim in figures.claims]
    reasons = [quality.reason_label(key) for key in figures.reasons]
    return ShownLoad(load, figures, results, claims, history, changes.history(history, crop),
                     reasons, _written(figures.claimed), open_query(history))  # fmt: skip


def _result(crop: str, key: str, value: Decimal, specification: Bounds | None) -> Result:
    parameter = quality.parameter(crop, key)
    label, unit = (parameter.label, parameter.unit) if parameter else (key, "")
    measured = f"{_written(value)} {unit}"
    if specification is None:
        return Result(label, measured, "", None)
    return Result(label, measured, specification.in_words(unit), specification.holds(value))


def _claim(crop: str, claim: Claim, net_tonnes: Decimal) -> ShownClaim:
    rate, total = _written(claim.rate), _written(claim.total(net_tonnes))
    shown_tonnes = tonnes(claim.tonnes_of(net_tonnes))
    return ShownClaim(_label(crop, claim.parameter), rate, shown_tonnes, total)


def _place(order: list[str], key: str) -> int:
    """A parameter's place in its crop's table (one it lacks, last)."""
    return order.index(key) if key in order else len(order)


def _label(crop: str, key: str) -> str:
    parameter = quality.parameter(crop, key)
    return parameter.label if parameter else key


def _written(value: Decimal) -> str:
    """A figure as it was given: 2.50, 29.10 (as a template writes a Decimal)."""
    return format(value, "f")
