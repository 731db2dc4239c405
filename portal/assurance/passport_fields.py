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

Plain Python, no Django: the sandbox prints its passports from it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum

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
    title: str


HEAD = Part(0, "Business and collection address")
LOAD = Part(1, "Load details")
CLAIM = Part(2, "Assurance claim")
TREATMENT = Part(4, "Post-harvest treatment")
MYCOTOXINS = Part(5, "Mycotoxin risk")
PARTS = (HEAD, LOAD, CLAIM, TREATMENT, MYCOTOXINS)

# Section 4's options as the passport prints them.
TREATMENT_OPTIONS = {
    "A": "No post-harvest treatment has been applied to this grain.",
    "B": "Treated after harvest: date and product below.",
    "C": "Treatment records are held by the store operator.",
}
NONE_INDICATED = "None indicated"

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip


@dataclass(frozen=True, slots=True)
class PassportField:
    """One field of the passport record. `part` is None for a field the passport does not
    print (the GUIDs); `requested` marks the fields a create request may give (2.5)."""

    name: str
    label: str
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
        return str(value).strip()


def _field(name: str, label: str, part: Part | None, kind: Kind = Kind.TEXT) -> PassportField:
    return PassportField(name, label, part, kind, requested=name in REQUEST_NAMES)


def day_written(value: date) -> str:
    """A calendar day as people read it everywhere (21 August 2026); Django's DATE_FORMAT
    writes the same. A date/time's day is its day in UTC, as the service writes it and the
    portal keeps it, so that the list, the pages and the PDF name the same day."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.astimezone(UTC)
    return f"{value.day} {MONTHS[value.month - 1]} {value.year}"


WIRE_NAMES = dict(codec.wire_names(records.CropPassport))
REQUEST_NAMES = frozenset(name for name, _ in codec.wire_names(records.PassportRequest))

# In the interface's order (2.5), which is the order of a manifest's columns.
PASSPORT_FIELDS = (
    _field("short_code", "Passport short code", None),
    _field("membership_guid", "Membership GUID", None),
    _field("site_guid", "Site GUID", None),
    _field("store_guid", "Store GUID", None),
    _field("business_name", "Business name", HEAD),
    _field("collection_address", "Collection address", HEAD, Kind.LINES),
    _field("crop_type", "Crop type", LOAD),
    _field("variety", "Variety", LOAD),
    _field("store_or_bin_name", "Store or bin name", LOAD),
    _field("loading_date", "Loading date", LOAD, Kind.DAY),
    _field("harvest_year", "Harvest year", LOAD, Kind.YEAR),
    _field("haulier_company_name", "Haulier company name", LOAD),
    _field("vehicle_registration", "Vehicle registration", LOAD),
    _field("trailer_number", "Trailer number", LOAD),
    _field("haulier_collection_ticket_no", "Haulier collection ticket no.", LOAD),
    _field("certifier_name", "Certifier", CLAIM),
    _field("membership_number", "Membership number", CLAIM),
    _field("check_date", "Claim checked on", CLAIM, Kind.DAY),
    _field("status", "Status", CLAIM),
    _field("expiry_date", "Certificate expiry date", CLAIM, Kind.DAY),
    _field("enterprises", "Certified enterprises", CLAIM),
    _field("post_harvest_treatment_option", "Treatment option", TREATMENT, Kind.TREATMENT),
    _field("post_harvest_treatment_date", "Treatment date", TREATMENT, Kind.DAY),
    _field("post_harvest_treatment_product", "Product used", TREATMENT),
    _field(
        "don_risk_assessment_result", "DON risk assessment result (score)", MYCOTOXINS, Kind.NUMBER
    ),
    _field("don_test_date", "DON test date", MYCOTOXINS, Kind.DAY),
    _field("don_test_result", "DON test result", MYCOTOXINS),
    _field("zon_test_date", "ZON test date", MYCOTOXINS, Kind.DAY),
    _field("zon_test_result", "ZON test result", MYCOTOXINS),
    _field("grain_store_name", "Grain store (collection point)", CLAIM),
    _field("grain_store_latitude", "Grain store latitude", CLAIM),
    _field("grain_store_longitude", "Grain store longitude", CLAIM),
)
FIELDS = {field.name: field for field in PASSPORT_FIELDS}


def in_part(part: Part) -> list[PassportField]:
    """The fields printed in `part`, in the table's order."""
    return [field for field in PASSPORT_FIELDS if field.part == part]


def requested(part: Part) -> list[PassportField]:
    """The fields of `part` that a create request gives (the form's fields of that part)."""
    return [field for field in in_part(part) if field.requested]
