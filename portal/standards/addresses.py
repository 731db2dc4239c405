"""How standards pages are addressed: live or preview, and a section's sector in a path."""

from __future__ import annotations

from django.urls import reverse

LIVE, PREVIEW = "live", "preview"
NO_SECTOR = "-"  # in addresses, for a section with no sector prefix


def sector_segment(sector: str | None) -> str:
    """A section's sector as its addresses hold it."""
    return sector or NO_SECTOR


def sector_of(segment: str) -> str:
    """The sector an address's segment names ("" for none)."""
    return "" if segment == NO_SECTOR else segment


def standards_url(name: str, stage: str, *args: str) -> str:
    """The address of a standards page of the live standards, or of the preview."""
    return reverse(f"standards:{'preview-' if stage == PREVIEW else ''}{name}", args=args)
