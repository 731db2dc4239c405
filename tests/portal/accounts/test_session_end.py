"""The end of a session other than by signing out: the upstream token expires or is no longer
accepted, or the user stays idle too long (portal.accounts.middleware)."""

from __future__ import annotations

import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.conf import settings as django_settings
from django.contrib.sessions.backends.cached_db import SessionStore
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.utils import timezone

from portal.accounts import credentials
from portal.accounts.middleware import SEEN_KEY, TOUCH_EVERY_SECONDS
from tests.portal.accounts.helpers import sign_in

pytestmark = pytest.mark.django_db

MONTH_AND_A_DAY = 31 * 24 * 60 * 60


def expire_token(client) -> None:
    session = client.session
    session[credentials.EXPIRES_KEY] = (timezone.now() - timedelta(seconds=1)).isoformat()
    session.save()


def assert_signed_out(client) -> None:
    assert "_auth_user_id" not in client.session
    assert credentials.TOKEN_KEY not in client.session
    assert client.get("/").url == "/accounts/sign-in/?next=/"


class TestTokenExpiry:
    def test_it_sends_the_user_to_sign_in_and_back(self, client, upstream_sandbox):
        sign_in(client, "grower")
        expire_token(client)
        response = client.get("/memberships/")
        assert response.status_code == 302
        assert response.url == "/accounts/sign-in/?next=%2Fmemberships%2F"
        assert_signed_out(client)
        page = client.get(response.url)
        assert b"Your sign-in has ended" in page.content
        assert b'name="next" value="/memberships/"' in page.content

    def test_an_htmx_request_gets_a_client_redirect(self, client, upstream_sandbox):
        sign_in(client, "grower")
        expire_token(client)
        response = client.get(
            "/memberships/",
            headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/"},
        )
        assert response.status_code == 200
        assert response["HX-Redirect"] == "/accounts/sign-in/?next=%2F"
        assert b"<form" not in response.content
        assert_signed_out(client)

    def test_the_token_is_kept_until_its_expiry(self, client, upstream_sandbox, monkeypatch):
        sign_in(client, "grower")
        expiry = credentials.expires(client.session)
        assert expiry is not None
        # the clock of credentials alone: the session's own expiry is an hour off
        at = SimpleNamespace(now=lambda: expiry - timedelta(seconds=1))
        monkeypatch.setattr(credentials, "timezone", at)
        assert client.get("/").status_code == 200
        at.now = lambda: expiry
        response = client.get("/")
        assert response.status_code == 302
        assert response.url == "/accounts/sign-in/?next=%2F"

    def test_an_unreadable_token_ends_the_session(self, client, upstream_sandbox):
        sign_in(client, "grower")
        session = client.session
        session[credentials.TOKEN_KEY] = "not a ciphertext"
        session.save()
        response = client.get("/memberships/")
        assert response.status_code == 302
        assert response.url == "/accounts/sign-in/?next=%2Fmemberships%2F"
        assert_signed_out(client)


class TestUpstreamRejection:
    def test_it_signs_the_user_out_and_back_to_where_they_were(
        self, client, upstream_sandbox, clock
    ):
        sign_in(client, "grower")
        upstream_sandbox.advance_clock(MONTH_AND_A_DAY)
        response = client.get("/memberships/")
        assert response.status_code == 302
        assert response.url == "/accounts/sign-in/?next=%2Fmemberships%2F"
        assert_signed_out(client)

        again = sign_in(client, "grower", next_path="/memberships/")
        assert again.status_code == 302
        assert again.url == "/memberships/"
        page = client.get(again.url)
        assert page.status_code == 200
        assert b"Hollowfield Farms Ltd" in page.content

    def test_an_htmx_request_gets_a_client_redirect_to_the_current_page(
        self, client, upstream_sandbox, clock
    ):
        sign_in(client, "grower")
        upstream_sandbox.advance_clock(MONTH_AND_A_DAY)
        response = client.get(
            "/memberships/",
            headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/"},
        )
        assert response.status_code == 200
        assert response["HX-Redirect"] == "/accounts/sign-in/?next=%2F"
        assert b"<form" not in response.content
        assert b"<html" not in response.content
        assert_signed_out(client)

        again = sign_in(client, "grower", next_path="/")
        assert again.url == "/"

    def test_an_htmx_request_from_another_site_is_not_sent_back_there(
        self, client, upstream_sandbox, clock
    ):
        sign_in(client, "grower")
        upstream_sandbox.advance_clock(MONTH_AND_A_DAY)
        response = client.get(
            "/memberships/",
            headers={"HX-Request": "true", "HX-Current-URL": "https://evil.example.com/x"},
        )
        location = response["HX-Redirect"]
        assert location.startswith("/accounts/sign-in/")
        assert "evil" not in location


def idle_past_the_time_out(client) -> None:
    """As if the idle time had passed: the session is out of date in the database and gone
    from the cache in front of it (whose entries expire with the session)."""
    key = client.session.session_key
    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    cache.delete(SessionStore(session_key=key).cache_key)


def last_seen_a_while_ago(client) -> None:
    session = client.session
    session[SEEN_KEY] = int(time.time()) - TOUCH_EVERY_SECONDS - 1
    session.save()


class TestIdleTime:
    def test_the_session_lasts_the_idle_time_from_the_last_request(self):
        assert django_settings.SESSION_SAVE_EVERY_REQUEST is False  # moved on once a minute
        assert django_settings.SESSION_COOKIE_AGE == django_settings.PORTAL_SESSION_IDLE_SECONDS
        assert django_settings.SESSION_COOKIE_HTTPONLY is True
        assert django_settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"

    def test_a_request_a_minute_after_the_last_refreshes_the_cookie(
        self, client, upstream_sandbox, settings
    ):
        sign_in(client, "grower")
        for path in ("/", "/memberships/"):
            last_seen_a_while_ago(client)
            response = client.get(path)
            cookie = response.cookies[settings.SESSION_COOKIE_NAME]
            assert int(cookie["max-age"]) == settings.SESSION_COOKIE_AGE

    def test_requests_within_a_minute_do_not_write_the_session(
        self, client, upstream_sandbox, settings
    ):
        sign_in(client, "grower")
        client.get("/")
        response = client.get("/")
        assert settings.SESSION_COOKIE_NAME not in response.cookies

    def test_a_request_a_minute_after_the_last_moves_the_expiry_on(self, client, upstream_sandbox):
        sign_in(client, "grower")
        last_seen_a_while_ago(client)
        key = client.session.session_key
        Session.objects.filter(session_key=key).update(
            expire_date=timezone.now() + timedelta(seconds=5)
        )
        client.get("/")
        row = Session.objects.get(session_key=key)
        assert row.expire_date > timezone.now() + timedelta(seconds=60)

    def test_an_idle_session_has_ended(self, client, upstream_sandbox):
        sign_in(client, "grower")
        idle_past_the_time_out(client)
        response = client.get("/memberships/")
        assert response.status_code == 302
        assert response.url == "/accounts/sign-in/?next=/memberships/"

    def test_an_htmx_request_after_an_idle_end_gets_a_client_redirect(
        self, client, upstream_sandbox
    ):
        sign_in(client, "grower")
        idle_past_the_time_out(client)
        response = client.get(
            "/memberships/",
            headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/"},
        )
        assert response.status_code == 200
        assert response["HX-Redirect"] == "/accounts/sign-in/?next=%2F"
