"""A standard point's reference (`CR.ST.3`, a sub-point `CR.ST.3.1`), or the start of one."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A sector prefix, a two-letter section prefix, then the point's numbers (none for a section).
_REFERENCE = re.compile(
    r"(?P<sector>[A-Za-z0-9]+)\.(?P<section>[A-Za-z]{2})(?P<numbers>(?:\.\d+)*)"
)


@dataclass(frozen=True, slots=True)
class Reference:
    sector: str
    section: str
    numbers: tuple[int, ...]  # empty for a whole section (`CR.ST`)

    @property
    def is_point(self) -> bool:
        return bool(self.numbers)


def parse_reference(text: str) -> Reference | None:
    """The reference `text` spells (a trailing dot allowed, as in `CR.ST.`), or None."""
    found = _REFERENCE.fullmatch(text.strip().rstrip("."))
    if found is None:
        return None
    numbers = tuple(int(n) for n in found["numbers"].split(".") if n)
    return Reference(found["sector"], found["section"], numbers)
