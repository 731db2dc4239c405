"""The standards as the portal keeps them: the service's answers, cached for every user.

Standards are the same for everyone, so each answer is cached by its path and filter in the
one shared cache (Redis in production) and fetched again once it is older than
STANDARDS_FRESH_SECONDS. If the service cannot be reached, the copy kept (for
STANDARDS_KEEP_SECONDS) is served with a notice instead of the unavailable page.
"""

from __future__ import annotations

import contextvars
import hashlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache as once_per_type
from functools import cached_property
from typing import Any, NamedTuple

import msgspec
from django.conf import settings
from django.core.cache import cache

from portal.assurance import records
from portal.assurance.client import Credentials
from portal.assurance.errors import NotFound, Unavailable, UnexpectedResponse
from portal.assurance.service import client
from portal.lib import bounded
from portal.operations import counting, recording
from portal.standards.addresses import PREVIEW

KEPT_FORMAT = 5  # of what the cache holds: entries of an earlier form are never read
SECTIONS_AT_ONCE = 4  # sections a search or a comparison asks the service for at a time


class Fetched[T]:
    """An answer of the service as the portal keeps it. Its record is read from the kept bytes
    only when asked for: a page made from it and kept by its version never asks."""

    def __init__(
        self, read: Callable[[], T], refreshed: datetime, version: str, from_cache_only: bool
    ) -> None:
        self._read = read
        self.refreshed = refreshed  # when the portal last had it from the service
        self.version = version  # a digest of the content: what is made from it is made again
        self.from_cache_only = from_cache_only  # the service could not be reached: a last copy

    @cached_property
    def record(self) -> T:
        return self._read()


@dataclass(frozen=True, slots=True)
class _Entry:
    """When an answer was last had from the service, and its version. The answer itself is
    kept apart, under its version, so that a page kept by version never reads it."""

    refreshed: float
    version: str


def cache_key(kind: str, *parts: object) -> str:
    """A cache key for `parts` (which may hold anything an address can): hashed, so valid."""
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    return f"standards:{KEPT_FORMAT}:{kind}:{digest}"


def schemes(credentials: Credentials, stage: str) -> Fetched[records.SchemeList]:
    return _cached(*_schemes_asked(credentials, stage))


def _schemes_asked(credentials: Credentials, stage: str) -> _Asked[records.SchemeList]:
    return _Asked(
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
    return _cached(*_section_asked(credentials, stage, scheme_guid, prefix, sector))


def _section_asked(
    credentials: Credentials, stage: str, scheme_guid: str, prefix: str, sector: str
) -> _Asked[records.SectionData]:
    return _Asked(
        cache_key("section", stage, scheme_guid, sector, prefix),
        records.SectionData,
        lambda: client().section_data(
            credentials, scheme_guid, prefix, preview=stage == PREVIEW, sector=sector
        ),
    )


def section_and_schemes(
    credentials: Credentials, stage: str, scheme_guid: str, prefix: str, sector: str
) -> tuple[Fetched[records.SectionData], Fetched[records.SchemeList] | None]:
    """The section, and the scheme list its page names the scheme from (as `schemes_if_any`),
    their entries read from the cache at once. With neither fresh there, both are asked for at
    once, so that the page waits for the slower answer, not for one after the other; with
    either fresh (as on nearly every page), at most one is, and no thread is started."""
    section_asked = _section_asked(credentials, stage, scheme_guid, prefix, sector)
    schemes_key = _schemes_asked(credentials, stage).key
    entries = cache.get_many([section_asked.key, schemes_key])
    section_entry = entries.get(section_asked.key)
    if _is_fresh(section_entry) or _is_fresh(entries.get(schemes_key)):
        return _cached(*section_asked, entry=section_entry), schemes_if_any(credentials, stage)
    # The two calls recorded together, in this thread: the other then opens no connection to
    # the database of its own just to record its call.
    with recording.gathered(), ThreadPoolExecutor(max_workers=1) as pool:
        request_context = contextvars.copy_context()  # its id, its note of the service asked

        def scheme_list(_: None) -> Fetched[records.SchemeList] | None:
            return request_context.run(schemes_if_any, credentials, stage)

        listed = pool.submit(bounded.closing_connections(scheme_list), None)
        return _cached(*section_asked, entry=section_entry), listed.result()


def schemes_if_any(credentials: Credentials, stage: str) -> Fetched[records.SchemeList] | None:
    """The scheme list, or None if the service cannot give it and no copy is kept."""
    try:
        return schemes(credentials, stage)
    except (Unavailable, UnexpectedResponse):
        return None


def name_in(listed: Fetched[records.SchemeList] | None, scheme_guid: str) -> str | None:
    """The scheme's name in `listed`, or None if it is not there."""
    items = listed.record.items if listed is not None else []
    return next((s.scheme_name for s in items if s.scheme_guid == scheme_guid), None)


def scheme_name(credentials: Credentials, stage: str, scheme_guid: str) -> str | None:
    """The scheme's name, or None if the service lists no such scheme or cannot be asked."""
    return name_in(schemes_if_any(credentials, stage), scheme_guid)


def sections_in_order(entries: list[records.SectionEntry]) -> list[records.SectionEntry]:
    return sorted(entries, key=lambda s: (s.index is None, s.index or 0))


def every_section(
    credentials: Credentials, stage: str, scheme_guid: str, listing: records.SectionList
) -> list[tuple[records.SectionEntry, records.SectionData]]:
    """Each section of `listing` with its content, in order; SECTIONS_AT_ONCE asked for at a
    time, their calls recorded together. A section the service no longer has is left out."""

    def content(entry: records.SectionEntry) -> records.SectionData | None:
        try:
            return section(credentials, stage, scheme_guid, entry.prefix or "",
                           entry.sector_prefix or "").record  # fmt: skip
        except NotFound:
            return None

    with recording.gathered():
        answers = bounded.in_order(sections_in_order(listing.sections), content, SECTIONS_AT_ONCE)
        contents = [(entry, answered.result()) for entry, answered in answers]
    return [(entry, data) for entry, data in contents if data is not None]


class _Asked[T](NamedTuple):
    """What a page asks the service for: where its answer is kept, its type, how to ask."""

    key: str
    record_type: type[T]
    fetch: Callable[[], T]


_UNREAD: Any = object()


def _cached[T](
    key: str, record_type: type[T], fetch: Callable[[], T], *, entry: _Entry | None = _UNREAD
) -> Fetched[T]:
    """The answer kept under `key` if it is fresh, else asked for. `entry`: the key's entry, if
    the caller has read it from the cache already."""
    if entry is _UNREAD:
        entry = cache.get(key)
    now = time.time()
    if entry is not None and _is_fresh(entry, now):
        return _kept(key, entry, record_type, fetch)
    counting.note_service_asked()
    try:
        record = fetch()
    except (Unavailable, UnexpectedResponse):
        if entry is None:
            raise
        return _kept(key, entry, record_type, fetch, from_cache_only=True)
    return _keep(key, record, now)


def _is_fresh(entry: _Entry | None, now: float | None = None) -> bool:
    return entry is not None and (now or time.time()) - entry.refreshed < (
        settings.STANDARDS_FRESH_SECONDS
    )


def _keep[T](key: str, record: T, now: float) -> Fetched[T]:
    # As MessagePack: far quicker to read and write than a pickle.
    packed = _ENCODER.encode(record)
    version = hashlib.sha256(packed).hexdigest()[:32]
    cache.set_many(
        {key: _Entry(now, version), _record_key(key, version): packed},
        settings.STANDARDS_KEEP_SECONDS,
    )
    return Fetched(lambda: record, _moment(now), version, from_cache_only=False)


def _kept[T](
    key: str,
    entry: _Entry,
    record_type: type[T],
    fetch: Callable[[], T],
    *,
    from_cache_only: bool = False,
) -> Fetched[T]:
    def read() -> T:
        packed = cache.get(_record_key(key, entry.version))
        if packed is None:  # gone from the cache before its entry: asked for again
            return _keep(key, fetch(), time.time()).record
        return _decoder(record_type).decode(packed)

    return Fetched(read, _moment(entry.refreshed), entry.version, from_cache_only)


def _record_key(key: str, version: str) -> str:
    return f"{key}:{version}"


_ENCODER = msgspec.msgpack.Encoder()


@once_per_type
def _decoder(record_type: type) -> msgspec.msgpack.Decoder:
    return msgspec.msgpack.Decoder(record_type)


def _moment(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)
