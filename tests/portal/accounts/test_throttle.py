"""The sign-in throttle: per client address and per username, before the service is called."""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory

from portal.accounts.throttle import client_address
from tests.portal.accounts.helpers import sign_in, upstream_calls

pytestmark = pytest.mark.django_db

THROTTLED = b"Too many sign-in attempts"


@pytest.fixture
def limits(settings) -> None:
    settings.PORTAL_SIGN_IN_PER_USERNAME = 2
    settings.PORTAL_SIGN_IN_PER_ADDRESS = 3


def test_it_turns_away_a_username_over_its_share(client, upstream_sandbox, fresh_lockouts, limits):
    for _ in range(2):
        assert sign_in(client, "grower", "not-the-password").status_code == 400
    with upstream_calls() as calls:
        response = sign_in(client, "grower")  # even the right password
    assert response.status_code == 429
    assert THROTTLED in response.content
    assert calls == []
    assert "_auth_user_id" not in client.session


def test_it_turns_away_an_address_over_its_share(client, upstream_sandbox, fresh_lockouts, limits):
    for username in ("grower", "lapsed", "nobody"):
        assert sign_in(client, username, "not-the-password").status_code == 400
    with upstream_calls() as calls:
        response = sign_in(client, "haulier")
    assert response.status_code == 429
    assert THROTTLED in response.content
    assert calls == []


def test_it_counts_addresses_apart(client, upstream_sandbox, fresh_lockouts, limits):
    for username in ("grower", "lapsed", "nobody"):
        sign_in(client, username, "not-the-password")
    response = sign_in(client, "haulier", headers={"X-Forwarded-For": "203.0.113.9"})
    assert response.status_code == 429  # the peer is not a trusted proxy: the header is ignored
    elsewhere = Client(REMOTE_ADDR="192.0.2.44")
    assert sign_in(elsewhere, "haulier").status_code == 302


def test_a_success_clears_the_usernames_count(client, upstream_sandbox, fresh_lockouts, settings):
    settings.PORTAL_SIGN_IN_PER_USERNAME = 2
    settings.PORTAL_SIGN_IN_PER_ADDRESS = 100
    assert sign_in(client, "grower", "not-the-password").status_code == 400
    assert sign_in(client, "grower").status_code == 302
    client.post("/accounts/sign-out/")
    assert sign_in(client, "grower", "not-the-password").status_code == 400
    assert sign_in(client, "grower", "not-the-password").status_code == 400
    with upstream_calls() as calls:
        assert sign_in(client, "grower").status_code == 429
    assert calls == []


def test_the_username_is_counted_whatever_its_case(
    client, upstream_sandbox, fresh_lockouts, limits
):
    sign_in(client, "grower", "not-the-password")
    sign_in(client, " GROWER ", "not-the-password")
    with upstream_calls() as calls:
        assert sign_in(client, "Grower").status_code == 429
    assert calls == []


class TestClientAddress:
    def test_it_is_the_peer_when_no_proxy_is_trusted(self, settings):
        settings.PORTAL_TRUSTED_PROXIES = []
        request = RequestFactory().get(
            "/", REMOTE_ADDR="192.0.2.1", headers={"X-Forwarded-For": "203.0.113.5"}
        )
        assert client_address(request) == "192.0.2.1"

    def test_it_ignores_the_header_from_an_untrusted_peer(self, settings):
        settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
        request = RequestFactory().get(
            "/", REMOTE_ADDR="192.0.2.1", headers={"X-Forwarded-For": "203.0.113.5"}
        )
        assert client_address(request) == "192.0.2.1"

    def test_it_takes_the_nearest_untrusted_hop_behind_a_trusted_proxy(self, settings):
        settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1", "10.0.0.2"]
        request = RequestFactory().get(
            "/",
            REMOTE_ADDR="10.0.0.1",
            headers={"X-Forwarded-For": "203.0.113.5, 198.51.100.7, 10.0.0.2"},
        )
        assert client_address(request) == "198.51.100.7"

    def test_a_forged_leftmost_entry_does_not_win(self, settings):
        settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
        request = RequestFactory().get(
            "/", REMOTE_ADDR="10.0.0.1", headers={"X-Forwarded-For": "1.2.3.4, 198.51.100.7"}
        )
        assert client_address(request) == "198.51.100.7"

    def test_it_is_the_peer_when_the_header_is_missing(self, settings):
        settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
        request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1")
        assert client_address(request) == "10.0.0.1"

    def test_it_stops_at_a_hop_that_is_not_an_address(self, settings):
        settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
        request = RequestFactory().get(
            "/", REMOTE_ADDR="10.0.0.1", headers={"X-Forwarded-For": "198.51.100.7, garbage"}
        )
        assert client_address(request) == "10.0.0.1"

    def test_a_trusted_proxy_lets_an_address_act_on_its_own(
        self, client, upstream_sandbox, fresh_lockouts, limits, settings
    ):
        settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
        for username in ("grower", "lapsed", "nobody"):
            sign_in(client, username, "wrong", headers={"X-Forwarded-For": "203.0.113.5"})
        blocked = sign_in(client, "haulier", headers={"X-Forwarded-For": "203.0.113.5"})
        assert blocked.status_code == 429
        allowed = sign_in(client, "haulier", headers={"X-Forwarded-For": "203.0.113.6"})
        assert allowed.status_code == 302
