"""Fuzzing the live sandbox over HTTP.

Two kinds: every operation of `docs/openapi.yaml` driven by schemathesis (positive and negative
data, as the grower and without credentials), and raw passport-creation bodies (random bytes,
random JSON objects, random XML-ish text, each as JSON and as XML) driven by hypothesis.

Properties checked on every response:
- it is not a server error (schemathesis' `not_a_server_error`, or status < 500);
- an error (any status outside 2xx) carries the one error body of docs/interface.md,
  `{"Errors": [{"Code", "Message"}]}`, in the JSON or XML its `Content-Type` names, readable by
  the portal's own codec;
- without credentials, no operation but login succeeds;
- a passport the raw bodies manage to create reads back as a `CropPassport` (or is a PDF).

Failures are collected, not raised inside hypothesis, so that one run reports every problem with
the request that caused it, and no time goes on shrinking. Generation is derandomized, so a run
is reproducible. Real identifiers from the demo data are mixed into the generated requests so
that the fuzz reaches past "not found" and "not a contact" into the operations themselves.

Every request comes from an address of its own (`X-Forwarded-For`; the fixture trusts
127.0.0.1 as a proxy), so the failed logins the fuzz makes never lock anything out.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import msgspec
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from portal.assurance import codec, records

SPEC = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
GROWER = ("grower", "grower-demo-pass")
LAPSED = ("lapsed", "lapsed-demo-pass")
DEMO_SHORT_CODE = "7KXM4QHT2W"

JSON, XML, XML_ALIAS, PDF = "application/json", "text/xml", "application/xml", "application/pdf"
# What clients may send in `Accept`: the offers, ranges, q-values, nonsense and nothing at all.
ACCEPTS = [
    JSON,
    XML,
    XML_ALIAS,
    PDF,
    "*/*",
    "",
    "text/*",
    "image/png",
    "text/xml;q=0.4, application/json;q=0.9",
    "application/pdf, */*;q=0.1",
    "application/json;q=0",
    ";;,q=",
]
REQUEST_TIMEOUT = 30

# Examples per test. The whole file runs in about a minute on two cores.
SCHEMA_EXAMPLES = {"grower": 30, "anonymous": 12}
RAW_EXAMPLES = 30


def fuzz_settings(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


SCHEMA = schemathesis.openapi.from_path(SPEC)
# Credentials are ours to send: generated ones would be wrong passwords, and lock addresses out.
SCHEMA.config.generation.update(with_security_parameters=False)
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]
LOGIN = "POST /v1/authentication/login.eb"
CREATE = "POST /v1/passports.eb"


# --- the request side ----------------------------------------------------------------------------

_addresses = itertools.count(1)


def fresh_address() -> str:
    """An address of the shared-address space (RFC 6598) that no other request uses."""
    n = next(_addresses)
    return f"100.{64 + n // 62500 % 64}.{n // 250 % 250}.{n % 250 + 1}"


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def request_headers(accept: str, authorization: str | None) -> dict[str, str]:
    headers = {"Accept": accept, "X-Forwarded-For": fresh_address()}
    if authorization:
        headers["Authorization"] = authorization
    return headers


def describe(request: requests.PreparedRequest) -> str:
    """The request, enough to replay it, with credentials masked and the body cut short."""
    headers = {
        name: "[credentials]" if name.lower() == "authorization" else value
        for name, value in request.headers.items()
        if name.lower() in ("accept", "content-type", "authorization", "cookie")
    }
    body = request.body if isinstance(request.body, bytes) else (request.body or "").encode()
    shown = body[:400] + (b"..." if len(body) > 400 else b"")
    return f"{request.method} {request.url}\n    headers {headers}\n    body {shown!r}"


# --- the response side ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    content: bytes
    request: requests.PreparedRequest


def reply_of(response: Any) -> Reply:
    """A requests or schemathesis response, in one shape."""
    if isinstance(response, requests.Response):
        content_type = response.headers.get("Content-Type", "")
    else:  # schemathesis' Response: lower-case names, lists of values
        content_type = (response.headers.get("content-type") or [""])[0]
    return Reply(response.status_code, content_type, response.content, response.request)


def error_body_problem(reply: Reply) -> str | None:
    """What is wrong with an error response's body, or None when it is the one error body."""
    fmt = codec.format_of_media_type(reply.content_type)
    if fmt is None:
        return f"the error body is {reply.content_type!r}, neither JSON nor XML"
    try:
        body = codec.decode(reply.content, records.ErrorBody, fmt)
    except codec.WireFormatError as exc:
        return f"the error body does not read as an ErrorBody: {exc}"
    if not body.errors:
        return "the error body holds no Error"
    if not all(error.code and error.message for error in body.errors):
        return "an Error of the body has no Code or no Message"
    return None


def passport_problem(reply: Reply) -> str | None:
    """What is wrong with a successful passport response, or None."""
    if reply.content_type.startswith(PDF):
        return None if reply.content.startswith(b"%PDF-") else "the PDF is not a PDF"
    fmt = codec.format_of_media_type(reply.content_type)
    if fmt is None:
        return f"the passport is {reply.content_type!r}, neither JSON, XML nor PDF"
    try:
        passport = codec.decode(reply.content, records.CropPassport, fmt)
    except codec.WireFormatError as exc:
        return f"the passport does not read as a CropPassport: {exc}"
    if not passport.short_code:
        return "the passport has no ShortCode"
    return None


class Findings:
    """Problems found, each with the request that caused it; the test fails if there are any."""

    SHOWN = 15

    def __init__(self) -> None:
        self.items: dict[str, str] = {}
        self.statuses: Counter[int] = Counter()

    def add(self, reply: Reply, problem: str) -> None:
        # A fault of the response's shape is shown once per status; every server error is shown,
        # since their bodies all look alike whatever their cause.
        key = describe(reply.request) if reply.status >= 500 else f"{reply.status} {problem}"
        self.items.setdefault(key, f"{reply.status}: {problem}\n  {describe(reply.request)}")

    def check(
        self, reply: Reply, *, anonymous: bool = False, on_success: Callable | None = None
    ) -> None:
        self.statuses[reply.status] += 1
        if reply.status >= 500:
            self.add(reply, f"server error {reply.content[:200]!r}")
        elif not 200 <= reply.status < 300:
            if problem := error_body_problem(reply):
                self.add(reply, problem)
        elif anonymous:
            self.add(reply, "succeeded without credentials")
        elif on_success and (problem := on_success(reply)):
            self.add(reply, problem)

    def assert_none(self, sandbox) -> None:
        tally = f"{self.statuses.total()} requests, by status {dict(sorted(self.statuses.items()))}"
        print(tally)  # shown with -rA: how far the fuzz got
        if self.items:
            shown = list(self.items.values())[: self.SHOWN]
            more = len(self.items) - len(shown)
            log = sandbox.log.read_text(errors="replace")[-3000:]
            pytest.fail(
                f"{len(self.items)} problem(s) in {tally}:\n\n"
                + "\n\n".join(shown)
                + (f"\n\n... and {more} more" if more else "")
                + f"\n\n--- the end of the sandbox log ({sandbox.log}) ---\n{log}",
                pytrace=False,
            )


# --- real identifiers, so that the fuzz gets past 404 and 403 ------------------------------------


@dataclass(frozen=True)
class Demo:
    # stage ("live" or "preview"): scheme GUID: the prefixes and GUIDs of its sections
    sections: dict[str, dict[str, list[str]]]
    sectors: dict[str, list[str]]  # scheme GUID: its sector prefixes
    membership_guids: list[str]  # the grower's, and the lapsed user's (whose claims are not valid)
    site_guids: list[str]
    store_guids: list[str]


def _get(sandbox, path: str, credentials: tuple[str, str] = GROWER) -> dict | None:
    response = requests.get(
        sandbox.endpoint(path),
        headers=request_headers(JSON, basic(*credentials)),
        timeout=REQUEST_TIMEOUT,
    )
    if response.status_code == 404:
        return None
    response.raise_for_status()
    return response.json()


@pytest.fixture(scope="module")
def demo(sandbox) -> Demo:
    sections: dict[str, dict[str, list[str]]] = {"live": {}, "preview": {}}
    sectors: dict[str, set[str]] = {}
    for scheme in _get(sandbox, "/v1/standards.eb")["items"]:
        guid = scheme["SchemeGUID"]
        for stage, path in (("live", "/v1/standards/"), ("preview", "/v1/standards/preview/")):
            listed = _get(sandbox, f"{path}{guid}.eb")  # None: no preview of this scheme
            if listed and listed["Sections"]:
                keys = [(s["prefix"], s["prefix"].lower(), s["guid"]) for s in listed["Sections"]]
                sections[stage][guid] = sorted({key for trio in keys for key in trio})
                sectors.setdefault(guid, set()).update(
                    s["sectorprefix"] for s in listed["Sections"]
                )
    memberships = [
        m
        for account in (GROWER, LAPSED)
        for m in _get(sandbox, "/v1/authorisation.eb", account)["Memberships"]
    ]
    sites = [s for m in memberships for s in m["Sites"]]
    return Demo(
        sections=sections,
        sectors={guid: sorted(prefixes) for guid, prefixes in sectors.items()},
        membership_guids=[m["MembershipGUID"] for m in memberships],
        site_guids=[s["SiteGUID"] for s in sites],
        store_guids=[store["StoreGUID"] for s in sites for store in s["Stores"]],
    )


def with_real_identifiers(demo: Demo, case: schemathesis.Case, draw: Callable) -> None:
    """Replaces some generated values of `case` by real ones, drawn by hypothesis, so that the
    fuzz reaches the operations themselves and not only their 404s and 403s."""
    path = case.path_parameters if case.path_parameters is not None else {}
    query = case.query if isinstance(case.query, dict) else {}
    if "schemeguid" in path and draw(st.booleans()):
        stage = "preview" if "/preview/" in case.operation.path else "live"
        scheme = path["schemeguid"] = draw(st.sampled_from(sorted(demo.sections[stage])))
        if "section" in path and draw(st.integers(0, 3)):
            path["section"] = draw(st.sampled_from(demo.sections[stage][scheme]))
        if "SectorPrefixFilter" in query:
            real = st.sampled_from(demo.sectors[scheme])
            query["SectorPrefixFilter"] = draw(st.sampled_from(["", "cr"]) | real)
    if "shortcode" in path and draw(st.booleans()):
        code = DEMO_SHORT_CODE
        path["shortcode"] = draw(st.sampled_from([code, code.lower(), f"{code[:5]}-{code[5:]}"]))
    if not isinstance(case.body, dict) or not draw(st.booleans()):
        return
    if case.operation.label == LOGIN:
        username, password = draw(st.sampled_from([GROWER, ("GROWER@example.com", GROWER[1])]))
        case.body.update(username=username, password=password)
    elif case.operation.label == CREATE:
        case.body.update(
            MembershipGUID=draw(st.sampled_from(demo.membership_guids)),
            SiteGUID=draw(st.sampled_from(demo.site_guids)),
        )
        if draw(st.booleans()):
            case.body["StoreGUID"] = draw(st.sampled_from(demo.store_guids))


# --- 1. every operation of the OpenAPI document --------------------------------------------------


def test_the_openapi_document_is_valid() -> None:
    SCHEMA.validate()
    assert len(OPERATIONS) == 10


@pytest.mark.parametrize("who", ["grower", "anonymous"])
@pytest.mark.parametrize("operation", OPERATIONS, ids=[op.label for op in OPERATIONS])
def test_no_operation_fails_or_answers_an_error_of_another_shape(sandbox, demo, operation, who):
    authorization = basic(*GROWER) if who == "grower" else None
    anonymous = who == "anonymous" and operation.label != LOGIN
    has_inputs = bool(list(operation.iter_parameters())) or bool(operation.body)
    modes = list(GenerationMode) if has_inputs else [GenerationMode.POSITIVE]
    cases = st.one_of([operation.as_strategy(generation_mode=mode) for mode in modes])
    findings = Findings()
    session = requests.Session()

    @fuzz_settings(SCHEMA_EXAMPLES[who])
    @given(case=cases, accept=st.sampled_from(ACCEPTS), data=st.data())
    def fuzz(case, accept, data):
        with_real_identifiers(demo, case, data.draw)
        session.cookies.clear()  # a cookie from a login must not authenticate what follows
        headers = request_headers(accept, authorization)
        response = case.call(sandbox.url, session=session, headers=headers, timeout=REQUEST_TIMEOUT)
        reply = reply_of(response)
        try:
            case.validate_response(response, checks=[not_a_server_error], headers=headers)
        except Exception as failure:  # schemathesis reports a failed check as an exception
            findings.add(reply, f"{type(failure).__name__}: {failure}")
        findings.check(reply, anonymous=anonymous)

    fuzz()
    findings.assert_none(sandbox)


# --- 2. raw passport bodies ----------------------------------------------------------------------

PASSPORT_FIELDS = [f.encode_name for f in msgspec.structs.fields(records.PassportRequest)]
LOGIN_FIELDS = [f.encode_name for f in msgspec.structs.fields(records.LoginRequest)]

# Text, now and then with characters that cannot be encoded (lone surrogates) or written in XML.
texts = st.text(
    alphabet=st.characters() | st.characters(categories=["Cs"]) | st.sampled_from("<&>\"'\x00\r"),
    max_size=40,
)
offsets = st.builds(
    timezone,
    st.timedeltas(
        min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59)
    ),
)
date_texts = st.one_of(
    st.datetimes(timezones=st.none() | offsets).map(datetime.isoformat),
    st.dates().map(lambda d: d.isoformat()),
    st.from_regex(r"\A\d{1,5}-\d{1,2}-\d{1,2}(T\d{1,2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?[Zz+-]?\Z"),
)
numbers = st.one_of(
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
)
json_scalars = st.one_of(st.none(), st.booleans(), numbers, texts, date_texts)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


def json_objects(fields: list[str]) -> st.SearchStrategy[dict]:
    """Objects of these fields (in any case) and others, with values of every type."""
    names = st.one_of(st.sampled_from(fields), st.sampled_from(fields).map(str.lower), texts)
    return st.dictionaries(names, json_values, max_size=12)


@st.composite
def xml_elements(draw, depth: int = 0) -> str:
    name = draw(st.sampled_from(PASSPORT_FIELDS) | st.from_regex(r"\A[A-Za-z_][\w.-]{0,8}\Z"))
    attributes = draw(
        st.sampled_from(
            ["", ' xsi:nil="true"', ' xmlns="urn:example:passport"', " a=" + quoteattr("<&")]
        )
    )
    content = draw(
        st.one_of(
            texts.map(escape),  # well-formed text
            texts,  # text as it comes, perhaps with < and &
            date_texts,
            numbers.map(str),
            texts.map(lambda t: f"<![CDATA[{t}]]>"),
            st.just("&amp;&#0;&#xD800;&undefined;"),
            st.lists(xml_elements(depth + 1), max_size=2).map("".join)
            if depth < 2
            else st.just(""),
        )
    )
    return f"<{name}{attributes}>{content}</{name}>"


@st.composite
def xmlish_bodies(draw, real_children: str = "") -> bytes:
    """XML-like text: a root of passport fields, well-formed or not, sometimes cut short.

    `real_children`, when drawn, comes first in the root, so that the rest reaches the database.
    """
    root = draw(
        st.sampled_from(
            ["CreatePassportRequest", "createpassportrequest", "p:CreatePassportRequest"]
        )
        | st.sampled_from(["authenticate", "Errors", "CropPassport", "x"])
    )
    namespaces = ' xmlns:p="urn:p" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    children = "".join(draw(st.lists(xml_elements(), max_size=8)))
    if real_children and draw(st.booleans()):
        children = real_children + children
    body = f"<{root}{namespaces}>{children}</{root}>"
    prolog = draw(
        st.sampled_from(
            [
                "",
                '<?xml version="1.0" encoding="utf-8"?>',
                '<?xml version="1.1"?>',
                '<?xml version="1.0" encoding="iso-8859-1"?>',
                '<!DOCTYPE x [<!ENTITY e "boom">]>',
                '<!DOCTYPE x SYSTEM "file:///etc/passwd">',
            ]
        )
    )
    text = prolog + body
    if draw(st.booleans()):  # cut it short, or add something after the root
        cut = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:cut] + draw(st.sampled_from(["", "<", "</x>", "junk", "<more/>"]))
    return text.encode("utf-8", errors="surrogatepass")


def post_passport(sandbox, body: bytes, content_type: str, accept: str) -> Reply:
    response = requests.post(
        sandbox.endpoint("/v1/passports.eb"),
        data=body,
        headers={
            **request_headers(accept, basic(*GROWER)),
            "Content-Type": f"{content_type}; charset=utf-8",
        },
        timeout=REQUEST_TIMEOUT,
    )
    return reply_of(response)


RAW_ACCEPTS = st.sampled_from([JSON, XML, XML_ALIAS, "", "image/png", PDF])
CONTENT_TYPES = pytest.mark.parametrize("content_type", [JSON, XML])


@CONTENT_TYPES
def test_random_bytes_as_a_passport_body(sandbox, content_type):
    findings = Findings()

    @fuzz_settings(RAW_EXAMPLES)
    @given(body=st.binary(max_size=2048), accept=RAW_ACCEPTS)
    def fuzz(body, accept):
        reply = post_passport(sandbox, body, content_type, accept)
        findings.check(reply, on_success=passport_problem)

    fuzz()
    findings.assert_none(sandbox)


# Values at the edges of what the codec and the database take, tried before the random ones.
EDGE_VALUES = [
    {"CropType": "\ud800"},  # a lone surrogate, escaped in JSON
    {"CropType": 10**400},  # a number too large for a float, where text is expected
    {"LoadingDate": "0001-01-01T00:00:00+14:00"},  # before the year 1 in UTC
    {"LoadingDate": "9999-12-31T23:59:59-14:00"},  # after the year 9999 in UTC
    {"LoadingDate": "0001-01-01"},  # the first day there is
]


@CONTENT_TYPES
def test_random_json_objects_as_a_passport_body(sandbox, demo, content_type):
    """JSON objects of passport fields with values of every type; as text/xml they are 400."""
    findings = Findings()
    real = (demo.membership_guids[0], demo.site_guids[0])  # the grower's, of a valid claim
    guids = st.none() | st.tuples(
        st.sampled_from(demo.membership_guids), st.sampled_from(demo.site_guids)
    )

    @example(obj=EDGE_VALUES[0], guids=real, ensure_ascii=True, wrap=False, accept=JSON)
    @example(obj=EDGE_VALUES[1], guids=real, ensure_ascii=True, wrap=False, accept=XML)
    @example(obj=EDGE_VALUES[2], guids=real, ensure_ascii=True, wrap=False, accept=JSON)
    @example(obj=EDGE_VALUES[3], guids=real, ensure_ascii=True, wrap=True, accept=XML)
    @example(obj=EDGE_VALUES[4], guids=real, ensure_ascii=True, wrap=False, accept=JSON)
    @fuzz_settings(RAW_EXAMPLES)
    @given(
        obj=json_objects(PASSPORT_FIELDS),
        guids=guids,
        ensure_ascii=st.booleans(),
        wrap=st.booleans(),
        accept=RAW_ACCEPTS,
    )
    def fuzz(obj, guids, ensure_ascii, wrap, accept):
        if guids:
            obj = {**obj, "MembershipGUID": guids[0], "SiteGUID": guids[1]}
        document = {"CreatePassportRequest": obj} if wrap else obj
        body = json.dumps(document, ensure_ascii=ensure_ascii).encode("utf-8", "surrogatepass")
        reply = post_passport(sandbox, body, content_type, accept)
        findings.check(reply, on_success=passport_problem)

    fuzz()
    findings.assert_none(sandbox)


@CONTENT_TYPES
def test_random_xmlish_text_as_a_passport_body(sandbox, demo, content_type):
    """XML-like text, well-formed or not; as application/json it is 400."""
    findings = Findings()
    real_children = (
        f"<MembershipGUID>{demo.membership_guids[0]}</MembershipGUID>"
        f"<SiteGUID>{demo.site_guids[0]}</SiteGUID>"
    )

    edge = (
        f"<CreatePassportRequest>{real_children}"
        "<LoadingDate>{}</LoadingDate></CreatePassportRequest>"
    )

    @example(body=edge.format(EDGE_VALUES[2]["LoadingDate"]).encode(), accept=XML)
    @example(body=edge.format(EDGE_VALUES[4]["LoadingDate"]).encode(), accept=JSON)
    @fuzz_settings(RAW_EXAMPLES)
    @given(body=xmlish_bodies(real_children), accept=RAW_ACCEPTS)
    def fuzz(body, accept):
        reply = post_passport(sandbox, body, content_type, accept)
        findings.check(reply, on_success=passport_problem)

    fuzz()
    findings.assert_none(sandbox)


@CONTENT_TYPES
def test_random_json_objects_as_a_login_body(sandbox, content_type):
    """Login takes a body without credentials, so it is the other door for any JSON at all."""
    findings = Findings()

    @example(obj={"type": "token", "username": "\ud800", "password": "x"}, accept=JSON)
    @fuzz_settings(RAW_EXAMPLES // 2)
    @given(obj=json_objects(LOGIN_FIELDS), accept=RAW_ACCEPTS)
    def fuzz(obj, accept):
        response = requests.post(
            sandbox.endpoint("/v1/authentication/login.eb"),
            data=json.dumps(obj).encode(),
            headers={**request_headers(accept, None), "Content-Type": content_type},
            timeout=REQUEST_TIMEOUT,
        )
        findings.check(reply_of(response))

    fuzz()
    findings.assert_none(sandbox)
