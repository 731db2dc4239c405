"""The home page and the memberships panel."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.vary import vary_on_headers

from portal.accounts.session import user_credentials
from portal.assurance.service import client
from portal.lib.htmx import wants_fragment


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@login_required
@vary_on_headers("HX-Request")
def memberships(request: HttpRequest) -> HttpResponse:
    """The user's memberships and the state of their assurance claims, asked of the service
    each time (not the minute's copy the create form keeps): the panel is where the home page
    finds that the user's sign-in has ended or the service is down."""
    authorisation = client().authorisation(user_credentials(request))
    context = {"memberships": authorisation.memberships}
    template = "home.html#memberships" if wants_fragment(request) else "memberships.html"
    return render(request, template, context)
