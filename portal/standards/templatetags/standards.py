from django import template
from django.urls import reverse

from portal.standards.library import PREVIEW
from portal.standards.library import sector_segment as sector_segment_of

register = template.Library()


@register.simple_tag
def standards_url(name: str, stage: str, *args: str) -> str:
    """The address of a standards page of the live standards, or of the preview."""
    return reverse(f"standards:{'preview-' if stage == PREVIEW else ''}{name}", args=args)


@register.filter
def sector_segment(sector: str | None) -> str:
    """A section's sector as its addresses hold it (`-` for none)."""
    return sector_segment_of(sector)
