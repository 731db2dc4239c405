"""The staff dashboard (`/staff/`): is the portal working, is the Assurance service answering,
is anyone locked out, are jobs stuck, how much is it used. Staff only: anyone else signed in
gets 403, and someone signed out the sign-in page. Its figures refresh every 30 seconds (htmx)."""

from __future__ import annotations

from datetime import timedelta
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from portal.lib.htmx import wants_fragment
from portal.operations import dashboard

TEMPLATE = "operations/dashboard.html"
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


def staff_only(view: Any) -> Any:
    @wraps(view)
    @login_required
    def checked(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not request.user.is_staff:
            raise PermissionDenied("The dashboard is for the portal's staff.")
        return view(request, *args, **kwargs)

    return checked


@require_safe
@never_cache
@staff_only
@vary_on_headers("HX-Request")
def index(request: HttpRequest) -> HttpResponse:
    calls, errors = dashboard.service_by_hour()
    context = {
        "now": dashboard.now(),
        "operations_hour": dashboard.operations(HOUR),
        "operations_day": dashboard.operations(DAY),
        "last_errors": dashboard.last_errors(),
        "use": dashboard.use(DAY),
        "jobs": dashboard.jobs(DAY),
        "job_states": dashboard.JOB_STATES,
        "charts": [dashboard.passports_a_day(), calls, errors],
    }
    template = f"{TEMPLATE}#figures" if wants_fragment(request) else TEMPLATE
    return render(request, template, context)
