"""`{% at_intake passport %}`: a passport's loads as recorded at intake, for its page (the
grower's; the public look-up shows none). `{% query_form_for load as form %}`,
`{% answer_form_for load as form %}` and `{% open_query_of load as query %}`: what the query's
and the answer's forms (intake/query_form.html, intake/answer_form.html) need where a page
includes them with the load alone."""

from __future__ import annotations

from django import template

from portal.intake import queries
from portal.intake.models import Load, LoadEntry
from portal.intake.showing import loads_of

register = template.Library()


@register.inclusion_tag("intake/at_intake.html")
def at_intake(passport: object) -> dict[str, object]:
    return {"loads": loads_of(passport) if passport else [], "for_grower": True}


@register.simple_tag
def query_form_for(load: Load) -> queries.QueryForm:
    return queries.QueryForm(load)


@register.simple_tag
def answer_form_for(load: Load) -> queries.AnswerForm:
    return queries.AnswerForm(load)


@register.simple_tag
def open_query_of(load: Load) -> LoadEntry | None:
    return queries.open_query_of(load)
