"""Short codes kept out of the logs (settings.LOGGING puts these filters on the loggers). Two
loggers write request paths, and a passport's path holds its whole short code: urllib3 at DEBUG
(`/v1/passports/<code>.eb`, the service's), whose records are rewritten with the code masked,
and Django's request log, which names the path of every 4xx and 5xx answer and carries the
request itself: it keeps nothing of the look-up's pages, whose unknown codes and refusals are
expected (a service that cannot be reached is logged by the client's own call log). The
portal's own record of each request (portal/operations/logs.py) writes its path through
`masked_path`, which the passports' AppConfig.ready() registers there."""

from __future__ import annotations

import logging
import re
from functools import cache

from django.urls import reverse

from portal.passports.codes import masked, normalise

SIGNED_PATH = "/V/"  # signed codes' (portal.passports.signing.PATH, which imports far more)
# What follows `/passports/` in a path: a passport's short code, or a fixed path's own word.
_AFTER_PASSPORTS = re.compile(r"(/passports/)([^/.\s\"?]+)")


class MaskShortCodes(logging.Filter):
    """Rewrites a record's message with the short code of every passport's path masked (`7KX…`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "/passports/" in message:
            record.msg = _codes_masked(message)
            record.args = ()
        return True


class LeaveOutLookUps(logging.Filter):
    """Drops Django's request records of the look-up's pages (`/p/...`) and of signed codes'
    checks (`/V/...`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        return not getattr(request, "path", "").startswith((_lookup_path(), SIGNED_PATH))


def masked_path(path: str) -> str:
    """A request's path as it may be logged: a passport's short code masked, and nothing of
    what follows the look-up's own address (`/p/…`), where a code may be anyone's guess, nor
    of a signed code (`/V/…`), which holds a passport's essentials."""
    for address in (_lookup_path(), SIGNED_PATH):
        if path.startswith(address) and len(path) > len(address):
            return f"{address}…"
    return _codes_masked(path)


def _codes_masked(text: str) -> str:
    """`text` with every short code in a passport's path masked, and nothing else: a fixed
    path (`/passports/export`, `/passports/new`) is written whole."""
    return _AFTER_PASSPORTS.sub(_masked_if_a_code, text)


def _masked_if_a_code(found: re.Match[str]) -> str:
    after = found[2]
    return found[1] + (masked(after) if normalise(after) else after)


@cache
def _lookup_path() -> str:
    return reverse("checks:lookup")
