"""`manage.py grant_staff`: staff rights for an Assurance account, by its username."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.portal.accounts.helpers import sign_in

pytestmark = pytest.mark.django_db


def grant(*args: str) -> str:
    out = StringIO()
    call_command("grant_staff", *args, stdout=out)
    return out.getvalue()


def test_it_makes_a_superuser():
    assert grant("grower", "--superuser") == "grower is now staff with every permission.\n"
    user = get_user_model().objects.get(username="grower")
    assert user.is_staff
    assert user.is_superuser
    assert not user.has_usable_password()


def test_it_makes_staff_without_every_permission():
    assert grant("grower") == "grower is now staff.\n"
    user = get_user_model().objects.get(username="grower")
    assert user.is_staff
    assert not user.is_superuser
    assert user.has_perms(["jobs.view_job", "audit.view_event", "auth.view_user"])
    assert not user.has_perm("auth.change_user")
    assert not user.has_perm("jobs.delete_job")


def test_it_revokes():
    grant("grower", "--superuser")
    assert grant("grower", "--revoke") == "grower is no longer staff.\n"
    user = get_user_model().objects.get(username="grower")
    assert not user.is_staff
    assert not user.is_superuser
    assert not user.has_perm("jobs.view_job")


def test_it_keeps_an_existing_users_details(client, upstream_sandbox):
    sign_in(client, "grower@example.com", "grower-demo-pass")
    grant("grower", "--superuser")
    user = get_user_model().objects.get()
    assert user.username == "grower"
    assert user.email == "grower@example.com"
    assert user.last_login is not None


def test_a_staff_user_sees_the_admin_link(client, upstream_sandbox):
    grant("grower", "--superuser")
    sign_in(client, "grower")
    assert get_user_model().objects.get(username="grower").is_superuser  # sign-in kept it
    assert b'<a href="/admin/">Admin</a>' in client.get("/").content
    assert client.get("/admin/").status_code == 200


def test_others_do_not_see_the_admin_link(client, upstream_sandbox):
    sign_in(client, "grower")
    assert b'href="/admin/"' not in client.get("/").content
    grant("grower", "--superuser")
    assert b'<a href="/admin/">Admin</a>' in client.get("/").content
    grant("grower", "--revoke")
    assert b'href="/admin/"' not in client.get("/").content
