"""A load's record as a clerk types it, as a row of a site's upload gives it, and as a site's
software sends it: one form reads all three, so that each refuses the same values with the same
words, beside the field (or on the row) that holds them.

The form is made for the crop of the load's passport (its quality parameters) and for its site
(a ticket is recorded once a site); its `figures()` are what portal.intake.loads records.
Every parameter of every crop has a field of its own (an upload's template has a column for
each); a value given for a parameter the crop is not measured for is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.core.validators import RegexValidator
from django.utils import formats, timezone
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.intake import quality
from portal.intake.loads import Bounds, Claim, Figures, latest_figures, specification_now
from portal.intake.models import Decision, IntakeSite, Load
from portal.lib import weights
from portal.lib.forms import Form
from portal.lib.printable import printable, printable_lines
from portal.passports import gate_check
from portal.passports.forms import (
    CHARACTERS_A_CODE,
    AsciiDateTimeField,
    ScoreField,
    WholeNumberField,
)

HEAVIEST_KG = 60_000  # no lorry on a British road weighs more, loaded
OLDEST_DAYS = 366  # a load arrived longer ago than this is a typing error
CLOCKS_APART = timedelta(minutes=10)  # a weighbridge's clock a little ahead of ours
CLAIMS_AT_MOST = 3
HIGHEST_RATE = Decimal("500")  # pounds a tonne
REASON_LONGEST = 500  # a correction's reason, from the form, an upload or the door
WEIGHT = _("Enter the weight in kilograms in the digits 0 to 9, for example 41200 or 41,200.")

TICKET = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9/._-]*$",
    _("A ticket number has letters, digits, and - / . _ between them."),
)


def _claim_field(number: int, part: str) -> str:
    return f"claim_{number}_{part}"


CLAIM_FIELDS = tuple(
    (_claim_field(n, "parameter"), _claim_field(n, "rate"), _claim_field(n, "tonnes"))
    for n in range(1, CLAIMS_AT_MOST + 1)
)


class LoadForm(Form):
    """One load's figures at a site, for a passport of `crop`. `load`, when the figures correct
    a load's: its ticket stays, and is not refused as used."""

    ticket = forms.CharField(label=_("Ticket number"), max_length=40, validators=[TICKET])
    arrival = AsciiDateTimeField(
        label=_("Arrived at"), help_text=_("Date and time, as 2026-09-03 10:15."),
        error_messages={"invalid": _("Enter the date and time in the digits 0 to 9, as "
                                     "2026-09-03 10:15.")},
    )  # fmt: skip
    vehicle = forms.CharField(label=_("Vehicle registration"), max_length=16,
                              help_text=_("As seen on the vehicle."),
                              validators=[printable])  # fmt: skip
    gross_kg = WholeNumberField(label=_("Gross weight (kg)"), min_value=1, max_value=HEAVIEST_KG,
                                thousands=True, error_messages={"invalid": WEIGHT})  # fmt: skip
    tare_kg = WholeNumberField(label=_("Tare weight (kg)"), min_value=1, max_value=HEAVIEST_KG,
                               thousands=True, error_messages={"invalid": WEIGHT})  # fmt: skip
    sample_reference = forms.CharField(label=_("Sample reference"), max_length=40, required=False,
                                       validators=[printable])  # fmt: skip
    sample_kept_days = WholeNumberField(label=_("Sample kept (days)"), min_value=0,
                                        max_value=3650, required=False)  # fmt: skip
    decision = forms.ChoiceField(label=_("Decision"), choices=Decision.choices)
    reasons = forms.MultipleChoiceField(
        label=_("Reasons"), choices=quality.REASONS, required=False,
        help_text=_("Why the load was redirected, rejected or claimed on."),
    )  # fmt: skip

    def __init__(
        self,
        *args: Any,
        site: IntakeSite,
        crop: str,
        loaded: datetime | None = None,
        load: Load | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.site, self.crop, self.loaded, self.load = site, crop, loaded, load
        self.parameters = quality.parameters_of(crop)
        for parameter in quality.ALL_PARAMETERS:
            self.fields[parameter.key] = _result_field(parameter)
        choices = [("", "—")] + [(p.key, p.label) for p in self.parameters]
        self._name_the_codes()
        for number, (name, rate, tonnes) in enumerate(CLAIM_FIELDS, start=1):
            said = {"number": number}
            self.fields[name] = forms.ChoiceField(label=gettext("Claim %(number)s: on") % said,
                                                  required=False, choices=choices)  # fmt: skip
            self.fields[name].error_messages["invalid_choice"] = _one_of(
                gettext("Not a parameter of this crop: send one of %(codes)s."),
                [parameter.key for parameter in self.parameters],
            )  # fmt: skip
            self.fields[rate] = ScoreField(label=gettext("Claim %(number)s: £ a tonne") % said,
                                           required=False, min_value=Decimal("0.01"),
                                           max_value=HIGHEST_RATE, decimal_places=2)  # fmt: skip
            self.fields[tonnes] = ScoreField(
                label=gettext("Claim %(number)s: tonnes") % said, required=False,
                min_value=Decimal("0.001"), decimal_places=3,
                help_text=gettext("Blank: the load's net tonnes."),
            )  # fmt: skip
        if load is not None:
            self.fields["ticket"].disabled = True
            self.initial.setdefault("ticket", load.ticket)

    def _name_the_codes(self) -> None:
        """A decision or reason that is not one says which codes are (a site's software's
        record, an upload's row); on the page, a person chooses among them."""
        self.fields["decision"].error_messages["invalid_choice"] = _one_of(
            gettext("Not a decision: send one of %(codes)s."), Decision.values
        )
        self.fields["reasons"].error_messages["invalid_choice"] = _one_of(
            gettext("Not one of the reasons: send any of %(codes)s."),
            [code for code, _label in quality.REASONS],
        )

    # --- what the page shows -----------------------------------------------------------------

    @property
    def result_fields(self) -> list[forms.BoundField]:
        """The fields of the crop's quality results, in its table's order."""
        return [self[p.key] for p in self.parameters]

    @property
    def claim_rows(self) -> list[list[forms.BoundField]]:
        return [[self[name] for name in names] for names in CLAIM_FIELDS]

    # --- checks ------------------------------------------------------------------------------

    def clean_ticket(self) -> str:
        ticket = self.cleaned_data["ticket"].strip()
        if self.load is None and Load.objects.filter(site=self.site, ticket=ticket).exists():
            raise forms.ValidationError(
                gettext("Ticket %(ticket)s is recorded at %(site)s already: correct that load "
                        "instead.") % {"ticket": ticket, "site": self.site}
            )  # fmt: skip
        return ticket

    def clean_arrival(self) -> datetime:
        arrival = self.cleaned_data["arrival"]
        now = timezone.now()
        if arrival > now + CLOCKS_APART:
            raise forms.ValidationError(gettext("A load cannot arrive later than now."))
        if arrival < now - timedelta(days=OLDEST_DAYS):
            raise forms.ValidationError(
                gettext("A load recorded here arrived within the last year.")
            )
        if self.loaded and timezone.localdate(arrival) < timezone.localdate(self.loaded):
            loaded = formats.date_format(timezone.localdate(self.loaded), "j F Y")
            raise forms.ValidationError(
                gettext("The load arrived before it was loaded (%(loaded)s).") % {"loaded": loaded}
            )
        return arrival

    def clean_vehicle(self) -> str:
        return " ".join(self.cleaned_data["vehicle"].upper().split())

    def clean_claim_2_parameter(self) -> str:
        return self._claimed_once(2)

    def clean_claim_3_parameter(self) -> str:
        return self._claimed_once(3)

    def _claimed_once(self, number: int) -> str:
        """Claim `number`'s result, refused if an earlier claim is on it: one claim a result."""
        on = self.cleaned_data[_claim_field(number, "parameter")]
        earlier = {self.cleaned_data.get(_claim_field(n, "parameter")) for n in range(1, number)}
        if on and on in earlier:
            raise forms.ValidationError(
                gettext("Another claim is on this result already: make one claim on each result.")
            )
        return on

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        self._check_weights(cleaned)
        self._check_results(cleaned)
        self._check_decision(cleaned)
        self._kept_claims = self._claims(cleaned)
        return cleaned

    def _check_weights(self, cleaned: dict[str, Any]) -> None:
        gross, tare = cleaned.get("gross_kg"), cleaned.get("tare_kg")
        if gross is not None and tare is not None and tare >= gross:
            self.add_error("tare_kg", gettext(
                "The tare weight is the empty vehicle's: it is below the gross weight."
            ))  # fmt: skip

    def _check_results(self, cleaned: dict[str, Any]) -> None:
        measured = {p.key for p in self.parameters}
        for parameter in quality.ALL_PARAMETERS:
            value = cleaned.get(parameter.key)
            if value is None:
                continue
            if parameter.key not in measured:
                self.add_error(parameter.key, self._not_measured(parameter))
            elif refusal := parameter.refusal(value):
                self.add_error(parameter.key, refusal)

    def _claims(self, cleaned: dict[str, Any]) -> list[Claim]:
        """The claims given, each checked beside its fields; tonnes left blank stay blank (the
        load's net tonnes, whatever a correction makes them)."""
        claims = []
        for name, rate, tonnes in self._given_claims(cleaned):
            on, pounds, weight = cleaned.get(name), cleaned.get(rate), cleaned.get(tonnes)
            if any(part in self.errors for part in (name, rate, tonnes)):
                continue  # said already, beside its field
            if not on:
                self.add_error(name, gettext("Say which result the claim is on."))
            elif pounds is None:
                self.add_error(rate, gettext("Say the claim's rate in pounds a tonne."))
            elif weight is not None and (net := self._net_tonnes(cleaned)) and weight > net:
                self.add_error(tonnes, gettext(
                    "A claim is on at most the load's %(tonnes)s tonnes."
                ) % {"tonnes": weights.tonnes(net)})  # fmt: skip
            else:
                claims.append(Claim(on, pounds, weight))
        return claims

    def _given_claims(self, cleaned: dict[str, Any]) -> list[tuple[str, str, str]]:
        """The claims' fields of each claim with any part given (refused or not)."""
        return [
            names for names in CLAIM_FIELDS
            if any(cleaned.get(part) not in (None, "") or part in self.errors for part in names)
        ]  # fmt: skip

    def _check_decision(self, cleaned: dict[str, Any]) -> None:
        decision, claimed = cleaned.get("decision"), bool(self._given_claims(cleaned))
        if decision == Decision.CLAIM and not claimed:
            self.add_error(
                "claim_1_parameter", gettext("A load accepted with a claim has at least one claim.")
            )
        if decision and decision != Decision.CLAIM and claimed:
            self.add_error(
                "decision", gettext("Claims are made on a load accepted with a claim only.")
            )
        if decision in (Decision.REDIRECTED, Decision.REJECTED) and not cleaned.get("reasons"):
            self.add_error("reasons", gettext("Say why the load was redirected or rejected."))

    @staticmethod
    def _net_tonnes(cleaned: dict[str, Any]) -> Decimal | None:
        gross, tare = cleaned.get("gross_kg"), cleaned.get("tare_kg")
        if gross is None or tare is None or tare >= gross:
            return None
        return Decimal(gross - tare) / 1000

    def _not_measured(self, parameter: quality.Parameter) -> str:
        """Why a result of `parameter` is refused for the load's crop."""
        said = {"parameter": parameter.label, "crop": self.crop.lower()}
        if self.crop:
            return gettext("%(parameter)s is not measured for %(crop)s.") % said
        return gettext("%(parameter)s is not measured for this crop.") % said

    # --- the record ------------------------------------------------------------------------

    def figures(self) -> Figures:
        """The load's figures, once the form is valid."""
        data = self.cleaned_data
        results = {p.key: data[p.key] for p in self.parameters if data.get(p.key) is not None}
        return Figures(
            arrival=data["arrival"], vehicle=data["vehicle"], gross_kg=data["gross_kg"],
            tare_kg=data["tare_kg"], decision=Decision(data["decision"]),
            sample_reference=data["sample_reference"], sample_kept_days=data["sample_kept_days"],
            results=results, reasons=tuple(data["reasons"]), claims=tuple(self._kept_claims),
        )  # fmt: skip


def initial_of(figures: Figures) -> dict[str, object]:
    """A form's initial values from a load's figures, to correct them."""
    initial: dict[str, object] = {
        "arrival": timezone.localtime(figures.arrival).strftime("%Y-%m-%d %H:%M"),
        "vehicle": figures.vehicle, "gross_kg": figures.gross_kg, "tare_kg": figures.tare_kg,
        "sample_reference": figures.sample_reference,
        "sample_kept_days": figures.sample_kept_days, "decision": str(figures.decision),
        "reasons": list(figures.reasons), **figures.results,
    }  # fmt: skip
    for claim, (name, rate, tonnes) in zip(figures.claims, CLAIM_FIELDS, strict=False):
        initial |= {name: claim.parameter, rate: claim.rate, tonnes: claim.tonnes}  # None: blank
    return initial


def _result_field(parameter: quality.Parameter) -> forms.DecimalField:
    return ScoreField(label=_labelled(parameter), required=False, max_digits=7,
                      decimal_places=2)  # fmt: skip


def _label_of(parameter: quality.Parameter) -> str:
    return f"{parameter.label} ({parameter.unit})"


# A result's label in the language of whoever reads it: "Moisture (%)", "Lleithder (%)".
_labelled = lazy(_label_of, str)


# --- the clerks' pages ------------------------------------------------------------------------


class CodeForm(Form):
    """A passport's short code, typed, or scanned from its QR code (which holds its signed
    address, or on an older passport its look-up address): read as the gate check reads
    each code of its list."""

    code = forms.CharField(
        label=_("Short code"), max_length=CHARACTERS_A_CODE, validators=[printable],
        help_text=_("As printed on the passport, with or without its hyphen, or scan its QR "
                    "code."),
        error_messages={"required": _("Enter the passport's short code.")},
    )  # fmt: skip

    def clean_code(self) -> str:
        entries = gate_check.listed(self.cleaned_data["code"])
        if len(entries) != 1 or entries[0].short_code is None:
            raise forms.ValidationError(gate_check.NOTES[gate_check.State.MALFORMED])
        return entries[0].short_code


class ClerkLoadForm(LoadForm):
    """The load's form as a clerk fills it in, on a phone too: the decision and its reasons as
    options to tick, and each number typed on the keypad; its fields grouped as the
    weighbridge and the laboratory give them, each result with the site's specification
    beside it. A load accepted with a result out of the specification is not refused: the
    clerk is warned, and ticks "Accepted all the same" to record it so."""

    WEIGHBRIDGE = ("ticket", "arrival", "vehicle", "gross_kg", "tare_kg")
    SAMPLE = ("sample_reference", "sample_kept_days")

    accepted_all_the_same = forms.BooleanField(
        label=_("Accepted all the same"), required=False,
        help_text=_("Tick to record the load as accepted with a result out of specification."),
    )  # fmt: skip

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        decision, reasons = self.fields["decision"], self.fields["reasons"]
        decision.widget = forms.RadioSelect(choices=decision.choices)
        reasons.widget = forms.CheckboxSelectMultiple(choices=reasons.choices)
        for name, field in self.fields.items():
            if isinstance(field, WholeNumberField | ScoreField):
                keypad = "numeric" if isinstance(field, WholeNumberField) else "decimal"
                field.widget = forms.TextInput(attrs={"inputmode": keypad, "autocomplete": "off"})
            elif name in ("ticket", "vehicle", "sample_reference"):
                field.widget.attrs.update(autocapitalize="characters", autocomplete="off",
                                          spellcheck="false")  # fmt: skip
        self.specification = specification_now(self.site, self.crop)
        self._show_specification()

    def _show_specification(self) -> None:
        """The site's specification beside each result it has one of: in words, and its bounds
        for the page's script to judge what is typed."""
        for parameter in self.parameters:
            if bounds := self.specification.get(parameter.key):
                field = self.fields[parameter.key]
                field.help_text = gettext("The site's specification: %(bounds)s.") % {
                    "bounds": bounds.in_words(parameter.unit)
                }
                field.widget.attrs.update(_bounds_attributes(bounds))

    @property
    def weighbridge_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.WEIGHBRIDGE]

    @property
    def asks_to_accept_all_the_same(self) -> bool:
        """Whether the form shows "Accepted all the same": once it warned, or was ticked."""
        return "accepted_all_the_same" in self.errors or bool(
            self.is_bound and self.data.get("accepted_all_the_same")
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        accepted = cleaned.get("decision") == Decision.ACCEPTED
        outside = self._outside_specification(cleaned) if accepted else []
        if outside and not cleaned.get("accepted_all_the_same"):
            self.add_error("accepted_all_the_same", gettext(
                "Out of the site's specification: %(outside)s. Tick \"Accepted all the same\" "
                "to record the load as accepted, or choose another decision."
            ) % {"outside": "; ".join(outside)})  # fmt: skip
        return cleaned

    def _outside_specification(self, cleaned: dict[str, Any]) -> list[str]:
        """Each result given that is out of the site's specification, in words."""
        outside = []
        for parameter in self.parameters:
            value, bounds = cleaned.get(parameter.key), self.specification.get(parameter.key)
            if value is not None and bounds is not None and not bounds.holds(value):
                outside.append(f"{parameter.label} {value} {parameter.unit} "
                               f"({bounds.in_words(parameter.unit)})")  # fmt: skip
        return outside

    @property
    def sample_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.SAMPLE]


def _bounds_attributes(bounds: Bounds) -> dict[str, str]:
    """A specification's bounds on its field, for the page's script to judge what is typed."""
    sides = (("data-lowest", bounds.lowest), ("data-highest", bounds.highest))
    return {
        **{name: format(bound, "f") for name, bound in sides if bound is not None},
        "data-within": gettext("Within the site's specification."),
        "data-outside": gettext("Out of the site's specification."),
    }


# A correction's reason, as the correction form, an upload's row and the door read it.
REASON = forms.CharField(
    label=_("Why the record is corrected"), max_length=REASON_LONGEST,
    widget=forms.Textarea(attrs={"rows": 3}),
    help_text=lazy(lambda: gettext(
        "The grower sees this in the load's history. At most %(most)s characters."
    ) % {"most": REASON_LONGEST}, str)(),
    validators=[printable_lines],
    error_messages={
        "required": _("Say why the record is corrected."),
        "max_length": lazy(lambda: gettext("Say why in at most %(most)s characters.")
                           % {"most": REASON_LONGEST}, str)(),
    },
)  # fmt: skip


def reason_refusals(reason: str) -> list[str]:
    """Why a correction's reason (given) is refused, in the form's words; none if it is not."""
    try:
        REASON.clean(reason)
    except forms.ValidationError as error:
        return error.messages
    return []


class CorrectionForm(ClerkLoadForm):
    """A load's figures corrected, with the reason (the grower reads it in the history). A
    correction changes at least one figure: the same form sent twice adds one entry."""

    reason = REASON

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        comparable = self.load is not None and not self.errors
        if comparable and self.figures() == latest_figures(self.load):
            raise forms.ValidationError(
                gettext("Nothing was changed: a correction changes at least one of the figures.")
            )
        return cleaned


def _one_of(message: str, codes: Iterable[str]) -> str:
    """An invalid choice's message, with the codes to send in it. It does not quote the value
    sent, which may hold any character (a site's software's, an upload's)."""
    return message % {"codes": ", ".join(codes)}
