"""A crop passport's fields, written once: each field of the passport record
(docs/developing/assurance-records.md) with the label the paper passport prints for it, the part of
the passport it is printed in, and its kind. The create form, the passport's page and the public
look-up, the business's list, the mail that carries passports, the gate check's table
(portal/passports), the manifests of an export and the sandbox's PDF all read this table, so that a
field reads the same everywhere.

Each kind of date is written one way wherever people read it (pages, mails, PDFs): a calendar
day by `day_written` (21 August 2026), a year as its four digits; a moment of the portal's own
(when a passport was made, checked or sent) by Django's DATETIME_FORMAT (portal/formats/en_GB),
that day and the time in 24-hour form. Machine formats (CSV, XLSX, JSON) keep ISO 8601.

The labels, parts' titles and treatment options are marked for translation (gettext_lazy), so
that a Welsh page shows them in Welsh; the sandbox, which plays the English-speaking service,
prints its passports from it in English.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum

from django.utils.dates import MONTHS
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from portal.assurance import codec, records


class Kind(StrEnum):
    TEXT = "text"
    LINES = "lines"  # text whose line breaks are kept (an address)
    DAY = "day"  # a date/time of which the day is meant: a calendar date
    YEAR = "year"  # a year, written as given: its four digits
    NUMBER = "number"
    TREATMENT = "treatment"  # one of TREATMENT_OPTIONS, or none indicated


@dataclass(frozen=True, slots=True)
class Part:
    """A part of the paper passport: its number as printed (0 for the head of the page, which
    has none) and its title."""

    number: int
    title: str | Promise


HEAD = Part(0, _("Business and collection address"))
LOAD = Part(1, _("Load details"))
CLAIM = Part(2, _("Assurance claim"))
TREATMENT = Part(4, _("Post-harvest treatment"))
MYCOTOXINS = Part(5, _("Mycotoxin risk"))
PARTS = (HEAD, LOAD, CLAIM, TREATMENT, MYCOTOXINS)

# Section 4's options as the passport prints them.
TREATMENT_OPTIONS = {
    "A": _("No post-harvest treatment has been applied to this grain."),
    "B": _("Treated after harvest: date and product below."),
    "C": _("Treatment records are held by the store operator."),
}
NONE_INDICATED = _("None indicated")

# The statuses the service gives a claim, as a page writes them; any other as it is given.
STATUSES = {
    "Valid": pgettext_lazy("an assurance claim's status", "Valid"),
    "Grace": pgettext_lazy("an assurance claim's status", "Grace"),
    "Expired": pgettext_lazy("an assurance claim's status", "Expired"),
    "Suspended": pgettext_lazy("an assurance claim's status", "Suspended"),
    "Withdrawn": pgettext_lazy("an assurance claim's status", "Withdrawn"),
}


def status_written(status: object) -> str:
    """A claim's status as a page writes it, in the language in use."""
    return str(STATUSES.get(str(status), status)) if status else ""


@dataclass(frozen=True, slots=True)
class PassportField:
    """One field of the passport record. `part` is None for a field the passport does not
    print (the GUIDs); `requested` marks the fields a create request may give (2.5)."""

    name: str
    label: str | Promise
    part: Part | None
    kind: Kind = Kind.TEXT
    requested: bool = False

    @property
    def wire_name(self) -> str:
        """The interface's own name of the field (`CropType`)."""
        return WIRE_NAMES[self.name]

    def shown(self, value: object) -> str:
        """The value as a page writes it; "" for none."""
        if value is None:
            return ""
        if isinstance(value, date):
            return day_written(value)
        if self.kind == Kind.TREATMENT:
            option = str(value).strip().upper()
            return f"{option}: {TREATMENT_OPTIONS[option]}" if option in TREATMENT_OPTIONS else ""
        if isinstance(value, float):
            return codec.format_number(value)
        if self.name == "status":
            return status_written(str(value).strip())
        return str(value).strip()


def _field(
    name: str, label: str | Promise, part: Part | None, kind: Kind = Kind.TEXT
) -> PassportField:
    return PassportField(name, label, part, kind, requested=name in REQUEST_NAMES)


def day_written(value: date) -> str:
    """A calendar day as people read it everywhere (21 August 2026); Django's DATE_FORMAT
    writes the same, and both name the month in the language in use (Django's month names). A
    date/time's day is its day in UTC, as the service writes it and the
    portal keeps it, so that the list, the pages and the PDF name the same day."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.astimezone(UTC)
    return f"{value.day} {MONTHS[value.month]} {value.year}"


WIRE_NAMES = dict(codec.wire_names(records.CropPassport))
REQUEST_NAMES = frozenset(name for name, _ in codec.wire_names(records.PassportRequest))

# In the interface's order (2.5), which is the order of a manifest's columns.
PASSPORT_FIELDS = (
    _field("short_code", _("Passport short code"), None),
    _field("membership_guid", _("Membership GUID"), None),
    _field("site_guid", _("Site GUID"), None),
    _field("store_guid", _("Store GUID"), None),
    _field("business_name", _("Business name"), HEAD),
    _field("collection_address", _("Collection address"), HEAD, Kind.LINES),
    _field("crop_type", _("Crop type"), LOAD),
    _field("variety", _("Variety"), LOAD),
    _field("store_or_bin_name", _("Store or bin name"), LOAD),
    _field("loading_date", _("Loading date"), LOAD, Kind.DAY),
    _field("harvest_year", _("Harvest year"), LOAD, Kind.YEAR),
    _field("haulier_company_name", _("Haulier company name"), LOAD),
    _field("vehicle_registration", _("Vehicle registration"), LOAD),
    _field("trailer_number", _("Trailer number"), LOAD),
    _field("haulier_collection_ticket_no", _("Haulier collection ticket no."), LOAD),
    _field("certifier_name", _("Certifier"), CLAIM),
    _field("membership_number", _("Membership number"), CLAIM),
    _field("check_date", _("Claim checked on"), CLAIM, Kind.DAY),
    _field("status", _("Status"), CLAIM),
    _field("expiry_date", _("Certificate expiry date"), CLAIM, Kind.DAY),
    _field("enterprises", _("Certified enterprises"), CLAIM),
    _field("post_harvest_treatment_option", _("Treatment option"), TREATMENT, Kind.TREATMENT),
    _field("post_harvest_treatment_date", _("Treatment date"), TREATMENT, Kind.DAY),
    _field("post_harvest_treatment_product", _("Product used"), TREATMENT),
    _field(
        "don_risk_assessment_result",
        _("DON risk assessment result (score)"),
        MYCOTOXINS,
        Kind.NUMBER,
    ),
    _field("don_test_date", _("DON test date"), MYCOTOXINS, Kind.DAY),
    _field("don_test_result", _("DON test result"), MYCOTOXINS),
    _field("zon_test_date", _("ZON test date"), MYCOTOXINS, Kind.DAY),
    _field("zon_test_result", _("ZON test result"), MYCOTOXINS),
    _field("grain_store_name", _("Grain store (collection point)"), CLAIM),
    _field("grain_store_latitude", _("Grain store latitude"), CLAIM),
    _field("grain_store_longitude", _("Grain store longitude"), CLAIM),
)
FIELDS = {field.name: field for field in PASSPORT_FIELDS}


def in_part(part: Part) -> list[PassportField]:
    """The fields printed in `part`, in the table's order."""
    return [field for field in PASSPORT_FIELDS if field.part == part]


def requested(part: Part) -> list[PassportField]:
    """The fields of `part` that a create request gives (the form's fields of that part)."""
    return [field for field in in_part(part) if field.requested]
