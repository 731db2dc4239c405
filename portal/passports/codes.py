"""Short codes as people type them, and as the portal shows them (docs/interface.md: eight to twelve
characters from an alphabet without look-alikes, any case, one hyphen in the middle ignored).

The rule is the service's; it is written here again rather than imported from the sandbox,
which the portal never imports.
"""

from __future__ import annotations

import re

# No look-alikes: no 0/O, no 1/I/L.
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
_CODE = re.compile(rf"[{ALPHABET}]{{8,12}}")


def normalise(typed: str) -> str | None:
    """The short code as the portal shows it (`7KXM4-QHT2W`) for what someone typed, in any
    case, with or without its hyphen or spaces; None if it cannot be a short code."""
    candidate = "".join(typed.split()).upper()
    if candidate.count("-") > 1:
        return None
    candidate = candidate.replace("-", "")
    if not _CODE.fullmatch(candidate):
        return None
    middle = len(candidate) // 2
    return f"{candidate[:middle]}-{candidate[middle:]}"


def masked(code: str) -> str:
    """What of a short code may be written to a log: its first three characters."""
    return f"{code[:3]}…"
