"""QR codes drawn inline as SVG (segno): no image file, no request of its own, and as sharp on
paper as on a screen."""

from __future__ import annotations

import segno
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


class QrTooLarge(Exception):
    """The text needs a QR code larger than the version allowed."""


def qr_svg(
    text: str, label: str, *, error: str = "m", largest_version: int | None = None
) -> SafeString:
    """An SVG QR code of `text` at error-correction level `error` (or higher, where that
    needs no larger code), an image named `label` for screen readers. It has no size of its
    own: its width is the stylesheet's. Raises QrTooLarge if `text` needs a version larger
    than `largest_version`."""
    code = segno.make(text, error=error, micro=False)
    if largest_version is not None and code.version > largest_version:
        raise QrTooLarge(f"{len(text)} characters need a QR code of version {code.version}")
    svg = code.svg_inline(scale=1, border=4, omitsize=True, light="#fff", svgclass="qr-code")
    # segno writes no attributes of our choosing: the image's role and name go in here.
    named = svg.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1)
    return mark_safe(named)  # noqa: S308 (segno's own markup; the label is escaped)
