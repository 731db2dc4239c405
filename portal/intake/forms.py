"""A load's record as a clerk types it, as a row of a site's upload gives it, and as a site's
software sends it: one form reads all three, so that each refuses the same values with the same
words, beside the field (or on the row) that holds them.

The form is made for the crop of the load's passport (its quality parameters) and for its site
(a ticket is recorded once a site); its `figures()` are what portal.intake.loads records.
Every parameter of every crop has a field of its own (an upload's template has a column for
each); a value given for a parameter the crop is not measured for is refused.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.core.validators import RegexValidator
from django.utils import timezone

from portal.intake import quality
from portal.intake.loads import Claim, Figures, latest_figures
from portal.intake.models import Decision, IntakeSite, Load
from portal.lib import weights
from portal.passports import intake
from portal.passports.forms import CHARACTERS_A_CODE, ScoreField, WholeNumberField

HEAVIEST_KG = 60_000  # no lorry on a British road weighs more, loaded
OLDEST_DAYS = 366  # a load arrived longer ago than this is a typing error
CLOCKS_APART = timedelta(minutes=10)  # a weighbridge's clock a little ahead of ours
CLAIMS_AT_MOST = 3
HIGHEST_RATE = Decimal("500")  # pounds a tonne

TICKET = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9/._-]*$",
    "A ticket number has letters, digits, and - / . _ between them.",
)


def _claim_field(number: int, part: str) -> str:
    return f"claim_{number}_{part}"


CLAIM_FIELDS = tuple(
    (_claim_field(n, "parameter"), _claim_field(n, "rate"), _claim_field(n, "tonnes"))
    for n in range(1, CLAIMS_AT_MOST + 1)
)


class LoadForm(forms.Form):
    """One load's figures at a site, for a passport of `crop`. `load`, when the figures correct
    a load's: its ticket stays, and is not refused as used."""

    ticket = forms.CharField(label="Ticket number", max_length=40, validators=[TICKET])
    arrival = forms.DateTimeField(
        label="Arrived at", help_text="Date and time, as 2026-09-03 10:15."
    )
    vehicle = forms.CharField(label="Vehicle registration", max_length=16,
                              help_text="As seen on the vehicle.")  # fmt: skip
    gross_kg = WholeNumberField(label="Gross weight (kg)", min_value=1, max_value=HEAVIEST_KG)
    tare_kg = WholeNumberField(label="Tare weight (kg)", min_value=1, max_value=HEAVIEST_KG)
    sample_reference = forms.CharField(label="Sample reference", max_length=40, required=False)
    sample_kept_days = WholeNumberField(label="Sample kept (days)", min_value=0,
                                        max_value=3650, required=False)  # fmt: skip
    decision = forms.ChoiceField(label="Decision", choices=Decision.choices)
    reasons = forms.MultipleChoiceField(
        label="Reasons", choices=quality.REASONS, required=False,
        help_text="Why the load was redirected, rejected or claimed on.",
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
        for number, (name, rate, tonnes) in enumerate(CLAIM_FIELDS, start=1):
            self.fields[name] = forms.ChoiceField(label=f"Claim {number}: on", required=False,
                                                  choices=choices)  # fmt: skip
            self.fields[rate] = ScoreField(label=f"Claim {number}: £ a tonne", required=False,
                                           min_value=Decimal("0.01"), max_value=HIGHEST_RATE,
                                           decimal_places=2)  # fmt: skip
            self.fields[tonnes] = ScoreField(
                label=f"Claim {number}: tonnes", required=False, min_value=Decimal("0.001"),
                decimal_places=3, help_text="Blank: the load's net tonnes.",
            )  # fmt: skip
        if load is not None:
            self.fields["ticket"].disabled = True
            self.initial.setdefault("ticket", load.ticket)

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
                f"Ticket {ticket} is recorded at {self.site} already: correct that load instead."
            )
        return ticket

    def clean_arrival(self) -> datetime:
        arrival = self.cleaned_data["arrival"]
        now = timezone.now()
        if arrival > now + CLOCKS_APART:
            raise forms.ValidationError("A load cannot arrive later than now.")
        if arrival < now - timedelta(days=OLDEST_DAYS):
            raise forms.ValidationError("A load recorded here arrived within the last year.")
        if self.loaded and timezone.localdate(arrival) < timezone.localdate(self.loaded):
            loaded = timezone.localdate(self.loaded).strftime("%-d %B %Y")
            raise forms.ValidationError(f"The load arrived before it was loaded ({loaded}).")
        return arrival

    def clean_vehicle(self) -> str:
        return " ".join(self.cleaned_data["vehicle"].upper().split())

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        self._check_weights(cleaned)
        self._check_results(cleaned)
        self._check_decision(cleaned, self._claims(cleaned))
        return cleaned

    def _check_weights(self, cleaned: dict[str, Any]) -> None:
        gross, tare = cleaned.get("gross_kg"), cleaned.get("tare_kg")
        if gross is not None and tare is not None and tare >= gross:
            self.add_error(
                "tare_kg", "The tare weight is the empty vehicle's: it is below the gross weight."
            )

    def _check_results(self, cleaned: dict[str, Any]) -> None:
        measured = {p.key for p in self.parameters}
        for parameter in quality.ALL_PARAMETERS:
            value = cleaned.get(parameter.key)
            if value is None:
                continue
            if parameter.key not in measured:
                self.add_error(
                    parameter.key, f"{parameter.label} is not measured for {self._crop}."
                )
            elif refusal := parameter.refusal(value):
                self.add_error(parameter.key, refusal)

    def _claims(self, cleaned: dict[str, Any]) -> list[Claim]:
        claims = []
        for name, rate, tonnes in CLAIM_FIELDS:
            on, pounds, weight = cleaned.get(name), cleaned.get(rate), cleaned.get(tonnes)
            if not on and pounds is None and weight is None:
                continue
            if any(part in self.errors for part in (name, rate, tonnes)):
                continue  # said already, beside its field
            if not on:
                self.add_error(name, "Say which result the claim is on.")
            elif pounds is None:
                self.add_error(rate, "Say the claim's rate in pounds a tonne.")
            else:
                net = self._net_tonnes(cleaned)
                if weight is not None and net is not None and weight > net:
                    self.add_error(
                        tonnes, f"A claim is on at most the load's {weights.tonnes(net)} tonnes."
                    )
                elif weight is not None or net is not None:
                    claims.append(Claim(on, pounds, weight if weight is not None else net))
        return claims

    def _check_decision(self, cleaned: dict[str, Any], claims: list[Claim]) -> None:
        decision = cleaned.get("decision")
        if decision == Decision.CLAIM and not claims and not self._claims_refused():
            self.add_error(
                "claim_1_parameter", "A load accepted with a claim has at least one claim."
            )
        if decision and decision != Decision.CLAIM and claims:
            self.add_error("decision", "Claims are made on a load accepted with a claim only.")
        if decision in (Decision.REDIRECTED, Decision.REJECTED) and not cleaned.get("reasons"):
            self.add_error("reasons", "Say why the load was redirected or rejected.")
        self._kept_claims = claims

    def _claims_refused(self) -> bool:
        return any(name in self.errors for names in CLAIM_FIELDS for name in names)

    @staticmethod
    def _net_tonnes(cleaned: dict[str, Any]) -> Decimal | None:
        gross, tare = cleaned.get("gross_kg"), cleaned.get("tare_kg")
        if gross is None or tare is None or tare >= gross:
            return None
        return Decimal(gross - tare) / 1000

    @property
    def _crop(self) -> str:
        return self.crop.lower() or "this crop"

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
        initial |= {name: claim.parameter, rate: claim.rate, tonnes: claim.tonnes}
    return initial


def _result_field(parameter: quality.Parameter) -> forms.DecimalField:
    return ScoreField(label=f"{parameter.label} ({parameter.unit})", required=False,
                      max_digits=7, decimal_places=2)  # fmt: skip


# --- the clerks' pages ------------------------------------------------------------------------


class CodeForm(forms.Form):
    """A passport's short code, typed, or scanned from its QR code (which holds its signed
    address, or on an older passport its look-up address): read as the intake check reads
    each code of its list."""

    code = forms.CharField(
        label="Short code", max_length=CHARACTERS_A_CODE,
        help_text="As printed on the passport, with or without its hyphen, or scan its QR code.",
        error_messages={"required": "Enter the passport's short code."},
    )  # fmt: skip

    def clean_code(self) -> str:
        entries = intake.listed(self.cleaned_data["code"])
        if len(entries) != 1 or entries[0].short_code is None:
            raise forms.ValidationError(intake.NOTES[intake.State.MALFORMED])
        return entries[0].short_code


class ClerkLoadForm(LoadForm):
    """The load's form as a clerk fills it in, on a phone too: the decision and its reasons as
    options to tick, and each number typed on the keypad; its fields grouped as the
    weighbridge and the laboratory give them."""

    WEIGHBRIDGE = ("ticket", "arrival", "vehicle", "gross_kg", "tare_kg")
    SAMPLE = ("sample_reference", "sample_kept_days")

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

    @property
    def weighbridge_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.WEIGHBRIDGE]

    @property
    def sample_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.SAMPLE]


class CorrectionForm(ClerkLoadForm):
    """A load's figures corrected, with the reason (the grower reads it in the history). A
    correction changes at least one figure: the same form sent twice adds one entry."""

    reason = forms.CharField(
        label="Why the record is corrected", max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="The grower sees this in the load's history.",
        error_messages={"required": "Say why the record is corrected."},
    )  # fmt: skip

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        comparable = self.load is not None and not self.errors
        if comparable and self.figures() == latest_figures(self.load):
            raise forms.ValidationError(
                "Nothing was changed: a correction changes at least one of the figures."
            )
        return cleaned
