"""A passport made elsewhere (on paper, by another system), added to the business's list by its
short code: fetched from the service with the user's own credentials, and recorded only if they
are a contact of its membership; otherwise they are told what they would be told of a code no
passport has, so that adding tells no one of another business's passports. Each try counts as a
look-up of the client's address (portal.passports.lookup)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.errors import NotFound, StatusNotValid
from portal.assurance.service import client
from portal.passports import contacts
from portal.passports.lookup import take_a_look_up
from portal.passports.models import Passport


class Refusal(Enum):
    """Why a code was not added, in the words the form says beside it."""

    TOO_MANY_LOOK_UPS = "too_many_look_ups"
    UNKNOWN = "unknown"
    CLAIM_NOT_VALID = "claim_not_valid"

    @property
    def said(self) -> str:
        """What the form says beside the code."""
        return str(REFUSED[self])


REFUSED = {
    Refusal.TOO_MANY_LOOK_UPS: _(
        "Too many passports looked up from here just now: try again in a minute."
    ),
    Refusal.UNKNOWN: _(
        "No passport of your business has that short code. Check the code on the passport and "
        "try again."
    ),
    Refusal.CLAIM_NOT_VALID: _(
        "The Assurance service shows this passport to no one while its membership's assurance "
        "claim is not valid, so it cannot be added now."
    ),
}


@dataclass(frozen=True, slots=True)
class Listed:
    """The passport of the code, on the business's list: added now, or listed already."""

    passport: Passport
    added_now: bool

    @property
    def said(self) -> str:
        if self.added_now:
            return gettext("Passport %(code)s is added to your business's list.") % {
                "code": self.passport.short_code
            }
        return gettext("Passport %(code)s is listed already.") % {"code": self.passport.short_code}


def add_by_code(request: HttpRequest, short_code: str) -> Listed | Refusal:
    """Adds the passport of `short_code` (as codes.normalise gives it) to the signed-in user's
    business's list, or says why not. Raises the client's other errors (AuthenticationRequired,
    Unavailable, ...)."""
    if not take_a_look_up(request).granted:
        return Refusal.TOO_MANY_LOOK_UPS
    recorded = Passport.objects.filter(short_code=short_code).first()
    if recorded is not None:
        if contacts.is_contact(request, recorded.membership_guid):
            return Listed(recorded, added_now=False)
        return Refusal.UNKNOWN
    try:
        found = client().passport(user_credentials(request), short_code)
    except NotFound:
        return Refusal.UNKNOWN
    except StatusNotValid:
        return Refusal.CLAIM_NOT_VALID
    if not contacts.is_contact(request, found.membership_guid):
        return Refusal.UNKNOWN
    return Listed(record_added(found, request.user), added_now=True)


def record_added(found: records.CropPassport, added_by: AbstractBaseUser) -> Passport:
    """The portal's record of `found`, a passport the service gave, added by its code by
    `added_by` (who must be a contact of its membership: the caller has checked)."""
    passport = Passport(membership_guid=found.membership_guid or "",
                        site_guid=found.site_guid or "", store_guid=found.store_guid or "",
                        made_by=added_by, origin=Passport.Origin.ADDED)  # fmt: skip
    passport.keep_record(found)
    passport.save()
    return passport
