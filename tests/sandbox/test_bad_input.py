"""Bad input to the sandbox: each answers its error body, never a 500, and stores no passport."""

from __future__ import annotations

import base64
import http.client
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests

from portal.assurance import records
from portal.assurance.codec import Format, decode, encode
from sandbox.ids import guid_for
from tests.demo import HOLLOWFIELD, HOLLOWFIELD_FARM

TIMEOUT = 30
# An address of this module's own (X-Forwarded-For), so no other module's lockout reaches it.
ADDRESS = "192.0.2.14"
# Logins that fail count against their address: they come from another one.
LOGIN_ADDRESS = "192.0.2.15"
FORMATS = [pytest.param(Format.JSON, id="json"), pytest.param(Format.XML, id="xml")]
DEMO_SHORT_CODE = "7KXM4QHT2W"
PDF = "application/pdf"


@pytest.fixture(scope="module")
def grower(sandbox):
    with requests.Session() as session:
        session.auth = ("grower", "grower-demo-pass")
        session.headers["X-Forwarded-For"] = ADDRESS
        yield session


@pytest.fixture
def no_passport_stored(sandbox) -> Iterator[None]:
    @contextmanager
    def check():
        before = sandbox.count("sandbox_passport")
        yield
        assert sandbox.count("sandbox_passport") == before

    return check


def post_body(sandbox, session, body: bytes, content_type: str, accept: str) -> requests.Response:
    return session.post(
        sandbox.endpoint("/v1/passports.eb"),
        data=body,
        headers={"Content-Type": content_type, "Accept": accept},
        timeout=TIMEOUT,
    )


def errors(response: requests.Response, fmt: Format) -> list[str]:
    assert response.status_code != 500
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    return [e.code for e in decode(response.content, records.ErrorBody, fmt).errors]


def submit(sandbox, session, body: bytes | str, fmt: Format) -> requests.Response:
    if isinstance(body, str):
        body = body.encode()
    return post_body(sandbox, session, body, fmt.content_type, fmt.media_type)


def json_body(**fields: object) -> bytes:
    return json.dumps(fields).encode()


def xml_body(**fields: str) -> bytes:
    inner = "".join(f"<{name}>{value}</{name}>" for name, value in fields.items())
    return f"<CreatePassportRequest>{inner}</CreatePassportRequest>".encode()


def body_in(fmt: Format, **fields: object) -> bytes:
    if fmt is Format.JSON:
        return json_body(**fields)
    return xml_body(**{k: str(v) for k, v in fields.items()})


GOOD = {"MembershipGUID": HOLLOWFIELD, "SiteGUID": HOLLOWFIELD_FARM}


# --- bodies that cannot be read -------------------------------------------------------------------


UNREADABLE = {
    Format.JSON: {
        "not JSON": b'{"MembershipGUID": ',
        "an empty body": b"",
        "a JSON array": json.dumps([GOOD]).encode(),
        "a JSON string": b'"MembershipGUID"',
        "XML sent as JSON": xml_body(**GOOD),
        "bytes that are not UTF-8": b'{"CropType": "\xff\xfe"}',
        "a deeply nested array": b"[" * 60_000,
    },
    Format.XML: {
        "not XML": b"<CreatePassportRequest><MembershipGUID>",
        "an empty body": b"",
        "the wrong root": b"<CropPassport><MembershipGUID>x</MembershipGUID></CropPassport>",
        "JSON sent as XML": json_body(**GOOD),
        "two roots": xml_body(**GOOD) + xml_body(**GOOD),
    },
}


@pytest.mark.parametrize(
    ("fmt", "body"),
    [
        pytest.param(fmt, body, id=f"{fmt}-{name}")
        for fmt, bodies in UNREADABLE.items()
        for name, body in bodies.items()
    ],
)
def test_a_passport_body_that_cannot_be_read_answers_400_body_format_rule(
    sandbox, grower, no_passport_stored, fmt, body
):
    with no_passport_stored():
        response = submit(sandbox, grower, body, fmt)
    assert response.status_code == 400
    assert errors(response, fmt) == ["DataError:body:FormatRule"]


def test_a_json_body_wrapped_in_its_root_name_is_read(sandbox, grower):
    response = submit(sandbox, grower, json.dumps({"CreatePassportRequest": GOOD}), Format.JSON)
    assert response.status_code == 200, response.text


# --- missing and malformed fields -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({}, id="neither"),
        pytest.param({"MembershipGUID": "", "SiteGUID": ""}, id="both-empty"),
        pytest.param({"CropType": "Wheat"}, id="only-an-optional-field"),
    ],
)
def test_a_passport_without_membership_and_site_answers_both_required_rules_in_one_body(
    sandbox, grower, no_passport_stored, fields, fmt
):
    with no_passport_stored():
        response = submit(sandbox, grower, body_in(fmt, **fields), fmt)
    assert response.status_code == 400
    assert sorted(errors(response, fmt)) == [
        "DataError:MembershipGUID:RequiredRule",
        "DataError:SiteGUID:RequiredRule",
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_null_membership_in_json_or_nil_in_xml_is_missing(
    sandbox, grower, no_passport_stored, fmt
):
    if fmt is Format.JSON:
        body = json.dumps({"MembershipGUID": None, "SiteGUID": HOLLOWFIELD_FARM}).encode()
    else:
        body = (
            b'<CreatePassportRequest xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
            b'<MembershipGUID xsi:nil="true"/><SiteGUID>'
            + HOLLOWFIELD_FARM.encode()
            + b"</SiteGUID></CreatePassportRequest>"
        )
    with no_passport_stored():
        response = submit(sandbox, grower, body, fmt)
    assert response.status_code == 400
    assert errors(response, fmt) == ["DataError:MembershipGUID:RequiredRule"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_bad_date_and_a_bad_number_answer_a_format_rule_each_in_one_body(
    sandbox, grower, no_passport_stored, fmt
):
    body = body_in(fmt, **GOOD, LoadingDate="31/02/2026", DONRiskAssessmentResult="high")
    with no_passport_stored():
        response = submit(sandbox, grower, body, fmt)
    assert response.status_code == 400
    assert sorted(errors(response, fmt)) == [
        "DataError:DONRiskAssessmentResult:FormatRule",
        "DataError:LoadingDate:FormatRule",
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_data_error_of_a_body_is_reported_together(sandbox, grower, no_passport_stored, fmt):
    body = body_in(
        fmt,
        LoadingDate="31/02/2026",
        DONTestDate="yesterday",
        ZONTestDate="2026-02-30",
        PostHarvestTreatmentDate="2026-13-01T00:00:00Z",
        DONRiskAssessmentResult="high",
        PostHarvestTreatmentOption="D",
        CropType="x" * 300,
    )
    with no_passport_stored():
        response = submit(sandbox, grower, body, fmt)
    assert response.status_code == 400
    assert sorted(errors(response, fmt)) == sorted(
        [
            "DataError:MembershipGUID:RequiredRule",
            "DataError:SiteGUID:RequiredRule",
            "DataError:LoadingDate:FormatRule",
            "DataError:DONTestDate:FormatRule",
            "DataError:ZONTestDate:FormatRule",
            "DataError:PostHarvestTreatmentDate:FormatRule",
            "DataError:DONRiskAssessmentResult:FormatRule",
            "DataError:PostHarvestTreatmentOption:FormatRule",
            "DataError:CropType:FormatRule",
        ]
    )


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("PostHarvestTreatmentOption", "D", id="option-D"),
        pytest.param("PostHarvestTreatmentOption", "AB", id="option-AB"),
        pytest.param("CropType", "x" * 300, id="300-char-crop-type"),
        pytest.param("HaulierCollectionTicketNo", "9" * 1000, id="1000-char-ticket"),
        pytest.param("DONRiskAssessmentResult", "NaN", id="nan"),
        pytest.param("DONRiskAssessmentResult", "Infinity", id="infinity"),
        pytest.param("DONRiskAssessmentResult", "1e400", id="overflowing-number"),
        pytest.param("LoadingDate", "2026-02-30T10:00:00Z", id="february-30"),
        pytest.param("LoadingDate", "31/02/2026", id="slashed-date"),
    ],
)
def test_a_value_out_of_its_type_or_enumeration_answers_its_format_rule(
    sandbox, grower, no_passport_stored, field, value, fmt
):
    with no_passport_stored():
        response = submit(sandbox, grower, body_in(fmt, **GOOD, **{field: value}), fmt)
    assert response.status_code == 400
    assert errors(response, fmt) == [f"DataError:{field}:FormatRule"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("CropType", {"name": "Wheat"}, id="object-for-a-string"),
        pytest.param("LoadingDate", 20260821, id="number-for-a-date"),
        pytest.param("DONRiskAssessmentResult", [1, 2], id="list-for-a-number"),
        pytest.param("DONRiskAssessmentResult", True, id="boolean-for-a-number"),
        pytest.param("DONRiskAssessmentResult", 1e308 * 10, id="json-infinity"),
    ],
)
def test_a_json_value_of_the_wrong_type_answers_its_format_rule(
    sandbox, grower, no_passport_stored, field, value
):
    with no_passport_stored():
        response = submit(sandbox, grower, json_body(**GOOD, **{field: value}), Format.JSON)
    assert response.status_code == 400
    assert errors(response, Format.JSON) == [f"DataError:{field}:FormatRule"]


def test_an_xml_element_for_a_string_field_answers_its_format_rule(
    sandbox, grower, no_passport_stored
):
    body = xml_body(**GOOD, CropType="<Name>Wheat</Name>")
    with no_passport_stored():
        response = submit(sandbox, grower, body, Format.XML)
    assert response.status_code == 400
    assert errors(response, Format.XML) == ["DataError:CropType:FormatRule"]


def test_a_deeply_nested_xml_value_answers_a_format_rule_not_a_500(
    sandbox, grower, no_passport_stored
):
    body = xml_body(**GOOD, CropType="<a>" * 5000 + "</a>" * 5000)
    with no_passport_stored():
        response = submit(sandbox, grower, body, Format.XML)
    assert response.status_code == 400
    assert errors(response, Format.XML) in (
        ["DataError:CropType:FormatRule"],
        ["DataError:body:FormatRule"],
    )


# --- values that once reached the database or the codec unchecked --------------------------------


OUT_OF_CALENDAR_IN_UTC = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("value", OUT_OF_CALENDAR_IN_UTC)
def test_a_date_that_leaves_the_calendar_in_utc_answers_a_format_rule(
    sandbox, grower, no_passport_stored, value, fmt
):
    with no_passport_stored():
        response = submit(sandbox, grower, body_in(fmt, **GOOD, LoadingDate=value), fmt)
    assert response.status_code == 400
    assert errors(response, fmt) == ["DataError:LoadingDate:FormatRule"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("value", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
def test_the_first_and_last_date_time_in_utc_are_accepted(sandbox, grower, value, fmt):
    response = submit(sandbox, grower, body_in(fmt, **GOOD, LoadingDate=value), fmt)
    assert response.status_code == 200, response.text
    passport = decode(response.content, records.CropPassport, fmt)
    assert passport.loading_date.isoformat().startswith(value[:10])


HUGE_INTEGER = b"1" + b"0" * 400


def test_a_huge_json_integer_for_a_text_field_answers_a_format_rule(
    sandbox, grower, no_passport_stored
):
    body = json_body(**GOOD, CropType="HUGE").replace(b'"HUGE"', HUGE_INTEGER)
    with no_passport_stored():
        response = submit(sandbox, grower, body, Format.JSON)
    assert response.status_code == 400
    assert errors(response, Format.JSON) == ["DataError:CropType:FormatRule"]


def test_a_huge_json_integer_for_a_number_field_answers_a_format_rule(
    sandbox, grower, no_passport_stored
):
    body = json_body(**GOOD, DONRiskAssessmentResult="HUGE").replace(b'"HUGE"', HUGE_INTEGER)
    with no_passport_stored():
        response = submit(sandbox, grower, body, Format.JSON)
    assert response.status_code == 400
    assert errors(response, Format.JSON) == ["DataError:DONRiskAssessmentResult:FormatRule"]


def test_a_lone_surrogate_in_a_json_string_answers_a_format_rule(
    sandbox, grower, no_passport_stored
):
    body = json_body(**GOOD, CropType="SURROGATE").replace(b"SURROGATE", rb"\ud800")
    with no_passport_stored():
        response = submit(sandbox, grower, body, Format.JSON)
    assert response.status_code == 400
    assert errors(response, Format.JSON) in (
        ["DataError:CropType:FormatRule"],
        ["DataError:body:FormatRule"],
    )


@pytest.mark.parametrize("character", ["\x00", "\x0b", "\x1b", "\ufffe"], ids=ascii)
def test_a_character_xml_cannot_carry_in_a_json_string_answers_a_format_rule(
    sandbox, grower, no_passport_stored, character
):
    """The sandbox answers in XML too: it keeps no text that XML could not carry."""
    with no_passport_stored():
        body = json_body(**GOOD, Variety=f"a{character}b")
        response = submit(sandbox, grower, body, Format.JSON)
    assert response.status_code == 400
    assert errors(response, Format.JSON) == ["DataError:Variety:FormatRule"]
    assert f"U+{ord(character):04X}" in response.json()["Errors"][0]["Message"]


def test_a_surrogate_pair_in_a_json_string_is_an_ordinary_character(sandbox, grower):
    body = json_body(**GOOD, CropType="Wheat \U0001f33e")
    response = submit(sandbox, grower, body, Format.JSON)
    assert response.status_code == 200, response.text
    assert (
        decode(response.content, records.CropPassport, Format.JSON).crop_type == "Wheat \U0001f33e"
    )


def test_a_character_reference_to_a_surrogate_in_xml_answers_400(
    sandbox, grower, no_passport_stored
):
    with no_passport_stored():
        response = submit(sandbox, grower, xml_body(**GOOD, CropType="&#xD800;"), Format.XML)
    assert response.status_code == 400
    assert errors(response, Format.XML) == ["DataError:body:FormatRule"]


@pytest.mark.parametrize(
    "username",
    [
        pytest.param(HUGE_INTEGER, id="huge-integer"),
        pytest.param(rb'"\ud800"', id="lone-surrogate"),
    ],
)
def test_odd_json_values_in_a_login_body_answer_400(sandbox, username):
    body = b'{"type": "token", "username": ' + username + b', "password": "x"}'
    response = requests.post(
        sandbox.endpoint("/v1/authentication/login.eb"),
        data=body,
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json",
            "X-Forwarded-For": LOGIN_ADDRESS,
        },
        timeout=TIMEOUT,
    )
    assert response.status_code == 400
    assert errors(response, Format.JSON)


# --- sizes and media types ------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_body_over_64_kib_answers_413(sandbox, grower, no_passport_stored, fmt):
    body = body_in(fmt, **GOOD, CropType="x" * (65 * 1024))
    with no_passport_stored():
        # "Connection: close": the connection is not reused after this (see the test below).
        response = grower.post(
            sandbox.endpoint("/v1/passports.eb"),
            data=body,
            headers={
                "Content-Type": fmt.content_type,
                "Accept": fmt.media_type,
                "Connection": "close",
            },
            timeout=TIMEOUT,
        )
    assert response.status_code == 413
    assert errors(response, fmt) == ["OperationError:PayloadTooLarge"]


def test_after_a_413_the_connection_is_either_closed_openly_or_still_usable(sandbox):
    host, port = sandbox.url.removeprefix("http://").split(":")
    credentials = base64.b64encode(b"grower:grower-demo-pass").decode()
    headers = {
        "Authorization": f"Basic {credentials}",
        "Accept": "application/json",
        "X-Forwarded-For": ADDRESS,
    }
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        body = json_body(**GOOD, CropType="x" * (65 * 1024))
        connection.request(
            "POST", "/v1/passports.eb", body, {**headers, "Content-Type": "application/json"}
        )
        response = connection.getresponse()
        response.read()
        assert response.status == 413
        if (response.getheader("Connection") or "").lower() == "close":
            return
        try:
            connection.request("GET", "/v1/authorisation.eb", headers=headers)
            following = connection.getresponse()
            following.read()
        except ConnectionError as exc:
            pytest.fail(f"The 413 said keep-alive, yet the connection was dropped: {exc!r}")
        assert following.status == 200
    finally:
        connection.close()


def test_a_body_just_under_64_kib_is_read(sandbox, grower, no_passport_stored):
    padding = 64 * 1024 - len(json_body(**GOOD, Pad="")) - 16
    body = json_body(**GOOD, Pad=" " * padding)
    assert len(body) < 64 * 1024
    response = submit(sandbox, grower, body, Format.JSON)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
     "multipart/form-data; boundary=x", None],
)  # fmt: skip
def test_a_body_that_is_neither_xml_nor_json_answers_415(
    sandbox, grower, no_passport_stored, content_type
):
    headers = {"Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    with no_passport_stored():
        response = grower.post(
            sandbox.endpoint("/v1/passports.eb"),
            data=json_body(**GOOD),
            headers=headers,
            timeout=TIMEOUT,
        )
    assert response.status_code == 415
    assert errors(response, Format.JSON) == ["OperationError:UnsupportedMediaType"]


@pytest.mark.parametrize("accept", ["text/html", "image/png", "text/html, application/xhtml+xml"])
def test_an_accept_the_service_cannot_produce_answers_406_in_json(
    sandbox, grower, no_passport_stored, accept
):
    with no_passport_stored():
        created = post_body(sandbox, grower, json_body(**GOOD), Format.JSON.content_type, accept)
    assert created.status_code == 406
    assert errors(created, Format.JSON) == ["OperationError:NotAcceptable"]
    for path in (f"/v1/passports/{DEMO_SHORT_CODE}.eb", "/v1/standards.eb"):
        response = grower.get(sandbox.endpoint(path), headers={"Accept": accept}, timeout=TIMEOUT)
        assert response.status_code == 406, path
        assert errors(response, Format.JSON) == ["OperationError:NotAcceptable"]


def test_pdf_is_not_acceptable_from_the_standards(sandbox, grower):
    response = grower.get(
        sandbox.endpoint("/v1/standards.eb"), headers={"Accept": PDF}, timeout=TIMEOUT
    )
    assert response.status_code == 406
    assert errors(response, Format.JSON) == ["OperationError:NotAcceptable"]


# --- paths and methods ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "path", ["/v1/nothing.eb", "/nothing", "/v1/passports", "/v1/standards", "/v2/standards.eb"]
)
def test_an_unknown_path_answers_404_with_the_error_body(sandbox, grower, path, fmt):
    response = grower.get(
        sandbox.endpoint(path), headers={"Accept": fmt.media_type}, timeout=TIMEOUT
    )
    assert response.status_code == 404
    assert errors(response, fmt) == ["OperationError:NotFound"]


def test_an_unknown_path_answers_404_without_credentials_too(sandbox):
    response = requests.get(
        sandbox.endpoint("/v1/nothing.eb"), headers={"Accept": "text/xml"}, timeout=TIMEOUT
    )
    assert response.status_code == 404
    assert errors(response, Format.XML) == ["OperationError:NotFound"]


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        pytest.param("/v1/passports.eb", "POST", id="create"),
        pytest.param(f"/v1/passports/{DEMO_SHORT_CODE}.eb", "GET", id="download"),
        pytest.param("/v1/standards.eb", "GET", id="schemes"),
        pytest.param("/v1/authentication/login.eb", "POST", id="login"),
    ],
)
def test_a_method_an_address_does_not_answer_gives_405_with_allow(
    sandbox, grower, no_passport_stored, method, path, allowed
):
    with no_passport_stored():
        response = grower.request(
            method,
            sandbox.endpoint(path),
            data=json_body(**GOOD),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            timeout=TIMEOUT,
        )
    assert response.status_code == 405
    assert response.headers["Allow"] == allowed
    assert errors(response, Format.JSON) == ["OperationError:MethodNotAllowed"]


def test_a_get_on_the_create_address_gives_405(sandbox, grower):
    response = grower.get(
        sandbox.endpoint("/v1/passports.eb"), headers={"Accept": "text/xml"}, timeout=TIMEOUT
    )
    assert response.status_code == 405
    assert response.headers["Allow"] == "POST"
    assert errors(response, Format.XML) == ["OperationError:MethodNotAllowed"]


# --- hostile XML ----------------------------------------------------------------------------------


BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n'
    "<!DOCTYPE CreatePassportRequest [\n"
    '  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">\n'
    + "".join(f'  <!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(9))
    + "]>\n"
    f"<CreatePassportRequest><MembershipGUID>{HOLLOWFIELD}</MembershipGUID>"
    f"<SiteGUID>{HOLLOWFIELD_FARM}</SiteGUID><CropType>&j;</CropType></CreatePassportRequest>"
)

EXTERNAL_ENTITY = (
    '<?xml version="1.0"?>\n'
    '<!DOCTYPE CreatePassportRequest [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n'
    f"<CreatePassportRequest><MembershipGUID>{HOLLOWFIELD}</MembershipGUID>"
    f"<SiteGUID>{HOLLOWFIELD_FARM}</SiteGUID><CropType>&secret;</CropType>"
    "</CreatePassportRequest>"
)

EXTERNAL_DTD = (
    '<?xml version="1.0"?>\n'
    '<!DOCTYPE CreatePassportRequest SYSTEM "http://127.0.0.1:9/evil.dtd">\n'
    f"<CreatePassportRequest><MembershipGUID>{HOLLOWFIELD}</MembershipGUID>"
    f"<SiteGUID>{HOLLOWFIELD_FARM}</SiteGUID></CreatePassportRequest>"
)

PARAMETER_ENTITY = (
    '<?xml version="1.0"?>\n'
    '<!DOCTYPE CreatePassportRequest [<!ENTITY % remote SYSTEM "file:///etc/passwd"> %remote;]>\n'
    f"<CreatePassportRequest><MembershipGUID>{HOLLOWFIELD}</MembershipGUID>"
    f"<SiteGUID>{HOLLOWFIELD_FARM}</SiteGUID></CreatePassportRequest>"
)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(BILLION_LAUGHS, id="entity-bomb"),
        pytest.param(EXTERNAL_ENTITY, id="external-entity"),
        pytest.param(EXTERNAL_DTD, id="external-dtd"),
        pytest.param(PARAMETER_ENTITY, id="parameter-entity"),
    ],
)
def test_an_xml_body_with_a_dtd_answers_400_quickly_and_reads_nothing(
    sandbox, grower, no_passport_stored, body
):
    started = time.monotonic()
    with no_passport_stored():
        response = submit(sandbox, grower, body, Format.XML)
    assert time.monotonic() - started < 3
    assert response.status_code == 400
    assert errors(response, Format.XML) == ["DataError:body:FormatRule"]
    assert b"root:" not in response.content
    assert b"aaaaaaaaaa" not in response.content


def test_a_login_body_with_an_entity_bomb_answers_400_quickly(sandbox):
    body = BILLION_LAUGHS.replace("CreatePassportRequest", "authenticate")
    started = time.monotonic()
    response = requests.post(
        sandbox.endpoint("/v1/authentication/login.eb"),
        data=body.encode(),
        headers={
            "Content-Type": "text/xml",
            "Accept": "text/xml",
            "X-Forwarded-For": LOGIN_ADDRESS,
        },
        timeout=TIMEOUT,
    )
    assert time.monotonic() - started < 3
    assert response.status_code == 400
    assert errors(response, Format.XML) == ["DataError:body:FormatRule"]


# --- odd short codes and filters ------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("%00", id="nul"),
        pytest.param("../x", id="dot-dot-slash"),
        pytest.param("..%2Fx", id="encoded-dot-dot-slash"),
        pytest.param("A" * 50, id="50-chars"),
        pytest.param("7KXM4QHT2W%00", id="code-then-nul"),
        pytest.param("7KXM4%0AQHT2W", id="newline"),
        pytest.param("%E2%80%AE7KXM4QHT2W", id="bidi-override"),
        pytest.param("%FF%FE", id="not-utf-8"),
        pytest.param("7KXM4%20QHT2W", id="inner-space"),
        pytest.param("'%20OR%201=1--", id="sql"),
        pytest.param("%25", id="percent"),
        pytest.param("2" * 7, id="too-short"),
        pytest.param("2" * 13, id="too-long"),
        pytest.param("0OIL1OIL10", id="look-alikes"),
    ],
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_short_code_with_odd_characters_answers_404(sandbox, grower, code, fmt):
    response = grower.get(
        sandbox.endpoint(f"/v1/passports/{code}.eb"),
        headers={"Accept": fmt.media_type},
        timeout=TIMEOUT,
    )
    assert response.status_code == 404
    assert errors(response, fmt) == ["OperationError:NotFound"]


@pytest.fixture(scope="module")
def crops_guid(sandbox, grower) -> str:
    response = grower.get(
        sandbox.endpoint("/v1/standards.eb"), headers={"Accept": "application/json"}, timeout=30
    )
    schemes = decode(response.content, records.SchemeList, Format.JSON).items
    return next(s.scheme_guid for s in schemes if s.scheme_name.startswith("Combinable"))


@pytest.mark.parametrize(
    "sector",
    [
        pytest.param("S" * 500, id="500-chars"),
        pytest.param("%' OR 1=1 --", id="sql"),
        pytest.param("\x00", id="nul"),
        pytest.param("é" * 200, id="non-ascii"),
        pytest.param("_", id="like-wildcard"),
        pytest.param("%", id="percent"),
    ],
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_an_odd_sector_prefix_filter_matches_nothing_and_is_no_500(
    sandbox, grower, crops_guid, sector, fmt
):
    for stage in ("", "preview/"):
        listing = grower.get(
            sandbox.endpoint(f"/v1/standards/{stage}{crops_guid}.eb"),
            params={"SectorPrefixFilter": sector},
            headers={"Accept": fmt.media_type},
            timeout=TIMEOUT,
        )
        assert listing.status_code == 200, listing.text
        assert decode(listing.content, records.SectionList, fmt).sections == []
        data = grower.get(
            sandbox.endpoint(f"/v1/standards/{stage}{crops_guid}/ST.eb"),
            params={"SectorPrefixFilter": sector},
            headers={"Accept": fmt.media_type},
            timeout=TIMEOUT,
        )
        assert data.status_code == 404
        assert errors(data, fmt) == ["OperationError:NotFound"]


@pytest.mark.parametrize(
    "segment", ["S" * 500, "%00", "%FF", "..%2F..%2Fetc", "%25%25", "ST%00", "'"]
)
def test_an_odd_scheme_or_section_segment_answers_404(sandbox, grower, crops_guid, segment):
    for path in (
        f"/v1/standards/{segment}.eb",
        f"/v1/standards/{crops_guid}/{segment}.eb",
        f"/v1/standards/preview/{segment}.eb",
        f"/v1/standards/preview/{crops_guid}/{segment}.eb",
    ):
        response = grower.get(
            sandbox.endpoint(path), headers={"Accept": "application/json"}, timeout=TIMEOUT
        )
        assert response.status_code == 404, path
        assert errors(response, Format.JSON) == ["OperationError:NotFound"]


# --- the sandbox still works ----------------------------------------------------------------------


def test_after_all_this_a_good_passport_is_still_created(sandbox, grower):
    form = records.PassportRequest(membership_guid=HOLLOWFIELD, site_guid=HOLLOWFIELD_FARM)
    before = sandbox.count("sandbox_passport")
    response = submit(sandbox, grower, encode(form, Format.XML), Format.XML)
    assert response.status_code == 200, response.text
    assert sandbox.count("sandbox_passport") == before + 1


# --- the order of the checks (docs/interface.md) --------------------------------------------------


def anonymous(method: str, sandbox, path: str, **kwargs) -> requests.Response:
    return requests.request(method, sandbox.endpoint(path), timeout=TIMEOUT, **kwargs)


def test_an_unknown_path_is_404_before_its_method_accept_or_credentials(sandbox):
    response = anonymous("PUT", sandbox, "/v1/nothing.eb", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert errors(response, Format.JSON) == ["OperationError:NotFound"]


def test_a_wrong_method_is_405_before_accept_and_credentials(sandbox):
    response = anonymous("PUT", sandbox, "/v1/passports.eb", headers={"Accept": "text/html"})
    assert response.status_code == 405
    assert errors(response, Format.JSON) == ["OperationError:MethodNotAllowed"]


def test_an_unacceptable_accept_is_406_before_credentials(sandbox, no_passport_stored):
    with no_passport_stored():
        response = anonymous(
            "POST", sandbox, "/v1/passports.eb", data=b"x",
            headers={"Accept": "text/html", "Content-Type": "text/plain"},
        )  # fmt: skip
    assert response.status_code == 406
    assert errors(response, Format.JSON) == ["OperationError:NotAcceptable"]


def test_missing_credentials_are_401_before_the_body_is_looked_at(sandbox, no_passport_stored):
    with no_passport_stored():
        response = anonymous(
            "POST", sandbox, "/v1/passports.eb", data=b"x",
            headers={"Accept": "text/xml", "Content-Type": "text/plain"},
        )  # fmt: skip
    assert response.status_code == 401
    assert errors(response, Format.XML) == ["OperationError:AuthenticationRequired"]


def test_an_unsupported_media_type_is_415_before_the_size_is_looked_at(
    sandbox, grower, no_passport_stored
):
    with no_passport_stored():
        response = grower.post(
            sandbox.endpoint("/v1/passports.eb"),
            data=b"x" * (65 * 1024),
            headers={"Content-Type": "text/plain", "Accept": "application/json",
                     "Connection": "close"},
            timeout=TIMEOUT,
        )  # fmt: skip
    assert response.status_code == 415
    assert errors(response, Format.JSON) == ["OperationError:UnsupportedMediaType"]


def test_data_errors_come_before_not_a_contact(sandbox, grower, no_passport_stored):
    body = json_body(
        MembershipGUID=guid_for("membership:oakhurst"),
        SiteGUID=guid_for("site:oakhurst"),
        LoadingDate="31/02/2026",
    )
    with no_passport_stored():
        response = submit(sandbox, grower, body, Format.JSON)
    assert response.status_code == 400
    assert errors(response, Format.JSON) == ["DataError:LoadingDate:FormatRule"]


@pytest.mark.parametrize(
    ("membership", "site"),
    [
        pytest.param("membership:oakhurst", "site:oakhurst", id="not-a-contact"),
        pytest.param("membership:coldharbour", "site:ridgeway", id="site-of-another-membership"),
    ],
)
def test_not_a_contact_comes_before_status_not_valid(sandbox, no_passport_stored, membership, site):
    body = json_body(MembershipGUID=guid_for(membership), SiteGUID=guid_for(site))
    with no_passport_stored():
        response = anonymous(
            "POST", sandbox, "/v1/passports.eb", data=body,
            auth=("lapsed", "lapsed-demo-pass"),
            headers={"Content-Type": "application/json", "Accept": "application/json",
                     "X-Forwarded-For": ADDRESS},
        )  # fmt: skip
    assert response.status_code == 403
    assert errors(response, Format.JSON) == ["OperationError:NotAContact"]


@pytest.mark.parametrize(
    "path", ["/v1/standards.eb", f"/v1/passports/{DEMO_SHORT_CODE}.eb", "/v1/authorisation.eb"]
)
def test_head_is_not_offered(sandbox, grower, path):
    response = grower.head(sandbox.endpoint(path), timeout=TIMEOUT)
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET"
