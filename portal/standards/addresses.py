"""How standards pages are addressed: live or preview, and a section's sector in a path."""

from __future__ import annotations

from urllib.parse import quote

from django.urls import reverse
from django.utils.http import RFC3986_SUBDELIMS

LIVE, PREVIEW = "live", "preview"
NO_SECTOR = "-"  # in addresses, for a section with no sector prefix
_SOME_POINT = "0"  # a reference, to find where a point's own part of its address begins


def sector_segment(sector: str | None) -> str:
    """A section's sector as its addresses hold it."""
    return sector or NO_SECTOR


def sector_of(segment: str) -> str:
    """The sector an address's segment names ("" for none)."""
    return "" if segment == NO_SECTOR else segment


def standards_url(name: str, stage: str, *args: str) -> str:
    """The address of a standards page of the live standards, or of the preview."""
    return reverse(f"standards:{'preview-' if stage == PREVIEW else ''}{name}", args=args)


def points_address(stage: str, scheme_guid: str) -> str:
    """The start of the address of each of the scheme's standard points, up to its reference
    (`.../points/`): a page that links hundreds of points reverses once, and each link adds
    its reference as `point_address` does."""
    return standards_url("point", stage, scheme_guid, _SOME_POINT).removesuffix(f"{_SOME_POINT}/")


def point_address(start: str, reference: str) -> str:
    """A standard point's address from `points_address`: what `standards_url("point", ...)`
    gives, the reference quoted as reverse() quotes it."""
    return f"{start}{quote(reference, safe=RFC3986_SUBDELIMS + '/~:@')}/"
