"""/accounts/sign-out/: ending the session, by POST only."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from tests.portal.accounts.helpers import sign_in

pytestmark = pytest.mark.django_db


def test_it_signs_out(client, upstream_sandbox):
    sign_in(client, "grower")
    key = client.session.session_key
    response = client.post("/accounts/sign-out/")
    assert response.status_code == 302
    assert response.url == "/accounts/sign-in/"
    assert not Session.objects.filter(session_key=key).exists()
    assert "You have signed out." in client.get(response.url).content.decode()
    home = client.get("/")
    assert home.status_code == 302
    assert home.url == "/accounts/sign-in/?next=/"


def test_it_refuses_a_get(client, upstream_sandbox):
    sign_in(client, "grower")
    response = client.get("/accounts/sign-out/")
    assert response.status_code == 405
    assert client.get("/").status_code == 200


def test_it_needs_the_csrf_token(upstream_sandbox):
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/sign-in/")
    token = client.cookies["csrftoken"].value
    assert sign_in(client, "grower", csrfmiddlewaretoken=token).status_code == 302
    assert client.post("/accounts/sign-out/").status_code == 403
    assert client.get("/").status_code == 200
