"""Jobs in Django's admin: every user's, by kind and state, with retry (a failed job, with the
credentials it keeps until it expires) and cancel as admin actions."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy, ngettext

from portal.jobs import actions
from portal.jobs.models import Job
from portal.lib.admin import DatedAdmin


@admin.register(Job)
class JobAdmin(DatedAdmin):
    list_display = ("id", "kind", "title", "owner", "state", "done", "total", "created",
                    "finished")  # fmt: skip
    list_filter = ("state", "kind", "created")
    search_fields = ("title", "owner__username", "message")
    list_select_related = ("owner",)
    date_hierarchy = "created"
    exclude = ("credential",)
    actions = ["retry_jobs", "cancel_jobs"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        return False

    @admin.action(description=gettext_lazy("Retry the failed jobs chosen, as their owners"))
    def retry_jobs(self, request: HttpRequest, jobs: QuerySet[Job]) -> None:
        retried = sum(actions.retry_as_staff(job) for job in jobs)
        left = jobs.count() - retried
        self.message_user(request, ngettext(
            "%(count)s job(s) queued again.", "%(count)s job(s) queued again.", retried
        ) % {"count": retried}, messages.SUCCESS)  # fmt: skip
        if left:
            self.message_user(request, ngettext(
                "%(count)s not retried: not failed, or their owner must sign in again to resume "
                "them.",
                "%(count)s not retried: not failed, or their owner must sign in again to resume "
                "them.", left) % {"count": left}, messages.WARNING)  # fmt: skip

    @admin.action(description=gettext_lazy("Cancel the jobs chosen (those not yet ended)"))
    def cancel_jobs(self, request: HttpRequest, jobs: QuerySet[Job]) -> None:
        cancelled = sum(actions.cancel(job) for job in jobs)
        self.message_user(request, ngettext(
            "%(count)s job(s) cancelled.", "%(count)s job(s) cancelled.", cancelled
        ) % {"count": cancelled}, messages.SUCCESS)  # fmt: skip
