"""The standards as the portal keeps them: the service's answers, cached for every user.

Standards are the same for everyone, so each answer is cached by its path and filter in the
one shared cache (Redis in production) and fetched again once it is older than
STANDARDS_FRESH_SECONDS. If the service cannot be reached, the copy kept (for
STANDARDS_KEEP_SECONDS) is served with a notice instead of the unavailable page.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache as once_per_type

import msgspec
from django.conf import settings
from django.core.cache import cache

from portal.assurance import records
from portal.assurance.client import Credentials
from portal.assurance.errors import NotFound, Unavailable, UnexpectedResponse
from portal.standards.addresses import PREVIEW
from portal.upstream import client

KEPT_FORMAT = 4  # of what the cache holds: entries of an earlier form are never read
SECTIONS_AT_ONCE = 4  # sections a search or a comparison asks the service for at a time


@dataclass(frozen=True, slots=True)
class Fetched[T]:
    record: T
    refreshed: datetime  # when the portal last had it from the service
    from_cache_only: bool = False  # the service could not be reached; this is the last copy
    version: str = ""  # a digest of the content: what is made from it is made again on a change


@dataclass(frozen=True, slots=True)
class _Entry:
    packed: bytes  # the record as MessagePack: far quicker to read and write than a pickle
    refreshed: float
    version: str


def cache_key(kind: str, *parts: object) -> str:
    """A cache key for `parts` (which may hold anything an address can): hashed, so valid."""
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    return f"standards:{KEPT_FORMAT}:{kind}:{digest}"


def schemes(credentials: Credentials, stage: str) -> Fetched[records.SchemeList]:
    return _cached(
        cache_key("schemes", stage),
        records.SchemeList,
        lambda: client().schemes(credentials, preview=stage == PREVIEW),
    )


def sections(
    credentials: Credentials, stage: str, scheme_guid: str
) -> Fetched[records.SectionList]:
    """Every section of the scheme (pages filter by sector themselves: one answer)."""
    return _cached(
        cache_key("sections", stage, scheme_guid),
        records.SectionList,
        lambda: client().sections(credentials, scheme_guid, preview=stage == PREVIEW),
    )


def section(
    credentials: Credentials, stage: str, scheme_guid: str, prefix: str, sector: str
) -> Fetched[records.SectionData]:
    return _cached(
        cache_key("section", stage, scheme_guid, sector, prefix),
        records.SectionData,
        lambda: client().section_data(
            credentials, scheme_guid, prefix, preview=stage == PREVIEW, sector=sector
        ),
    )


def scheme_name(credentials: Credentials, stage: str, scheme_guid: str) -> str | None:
    """The scheme's name, or None if the service lists no such scheme or cannot be asked."""
    try:
        listed = schemes(credentials, stage).record.items
    except (Unavailable, UnexpectedResponse):
        return None
    return next((s.scheme_name for s in listed if s.scheme_guid == scheme_guid), None)


def in_order(entries: list[records.SectionEntry]) -> list[records.SectionEntry]:
    return sorted(entries, key=lambda s: (s.index is None, s.index or 0))


def every_section(
    credentials: Credentials, stage: str, scheme_guid: str, listing: records.SectionList
) -> Iterator[tuple[records.SectionEntry, records.SectionData]]:
    """Each section of `listing` with its content, in order; a few asked for at a time. A
    section the service no longer has is left out."""

    def content(entry: records.SectionEntry) -> records.SectionData | None:
        try:
            return section(credentials, stage, scheme_guid, entry.prefix or "",
                           entry.sector_prefix or "").record  # fmt: skip
        except NotFound:
            return None

    entries = in_order(listing.sections)
    with ThreadPoolExecutor(max_workers=SECTIONS_AT_ONCE) as pool:
        for entry, data in zip(entries, pool.map(content, entries), strict=True):
            if data is not None:
                yield entry, data


def _cached[T](key: str, record_type: type[T], fetch: Callable[[], T]) -> Fetched[T]:
    entry: _Entry | None = cache.get(key)
    now = time.time()
    if entry is not None and now - entry.refreshed < settings.STANDARDS_FRESH_SECONDS:
        return _unpacked(entry, record_type)
    try:
        record = fetch()
    except (Unavailable, UnexpectedResponse):
        if entry is None:
            raise
        return _unpacked(entry, record_type, from_cache_only=True)
    packed = _ENCODER.encode(record)
    version = hashlib.sha256(packed).hexdigest()[:32]
    cache.set(key, _Entry(packed, now, version), settings.STANDARDS_KEEP_SECONDS)
    return Fetched(record, _moment(now), version=version)


_ENCODER = msgspec.msgpack.Encoder()


@once_per_type
def _decoder(record_type: type) -> msgspec.msgpack.Decoder:
    return msgspec.msgpack.Decoder(record_type)


def _unpacked[T](entry: _Entry, record_type: type[T], *, from_cache_only: bool = False):
    record = _decoder(record_type).decode(entry.packed)
    return Fetched(record, _moment(entry.refreshed), from_cache_only, entry.version)


def _moment(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)
