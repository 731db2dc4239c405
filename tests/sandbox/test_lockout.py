"""The login lockout of docs/interface.md ("Credentials"), over real HTTP: the count of failures per
client address, the warning, the lockout and its end, and which address counts."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from xml.sax.saxutils import escape

import pytest
import requests

from portal.assurance import codec, records
from portal.assurance.codec import Format
from tests.conftest import Sandbox, start_sandbox, stop_sandbox

LOGIN = "/v1/authentication/login.eb"
TIMEOUT = 10
FAILED = "OperationError:AuthenticationFailed"
WARNING = "OperationError:AuthenticationLockoutWarning"
LOCKED = "OperationError:AuthenticationLockoutActive"
OK = "ok"
GROWER_PASSWORD = "grower-demo-pass"


def login(
    server: Sandbox,
    fmt: Format,
    address: str | None,
    password: str = GROWER_PASSWORD,
    username: str = "grower",
) -> str:
    """Signs in from `address` (sent as X-Forwarded-For); "ok", or the one error code."""
    fields = {"type": "token", "username": username, "password": password}
    if fmt is Format.JSON:
        body = json.dumps(fields).encode()
    else:
        inner = "".join(f"<{k}>{escape(v)}</{k}>" for k, v in fields.items())
        body = f"<authenticate>{inner}</authenticate>".encode()
    headers = {"Accept": fmt.media_type, "Content-Type": fmt.content_type}
    if address is not None:
        headers["X-Forwarded-For"] = address
    response = requests.post(server.endpoint(LOGIN), data=body, headers=headers, timeout=TIMEOUT)
    assert codec.format_of_media_type(response.headers.get("Content-Type")) is fmt
    if response.status_code == 200:
        assert codec.decode(response.content, records.Authorization, fmt).token
        return OK
    assert response.status_code == 400, response.text
    (error,) = codec.decode(response.content, records.ErrorBody, fmt).errors
    return error.code


def fail(server: Sandbox, fmt: Format, address: str | None) -> str:
    return login(server, fmt, address, password="not-the-password")


# --- with the defaults: five failures, fifteen minutes --------------------------------------------


def test_it_fails_twice_then_warns_twice_then_locks_for_fifteen_minutes_at_the_fifth_failure(
    sandbox, fmt, client_address, clock
):
    answers = [fail(sandbox, fmt, client_address) for _ in range(5)]
    assert answers == [FAILED, FAILED, WARNING, WARNING, LOCKED]
    assert login(sandbox, fmt, client_address) == LOCKED

    sandbox.advance_clock(890)
    assert login(sandbox, fmt, client_address) == LOCKED

    sandbox.advance_clock(11)
    assert login(sandbox, fmt, client_address) == OK
    assert fail(sandbox, fmt, client_address) == FAILED


def test_it_starts_the_count_afresh_when_a_lockout_ends_even_without_a_success(
    sandbox, fmt, client_address, clock
):
    assert [fail(sandbox, fmt, client_address) for _ in range(5)][-1] == LOCKED
    sandbox.advance_clock(901)

    answers = [fail(sandbox, fmt, client_address) for _ in range(5)]

    assert answers == [FAILED, FAILED, WARNING, WARNING, LOCKED]


def test_it_resets_the_count_on_a_success(sandbox, fmt, client_address):
    assert [fail(sandbox, fmt, client_address) for _ in range(2)] == [FAILED, FAILED]
    assert login(sandbox, fmt, client_address) == OK

    answers = [fail(sandbox, fmt, client_address) for _ in range(2)]

    assert answers == [FAILED, FAILED]
    assert fail(sandbox, fmt, client_address) == WARNING


def test_it_counts_failures_for_any_account_and_unknown_names_against_the_address(
    sandbox, fmt, client_address
):
    answers = [
        login(sandbox, fmt, client_address, username="nobody-by-this-name"),
        login(sandbox, fmt, client_address, username="lapsed"),
        fail(sandbox, fmt, client_address),
        login(sandbox, fmt, client_address, username="haulier@example.com"),
        login(sandbox, fmt, client_address, username="nobody@example.com"),
    ]

    assert answers == [FAILED, FAILED, WARNING, WARNING, LOCKED]
    assert login(sandbox, fmt, client_address, "haulier-demo-pass", "haulier") == LOCKED


def test_it_locks_only_the_address_the_failures_came_from(sandbox, fmt, client_address):
    other_address = client_address.replace("198.51.", "198.18.", 1)  # no other test's
    for _ in range(5):
        fail(sandbox, fmt, client_address)
    assert login(sandbox, fmt, client_address) == LOCKED

    assert login(sandbox, fmt, other_address) == OK
    assert fail(sandbox, fmt, other_address) == FAILED
    assert login(sandbox, fmt, client_address) == LOCKED


def test_it_counts_the_first_address_of_x_forwarded_for_from_a_trusted_proxy(
    sandbox, fmt, client_address
):
    chains = [f"{client_address}, 192.0.2.{n}" for n in range(1, 6)]

    answers = [fail(sandbox, fmt, chain) for chain in chains]

    assert answers == [FAILED, FAILED, WARNING, WARNING, LOCKED]
    assert login(sandbox, fmt, client_address) == LOCKED


def test_it_counts_every_spelling_of_one_ipv6_address_as_that_address(sandbox, fmt, client_address):
    third, fourth = client_address.split(".")[2:]
    spellings = [
        f"2001:db8::{third}:{fourth}",
        f"2001:DB8:0:0:0:0:{third}:{fourth}",
        f"2001:0db8:0000::{int(third):04}:{int(fourth):04}",
        f"2001:db8:0::0:{third}:{fourth}",
        f"2001:0DB8::{third}:{fourth}",
    ]

    answers = [fail(sandbox, fmt, address) for address in spellings]

    assert answers == [FAILED, FAILED, WARNING, WARNING, LOCKED]


def test_it_counts_every_one_of_many_failures_sent_at_once(sandbox, fmt, client_address):
    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(lambda _: fail(sandbox, fmt, client_address), range(10)))

    assert Counter(answers) == {FAILED: 2, WARNING: 2, LOCKED: 6}
    assert login(sandbox, fmt, client_address) == LOCKED


def test_it_refuses_basic_authentication_from_a_locked_address(sandbox, fmt, client_address):
    for _ in range(5):
        fail(sandbox, fmt, client_address)

    response = requests.get(
        sandbox.endpoint("/v1/standards.eb"),
        auth=("grower", "grower-demo-pass"),
        headers={"Accept": fmt.media_type, "X-Forwarded-For": client_address},
        timeout=TIMEOUT,
    )

    assert response.status_code in (400, 401), response.text
    (error,) = codec.decode(response.content, records.ErrorBody, fmt).errors
    assert error.code in (LOCKED, "OperationError:AuthenticationRequired")


# --- with three failures, behind no trusted proxy -------------------------------------------------


@pytest.fixture(scope="module")
def untrusting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A second sandbox that locks at the third failure and trusts no proxy."""
    server = start_sandbox(
        tmp_path_factory.mktemp("untrusting"),
        SANDBOX_LOCKOUT_FAILURES="3",
        SANDBOX_TRUSTED_PROXIES="",
    )
    try:
        yield server
    finally:
        server._session.close()  # an idle keep-alive connection would hold up the shutdown
        stop_sandbox(server)


@pytest.fixture
def untrusted(untrusting: Sandbox) -> Sandbox:
    """The second sandbox, with no address locked (every request there comes from 127.0.0.1)."""
    untrusting.reset_lockouts()
    return untrusting


def test_it_warns_from_the_first_failure_when_the_third_failure_locks(untrusted, fmt):
    answers = [fail(untrusted, fmt, None) for _ in range(3)]

    assert answers == [WARNING, WARNING, LOCKED]
    assert login(untrusted, fmt, None) == LOCKED


def test_it_ignores_x_forwarded_for_from_a_peer_it_does_not_trust(untrusted, fmt, client_address):
    answers = [fail(untrusted, fmt, f"203.0.113.{n}") for n in range(1, 4)]

    assert answers == [WARNING, WARNING, LOCKED]
    assert login(untrusted, fmt, client_address) == LOCKED
    assert login(untrusted, fmt, None) == LOCKED


def test_it_resets_the_count_of_the_peer_whatever_x_forwarded_for_says(untrusted, fmt):
    assert fail(untrusted, fmt, "203.0.113.1") == WARNING
    assert login(untrusted, fmt, "203.0.113.2") == OK

    assert fail(untrusted, fmt, "203.0.113.3") == WARNING
    assert fail(untrusted, fmt, None) == WARNING
    assert fail(untrusted, fmt, "203.0.113.4") == LOCKED
