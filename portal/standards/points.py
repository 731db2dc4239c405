"""A section's standard points arranged for reading: each with its audit points, answers and
aims, its HTML made safe."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.utils.safestring import SafeString

from portal.assurance import records
from portal.standards.sanitise import lines, sanitise, words


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
    def is_sub_point(self) -> bool:
        """Whether it sits under another point (`CR.ST.3.1` under `CR.ST.3`)."""
        return self.reference.count(".") > 2

    @property
    def is_critical(self) -> bool:
        return any(answer.critical_point for answer in self.answers)

    @property
    def revision(self) -> str:
        return self.point.revision_status or ""

    @property
    def is_revised(self) -> bool:
        return self.revision not in ("", "Unchanged")

    @property
    def score(self) -> str:
        """The score as people write it: 2, 1.5."""
        score = self.point.score
        return "" if score is None else f"{score:.2f}".rstrip("0").rstrip(".")

    def plain_texts(self) -> tuple[str, str, str]:
        """The words of how it is measured, record keeping and guidance."""
        return words(self.guidelines), words(self.record_keeping), words(self.guidance)

    def plain_lines(self) -> tuple[str, str, str]:
        """How it is measured, record keeping and guidance as plain text, a line to each block."""
        return lines(self.guidelines), lines(self.record_keeping), lines(self.guidance)


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
