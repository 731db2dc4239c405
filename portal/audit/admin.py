"""The audit trail in Django's admin: read-only, filtered by kind and date, searched by user,
request id and client address; a trail of millions paged without counting every event."""

from __future__ import annotations

from django.contrib import admin

from portal.audit.models import Event
from portal.lib.admin import EstimatedCountPaginator, ReadOnlyAdmin


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("at", "kind", "username", "client_address", "request_id")
    # By date: today, the past 7 days, this month or year. No date hierarchy: its years, months
    # and days are a DISTINCT over every event on every page.
    list_filter = ("kind", "at")
    search_fields = ("username", "request_id", "client_address")
    list_select_related = ("user",)
    readonly_fields = ("kind", "at", "user", "username", "client_address", "request_id", "detail")
    # A trail of millions: no COUNT(*) of all of it on every page, filtered or not.
    show_full_result_count = False
    paginator = EstimatedCountPaginator
