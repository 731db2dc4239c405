"""A section's page: what it lists for a request's filters, made once for each version of the
section and each filter, and kept in the shared cache for every user."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.template.loader import get_template, render_to_string
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from portal.assurance import records
from portal.standards import cached
from portal.standards.addresses import PREVIEW, points_address
from portal.standards.filters import Choices, Filters
from portal.standards.points import Point, arrange

SECTION_TEMPLATE = "standards/section.html"  # the page, its parts and a point's partial


@dataclass
class SectionListing:
    """A section's standard points that the filters keep. The points are arranged (their HTML
    made safe) only when asked for."""

    section: records.SectionData
    filters: Filters  # less any aim or revision the section does not have
    choices: Choices

    @classmethod
    def of(cls, section: records.SectionData, requested: Filters) -> SectionListing:
        choices = Choices.of(section)
        return cls(section, requested.within(choices), choices)

    @cached_property
    def points(self) -> list[Point]:
        return self.filters.apply(arrange(self.section))

    @property
    def total(self) -> int:
        return len(self.section.standard_points)

    @property
    def described(self) -> list[str]:
        """What the filters keep, in words ("with critical answers"); empty if they keep all."""
        return self.filters.described(self.choices)


@dataclass(frozen=True)
class Made:
    """A part of a section's page as made for one filter: the whole content, or its points."""

    title: str
    html: SafeString
    query: str  # the filters that apply, as an address's query


def section_part(
    request: HttpRequest,
    part: str,
    stage: str,
    scheme_guid: str,
    fetched: cached.Fetched[records.SectionData],
    schemes: cached.Fetched[records.SchemeList] | None,
) -> Made:
    """The page's `part` ("content" or "points") for the request's filters, in the page's
    language, kept in the shared cache by the section's version, the scheme list's (its name is
    in the breadcrumbs; None if the service could not give it), the language and the template's
    change time: a kept part is used by every user reading in that language until one of them
    changes."""
    requested = Filters.of(request)
    key = cached.cache_key(
        f"section-{part}", stage, scheme_guid, fetched.version,
        schemes.version if schemes else "", requested.query, translation.get_language(),
        _template_version(),
    )  # fmt: skip
    made = cache.get(key)
    if made is None:
        listing = SectionListing.of(fetched.record, requested)
        context = section_context(stage, scheme_guid, cached.name_in(schemes, scheme_guid),
                                  listing)  # fmt: skip
        # Without the request: a part kept for every user reads nothing of one user's request,
        # and no context processor runs for it.
        html = render_to_string(f"{SECTION_TEMPLATE}#{part}", context)
        made = Made(_title(fetched.record, stage), SafeString(html), listing.filters.query)
        if listing.filters == requested:  # an address of filters the section lacks keeps none
            cache.set(key, made, settings.STANDARDS_KEEP_SECONDS)
    return made


def section_context(
    stage: str, scheme_guid: str, scheme_name: str | None, listing: SectionListing
) -> dict[str, object]:
    """What the section's template renders its parts with (bench/standards.py times the render
    with it too)."""
    return {
        "stage": stage, "scheme_guid": scheme_guid, "section": listing.section,
        "scheme_name": scheme_name, "listing": listing,
        "points_address": points_address(stage, scheme_guid),  # reversed once for every point
    }  # fmt: skip


def _title(section: records.SectionData, stage: str) -> str:
    name = section.section_name or ""
    return _("%(section)s (preview)") % {"section": name} if stage == PREVIEW else name


def _template_version() -> str:
    """When the template a section's page is made with last changed, so that a changed
    template shows on the next request."""
    return str(os.stat(get_template(SECTION_TEMPLATE).origin.name).st_mtime_ns)
