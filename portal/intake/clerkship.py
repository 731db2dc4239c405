"""Whether the signed-in user is a clerk of any intake site, for every page that says so: the
header's "Intake" link, and the gate check's "Record" links (templates/passports/gate_check.html,
which cannot ask portal.intake itself: passports sit below intake). The context processor
`clerk` gives templates `intake_clerk`.

The header is on every page, and a warm page makes no database query (the user and the session
come from the cache too): the answer is kept in the shared cache with the generation of the
sites' clerks it was worked out from, and any change to who is a clerk of what starts a new
generation, so that a clerk made, or no longer one, is seen so on their next page."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from portal.intake.access import sites_of
from portal.intake.models import IntakeSite

KEPT_SECONDS = 5 * 60  # a bound on staleness should a change bypass the signals below
GENERATION = "intake:clerks:generation"


def clerk(request: HttpRequest) -> dict[str, object]:
    """The context processor: `intake_clerk`, true for a clerk of any site (asked only when a
    template reads it)."""
    user = request.user
    if not user.is_authenticated:
        return {"intake_clerk": False}
    return {"intake_clerk": SimpleLazyObject(lambda: is_a_clerk(user))}


def is_a_clerk(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Whether `user` is a clerk of any intake site, from the cache when it knows."""
    if not user.is_authenticated:
        return False
    key = f"intake:clerk:{user.pk}"
    kept = cache.get_many([GENERATION, key])
    generation = kept.get(GENERATION) or _new_generation()
    if isinstance(kept.get(key), tuple) and kept[key][0] == generation:
        return kept[key][1]
    answer = sites_of(user).exists()
    cache.set(key, (generation, answer), KEPT_SECONDS)
    return answer


def _new_generation() -> str:
    generation = uuid.uuid4().hex
    cache.set(GENERATION, generation, None)
    return generation


def forget_clerks() -> None:
    """Every kept answer is out of date: now, and again once the change is committed (a page
    between the two may have kept what the database said before it)."""
    _new_generation()
    transaction.on_commit(_new_generation)


@receiver(m2m_changed, sender=IntakeSite.clerks.through, dispatch_uid="intake.clerks_changed")
def clerks_changed(action: str, **kwargs: object) -> None:
    if action in ("post_add", "post_remove", "post_clear"):
        forget_clerks()


@receiver(post_delete, sender=IntakeSite, dispatch_uid="intake.site_deleted")
def site_deleted(**kwargs: object) -> None:
    forget_clerks()
