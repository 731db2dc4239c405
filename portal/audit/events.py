"""Recording to the audit trail: `record(Event.Kind.SIGN_IN, request)` from the place where the
thing was done, with the request (for its user, client address and id) or, on a worker, the
user. Short codes are recorded only as keyed hashes (`code_hash`): the trail can tell that the
same code was looked up again, not which code it was.

A look-up's event is committed without waiting for the disk (portal.lib.commits): the look-up
is the page hit at every gate, and its event written so took 1.1 to 1.4 ms here, against 3.2
to 3.8 ms waiting for the disk. A crash of the database server may lose the look-ups of its last
fraction of a second, never another kind of event: those wait for the disk as before.
"""

from __future__ import annotations

from contextlib import nullcontext
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet
from django.db.models.functions import Now
from django.http import HttpRequest
from django.utils.crypto import salted_hmac

from portal.audit.models import Event
from portal.lib.client_address import client_address
from portal.lib.commits import not_waiting_for_the_disk
from portal.operations.logs import request_id

Kind = Event.Kind
NOT_WAITING_FOR_THE_DISK = frozenset({Kind.LOOK_UP, Kind.LOOK_UP_LIMITED})


def record(
    kind: Event.Kind,
    request: HttpRequest | None = None,
    *,
    user: AbstractBaseUser | None = None,
    username: str = "",
    **detail: object,
) -> Event:
    """Appends one event: by `user` (else the request's signed-in user), from the request's
    client address, under the request's id (or the job's, on a worker)."""
    if user is None and request is not None and request.user.is_authenticated:
        user = request.user
    committed = not_waiting_for_the_disk() if kind in NOT_WAITING_FOR_THE_DISK else nullcontext()
    with committed:
        return Event.objects.create(
            kind=kind, user=user, username=username or (user.get_username() if user else ""),
            client_address=client_address(request) if request is not None else None,
            request_id=(getattr(request, "request_id", None) or request_id.get() or "")[:64],
            detail=detail,
        )  # fmt: skip


def code_hash(short_code: str) -> str:
    """A short code as the trail keeps it: a hash keyed by the portal's secret key."""
    return salted_hmac("portal.audit.short-code", short_code, algorithm="sha256").hexdigest()[:32]


def prune() -> int:
    """Removes the events past PORTAL_AUDIT_DAYS, the one way an event is removed; how many.
    Their age is told by the database's clock, the one its trigger judges them by."""
    past_keeping = Event.objects.filter(at__lt=Now() - timedelta(days=settings.PORTAL_AUDIT_DAYS))
    removed, _ = QuerySet.delete(past_keeping)  # past EventQuerySet's refusal
    return removed
