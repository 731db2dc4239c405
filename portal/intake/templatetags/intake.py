"""`{% at_intake passport %}`: a passport's loads as recorded at intake, for its page (the
grower's; the public look-up shows none)."""

from __future__ import annotations

from django import template

from portal.intake.showing import loads_of

register = template.Library()


@register.inclusion_tag("intake/at_intake.html")
def at_intake(passport: object) -> dict[str, object]:
    return {"loads": loads_of(passport) if passport else []}
