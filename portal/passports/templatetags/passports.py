"""The one table of a passport's fields (portal.assurance.passport_fields) for templates: the
labels as the paper passport prints them, and each value as every page writes it."""

from __future__ import annotations

from django import template

from portal.assurance.passport_fields import FIELDS, PassportField, status_written

register = template.Library()


@register.simple_tag
def passport_fields() -> dict[str, PassportField]:
    """The fields by name: `{% passport_fields as field %}`, then `{{ field.crop_type.label }}`."""
    return FIELDS


@register.filter
def shown(passport: object, field: PassportField) -> str:
    """The field's value of `passport` (a record, or the portal's row of one) as a page writes
    it; "" for none: `{{ passport|shown:field.loading_date }}`."""
    return field.shown(getattr(passport, field.name))


@register.filter
def status_word(status: object) -> str:
    """An assurance claim's status as a page writes it, in the page's language:
    `{{ passport.status|status_word }}`."""
    return status_written(status)
