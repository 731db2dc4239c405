"""The portal's look-up account (portal.accounts.lookup.call_as_lookup_account)."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from portal.accounts import credentials
from portal.accounts.lookup import CACHE_KEY, LookupAccountMissing, call_as_lookup_account
from portal.accounts.service_lockout import SignInRefused
from portal.assurance import service
from portal.assurance.errors import AssuranceError, AuthenticationFailed, LockoutWarning
from tests.portal.accounts.helpers import failures_at_the_service, sign_in, upstream_calls

pytestmark = pytest.mark.django_db

MONTH_AND_A_DAY = 31 * 24 * 60 * 60


def whoami(token) -> str | None:
    return service.client().authorisation(token).username


def logins(calls) -> int:
    return sum(1 for report in calls if report.operation == "login")


def test_it_signs_in_once_and_reuses_the_token(upstream_sandbox):
    with upstream_calls() as calls:
        assert call_as_lookup_account(whoami) == "haulier"
        assert call_as_lookup_account(whoami) == "haulier"
        assert call_as_lookup_account(whoami) == "haulier"
    assert logins(calls) == 1
    assert [c.operation for c in calls].count("authorisation") == 3


def test_it_keeps_the_token_encrypted_in_the_cache(upstream_sandbox, monkeypatch):
    issued = []
    login = service.client().login

    def spy(username: str, password: str, **kwargs):
        issued.append(login(username, password, **kwargs))
        return issued[-1]

    monkeypatch.setattr(service.client(), "login", spy)
    call_as_lookup_account(whoami)
    [authorization] = issued
    stored = cache.get(CACHE_KEY)
    assert authorization.token not in stored
    assert credentials.decrypt(stored) == authorization.token


def test_it_signs_in_again_once_when_its_token_lapses(upstream_sandbox, clock):
    call_as_lookup_account(whoami)
    upstream_sandbox.advance_clock(MONTH_AND_A_DAY)
    with upstream_calls() as calls:
        assert call_as_lookup_account(whoami) == "haulier"
        assert call_as_lookup_account(whoami) == "haulier"
    assert logins(calls) == 1
    assert [(c.operation, c.outcome) for c in calls][:3] == [
        ("authorisation", "AuthenticationRequired"),
        ("login", "ok"),
        ("authorisation", "ok"),
    ]


def test_a_token_given_that_lapsed_signs_in_again_once_for_many_calls(upstream_sandbox, clock):
    token = call_as_lookup_account(lambda credentials: credentials)
    upstream_sandbox.advance_clock(MONTH_AND_A_DAY)
    with upstream_calls() as calls:
        for _ in range(3):  # as intake's threads, each given the token read before they began
            assert call_as_lookup_account(whoami, token) == "haulier"
    assert logins(calls) == 1


def test_it_needs_a_look_up_username(upstream_sandbox, settings):
    settings.ASSURANCE_LOOKUP_USERNAME = ""
    with upstream_calls() as calls, pytest.raises(LookupAccountMissing):
        call_as_lookup_account(whoami)
    assert calls == []


def test_it_needs_a_look_up_password(upstream_sandbox, settings):
    settings.ASSURANCE_LOOKUP_PASSWORD = ""
    with pytest.raises(LookupAccountMissing):
        call_as_lookup_account(whoami)


@pytest.mark.parametrize("forwarding", [False, True])
def test_a_wrong_look_up_password_cannot_lock_the_portals_address(
    client, upstream_sandbox, fresh_lockouts, settings, forwarding
):
    assert sign_in(client, "grower").status_code == 302  # signed in here before
    client.post("/accounts/sign-out/")
    # The look-up account signs in from the portal's own address whether or not the portal
    # forwards its users' addresses.
    settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS = forwarding
    settings.ASSURANCE_LOOKUP_PASSWORD = "not-the-password"
    outcomes = []
    with upstream_calls() as calls:
        for _ in range(6):
            with pytest.raises(AssuranceError) as caught:
                call_as_lookup_account(whoami)
            outcomes.append(type(caught.value))
    assert (
        outcomes
        == [AuthenticationFailed, AuthenticationFailed, LockoutWarning] + [SignInRefused] * 3
    )
    assert logins(calls) == 3
    assert failures_at_the_service(upstream_sandbox, "127.0.0.1") == (3, False)
    assert sign_in(client, "grower").status_code == 302
