"""The portal's sign-in lockout (django-axes: a username from one address) and its care of the
service's count, where the service trusts the portal's X-Forwarded-For
(ASSURANCE_FORWARDS_CLIENT_ADDRESS on): each user's failures fall on their own address.

The test client reaches the portal through a trusted proxy (127.0.0.1) with the address of the
test's choosing; the shared sandbox trusts 127.0.0.1 too, so it counts what the portal forwards.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.db import connection
from django.test import Client

from portal.accounts import verifiers
from portal.accounts.refusals import (
    FAILED,
    LOCKED_ACCOUNT,
    LOCKED_BY_SERVICE_FROM_ADDRESS,
    LOCKED_FROM_ADDRESS,
    LOCKED_TO_NEW_FROM_ADDRESS,
    WRONG,
)
from portal.assurance.client import AssuranceClient
from portal.assurance.errors import AuthenticationFailed, LockoutActive
from portal.jobs.tasks import sweep
from tests.portal.accounts.helpers import (
    error_summary,
    failures_at_the_service,
    sign_in,
    sign_in_from,
    upstream_calls,
)
from tests.portal.passports.helpers import within_one_window

pytestmark = pytest.mark.django_db

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


def locked(said: str = LOCKED_ACCOUNT, duration: str = "about 15 minutes") -> str:
    return said % {"duration": duration}


def test_three_failures_lock_that_username_from_that_address_and_nobody_else(
    client, forwarding, upstream_sandbox, stranger, neighbour
):
    assert sign_in_from(client, neighbour, "grower").status_code == 302  # signed in before
    client.post("/accounts/sign-out/")

    answers = [sign_in_from(client, stranger, "grower", "not-the-password") for _ in range(8)]

    assert [a.status_code for a in answers] == [400] * 3 + [429] * 5
    one_more = (
        "You have one more try before sign-in to this account from your address is locked "
        "for about 15 minutes."
    )
    assert [error_summary(a) for a in answers] == [
        FAILED,
        f"{WRONG} {one_more}",
        f"{WRONG} {locked()}",
        *[locked()] * 5,
    ]
    assert failures_at_the_service(upstream_sandbox, stranger) == (3, False)
    assert sign_in_from(Client(), neighbour, "grower").status_code == 302
    assert sign_in_from(Client(), neighbour, "lapsed").status_code == 302  # never signed in here
    assert sign_in_from(Client(), stranger, "lapsed").status_code == 302  # another username


def test_failures_of_many_usernames_from_one_address_stop_before_the_service_locks_it(
    client, forwarding, upstream_sandbox, stranger, neighbour
):
    answers = [
        sign_in_from(client, stranger, FIVE_USERNAMES[n % 5], "not-the-password") for n in range(8)
    ]

    assert [a.status_code for a in answers] == [400] * 3 + [429] * 5
    for_now = LOCKED_TO_NEW_FROM_ADDRESS % {"duration": "about 15 minutes"}
    assert [error_summary(a) for a in answers] == [
        FAILED,
        f"{WRONG} You have one more try before only passwords that have worked here before are "
        "accepted from your address.",
        f"{WRONG} {for_now}",
        *[for_now] * 5,
    ]
    assert failures_at_the_service(upstream_sandbox, stranger) == (3, False)
    assert sign_in_from(Client(), neighbour, "lapsed").status_code == 302


def test_thirty_successful_sign_ins_from_one_address_are_never_refused(
    client, forwarding, neighbour
):
    for _ in range(30):
        assert sign_in_from(client, neighbour, "grower").status_code == 302
        client.post("/accounts/sign-out/")
    assert error_summary(sign_in_from(client, neighbour, "grower", "not-the-password")) == FAILED


def test_a_success_starts_the_addresss_count_afresh_as_the_service_does(
    client, forwarding, upstream_sandbox, stranger
):
    for username in ("nobody", "haulier"):
        assert sign_in_from(client, stranger, username, "not-the-password").status_code == 400
    assert sign_in_from(client, stranger, "lapsed").status_code == 302
    client.post("/accounts/sign-out/")
    assert failures_at_the_service(upstream_sandbox, stranger) == (0, False)
    answers = [
        sign_in_from(client, stranger, username, "not-the-password")
        for username in ("partner", "grower", "grower@example.com", "haulier")
    ]
    assert [a.status_code for a in answers] == [400] * 3 + [429]


def test_a_strangers_failures_at_other_addresses_never_lock_the_user_out(
    client, forwarding, client_address
):
    addresses = [client_address.replace("198.51.", f"198.{n}.", 1) for n in (20, 21, 22, 23)]
    for address in addresses[:3]:
        answers = [sign_in_from(client, address, "lapsed", "not-the-password") for _ in range(3)]
        assert error_summary(answers[-1]) == f"{WRONG} {locked()}"
    with upstream_calls() as calls:
        assert sign_in_from(client, addresses[0], "lapsed").status_code == 429  # never here
    assert calls == []
    assert sign_in_from(client, addresses[3], "lapsed").status_code == 302  # nor here before


def test_the_username_is_counted_whatever_its_case(client, forwarding, stranger, settings):
    settings.AXES_FAILURE_LIMIT = 2
    sign_in_from(client, stranger, "lapsed", "not-the-password")
    sign_in_from(client, stranger, " LAPSED ", "not-the-password")
    with upstream_calls() as calls:
        assert sign_in_from(client, stranger, "Lapsed").status_code == 429
    assert calls == []


def test_the_message_says_how_much_of_the_cool_off_is_left(client, forwarding, stranger):
    for _ in range(3):
        sign_in_from(client, stranger, "grower", "not-the-password")
    with time_machine.travel(timedelta(minutes=10, seconds=5)):
        response = sign_in_from(client, stranger, "grower", "not-the-password")
    assert response.status_code == 429
    assert error_summary(response) == locked(duration="about 5 minutes")


def test_a_username_may_try_again_from_that_address_once_its_cool_off_has_passed(
    client, forwarding, stranger, settings
):
    settings.AXES_FAILURE_LIMIT = 1
    assert sign_in_from(client, stranger, "lapsed", "not-the-password").status_code == 400
    assert sign_in_from(client, stranger, "lapsed").status_code == 429
    with time_machine.travel(timedelta(minutes=15, seconds=1)):
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
        assert error_summary(response) == locked(LOCKED_BY_SERVICE_FROM_ADDRESS, "about 15 minutes")
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


def test_a_kept_password_the_service_no_longer_takes_is_forgotten_and_counted(
    client, forwarding, neighbour, settings
):
    settings.AXES_FAILURE_LIMIT = 1
    verifiers.keep("lapsed", "an-old-password")
    with upstream_calls() as calls:
        assert sign_in_from(client, neighbour, "lapsed", "an-old-password").status_code == 400
        assert sign_in_from(client, neighbour, "lapsed", "an-old-password").status_code == 429
    assert [c.outcome for c in calls] == ["AuthenticationFailed"]
    assert not verifiers.matches("lapsed", "an-old-password")


def test_the_sweep_deletes_the_failures_whose_cool_off_has_passed_and_no_other(
    client, forwarding, stranger, neighbour
):
    for _ in range(2):
        assert sign_in_from(client, stranger, "lapsed", "not-the-password").status_code == 400
    with time_machine.travel(timedelta(minutes=10)):
        assert sign_in_from(client, neighbour, "grower", "not-the-password").status_code == 400
    kept = {("lapsed", stranger), ("grower", neighbour)}
    assert set(AccessAttempt.objects.values_list("username", "ip_address")) == kept
    with time_machine.travel(timedelta(minutes=15, seconds=1)):
        sweep()
    remaining = AccessAttempt.objects.values_list("username", "ip_address", "failures_since_start")
    assert list(remaining) == [("grower", neighbour, 1)]


def test_a_password_that_worked_here_before_passes_a_lockout(client, forwarding, neighbour):
    assert sign_in_from(client, neighbour, "grower").status_code == 302
    client.post("/accounts/sign-out/")
    for _ in range(3):
        sign_in_from(client, neighbour, "grower", "not-the-password")
    assert sign_in_from(client, neighbour, "grower", "not-the-password").status_code == 429
    assert sign_in_from(client, neighbour, "grower").status_code == 302


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_simultaneous_failures_stops_before_the_services_lockout(
    forwarding, upstream_sandbox, stranger
):
    def attempt(n: int) -> int:
        try:
            return sign_in_from(Client(), stranger, "lapsed", f"not-the-password-{n}").status_code
        finally:
            connection.close()  # back to the pool: the test client keeps a thread's connection

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = sorted(pool.map(attempt, range(10)))
    assert statuses == [400] * 3 + [429] * 7
    assert failures_at_the_service(upstream_sandbox, stranger) == (3, False)


def test_attempts_of_any_kind_from_one_address_are_paced_before_any_password_is_checked(
    client, forwarding, upstream_sandbox, stranger, neighbour, settings, monkeypatch
):
    settings.PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE = 3
    with within_one_window(stranger):
        for _ in range(3):
            assert sign_in_from(client, stranger, "grower").status_code == 302
            client.post("/accounts/sign-out/")
        checked = []
        monkeypatch.setattr(verifiers, "matches", lambda *args: checked.append(args) or True)
        with upstream_calls() as calls:
            refused = sign_in_from(client, stranger, "grower")  # even the right password
    assert refused.status_code == 429
    assert error_summary(refused) == locked(LOCKED_FROM_ADDRESS, "about a minute")
    assert calls == [] and checked == []  # neither the service nor a hash was asked
    assert sign_in_from(client, neighbour, "grower").status_code == 302  # another address
