"""What `make run` hands the processes it starts: the sandbox trusts the portal as a proxy, and
the portal forwards its users' addresses to it, unless the portal talks to another service."""

from __future__ import annotations

import pytest

from scripts.run import database_problem, environment
from tests.services import answers


def test_the_sandbox_trusts_the_portal_and_the_portal_forwards_addresses(monkeypatch):
    monkeypatch.delenv("ASSURANCE_BASE_URL", raising=False)
    monkeypatch.delenv("SANDBOX_TRUSTED_PROXIES", raising=False)
    monkeypatch.delenv("ASSURANCE_FORWARDS_CLIENT_ADDRESS", raising=False)
    env = environment("sqlite:///x", "", 8001)
    assert env["ASSURANCE_BASE_URL"] == "http://127.0.0.1:8001"
    assert env["SANDBOX_TRUSTED_PROXIES"] == "127.0.0.1"
    assert env["ASSURANCE_FORWARDS_CLIENT_ADDRESS"] == "true"


def test_another_service_is_not_assumed_to_trust_the_portal(monkeypatch):
    monkeypatch.setenv("ASSURANCE_BASE_URL", "https://assurance.example.org")
    monkeypatch.delenv("ASSURANCE_FORWARDS_CLIENT_ADDRESS", raising=False)
    assert environment("sqlite:///x", "", 8001)["ASSURANCE_FORWARDS_CLIENT_ADDRESS"] == "false"


def test_a_setting_of_ones_own_wins(monkeypatch):
    monkeypatch.delenv("ASSURANCE_BASE_URL", raising=False)
    monkeypatch.setenv("ASSURANCE_FORWARDS_CLIENT_ADDRESS", "false")
    monkeypatch.setenv("SANDBOX_TRUSTED_PROXIES", "10.0.0.1")
    env = environment("sqlite:///x", "", 8001)
    assert env["ASSURANCE_FORWARDS_CLIENT_ADDRESS"] == "false"
    assert env["SANDBOX_TRUSTED_PROXIES"] == "10.0.0.1"


def test_the_sandboxs_haulier_looks_passports_up_on_any_port(monkeypatch):
    for name in ("ASSURANCE_BASE_URL", "ASSURANCE_LOOKUP_USERNAME", "ASSURANCE_LOOKUP_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    env = environment("sqlite:///x", "", 8101)
    assert env["ASSURANCE_LOOKUP_USERNAME"] == "haulier"
    assert env["ASSURANCE_LOOKUP_PASSWORD"] == "haulier-demo-pass"
    monkeypatch.setenv("ASSURANCE_BASE_URL", "https://assurance.example.org")
    assert "ASSURANCE_LOOKUP_USERNAME" not in environment("sqlite:///x", "", 8101)


def test_a_database_that_cannot_be_used_is_said_in_a_sentence():
    server = "postgres://postgres@127.0.0.1:5432"
    if not answers(server, 5432):
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    missing = database_problem(f"{server}/no_such_database_of_ours")
    assert missing is not None and 'database "no_such_database_of_ours" does not exist' in missing
    assert database_problem(f"{server}/postgres") is None
    assert database_problem("sqlite:///var/portal.sqlite3") is None
