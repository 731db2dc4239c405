"""What a section's page lists for a request's filters."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

from django.template.loader import get_template

from portal.assurance import records
from portal.standards.filters import Choices, Filters
from portal.standards.points import Point, arrange


@dataclass
class SectionListing:
    """A section's standard points that the filters keep. The points are arranged (their HTML
    made safe) only when asked for: a page whose points are in the cache never asks."""

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


POINTS_TEMPLATES = ("standards/section.html", "standards/standard_point.html")


def templates_version() -> str:
    """When the templates that points are made with last changed. Part of the key of the points
    kept in the cache, so that a changed template shows on the next request."""
    return "-".join(
        str(os.stat(get_template(name).origin.name).st_mtime_ns) for name in POINTS_TEMPLATES
    )
