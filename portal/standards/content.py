"""Section data arranged for reading: HTML made safe, each standard point with its parts."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

import nh3
from django.utils.safestring import SafeString

from portal.assurance import records

# What upstream HTML may keep: text structure and plain links, nothing that runs or loads.
ALLOWED_TAGS = {
    "p", "br", "ul", "ol", "li", "strong", "b", "em", "i", "u", "sub", "sup", "code",
    "blockquote", "h3", "h4", "h5", "table", "thead", "tbody", "tr", "th", "td", "a", "span",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"scope"}, "td": {"colspan", "rowspan"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


# Built once: a cleaner made for each call would spend most of its time on the allow-lists.
_CLEANER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags={"script", "style", "svg", "math", "iframe", "object", "template"},
    attributes=ALLOWED_ATTRIBUTES,
    url_schemes=ALLOWED_URL_SCHEMES,
    link_rel="noopener noreferrer nofollow",
)


def sanitise(fragment: str | None) -> SafeString:
    """Upstream HTML cut down to the allow-list: no scripts, handlers, styles, frames or SVG,
    links only to http(s) and mail, opening with no referrer."""
    # SafeString itself, not mark_safe: a section has hundreds of fields, and mark_safe's check
    # for lazy strings costs more than the marking.
    return SafeString(_CLEANER.clean(fragment) if fragment else "")


_TAG = re.compile(r"<[^>]*>")
_INLINE_TAG = re.compile(r"</?(?:a|b|strong|em|i|u|span|code|sub|sup)\b[^>]*>", re.IGNORECASE)
_SPACE = re.compile(r"\s+")


def plain_text(fragment: str | None) -> str:
    """The words of an HTML fragment, for search, comparison and CSV."""
    # Sanitised first: scripts and styles go with their content.
    return _words(sanitise(fragment))


def _words(clean: str) -> str:
    """The words of sanitised HTML: inline tags go, and every other tag becomes a space, so that
    the words of neighbouring blocks stay apart."""
    text = _TAG.sub(" ", _INLINE_TAG.sub("", str(clean)))
    return _SPACE.sub(" ", html.unescape(text)).strip()


def _lines(clean: str) -> str:
    """The words of sanitised HTML with each block (a paragraph, a list item, a row's cell) on a
    line of its own."""
    blocks = _TAG.split(_INLINE_TAG.sub("", str(clean)))
    lines = (_SPACE.sub(" ", html.unescape(block)).strip() for block in blocks)
    return "\n".join(line for line in lines if line)


@dataclass(slots=True)
class Point:
    """A standard point with what belongs to it, ready for a page."""

    point: records.StandardPoint
    guidelines: SafeString
    record_keeping: SafeString
    guidance: SafeString
    audit_points: list[records.AuditPoint] = field(default_factory=list)
    answers: list[records.Answer] = field(default_factory=list)
    aims: list[records.Category] = field(default_factory=list)

    @property
    def reference(self) -> str:
        return self.point.reference or ""

    @property
    def anchor(self) -> str:
        return "point-" + re.sub(r"[^A-Za-z0-9]+", "-", self.reference).strip("-")

    @property
    def is_critical(self) -> bool:
        return any(answer.critical_point for answer in self.answers)

    def plain_texts(self) -> tuple[str, str, str]:
        """The words of how it is measured, record keeping and guidance."""
        return _words(self.guidelines), _words(self.record_keeping), _words(self.guidance)

    def plain_lines(self) -> tuple[str, str, str]:
        """How it is measured, record keeping and guidance as plain text, a line to each block."""
        return _lines(self.guidelines), _lines(self.record_keeping), _lines(self.guidance)


def arrange(section: records.SectionData, reference: str | None = None) -> list[Point]:
    """The section's standard points in order, each with its audit points, answers and aims;
    only the one of `reference` (in any case), if one is given."""
    aims = {aim.guid: aim for aim in section.categories}
    wanted = section.standard_points
    if reference is not None:
        wanted = [p for p in wanted if (p.reference or "").upper() == reference.upper()]
    points = [
        Point(
            point=p,
            guidelines=sanitise(p.assessment_guidelines),
            record_keeping=sanitise(p.reference_sources),
            guidance=sanitise(p.guidance),
        )
        for p in sorted(wanted, key=_order)
    ]
    by_guid = {p.point.guid: p for p in points}
    for audit_point in sorted(section.audit_points, key=_order):
        if owner := by_guid.get(audit_point.question_guid):
            owner.audit_points.append(audit_point)
    for answer in sorted(section.answers, key=_order):
        if owner := by_guid.get(answer.question_guid):
            owner.answers.append(answer)
    for link in section.links:
        owner, aim = by_guid.get(link.asset_guid), aims.get(link.category_guid)
        if owner and aim and aim not in owner.aims:
            owner.aims.append(aim)
    return points


def _order(item: records.StandardPoint | records.AuditPoint | records.Answer) -> float:
    return item.index if item.index is not None else float("inf")


@dataclass(frozen=True, slots=True)
class Filters:
    aim: str = ""  # an aim's GUID
    critical: bool = False
    revision: str = ""

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
            and (not self.revision or p.point.revision_status == self.revision)
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
            *(["with critical answers"] if self.critical else []),
            *([f"serving the aim {choices.aims.get(self.aim, '')}"] if self.aim else []),
            *([f"of revision {self.revision}"] if self.revision else []),
        ]


@dataclass(frozen=True, slots=True)
class Choices:
    """What a section's filters offer: its aims (GUID to name, in order of name) and the
    revision statuses of its points."""

    aims: dict[str, str]
    revisions: list[str]

    @classmethod
    def of(cls, points: list[Point]) -> Choices:
        aims = {aim.guid: aim.name or "" for p in points for aim in p.aims if aim.guid}
        revisions = {p.point.revision_status for p in points} - {None, ""}
        return cls(dict(sorted(aims.items(), key=lambda item: item[1])), sorted(revisions))
