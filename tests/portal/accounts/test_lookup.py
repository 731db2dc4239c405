"""The portal's look-up account (portal.accounts.lookup.call_as_lookup_account)."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from portal import upstream
from portal.accounts import credentials
from portal.accounts.lookup import CACHE_KEY, LookupAccountMissing, call_as_lookup_account
from tests.portal.accounts.helpers import upstream_calls

MONTH_AND_A_DAY = 31 * 24 * 60 * 60


def whoami(token) -> str | None:
    return upstream.client().authorisation(token).username


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
    login = upstream.client().login

    def spy(username: str, password: str):
        issued.append(login(username, password))
        return issued[-1]

    monkeypatch.setattr(upstream.client(), "login", spy)
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


def test_it_needs_a_look_up_username(upstream_sandbox, settings):
    settings.ASSURANCE_LOOKUP_USERNAME = ""
    with upstream_calls() as calls, pytest.raises(LookupAccountMissing):
        call_as_lookup_account(whoami)
    assert calls == []


def test_it_needs_a_look_up_password(upstream_sandbox, settings):
    settings.ASSURANCE_LOOKUP_PASSWORD = ""
    with pytest.raises(LookupAccountMissing):
        call_as_lookup_account(whoami)
