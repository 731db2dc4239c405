"""What the portal's admin pages share."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.db.models import Model
from django.http import HttpRequest


class _DatesAsked(ChangeList):
    """Django's date hierarchy asks for the day, month or year after the one chosen, which the
    last of each (in 9999) does not have: a date no list can show is refused as any malformed
    filter is (the list again, saying so), not answered with a server error."""

    def get_filters(self, request: HttpRequest) -> tuple[Any, ...]:
        try:
            return super().get_filters(request)
        except (OverflowError, ValueError) as error:
            raise IncorrectLookupParameters(error) from error


class DatedAdmin(admin.ModelAdmin):
    """An admin list with a date hierarchy that answers any date."""

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
