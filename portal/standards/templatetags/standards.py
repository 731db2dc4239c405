from django import template
from django.utils import translation
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString

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


@register.filter
def english(text: object) -> SafeString:
    """The Assurance service's text (a scheme's name, a standard's words) as a page in another
    language than English shows it: in an element marked `lang="en"`, so that a screen reader
    reads it in English. An English page shows it as it is."""
    if _is_english():
        return conditional_escape(text)
    return format_html('<span lang="en">{}</span>', text)


@register.simple_tag
def lang_en() -> SafeString:
    """` lang="en"` for the element that holds the service's text, on a page in another language
    than English: `<p class="muted"{% lang_en %}>`."""
    return SafeString("" if _is_english() else ' lang="en"')


def _is_english() -> bool:
    return (translation.get_language() or "en").startswith("en")
