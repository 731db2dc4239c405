"""Rights changed (staff, superuser, active, groups and permissions, from a user's side or a
group's) are in the audit trail with whose they were, who changed them and from where: the
staff user in the admin and their client address, or the command line."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.test import Client

from portal.accounts import staff
from portal.audit.models import Event
from tests.portal.accounts.helpers import sign_in

pytestmark = pytest.mark.django_db

User = get_user_model()


def rights_changed() -> list[tuple[str, str | None, dict]]:
    """(by, from, detail) of each rights event, oldest first."""
    changed = Event.objects.filter(kind=Event.Kind.STAFF_RIGHTS).order_by("pk")
    return [(event.username, event.client_address, event.detail) for event in changed]


def grant_staff(*args: str) -> None:
    call_command("grant_staff", *args, stdout=StringIO())


def test_grant_staff_is_recorded_as_by_the_command_line():
    grant_staff("grower", "--superuser")
    grant_staff("grower", "--revoke")
    assert rights_changed() == [
        ("command line", None, {"of": "grower", "is_staff": True, "is_superuser": True}),
        ("command line", None, {"of": "grower", "groups_added": ["Portal staff"]}),
        ("command line", None, {"of": "grower", "is_staff": False, "is_superuser": False}),
        ("command line", None, {"of": "grower", "groups_removed": ["Portal staff"]}),
    ]


def test_revoking_rights_no_one_had_records_nothing():
    User.objects.create(username="grower")
    grant_staff("grower", "--revoke")
    assert rights_changed() == []


def test_the_admin_s_changes_are_recorded_with_the_staff_user_and_their_address(
    upstream_sandbox, settings
):
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    grant_staff("grower", "--superuser")
    admin = Client(headers={"X-Forwarded-For": "203.0.113.9"})
    assert sign_in(admin, "grower").status_code == 302
    partner = User.objects.create(username="partner")
    before = len(rights_changed())
    form = {"username": "partner", "is_active": "on", "is_staff": "on",
            "groups": [staff.staff_group().pk],
            "user_permissions": [Permission.objects.get(codename="view_job").pk],
            "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
            "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"}  # fmt: skip
    changed = admin.post(f"/admin/auth/user/{partner.pk}/change/", form)
    assert changed.status_code == 302, changed.content.decode()[:3000]
    assert rights_changed()[before:] == [
        ("grower", "203.0.113.9", {"of": "partner", "is_staff": True}),
        ("grower", "203.0.113.9", {"of": "partner", "groups_added": ["Portal staff"]}),
        ("grower", "203.0.113.9", {"of": "partner", "permissions_added": ["jobs.view_job"]}),
    ]
    assert Event.objects.order_by("pk").last().user.username == "grower"


def test_a_user_s_groups_changed_are_recorded():
    grower, group = User.objects.create(username="grower"), Group.objects.create(name="Auditors")
    grower.groups.add(group)
    grower.groups.add(group)  # already in it: nothing changed
    grower.groups.remove(group)
    grower.groups.remove(group)  # no longer in it: nothing changed
    grower.groups.set([group])
    grower.groups.clear()
    assert [detail for _, _, detail in rights_changed()] == [
        {"of": "grower", "groups_added": ["Auditors"]},
        {"of": "grower", "groups_removed": ["Auditors"]},
        {"of": "grower", "groups_added": ["Auditors"]},
        {"of": "grower", "groups_removed": ["Auditors"]},
    ]


def test_a_group_s_users_changed_are_recorded_for_each_user():
    grower, partner = User.objects.create(username="grower"), User.objects.create(username="b")
    group = Group.objects.create(name="Auditors")
    group.user_set.add(grower, partner)
    group.user_set.remove(partner)
    group.user_set.clear()
    assert rights_changed() == [
        ("command line", None, {"of": "grower", "groups_added": ["Auditors"]}),
        ("command line", None, {"of": "b", "groups_added": ["Auditors"]}),
        ("command line", None, {"of": "b", "groups_removed": ["Auditors"]}),
        ("command line", None, {"of": "grower", "groups_removed": ["Auditors"]}),
    ]


def test_a_permission_s_users_changed_are_recorded():
    grower = User.objects.create(username="grower")
    permission = Permission.objects.get(codename="change_user")
    permission.user_set.add(grower)
    grower.user_permissions.remove(permission)
    assert [detail for _, _, detail in rights_changed()] == [
        {"of": "grower", "permissions_added": ["auth.change_user"]},
        {"of": "grower", "permissions_removed": ["auth.change_user"]},
    ]
