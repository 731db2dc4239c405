"""Portal users in Django's admin, branded as the portal: staff rights granted and taken away
(recorded in the audit trail), and every session of a user ended (as from the dashboard's line
of a user: portal.accounts.session.end_every_session); and django-axes's failed sign-ins, by
username and address (portal.accounts.lockout), a lockout lifted by deleting its row."""

from __future__ import annotations

from typing import Any

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import AbstractUser
from django.db.models import QuerySet
from django.forms import ModelForm
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from portal.accounts import lockout
from portal.accounts.session import end_every_session

admin.site.site_header = gettext_lazy("Assurance portal administration")
admin.site.site_title = gettext_lazy("Assurance portal admin")
admin.site.index_title = gettext_lazy("The portal's own records")

User = get_user_model()


admin.site.unregister(User)


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    list_display = ("username", "e_mail", "is_staff", "is_superuser", "is_active", "last_login")
    actions = ["end_all_sessions"]
    # No password here to set or change: users sign in through the Assurance service.
    fieldsets = (
        (None, {"fields": ("username", "email")}),
        (
            gettext_lazy("Rights"),
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
        ),
        (gettext_lazy("Dates"), {"fields": ("last_login", "date_joined")}),
    )
    readonly_fields = ("last_login", "date_joined")

    # "E-mail", as the portal writes it everywhere, not Django's "Email".
    @admin.display(description=gettext_lazy("E-mail address"), ordering="email")
    def e_mail(self, user: AbstractUser) -> str:
        return user.email

    def get_form(self, request: HttpRequest, obj: object = None, **kwargs: Any) -> type[ModelForm]:
        form = super().get_form(request, obj, **kwargs)
        if "email" in form.base_fields:
            form.base_fields["email"].label = _("E-mail address")
        return form

    @admin.action(description=gettext_lazy("End all their sessions (they must sign in again)"))
    def end_all_sessions(self, request: HttpRequest, users: QuerySet) -> None:
        for user in users:
            end_every_session(user, request)
        count = users.count()
        self.message_user(
            request,
            ngettext("Every session of %(count)s user(s) is ended.",
                     "Every session of %(count)s user(s) is ended.", count) % {"count": count},
            messages.SUCCESS,
        )  # fmt: skip


# Axes keeps no log of sign-ins (the audit trail does) nor of failures beyond its attempts.
admin.site.unregister([AccessAttempt, AccessLog, AccessFailureLog])


@admin.register(AccessAttempt)
class FailedSignInAdmin(AccessAttemptAdmin):
    # Axes' "clean up expired attempts" reads the time of a sign-in attempt, which an admin
    # page's request has not; the periodic sweep deletes them instead (lockout.forget_expired).
    actions: list[str] = []

    # Axes' own joins a number to "Attempt Remaining", which no catalogue can translate.
    @admin.display(description=gettext_lazy("Status"))
    def status(self, attempt: AccessAttempt) -> str:
        left = lockout.tries_left(attempt.failures_since_start)
        if not left:
            return _("Locked Out")
        return ngettext("%(count)s attempt left", "%(count)s attempts left", left) % {"count": left}
