"""The webhook events of intake (portal.outbox): each entry added to a load's history, whatever
added it (a clerk's form, an upload, the sites' JSON door, a grower's query), is an event for
the endpoints of the site and of the passport's business, and of no one else, written in the
entry's own transaction (receivers connected in portal/intake/apps.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from portal.intake import queries
from portal.intake.models import LoadEntry
from portal.outbox import events
from portal.outbox.models import EventType

TYPES = {
    LoadEntry.Kind.RECORDED: EventType.LOAD_RECORDED,
    LoadEntry.Kind.CORRECTED: EventType.LOAD_CORRECTED,
    LoadEntry.Kind.QUERIED: EventType.QUERY_OPENED,
    LoadEntry.Kind.ANSWERED: EventType.QUERY_ANSWERED,
    LoadEntry.Kind.STOOD_BY: EventType.QUERY_ANSWERED,
}


def entry_added(sender: type, instance: LoadEntry, created: bool, raw: bool = False,
                **kwargs: Any) -> None:  # fmt: skip
    if created and not raw:
        announce(instance)


def entries_recorded(sender: type, entries: list[LoadEntry], **kwargs: Any) -> None:
    """For loads.many_recorded (an upload's rows)."""
    for entry in entries:
        announce(entry)


def announce(entry: LoadEntry) -> None:
    event_type = TYPES.get(entry.kind)
    if event_type is None:
        return
    _emit(event_type, entry)
    if entry.kind == LoadEntry.Kind.CORRECTED and _answers_a_query(entry):
        _emit(EventType.QUERY_ANSWERED, entry)


def _emit(event_type: str, entry: LoadEntry) -> None:
    load = entry.load
    passport = load.passport
    data = {
        "load": {"id": load.pk, "site": load.site.code, "ticket": load.ticket,
                 "passport": passport.short_code},
        "entry": {"id": entry.pk, "kind": entry.kind},
        # A correction's decision: the load's own copy is updated after its entry is written.
        "status": str((entry.figures or {}).get("decision") or load.decision),
        "url": f"{settings.PORTAL_URL}/api/v1/intake/loads/{load.pk}",
    }  # fmt: skip
    events.emit(event_type, data, membership_guid=passport.membership_guid, site_id=load.site_id)


def _answers_a_query(entry: LoadEntry) -> bool:
    before = entry.load.entries.filter(pk__lt=entry.pk).order_by("at", "pk")
    return queries.open_query(before) is not None
