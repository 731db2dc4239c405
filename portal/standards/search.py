"""Search across a scheme: by reference (`CR.ST.3`) or by words, grouped by section."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from portal.assurance import records
from portal.lib.references import parse_reference
from portal.standards.addresses import sector_segment
from portal.standards.points import Point

MAX_WORDS = 8


@dataclass(slots=True)
class Hit:
    point: Point
    question: SafeString  # with the words marked
    context: SafeString  # where else the words were found, marked


@dataclass(slots=True)
class SectionHits:
    name: str
    sector: str  # as addresses hold it
    prefix: str
    hits: list[Hit] = field(default_factory=list)

    @classmethod
    def of(cls, entry: records.SectionEntry, hits: list[Hit]) -> SectionHits:
        return cls(entry.name or "", sector_segment(entry.sector_prefix), entry.prefix or "", hits)


def is_reference(query: str) -> bool:
    return parse_reference(query) is not None


def words_of(query: str) -> list[str]:
    return [w for w in re.findall(r"\w[\w'-]*", query.lower()) if len(w) > 1][:MAX_WORDS]


def _searchable(point: Point) -> list[str]:
    p = point.point
    return [
        p.assessment_question or "",
        *point.plain_texts(),
        *(a.item_text or "" for a in point.audit_points),
        *(a.answer_text or "" for a in point.answers),
    ]


def highlight(text: str, words: list[str]) -> SafeString:
    """`text` escaped, with each of `words` wrapped in <mark>."""
    if not words:
        return escape(text)
    pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)),
                         re.IGNORECASE)  # fmt: skip
    parts, last = [], 0
    for found in pattern.finditer(text):
        parts.append(escape(text[last : found.start()]))
        parts.append(f"<mark>{escape(found.group())}</mark>")
        last = found.end()
    parts.append(escape(text[last:]))
    return mark_safe("".join(parts))  # noqa: S308 (every piece escaped)


def _snippet(text: str, words: list[str], width: int = 90) -> str:
    lowered = text.lower()
    first = min((i for w in words if (i := lowered.find(w)) >= 0), default=0)
    start = max(0, first - width // 3)
    end = min(len(text), start + width * 2)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def matches(point: Point, query: str) -> Hit | None:
    """A hit if the point's reference starts with `query` (a reference), or if every word of
    `query` appears somewhere in the point."""
    if is_reference(query):
        wanted = query.strip().rstrip(".").upper()
        reference = point.reference.upper()
        if reference == wanted or reference.startswith(wanted + "."):
            return Hit(point, escape(point.point.assessment_question or ""), mark_safe(""))
        return None
    words = words_of(query)
    texts = _searchable(point)
    haystack = " ".join(texts).lower()
    if not words or not all(w in haystack for w in words):
        return None
    question = texts[0]
    others = [t for t in texts[1:] if any(w in t.lower() for w in words)]
    context = highlight(_snippet(others[0], words), words) if others else mark_safe("")
    return Hit(point, highlight(question, words), context)
