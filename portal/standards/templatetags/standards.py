from django import template

from portal.standards import addresses

register = template.Library()


@register.simple_tag
def standards_url(name: str, stage: str, *args: str) -> str:
    """The address of a standards page of the live standards, or of the preview."""
    return addresses.standards_url(name, stage, *args)


@register.filter
def sector_segment(sector: str | None) -> str:
    """A section's sector as its addresses hold it (`-` for none)."""
    return addresses.sector_segment(sector)


@register.filter
def point_address(points_address: str, reference: str) -> str:
    """A standard point's address: `{{ points_address|point_address:p.reference }}`, with the
    start of every point's address made once for the page (addresses.points_address)."""
    return addresses.point_address(points_address, reference)
