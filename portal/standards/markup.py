"""The markup of a standard point, written here rather than in a template.

A section page shows up to hundreds of points: Django's template engine takes about 40 ms for
300 of them, this about a tenth of that. Every value is escaped but the sanitised HTML fields.
"""

from __future__ import annotations

from html import escape

from django.utils.safestring import SafeString, mark_safe

from portal.standards.content import Point

_CRITICAL = '<span class="badge badge-critical">Critical</span>'


def _score(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def point_markup(p: Point, link: str, *, open_: bool = False) -> str:
    """One point as a `<details>` element that folds open; `link` is its permanent address."""
    point, revision = p.point, p.point.revision_status or ""
    summary = [
        f'<span class="code">{escape(p.reference)}</span>',
        f'<span class="point-question">{escape(point.assessment_question or "")}</span>',
    ]
    if p.is_critical:
        summary.append(_CRITICAL)
    if revision and revision != "Unchanged":
        summary.append(f'<span class="badge">{escape(revision)}</span>')
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
        items = "".join(
            f'<li><span class="code">{escape(a.reference or "")}</span> '
            f"{escape(a.item_text or '')}</li>"
            for a in p.audit_points
        )
        body.append(f'<h4>What the assessor checks</h4><ul class="audit-points">{items}</ul>')
    if p.answers:
        items = "".join(
            f'<li class="answer-critical"><strong class="badge badge-critical">Critical</strong> '
            f"{escape(a.answer_text or '')}</li>"
            if a.critical_point
            else f"<li>{escape(a.answer_text or '')}</li>"
            for a in p.answers
        )
        body.append(f'<h4>Answers</h4><ul class="answers">{items}</ul>')
    facts = []
    if point.score is not None:
        facts.append(f"Score {_score(point.score)}")
    if revision:
        facts.append(escape(revision))
    if p.aims:
        facts.append("Aims: " + ", ".join(escape(aim.name or "") for aim in p.aims))
    facts.append(f'<a href="{escape(link)}">Link to {escape(p.reference)}</a>')
    body.append(f'<p class="point-facts muted">{" · ".join(facts)}</p>')
    classes = "point point-critical" if p.is_critical else "point"
    return (
        f'<details class="{classes}" id="{p.anchor}"{" open" if open_ else ""}>'
        f"<summary>{''.join(summary)}</summary>"
        f'<div class="point-body">{"".join(body)}</div></details>'
    )


def points_markup(points: list[Point], point_base: str) -> SafeString:
    """Every point in turn; `point_base` is the address that a reference completes."""
    html = "".join(point_markup(p, f"{point_base}{p.reference}/") for p in points)
    return mark_safe(html)  # noqa: S308 (built from escaped values and sanitised HTML)
