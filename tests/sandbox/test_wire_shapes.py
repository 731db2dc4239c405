"""The sandbox's responses have the shapes of the golden documents in tests/fixtures/wire.

The golden documents were written by hand from the interface; the sandbox may leave optional
fields out, so every name in a response must appear at the same place in the golden document,
while roots and list containers and their items must match exactly.

A shape is a tree of names. XML: element names, the repeated items of a list collapsed into one.
JSON: keys, a list standing for its items merged into one, with the JSON type of each value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import defusedxml.ElementTree as SafeElementTree
import pytest
import requests

from portal.assurance import records
from portal.assurance.codec import Format, decode, encode
from sandbox.ids import guid_for

TIMEOUT = 30
# An address of this module's own (X-Forwarded-For), so no other module's lockout reaches it.
ADDRESS = "192.0.2.13"
WIRE = Path(__file__).resolve().parent.parent / "fixtures" / "wire"
FORMATS = [pytest.param(Format.JSON, id="json"), pytest.param(Format.XML, id="xml")]
CROPS = "Combinable Crops and Sugar Beet"


# --- shapes ---------------------------------------------------------------------------------------


def xml_shape(element) -> dict[str, Any]:
    """{child name: its shape}, children of the same name merged."""
    shape: dict[str, Any] = {}
    for child in element:
        shape[child.tag] = merge(shape.get(child.tag, {}), xml_shape(child))
    return shape


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for name, sub in b.items():
        out[name] = merge(out.get(name, {}), sub) if isinstance(sub, dict) else sub
    return out


def xml_lists(element, path: str = "") -> dict[str, str]:
    """{path of a list container: its item name}. A container is an element with two or more
    children, all of one name (the golden documents show every list with two items at least)."""
    found = {}
    names = {child.tag for child in element}
    if len(element) >= 2 and len(names) == 1:
        found[path or "/"] = names.pop()
    for child in element:
        found.update(xml_lists(child, f"{path}/{child.tag}"))
    return found


def xml_children_at(element, path: str) -> list:
    elements = [element]
    for name in [p for p in path.split("/") if p]:
        elements = [c for e in elements for c in e if c.tag == name]
    return [c for e in elements for c in e]


JSON_TYPES = {str: "string", bool: "boolean", int: "number", float: "number"}


def json_shape(value: Any) -> Any:
    """("object", {key: shape}), ("list", merged item shape) or the JSON type's name."""
    if isinstance(value, dict):
        return ("object", {key: json_shape(v) for key, v in value.items()})
    if isinstance(value, list):
        merged: Any = None
        for item in value:
            merged = json_merge(merged, json_shape(item))
        return ("list", merged)
    if value is None:
        return "null"
    return JSON_TYPES[type(value)]


def json_merge(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "object":
        keys = {**a[1], **b[1]}
        return ("object", {k: json_merge(a[1].get(k), b[1].get(k)) for k in keys})
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "list":
        return ("list", json_merge(a[1], b[1]))
    assert a == b, f"the items of one list mix {a!r} and {b!r}"
    return a


def json_differences(actual: Any, golden: Any, path: str = "") -> list[str]:
    """Where `actual` has a name, a type or a list that `golden` does not have there."""
    where = path or "/"
    if isinstance(golden, tuple) != isinstance(actual, tuple):
        return [f"{where}: {describe(actual)} where the golden document has {describe(golden)}"]
    if not isinstance(golden, tuple):
        return [] if actual == golden else [f"{where}: {actual} instead of {golden}"]
    if actual[0] != golden[0]:
        return [f"{where}: {actual[0]} where the golden document has {golden[0]}"]
    if actual[0] == "list":
        if actual[1] is None:
            return [f"{where}: an empty list"]
        return json_differences(actual[1], golden[1], f"{path}[]")
    problems = []
    for key, sub in actual[1].items():
        if key not in golden[1]:
            problems.append(f"{path}/{key}: not in the golden document")
        else:
            problems += json_differences(sub, golden[1][key], f"{path}/{key}")
    return problems


def describe(shape: Any) -> str:
    return f"an {shape[0]}" if isinstance(shape, tuple) else f"a {shape}"


def json_list_paths(shape: Any, path: str = "") -> set[str]:
    if not isinstance(shape, tuple):
        return set()
    if shape[0] == "list":
        return {path or "/"} | json_list_paths(shape[1], f"{path}[]")
    return set().union(*(json_list_paths(s, f"{path}/{k}") for k, s in shape[1].items()))


def xml_differences(actual: dict, golden: dict, path: str = "") -> list[str]:
    problems = []
    for name, sub in actual.items():
        if name not in golden:
            problems.append(f"{path}/{name}: not in the golden document")
        else:
            problems += xml_differences(sub, golden[name], f"{path}/{name}")
    return problems


def assert_same_shape(body: bytes, golden_name: str, fmt: Format) -> None:
    if fmt is Format.JSON:
        golden = json_shape(json.loads((WIRE / f"{golden_name}.json").read_text("utf-8")))
        actual = json_shape(json.loads(body))
        assert actual[0] == golden[0]
        assert json_differences(actual, golden) == []
        # Every list of the golden document is in the response, as a list with items.
        missing = json_list_paths(golden) - json_list_paths(actual)
        assert not missing, f"lists missing from the response: {sorted(missing)}"
        return
    golden_root = SafeElementTree.fromstring((WIRE / f"{golden_name}.xml").read_bytes())
    root = SafeElementTree.fromstring(body)
    assert root.tag == golden_root.tag
    assert xml_differences(xml_shape(root), xml_shape(golden_root)) == []
    for path, item in xml_lists(golden_root).items():
        children = xml_children_at(root, "" if path == "/" else path)
        assert children, f"the list {path} is missing or empty in the response"
        assert {c.tag for c in children} == {item}, f"the items of {path} are not <{item}>"


# --- the self-check of the shape functions --------------------------------------------------------


def test_the_shape_comparison_catches_a_renamed_item_and_an_unknown_field():
    golden = SafeElementTree.fromstring(b"<A><L><Item><x/></Item><Item><y/></Item></L></A>")
    assert xml_lists(golden) == {"/L": "Item"}
    wrong = SafeElementTree.fromstring(b"<A><L><item><x/></item></L><z/></A>")
    assert xml_differences(xml_shape(wrong), xml_shape(golden)) == [
        "/L/item: not in the golden document",
        "/z: not in the golden document",
    ]
    actual = json_shape({"L": [{"x": "1"}], "n": "2"})
    expected = json_shape({"L": [{"x": "a"}, {"y": "b"}], "n": 2})
    assert json_differences(actual, expected) == ["/n: string instead of number"]


@pytest.mark.parametrize("name", ["schemes", "sections", "section", "passport", "authorisation",
                                  "errors", "authorization"])  # fmt: skip
def test_each_golden_document_has_the_same_names_in_json_and_xml(name):
    root = SafeElementTree.fromstring((WIRE / f"{name}.xml").read_bytes())
    data = json.loads((WIRE / f"{name}.json").read_text("utf-8"))

    def names_json(value: Any) -> set[str]:
        if isinstance(value, dict):
            return set(value) | set().union(*(names_json(v) for v in value.values()))
        if isinstance(value, list):
            return set().union(*(names_json(v) for v in value))
        return set()

    xml_names = {e.tag for e in root.iter()} - {root.tag, "Item", "item", "Error"}
    assert xml_names - names_json(data) == set()


# --- fetching real responses ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def grower(sandbox):
    with requests.Session() as session:
        session.auth = ("grower", "grower-demo-pass")
        session.headers["X-Forwarded-For"] = ADDRESS
        yield session


@pytest.fixture(scope="module")
def crops_guid(sandbox, grower) -> str:
    response = grower.get(
        sandbox.endpoint("/v1/standards.eb"),
        headers={"Accept": "application/json"},
        timeout=TIMEOUT,
    )
    listing = decode(response.content, records.SchemeList, Format.JSON)
    return next(s.scheme_guid for s in listing.items if s.scheme_name == CROPS)


def full_passport_request() -> records.PassportRequest:
    golden = (WIRE / "passport-request.json").read_bytes()
    form = decode(golden, records.PassportRequest, Format.JSON)
    form.membership_guid = guid_for("membership:hollowfield")
    form.site_guid = guid_for("site:hollowfield-farm")
    form.store_guid = guid_for("store:main-store")
    return form


def get(sandbox, session, path, fmt, status=200) -> bytes:
    response = session.get(
        sandbox.endpoint(path), headers={"Accept": fmt.media_type}, timeout=TIMEOUT
    )
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    return response.content


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_scheme_list_has_the_shape_of_the_golden_document(sandbox, grower, fmt):
    assert_same_shape(get(sandbox, grower, "/v1/standards.eb", fmt), "schemes", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_preview_scheme_list_has_the_shape_of_the_golden_document(sandbox, grower, fmt):
    assert_same_shape(get(sandbox, grower, "/v1/standards/preview/.eb", fmt), "schemes", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("stage", ["", "preview/"], ids=["live", "preview"])
def test_the_section_list_has_the_shape_of_the_golden_document(
    sandbox, grower, crops_guid, stage, fmt
):
    body = get(sandbox, grower, f"/v1/standards/{stage}{crops_guid}.eb", fmt)
    assert_same_shape(body, "sections", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("stage", ["", "preview/"], ids=["live", "preview"])
def test_the_section_data_has_the_shape_of_the_golden_document(
    sandbox, grower, crops_guid, stage, fmt
):
    body = get(sandbox, grower, f"/v1/standards/{stage}{crops_guid}/ST.eb", fmt)
    assert_same_shape(body, "section", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_created_passport_has_the_shape_of_the_golden_document(sandbox, grower, fmt):
    response = grower.post(
        sandbox.endpoint("/v1/passports.eb"),
        data=encode(full_passport_request(), fmt),
        headers={"Content-Type": fmt.content_type, "Accept": fmt.media_type},
        timeout=TIMEOUT,
    )
    assert response.status_code == 200, response.text
    assert_same_shape(response.content, "passport", fmt)
    code = decode(response.content, records.CropPassport, fmt).short_code
    assert_same_shape(get(sandbox, grower, f"/v1/passports/{code}.eb", fmt), "passport", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_demo_passport_has_the_shape_of_the_golden_document(sandbox, grower, fmt):
    assert_same_shape(get(sandbox, grower, "/v1/passports/7KXM4QHT2W.eb", fmt), "passport", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_authorisation_has_the_shape_of_the_golden_document(sandbox, grower, fmt):
    assert_same_shape(get(sandbox, grower, "/v1/authorisation.eb", fmt), "authorisation", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_error_with_several_data_errors_has_the_shape_of_the_golden_document(
    sandbox, grower, fmt
):
    bodies = {
        Format.JSON: b'{"LoadingDate": "31/02/2026"}',
        Format.XML: b"<CreatePassportRequest><LoadingDate>31/02/2026</LoadingDate>"
        b"</CreatePassportRequest>",
    }
    response = grower.post(
        sandbox.endpoint("/v1/passports.eb"),
        data=bodies[fmt],
        headers={"Content-Type": fmt.content_type, "Accept": fmt.media_type},
        timeout=TIMEOUT,
    )
    assert response.status_code == 400
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    assert len(decode(response.content, records.ErrorBody, fmt).errors) >= 2
    assert_same_shape(response.content, "errors", fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_single_error_has_the_shape_of_the_golden_document(sandbox, grower, fmt):
    body = get(sandbox, grower, "/v1/passports/ABCDEFGHJK.eb", fmt, status=404)
    # One error: its shape is a part of the golden document's, and its item is <Error>.
    if fmt is Format.JSON:
        golden = json_shape(json.loads((WIRE / "errors.json").read_text("utf-8")))
        assert json_differences(json_shape(json.loads(body)), golden) == []
    else:
        root = SafeElementTree.fromstring(body)
        golden = SafeElementTree.fromstring((WIRE / "errors.xml").read_bytes())
        assert root.tag == golden.tag == "Errors"
        assert [c.tag for c in root] == ["Error"]
        assert xml_differences(xml_shape(root), xml_shape(golden)) == []


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["token", "session"])
def test_the_authorization_from_login_has_the_shape_of_the_golden_document(sandbox, fmt, kind):
    credentials = records.LoginRequest(type=kind, username="grower", password="grower-demo-pass")
    response = requests.post(
        sandbox.endpoint("/v1/authentication/login.eb"),
        data=encode(credentials, fmt),
        headers={
            "Content-Type": fmt.content_type,
            "Accept": fmt.media_type,
            "X-Forwarded-For": ADDRESS,
        },
        timeout=TIMEOUT,
    )
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith(fmt.media_type)
    assert_same_shape(response.content, "authorization", fmt)
