"""QR codes drawn inline as SVG (segno): no image file, no request of its own, and as sharp on
paper as on a screen."""

from __future__ import annotations

import segno
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def qr_svg(text: str, label: str) -> SafeString:
    """An SVG QR code of `text`, an image named `label` for screen readers. It has no size of
    its own: its width is the stylesheet's."""
    code = segno.make(text, error="m")
    svg = code.svg_inline(scale=1, border=4, omitsize=True, light="#fff", svgclass="qr-code")
    # segno writes no attributes of our choosing: the image's role and name go in here.
    named = svg.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1)
    return mark_safe(named)  # noqa: S308 (segno's own markup; the label is escaped)
