"""Numbers as a person types them, the one rule for every number the portal takes, from any door
(a form, an upload's row, the sites' JSON door, a list's query string): ASCII digits with an
optional sign and at most one decimal point. No digits of another script (١٢ is not 12), no
exponent (1E1), no underscores (40_000), no infinity or NaN; -0 is 0. A weight may also be
written as the portal shows it, its thousands separated by commas (41,200); a date or time has
ASCII digits only.

Python and Django read all of those others (int("١٢") is 12, Decimal("1E1") is 1E+1): the
forms' number fields read their text here first."""

from __future__ import annotations

import re
from decimal import Decimal

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")
_PAGE = re.compile(r"[0-9]{1,9}")


def plain_number(text: str, *, thousands: bool = False) -> str | None:
    """The number `text` writes, as plain digits (`-0` as `0`, thousands' commas left out if
    `thousands`); None if it is not a number by the rule."""
    text = text.strip()
    if thousands and _THOUSANDS.fullmatch(text):
        text = text.replace(",", "")
    if not _NUMBER.fullmatch(text):
        return None
    if Decimal(text).is_zero():
        return text.lstrip("+-")
    return text


def decimal_point(text: str) -> str:
    """A number written with a decimal comma (14,5: in a file whose cells are separated by
    semicolons, as where the comma is the decimal mark) written with a point; other text as
    it is."""
    if text.count(",") == 1 and _NUMBER.fullmatch(text.replace(",", ".")):
        return text.replace(",", ".")
    return text


def page_number(text: str | None) -> str | None:
    """A list's `page=` for Django's paginator to read: ASCII digits, or None (the first page)
    for any other text, which the paginator would read too (٢ as page 2)."""
    return text if text is not None and _PAGE.fullmatch(text) else None
