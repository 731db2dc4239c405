"""Why an endpoint was disabled: kept in English, as the audit trail and the API give it, and
shown to people (its page, the mail to its owners) in their language by `reason_in_words`."""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_noop, ngettext

GONE = gettext_noop("The endpoint answered 410 Gone: it asked for no more events.")
BY_OWNER = gettext_noop("Disabled by its owner.")
FAILED_FOR = "Every delivery failed for {days} days."
FAILED_FOR_KEPT = re.compile(r"Every delivery failed for (\d+) days\.")


def reason_in_words(reason: str) -> str:
    """Why an endpoint was disabled, in the active language (a reason of the portal's own; any
    other as it was kept)."""
    if reason in (GONE, BY_OWNER):
        return gettext(reason)
    failed = FAILED_FOR_KEPT.fullmatch(reason)
    if failed:
        days = int(failed[1])
        said = ngettext("Every delivery failed for %(days)s day.",
                        "Every delivery failed for %(days)s days.", days)  # fmt: skip
        return said % {"days": days}
    return reason
