"""The portal's staff: users with staff rights, in the group "Portal staff", whose permissions
are what the dashboard and the admin's daily work need and no more: to read users (and end their
sessions), the audit trail, recorded passports and mailings, and jobs (and retry or cancel
them); to read failed sign-ins and lift a lockout; to make intake sites, keep their
specifications and name their clerks, make and revoke API tokens (their software's), and read
the loads recorded. Changing anyone's rights stays with superusers."""

from __future__ import annotations

from functools import reduce
from operator import or_

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import Group, Permission
from django.db.models import Q

GROUP = "Portal staff"
PERMISSIONS = (
    ("auth", "view_user"),
    ("audit", "view_event"),
    ("passports", "view_passport"),
    ("passports", "view_mailing"),
    ("jobs", "view_job"),
    # django-axes's failed sign-ins read, and a lockout lifted by deleting its row.
    ("axes", "view_accessattempt"),
    ("axes", "delete_accessattempt"),
    # Intake sites made and kept, their clerks named; loads and their histories read.
    ("intake", "view_intakesite"),
    ("intake", "add_intakesite"),
    ("intake", "change_intakesite"),
    ("intake", "view_specification"),
    ("intake", "add_specification"),
    ("intake", "change_specification"),
    ("intake", "delete_specification"),
    ("intake", "view_load"),
    ("intake", "view_loadentry"),
    # API tokens (of sites' software, of users) made (shown once) and revoked.
    ("api", "view_token"),
    ("api", "add_token"),
    ("api", "change_token"),
)


def grant(user: AbstractBaseUser, *, superuser: bool = False) -> None:
    """Staff rights for `user`: in the staff's group, with every permission if `superuser`."""
    user.is_staff = True
    user.is_superuser = superuser
    user.save()
    user.groups.add(staff_group())


def revoke(user: AbstractBaseUser) -> None:
    user.is_staff = user.is_superuser = False
    user.save()
    user.groups.remove(*Group.objects.filter(name=GROUP))


def staff_group() -> Group:
    """The staff's group, with its permissions as PERMISSIONS says (made again if changed)."""
    group, _ = Group.objects.get_or_create(name=GROUP)
    each = (Q(content_type__app_label=app, codename=codename) for app, codename in PERMISSIONS)
    group.permissions.set(Permission.objects.filter(reduce(or_, each)))
    return group
