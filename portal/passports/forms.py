from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator, RegexValidator
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import Promise, lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext, ngettext, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from portal.assurance import codec, records
from portal.assurance.errors import AssuranceError
from portal.assurance.passport_fields import (
    FIELDS,
    LOAD,
    MYCOTOXINS,
    PASSPORT_FIELDS,
    TREATMENT,
    TREATMENT_OPTIONS,
    Kind,
    day_written,
    requested,
)
from portal.lib.forms import Form
from portal.lib.numbers import plain_number
from portal.lib.printable import printable
from portal.passports import codes, gate_check, listing


class LookUpForm(Form):
    """The short code as typed; passports/code_form.html draws its input for a phone."""

    code = forms.CharField(
        label=_("Short code"),
        help_text=_("8 to 12 letters and numbers, as on the passport: for example 7KXM4-QHT2W."),
        max_length=40,
        validators=[printable],
        error_messages={
            "required": _("Enter the passport's short code."),
            "max_length": _("A short code has 8 to 12 letters and numbers: check what you typed."),
        },
    )


class GateCheckForm(Form):
    """A list of short codes to check at once (`/p/check`), as gate_check.listed reads it: at most
    PORTAL_INTAKE_LIMIT entries, each counted once. Its page draws the text area itself."""

    codes = forms.CharField(
        label=_("Short codes"),
        widget=forms.Textarea,
        error_messages={"required": _("Enter the short codes to check, one a line.")},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limit = settings.PORTAL_INTAKE_LIMIT
        self.fields["codes"].help_text = ngettext_lazy(
            "Up to %(limit)s code, as printed on the passports (for example 7KXM4-QHT2W): "
            "one a line, or separated by spaces or commas.",
            "Up to %(limit)s codes, as printed on the passports (for example 7KXM4-QHT2W): "
            "one a line, or separated by spaces or commas.",
            "limit",
        ) % {"limit": self.limit}

    def clean_codes(self) -> list[gate_check.Entry]:
        text = self.cleaned_data["codes"]
        if len(text) > self.limit * CHARACTERS_A_CODE:
            raise forms.ValidationError(
                ngettext(
                    "That is more text than %(limit)s code takes: check at most %(limit)s code "
                    "at once, one a line.",
                    "That is more text than %(limit)s codes take: check at most %(limit)s "
                    "codes at once, one a line.",
                    self.limit,
                )
                % {"limit": self.limit}
            )
        entries = gate_check.listed(text)
        if not entries:
            raise forms.ValidationError(_("Enter the short codes to check, one a line."))
        if len(entries) > self.limit:
            raise forms.ValidationError(
                ngettext(
                    "That is %(count)s code: at most %(limit)s can be checked at once. Check "
                    "the first %(limit)s, then the rest.",
                    "That is %(count)s codes: at most %(limit)s can be checked at once. Check "
                    "the first %(limit)s, then the rest.",
                    len(entries),
                )
                % {"count": len(entries), "limit": self.limit}
            )
        return entries


# Room enough for each code as a passport's signed address (what a scanner reading QR codes
# types): at most 352 characters (portal.passports.signing.QR_CAPACITY).
CHARACTERS_A_CODE = 400


def harvest_year_of(day: date) -> str:
    """The harvest a load loaded on `day` most likely comes from: this year's once the harvest
    has begun (July), last year's before."""
    return str(day.year if day.month >= HARVEST_BEGINS else day.year - 1)


HARVEST_BEGINS = 7  # July
# The crops offered as the crop type is typed: values, as the service keeps them (in English).
CROPS = ("Wheat", "Barley", "Oats", "Oilseed rape", "Beans", "Peas", "Linseed", "Rye")
TREATMENT_CHOICES = [("", _("None indicated: leave it to complete by hand"))] + [
    (option, format_lazy("{}: {}", option, text)) for option, text in TREATMENT_OPTIONS.items()
]
NO_STORE = ("", _("None: collected from the site"))
FOUR_DIGITS = _("Enter the harvest year as four digits, for example 2026.")
TEXT = 200  # the longest text the service takes in a field
# What a load can have (the service takes any): a harvest from 2000 to next year's, and dates
# from the first of those harvests to a year from today. A date or year outside is a slip of
# the keyboard, and a spreadsheet of the passports could not show it.
FIRST_HARVEST = 2000
AHEAD = timedelta(days=365)


def harvest_years() -> range:
    """The harvest years a load can be of, today."""
    return range(FIRST_HARVEST, timezone.localdate().year + 2)


def passport_dates() -> tuple[date, date]:
    """The first and last dates a passport can give, today."""
    return date(FIRST_HARVEST, 1, 1), timezone.localdate() + AHEAD


def _label(name: str) -> str | Promise:
    """The field's label, as the paper passport prints it."""
    return FIELDS[name].label


def _too_long(label: str | Promise) -> str:
    return gettext("%(label)s can be at most %(limit)s characters.") % {
        "label": label, "limit": TEXT,
    }  # fmt: skip


def _text(name: str, help_text: str | Promise = "", **attrs: str) -> forms.CharField:
    label = _label(name)
    return forms.CharField(
        label=label, help_text=help_text, max_length=TEXT, required=False,
        widget=forms.TextInput(attrs=attrs), validators=[printable],
        error_messages={"max_length": lazy(_too_long, str)(label)},
    )  # fmt: skip


# Each date's errors, whole sentences: (not a date, outside the dates a load can have).
DATE_ERRORS = {
    "loading_date": (
        _("Enter the loading date as a real date."),
        _("Enter a loading date between %(first)s and %(last)s: no load can have another."),
    ),
    "post_harvest_treatment_date": (
        _("Enter the treatment date as a real date."),
        _("Enter a treatment date between %(first)s and %(last)s: no load can have another."),
    ),
    "don_test_date": (
        _("Enter the DON test date as a real date."),
        _("Enter a DON test date between %(first)s and %(last)s: no load can have another."),
    ),
    "zon_test_date": (
        _("Enter the ZON test date as a real date."),
        _("Enter a ZON test date between %(first)s and %(last)s: no load can have another."),
    ),
}


def _date(name: str, help_text: str = "") -> forms.DateField:
    invalid, outside = DATE_ERRORS[name]
    return AsciiDateField(
        label=_label(name), help_text=help_text, required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        validators=[_within_passport_dates(outside)],
        error_messages={"invalid": invalid},
    )  # fmt: skip


def _within_passport_dates(outside: str | Promise) -> Callable[[date], None]:
    def check(day: date) -> None:
        first, last = passport_dates()
        if not first <= day <= last:
            raise forms.ValidationError(
                str(outside) % {"first": day_written(first), "last": day_written(last)}
            )

    return check


class _PlainNumber:
    """A number by the portal's one rule (portal.lib.numbers.plain_number): Django reads others
    too (١٢ as 12, 1E1, 40_000), which is not what the service, the PDF or a spreadsheet of the
    passports would show. `thousands`: a weight, which may be written as the portal shows it
    (41,200)."""

    error_messages: dict[str, str | Promise]

    def __init__(self, *args: Any, thousands: bool = False, **kwargs: Any) -> None:
        self.thousands = thousands
        super().__init__(*args, **kwargs)

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and value.strip():
            written = plain_number(value, thousands=self.thousands)
            if written is None:
                raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
            value = written
        return super().to_python(value)  # type: ignore[misc]


class WholeNumberField(_PlainNumber, forms.IntegerField):
    default_error_messages = {"invalid": _("Enter a whole number in the digits 0 to 9, for "
                                            "example 12.")}  # fmt: skip


class ScoreField(_PlainNumber, forms.DecimalField):
    default_error_messages = {"invalid": _("Enter a number in the digits 0 to 9, with a decimal "
                                            "point if it has one, for example 14.5.")}  # fmt: skip


class _AsciiOnly:
    """A date or time in ASCII digits only: Django reads the digits of any script."""

    error_messages: dict[str, str | Promise]

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and not value.isascii():
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)  # type: ignore[misc]


class AsciiDateField(_AsciiOnly, forms.DateField):
    pass


class AsciiDateTimeField(_AsciiOnly, forms.DateTimeField):
    pass


class PassportForm(Form):
    """A passport's request fields, grouped as the passport is. The membership, site and store
    are chosen from the user's own (the service's authorisation): each narrows the next."""

    # One key for each form shown: the service is asked once for each (views/create.py).
    submission = forms.CharField(widget=forms.HiddenInput, required=False)
    membership = forms.ChoiceField(
        label=_("Membership"), widget=forms.RadioSelect,
        error_messages={
            "required": _("Choose the membership this load is assured under."),
            "invalid_choice": _(
                "Choose one of your memberships whose assurance claim is valid now."
            ),
        },
    )  # fmt: skip
    site = forms.ChoiceField(
        label=_("Site"), widget=forms.RadioSelect,
        help_text=_("Its address becomes the passport's collection address."),
        error_messages={
            "required": _("Choose the site the load is collected from."),
            "invalid_choice": _("Choose one of this membership's sites."),
        },
    )  # fmt: skip
    store = forms.ChoiceField(
        label=_("Grain store"), required=False,
        error_messages={"invalid_choice": _("Choose one of this site's grain stores, or none.")},
    )  # fmt: skip

    # Section 1: the load
    crop_type = _text("crop_type", _("For example wheat or oilseed rape."), list="crops")
    variety = _text("variety")
    store_or_bin_name = _text("store_or_bin_name", _("The store or bin the load comes out of."))
    loading_date = _date("loading_date")
    harvest_year = forms.CharField(
        label=_label("harvest_year"), max_length=4, required=False,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
        validators=[RegexValidator(r"^[0-9]{4}$", FOUR_DIGITS)],
        error_messages={"max_length": FOUR_DIGITS},
    )  # fmt: skip
    haulier_company_name = _text("haulier_company_name",
                                 _("The haulage company collecting the load."))  # fmt: skip
    vehicle_registration = _text("vehicle_registration", autocapitalize="characters")
    trailer_number = _text("trailer_number")
    haulier_collection_ticket_no = _text("haulier_collection_ticket_no",
                                         _("As given by the haulier."))  # fmt: skip

    # Section 4: post-harvest treatment
    post_harvest_treatment_option = forms.ChoiceField(
        label=_label("post_harvest_treatment_option"), choices=TREATMENT_CHOICES,
        required=False, widget=forms.RadioSelect, help_text=_("Tick one."),
    )  # fmt: skip
    post_harvest_treatment_date = _date("post_harvest_treatment_date")
    post_harvest_treatment_product = _text("post_harvest_treatment_product")

    # Section 5: mycotoxin risk
    don_risk_assessment_result = ScoreField(
        label=_label("don_risk_assessment_result"), required=False, min_value=0, max_digits=8,
        decimal_places=2,
        help_text=_("The score of the deoxynivalenol (DON) risk assessment."),
        widget=forms.NumberInput(attrs={"inputmode": "decimal", "step": "any"}),
        error_messages={
            "invalid": _("Enter the DON risk score as a number, for example 12."),
            "min_value": _("The DON risk score cannot be below 0."),
            "max_digits": _("Enter the DON risk score as a shorter number."),
            "max_decimal_places": _("Give the DON risk score to at most two decimal places."),
            "max_whole_digits": _("Enter the DON risk score as a shorter number."),
        },
    )  # fmt: skip
    don_test_date = _date("don_test_date")
    don_test_result = _text("don_test_result", _("For example “below 200 ppb”."))
    zon_test_date = _date("zon_test_date")
    zon_test_result = _text("zon_test_result", _("For example “below 50 ppb”."))

    # How many identical passports the form makes: more than one is a batch, made by a job.
    loads = WholeNumberField(
        label=_("How many loads"), initial=1, min_value=1, required=False,
        help_text=_("One passport is made for each load, all with the details above, each with a "
                    "short code of its own."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )  # fmt: skip

    LOAD = tuple(field.name for field in requested(LOAD))
    TREATMENT = tuple(field.name for field in requested(TREATMENT) if field.kind != Kind.TREATMENT)
    MYCOTOXINS = tuple(field.name for field in requested(MYCOTOXINS))

    def __init__(self, *args: Any, memberships: list[records.Membership], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limit_loads(settings.PORTAL_BATCH_LIMIT)
        self._limit_dates(*passport_dates())
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

    def _limit_dates(self, first: date, last: date) -> None:
        """The browser's date pickers offer the dates a passport can give, and no other."""
        for name in DATE_FIELDS:
            self.fields[name].widget.attrs.update(min=first.isoformat(), max=last.isoformat())

    def _limit_loads(self, limit: int) -> None:
        loads = self.fields["loads"]
        loads.max_value = limit
        loads.validators.append(MaxValueValidator(limit))
        loads.widget.attrs.update(min="1", max=str(limit))
        loads.error_messages.update({
            "invalid": _("Give the number of loads as a whole number, for example 12."),
            "min_value": _("Make at least one passport."),
            "max_value": ngettext_lazy(
                "At most %(limit)s passport can be made at once: make the rest in another batch.",
                "At most %(limit)s passports can be made at once: make the rest in another batch.",
                "limit",
            ) % {"limit": limit},
        })  # fmt: skip

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

    def clean_harvest_year(self) -> str:
        year = self.cleaned_data["harvest_year"]
        years = harvest_years()
        if year and int(year) not in years:
            raise forms.ValidationError(
                _("Enter a harvest year from %(first)s to %(last)s: no load can be of another.")
                % {"first": years[0], "last": years[-1]}
            )
        return year

    def clean_loads(self) -> int:
        """How many passports to make: one for a form that does not say."""
        return self.cleaned_data["loads"] or 1

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
            for name, said in (
                ("post_harvest_treatment_date", _("Option B is a treatment: give the date it was "
                                                  "treated.")),
                ("post_harvest_treatment_product", _("Option B is a treatment: give the product it "
                                                     "was treated.")),
            ):  # fmt: skip
                if not cleaned.get(name) and name not in self.errors:
                    self.add_error(name, str(said))
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


def _requested_of(*kinds: Kind) -> tuple[str, ...]:
    return tuple(f.name for f in PASSPORT_FIELDS if f.requested and f.part and f.kind in kinds)


TEXT_FIELDS = _requested_of(Kind.TEXT, Kind.YEAR)
DATE_FIELDS = _requested_of(Kind.DAY)
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

    @property
    def why(self) -> str:
        """Why a membership cannot be chosen: its claim's status, in a sentence."""
        return why_not_usable(self.record)


# Why no passport can be made for a membership whose claim is not valid, by its status.
NOT_USABLE = {
    "": _("The assurance claim is not valid, so no passport can be made for this membership now."),
    "Suspended": _("The assurance claim is suspended, so no passport can be made for this "
                   "membership now."),
    "Withdrawn": _("The assurance claim is withdrawn, so no passport can be made for this "
                   "membership now."),
}  # fmt: skip


def why_not_usable(membership: records.Membership) -> str:
    """Why no passport can be made for `membership` now, in a sentence."""
    status = membership.status or ""
    if status == "Expired":
        if membership.expiry_date:
            return gettext("The certificate expired on %(day)s, so no passport can be made for "
                           "this membership now.") % {
                "day": date_format(membership.expiry_date, "DATE_FORMAT")
            }  # fmt: skip
        return gettext("The certificate expired, so no passport can be made for this membership "
                       "now.")  # fmt: skip
    if status in NOT_USABLE:
        return str(NOT_USABLE[status])
    return gettext("The assurance claim is %(status)s, so no passport can be made for this "
                   "membership now.") % {"status": status.lower()}  # fmt: skip


def _by_guid[T](items: list[T], attribute: str, guid: str | None) -> T | None:
    return next((item for item in items if guid and getattr(item, attribute) == guid), None)


def _wire_date(day: date | None) -> datetime | None:
    """A date the user gave, as the service's date/time: that day at midnight UTC."""
    return datetime.combine(day, time(0), tzinfo=UTC) if day else None


class PassportFilters(Form):
    """The business's list narrowed: by membership, site, crop, harvest year, loading dates, a
    short code typed in part, and the decision at intake of each passport's latest load (or
    none recorded yet). Offered the user's own memberships and sites, and the crops and
    harvest years of the passports they may see; a value that is none of these, or malformed,
    is said beside its field and leaves the list unfiltered by it."""

    membership = forms.ChoiceField(
        label=_("Membership"), required=False,
        error_messages={"invalid_choice": _("Choose one of your memberships.")},
    )  # fmt: skip
    site = forms.ChoiceField(
        label=_("Site"), required=False,
        error_messages={"invalid_choice": _("Choose one of your sites.")},
    )  # fmt: skip
    crop = forms.CharField(label=_label("crop_type"), required=False, widget=forms.Select,
                           validators=[printable])  # fmt: skip
    year = forms.ChoiceField(
        label=_label("harvest_year"), required=False,
        error_messages={"invalid_choice": _("No passport of yours has that harvest year: choose "
                                            "one listed.")},
    )  # fmt: skip
    loaded_from = AsciiDateField(
        label=_("Loaded from"), required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"invalid": _("Enter the first loading date as a real date.")},
    )  # fmt: skip
    loaded_to = AsciiDateField(
        label=_("Loaded to"), required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"invalid": _("Enter the last loading date as a real date.")},
    )  # fmt: skip
    code = forms.CharField(
        label=_("Short code"), required=False, max_length=20,
        help_text=_("All of it or a part, for example QHT2W."), validators=[printable],
        widget=forms.TextInput(attrs={"autocapitalize": "characters", "autocomplete": "off",
                                      "spellcheck": "false"}),
        error_messages={"max_length": _("A short code has at most 12 letters and numbers.")},
    )  # fmt: skip

    decision = forms.ChoiceField(
        label=_("Intake decision"), required=False,
        error_messages={"invalid_choice": _("Choose one of the decisions listed.")},
    )  # fmt: skip

    NAMES = ("membership", "site", "crop", "year", "loaded_from", "loaded_to", "code", "decision")
    CHOSEN = ("membership", "site", "crop", "year", "decision")
    DAYS = ("loaded_from", "loaded_to")

    def __init__(self, data: Any, *, memberships: list[records.Membership], crops: list[str],
                 years: list[str]) -> None:  # fmt: skip
        super().__init__(data)
        self._offer("membership", _("Every membership"),
                    [(m.membership_guid, m.business_name or m.membership_number)
                     for m in memberships])  # fmt: skip
        self._offer("site", _("Every site"),
                    [(s.site_guid, s.site_name or s.address) for m in memberships
                     for s in m.sites])  # fmt: skip
        self.crops = crops
        self.fields["crop"].widget.choices = [("", _("Every crop"))] + [(c, c) for c in crops]
        self._offer("year", _("Every harvest"), [(year, year) for year in years])
        self._offer("decision", _("Any decision"),
                    [*listing.decisions(), (listing.NO_RESULT, _("No result yet"))])  # fmt: skip

    def _offer(self, name: str, every: str | Promise,
               choices: list[tuple[str | None, str | Promise | None]]) -> None:  # fmt: skip
        """The field's choices, for checking what is sent and for the page's list to draw."""
        offered = [("", every), *((value or "", shown or "") for value, shown in choices)]
        self.fields[name].choices = offered
        self.fields[name].widget.choices = offered

    def clean_crop(self) -> str:
        """One of the crops offered, in whatever case it was given."""
        given = self.cleaned_data["crop"].strip()
        found = next((crop for crop in self.crops if crop.lower() == given.lower()), None)
        if given and found is None:
            raise forms.ValidationError(_("No passport of yours has that crop: choose one listed."))
        return found or ""

    def clean_code(self) -> str:
        """What was typed of a short code, as the codes are kept (upper case), without the
        hyphen or spaces."""
        typed = "".join(self.cleaned_data["code"].split()).upper().replace("-", "")
        if typed and not set(typed) <= set(codes.ALPHABET):
            raise forms.ValidationError(
                _(
                    "A short code has only letters and numbers (no 0, 1, I, L or O): check what "
                    "you typed."
                )
            )
        return typed

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        first, last = cleaned.get("loaded_from"), cleaned.get("loaded_to")
        if first and last and first > last:
            self.add_error("loaded_to", _("The last loading date is before the first."))
        return cleaned

    @property
    def applied(self) -> dict[str, Any]:
        """The filters that narrow the list: those given and valid."""
        if not self.is_bound:
            return {}
        self.is_valid()
        return {name: value for name, value in self.cleaned_data.items()
                if value and name not in self.errors}  # fmt: skip


class AddByCodeForm(Form):
    """The short code of a passport made elsewhere, to add it to the business's list."""

    code = forms.CharField(
        label=_("Short code"), max_length=40, validators=[printable],
        help_text=_("Of a passport made on paper or in another system, for example 7KXM4-QHT2W."),
        widget=forms.TextInput(attrs={"autocapitalize": "characters", "autocomplete": "off",
                                      "spellcheck": "false"}),
        error_messages={
            "required": _("Enter the passport's short code."),
            "max_length": _("A short code has 8 to 12 letters and numbers: check what you typed."),
        },
    )  # fmt: skip

    def clean_code(self) -> str:
        short_code = codes.normalise(self.cleaned_data["code"])
        if short_code is None:
            raise forms.ValidationError(
                _(
                    "A short code has 8 to 12 letters and numbers (no 0, 1, I, L or O): check what "
                    "you typed."
                )
            )
        return short_code
