"""Short codes kept out of the logs: urllib3 logs each request's path at DEBUG, and a
passport's path holds its whole short code."""

from __future__ import annotations

import logging
import re

from portal.passports.codes import masked

_PASSPORT_PATH = re.compile(r"(/passports/)([^/.\s\"?]+)")


class MaskShortCodes(logging.Filter):
    """Rewrites a record's message with every passport path's short code masked (`7KX…`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "/passports/" in message:
            record.msg = _PASSPORT_PATH.sub(lambda m: m.group(1) + masked(m.group(2)), message)
            record.args = ()
        return True


def mask_short_codes() -> None:
    """Puts the filter on the loggers that write request paths (once per process)."""
    logger = logging.getLogger("urllib3.connectionpool")
    if not any(isinstance(f, MaskShortCodes) for f in logger.filters):
        logger.addFilter(MaskShortCodes())
