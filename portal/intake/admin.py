"""Intake sites in the admin: staff make them, name their clerks and keep their specifications.
Loads and their histories are shown, never changed here: clerks record them."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from portal.intake.models import IntakeSite, Load, LoadEntry, Specification


class SpecificationInline(admin.TabularInline):
    model = Specification
    extra = 1


@admin.register(IntakeSite)
class IntakeSiteAdmin(admin.ModelAdmin):
    list_display = ["name", "buyer_business", "code"]
    search_fields = ["name", "buyer_business", "code"]
    filter_horizontal = ["clerks"]
    inlines = [SpecificationInline]


class EntryInline(admin.TabularInline):
    model = LoadEntry
    fields = ["kind", "at", "by", "words", "figures", "verdict", "certificate"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Load)
class LoadAdmin(admin.ModelAdmin):
    list_display = ["ticket", "site", "passport", "net_kg", "decision", "created"]
    list_filter = ["decision", "site"]
    search_fields = ["ticket", "passport__short_code"]
    list_select_related = ["site", "passport"]
    list_per_page = 50
    inlines = [EntryInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
