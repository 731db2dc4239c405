"""A day's loads checked at intake (`/p/check`): many short codes at once, each looked up as
`/p/<code>` looks it up (the same kept verdicts, the same allowance of the client address,
counted as each is asked), a few at a time (PORTAL_INTAKE_CALLS_AT_ONCE), and the table of
verdicts kept a while for its page, its CSV file and its print.

A list is read leniently: one code a line, or several separated by spaces, commas or
semicolons; any case, with or without the hyphen; a code typed with a space in it, a
passport's look-up address, and its signed address (what its QR code holds, and a scanner
types) if the portal signed it, are read as the code.
Every entry is listed once, in the order first given, with how many times it was given.

The table's words (its headings, each verdict and note) are written in the language of the page
that shows them, the kept check holding only what they are made of; its CSV file's headings
too, but its cells keep their English words whatever the language, as values to sort and match
(docs/welsh.md: codes stay language-neutral).
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import secrets
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from portal.accounts.lookup import LookupAccountMissing, call_as_lookup_account
from portal.assurance.client import BearerToken
from portal.assurance.errors import AssuranceError
from portal.assurance.passport_fields import FIELDS
from portal.audit import events as audit
from portal.lib.bounded import in_order
from portal.lib.spreadsheets import safe_cell
from portal.operations import recording
from portal.passports import codes, lookup, manifests, signing
from portal.passports.lookup import Allowance, Verdict

# A check's table is kept this long for its page, its CSV file and its print.
KEPT_SECONDS = 30 * 60
# No code is asked of the service after this long, so that the page answers well within the
# web server's time-out however slowly the service answers; those left say it could not ask.
ASKING_SECONDS = 20
SHOWN_TYPED = 40  # the most of a malformed entry the table shows

_SEPARATORS = re.compile(r"[,;\r\n]+")


class State(StrEnum):
    """What became of a code of the list: its verdict, or why it has none."""

    VALID = "valid"
    NOT_VALID = "not-valid"
    UNKNOWN = "unknown"  # no passport has the code
    MALFORMED = "malformed"  # it cannot be a short code
    NOT_CHECKED = "not-checked"  # the address's allowance ran out before it
    UNAVAILABLE = "unavailable"  # the service could not be asked, or did not answer in time

    @property
    def words(self) -> str:
        return _WORDS[self][0]

    @property
    def symbol(self) -> str:
        return _WORDS[self][1]


_WORDS = {
    State.VALID: (_("Valid"), "✓"),
    State.NOT_VALID: (_("Not valid"), "✗"),
    State.UNKNOWN: (_("No passport"), "?"),
    State.MALFORMED: (_("Not a short code"), "?"),
    State.NOT_CHECKED: (_("Not checked yet"), "…"),
    State.UNAVAILABLE: (_("Cannot check just now"), "!"),
}

# What the table says of an entry with no verdict.
NOTES = {
    State.UNKNOWN: _("No passport has this short code."),
    State.MALFORMED: _("A short code has 8 to 12 letters and numbers (no 0, 1, I, L or O)."),
    State.NOT_CHECKED: _("The limit of checks for now was reached before this code."),
    State.UNAVAILABLE: _(
        "The Assurance service could not be asked: this is no verdict either way."
    ),
}
NOT_SET_UP = _("This portal has no account for look-ups.")
NOT_SHOWN = _("The service shows nothing of a passport whose claim is not valid now.")


class Why(StrEnum):
    """Why a code's claim is not valid, as far as the service says (its note in the table)."""

    NOT_SHOWN = "not-shown"  # the service shows nothing of the passport
    EXPIRED = "expired"  # its certificate's expiry has passed
    STATUS = "status"  # its status is not a valid one


# The passport's fields the table shows, by the labels the paper passport prints.
COLUMNS = tuple(
    FIELDS[name]
    for name in ("business_name", "crop_type", "variety", "loading_date",
                 "haulier_company_name", "vehicle_registration", "collection_address")
)  # fmt: skip
HEADINGS = (FIELDS["short_code"].label, _("Verdict"), _("Note"), *(f.label for f in COLUMNS),
            _("Checked"))  # fmt: skip


# --- the list as typed ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the list: as typed, its short code (None if it cannot be one), and how many
    times it was given."""

    typed: str
    short_code: str | None
    times: int = 1

    @property
    def shown(self) -> str:
        """The entry as the table names it: its short code, or the start of what was typed."""
        if self.short_code:
            return self.short_code
        return self.typed if len(self.typed) <= SHOWN_TYPED else f"{self.typed[:SHOWN_TYPED]}…"


def listed(text: str) -> list[Entry]:
    """The entries of a list as typed or pasted, each once, in the order first given."""
    found: dict[str, Entry] = {}
    for part in _SEPARATORS.split(text):
        for typed in _words_of(part):
            short_code = _short_code(typed)
            key = short_code or typed.upper()
            if key in found:
                found[key] = replace(found[key], times=found[key].times + 1)
            else:
                found[key] = Entry(typed, short_code)
    return list(found.values())


def _words_of(part: str) -> list[str]:
    """The entries of a line (or of a part of one between commas): each word, or the whole when
    none of its words is a code alone but the whole is (`7KXM4 QHT2W`)."""
    words = part.split()
    if len(words) > 1 and not any(map(_short_code, words)) and codes.normalise(part):
        return [" ".join(words)]
    return words


def _short_code(typed: str) -> str | None:
    """The short code of a word: a code, a look-up address that ends in one, or a passport's
    signed address (what its QR code holds) if the portal signed it."""
    _, signed, payload = typed.upper().rpartition(signing.PATH)
    if signed:
        checked = signing.check(payload.rstrip("/"))
        return checked.short_code if checked.is_signed_by_the_portal else None
    return codes.normalise(typed.rpartition("/p/")[2].rstrip("/"))


# --- the check ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    """A row of the table: the entry, its state, its note (`said`: one of NOTES; or `why` the
    claim is not valid, with the expiry date or status that says so, `named`), the passport's
    COLUMNS as the service gave them (None where it gave none), when the portal asked the
    service (None if it did not), and how many times the entry was given. Its note is written
    when it is read, in the language of the page then."""

    code: str
    state: State
    said: str | Promise = ""
    values: tuple[object, ...] = (None,) * len(COLUMNS)
    checked_at: datetime | None = None
    why: Why | None = None
    named: object = None
    times: int = 1

    @property
    def note(self) -> str:
        """The note on the entry, in whole sentences: how many times it was given, and what
        became of it."""
        return _joined(_times(self.times), str(self.said), _why_not_valid(self.why, self.named))

    @property
    def labelled_values(self) -> list[tuple[str, str]]:
        """The passport's COLUMNS as the page shows them, each with its label."""
        return [(column.label, column.shown(value))
                for column, value in zip(COLUMNS, self.values, strict=True)]  # fmt: skip

    def cells(self) -> list[str]:
        """The row as the CSV file writes it, under HEADINGS: a machine format, so its dates
        and times are in ISO 8601 (the loading date as the service writes it, when the portal
        checked in its own time zone with the offset), not as the page writes them."""
        checked = timezone.localtime(self.checked_at).isoformat() if self.checked_at else ""
        values = [manifests.csv_cell(value) for value in self.values]
        return [self.code, str(self.state.words), self.note, *values, checked]


@dataclass(frozen=True, slots=True)
class Check:
    """A list checked: a row for each entry, in the list's order, and when it was checked.
    `not_set_up` when the portal has no look-up account, so nothing could be asked."""

    rows: tuple[Row, ...]
    checked_at: datetime
    not_set_up: bool = False

    @property
    def tally(self) -> list[tuple[State, int]]:
        """How many rows are in each state, of the states there are."""
        counted = Counter(row.state for row in self.rows)
        return [(state, counted[state]) for state in State if counted[state]]

    @property
    def not_checked(self) -> int:
        """Rows not checked: the address's allowance ran out before them."""
        return sum(row.state == State.NOT_CHECKED for row in self.rows)

    @property
    def unavailable(self) -> int:
        """Rows the service could not be asked about."""
        return sum(row.state == State.UNAVAILABLE for row in self.rows)

    @property
    def to_check_again(self) -> list[str]:
        """The short codes that have no verdict yet: not checked, or the service not asked."""
        again = (State.NOT_CHECKED, State.UNAVAILABLE)
        return [row.code for row in self.rows if row.state in again]


def check(request: HttpRequest, entries: list[Entry]) -> Check | Allowance:
    """The verdicts on the short codes of `entries`, asked a few at once, each counted against
    the client address's look-ups as it is asked, until the allowance refuses one: the codes
    from that one on are listed as not checked, the other entries as what they are. The check
    is recorded in the audit trail. If the allowance refuses the first code, nothing is checked
    or recorded: the allowance that refused it."""
    short_codes = [entry.short_code for entry in entries if entry.short_code]
    refused: list[Allowance] = []
    with recording.gathered():  # 50 calls' records, one transaction
        answers = _asked(_counted(request, short_codes, refused)) if short_codes else {}
    if refused and not answers:
        return refused[0]
    now = datetime.now(UTC)
    rows = tuple(_row(entry, answers, bool(refused), now) for entry in entries)
    missing = any(isinstance(answer, LookupAccountMissing) for answer in answers.values())
    audit.record(audit.Kind.INTAKE_CHECK, request, listed=len(entries), checked=len(answers),
                 codes=[audit.code_hash(short_code) for short_code in answers])  # fmt: skip
    return Check(rows, now, not_set_up=missing)


def _counted(
    request: HttpRequest, short_codes: list[str], refused: list[Allowance]
) -> Iterator[str]:
    """The short codes in order, each counted against the client address's look-ups as it is
    taken, until the allowance refuses one: that allowance goes into `refused`, and no more are
    counted."""
    for short_code in short_codes:
        allowance = lookup.take_a_look_up(request)
        if not allowance.granted:
            refused.append(allowance)
            return
        yield short_code


type Answer = Verdict | AssuranceError | None
NOT_ASKED_IN_TIME = AssuranceError("The service was not asked in time.")


def _asked(short_codes: Iterator[str]) -> dict[str, Answer]:
    """The service's answer on each short code (None: no such passport), a few at once, in
    order; a code not taken before ASKING_SECONDS ran out is left out."""
    try:
        # Signed in here rather than in the threads: signing in may use the database.
        token = call_as_lookup_account(lambda credentials: credentials)
    except AssuranceError as error:
        return dict.fromkeys(short_codes, error)
    deadline = time.monotonic() + ASKING_SECONDS

    def answer(short_code: str) -> Answer:
        return _answer(short_code, token)

    asked = in_order(short_codes, answer, settings.PORTAL_INTAKE_CALLS_AT_ONCE,
                     keep_asking=lambda: time.monotonic() < deadline)  # fmt: skip
    return {short_code: answered.result() for short_code, answered in asked}


def _answer(short_code: str, token: BearerToken) -> Answer:
    try:
        return lookup.verdict(short_code, with_details=False, token=token)  # the table shows a few
    except AssuranceError as error:
        return error
    finally:
        connections.close_all()  # this thread's own, had signing in again opened one


def _row(entry: Entry, answers: dict[str, Answer], refused: bool, now: datetime) -> Row:
    if entry.short_code is None:
        row = Row(entry.shown, State.MALFORMED, NOTES[State.MALFORMED])
    elif entry.short_code not in answers and refused:
        row = Row(entry.short_code, State.NOT_CHECKED, NOTES[State.NOT_CHECKED])
    else:
        answer = answers.get(entry.short_code, NOT_ASKED_IN_TIME)
        row = _answered(entry.short_code, answer, now)
    return replace(row, times=entry.times)


def _answered(short_code: str, answer: Answer, now: datetime) -> Row:
    if isinstance(answer, LookupAccountMissing):
        return Row(short_code, State.UNAVAILABLE, NOT_SET_UP)
    if isinstance(answer, AssuranceError):
        return Row(short_code, State.UNAVAILABLE, NOTES[State.UNAVAILABLE])
    if answer is None:
        return Row(short_code, State.UNKNOWN, NOTES[State.UNKNOWN], checked_at=now)
    passport = answer.passport
    values = tuple(getattr(passport, f.name) if passport else None for f in COLUMNS)
    state = State.VALID if answer.is_valid else State.NOT_VALID
    asked_at = datetime.fromtimestamp(answer.asked_at, UTC)
    why, named = _why(answer)
    return Row(short_code, state, "", values, asked_at, why, named)


def _why(verdict: Verdict) -> tuple[Why | None, object]:
    """Why the verdict's claim is not valid, and the expiry date or status that says so."""
    passport = verdict.passport
    if verdict.is_valid:
        return None, None
    if passport is None:
        return Why.NOT_SHOWN, None
    if verdict.has_expired:
        return Why.EXPIRED, passport.expiry_date
    return (Why.STATUS, passport.status) if passport.status else (None, None)


def _why_not_valid(why: Why | None, named: object) -> str:
    if why is Why.NOT_SHOWN:
        return str(NOT_SHOWN)
    if why is Why.EXPIRED:
        date = FIELDS["expiry_date"].shown(named)
        return gettext("The certificate expired on %(date)s.") % {"date": date}
    if why is Why.STATUS:
        return gettext("Its status is %(status)s.") % {"status": named}
    return ""


def _times(times: int) -> str:
    if times == 1:
        return ""
    if times == 2:
        return gettext("Listed twice.")
    return ngettext("Listed %(times)s time.", "Listed %(times)s times.", times) % {"times": times}


def _joined(*sentences: str) -> str:
    return " ".join(sentence for sentence in sentences if sentence)


# --- kept for its page, its CSV file and its print ------------------------------------------------


def keep(done: Check) -> str:
    """Keeps the check for KEPT_SECONDS; the key its page's address holds (not to be guessed)."""
    check_id = secrets.token_urlsafe(16)
    cache.set(_key(check_id), done, KEPT_SECONDS)
    return check_id


def kept(check_id: str) -> Check | None:
    found = cache.get(_key(check_id))
    return found if isinstance(found, Check) else None


def _key(check_id: str) -> str:
    return f"lookup:intake:{hashlib.sha256(check_id.encode()).hexdigest()[:32]}"


def as_csv(done: Check) -> bytes:
    """The table as a CSV file, under HEADINGS: UTF-8 with a byte-order mark, so spreadsheets
    read it, and no cell a spreadsheet would run as a formula."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([str(heading) for heading in HEADINGS])
    with translation.override(settings.LANGUAGE_CODE):  # the cells' words: values, in English
        writer.writerows([safe_cell(cell) for cell in row.cells()] for row in done.rows)
    return ("\ufeff" + out.getvalue()).encode()
