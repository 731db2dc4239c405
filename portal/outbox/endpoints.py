"""Endpoints' own changes, for the pages and the API alike: registered with a new secret (shown
once), the secret rolled (the one it replaces signs too for a day), disabled, enabled again;
each recorded in the audit trail, with the request of the user who did it."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from portal.audit import events as audit
from portal.outbox import delivering, reasons
from portal.outbox.models import ROTATION, Endpoint, new_secret


@dataclass(frozen=True)
class Owner:
    """Whose endpoints these are: a business (its membership) or an intake site."""

    membership_guid: str = ""
    business_name: str = ""
    site_id: int | None = None


def enabled_of(owner: Owner) -> int:
    """How many enabled endpoints the owner has."""
    if owner.site_id:
        return Endpoint.objects.filter(site_id=owner.site_id, enabled=True).count()
    return Endpoint.objects.filter(membership_guid=owner.membership_guid, site=None,
                                   enabled=True).count()  # fmt: skip


def owner_of(endpoint: Endpoint) -> Owner:
    return Owner(membership_guid=endpoint.membership_guid, business_name=endpoint.business_name,
                 site_id=endpoint.site_id)  # fmt: skip


def register(
    owner: Owner,
    url: str,
    event_types: list[str],
    description: str,
    made_by: AbstractBaseUser | None,
    *,
    request: HttpRequest | None = None,
) -> tuple[Endpoint, str]:
    """The endpoint made, and its secret, to be shown this once."""
    secret = new_secret()
    endpoint = Endpoint(
        membership_guid="" if owner.site_id else owner.membership_guid,
        business_name="" if owner.site_id else owner.business_name, site_id=owner.site_id,
        url=url, event_types=sorted(set(event_types)), description=description, made_by=made_by,
    )  # fmt: skip
    endpoint.set_secret(secret)
    with transaction.atomic():
        endpoint.save()
        audit.record(audit.Kind.WEBHOOK_REGISTERED, request, user=made_by,
                     event_types=endpoint.event_types, **endpoint.audited())  # fmt: skip
    return endpoint, secret


def roll_secret(endpoint: Endpoint, *, request: HttpRequest | None = None) -> str:
    """A new secret for the endpoint, to be shown this once; the current one signs too for
    ROTATION (deliveries carry both signatures meanwhile), so its receiver can change over."""
    secret = new_secret()
    with transaction.atomic():
        locked = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
        locked.previous_secret = locked.secret
        locked.previous_until = timezone.now() + ROTATION
        locked.set_secret(secret)
        locked.save(update_fields=["secret", "previous_secret", "previous_until"])
        audit.record(audit.Kind.WEBHOOK_SECRET_ROLLED, request, **locked.audited())
    return secret


def disable(endpoint: Endpoint, *, request: HttpRequest | None = None) -> bool:
    return delivering.disable(endpoint, reasons.BY_OWNER, request=request)


def enable(endpoint: Endpoint, *, request: HttpRequest | None = None) -> bool:
    """The endpoint enabled again; its deliveries that failed meanwhile stay failed (its owner
    may send them again). False if it was enabled, or its owner has as many enabled as any
    may."""
    if enabled_of(owner_of(endpoint)) >= settings.PORTAL_WEBHOOK_ENDPOINTS_PER_OWNER:
        return False
    with transaction.atomic():
        enabled = Endpoint.objects.filter(pk=endpoint.pk, enabled=False).update(
            enabled=True, disabled_reason="", failing_since=None
        )
        if enabled:
            audit.record(audit.Kind.WEBHOOK_ENABLED, request, **endpoint.audited())
    return bool(enabled)


def change(endpoint: Endpoint, url: str, event_types: list[str], description: str) -> None:
    Endpoint.objects.filter(pk=endpoint.pk).update(
        url=url, event_types=sorted(set(event_types)), description=description
    )
