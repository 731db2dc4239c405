"""The standards as the portal keeps them: upstream answers cached for every user.

Standards are the same for everyone, so each answer is cached by its path and filter, shared
across users (Redis in production), and refreshed once it is older than STANDARDS_FRESH_SECONDS.
If the upstream cannot be reached, a cached copy (kept for STANDARDS_KEEP_SECONDS) is served
with a notice instead of the unavailable page.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache as cache_for_types

import msgspec
from django.conf import settings
from django.core.cache import cache

from portal.assurance import records
from portal.assurance.client import Credentials
from portal.assurance.errors import Unavailable, UnexpectedResponse
from portal.upstream import client

LIVE, PREVIEW = "live", "preview"
NO_SECTOR = "-"  # in addresses, for a section with no sector prefix


def sector_segment(sector: str | None) -> str:
    """A section's sector as its addresses hold it."""
    return sector or NO_SECTOR


def sector_of(segment: str) -> str:
    return "" if segment == NO_SECTOR else segment


@dataclass(frozen=True, slots=True)
class Fetched[T]:
    record: T
    refreshed: datetime  # when the portal last had it from the upstream
    from_cache_only: bool = False  # the upstream could not be reached; this is the last copy
    version: str = ""  # the digest of the content: what is made from it is made again on a change


@dataclass(frozen=True, slots=True)
class _Entry:
    packed: bytes  # the record as MessagePack: far quicker to read and write than a pickle
    refreshed: float
    version: str


_ENCODER = msgspec.msgpack.Encoder()


@cache_for_types
def _decoder(record_type: type) -> msgspec.msgpack.Decoder:
    return msgspec.msgpack.Decoder(record_type)


KEPT_FORMAT = 3  # of what the cache holds: entries of an earlier form are never read


def cache_key(kind: str, *parts: object) -> str:
    """A cache key for `parts` (which may hold anything a URL can): hashed, so always valid."""
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    return f"standards:{KEPT_FORMAT}:{kind}:{digest}"


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


def _unpacked[T](entry: _Entry, record_type: type[T], *, from_cache_only: bool = False):
    record = _decoder(record_type).decode(entry.packed)
    return Fetched(record, _moment(entry.refreshed), from_cache_only, entry.version)


def is_fresh(refreshed: datetime) -> bool:
    return time.time() - refreshed.timestamp() < settings.STANDARDS_FRESH_SECONDS


def _moment(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


def schemes(credentials: Credentials, stage: str) -> Fetched[records.SchemeList]:
    return _cached(
        cache_key("schemes", stage),
        records.SchemeList,
        lambda: client().schemes(credentials, preview=stage == PREVIEW),
    )


def sections(
    credentials: Credentials, stage: str, scheme_guid: str
) -> Fetched[records.SectionList]:
    """Every section of the scheme (pages filter by sector themselves: one upstream answer)."""
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
    listed = schemes(credentials, stage).record.items
    return next((s.scheme_name for s in listed if s.scheme_guid == scheme_guid), None)
