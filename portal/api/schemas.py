"""What every route's schemas share: an input refuses a field it does not know (422, the field
named), and the error shape is documented with each route's answers (`answers`)."""

from __future__ import annotations

from typing import Any

from ninja import Schema
from pydantic import ConfigDict

from portal.api.paging import Page

# The error answers every route may give (its token refused, a scope missing, not found, ...).
ERROR_STATUSES = frozenset({400, 401, 403, 404, 409, 411, 413, 422, 429, 503})


class Input(Schema):
    """A route's body: a field of any other name is refused, never ignored."""

    model_config = ConfigDict(extra="forbid")


class ErrorDetail(Schema):
    code: str
    message: str
    fields: dict[str, list[str]]


class ErrorOut(Schema):
    """Every error, whatever the route: `{"error": {"code", "message", "fields"}}`."""

    error: ErrorDetail


def answers(**by_status: Any) -> dict[Any, Any]:
    """A route's `response=`: its own answers by status (`ok=Schema` for 200, `created=` for
    201), and the error shape for the errors every route may give."""
    named = {"ok": 200, "created": 201}
    return {named.get(name, name): schema for name, schema in by_status.items()} | {
        ERROR_STATUSES: ErrorOut
    }


def page_out(page: Page, shown: Any) -> dict[str, Any]:
    """A page of a list as its schema gives it: `items` (each `shown(item)`), `next_cursor`
    and `has_more`."""
    return {"items": [shown(item) for item in page.items], "next_cursor": page.next_cursor,
            "has_more": page.has_more}  # fmt: skip
