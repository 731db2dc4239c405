"""Whose webhooks a signed-in user manages: those of each business they are a contact of now
(the service's authorisation, kept a while) and of each intake site they are a clerk of. An
endpoint of anyone else is not found."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from portal.intake import access as intake_access
from portal.outbox.endpoints import Owner
from portal.outbox.models import Endpoint
from portal.passports import contacts


@dataclass(frozen=True)
class Choice:
    """An owner the user may register endpoints for: its key in forms and addresses
    (`business-<guid>`, `site-<code>`), its name, and the owner itself."""

    key: str
    name: str
    owner: Owner


def owners_of(request: HttpRequest) -> list[Choice]:
    businesses = [
        Choice(f"business-{m.membership_guid}", m.business_name or m.membership_guid,
               Owner(membership_guid=m.membership_guid, business_name=m.business_name or ""))
        for m in contacts.memberships(request) if m.membership_guid
    ]  # fmt: skip
    sites = [
        Choice(f"site-{site.code}", _site_name(site.name), Owner(site_id=site.pk))
        for site in intake_access.sites_of(request.user)
    ]
    return businesses + sites


def endpoints_of(owners: list[Choice]) -> QuerySet[Endpoint]:
    guids = [c.owner.membership_guid for c in owners if c.owner.membership_guid]
    sites = [c.owner.site_id for c in owners if c.owner.site_id]
    return Endpoint.objects.filter(Q(membership_guid__in=guids) | Q(site_id__in=sites))


def endpoint_of(request: HttpRequest, pk: int) -> Endpoint:
    """The endpoint, if the user manages it now; Http404 otherwise (as for no endpoint)."""
    endpoint = Endpoint.objects.select_related("site").filter(pk=pk).first()
    if endpoint is None or not may_manage(request, endpoint):
        raise Http404("No such endpoint of yours.")
    return endpoint


def may_manage(request: HttpRequest, endpoint: Endpoint) -> bool:
    if endpoint.site is not None:
        return intake_access.is_clerk(request.user, endpoint.site)
    return contacts.is_contact(request, endpoint.membership_guid)


def owner_name(endpoint: Endpoint) -> str:
    if endpoint.site is not None:
        return _site_name(endpoint.site.name)
    return endpoint.business_name or endpoint.membership_guid


def _site_name(name: str) -> str:
    return _("%(site)s (intake site)") % {"site": name}
