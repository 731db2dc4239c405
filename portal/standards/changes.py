"""What has changed between the live standards of a scheme and the preview of its next version.

Sections are matched by sector and prefix, standard points by reference. A point is added,
removed, or reworded (its text, audit points, answers or score differ), and the changed words
are marked.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy, pgettext

from portal.assurance import records
from portal.standards.points import Point, arrange
from portal.standards.sanitise import sanitise

ADDED, REMOVED, REWORDED = "added", "removed", "reworded"
_WORDS = re.compile(r"\n|[^\s]+")  # a line's end is a word of its own, kept or changed


@dataclass(frozen=True, slots=True)
class Words:
    """A run of words: kept, inserted or deleted."""

    kind: str  # "same", "ins" or "del"
    text: str


@dataclass(slots=True)
class FieldChange:
    label: str  # what the part is called on the page, in its language
    words: list[Words]


@dataclass(slots=True)
class PointChange:
    kind: str
    reference: str
    question: str
    fields: list[FieldChange] = field(default_factory=list)


@dataclass(slots=True)
class SectionChange:
    key: str  # sector.prefix
    name: str
    kind: str  # "changed", "added", "removed" or "unchanged"
    what_has_changed: object = ""
    points: list[PointChange] = field(default_factory=list)

    def _count(self, kind: str) -> int:
        return sum(1 for p in self.points if p.kind == kind)

    @property
    def count_added(self) -> int:
        return self._count(ADDED)

    @property
    def count_reworded(self) -> int:
        return self._count(REWORDED)

    @property
    def count_removed(self) -> int:
        return self._count(REMOVED)


def word_diff(before: str, after: str) -> list[Words]:
    """The words of `after` against those of `before`, marking what was inserted or deleted;
    line ends ("\n") are kept as words."""
    old, new = _WORDS.findall(before), _WORDS.findall(after)
    runs: list[Words] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            runs.append(Words("same", " ".join(old[a1:a2])))
            continue
        if op in ("delete", "replace"):
            runs.append(Words("del", " ".join(old[a1:a2])))
        if op in ("insert", "replace"):
            runs.append(Words("ins", " ".join(new[b1:b2])))
    return runs


# The parts of a standard point compared, by what each is called on the page.
LABELS = {
    "standard": gettext_lazy("The standard"),
    "measured": gettext_lazy("How it is measured"),
    "record_keeping": gettext_lazy("Record keeping"),
    "guidance": gettext_lazy("Guidance"),
    "audit_points": gettext_lazy("Audit points"),
    "answers": gettext_lazy("Answers"),
    "score": gettext_lazy("Score"),
}


def _texts(point: Point) -> dict[str, str]:
    p = point.point
    measured, record_keeping, guidance = point.plain_lines()
    critical = pgettext("an answer", "(critical)")
    return {
        "standard": p.assessment_question or "",
        "measured": measured,
        "record_keeping": record_keeping,
        "guidance": guidance,
        "audit_points": "\n".join(_one_line(a.item_text) for a in point.audit_points),
        "answers": "\n".join(
            _one_line(a.answer_text) + (f" {critical}" if a.critical_point else "")
            for a in point.answers
        ),
        "score": "" if p.score is None else f"{p.score:g}",
    }


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def compare_points(live: list[Point], preview: list[Point]) -> list[PointChange]:
    before = {p.reference: p for p in live}
    after = {p.reference: p for p in preview}
    changes = []
    for reference, new in after.items():
        old = before.get(reference)
        if old is None:
            changes.append(PointChange(ADDED, reference, new.point.assessment_question or ""))
            continue
        old_texts, new_texts = _texts(old), _texts(new)
        fields = [
            FieldChange(LABELS[part], word_diff(old_texts[part], new_texts[part]))
            for part in new_texts
            if old_texts[part] != new_texts[part]
        ]
        if fields:
            changes.append(PointChange(REWORDED, reference, new.point.assessment_question or "",
                                       fields))  # fmt: skip
    for reference, old in before.items():
        if reference not in after:
            changes.append(PointChange(REMOVED, reference, old.point.assessment_question or ""))
    return sorted(changes, key=lambda c: _reference_order(c.reference))


def _reference_order(reference: str) -> tuple:
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in reference.split("."))  # fmt: skip


def compare_section(
    key: str, live: records.SectionData | None, preview: records.SectionData | None
) -> SectionChange:
    name = (preview or live).section_name or key
    if live is None:
        kind = "added"
    elif preview is None:
        kind = "removed"
    else:
        kind = "changed"
    points = compare_points(arrange(live) if live else [], arrange(preview) if preview else [])
    if kind == "changed" and not points:
        kind = "unchanged"
    what = sanitise(preview.what_has_changed) if preview else ""
    return SectionChange(key, name, kind, what, points)
