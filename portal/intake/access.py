"""Who may do what with intake results: a clerk records and sees the loads of their own sites
only; a contact of a passport's membership sees (and queries) its loads; anyone else sees
nothing of them. Staff read them in the admin."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import HttpRequest

from portal.intake.models import IntakeSite, Load
from portal.passports import contacts


def sites_of(user: AbstractBaseUser | AnonymousUser) -> QuerySet[IntakeSite]:
    """The sites `user` is a clerk of (none for anyone not signed in)."""
    if not user.is_authenticated:
        return IntakeSite.objects.none()
    return IntakeSite.objects.filter(clerks=user)


def is_clerk(user: AbstractBaseUser | AnonymousUser, site: IntakeSite) -> bool:
    return sites_of(user).filter(pk=site.pk).exists()


def is_growers(request: HttpRequest, load: Load) -> bool:
    """Whether the signed-in user is a contact of the membership of the load's passport now
    (the service's authorisation, kept a while)."""
    return request.user.is_authenticated and contacts.is_contact(
        request, load.passport.membership_guid
    )
