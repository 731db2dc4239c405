"""The audit trail in Django's admin: read-only, filtered by kind and date, searched by user,
request id and client address; a trail of millions paged without counting every event."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from portal.audit.models import Event
from portal.lib.admin import EstimatedCountPaginator, ReadOnlyAdmin


class KindFilter(admin.SimpleListFilter):
    """By kind, every kind named in code offered in words (the column keeps no choices)."""

    title = gettext_lazy("kind")
    parameter_name = "kind"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return list(Event.Kind.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset.filter(kind=self.value()) if self.value() else queryset


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("at", "what", "username", "client_address", "request_id")
    # By date: today, the past 7 days, this month or year. No date hierarchy: its years, months
    # and days are a DISTINCT over every event on every page.
    list_filter = (KindFilter, "at")
    search_fields = ("username", "request_id", "client_address")
    list_select_related = ("user",)
    readonly_fields = ("what", "at", "user", "username", "client_address", "request_id", "detail")
    # A trail of millions: no COUNT(*) of all of it on every page, filtered or not.
    show_full_result_count = False
    paginator = EstimatedCountPaginator

    @admin.display(description=gettext_lazy("kind"), ordering="kind")
    def what(self, event: Event) -> str:
        return event.kind_label
