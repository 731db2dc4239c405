"""The passport's verdict kept with each load recorded many at once (an upload's rows, the records
a site's software sends): asked as the look-up asks it (portal.passports.lookup.verdict, through
the portal's look-up account, its answers kept a minute), a few codes at once
(PORTAL_INTAKE_CALLS_AT_ONCE). When the service cannot be asked, the load is recorded all the same
with a verdict that says so (`valid` None): a weighbridge's day is not lost to an outage, and no
verdict is made up either way."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from django.conf import settings

from portal.accounts.lookup import call_as_lookup_account
from portal.assurance.client import BearerToken
from portal.assurance.errors import AssuranceError
from portal.lib.bounded import in_order
from portal.operations import recording
from portal.passports import lookup

NOT_ASKED = "The Assurance service could not be asked: no verdict either way."
NO_SUCH_PASSPORT = "The Assurance service has no passport of this short code."
NOT_SHOWN = "The Assurance service shows nothing of a passport whose claim is not valid now."

type Kept = dict[str, object]


def unknown() -> Kept:
    """The verdict kept when the service could not be asked."""
    return {"valid": None, "checked_at": None, "note": NOT_ASKED}


def kept(answer: lookup.Verdict | None) -> Kept:
    """A verdict as a load keeps it: whether the claim was valid, when the portal asked, and a
    note on a claim that was not."""
    if answer is None:
        now = datetime.now(UTC).isoformat()
        return {"valid": False, "checked_at": now, "note": NO_SUCH_PASSPORT}
    checked = datetime.fromtimestamp(answer.asked_at, UTC).isoformat()
    verdict: Kept = {"valid": answer.is_valid, "checked_at": checked}
    passport = answer.passport
    if passport is None:
        verdict["note"] = NOT_SHOWN
    elif not answer.is_valid:
        verdict["status"] = passport.status or ""
        verdict["note"] = "Its certificate had expired." if answer.has_expired else (
            f"Its status was {passport.status}." if passport.status else ""
        )  # fmt: skip
    return verdict


def from_asked(asked: dict[str, Kept]) -> Callable[[str], Kept]:
    """`verdict_of(short_code)` for portal.intake.rows.take: the verdict asked, or unknown."""

    def verdict_of(short_code: str) -> Kept:
        return asked.get(short_code) or unknown()

    return verdict_of


def words(verdict: Kept | None) -> str:
    """A kept verdict in a word or two, for a report's cell."""
    if not verdict:
        return ""
    if verdict.get("valid") is None:
        return "unknown: the service could not be asked"
    return "valid" if verdict["valid"] else "not valid"


def asked(short_codes: Iterable[str], seconds: float | None = None) -> dict[str, Kept]:
    """The verdict on each short code (each once), asked a few at once; unknown for those the
    service could not be asked about, and, with `seconds`, for those not asked before that long
    had passed (a request waiting on them must answer)."""
    codes = list(dict.fromkeys(short_codes))
    if not codes:
        return {}
    try:
        # Signed in here rather than in the threads: signing in may use the database.
        token = call_as_lookup_account(lambda credentials: credentials)
    except AssuranceError:
        return {code: unknown() for code in codes}
    deadline = time.monotonic() + seconds if seconds is not None else None

    def answer(short_code: str) -> Kept:
        return _asked(short_code, token)

    def keep_asking() -> bool:
        return deadline is None or time.monotonic() < deadline

    found: dict[str, Kept] = {}
    with recording.gathered():  # the calls' records, one transaction
        answers = in_order(codes, answer, settings.PORTAL_INTAKE_CALLS_AT_ONCE, keep_asking)
        for short_code, answered in answers:
            found[short_code] = answered.result()
    return {code: found.get(code) or unknown() for code in codes}


def _asked(short_code: str, token: BearerToken) -> Kept:
    try:
        return kept(lookup.verdict(short_code, with_details=False, token=token))
    except AssuranceError:
        return unknown()
