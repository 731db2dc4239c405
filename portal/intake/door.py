"""The door of a site's weighbridge or laboratory software (`POST /api/v1/intake/loads`, and its
first address `/intake/api/loads`; portal.api.intake answers them): the same records as an
upload's rows, as JSON, one or a list, each answered with what became of it.

Each record is taken as portal.intake.rows takes one: idempotent on the site and ticket, so
that software sending a record again (it did not hear the answer) records it once, and hears
"already recorded" with the same load. Who may send to a site is the API's to say (its tokens,
portal.api.tokens); the door takes what it is given for the site it is given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from portal.audit import events as audit
from portal.intake import rows, verdicts
from portal.intake.models import IntakeSite

ASKING_SECONDS = 20  # no verdict is asked after this long: the request must be answered
# The words of the answers, in the language the request asks for (portal.accounts.language); the
# statuses and the fields' names stay as they are.
ALREADY = _('already recorded: send it with "correction": true and a "correction_reason" to '
            "change it")  # fmt: skip
UNCHANGED = _("the correction says what the load says already: nothing was changed")
NOT_AN_OBJECT = _("A record is a JSON object of a load's fields (short_code, ticket, ...).")
NOT_A_FIELD = _("Not a field of a load's record.")
NOT_A_VALUE = _("Send this field as text or a number (a correction as true or false, the "
                "reasons as a list of texts).")  # fmt: skip


# --- the records -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What the door answers a record: its place in the list, its ticket, its status, and
    its load, errors or verdict."""

    index: int
    ticket: str
    taken: rows.Taken

    def as_json(self) -> dict[str, object]:
        answer: dict[str, object] = {"index": self.index, "ticket": self.ticket,
                                     "status": str(self.taken.outcome)}  # fmt: skip
        if self.taken.load is not None:
            answer["load"] = self.taken.load.pk
        if self.taken.errors:
            answer["errors"] = self.taken.errors
        if self.taken.outcome == rows.Outcome.ALREADY:
            answer["message"] = str(ALREADY)
        elif self.taken.outcome == rows.Outcome.UNCHANGED:
            answer["message"] = str(UNCHANGED)
        if self.taken.verdict is not None:
            answer["verdict"] = self.taken.verdict
        return answer


def take(
    site: IntakeSite, records: list[object], request: HttpRequest, *, by: str, token: int
) -> list[Answer]:
    """Each record taken at `site` by `by`, in order; the door's use recorded in the audit
    trail (the site, the API token `token`, how many came to each outcome)."""
    by = by[:150]
    readable = [record for record in records if _refusal(record) is None]
    passports = rows.passports_of(record.get(rows.SHORT_CODE) for record in readable)
    recorded = rows.recorded_at(site, (record.get("ticket") for record in readable))
    asked = rows.verdicts_for(readable, passports, recorded, ASKING_SECONDS)
    answers = []
    for index, record in enumerate(records):
        refusal = _refusal(record)
        if refusal is not None:
            taken = rows.Taken(rows.Outcome.REFUSED, refusal)
        else:
            taken = rows.take(site, record, by=by, passports=passports, recorded=recorded,
                              verdict_of=verdicts.from_asked(asked))  # fmt: skip
        answers.append(Answer(index, rows.ticket_of(record), taken))
    counted = Counter(str(answer.taken.outcome) for answer in answers)
    tallied = {outcome.replace(" ", "_"): count for outcome, count in counted.items()}
    audit.record(audit.Kind.INTAKE_DOOR, request, username=by, site=site.code, token=token,
                 **tallied)  # fmt: skip
    return answers


def _refusal(record: object) -> dict[str, list[str]] | None:
    """Why a record cannot be read at all (not an object; keys that are no field's), or None."""
    if not isinstance(record, dict):
        return {"record": [str(NOT_AN_OBJECT)]}
    unknown = [key for key in record if key not in rows.COLUMNS]
    refused = {str(key)[:60]: [str(NOT_A_FIELD)] for key in unknown}
    refused |= {key: [str(NOT_A_VALUE)] for key, value in record.items()
                if key in rows.COLUMNS and not _readable(key, value)}  # fmt: skip
    return refused or None


def _readable(key: str, value: object) -> bool:
    """Whether a field's JSON value is of a kind it is read from: text, a number or null; for
    a correction also true or false, for the reasons also a list of texts."""
    if isinstance(value, bool):
        return key == rows.CORRECTION
    if isinstance(value, list):
        return key == "reasons" and all(isinstance(reason, str) for reason in value)
    return value is None or isinstance(value, str | int | Decimal)


def tally(answers: Iterable[Answer]) -> dict[str, int]:
    counted = Counter(str(answer.taken.outcome) for answer in answers)
    return {str(outcome): counted[str(outcome)] for outcome in rows.Outcome}
