"""The crop passport as a one-page A4 PDF (docs/developing/assurance-interface.md, a passport with
`application/pdf`).

`passport_html` fills `passport.html` (plain `string.Template`, every value escaped) and
`render_passport_pdf` lays it out with WeasyPrint. Fonts, stylesheet and mark all come from this
package: the URL fetcher serves `file:` URLs inside it and refuses everything else, so rendering
never touches the network or the rest of the file system.

Rule 3 of 4.7: a field with no value is printed as an empty box to be completed by hand.
"""

from __future__ import annotations

import html
import os
import threading
from datetime import datetime
from pathlib import Path
from string import Template

from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import path2url

from portal.assurance.codec import format_number
from portal.assurance.passport_fields import (
    FIELDS,
    PARTS,
    PASSPORT_FIELDS,
    TREATMENT_OPTIONS,
    PassportField,
    day_written,
)
from portal.assurance.records import VALID_STATUSES, CropPassport
from portal.lib.pdf import FolderURLFetcher, ResourceRefused
from sandbox.ids import display_short_code

PACKAGE_DIR = Path(__file__).resolve().parent
BASE_URL = path2url(str(PACKAGE_DIR) + os.sep)
STYLESHEET = PACKAGE_DIR / "passport.css"
_TEMPLATE = Template((PACKAGE_DIR / "passport.html").read_text(encoding="utf-8"))
_STYLESHEET_LINK = '<link rel="stylesheet" href="passport.css">'

_BLANK = '<div class="v blank"></div>'
_GRAIN_STORE_ROW = Template(
    "    <tr>\n"
    '      <td><div class="l">${name_label}</div>${name}</td>\n'
    '      <td><div class="l">${latitude_label}</div>${latitude}</td>\n'
    '      <td><div class="l">${longitude_label}</div>${longitude}</td>\n'
    "    </tr>"
)
# Every label and title the passport prints, from the one table of a passport's fields.
_LABELS = {
    **{f"{field.name}_label": html.escape(field.label) for field in PASSPORT_FIELDS},
    **{f"part_{part.number}": html.escape(part.title) for part in PARTS},
    **{f"option_{option.lower()}_text": html.escape(text)
       for option, text in TREATMENT_OPTIONS.items()},
}  # fmt: skip

# Layouts tried in turn until the passport fits one page: the normal one, a smaller type size,
# then a smaller type size with each value cut to three lines (marked with an ellipsis).
_LAYOUTS = ("", "compact", "compact clamped")


class PackageURLFetcher(FolderURLFetcher):
    """Serves the files of this package, and nothing else."""

    def __init__(self, root: Path = PACKAGE_DIR, **kwargs) -> None:
        super().__init__(root, **kwargs)


class _Renderer(threading.local):
    """Per thread: the fetcher, font configuration and parsed stylesheet, made once.

    WeasyPrint's font configuration is not meant to be shared between threads, so each thread
    that renders passports keeps its own.
    """

    def __init__(self):
        self.fetcher = PackageURLFetcher()
        self.font_config = FontConfiguration()
        self.stylesheet = CSS(
            filename=str(STYLESHEET), url_fetcher=self.fetcher, font_config=self.font_config
        )
        self.cache: dict = {}

    def render(self, page_html: str):
        return HTML(string=page_html, base_url=BASE_URL, url_fetcher=self.fetcher).render(
            font_config=self.font_config, stylesheets=[self.stylesheet], cache=self.cache
        )


_renderer = _Renderer()


def render_passport_pdf(passport: CropPassport) -> bytes:
    """The passport as the bytes of a one-page A4 PDF."""
    document = None
    for layout in _LAYOUTS:
        page_html = _page_html(passport, layout).replace(_STYLESHEET_LINK, "", 1)
        document = _renderer.render(page_html)
        if len(document.pages) == 1:
            break
    return document.write_pdf()


def passport_html(passport: CropPassport) -> str:
    """The HTML of the passport in its normal layout.

    Relative URLs (stylesheet, fonts, mark) resolve against `BASE_URL`, this package, so
    `weasyprint.HTML(string=passport_html(p), base_url=BASE_URL).write_pdf()` renders the same
    page as `render_passport_pdf(p)` does for values of ordinary length.
    """
    return _page_html(passport, "")


def _page_html(passport: CropPassport, layout: str) -> str:
    p = passport
    option = (p.post_harvest_treatment_option or "").strip().upper()
    return _TEMPLATE.substitute(
        _LABELS,
        body_class=layout,
        short_code=html.escape(display_short_code(p.short_code)),
        business_name=_inline(p.business_name),
        collection_address=_inline(p.collection_address),
        crop_type=_value(p.crop_type),
        variety=_value(p.variety),
        store_or_bin_name=_value(p.store_or_bin_name),
        loading_date=_value(_day(p.loading_date)),
        harvest_year=_value(p.harvest_year),
        haulier_company_name=_value(p.haulier_company_name),
        vehicle_registration=_value(p.vehicle_registration),
        trailer_number=_value(p.trailer_number),
        haulier_collection_ticket_no=_value(p.haulier_collection_ticket_no),
        certifier_name=_value(p.certifier_name),
        membership_number=_value(p.membership_number),
        status=_status(p.status),
        expiry_date=_value(_day(p.expiry_date)),
        enterprises=_value(_enterprises(p.enterprises)),
        check_date=_value(_day(p.check_date)),
        grain_store_row=_grain_store_row(p),
        option_a=_tick_box(option == "A"),
        option_b=_tick_box(option == "B"),
        option_c=_tick_box(option == "C"),
        post_harvest_treatment_date=_value(_day(p.post_harvest_treatment_date)),
        post_harvest_treatment_product=_value(p.post_harvest_treatment_product),
        don_risk_assessment_result=_value(_number(p.don_risk_assessment_result)),
        don_test_date=_value(_day(p.don_test_date)),
        don_test_result=_value(p.don_test_result),
        zon_test_date=_value(_day(p.zon_test_date)),
        zon_test_result=_value(p.zon_test_result),
    )


def _day(value: datetime | None) -> str | None:
    """A date as the passport prints it, as every page of the portal writes it (its day in UTC,
    `22 November 2026`); None stays None."""
    return None if value is None else day_written(value)


def _number(value: float | None) -> str | None:
    if value is None or value != value:  # missing, or NaN
        return None
    return format_number(value)


def _enterprises(value: str | None) -> str | None:
    if value is None:
        return None
    return ", ".join(part.strip() for part in value.split(",") if part.strip())


def _text(value: str | None) -> str | None:
    """The value's text when it has any; None for a missing or blank value."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _value(value: str | None, css_class: str = "v") -> str:
    text = _text(value)
    if text is None:
        return _BLANK
    return f'<div class="{css_class}">{html.escape(text)}</div>'


def _inline(value: str | None) -> str:
    """A header value: its text, or an empty box when it is missing."""
    text = _text(value)
    if text is None:
        return _BLANK
    return html.escape(text)


def _status(value: str | None) -> str:
    text = _text(value)
    if text is None:
        return _BLANK
    if text == "Grace":
        return (
            '<div class="v status-grace">Grace '
            '<span class="note">(certificate in its grace period)</span></div>'
        )
    kind = "status-good" if text in VALID_STATUSES else "status-other"
    return f'<div class="v {kind}">{html.escape(text)}</div>'


def _tick_box(chosen: bool) -> str:
    return '<span class="tick">&#10004;</span>' if chosen else '<span class="tick"></span>'


def _grain_store_row(p: CropPassport) -> str:
    """Section 2's grain store row, only when the passport names a grain store."""
    name = _text(p.grain_store_name)
    latitude, longitude = _text(p.grain_store_latitude), _text(p.grain_store_longitude)
    if name is None and latitude is None and longitude is None:
        return ""
    return _GRAIN_STORE_ROW.substitute(
        name=_value(name),
        latitude=_value(latitude),
        longitude=_value(longitude),
        name_label=_label(FIELDS["grain_store_name"]),
        latitude_label=_label(FIELDS["grain_store_latitude"]),
        longitude_label=_label(FIELDS["grain_store_longitude"]),
    )


def _label(field: PassportField) -> str:
    return html.escape(field.label)


__all__ = [
    "BASE_URL",
    "PACKAGE_DIR",
    "PackageURLFetcher",
    "ResourceRefused",
    "display_short_code",
    "passport_html",
    "render_passport_pdf",
]
