from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from django import forms
from django.core.validators import RegexValidator

from portal.assurance import codec, records
from portal.assurance.errors import AssuranceError
from portal.passports.lookup import TREATMENTS


class LookUpForm(forms.Form):
    """The short code as typed; passports/code_form.html draws its input for a phone."""

    code = forms.CharField(
        label="Short code",
        help_text="8 to 12 letters and numbers, as on the passport: for example 7KXM4-QHT2W.",
        max_length=40,
        error_messages={
            "required": "Enter the passport's short code.",
            "max_length": "A short code has 8 to 12 letters and numbers: check what you typed.",
        },
    )


def harvest_year_of(day: date) -> str:
    """The harvest a load loaded on `day` most likely comes from: this year's once the harvest
    has begun (July), last year's before."""
    return str(day.year if day.month >= HARVEST_BEGINS else day.year - 1)


HARVEST_BEGINS = 7  # July
CROPS = ("Wheat", "Barley", "Oats", "Oilseed rape", "Beans", "Peas", "Linseed", "Rye")
TREATMENT_CHOICES = [("", "None indicated: leave it to complete by hand")] + [
    (option, f"{option}: {text}") for option, text in TREATMENTS.items()
]
NO_STORE = ("", "None: collected from the site")
FOUR_DIGITS = "Enter the harvest year as four digits, for example 2026."
TEXT = 200  # the longest text the service takes in a field


def _text(label: str, help_text: str = "", **attrs: str) -> forms.CharField:
    return forms.CharField(
        label=label, help_text=help_text, max_length=TEXT, required=False,
        widget=forms.TextInput(attrs=attrs),
        error_messages={"max_length": f"{label} can be at most {TEXT} characters."},
    )  # fmt: skip


def _date(label: str, help_text: str = "") -> forms.DateField:
    return forms.DateField(
        label=label, help_text=help_text, required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"invalid": f"Enter the {label.lower()} as a real date."},
    )  # fmt: skip


class PassportForm(forms.Form):
    """A passport's request fields, grouped as the passport is. The membership, site and store
    are chosen from the user's own (the service's authorisation): each narrows the next."""

    # One key for each form shown: the service is asked once for each (views/create.py).
    submission = forms.CharField(widget=forms.HiddenInput, required=False)
    membership = forms.ChoiceField(
        label="Membership", widget=forms.RadioSelect,
        error_messages={
            "required": "Choose the membership this load is assured under.",
            "invalid_choice": "Choose one of your memberships whose assurance claim is valid now.",
        },
    )  # fmt: skip
    site = forms.ChoiceField(
        label="Site", widget=forms.RadioSelect,
        help_text="Its address becomes the passport's collection address.",
        error_messages={
            "required": "Choose the site the load is collected from.",
            "invalid_choice": "Choose one of this membership's sites.",
        },
    )  # fmt: skip
    store = forms.ChoiceField(
        label="Grain store", required=False,
        error_messages={"invalid_choice": "Choose one of this site's grain stores, or none."},
    )  # fmt: skip

    # Section 1: the load
    crop_type = _text("Crop", "For example wheat or oilseed rape.", list="crops")
    variety = _text("Variety")
    store_or_bin_name = _text("Store or bin", "The store or bin the load comes out of.")
    loading_date = _date("Loading date")
    harvest_year = forms.CharField(
        label="Harvest year", max_length=4, required=False,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
        validators=[RegexValidator(r"^\d{4}$", FOUR_DIGITS)],
        error_messages={"max_length": FOUR_DIGITS},
    )  # fmt: skip
    haulier_company_name = _text("Haulier", "The haulage company collecting the load.")
    vehicle_registration = _text("Vehicle registration", autocapitalize="characters")
    trailer_number = _text("Trailer number")
    haulier_collection_ticket_no = _text("Collection ticket number", "As given by the haulier.")

    # Section 4: post-harvest treatment
    post_harvest_treatment_option = forms.ChoiceField(
        label="Which applies to this load?", choices=TREATMENT_CHOICES, required=False,
        widget=forms.RadioSelect,
    )  # fmt: skip
    post_harvest_treatment_date = _date("Treatment date")
    post_harvest_treatment_product = _text("Product used")

    # Section 5: mycotoxin risk
    don_risk_assessment_result = forms.DecimalField(
        label="DON risk score", required=False, min_value=0, max_digits=8, decimal_places=2,
        help_text="The score of the deoxynivalenol (DON) risk assessment.",
        widget=forms.NumberInput(attrs={"inputmode": "decimal", "step": "any"}),
        error_messages={
            "invalid": "Enter the DON risk score as a number, for example 12.",
            "min_value": "The DON risk score cannot be below 0.",
            "max_digits": "Enter the DON risk score as a shorter number.",
            "max_decimal_places": "Give the DON risk score to at most two decimal places.",
            "max_whole_digits": "Enter the DON risk score as a shorter number.",
        },
    )  # fmt: skip
    don_test_date = _date("DON test date")
    don_test_result = _text("DON test result", "For example “below 200 ppb”.")
    zon_test_date = _date("ZON test date")
    zon_test_result = _text("ZON test result", "For example “below 50 ppb”.")

    LOAD = ("crop_type", "variety", "store_or_bin_name", "loading_date", "harvest_year",
            "haulier_company_name", "vehicle_registration", "trailer_number",
            "haulier_collection_ticket_no")  # fmt: skip
    TREATMENT = ("post_harvest_treatment_date", "post_harvest_treatment_product")
    MYCOTOXINS = ("don_risk_assessment_result", "don_test_date", "don_test_result",
                  "zon_test_date", "zon_test_result")  # fmt: skip

    def __init__(self, *args: Any, memberships: list[records.Membership], **kwargs: Any) -> None:
        super().__init__(*args, label_suffix="", **kwargs)
        self.memberships = memberships
        # A passport can be made for a membership whose claim the service says is valid now: a
        # certificate in its grace period, past its expiry, still counts.
        usable = [m for m in memberships if m.is_valid]
        self.fields["membership"].choices = [(m.membership_guid, m.business_name) for m in usable]
        self.chosen_membership = _by_guid(usable, "membership_guid", self._value("membership"))
        if self.chosen_membership is None and len(usable) == 1:
            self.chosen_membership = usable[0]
            self.initial.setdefault("membership", usable[0].membership_guid)
        sites = self.sites
        self.fields["site"].choices = [(s.site_guid, s.site_name or s.address) for s in sites]
        self.chosen_site = _by_guid(sites, "site_guid", self._value("site"))
        if self.chosen_site is None and len(sites) == 1:
            self.chosen_site = sites[0]
            self.initial.setdefault("site", sites[0].site_guid)
        stores = self.chosen_site.stores if self.chosen_site else []
        self.fields["store"].choices = [NO_STORE] + [(s.store_guid, s.store_name) for s in stores]

    def _value(self, name: str) -> str | None:
        """What the user chose for `name` so far: the data sent, or the form's starting value."""
        if self.is_bound:
            return self.data.get(name)
        return self.initial.get(name)

    @property
    def sites(self) -> list[records.Site]:
        return self.chosen_membership.sites if self.chosen_membership else []

    def clean_submission(self) -> uuid.UUID:
        """The form's key; a new one for a form that came without a readable key."""
        try:
            return uuid.UUID(self.cleaned_data["submission"])
        except ValueError:
            return uuid.uuid4()

    def membership_options(self) -> list[Option]:
        chosen = self.chosen_membership
        return [Option(m, m.is_valid, m is chosen) for m in self.memberships]

    def site_options(self) -> list[Option]:
        return [Option(s, True, s is self.chosen_site) for s in self.sites]

    @property
    def can_create(self) -> bool:
        """Whether any of the user's memberships can have a passport now."""
        return any(m.is_valid for m in self.memberships)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if cleaned.get("post_harvest_treatment_option") == "B":
            for name, what in (("post_harvest_treatment_date", "the date"),
                               ("post_harvest_treatment_product", "the product")):  # fmt: skip
                if not cleaned.get(name) and name not in self.errors:
                    self.add_error(name, f"Option B is a treatment: give {what} it was treated.")
        return cleaned

    def passport_request(self) -> records.PassportRequest:
        """The service's request for what the form holds (valid)."""
        data = self.cleaned_data
        score = data["don_risk_assessment_result"]
        return records.PassportRequest(
            membership_guid=data["membership"],
            site_guid=data["site"],
            store_guid=data["store"] or None,
            **{name: data[name] or None for name in TEXT_FIELDS},
            **{name: _wire_date(data[name]) for name in DATE_FIELDS},
            post_harvest_treatment_option=data["post_harvest_treatment_option"] or None,
            don_risk_assessment_result=float(score) if score is not None else None,
        )

    def add_service_errors(self, error: AssuranceError) -> None:
        """The service's `DataError:<field>:<rule>`s, each beside the field it names."""
        for wire_name, messages in error.field_errors.items():
            field = FIELD_OF_WIRE_NAME.get(wire_name.lower())
            for message in messages:
                self.add_error(field if field in self.fields else None, message)


TEXT_FIELDS = ("crop_type", "variety", "store_or_bin_name", "harvest_year",
               "haulier_company_name", "vehicle_registration", "trailer_number",
               "haulier_collection_ticket_no", "post_harvest_treatment_product",
               "don_test_result", "zon_test_result")  # fmt: skip
DATE_FIELDS = ("loading_date", "post_harvest_treatment_date", "don_test_date", "zon_test_date")
# The service names fields as the interface does (`LoadingDate`); the form by the record's own.
FIELD_OF_WIRE_NAME = {
    wire.lower(): ({"membership_guid": "membership", "site_guid": "site", "store_guid": "store"}
                   .get(attribute, attribute))
    for attribute, wire in codec.wire_names(records.PassportRequest)
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Option:
    """A membership or site as the form offers it: whether it can be chosen, and is."""

    record: Any
    usable: bool
    checked: bool


def _by_guid[T](items: list[T], attribute: str, guid: str | None) -> T | None:
    return next((item for item in items if guid and getattr(item, attribute) == guid), None)


def _wire_date(day: date | None) -> datetime | None:
    """A date the user gave, as the service's date/time: that day at midnight UTC."""
    return datetime.combine(day, time(0), tzinfo=UTC) if day else None
