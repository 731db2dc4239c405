"""The portal's sign-in limits where the service trusts the portal's X-Forwarded-For
(ASSURANCE_FORWARDS_CLIENT_ADDRESS on): each user's failures fall on their own address.

The test client reaches the portal through a trusted proxy (127.0.0.1) with the address of the
test's choosing; the shared sandbox trusts 127.0.0.1 too, so it counts what the portal forwards.
"""

from __future__ import annotations

import contextlib
import time
import types
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing

import pytest
from django.db import connection
from django.test import Client

from portal.accounts import throttle, verifiers
from portal.accounts.views import FAILED, LOCKED, LOCKED_BY_SERVICE, TRIES_LEFT, WRONG
from portal.assurance.client import AssuranceClient
from portal.assurance.errors import AuthenticationFailed, LockoutActive
from tests.portal.accounts.helpers import (
    error_summary,
    failures_at_the_service,
    sign_in,
    sign_in_from,
    upstream_calls,
)

pytestmark = pytest.mark.django_db

FROM_ADDRESS = "sign-in from your address"
FIVE_USERNAMES = ["grower", "lapsed", "haulier", "nobody", "grower@example.com"]


@pytest.fixture
def forwarding(settings, upstream_sandbox) -> None:
    settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS = True
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]


@pytest.fixture
def stranger(client_address: str) -> str:
    return client_address


@pytest.fixture
def neighbour(client_address: str) -> str:
    return client_address.replace("198.51.", "198.18.", 1)  # no other test's


def locked_from_your_address(duration: str = "about 15 minutes") -> str:
    return LOCKED.format(subject=FROM_ADDRESS.capitalize(), duration=duration)


@pytest.mark.parametrize("usernames", [["grower"], FIVE_USERNAMES], ids=["one", "five"])
def test_eight_failures_from_one_address_never_stop_another(
    client, forwarding, upstream_sandbox, stranger, neighbour, usernames
):
    assert sign_in_from(client, neighbour, "grower").status_code == 302  # signed in before
    client.post("/accounts/sign-out/")

    answers = [
        sign_in_from(client, stranger, usernames[n % len(usernames)], "not-the-password")
        for n in range(8)
    ]

    assert [a.status_code for a in answers] == [400] * 4 + [429] * 4
    one_more = TRIES_LEFT.format(
        tries="one more try", subject=FROM_ADDRESS, duration="about 15 minutes"
    )
    assert [error_summary(a) for a in answers] == [
        FAILED,
        FAILED,
        f"{WRONG} {one_more}",
        f"{WRONG} {locked_from_your_address()}",
        *[locked_from_your_address()] * 4,
    ]
    assert failures_at_the_service(upstream_sandbox, stranger) == (4, False)
    assert sign_in_from(Client(), neighbour, "grower").status_code == 302
    assert sign_in_from(Client(), neighbour, "lapsed").status_code == 302  # never signed in here


def test_thirty_successful_sign_ins_from_one_address_are_never_refused(
    client, forwarding, neighbour
):
    for _ in range(30):
        assert sign_in_from(client, neighbour, "grower").status_code == 302
        client.post("/accounts/sign-out/")
    assert throttle.standing("grower", neighbour).tries == 4


def test_a_success_leaves_the_addresss_allowance_whole(client, forwarding, stranger):
    assert sign_in_from(client, stranger, "grower", "not-the-password").status_code == 400
    assert sign_in_from(client, stranger, "lapsed").status_code == 302
    client.post("/accounts/sign-out/")
    standing = throttle.standing("someone", stranger)
    assert (standing.limit, standing.tries) == (throttle.ADDRESS, 3)


def test_a_usernames_failures_from_many_addresses_lock_only_that_username(
    client, forwarding, client_address
):
    addresses = [client_address.replace("198.51.", f"198.{n}.", 1) for n in (20, 21, 22, 23, 24)]
    answers = [sign_in_from(client, a, "lapsed", "not-the-password") for a in addresses]
    assert [a.status_code for a in answers] == [400] * 4 + [429]
    to_this_account = LOCKED.format(subject="Sign-in to this account", duration="about 15 minutes")
    assert error_summary(answers[-1]) == to_this_account
    with upstream_calls() as calls:
        assert sign_in_from(client, addresses[0], "lapsed").status_code == 429  # never here before
    assert calls == []
    assert sign_in_from(client, addresses[1], "grower").status_code == 302


def test_the_username_is_counted_whatever_its_case(client, forwarding, client_address, settings):
    settings.PORTAL_SIGN_IN_FAILURES_PER_USERNAME = 2
    addresses = [client_address.replace("198.51.", f"198.{n}.", 1) for n in (30, 31, 32)]
    sign_in_from(client, addresses[0], "lapsed", "not-the-password")
    sign_in_from(client, addresses[1], " LAPSED ", "not-the-password")
    with upstream_calls() as calls:
        assert sign_in_from(client, addresses[2], "Lapsed").status_code == 429
    assert calls == []


def test_the_message_says_how_much_of_the_window_is_left(client, forwarding, stranger, monkeypatch):
    for _ in range(4):
        sign_in_from(client, stranger, "grower", "not-the-password")
    later = time.time() + 10 * 60 + 5
    monkeypatch.setattr(throttle, "time", types.SimpleNamespace(time=lambda: later))
    response = sign_in_from(client, stranger, "grower", "not-the-password")
    assert response.status_code == 429
    assert error_summary(response) == locked_from_your_address("about 5 minutes")


def test_an_address_may_try_again_once_its_window_has_passed(
    client, forwarding, stranger, settings
):
    settings.PORTAL_SIGN_IN_WINDOW_SECONDS = 1
    settings.PORTAL_SIGN_IN_FAILURES_PER_ADDRESS = 1
    assert sign_in_from(client, stranger, "lapsed", "not-the-password").status_code == 400
    assert sign_in_from(client, stranger, "lapsed").status_code == 429
    time.sleep(1.1)
    assert sign_in_from(client, stranger, "lapsed").status_code == 302


def test_the_service_is_told_the_users_address_and_not_a_header_of_theirs(
    client, forwarding, upstream_sandbox, stranger, neighbour
):
    forged = {"X-Forwarded-For": f"{neighbour}, {stranger}"}  # the proxy added the stranger
    assert sign_in(client, "grower", "not-the-password", headers=forged).status_code == 400
    assert failures_at_the_service(upstream_sandbox, stranger) == (1, False)
    assert failures_at_the_service(upstream_sandbox, neighbour) == (0, False)


def test_with_forwarding_off_the_service_counts_the_portals_address(
    client, upstream_sandbox, fresh_lockouts, stranger, settings
):
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS = False
    assert sign_in_from(client, stranger, "grower", "not-the-password").status_code == 400
    assert failures_at_the_service(upstream_sandbox, stranger) == (0, False)
    assert failures_at_the_service(upstream_sandbox, "127.0.0.1") == (1, False)


class TestTheServicesLockout:
    """When the service has locked an address (here by a client of its own), the portal
    remembers it."""

    @pytest.fixture
    def locked(self, client, forwarding, upstream_sandbox, stranger) -> Client:
        assert sign_in_from(client, stranger, "grower").status_code == 302  # a kept verifier
        client.post("/accounts/sign-out/")
        with closing(AssuranceClient(upstream_sandbox.url)) as elsewhere:
            for _ in range(5):
                with contextlib.suppress(AuthenticationFailed, LockoutActive):
                    elsewhere.login("lapsed", "not-the-password", client_address=stranger)
        assert failures_at_the_service(upstream_sandbox, stranger) == (5, True)

        response = sign_in_from(client, stranger, "lapsed")
        assert response.status_code == 429
        assert error_summary(response) == LOCKED_BY_SERVICE.format(
            whose="from your address", duration="about 15 minutes"
        )
        return client

    def test_it_is_remembered_and_the_service_not_asked_again(self, locked, stranger):
        with upstream_calls() as calls:
            response = sign_in_from(locked, stranger, "lapsed")
        assert response.status_code == 429
        assert "locked sign-in from your address" in error_summary(response)
        assert calls == []

    def test_one_password_that_worked_before_asks_again_each_minute(
        self, locked, stranger, upstream_sandbox
    ):
        with upstream_calls() as calls:
            assert sign_in_from(locked, stranger, "grower").status_code == 429
            assert sign_in_from(locked, stranger, "grower").status_code == 429
        assert [c.outcome for c in calls] == ["LockoutActive"]

    def test_a_lockout_lifted_early_ends_at_the_first_such_attempt(
        self, locked, stranger, upstream_sandbox
    ):
        upstream_sandbox.reset_lockouts()
        assert sign_in_from(locked, stranger, "grower").status_code == 302
        locked.post("/accounts/sign-out/")
        assert sign_in_from(locked, stranger, "lapsed").status_code == 302

    def test_it_locks_only_that_address(self, locked, neighbour):
        assert sign_in_from(Client(), neighbour, "lapsed").status_code == 302


def test_a_kept_password_the_service_no_longer_takes_is_forgotten(
    client, forwarding, stranger, neighbour, settings
):
    settings.PORTAL_SIGN_IN_FAILURES_PER_USERNAME = 1
    verifiers.keep("lapsed", "an-old-password")
    assert sign_in_from(client, stranger, "lapsed", "not-the-password").status_code == 400
    with upstream_calls() as calls:
        assert sign_in_from(client, neighbour, "lapsed", "an-old-password").status_code == 400
        assert sign_in_from(client, neighbour, "lapsed", "an-old-password").status_code == 429
    assert [c.outcome for c in calls] == ["AuthenticationFailed"]
    assert not verifiers.matches("lapsed", "an-old-password")


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_simultaneous_failures_stops_at_the_limit(
    forwarding, upstream_sandbox, stranger
):
    def attempt(n: int) -> int:
        try:
            return sign_in_from(Client(), stranger, "lapsed", f"not-the-password-{n}").status_code
        finally:
            connection.close()  # back to the pool: the test client keeps a thread's connection

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = sorted(pool.map(attempt, range(10)))
    assert statuses == [400] * 4 + [429] * 6
    assert failures_at_the_service(upstream_sandbox, stranger) == (4, False)


def test_attempts_of_any_kind_from_one_address_are_paced_before_any_password_is_checked(
    client, forwarding, upstream_sandbox, stranger, neighbour, settings, monkeypatch
):
    settings.PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE = 3
    for _ in range(3):
        assert sign_in_from(client, stranger, "grower").status_code == 302
        client.post("/accounts/sign-out/")
    checked = []
    monkeypatch.setattr(verifiers, "matches", lambda *args: checked.append(args) or True)
    with upstream_calls() as calls:
        refused = sign_in_from(client, stranger, "grower")  # even the right password
    assert refused.status_code == 429
    assert error_summary(refused) == locked_from_your_address("about a minute")
    assert calls == [] and checked == []  # neither the service nor a hash was asked
    assert sign_in_from(client, neighbour, "grower").status_code == 302  # another address
