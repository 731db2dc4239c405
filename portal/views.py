"""The home page, which offers what its user can do, and the memberships panel."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.vary import vary_on_headers

from portal.accounts.session import user_credentials
from portal.assurance.errors import AssuranceError, AuthenticationRequired
from portal.assurance.service import client
from portal.intake.access import sites_of
from portal.intake.models import IntakeSite
from portal.lib.htmx import wants_fragment
from portal.passports import contacts


@dataclass(frozen=True)
class Offered:
    """What a home page offers its user: a grower's tasks (making and finding passports) and
    the intake sites they are a clerk of; the look-ups, to everyone."""

    grower: bool
    sites: list[IntakeSite]


def offered_to(request: HttpRequest) -> Offered:
    """What the signed-in user can do: a grower's tasks for a contact of any membership (the
    service's authorisation, kept a while; when the service cannot say now, offered all the
    same, and their pages say what is wrong), and the sites they are a clerk of."""
    try:
        grower = bool(contacts.memberships(request))
    except AuthenticationRequired:
        raise
    except AssuranceError:
        grower = True
    return Offered(grower, list(sites_of(request.user)))


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"offered": offered_to(request)})


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
