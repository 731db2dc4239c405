"""The markup of a standard point, written here rather than in a template.

A section page shows up to hundreds of points: Django's template engine takes about 40 ms for
300 of them, this about a twentieth of that. Every value is escaped but the sanitised HTML fields.
"""

from __future__ import annotations

from html import escape

from django.utils.safestring import SafeString

from portal.standards.content import Point

_CRITICAL = '<span class="badge badge-critical">Critical</span>'
_CRITICAL_ANSWER = (
    '<li class="answer-critical"><strong class="badge badge-critical">Critical</strong> {}</li>'
)


def _text(value: str | None) -> str:
    """`value` escaped for an element's text, where only &, < and > mean anything (quotes are
    escaped only in attributes). Most values have none of them, and are returned as they are."""
    if not value:
        return ""
    if "&" in value or "<" in value or ">" in value:
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return value


def _score(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def point_markup(p: Point, link: str, *, open_: bool = False) -> str:
    """One point as a `<details>` element that folds open; `link` is its permanent address."""
    point, revision = p.point, p.point.revision_status or ""
    reference, critical = _text(p.reference), p.is_critical
    summary = (
        f'<span class="code">{reference}</span>'
        f'<span class="point-question">{_text(point.assessment_question)}</span>'
    )
    if critical:
        summary += _CRITICAL
    if revision and revision != "Unchanged":
        summary += f'<span class="badge">{_text(revision)}</span>'
    body = [
        f'<h4>{title}</h4><div class="html">{html}</div>'
        for title, html in (
            ("How it is measured", p.guidelines),
            ("Record keeping", p.record_keeping),
            ("Guidance", p.guidance),
        )
        if html
    ]
    if p.audit_points:
        items = "".join([
            f'<li><span class="code">{_text(a.reference)}</span> {_text(a.item_text)}</li>'
            for a in p.audit_points
        ])  # fmt: skip
        body.append(f'<h4>What the assessor checks</h4><ul class="audit-points">{items}</ul>')
    if p.answers:
        items = "".join([
            _CRITICAL_ANSWER.format(_text(a.answer_text))
            if a.critical_point
            else f"<li>{_text(a.answer_text)}</li>"
            for a in p.answers
        ])  # fmt: skip
        body.append(f'<h4>Answers</h4><ul class="answers">{items}</ul>')
    facts = []
    if point.score is not None:
        facts.append(f"Score {_score(point.score)}")
    if revision:
        facts.append(_text(revision))
    if p.aims:
        facts.append("Aims: " + ", ".join([_text(aim.name) for aim in p.aims]))
    facts.append(f'<a href="{escape(link)}">Link to {reference}</a>')
    body.append(f'<p class="point-facts muted">{" · ".join(facts)}</p>')
    classes = "point point-critical" if critical else "point"
    return (
        f'<details class="{classes}" id="{p.anchor}"{" open" if open_ else ""}>'
        f"<summary>{summary}</summary>"
        f'<div class="point-body">{"".join(body)}</div></details>'
    )


def points_markup(points: list[Point], point_base: str) -> SafeString:
    """Every point in turn; `point_base` is the address that a reference completes."""
    return SafeString("".join([point_markup(p, f"{point_base}{p.reference}/") for p in points]))
