"""A passport laid out for a page by the parts of the paper passport, from the one table of its
fields (portal.assurance.passport_fields): each field with the label the paper prints, and the
optional values of section 1 left empty marked to be completed by hand before the load is collected
(docs/developing/assurance-interface.md). The passport's page and the public look-up both show it,
through one partial (passports/details.html). And a passport in brief, the few fields the mail that
carries it shows.

Dates are calendar days, each its day in UTC as the service writes it (passport_fields.day_written),
not moved into the portal's time zone.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from portal.assurance import records
from portal.assurance.passport_fields import (
    FIELDS,
    LOAD,
    NONE_INDICATED,
    PARTS,
    Kind,
    Part,
    PassportField,
    in_part,
)

# A passport in brief, as the mail that carries it shows it; each of these fields is kept in
# a column of the portal's own row of the passport (portal.passports.models.Passport) too.
IN_BRIEF = tuple(
    FIELDS[name]
    for name in ("crop_type", "variety", "loading_date", "harvest_year", "haulier_company_name")
)
NOT_GIVEN = _("Not given")
BY_HAND = _("To complete by hand")


@dataclass(frozen=True, slots=True)
class Row:
    label: str | Promise
    value: str | Promise
    by_hand: bool = False  # an optional value of section 1 left empty
    in_english: bool = False  # text as the service gives it (names, crops): `lang="en"`


@dataclass(frozen=True, slots=True)
class Section:
    part: Part
    rows: list[Row]


@dataclass(frozen=True, slots=True)
class Sheet:
    sections: list[Section]

    @property
    def to_complete(self) -> list[str | Promise]:
        """The labels of section 1's fields to complete by hand before collection."""
        return [row.label for section in self.sections for row in section.rows if row.by_hand]


def sheet(passport: records.CropPassport) -> Sheet:
    sections = [Section(part, [_row(f, getattr(passport, f.name)) for f in in_part(part)])
                for part in PARTS]  # fmt: skip
    return Sheet(sections)


def in_brief(passport: object) -> list[Row]:
    """The IN_BRIEF fields `passport` gives (a record, or the portal's row of one), as shown."""
    rows = [Row(field.label, field.shown(getattr(passport, field.name))) for field in IN_BRIEF]
    return [row for row in rows if row.value]


AS_GIVEN = (Kind.TEXT, Kind.LINES)


def _row(field: PassportField, value: object) -> Row:
    shown = field.shown(value)
    if shown:
        return Row(field.label, shown, in_english=field.kind in AS_GIVEN and field.name != "status")
    if field.part == LOAD:
        return Row(field.label, BY_HAND, by_hand=True)
    return Row(field.label, NONE_INDICATED if field.kind == Kind.TREATMENT else NOT_GIVEN)
