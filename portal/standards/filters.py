"""What a section's filters offer, and the filters a request sets."""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import urlencode

from django.http import HttpRequest
from django.utils.translation import gettext as _

from portal.assurance import records
from portal.standards.points import Point


@dataclass(frozen=True, slots=True)
class Choices:
    """What a section's filters offer: the aims its points serve (GUID to name, in order of
    name) and the revision statuses of its points. Read from the section as it came, so that
    no point need be arranged to know them."""

    aims: dict[str, str]
    revisions: list[str]

    @classmethod
    def of(cls, section: records.SectionData) -> Choices:
        points = {p.guid for p in section.standard_points}
        served = {link.category_guid for link in section.links if link.asset_guid in points}
        aims = {aim.guid: aim.name or "" for aim in section.categories if aim.guid in served}
        revisions = {p.revision_status for p in section.standard_points} - {None, ""}
        return cls(dict(sorted(aims.items(), key=lambda item: item[1])), sorted(revisions))


@dataclass(frozen=True, slots=True)
class Filters:
    aim: str = ""  # an aim's GUID
    critical: bool = False
    revision: str = ""

    @classmethod
    def of(cls, request: HttpRequest) -> Filters:
        return cls(
            aim=request.GET.get("aim", "")[:64],
            critical=request.GET.get("critical") == "1",
            revision=request.GET.get("revision", "")[:40],
        )

    @property
    def active(self) -> bool:
        return bool(self.aim or self.critical or self.revision)

    def within(self, choices: Choices) -> Filters:
        """These filters less an aim or revision the section does not have: a mistyped address
        filters nothing, as the filters' lists then say."""
        return replace(
            self,
            aim=self.aim if self.aim in choices.aims else "",
            revision=self.revision if self.revision in choices.revisions else "",
        )

    def apply(self, points: list[Point]) -> list[Point]:
        return [
            p
            for p in points
            if (not self.aim or any(a.guid == self.aim for a in p.aims))
            and (not self.critical or p.is_critical)
            and (not self.revision or p.revision == self.revision)
        ]

    @property
    def query(self) -> str:
        """The filters as an address's query: "" if none is set."""
        pairs = [("aim", self.aim), ("critical", "1" if self.critical else ""),
                 ("revision", self.revision)]  # fmt: skip
        chosen = urlencode([(name, value) for name, value in pairs if value])
        return f"?{chosen}" if chosen else ""

    def described(self, choices: Choices) -> list[str]:
        """What the filters keep, in words, with the aim named as the section names it."""
        return [
            *([_("with critical answers")] if self.critical else []),
            *(
                [_("serving the aim %(aim)s") % {"aim": choices.aims.get(self.aim, "")}]
                if self.aim
                else []
            ),
            *(
                [_("of revision %(revision)s") % {"revision": self.revision}]
                if self.revision
                else []
            ),
        ]
