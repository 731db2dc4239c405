"""Portal users in Django's admin, branded as the portal: staff rights granted and taken away
(recorded in the audit trail), and every session of a user ended.

Users sign in through the Assurance service and have no password here (theirs is unusable), so
a session is tied to that unusable password's hash (Django checks it on every request): a new
one ends every session the user has, on its next request, and their next sign-in starts afresh.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from portal.audit import events as audit

admin.site.site_header = "Assurance portal administration"
admin.site.site_title = "Assurance portal admin"
admin.site.index_title = "The portal's own records"

User = get_user_model()


def end_sessions(user: User, request: HttpRequest) -> None:
    """Ends every session `user` has (on its next request), and records who did it."""
    user.set_unusable_password()
    user.save(update_fields=["password"])
    audit.record(audit.Kind.SESSIONS_ENDED, request, ended_for=user.get_username(),
                 ended_for_id=user.pk)  # fmt: skip


admin.site.unregister(User)


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    list_display = ("username", "email", "is_staff", "is_superuser", "is_active", "last_login")
    actions = ["end_all_sessions"]
    # No password here to set or change: users sign in through the Assurance service.
    fieldsets = (
        (None, {"fields": ("username", "email")}),
        (
            "Rights",
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    readonly_fields = ("last_login", "date_joined")

    @admin.action(description="End all their sessions (they must sign in again)")
    def end_all_sessions(self, request: HttpRequest, users: QuerySet) -> None:
        for user in users:
            end_sessions(user, request)
        self.message_user(
            request, f"Every session of {users.count()} user(s) is ended.", messages.SUCCESS
        )
