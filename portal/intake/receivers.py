"""Who is made a clerk of an intake site, or no longer one, recorded in the audit trail as
staff rights are (portal/audit/receivers.py): from either side (a site's clerks in the admin,
a user's sites, `grant_intake`), with who changed them and from where."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Model
from django.db.models.signals import m2m_changed
from django.dispatch import receiver

from portal.audit.events import Kind, record
from portal.audit.middleware import acting_request
from portal.audit.receivers import COMMAND_LINE
from portal.intake.models import IntakeSite

User = get_user_model()


@receiver(m2m_changed, sender=IntakeSite.clerks.through, dispatch_uid="intake.clerks_audited")
def clerks_changed(
    sender: type[Model],
    instance: Model,
    action: str,
    reverse: bool,
    pk_set: set[int] | None,
    **kwargs: object,
) -> None:
    if action in ("pre_remove", "pre_clear"):  # the links there are, before they go
        instance._intake_removing = _links(sender, instance, reverse, pk_set)
    elif action in ("post_remove", "post_clear"):
        _record("removed", instance.__dict__.pop("_intake_removing", set()))
    elif action == "post_add" and pk_set:
        pairs = {(pk, instance.pk) if reverse else (instance.pk, pk) for pk in pk_set}
        _record("added", pairs)


def _links(
    through: type[Model], instance: Model, reverse: bool, pk_set: set[int] | None
) -> set[tuple[int, int]]:
    """(site pk, user pk) of the links there are."""
    links = through.objects.filter(**{"user_id" if reverse else "intakesite_id": instance.pk})
    if pk_set is not None:
        links = links.filter(**{"intakesite_id__in" if reverse else "user_id__in": pk_set})
    return set(links.values_list("intakesite_id", "user_id"))


def _record(how: str, links: set[tuple[int, int]]) -> None:
    sites = IntakeSite.objects.in_bulk({site for site, _ in links})
    users = User.objects.in_bulk({user for _, user in links})
    request = acting_request.get()
    by = "" if request is not None else COMMAND_LINE
    for site_pk, user_pk in sorted(links):
        record(Kind.INTAKE_CLERKS, request, username=by, of=users[user_pk].get_username(),
               site=sites[site_pk].code, change=how)  # fmt: skip
