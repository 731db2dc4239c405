"""Authentication of the sandbox over real HTTP: login, its three methods of authentication, the
401 of docs/interface.md "Credentials", and the login errors of
docs/developing/assurance-interface.md, "Errors"."""

from __future__ import annotations

import base64
import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from xml.sax.saxutils import escape

import pytest
import requests

from portal.assurance import codec, records
from portal.assurance.codec import Format

LOGIN = "/v1/authentication/login.eb"
GROWER = ("grower", "grower-demo-pass")
TIMEOUT = 10
AUTHENTICATION_REQUIRED = "OperationError:AuthenticationRequired"
LOCKOUT_ACTIVE = "OperationError:AuthenticationLockoutActive"
DAY = 24 * 60 * 60


# --- helpers --------------------------------------------------------------------------------------


@pytest.fixture
def http(client_address: str) -> Iterator[requests.Session]:
    """A client of its own, acting from an address of its own."""
    with requests.Session() as session:
        session.headers["X-Forwarded-For"] = client_address
        yield session


def login_body(fmt: Format, fields: dict[str, str]) -> bytes:
    """A login body written by hand, not by the codec under test."""
    if fmt is Format.JSON:
        return json.dumps(fields).encode()
    inner = "".join(f"<{name}>{escape(value)}</{name}>" for name, value in fields.items())
    return f'<?xml version="1.0" encoding="utf-8"?><authenticate>{inner}</authenticate>'.encode()


def wire_headers(fmt: Format) -> dict[str, str]:
    return {"Accept": fmt.media_type, "Content-Type": fmt.content_type}


def post_login(
    http: requests.Session, sandbox, fmt: Format, login_type: str, username: str, password: str
) -> requests.Response:
    return http.post(
        sandbox.endpoint(LOGIN),
        data=login_body(fmt, {"type": login_type, "username": username, "password": password}),
        headers=wire_headers(fmt),
        timeout=TIMEOUT,
    )


def format_of(response: requests.Response) -> Format | None:
    return codec.format_of_media_type(response.headers.get("Content-Type"))


def authorization(response: requests.Response, fmt: Format) -> records.Authorization:
    assert response.status_code == 200, response.text
    assert format_of(response) is fmt
    return codec.decode(response.content, records.Authorization, fmt)


def error_codes(response: requests.Response, fmt: Format) -> list[str]:
    """The codes of an error body, checking that it came in `fmt`."""
    assert format_of(response) is fmt, response.headers.get("Content-Type")
    return [e.code for e in codec.decode(response.content, records.ErrorBody, fmt).errors]


def assert_authentication_required(response: requests.Response, fmt: Format) -> None:
    assert response.status_code == 401, response.text
    assert error_codes(response, fmt) == [AUTHENTICATION_REQUIRED]
    offered = response.headers.get("WWW-Authenticate", "")
    assert re.search(r"\bBasic\b", offered), offered
    assert re.search(r"\bBearer\b", offered), offered


def signed_in_as(
    http: requests.Session, sandbox, fmt: Format, headers: dict[str, str] | None = None
) -> str | requests.Response:
    """Who the authorisation endpoint says the request is from, or the refusal."""
    response = http.get(
        sandbox.endpoint("/v1/authorisation.eb"),
        headers={"Accept": fmt.media_type, **(headers or {})},
        timeout=TIMEOUT,
    )
    if response.status_code != 200:
        return response
    return codec.decode(response.content, records.Authorisation, fmt).username


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def basic(credentials: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(credentials.encode()).decode()}


# --- bearer tokens --------------------------------------------------------------------------------


def test_it_issues_a_token_of_at_least_256_bits_that_expires_in_thirty_days(
    sandbox, http, fmt, clock
):
    issued = authorization(post_login(http, sandbox, fmt, "token", *GROWER), fmt)

    assert issued.realm
    assert re.fullmatch(r"[A-Za-z0-9_-]{43,}", issued.token), issued.token
    assert issued.expires is not None
    expected = datetime.now(UTC) + timedelta(days=30)
    assert abs(issued.expires - expected) < timedelta(minutes=2)


def test_it_issues_a_new_token_at_each_login(sandbox, http, fmt):
    first = authorization(post_login(http, sandbox, fmt, "token", *GROWER), fmt)
    second = authorization(post_login(http, sandbox, fmt, "token", *GROWER), fmt)

    assert first.token != second.token
    assert signed_in_as(http, sandbox, fmt, headers=bearer(first.token)) == "grower"
    assert signed_in_as(http, sandbox, fmt, headers=bearer(second.token)) == "grower"


def test_it_accepts_the_token_as_a_bearer_authorization(sandbox, http, fmt):
    token = authorization(post_login(http, sandbox, fmt, "token", *GROWER), fmt).token

    response = http.get(
        sandbox.endpoint("/v1/standards.eb"),
        headers={"Accept": fmt.media_type, **bearer(token)},
        timeout=TIMEOUT,
    )

    assert response.status_code == 200, response.text
    assert codec.decode(response.content, records.SchemeList, fmt).items
    assert signed_in_as(http, sandbox, fmt, headers=bearer(token)) == "grower"


@pytest.mark.parametrize(
    "username",
    ["grower@example.com", "GROWER", "Grower", "Grower@Example.COM"],
    ids=["e-mail", "upper-case", "capitalised", "mixed-case-e-mail"],
)
def test_it_signs_in_by_e_mail_address_and_by_username_in_any_case(sandbox, http, fmt, username):
    token = authorization(post_login(http, sandbox, fmt, "token", username, GROWER[1]), fmt).token

    assert signed_in_as(http, sandbox, fmt, headers=bearer(token)) == "grower"


def test_it_refuses_a_token_thirty_days_and_a_second_after_issue(sandbox, http, fmt, clock):
    token = authorization(post_login(http, sandbox, fmt, "token", *GROWER), fmt).token
    sandbox.advance_clock(30 * DAY - 60)
    assert signed_in_as(http, sandbox, fmt, headers=bearer(token)) == "grower"

    sandbox.advance_clock(61)
    refused = signed_in_as(http, sandbox, fmt, headers=bearer(token))

    assert isinstance(refused, requests.Response)
    assert_authentication_required(refused, fmt)


# --- session cookies ------------------------------------------------------------------------------


def open_session(http: requests.Session, sandbox, fmt: Format) -> requests.Response:
    response = post_login(http, sandbox, fmt, "session", *GROWER)
    assert not authorization(response, fmt).token
    return response


def test_it_answers_a_session_login_with_an_empty_token_and_an_http_only_cookie(sandbox, http, fmt):
    response = open_session(http, sandbox, fmt)

    set_cookie = response.headers.get("Set-Cookie", "")
    assert re.search(r"(?i);\s*HttpOnly\b", set_cookie), set_cookie
    assert len(response.cookies) == 1
    assert signed_in_as(http, sandbox, fmt) == "grower"


def test_it_does_not_sign_in_a_client_without_the_session_cookie(sandbox, http, fmt):
    open_session(http, sandbox, fmt)

    with requests.Session() as stranger:
        refused = signed_in_as(stranger, sandbox, fmt)

    assert isinstance(refused, requests.Response)
    assert_authentication_required(refused, fmt)


def test_it_ends_a_session_after_thirty_minutes_without_a_request(sandbox, http, fmt, clock):
    open_session(http, sandbox, fmt)
    sandbox.advance_clock(1801)

    refused = signed_in_as(http, sandbox, fmt)

    assert isinstance(refused, requests.Response)
    assert_authentication_required(refused, fmt)


def test_it_keeps_a_session_alive_while_requests_come_within_thirty_minutes(
    sandbox, http, fmt, clock
):
    open_session(http, sandbox, fmt)
    sandbox.advance_clock(1000)
    assert signed_in_as(http, sandbox, fmt) == "grower"
    sandbox.advance_clock(1000)
    assert signed_in_as(http, sandbox, fmt) == "grower"
    sandbox.advance_clock(1000)
    assert signed_in_as(http, sandbox, fmt) == "grower"

    sandbox.advance_clock(1801)
    refused = signed_in_as(http, sandbox, fmt)

    assert isinstance(refused, requests.Response)
    assert_authentication_required(refused, fmt)


# --- basic authentication -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def any_endpoint(sandbox) -> list[tuple[str, str, bytes | None, int]]:
    """(method, path, JSON body, status expected once signed in) of every kind of endpoint."""
    scheme = requests.get(
        sandbox.endpoint("/v1/standards.eb"), auth=GROWER, timeout=TIMEOUT
    ).json()["items"][0]["SchemeGUID"]
    return [
        ("GET", "/v1/standards.eb", None, 200),
        ("GET", "/v1/standards/preview/.eb", None, 200),
        ("GET", f"/v1/standards/{scheme}.eb", None, 200),
        ("GET", "/v1/authorisation.eb", None, 200),
        ("GET", "/v1/passports/ZZZZ-ZZZZ.eb", None, 404),
        ("POST", "/v1/passports.eb", b"{}", 400),
    ]


def test_it_accepts_basic_authentication_on_any_endpoint(sandbox, http, fmt, any_endpoint):
    for method, path, body, status in any_endpoint:
        headers = {"Accept": fmt.media_type, "Content-Type": Format.JSON.content_type}
        url = sandbox.endpoint(path)

        anonymous = http.request(method, url, data=body, headers=headers, timeout=TIMEOUT)
        signed_in = http.request(
            method, url, data=body, headers={**headers, **basic("grower:grower-demo-pass")},
            timeout=TIMEOUT,
        )  # fmt: skip

        assert_authentication_required(anonymous, fmt)
        assert signed_in.status_code == status, (method, path, signed_in.text)


def test_it_accepts_basic_authentication_by_e_mail_address(sandbox, http, fmt):
    headers = basic("grower@example.com:grower-demo-pass")

    assert signed_in_as(http, sandbox, fmt, headers=headers) == "grower"


def test_it_refuses_basic_authentication_with_a_wrong_password(sandbox, http, fmt):
    refused = signed_in_as(http, sandbox, fmt, headers=basic("grower:not-the-password"))

    assert isinstance(refused, requests.Response)
    assert_authentication_required(refused, fmt)


def test_it_counts_a_wrong_basic_password_as_a_login_failure(sandbox, http, fmt):
    for _ in range(4):
        refused = signed_in_as(http, sandbox, fmt, headers=basic("grower:not-the-password"))
        assert isinstance(refused, requests.Response)
        assert_authentication_required(refused, fmt)
    fifth = signed_in_as(http, sandbox, fmt, headers=basic("grower:not-the-password"))
    assert isinstance(fifth, requests.Response)
    assert fifth.status_code in (400, 401)

    response = post_login(http, sandbox, fmt, "token", *GROWER)

    assert response.status_code == 400
    assert error_codes(response, fmt) == [LOCKOUT_ACTIVE]


# --- missing and unreadable credentials -----------------------------------------------------------


@pytest.mark.parametrize(
    "authorization_header",
    [
        None,
        "Bearer " + "A" * 43,
        "Bearer",
        "Token abc",
        "garbage",
        "Basic",
        "Basic !!!not-base64!!!",
        "Basic " + base64.b64encode(b"no-colon-here").decode(),
        "Basic " + base64.b64encode(b":grower-demo-pass").decode(),
        "Basic " + base64.b64encode(b"\xff\xfe:\xff").decode(),
    ],
    ids=[
        "missing",
        "unknown-token",
        "bearer-without-token",
        "unknown-scheme",
        "garbage",
        "basic-without-credentials",
        "basic-not-base64",
        "basic-without-colon",
        "basic-without-username",
        "basic-not-utf-8",
    ],
)
def test_it_answers_401_in_the_format_accept_asks_for_without_usable_credentials(
    sandbox, http, fmt, authorization_header
):
    headers = {"Accept": fmt.media_type, "Authorization": authorization_header}

    response = http.get(sandbox.endpoint("/v1/standards.eb"), headers=headers, timeout=TIMEOUT)

    assert_authentication_required(response, fmt)


@pytest.mark.parametrize("accept", [None, "*/*"], ids=["no-accept", "anything"])
def test_it_answers_401_in_json_when_accept_names_no_format(sandbox, http, accept):
    headers = {"Accept": accept}

    response = http.get(sandbox.endpoint("/v1/standards.eb"), headers=headers, timeout=TIMEOUT)

    assert_authentication_required(response, Format.JSON)


# --- malformed logins -----------------------------------------------------------------------------


@pytest.fixture
def credentials_unchanged(sandbox) -> Iterator[None]:
    before = sandbox.count("sandbox_credential")
    yield
    assert sandbox.count("sandbox_credential") == before


RIGHT = {"type": "token", "username": "grower", "password": "grower-demo-pass"}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"type": "token", "username": "grower"}, ["DataError:password:RequiredRule"]),
        ({**RIGHT, "password": ""}, ["DataError:password:RequiredRule"]),
        ({"username": "grower", "password": "grower-demo-pass"}, ["DataError:type:RequiredRule"]),
        ({"type": "token", "password": "grower-demo-pass"}, ["DataError:username:RequiredRule"]),
        (
            {},
            [
                "DataError:type:RequiredRule",
                "DataError:username:RequiredRule",
                "DataError:password:RequiredRule",
            ],
        ),
        ({**RIGHT, "type": "cookie"}, ["DataError:type:FormatRule"]),
    ],
    ids=["no-password", "empty-password", "no-type", "no-username", "nothing", "type-cookie"],
)
def test_it_reports_every_missing_or_wrong_field_of_a_login_at_once(
    sandbox, http, fmt, credentials_unchanged, fields, expected
):
    response = http.post(
        sandbox.endpoint(LOGIN),
        data=login_body(fmt, fields),
        headers=wire_headers(fmt),
        timeout=TIMEOUT,
    )

    assert response.status_code == 400
    assert sorted(error_codes(response, fmt)) == sorted(expected)


WRONG_TYPE = {
    Format.JSON: json.dumps({**RIGHT, "username": ["grower"]}).encode(),
    Format.XML: (
        b"<authenticate><type>token</type><username><name>grower</name></username>"
        b"<password>grower-demo-pass</password></authenticate>"
    ),
}


def test_it_answers_a_username_of_the_wrong_type_with_a_format_rule_alone(
    sandbox, http, fmt, credentials_unchanged
):
    response = http.post(
        sandbox.endpoint(LOGIN), data=WRONG_TYPE[fmt], headers=wire_headers(fmt), timeout=TIMEOUT
    )

    assert response.status_code == 400
    assert error_codes(response, fmt) == ["DataError:username:FormatRule"]


UNREADABLE = {
    Format.JSON: b"type=token&username=grower&password=grower-demo-pass",
    Format.XML: b"<authenticate><type>token</type><username>grower</username></authenticat>",
}
WRONG_SHAPE = {
    Format.JSON: json.dumps([RIGHT]).encode(),
    Format.XML: (
        b"<login><type>token</type><username>grower</username>"
        b"<password>grower-demo-pass</password></login>"
    ),
}


@pytest.mark.parametrize("bodies", [UNREADABLE, WRONG_SHAPE], ids=["unreadable", "wrong-root"])
def test_it_answers_a_body_that_is_unreadable_or_of_the_wrong_root_with_a_format_rule(
    sandbox, http, fmt, credentials_unchanged, bodies
):
    response = http.post(
        sandbox.endpoint(LOGIN), data=bodies[fmt], headers=wire_headers(fmt), timeout=TIMEOUT
    )

    assert response.status_code == 400
    assert error_codes(response, fmt) == ["DataError:body:FormatRule"]


def test_it_answers_a_body_that_is_neither_xml_nor_json_with_415(
    sandbox, http, fmt, credentials_unchanged
):
    response = http.post(
        sandbox.endpoint(LOGIN),
        data=login_body(fmt, RIGHT),
        headers={"Accept": fmt.media_type, "Content-Type": "text/plain; charset=utf-8"},
        timeout=TIMEOUT,
    )

    assert response.status_code == 415
    assert error_codes(response, fmt) == ["OperationError:UnsupportedMediaType"]


def test_it_answers_a_get_on_the_login_path_with_405(sandbox, http, fmt, credentials_unchanged):
    response = http.get(
        sandbox.endpoint(LOGIN),
        params=RIGHT,
        headers={"Accept": fmt.media_type},
        auth=GROWER,
        timeout=TIMEOUT,
    )

    assert response.status_code == 405
    assert "POST" in response.headers.get("Allow", "")
    assert error_codes(response, fmt) == ["OperationError:MethodNotAllowed"]


def test_it_answers_a_login_asking_for_html_with_406(sandbox, http, fmt, credentials_unchanged):
    response = http.post(
        sandbox.endpoint(LOGIN),
        data=login_body(fmt, RIGHT),
        headers={"Accept": "text/html", "Content-Type": fmt.content_type},
        timeout=TIMEOUT,
    )

    assert response.status_code == 406
    assert error_codes(response, Format.JSON) == ["OperationError:NotAcceptable"]


# --- storage --------------------------------------------------------------------------------------


def every_stored_value(database) -> Iterator[str]:
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in db.execute(f'SELECT * FROM "{table}"'):  # noqa: S608
                yield from (str(value) for value in row if value is not None)


def test_it_stores_tokens_and_session_cookies_only_as_hashes(sandbox, http, fmt):
    before = sandbox.count("sandbox_credential")
    token = authorization(post_login(http, sandbox, fmt, "token", *GROWER), fmt).token
    session = open_session(http, sandbox, fmt)
    (cookie,) = session.cookies.values()
    assert sandbox.count("sandbox_credential") == before + 2

    leaks = [v for v in every_stored_value(sandbox.database) if token in v or cookie in v]

    assert leaks == []
