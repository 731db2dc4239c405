"""The staff dashboard (`/staff/`): is the portal working, is the Assurance service answering,
is anyone locked out, are jobs stuck, how much is it used, and who signed in (whose sessions
staff can end from their line). Staff only: anyone else signed in gets 403, and someone signed
out the sign-in page. Its figures refresh every 30 seconds (htmx)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from portal.accounts.decorators import staff_only
from portal.accounts.session import end_every_session
from portal.dashboard import figures
from portal.lib.htmx import wants_fragment

TEMPLATE = "dashboard/dashboard.html"
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


@require_safe
@never_cache
@staff_only
@vary_on_headers("HX-Request")
def index(request: HttpRequest) -> HttpResponse:
    calls, slowest, errors = figures.service_by_hour()
    last_hour = figures.operations(HOUR)
    context = {
        "now": figures.now(last_hour),
        "operations_hour": last_hour,
        "operations_day": figures.operations(DAY),
        "last_errors": figures.last_errors(),
        "use": figures.use(DAY),
        "people": figures.people(DAY),
        "jobs": figures.jobs(DAY),
        "job_states": figures.JOB_STATES,
        "charts": [figures.passports_a_day(), calls, slowest, errors],
    }
    template = f"{TEMPLATE}#figures" if wants_fragment(request) else TEMPLATE
    return render(request, template, context)


@require_POST
@staff_only
def end_sessions(request: HttpRequest, user_id: int) -> HttpResponse:
    """Every session of the user on the line ended (they must sign in again), and back to the
    dashboard saying so."""
    user = get_object_or_404(get_user_model(), pk=user_id)
    end_every_session(user, request)
    messages.success(request, _("Every session of %(username)s is ended: they must sign in "
                                "again.") % {"username": user.get_username()})  # fmt: skip
    return HttpResponseRedirect(reverse("dashboard:index") + "#people-heading")
