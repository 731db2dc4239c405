"""Lists page by cursor, every list the same way (`page_of`): ordered by when each thing last
changed, then by id; `updated_since` gives what changed since then (a changes feed), and each
page's `next_cursor` continues after its last item, `has_more` saying whether more are there
now. Keep the last cursor to ask again later for what changed since.

A cursor is opaque: signed with the portal's secret key for its list, so a cursor altered by
hand, or one of another list, is refused (400, `cursor_invalid`, its field named) rather than
read as some other place in the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.core import signing
from django.db.models import Model, Q, QuerySet
from django.utils.translation import gettext as _
from ninja import Field, Schema
from pydantic import AwareDatetime, field_validator

from portal.api.errors import ApiError

MOST = 500  # the most records a call gives or takes
DEFAULT = 50


class ListQuery(Schema):
    """The query of every list: `cursor`, `limit` and `updated_since`."""

    cursor: str | None = Field(None, max_length=500, description="From the page before.")
    limit: int = Field(DEFAULT, ge=1, le=MOST, description=f"Items a page, 1 to {MOST}.")
    updated_since: AwareDatetime | None = Field(
        None, description="Only what changed at or after this time (ISO 8601, with its offset)."
    )

    @field_validator("updated_since")
    @classmethod
    def in_utc(cls, value: datetime | None) -> datetime | None:
        """The time in UTC: the database takes offsets of at most 15:59 hours."""
        try:
            return value.astimezone(UTC) if value is not None else None
        except OverflowError:
            raise ValueError(_("This time is out of the range of times.")) from None


@dataclass(frozen=True)
class Page[T: Model]:
    items: list[T]
    next_cursor: str | None
    has_more: bool


def page_of[T: Model](
    queryset: QuerySet[T], query: ListQuery, *, name: str, changed: str = "updated"
) -> Page[T]:
    """The page of `queryset` that `query` asks for, ordered by its field `changed`, then id."""
    listed = queryset.order_by(changed, "pk")
    if query.updated_since is not None:
        listed = listed.filter(**{f"{changed}__gte": query.updated_since})
    if query.cursor:
        at, pk = _read(query.cursor, name)
        listed = listed.filter(Q(**{f"{changed}__gt": at}) | Q(**{changed: at, "pk__gt": pk}))
    items = list(listed[: query.limit + 1])
    has_more = len(items) > query.limit
    items = items[: query.limit]
    after = _written(getattr(items[-1], changed), items[-1].pk, name) if items else query.cursor
    return Page(items, after, has_more)


def _written(at: datetime, pk: int, name: str) -> str:
    return signing.dumps([at.isoformat(), pk], salt=_salt(name))


def _read(cursor: str, name: str) -> tuple[datetime, int]:
    try:
        at, pk = signing.loads(cursor, salt=_salt(name))
        return datetime.fromisoformat(at), int(pk)
    except (signing.BadSignature, ValueError, TypeError):
        message = _("This cursor is not one this list gave: send the next_cursor as it came.")
        raise ApiError(400, "cursor_invalid", message, {"cursor": [message]}) from None


def _salt(name: str) -> str:
    return f"portal.api.cursor.{name}"
