"""One load's record as an upload's row or a site's software gives it, taken: recorded, corrected
or left alone, or refused with the reason for each value refused, by its column.

Both read a record by the same names: a column of the upload's template, a key of the JSON
(`COLUMNS`): the short code of the passport the load came with, the load's figures as the clerk's
form reads them (portal.intake.forms.LoadForm, which refuses the same values with the same
words), and whether the record corrects the load of its ticket, with the reason.

A record is taken whole or not at all: its load and first entry (or its correction) are written
in one transaction, with whatever the caller keeps of it (`mark`: an upload's note that its row
is done); a refused record writes nothing. A ticket the site has recorded already is left alone
unless the record is a correction, and a correction that changes nothing writes nothing: the
same record sent twice is recorded once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from itertools import chain
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext

from portal.intake import loads, quality, verdicts
from portal.intake.forms import CLAIM_FIELDS, LoadForm, reason_refusals
from portal.intake.models import Decision, IntakeSite, Load
from portal.lib.printable import NOT_PRINTABLE, is_printable
from portal.passports import codes
from portal.passports.models import Passport

SHORT_CODE, CORRECTION, CORRECTION_REASON = "short_code", "correction", "correction_reason"
# The form's own fields, in the order of its page.
FORM_FIELDS = (
    "ticket", "arrival", "vehicle", "gross_kg", "tare_kg", "sample_reference", "sample_kept_days",
    "decision", "reasons", *(parameter.key for parameter in quality.ALL_PARAMETERS),
    *chain.from_iterable(CLAIM_FIELDS),
)  # fmt: skip
COLUMNS = (SHORT_CODE, *FORM_FIELDS, CORRECTION, CORRECTION_REASON)
CLAIM_PARAMETERS = tuple(names[0] for names in CLAIM_FIELDS)
# Fields whose values are checked against the passport's crop: left unchecked while the
# passport is not known (their refusals would say nothing of the record).
CROP_FIELDS = frozenset({parameter.key for parameter in quality.ALL_PARAMETERS} |
                        set(CLAIM_PARAMETERS))  # fmt: skip
# Columns of numbers that may have decimals (a file may write them with a decimal comma).
DECIMALS = frozenset({parameter.key for parameter in quality.ALL_PARAMETERS} |
                     {name for names in CLAIM_FIELDS for name in names[1:]})  # fmt: skip
YES, NO = frozenset({"yes", "y", "true", "1", "x"}), frozenset({"", "no", "n", "false", "0"})
PARAMETER_CHOICES = tuple((p.key, p.label) for p in quality.ALL_PARAMETERS)

type Record = Mapping[str, object]
type Mark = Callable[[Load, Outcome], None]


class Outcome(StrEnum):
    RECORDED = "recorded"
    CORRECTED = "corrected"
    ALREADY = "already recorded"  # the ticket's load was there: left alone
    UNCHANGED = "unchanged"  # a correction to what the load says already
    REFUSED = "refused"


@dataclass(frozen=True)
class Taken:
    """What became of a record: its outcome, what was refused in it (messages by column), its
    load (recorded, corrected or left alone), and the verdict kept with a load recorded now."""

    outcome: Outcome
    errors: dict[str, list[str]] = field(default_factory=dict)
    load: Load | None = None
    verdict: dict | None = None

    @property
    def reasons(self) -> list[str]:
        """Each refusal as "column: message"."""
        return [f"{column}: {message}" for column, messages in self.errors.items()
                for message in messages]  # fmt: skip


@dataclass(frozen=True)
class NewLoad:
    """A record checked, to be recorded: a load of a ticket the site has not recorded."""

    ticket: str
    passport: Passport
    figures: loads.Figures


@dataclass(frozen=True)
class Correction:
    """A record checked, to correct its ticket's load with its reason."""

    load: Load
    figures: loads.Figures
    reason: str


def take(
    site: IntakeSite,
    record: Record,
    *,
    by: str,
    passports: Mapping[str, Passport],
    recorded: dict[str, Load],
    verdict_of: Callable[[str], dict],
    mark: Mark | None = None,
) -> Taken:
    """The record taken at `site` by `by`, in a transaction of its own. `passports`: the
    portal's passports of the records' short codes (`passports_of`); `recorded`: the site's
    loads of their tickets (`recorded_at`), to which a load recorded here is added;
    `verdict_of(short_code)`: the verdict to keep with a load recorded now; `mark(load,
    outcome)`, called in the transaction that records or corrects it."""
    checked = check(site, record, passports=passports, recorded=recorded)
    if isinstance(checked, Taken):
        return checked
    if isinstance(checked, Correction):
        return _corrected(checked.load, checked.figures, by=by, reason=checked.reason, mark=mark)
    return _recorded(site, checked.ticket, checked.passport, checked.figures, by=by,
                     verdict=verdict_of(checked.passport.short_code), recorded=recorded,
                     mark=mark)  # fmt: skip


def check(
    site: IntakeSite, record: Record, *, passports: Mapping[str, Passport],
    recorded: Mapping[str, Load],
) -> Taken | NewLoad | Correction:  # fmt: skip
    """What the record would do, checked and written nowhere: refused (with its errors by
    column), left alone (its ticket recorded already), or a new load or a correction to write.
    A ticket not in `recorded` is taken as not recorded: `record` meets it if it was."""
    errors: dict[str, list[str]] = {}
    correction = _yes(record.get(CORRECTION))
    if correction is None:
        errors[CORRECTION] = [gettext("Say yes for a correction, or leave it blank.")]
    reason = _text(record.get(CORRECTION_REASON))
    ticket = _text(record.get("ticket"))
    load = recorded.get(ticket)
    if load is not None and correction is False:
        return Taken(Outcome.ALREADY, load=load)
    if correction and not reason:
        errors[CORRECTION_REASON] = [gettext("Say why the load is corrected.")]
    elif reason and not correction:
        errors[CORRECTION_REASON] = [
            gettext("Only a correction has a reason: mark it as a correction.")
        ]
    elif reason and (refusals := reason_refusals(reason)):
        errors[CORRECTION_REASON] = refusals
    if correction and load is None and ticket:
        errors["ticket"] = [gettext("Ticket %(ticket)s is not recorded at %(site)s: only a "
                                    "recorded load is corrected.")
                            % {"ticket": ticket, "site": site}]  # fmt: skip
    passport, refusal = _passport(record.get(SHORT_CODE), passports, load if correction else None)
    if refusal:
        errors[SHORT_CODE] = [refusal]
    form = _Form(form_data(record), site=site, crop=passport.crop_type if passport else "",
                 loaded=passport.loading_date if passport else None,
                 load=load if correction else None, recorded=recorded)  # fmt: skip
    for name, messages in form.errors.items():
        if passport is None and name in CROP_FIELDS:
            continue
        errors.setdefault("row" if name == "__all__" else name, []).extend(messages)
    if errors or passport is None:
        return Taken(Outcome.REFUSED, errors)
    if correction:
        return Correction(load, form.figures(), reason)
    return NewLoad(form.cleaned_data["ticket"], passport, form.figures())


class _Form(LoadForm):
    """The clerk's form, told which of the records' tickets the site has recorded (read at once
    for many records): it asks the database again only of those, rather than of each."""

    def __init__(self, *args: Any, recorded: Mapping[str, Load], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recorded = recorded

    def clean_ticket(self) -> str:
        ticket = self.cleaned_data["ticket"].strip()
        if self.load is None and ticket in self.recorded:
            return super().clean_ticket()  # refused, in the form's own words
        return ticket


def _recorded(
    site: IntakeSite, ticket: str, passport: Passport, figures: loads.Figures, *, by: str,
    verdict: dict, recorded: dict[str, Load], mark: Mark | None,
) -> Taken:  # fmt: skip
    try:
        with transaction.atomic():
            load = loads.record(site, ticket, passport, figures, by=by, verdict=verdict)
            if mark is not None:
                mark(load, Outcome.RECORDED)
    except IntegrityError:  # recorded meanwhile, by a clerk or another sending of the record
        load = Load.objects.select_related("passport").get(site=site, ticket=ticket)
        recorded[ticket] = load
        return Taken(Outcome.ALREADY, load=load)
    recorded[ticket] = load
    return Taken(Outcome.RECORDED, load=load, verdict=verdict)


def _corrected(
    load: Load, figures: loads.Figures, *, by: str, reason: str, mark: Mark | None
) -> Taken:
    if figures == loads.latest_figures(load):
        return Taken(Outcome.UNCHANGED, load=load)
    with transaction.atomic():
        loads.correct(load, figures, by=by, reason=reason)
        if mark is not None:
            mark(load, Outcome.CORRECTED)
    return Taken(Outcome.CORRECTED, load=load)


def _passport(
    typed: object, passports: Mapping[str, Passport], corrected: Load | None
) -> tuple[Passport | None, str]:
    """The passport the record names, or why none: a correction may leave the code out (its
    load's passport is meant), or must name its load's."""
    text = _text(typed)
    if not is_printable(text):
        return None, str(NOT_PRINTABLE)
    short_code = codes.normalise(text)
    if corrected is not None:
        if text and short_code != corrected.passport.short_code:
            return None, gettext(
                "Ticket %(ticket)s was recorded with passport %(code)s: a correction keeps it."
            ) % {"ticket": corrected.ticket, "code": corrected.passport.short_code}  # fmt: skip
        return corrected.passport, ""
    if not text:
        return None, gettext("Give the short code of the load's passport.")
    if short_code is None:
        return None, gettext("A short code has 8 to 12 letters and numbers (no 0, 1, I, L or O).")
    passport = passports.get(short_code)
    if passport is None:
        return None, gettext(
            "The portal knows no passport %(code)s: the grower makes it here, or adds it by its "
            "code."
        ) % {"code": short_code}  # fmt: skip
    return passport, ""


# --- reading a record's values ---------------------------------------------------------------


def form_data(record: Record) -> dict[str, object]:
    """The record's values as the form reads them: text, and the reasons as a list; a decision,
    reason or claim's parameter by its key or by its label, in any case."""
    data: dict[str, object] = {}
    for name in FORM_FIELDS:
        value = record.get(name)
        if name == "reasons":
            data[name] = [_choice(reason, quality.REASONS) for reason in _listed(value)]
        elif name == "decision":
            data[name] = _choice(value, Decision.choices)
        elif name in CLAIM_PARAMETERS:
            data[name] = _choice(value, PARAMETER_CHOICES)
        else:
            data[name] = _text(value)
    return data


def _text(value: object) -> str:
    """A value as text: a JSON number or a workbook's as its digits (12345.0 as 12345, so that a
    ticket sent as a number is the same ticket however it is written; one in an exponent's
    form as it is, which no field takes)."""
    if value is None:
        return ""
    if isinstance(value, float | Decimal) and _whole(value):
        return str(int(value))
    return str(value).strip()


def _whole(number: float | Decimal) -> bool:
    return math.isfinite(number) and "e" not in str(number).lower() and number == int(number)


def ticket_of(record: object) -> str:
    """The ticket a record names, as the record is taken ("" for none, or a value of a kind no
    ticket is)."""
    ticket = record.get("ticket") if isinstance(record, Mapping) else None
    if isinstance(ticket, bool) or not isinstance(ticket, str | int | float | Decimal):
        return ""
    return _text(ticket)[:40]


def _listed(value: object) -> list[str]:
    parts = value if isinstance(value, list | tuple) else _text(value).split(";")
    return [text for part in parts if (text := _text(part))]


def _choice(value: object, choices: Iterable[tuple[str, object]]) -> str:
    """A choice's key, given by its key or its label, in English or in the language of the
    page or job (a file made in English is read the same from a Welsh page)."""
    text = _text(value)
    folded = text.casefold()
    english = (translation.get_language() or "en").startswith("en")
    for key, label in choices:
        if folded in (key.casefold(), str(label).casefold()):
            return key
        if not english and folded == _in_english(label):
            return key
    return text


def _in_english(label: object) -> str:
    """A choice's label in English (its words as the code writes them), folded."""
    with translation.override(None):
        return str(label).casefold()


def _yes(value: object) -> bool | None:
    """Whether a correction column says yes; None if it says something else."""
    if isinstance(value, bool):
        return value
    text = _text(value).casefold()
    if text in YES:
        return True
    return False if text in NO else None


# --- what the records name, read at once ---------------------------------------------------


def passports_of(typed_codes: Iterable[object]) -> dict[str, Passport]:
    """The portal's passports of these short codes (as typed), by their normalised codes."""
    wanted = {code for typed in typed_codes if (code := codes.normalise(_text(typed)))}
    found = Passport.objects.filter(short_code__in=wanted).defer("record")
    return {passport.short_code: passport for passport in found}


def recorded_at(site: IntakeSite, tickets: Iterable[object]) -> dict[str, Load]:
    """The site's loads of these tickets, by ticket."""
    wanted = {text for ticket in tickets if (text := _text(ticket))}
    found = Load.objects.filter(site=site, ticket__in=wanted).select_related("passport")
    return {load.ticket: load for load in found.defer("passport__record")}


def verdicts_for(
    records: Iterable[Record], passports: Mapping[str, Passport], recorded: Mapping[str, Load],
    seconds: float | None = None,
) -> dict[str, dict]:  # fmt: skip
    """The verdicts on the passports of the records that may be recorded now (not those of a
    ticket recorded already), asked at once (portal.intake.verdicts)."""
    wanted = []
    for record in records:
        short_code = codes.normalise(_text(record.get(SHORT_CODE)))
        if short_code in passports and _text(record.get("ticket")) not in recorded:
            wanted.append(short_code)
    return verdicts.asked(wanted, seconds)
