"""A passport laid out for its page by the sections of the passport document: each field with the
label the PDF gives it, and the optional values of section 1 left empty, which are completed by
hand before the load is collected (interface 4.7, rule 3).

Dates are written as the service gives them (in their own offset, as the look-up does), not in
the portal's time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import dateformat

from portal.assurance import records
from portal.passports.lookup import TREATMENTS

NOT_GIVEN = "Not given"
BY_HAND = "To complete by hand"
DAY = "j F Y"
DAY_AND_TIME = "j F Y, H:i"

# Section 1's optional values, in the order of the passport document.
LOAD = (
    ("Crop type", "crop_type"),
    ("Variety", "variety"),
    ("Store or bin name", "store_or_bin_name"),
    ("Loading date", "loading_date"),
    ("Harvest year", "harvest_year"),
    ("Haulier company name", "haulier_company_name"),
    ("Vehicle registration", "vehicle_registration"),
    ("Trailer number", "trailer_number"),
    ("Haulier collection ticket no.", "haulier_collection_ticket_no"),
)


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    value: str
    by_hand: bool = False  # an optional value of section 1 left empty


@dataclass(frozen=True, slots=True)
class Sheet:
    collection: list[Row]
    load: list[Row]
    claim: list[Row]
    treatment: list[Row]
    mycotoxins: list[Row]

    @property
    def to_complete(self) -> list[str]:
        """The labels of section 1's fields to complete by hand before collection."""
        return [row.label for row in self.load if row.by_hand]


def sheet(passport: records.CropPassport) -> Sheet:
    return Sheet(
        collection=_collection(passport),
        load=[_load_row(label, getattr(passport, name)) for label, name in LOAD],
        claim=_claim(passport),
        treatment=_treatment(passport),
        mycotoxins=_mycotoxins(passport),
    )


def _collection(passport: records.CropPassport) -> list[Row]:
    rows = [
        _row("Business name", passport.business_name),
        _row("Collection address", passport.collection_address),
        _row("Grain store", passport.grain_store_name),
    ]
    if passport.grain_store_latitude and passport.grain_store_longitude:
        place = f"{passport.grain_store_latitude}, {passport.grain_store_longitude}"
        rows.append(Row("Grain store location", place))
    return rows


def _load_row(label: str, value: object) -> Row:
    shown = _shown(value, DAY_AND_TIME)
    return Row(label, shown or BY_HAND, by_hand=not shown)


def _claim(passport: records.CropPassport) -> list[Row]:
    return [
        _row("Certifier", passport.certifier_name),
        _row("Membership number", passport.membership_number),
        _row("Certificate expiry date", passport.expiry_date, DAY),
        _row("Certified enterprises", passport.enterprises),
        _row("Claim checked on", passport.check_date, DAY_AND_TIME),
    ]


def _treatment(passport: records.CropPassport) -> list[Row]:
    option = (passport.post_harvest_treatment_option or "").strip().upper()
    chosen = f"{option}: {TREATMENTS[option]}" if option in TREATMENTS else "None indicated"
    return [
        Row("Option", chosen),
        _row("Treatment date", passport.post_harvest_treatment_date, DAY),
        _row("Product used", passport.post_harvest_treatment_product),
    ]


def _mycotoxins(passport: records.CropPassport) -> list[Row]:
    return [
        _row("DON risk assessment result (score)", passport.don_risk_assessment_result),
        _row("DON test date", passport.don_test_date, DAY),
        _row("DON test result", passport.don_test_result),
        _row("ZON test date", passport.zon_test_date, DAY),
        _row("ZON test result", passport.zon_test_result),
    ]


def _row(label: str, value: object, date_format: str = DAY_AND_TIME) -> Row:
    return Row(label, _shown(value, date_format) or NOT_GIVEN)


def _shown(value: object, date_format: str) -> str:
    """The value as the page writes it; "" for none."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        if value.hour == value.minute == 0:
            date_format = DAY  # a date given without a time (as the create form sends them)
        return dateformat.format(value, date_format)  # in the value's own offset
    if isinstance(value, float):
        return f"{value:g}"
    return str(value).strip()
