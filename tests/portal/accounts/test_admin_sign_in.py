"""/admin/ for those Django's admin does not let in: staff sign in through the service like
everyone else; a signed-in user who is not staff gets the 403 page, not a redirect loop."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.portal.accounts.helpers import sign_in

pytestmark = pytest.mark.django_db


def test_a_signed_in_user_who_is_not_staff_gets_the_403_page(grower):
    response = grower.get("/admin/", follow=True)
    assert response.status_code == 403
    assert response.templates[0].name == "errors/403.html"
    assert response.redirect_chain == [("/admin/login/?next=/admin/", 302)]


def test_an_anonymous_user_signs_in_and_comes_back(client, upstream_sandbox):
    response = client.get("/admin/", follow=True)
    assert response.redirect_chain == [
        ("/admin/login/?next=/admin/", 302),
        ("/accounts/sign-in/?next=%2Fadmin%2F", 302),
    ]
    assert response.status_code == 200
    get_user_model().objects.create(username="grower", is_staff=True)
    signed_in = sign_in(client, "grower", next_path="/admin/")
    assert signed_in.url == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_staff_at_the_admins_sign_in_go_on_to_the_admin(grower):
    get_user_model().objects.filter(username="grower").update(is_staff=True)
    response = grower.get("/admin/login/?next=/admin/auth/")
    assert response.status_code == 302
    assert response.url == "/admin/auth/"
