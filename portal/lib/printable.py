"""Text as a person types it: no control characters (C0, DEL, C1), which no passport or mail
holds, a spreadsheet or terminal may act on, and a paper passport cannot print. The forms' text
fields check with these validators."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINE_BREAKS = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")
NOT_PRINTABLE = (
    "Type only printable characters here: this holds a control character (a tab, escape or "
    "delete, say), perhaps pasted in with the text."
)


def printable(value: str) -> None:
    """One line of printable text."""
    if _CONTROL.search(value):
        raise ValidationError(NOT_PRINTABLE, code="not_printable")


def printable_lines(value: str) -> None:
    """Printable text that may run over several lines."""
    if _CONTROL_BUT_LINE_BREAKS.search(value):
        raise ValidationError(NOT_PRINTABLE, code="not_printable")
