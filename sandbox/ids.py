"""Identifiers in the service's own style: GUIDs and short codes (docs/interface.md)."""

import hashlib
import re
import secrets

GUID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# No look-alikes: no 0/O, 1/I/L.
SHORT_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
SHORT_CODE_LENGTH = 10  # 10 * log2(31) = 49.5 bits of randomness
_SHORT_CODE_INPUT = re.compile(rf"[{SHORT_CODE_ALPHABET}]{{8,12}}")


def new_guid() -> str:
    """A random GUID: ten characters, a dot, thirteen characters (`0349EQH8NH.16LGK2EH7S03C`)."""
    chars = "".join(secrets.choice(GUID_ALPHABET) for _ in range(23))
    return f"{chars[:10]}.{chars[10:]}"


def guid_for(seed: str) -> str:
    """A GUID derived from `seed`, so that demo data keeps its GUIDs on every machine."""
    number = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    chars = []
    for _ in range(23):
        number, remainder = divmod(number, len(GUID_ALPHABET))
        chars.append(GUID_ALPHABET[remainder])
    return f"{''.join(chars[:10])}.{''.join(chars[10:])}"


def new_short_code() -> str:
    return "".join(secrets.choice(SHORT_CODE_ALPHABET) for _ in range(SHORT_CODE_LENGTH))


def normalise_short_code(text: str) -> str | None:
    """The canonical short code for what someone typed, or None if it cannot be one.

    Case does not matter, and one hyphen in the middle (as printed) is ignored.
    """
    candidate = text.strip().upper()
    if candidate.count("-") > 1:
        return None
    candidate = candidate.replace("-", "")
    return candidate if _SHORT_CODE_INPUT.fullmatch(candidate) else None


def display_short_code(code: str | None) -> str:
    """The short code as printed: upper case, one hyphen in the middle (`ABCDE-FGHJK`)."""
    canonical = "".join((code or "").split()).replace("-", "").upper()
    if len(canonical) < 2:
        return canonical
    middle = len(canonical) // 2
    return f"{canonical[:middle]}-{canonical[middle:]}"
