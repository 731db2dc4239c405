"""One codec for the Assurance interface, to and from XML and JSON.

Strict in what it writes, tolerant in what it reads: unknown fields are ignored, absent ones
stay `None` (or an empty list), names match without regard to case, XML namespaces are
ignored, numbers may arrive as strings. A value of the wrong type is reported, with every
other such value of the same body, in one `WireFormatError`.

A JSON body is first given to msgspec, which builds the records (msgspec Structs) in one call
but accepts only the interface's own form: exact names, values of the declared types, no
unknown fields. Anything else it refuses, and the body is then read again by the tolerant walk
below, which alone reports errors. Both read date-times with `parse_datetime`, so both give the
same records for any body that both accept.
"""

from __future__ import annotations

import json
import math
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeElementTree
import msgspec
from defusedxml import DefusedXmlException

from portal.assurance.records import Record, WireDateTime, XmlItems

XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"


class Format(StrEnum):
    JSON = "json"
    XML = "xml"

    @property
    def media_type(self) -> str:
        return "application/json" if self is Format.JSON else "text/xml"

    @property
    def content_type(self) -> str:
        return f"{self.media_type}; charset=utf-8"


def media_type(content_type: str | None) -> str:
    """The media type of a `Content-Type`, without its parameters, in lower case."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def format_of_media_type(content_type: str | None) -> Format | None:
    """The format a `Content-Type` names, or None when it is neither XML nor JSON."""
    kind = media_type(content_type)
    if kind in ("application/json", "text/json") or kind.endswith("+json"):
        return Format.JSON
    if kind in ("text/xml", "application/xml") or kind.endswith("+xml"):
        return Format.XML
    return None


@dataclass(frozen=True, slots=True)
class FieldError:
    field: str
    message: str


class WireFormatError(ValueError):
    """A body that does not parse, has the wrong root, or holds values of the wrong type; or a
    record with a value its format cannot carry, refused by `encode`.

    `errors` names each offending field by its wire name; `body` stands for the whole body.
    """

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e.field}: {e.message}" for e in errors))

    @classmethod
    def of_body(cls, message: str) -> WireFormatError:
        return cls([FieldError("body", message)])


# --- field specifications, computed once per record class -------------------------------------

STR, FLOAT, BOOL, DATETIME, LIST = "str", "float", "bool", "datetime", "list"
_KINDS = {str: STR, float: FLOAT, bool: BOOL, datetime: DATETIME, WireDateTime: DATETIME}


@dataclass(frozen=True, slots=True)
class _Field:
    attr: str
    wire: str
    kind: str
    item_type: type | None = None
    item_tag: str = "Item"
    inline: bool = False


@dataclass(frozen=True, slots=True)
class _Spec:
    fields: tuple[_Field, ...]
    by_json_name: dict[str, _Field]  # wire names, exact and lower-cased
    by_xml_tag: dict[str, _Field]  # the same, but inline lists by their item tag


def _scalar(annotation: Any) -> Any:
    """`str | None` -> str, `Annotated[float, ...] | None` -> float."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        (annotation,) = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


@cache
def _spec(cls: type) -> _Spec:
    xml_items: Mapping[str, XmlItems] = getattr(cls, "xml_items", {})
    fields = []
    for f in msgspec.structs.fields(cls):
        if typing.get_origin(f.type) is list:
            (item_type,) = typing.get_args(f.type)
            items = xml_items.get(f.name, XmlItems())
            fields.append(
                _Field(
                    f.name,
                    f.encode_name,
                    LIST,
                    item_type=item_type,
                    item_tag=items.tag,
                    inline=items.inline,
                )
            )
        else:
            fields.append(_Field(f.name, f.encode_name, _KINDS[_scalar(f.type)]))
    by_json_name: dict[str, _Field] = {}
    by_xml_tag: dict[str, _Field] = {}
    for f in fields:
        for name in (f.wire, f.wire.lower()):
            by_json_name.setdefault(name, f)
        for name in (f.item_tag, f.item_tag.lower()) if f.inline else (f.wire, f.wire.lower()):
            by_xml_tag.setdefault(name, f)
    return _Spec(tuple(fields), by_json_name, by_xml_tag)


def wire_names(record_type: type) -> list[tuple[str, str]]:
    """(attribute, wire name) of each field of `record_type`."""
    return [(f.attr, f.wire) for f in _spec(record_type).fields]


def text_fields(record_type: type) -> list[tuple[str, str]]:
    """(attribute, wire name) of each string field of `record_type`."""
    return [(f.attr, f.wire) for f in _spec(record_type).fields if f.kind == STR]


def _lookup(names: dict[str, _Field], name: str) -> _Field | None:
    return names.get(name) or names.get(name.lower())


# --- scalar values --------------------------------------------------------------------------------


def parse_datetime(text: str) -> datetime:
    """An ISO 8601 date or date-time, in UTC; one without a zone is taken as UTC."""
    value = datetime.fromisoformat(text.strip())
    if not value.tzinfo:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("out of range in UTC") from None


def format_datetime(value: datetime) -> str:
    """UTC to the second, as `2026-11-22T09:30:00Z`; fractions of a second are not kept."""
    if value.tzinfo is not None and value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def wire_number(value: float) -> int | float:
    """A number as the wire carries it: finite, and whole numbers without a fraction."""
    number = float(value)
    if not math.isfinite(number):
        raise ValueError("Numbers on the wire are finite.")
    return int(number) if number.is_integer() and abs(number) < 1e15 else number


def format_number(value: float) -> str:
    return str(wire_number(value))


_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


def _from_text(kind: str, text: str) -> Any:
    """A scalar from its XML text (or a JSON string); raises ValueError when it cannot be."""
    if kind == STR:
        return text
    text = text.strip()
    if not text:
        return None
    if kind == DATETIME:
        return parse_datetime(text)
    if kind == FLOAT:
        if not text.isascii() or "_" in text:
            raise ValueError("not a number")
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError("not a boolean")


_EXPECTED = {
    STR: "a string",
    FLOAT: "a number",
    BOOL: "true or false",
    DATETIME: "an ISO 8601 date and time",
    LIST: "a list",
}


def _from_json_value(kind: str, value: Any) -> Any:
    if isinstance(value, str):
        return _from_text(kind, value)
    if isinstance(value, bool):
        if kind == BOOL:
            return value
        if kind == STR:
            return "true" if value else "false"
    elif isinstance(value, int | float):
        if kind == FLOAT:
            return _from_text(FLOAT, repr(value))
        if kind == STR:
            return str(value) if isinstance(value, int) else format_number(value)
        if kind == BOOL and value in (0, 1):
            return bool(value)
    raise ValueError("wrong type")


# --- decoding -------------------------------------------------------------------------------------


def decode[R](body: bytes | str, record_type: type[R], fmt: Format) -> R:
    """The record of type `record_type` that `body` holds, in `fmt`."""
    result, errors = decode_partially(body, record_type, fmt)
    if errors:
        raise WireFormatError(errors)
    return result


def decode_partially[R](
    body: bytes | str, record_type: type[R], fmt: Format
) -> tuple[R, list[FieldError]]:
    """The record `body` holds, leaving out values of the wrong type, and what was wrong with them.

    A body that does not parse at all, or has the wrong root, still raises `WireFormatError`.
    """
    errors: list[FieldError] = []
    if fmt is Format.JSON:
        try:
            return _json_decoder(record_type).decode(body), errors
        except (msgspec.MsgspecError, ValueError, RecursionError):
            pass  # not in the interface's own form, or not JSON at all: read it tolerantly
        result = _from_mapping(record_type, _load_json(body, record_type), errors)
    else:
        result = _from_element(record_type, _load_xml(body, record_type), errors)
    return result, errors


@cache
def _json_decoder(record_type: type) -> msgspec.json.Decoder:
    """msgspec's decoder of `record_type`, in its strict mode: only the declared types."""
    return msgspec.json.Decoder(record_type, strict=True, dec_hook=_decode_wire_type)


def _decode_wire_type(expected: type, value: Any) -> Any:
    """A date-time for msgspec, read as the tolerant walk reads it.

    msgspec turns the ValueError of a text that is no date-time, and the TypeError of a value
    that is no text, into a ValidationError.
    """
    if expected is not WireDateTime or not isinstance(value, str):
        raise TypeError(f"expected a date-time in a string, not {type(value).__name__}")
    return parse_datetime(value)


# msgspec works out how to decode a type when the first decoder of it is made, and two threads
# doing that at once for one type can crash the process (msgspec 0.22; the threads that fetch a
# scheme's sections at once did). So each record's is worked out here, at import, in one thread.
for _record_type in Record.__subclasses__():
    _json_decoder(_record_type)


def _load_json(body: bytes | str, record_type: type) -> dict:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise WireFormatError.of_body("The body is not valid JSON.") from exc
    if not isinstance(data, dict):
        raise WireFormatError.of_body("The body is not a JSON object.")
    if not isinstance(body, bytes) or _SURROGATE_ESCAPE.search(body):
        _refuse_lone_surrogates(data)  # text may hold them raw; bytes only as escapes
    if len(data) == 1:  # tolerate a body wrapped in its root name, unless a field has that name
        (key, value), root = next(iter(data.items())), record_type.root  # type: ignore[attr-defined]
        is_root = key.lower() == root.lower()
        if (
            is_root
            and isinstance(value, dict)
            and not _lookup(_spec(record_type).by_json_name, key)
        ):
            return value
    return data


def _load_xml(body: bytes | str, record_type: type) -> Element:
    try:
        root = SafeElementTree.fromstring(body, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise WireFormatError.of_body("The XML body declares a DTD or entities.") from exc
    except (ParseError, ValueError, RecursionError) as exc:
        raise WireFormatError.of_body("The body is not well-formed XML.") from exc
    expected = record_type.root  # type: ignore[attr-defined]
    if _local(root.tag).lower() != expected.lower():
        raise WireFormatError.of_body(f"The XML root should be <{expected}>.")
    return root


# A lone surrogate can only come from a \\u escape; such text has no UTF-8 form.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _refuse_lone_surrogates(data: dict) -> None:
    try:
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise WireFormatError.of_body("The body holds text that is not valid Unicode.") from None


def _local(tag: str) -> str:
    return tag.rpartition("}")[2] if tag[0] == "{" else tag


def _from_mapping[R](cls: type[R], data: dict, errors: list[FieldError]) -> R:
    spec = _spec(cls)
    values: dict[str, Any] = {}
    for key, value in data.items():
        f = _lookup(spec.by_json_name, key)
        if f is None or value is None:
            continue
        if f.kind == LIST:
            if isinstance(value, dict):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                errors.append(FieldError(f.wire, "Expected a list of objects."))
                continue
            item_type = f.item_type
            values[f.attr] = [_from_mapping(item_type, item, errors) for item in value]
            continue
        try:
            values[f.attr] = _from_json_value(f.kind, value)
        except ValueError:
            errors.append(FieldError(f.wire, f"Expected {_EXPECTED[f.kind]}."))
    return cls(**values)


def _from_element[R](cls: type[R], element: Element, errors: list[FieldError]) -> R:
    spec = _spec(cls)
    values: dict[str, Any] = {}
    for child in element:
        f = _lookup(spec.by_xml_tag, _local(child.tag))
        if f is None:
            continue
        if f.kind == LIST:
            item_type = f.item_type
            if f.inline:
                values.setdefault(f.attr, []).append(_from_element(item_type, child, errors))
            else:
                values[f.attr] = [_from_element(item_type, item, errors) for item in child]
            continue
        if child.get(XSI_NIL) in ("true", "1"):
            continue
        if len(child):
            errors.append(FieldError(f.wire, f"Expected {_EXPECTED[f.kind]}."))
            continue
        try:
            values[f.attr] = _from_text(f.kind, child.text or "")
        except ValueError:
            errors.append(FieldError(f.wire, f"Expected {_EXPECTED[f.kind]}."))
    return cls(**values)


# --- encoding -------------------------------------------------------------------------------------


def encode(record: Any, fmt: Format) -> bytes:
    """`record` as a body in `fmt`, UTF-8. Fields that are None are left out. In XML, a text
    with a character XML cannot carry raises `WireFormatError` naming its field: dropped, the
    body would say less than the record."""
    if fmt is Format.JSON:
        return json.dumps(
            to_mapping(record), ensure_ascii=False, separators=(",", ":"), allow_nan=False
        ).encode()
    parts = ['<?xml version="1.0" encoding="utf-8"?>']
    _write_element(record, record.root, parts)
    return "".join(parts).encode()


def to_mapping(record: Any) -> dict[str, Any]:
    """`record` as the JSON object the interface shows."""
    out: dict[str, Any] = {}
    for f in _spec(type(record)).fields:
        value = getattr(record, f.attr)
        if value is None:
            continue
        if f.kind == LIST:
            out[f.wire] = [to_mapping(item) for item in value]
        elif f.kind == DATETIME:
            out[f.wire] = format_datetime(value)
        elif f.kind == FLOAT:
            out[f.wire] = wire_number(value)
        else:
            out[f.wire] = value
    return out


# Characters XML 1.0 cannot carry at all, not even as references: control characters but tab,
# line feed and carriage return, and U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def not_carried_by_xml(text: str) -> str | None:
    """The first character of `text` that XML 1.0 cannot carry, or None."""
    found = _NOT_XML.search(text)
    return found[0] if found else None


_NEEDS_ESCAPING = re.compile("[&<>\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(value: str, field: str) -> str:
    """`value` as XML character data; a carriage return survives as a reference. Raises
    `WireFormatError` naming `field` (its wire name) when `value` holds a character XML cannot
    carry."""
    if not _NEEDS_ESCAPING.search(value):
        return value
    if found := not_carried_by_xml(value):
        message = f"{field} holds U+{ord(found):04X}, a character XML cannot carry."
        raise WireFormatError([FieldError(field, message)])
    value = value.replace("&", "&amp;").replace("<", "&lt;")
    return value.replace(">", "&gt;").replace("\r", "&#13;")


def _scalar_text(kind: str, value: Any, field: str) -> str:
    if kind == STR:
        return xml_text(value if type(value) is str else str(value), field)
    if kind == DATETIME:
        return format_datetime(value)
    if kind == FLOAT:
        return format_number(value)
    return "true" if value else "false"


def _write_element(record: Any, tag: str, parts: list[str]) -> None:
    parts.append(f"<{tag}>")
    for f in _spec(type(record)).fields:
        value = getattr(record, f.attr)
        if value is None:
            continue
        if f.kind == LIST:
            if not f.inline:
                parts.append(f"<{f.wire}>")
            for item in value:
                _write_element(item, f.item_tag, parts)
            if not f.inline:
                parts.append(f"</{f.wire}>")
        else:
            parts.append(f"<{f.wire}>{_scalar_text(f.kind, value, f.wire)}</{f.wire}>")
    parts.append(f"</{tag}>")
