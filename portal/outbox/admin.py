"""Webhooks in Django's admin, for staff to read: endpoints (never their secrets) and each
delivery with its attempts. Owners change their endpoints on their own pages."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from portal.lib.admin import DatedAdmin
from portal.outbox.models import Attempt, Delivery, Endpoint


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Endpoint)
class EndpointAdmin(ReadOnly, DatedAdmin):
    list_display = ("id", "url", "business_name", "site", "enabled", "failing_since", "created")
    list_filter = ("enabled", "created")
    search_fields = ("url", "business_name", "membership_guid", "site__name")
    list_select_related = ("site",)
    date_hierarchy = "created"
    exclude = ("secret", "previous_secret")


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    fields = ("at", "status", "milliseconds", "trouble", "answer")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Delivery)
class DeliveryAdmin(ReadOnly, DatedAdmin):
    list_display = ("id", "event", "endpoint", "state", "tries", "last_status", "next_attempt")
    list_filter = ("state", "created")
    search_fields = ("event__uid", "event__type", "endpoint__url")
    list_select_related = ("event", "endpoint")
    date_hierarchy = "created"
    inlines = [AttemptInline]
