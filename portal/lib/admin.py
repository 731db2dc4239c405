"""What the portal's admin pages share."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.core.paginator import Paginator
from django.db import connections
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.functional import cached_property


class _DatesAsked(ChangeList):
    """Django's date hierarchy asks for the day, month or year after the one chosen, which the
    last of each (in 9999) does not have, and a date asked in the address (`at__year=0`) is
    found to be no date only when the list is counted: a date no list can show is refused as
    any malformed filter is (the list again, saying so), not answered with a server error."""

    def get_filters(self, request: HttpRequest) -> tuple[Any, ...]:
        try:
            return super().get_filters(request)
        except (OverflowError, ValueError) as error:
            raise IncorrectLookupParameters(error) from error

    def get_results(self, request: HttpRequest) -> None:
        try:
            super().get_results(request)
        except (OverflowError, ValueError) as error:
            raise IncorrectLookupParameters(error) from error


class DatedAdmin(admin.ModelAdmin):
    """An admin list filtered by dates that answers any date."""

    def get_changelist(self, request: HttpRequest, **kwargs: object) -> type[ChangeList]:
        return _DatesAsked


class ReadOnlyAdmin(DatedAdmin):
    """Records the admin shows to read and find, never to add, change or delete: the audit
    trail, the service's passports, the mail's history."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class EstimatedCountPaginator(Paginator):
    """Pages of a list whose whole table may hold millions of rows: the whole table is counted
    by PostgreSQL's estimate (`pg_class.reltuples`, which autovacuum's ANALYZE keeps), not by a
    COUNT(*) that reads every row on every page; a filtered or searched list, a table of fewer
    than ESTIMATED_FROM rows and SQLite are counted exactly. Django's admin shows the estimate
    as the list's count, so the last pages may be a few rows long or short of it until the next
    ANALYZE; sorted the other way, the list's far end comes first."""

    ESTIMATED_FROM = 100_000

    @cached_property
    def count(self) -> int:
        estimate = _estimated_rows(self.object_list)
        return estimate if estimate >= self.ESTIMATED_FROM else super().count


def _estimated_rows(rows: QuerySet) -> int:
    """PostgreSQL's estimate of the rows of the whole table `rows` reads, or -1 when `rows` are
    filtered, the table was never analysed or the database is not PostgreSQL."""
    connection = connections[rows.db]
    if rows.query.where or connection.vendor != "postgresql":
        return -1
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass",
                       [rows.model._meta.db_table])  # fmt: skip
        (estimate,) = cursor.fetchone()
    return estimate
