"""Text as a person types it, the one rule for every free text the portal takes, from any door
(a form, an upload's row, the sites' JSON door, a list's query string): no control character (C0,
DEL, C1: escape, bell, next line U+0085 ...), no character that turns text around or hides in it
(the direction marks, embeddings, overrides and isolates such as U+202E; zero-width spaces and
joiners U+200B-U+200D, the word joiner U+2060, the byte-order mark U+FEFF) and no line or
paragraph separator (U+2028, U+2029). No load, passport or mail holds them; a spreadsheet or
terminal may act on them, a reader cannot see them, and a paper passport cannot print them.

One line of text (`printable`) holds none of them; text that may run over several lines
(`printable_lines`: a query, an answer, a message, a reason) may break its lines with \\r and \\n,
and nothing else. The forms' text fields check with these validators."""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

_INVISIBLE = (
    "\u061c"  # Arabic letter mark
    "\u180e"  # Mongolian vowel separator
    "\u200b-\u200f"  # zero-width space, non-joiner, joiner; left-to-right and right-to-left marks
    "\u2028-\u202e"  # line and paragraph separators; direction embeddings and overrides
    "\u2060-\u206f"  # word joiner, invisible operators, direction isolates, deprecated formats
    "\ufeff"  # byte-order mark (zero-width no-break space)
    "\ufff9-\ufffb"  # interlinear annotations
)
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}]")
# What no text holds, but the line breaks \r and \n (also quoted text's, portal.lib.quoting).
NOT_PRINTABLE_BUT_LINE_BREAKS = re.compile(f"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f{_INVISIBLE}]")
NOT_PRINTABLE = (
    "Type only printable characters here: this holds a control character (a tab, escape or "
    "delete, say) or an invisible one (a zero-width space or a mark that turns text around), "
    "perhaps pasted in with the text."
)


def is_printable(value: str) -> bool:
    """Whether `value` is one line of printable text."""
    return not _CONTROL.search(value)


def printable(value: str) -> None:
    """One line of printable text."""
    if not is_printable(value):
        raise ValidationError(NOT_PRINTABLE, code="not_printable")


def printable_lines(value: str) -> None:
    """Printable text that may run over several lines."""
    if NOT_PRINTABLE_BUT_LINE_BREAKS.search(value):
        raise ValidationError(NOT_PRINTABLE, code="not_printable")
