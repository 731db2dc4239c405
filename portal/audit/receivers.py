"""The events Django itself signals: signing in and out, and a user's rights changed (staff,
superuser, active, their groups and permissions, from either side: a user's groups or a
group's users), from the admin or `manage.py grant_staff`, recorded with who changed them and
from where: the signed-in user of the request being served, else the command line."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db.models import Model
from django.db.models.signals import m2m_changed, post_save, pre_save
from django.dispatch import receiver
from django.http import HttpRequest

from portal.audit.events import Kind, record
from portal.audit.middleware import acting_request

User = get_user_model()
RIGHTS = ("is_staff", "is_superuser", "is_active")
COMMAND_LINE = "command line"  # who changed rights, when no request was being served


@receiver(user_logged_in, dispatch_uid="audit.signed_in")
def signed_in(sender: type, request: HttpRequest, user: AbstractBaseUser, **kwargs: object) -> None:
    record(Kind.SIGN_IN, request, user=user)


@receiver(user_logged_out, dispatch_uid="audit.signed_out")
def signed_out(
    sender: type, request: HttpRequest, user: AbstractBaseUser | None, **kwargs: object
) -> None:
    if user is not None:
        record(Kind.SIGN_OUT, request, user=user)


def _may_change_rights(update_fields: frozenset[str] | None) -> bool:
    """Whether a save may change rights: not one of given fields only, none of them a right
    (a sign-in saving the user's last_login, their sessions ended saving the password)."""
    return update_fields is None or not update_fields.isdisjoint(RIGHTS)


@receiver(pre_save, sender=User, dispatch_uid="audit.rights_before")
def rights_before(
    sender: type, instance: AbstractBaseUser, update_fields: frozenset[str] | None, **kwargs: object
) -> None:
    """The rights the user had, kept on the instance for `rights_changed`."""
    if instance.pk and _may_change_rights(update_fields):
        instance._rights_before = sender.objects.filter(pk=instance.pk).values(*RIGHTS).first()


@receiver(post_save, sender=User, dispatch_uid="audit.rights_changed")
def rights_changed(
    sender: type,
    instance: AbstractBaseUser,
    created: bool,
    update_fields: frozenset[str] | None,
    **kwargs: object,
) -> None:
    if not _may_change_rights(update_fields):
        return
    before = instance.__dict__.pop("_rights_before", None) or dict.fromkeys(RIGHTS, None)
    now = {name: getattr(instance, name) for name in RIGHTS}
    if created and not (now["is_staff"] or now["is_superuser"]):
        return  # a new user, with no rights: their first sign-in records them
    changed = {
        name: now[name] for name in RIGHTS if before[name] is not None and before[name] != now[name]
    }
    if created or changed:
        record_rights_changed(instance, **(changed or now))


def record_rights_changed(user: AbstractBaseUser, **changes: object) -> None:
    """Records that `user`'s rights changed as `changes` says, by the signed-in user of the
    request being served and from its address, or else by the command line."""
    request = acting_request.get()
    by = "" if request is not None else COMMAND_LINE
    record(Kind.STAFF_RIGHTS, request, username=by, of=user.get_username(), **changes)


@receiver(m2m_changed, sender=User.groups.through, dispatch_uid="audit.groups_changed")
@receiver(
    m2m_changed, sender=User.user_permissions.through, dispatch_uid="audit.permissions_changed"
)
def memberships_changed(
    sender: type[Model],
    instance: Model,
    action: str,
    reverse: bool,
    model: type[Model],
    pk_set: set[int] | None,
    **kwargs: object,
) -> None:
    """A user's groups or permissions added or removed, from the user's side (`user.groups`)
    or the other's (`group.user_set`): one event for each user whose rights changed."""
    other = (instance if reverse else model)._meta.model_name  # "group" or "permission"
    if action in ("pre_remove", "pre_clear"):  # the links there are, before they go
        instance._audit_removing = _links(sender, other, instance, reverse, pk_set)
    elif action in ("post_remove", "post_clear"):
        _record_links(other, "removed", instance.__dict__.pop("_audit_removing", set()))
    elif action == "post_add" and pk_set:  # Django gives only the links it made
        _record_links(other, "added", {_link(instance, pk, reverse) for pk in pk_set})


def _link(instance: Model, pk: int, reverse: bool) -> tuple[int, int]:
    """(the user's pk, the group's or permission's pk)."""
    return (pk, instance.pk) if reverse else (instance.pk, pk)


def _links(
    through: type[Model], other: str, instance: Model, reverse: bool, pk_set: set[int] | None
) -> set[tuple[int, int]]:
    links = through.objects.filter(**{f"{other}_id" if reverse else "user_id": instance.pk})
    if pk_set is not None:
        links = links.filter(**{"user_id__in" if reverse else f"{other}_id__in": pk_set})
    return set(links.values_list("user_id", f"{other}_id"))


def _record_links(other: str, how: str, links: set[tuple[int, int]]) -> None:
    names = _names(other, {other_pk for _, other_pk in links})
    users = User.objects.in_bulk({user_pk for user_pk, _ in links})
    for user_pk, user in sorted(users.items()):
        changed = sorted(names[other_pk] for linked, other_pk in links if linked == user_pk)
        record_rights_changed(user, **{f"{other}s_{how}": changed})


def _names(other: str, pks: set[int]) -> dict[int, str]:
    """Groups by their name, permissions as `app_label.codename`."""
    if other == "group":
        return dict(Group.objects.filter(pk__in=pks).values_list("pk", "name"))
    permissions = Permission.objects.filter(pk__in=pks).select_related("content_type")
    return {p.pk: f"{p.content_type.app_label}.{p.codename}" for p in permissions}
