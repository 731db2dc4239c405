"""The quality parameters measured at intake, for each crop: each with its unit and the range
outside which a value is refused as a typing error (not as out of specification: a site's own
specification, portal.intake.models.Specification, says that)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True, slots=True)
class Parameter:
    key: str
    label: str | Promise  # in the language of the page or job that reads it
    unit: str
    lowest: Decimal  # a value below is a typing error
    highest: Decimal  # and above

    def refusal(self, value: Decimal) -> str | None:
        """Why `value` cannot be a measurement of this parameter, or None if it can be."""
        if self.lowest <= value <= self.highest:
            return None
        return gettext(
            "%(parameter)s of %(value)s %(unit)s cannot be measured: it is between %(lowest)s "
            "and %(highest)s %(unit)s."
        ) % {"parameter": self.label, "value": value, "unit": self.unit, "lowest": self.lowest,
             "highest": self.highest}  # fmt: skip


def _p(key: str, label: str | Promise, unit: str, lowest: str, highest: str) -> Parameter:
    return Parameter(key, label, unit, Decimal(lowest), Decimal(highest))


MOISTURE = _p("moisture", _("Moisture"), "%", "0", "40")
SPECIFIC_WEIGHT = _p("specific_weight", _("Specific weight"), "kg/hl", "40", "90")
ADMIXTURE = _p("admixture", _("Admixture"), "%", "0", "50")
SCREENINGS = _p("screenings", _("Screenings"), "%", "0", "50")

# By crop, in lower case as a passport names it (its value, kept in English as the service
# writes it): its name as the admin's specifications offer it, and the parameters measured.
_CROPS: tuple[tuple[str, Promise, tuple[Parameter, ...]], ...] = (
    ("wheat", _("Wheat"), (
        MOISTURE, SPECIFIC_WEIGHT, _p("protein", _("Protein"), "%", "5", "20"),
        _p("hagberg", _("Hagberg falling number"), "s", "60", "500"), ADMIXTURE, SCREENINGS,
    )),
    ("barley", _("Barley"), (
        MOISTURE, SPECIFIC_WEIGHT, _p("nitrogen", _("Nitrogen"), "%", "0.5", "3.5"),
        _p("germination", _("Germination"), "%", "0", "100"), SCREENINGS, ADMIXTURE,
    )),
    ("oilseed rape", _("Oilseed rape"), (
        MOISTURE, _p("oil", _("Oil"), "%", "20", "60"),
        _p("free_fatty_acids", _("Free fatty acids"), "%", "0", "10"), ADMIXTURE,
    )),
    ("beans", _("Beans"), (MOISTURE, ADMIXTURE)),
    ("peas", _("Peas"), (MOISTURE, ADMIXTURE)),
)  # fmt: skip
PARAMETERS: dict[str, tuple[Parameter, ...]] = {crop: measured for crop, _name, measured in _CROPS}
CROP_NAMES: dict[str, Promise] = {crop: name for crop, name, _measured in _CROPS}
CROPS = tuple(PARAMETERS)


def parameters_of(crop: str) -> tuple[Parameter, ...]:
    """The parameters measured for `crop` (in any case); none for a crop the table lacks."""
    return PARAMETERS.get(crop.strip().lower(), ())


def parameter(crop: str, key: str) -> Parameter | None:
    return next((p for p in parameters_of(crop) if p.key == key), None)


def _every_parameter() -> tuple[Parameter, ...]:
    found: dict[str, Parameter] = {}
    for parameters in PARAMETERS.values():
        found.update((p.key, p) for p in parameters if p.key not in found)
    return tuple(found.values())


# Every parameter of every crop, once: an upload's template has a column for each.
ALL_PARAMETERS = _every_parameter()

# Why a load was claimed on, redirected or rejected: kept by key, shown by label.
REASONS = (
    ("moisture", _("Moisture above specification")),
    ("specific-weight", _("Specific weight below specification")),
    ("protein", _("Protein or nitrogen outside specification")),
    ("hagberg", _("Hagberg falling number below specification")),
    ("oil", _("Oil content below specification")),
    ("admixture", _("Admixture above specification")),
    ("screenings", _("Screenings above specification")),
    ("germination", _("Germination below specification")),
    ("insects", _("Live insects")),
    ("taint", _("Odour or taint")),
    ("heated", _("Heated or mouldy grain")),
    ("contamination", _("Contamination (glass, stones, treated seed)")),
    ("variety", _("Not the variety declared")),
    ("passport", _("Passport not valid")),
)
_REASON_LABELS = dict(REASONS)


def reason_label(key: str) -> str | Promise:
    """A reason as people read it (one kept before the list had it, as it was kept)."""
    return _REASON_LABELS.get(key, key)
