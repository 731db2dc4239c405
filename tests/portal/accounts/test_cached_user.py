"""The signed-in user and their session, read from the cache (portal/accounts/backends.py and
SESSION_ENGINE cached_db): a warm page needs no database at all, and a change to the user (made
inactive, staff rights given or taken, deleted) is seen on their very next request."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from tests.portal.pages import ADMIN_LINK, navigation
from tests.portal.standards.helpers import STORAGE, demo_references, main, shown_references

pytestmark = pytest.mark.django_db


@pytest.fixture
def grower(grower: Client) -> Client:
    """The demo grower, signed in, who has already been shown the section page once: their
    user, their session and the page are all in the cache."""
    assert grower.get(STORAGE).status_code == 200
    return grower


def navigation_of(response) -> str:
    assert response.status_code == 200
    return navigation(response.content.decode())


def grant_staff(*args: str) -> None:
    call_command("grant_staff", "grower", *args, stdout=StringIO())


def assert_sent_to_sign_in(response) -> None:
    assert response.status_code == 302
    assert response.url == f"/accounts/sign-in/?next={STORAGE}"


def test_a_warm_page_makes_no_database_query(grower, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = grower.get(STORAGE)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'title="Signed in as grower"' in page  # the page of the signed-in user
    assert shown_references(main(page)) == demo_references("crops", "CR.ST")


def test_a_user_made_inactive_is_signed_out_on_their_next_request(grower):
    user = get_user_model().objects.get(username="grower")
    user.is_active = False
    user.save()
    assert_sent_to_sign_in(grower.get(STORAGE))


def test_a_deleted_user_is_signed_out_on_their_next_request(grower):
    get_user_model().objects.get(username="grower").delete()
    assert_sent_to_sign_in(grower.get(STORAGE))
    assert 'title="Signed in as grower"' not in grower.get("/accounts/sign-in/").content.decode()


def test_staff_rights_show_on_the_next_page_and_go_with_revoke(grower):
    assert ADMIN_LINK not in navigation_of(grower.get(STORAGE))
    grant_staff()
    assert ADMIN_LINK in navigation_of(grower.get(STORAGE))
    assert grower.get("/admin/").status_code == 200
    grant_staff("--revoke")
    assert ADMIN_LINK not in navigation_of(grower.get(STORAGE))
    assert grower.get("/admin/").status_code == 302  # the admin sends them to sign in
