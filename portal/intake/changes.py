"""What each step of a load's history changed: a correction keeps the whole record as it stood
from then on, and the history says which of its figures it changed, from what to what, in the
words of the form that records them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.utils import formats, timezone
from django.utils.translation import gettext, pgettext

from portal.intake import quality
from portal.intake.forms import LoadForm
from portal.intake.loads import Claim, Figures
from portal.intake.models import Decision, LoadEntry
from portal.lib import weights

# The figures a record holds, in the form's order, by the form's labels.
_PLAIN = ("arrival", "vehicle", "gross_kg", "tare_kg", "sample_reference", "sample_kept_days",
          "decision", "reasons")  # fmt: skip


@dataclass(frozen=True)
class Change:
    label: str
    before: str
    after: str


@dataclass(frozen=True)
class Step:
    """One entry of a load's history, with what it changed (none for the first record, nor for
    a query or an answer, which change no figure)."""

    entry: LoadEntry
    changes: list[Change]


def history(entries: Iterable[LoadEntry], crop: str) -> list[Step]:
    """The load's entries in order, each with what it changed of the figures before it."""
    steps, before = [], None
    for entry in entries:
        after = Figures.from_json(entry.figures) if entry.figures else None
        changed = changes(before, after, crop) if before and after else []
        steps.append(Step(entry, changed))
        before = after or before
    return steps


def changes(before: Figures, after: Figures, crop: str) -> list[Change]:
    """Each figure `after` holds otherwise than `before`, in the form's order."""
    pairs = [(_label(name), _said(name, getattr(before, name)), _said(name, getattr(after, name)))
             for name in _PLAIN]  # fmt: skip
    net = gettext("Net weight (kg)")
    pairs.insert(4, (net, _kilograms(before.net_kg), _kilograms(after.net_kg)))
    for parameter in _parameters(crop, before, after):
        label = f"{parameter.label} ({parameter.unit})" if parameter.unit else str(parameter.label)
        old, new = before.results.get(parameter.key), after.results.get(parameter.key)
        pairs.append((label, _number(old), _number(new)))
    pairs.append((gettext("Claims"), _claims(before, crop), _claims(after, crop)))
    return [Change(label, old, new) for label, old, new in pairs if old != new]


def _label(name: str) -> str:
    return str(LoadForm.base_fields[name].label)


def _said(name: str, value: object) -> str:
    if value is None or value == "" or value == ():
        return _none()
    if isinstance(value, datetime):
        return formats.date_format(timezone.localtime(value), "DATETIME_FORMAT")
    if name == "decision":
        return str(Decision(value).label)
    if name == "reasons":
        return "; ".join(str(quality.reason_label(key)) for key in value)
    if isinstance(value, int):
        return _kilograms(value) if name.endswith("_kg") else str(value)
    return str(value)


def _none() -> str:
    """A figure the record does not hold, as a change from or to it says it."""
    return pgettext("no figure", "none")


def _kilograms(value: int) -> str:
    return f"{value:,}"


def _number(value: Decimal | None) -> str:
    return _none() if value is None else format(value.normalize(), "f")


def _parameters(crop: str, before: Figures, after: Figures) -> list[quality.Parameter]:
    """The crop's parameters, and any other a record holds (kept before the table changed)."""
    known = list(quality.parameters_of(crop))
    keys = {p.key for p in known}
    others = sorted((before.results.keys() | after.results.keys()) - keys)
    return known + [quality.Parameter(key, key, "", Decimal(0), Decimal(0)) for key in others]


def _claims(figures: Figures, crop: str) -> str:
    if not figures.claims:
        return _none()
    return "; ".join(_claim(c, figures.net_tonnes, crop) for c in figures.claims)


def _claim(claim: Claim, net_tonnes: Decimal, crop: str) -> str:
    label, total = _parameter_label(crop, claim.parameter), claim.total(net_tonnes)
    said = {"parameter": label, "rate": claim.rate, "total": total}
    if claim.tonnes is None:
        return gettext(
            "%(parameter)s £%(rate)s a tonne on the load's net %(tonnes)s t = £%(total)s"
        ) % {**said, "tonnes": weights.tonnes(net_tonnes)}
    return gettext("%(parameter)s £%(rate)s a tonne on %(tonnes)s t = £%(total)s") % {
        **said,
        "tonnes": weights.tonnes(claim.tonnes),
    }


def _parameter_label(crop: str, key: str) -> str:
    parameter = quality.parameter(crop, key)
    return parameter.label if parameter else key
