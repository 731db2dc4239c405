"""/accounts/sign-in/: signing in through the Assurance service."""

from __future__ import annotations

import contextlib
import json
from contextlib import closing

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session

from portal.accounts import credentials
from portal.accounts.refusals import FAILED, LOCKED_TO_NEW, WRONG
from portal.assurance import service
from portal.assurance.client import AssuranceClient
from portal.assurance.errors import AuthenticationFailed, LockoutActive, Unavailable
from tests.portal.accounts.helpers import error_summary, sign_in, upstream_calls

pytestmark = pytest.mark.django_db


def test_it_shows_the_form(client):
    response = client.get("/accounts/sign-in/?next=/memberships/")
    assert response.status_code == 200
    assert b'name="username"' in response.content
    assert b'name="password"' in response.content
    assert b'name="next" value="/memberships/"' in response.content


def test_it_signs_in_by_username_and_goes_home(client, upstream_sandbox):
    response = sign_in(client, "grower")
    assert response.status_code == 302
    assert response.url == "/"
    assert client.get("/").status_code == 200


def test_it_goes_to_a_safe_next(client, upstream_sandbox):
    response = sign_in(client, "grower", next_path="/memberships/")
    assert response.status_code == 302
    assert response.url == "/memberships/"


@pytest.mark.parametrize(
    "unsafe", ["https://evil.example.com/", "//evil.example.com/", "javascript:alert(1)"]
)
def test_it_ignores_an_unsafe_next(client, upstream_sandbox, unsafe):
    response = sign_in(client, "grower", next_path=unsafe)
    assert response.status_code == 302
    assert response.url == "/"


def test_it_mirrors_the_account_in_a_local_user(client, upstream_sandbox):
    sign_in(client, "grower")
    user = get_user_model().objects.get(username="grower")
    assert user.last_login is not None
    assert not user.has_usable_password()
    assert client.session["_auth_user_id"] == str(user.pk)


def test_it_signs_in_by_e_mail_under_the_services_username(client, upstream_sandbox):
    response = sign_in(client, "grower@example.com", "grower-demo-pass")
    assert response.status_code == 302
    user = get_user_model().objects.get()
    assert user.username == "grower"
    assert user.email == "grower@example.com"
    assert user.last_login is not None
    assert not user.has_usable_password()


def test_by_e_mail_it_never_names_the_user_by_the_address(client, upstream_sandbox, monkeypatch):
    def unavailable(token):
        raise Unavailable()

    monkeypatch.setattr(service.client(), "authorisation", unavailable)
    sign_in(client, "grower@example.com", "grower-demo-pass")
    assert not get_user_model().objects.filter(username="grower@example.com").exists()


def test_a_second_sign_in_reuses_the_local_user(client, upstream_sandbox):
    sign_in(client, "grower")
    client.post("/accounts/sign-out/")
    sign_in(client, "grower@example.com")
    assert get_user_model().objects.filter(username="grower").count() == 1


def test_it_keeps_the_token_encrypted_in_the_server_side_session(
    client, upstream_sandbox, monkeypatch
):
    issued = []
    login = service.client().login

    def spy(username: str, password: str, **kwargs):
        authorization = login(username, password, **kwargs)
        issued.append(authorization)
        return authorization

    monkeypatch.setattr(service.client(), "login", spy)
    response = sign_in(client, "grower", next_path="/memberships/")
    [authorization] = issued
    token = authorization.token
    assert token

    session = client.session
    assert credentials.decrypt(session[credentials.TOKEN_KEY]) == token
    assert credentials.expires(session) == authorization.expires

    row = Session.objects.get(session_key=session.session_key)
    assert token not in row.session_data
    assert token not in json.dumps(row.get_decoded())

    followed = client.get(response.url)
    home = client.get("/")
    fragment = client.get("/memberships/", headers={"HX-Request": "true"})
    for answer in (response, followed, home, fragment):
        assert token not in answer.content.decode()
        assert token not in str(answer.headers)
        assert token not in answer.get("Location", "")
        assert token not in answer.request["PATH_INFO"]
        assert token not in answer.request.get("QUERY_STRING", "")
    for cookie in client.cookies.values():
        assert token not in cookie.OutputString()


def test_it_changes_the_session_key(client, upstream_sandbox):
    session = client.session
    session["before"] = "sign-in"
    session.save()
    before = session.session_key
    client.get("/accounts/sign-in/")
    sign_in(client, "grower")
    assert client.session.session_key != before
    assert not Session.objects.filter(session_key=before).exists()


def test_it_says_when_the_credentials_are_wrong(client, upstream_sandbox, fresh_lockouts):
    response = sign_in(client, "grower", "not-the-password")
    assert response.status_code == 400
    assert error_summary(response) == FAILED
    assert "_auth_user_id" not in client.session


def test_it_says_how_many_tries_are_left_and_when_they_are_used_up(
    client, upstream_sandbox, fresh_lockouts
):
    answers = [sign_in(client, "grower", "not-the-password") for _ in range(3)]
    assert [a.status_code for a in answers] == [400, 400, 400]
    assert [error_summary(a) for a in answers] == [
        FAILED,
        f"{WRONG} You have one more try before only passwords that have worked here before "
        "are accepted.",
        f"{WRONG} {LOCKED_TO_NEW}",
    ]


def test_it_says_when_the_service_has_locked_sign_in(client, upstream_sandbox, fresh_lockouts):
    with closing(AssuranceClient(upstream_sandbox.url)) as elsewhere:
        for _ in range(5):  # the portal's address, from outside the portal
            with contextlib.suppress(AuthenticationFailed, LockoutActive):
                elsewhere.login("grower", "not-the-password")
    locked = (
        "The Assurance service has locked sign-in for everyone on this portal for about "
        "15 minutes after repeated failures."
    )
    response = sign_in(client, "grower")
    assert response.status_code == 429
    assert error_summary(response) == locked
    with upstream_calls() as calls:
        response = sign_in(client, "grower")
    assert response.status_code == 429
    assert error_summary(response) == locked
    assert calls == []
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"password": "grower-demo-pass"}, b"Enter your username or e-mail address."),
        ({"username": "grower"}, b"Enter your password."),
        ({"username": " ", "password": "grower-demo-pass"}, b"Enter your username"),
    ],
)
def test_it_catches_a_missing_field_before_calling_the_service(
    client, upstream_sandbox, data, message
):
    with upstream_calls() as calls:
        response = client.post("/accounts/sign-in/", data)
    assert response.status_code == 400
    assert message in response.content
    assert b"field-error" in response.content
    assert calls == []


def test_it_says_when_the_service_cannot_be_reached(client, settings):
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"
    service.client.cache_clear()
    try:
        response = sign_in(client, "grower")
    finally:
        service.client.cache_clear()
    assert response.status_code == 503
    assert b"cannot be reached" in response.content
    assert b"Traceback" not in response.content
    assert b"127.0.0.1:9" not in response.content
    assert "_auth_user_id" not in client.session


def test_a_signed_in_user_is_sent_on(client, upstream_sandbox):
    sign_in(client, "grower")
    response = client.get("/accounts/sign-in/?next=/memberships/")
    assert response.status_code == 302
    assert response.url == "/memberships/"
