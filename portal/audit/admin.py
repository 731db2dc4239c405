"""The audit trail in Django's admin: read-only, filtered by kind, date and user."""

from __future__ import annotations

from django.contrib import admin

from portal.audit.models import Event
from portal.lib.admin import ReadOnlyAdmin


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("at", "kind", "username", "client_address", "request_id")
    list_filter = ("kind", "at")
    date_hierarchy = "at"
    search_fields = ("username", "request_id", "client_address")
    list_select_related = ("user",)
    readonly_fields = ("kind", "at", "user", "username", "client_address", "request_id", "detail")
    show_full_result_count = False  # a trail of millions: no COUNT(*) of it on every page
