"""Sign-in where the service counts every failure against the portal's one address
(ASSURANCE_FORWARDS_CLIENT_ADDRESS off): strangers' failures never lock out a user who has
signed in here before.

These tests have a sandbox of their own that trusts no proxy, as a real service that ignores
the portal's X-Forwarded-For would: whatever the portal sends, every failure counts against
127.0.0.1. The test client reaches the portal through a trusted proxy with the address of the
test's choosing, so that the portal's own limits see users at different addresses.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client

from portal.accounts import verifiers
from portal.accounts.refusals import FAILED, LOCKED_TO_NEW, WRONG
from portal.assurance.service import client as portal_client
from tests.conftest import Sandbox, start_sandbox, stop_sandbox
from tests.portal.accounts.helpers import (
    error_summary,
    failures_at_the_service,
    sign_in_from,
    upstream_calls,
)

pytestmark = pytest.mark.django_db

PORTAL = "127.0.0.1"  # the portal's address, as the service sees it
FIVE_USERNAMES = ["grower", "lapsed", "haulier", "nobody", "grower@example.com"]


@pytest.fixture(scope="module")
def one_address_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    server = start_sandbox(tmp_path_factory.mktemp("one-address"))
    yield server
    stop_sandbox(server)


@pytest.fixture
def service(one_address_sandbox: Sandbox, settings) -> Iterator[Sandbox]:
    """The portal pointed at the one-address sandbox, with no failure counted."""
    settings.ASSURANCE_BASE_URL = one_address_sandbox.url
    settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS = False
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    portal_client.cache_clear()
    one_address_sandbox.reset_lockouts()
    yield one_address_sandbox
    one_address_sandbox.reset_lockouts()
    portal_client.cache_clear()


@pytest.fixture
def user(client_address: str) -> str:
    return client_address.replace("198.51.", "198.18.", 1)


def strangers(client_address: str, count: int) -> list[str]:
    return [client_address.replace("198.51.", f"198.{40 + n}.", 1) for n in range(count)]


@pytest.mark.parametrize("usernames", [["grower"], FIVE_USERNAMES], ids=["one", "five"])
def test_a_strangers_failures_never_lock_out_a_user_who_signed_in_before(
    client, service, user, client_address, usernames
):
    assert sign_in_from(client, user, "grower").status_code == 302
    client.post("/accounts/sign-out/")

    [stranger] = strangers(client_address, 1)
    answers = [
        sign_in_from(Client(), stranger, usernames[n % len(usernames)], "not-the-password")
        for n in range(8)
    ]

    assert [a.status_code for a in answers] == [400] * 3 + [429] * 5
    assert [error_summary(a) for a in answers] == [
        FAILED,
        f"{WRONG} You have one more try before only passwords that have worked here before are "
        "accepted.",
        f"{WRONG} {LOCKED_TO_NEW}",
        *[LOCKED_TO_NEW] * 5,
    ]
    assert failures_at_the_service(service, PORTAL) == (3, False)
    assert sign_in_from(client, user, "grower").status_code == 302
    assert failures_at_the_service(service, PORTAL) == (0, False)


def test_round_after_round_of_strangers_the_service_never_locks(
    client, service, user, client_address
):
    assert sign_in_from(client, user, "grower").status_code == 302
    client.post("/accounts/sign-out/")
    for stranger in strangers(client_address, 4):
        for username in FIVE_USERNAMES:
            sign_in_from(Client(), stranger, username, "not-the-password")
        failures, locked = failures_at_the_service(service, PORTAL)
        assert failures <= 3
        assert not locked
        assert sign_in_from(client, user, "grower").status_code == 302
        client.post("/accounts/sign-out/")


def test_while_strangers_fail_a_first_sign_in_waits_for_someone_who_has_signed_in_before(
    client, service, user, client_address
):
    assert sign_in_from(client, user, "grower").status_code == 302
    client.post("/accounts/sign-out/")
    [stranger, newcomer] = strangers(client_address, 2)
    for _ in range(3):
        sign_in_from(Client(), stranger, "nobody", "not-the-password")

    with upstream_calls() as calls:
        turned_away = sign_in_from(Client(), newcomer, "lapsed")
    assert turned_away.status_code == 429
    assert error_summary(turned_away) == LOCKED_TO_NEW
    assert calls == []

    assert sign_in_from(client, user, "grower").status_code == 302
    assert sign_in_from(Client(), newcomer, "lapsed").status_code == 302


def test_a_known_password_that_fails_is_counted_and_forgotten(
    client, service, user, client_address
):
    assert sign_in_from(client, user, "lapsed").status_code == 302
    client.post("/accounts/sign-out/")
    [stranger] = strangers(client_address, 1)
    for _ in range(3):
        sign_in_from(Client(), stranger, "nobody", "not-the-password")
    verifiers.keep("lapsed", "an-old-password")  # as if the service's password had changed
    with upstream_calls() as calls:
        assert sign_in_from(client, user, "lapsed", "an-old-password").status_code == 400
        assert sign_in_from(client, user, "lapsed", "an-old-password").status_code == 429
    assert [c.outcome for c in calls] == ["LockoutWarning"]
    assert failures_at_the_service(service, PORTAL) == (4, False)
    assert sign_in_from(client, user, "grower").status_code == 429  # never signed in here
