"""The events Django itself signals: signing in and out, and a user's staff rights changed
(from the admin, or `manage.py grant_staff`)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.http import HttpRequest

from portal.audit.events import Kind, record

RIGHTS = ("is_staff", "is_superuser", "is_active")


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


@receiver(pre_save, sender=get_user_model(), dispatch_uid="audit.rights_before")
def rights_before(
    sender: type, instance: AbstractBaseUser, update_fields: frozenset[str] | None, **kwargs: object
) -> None:
    """The rights the user had, kept on the instance for `rights_changed`."""
    if instance.pk and _may_change_rights(update_fields):
        instance._rights_before = sender.objects.filter(pk=instance.pk).values(*RIGHTS).first()


@receiver(post_save, sender=get_user_model(), dispatch_uid="audit.rights_changed")
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
        record(Kind.STAFF_RIGHTS, user=instance, **(changed or now))
