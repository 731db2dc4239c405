"""A section's page, made once for each version of the section and each filter, for every user.

The page's heading and filters (a few KiB) are kept in the shared cache with the version they
were made from, and its points (up to a MiB of HTML) under the digest of their bytes. Each process
also holds the points it served last in memory: a digest names one content for ever, so that copy
never needs checking, and a warm request reads only the few KiB of the heading from the shared
cache. A page is only ever found through its entry there, so emptying the shared cache empties
every page.
"""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime

from cachetools import LRUCache
from django.conf import settings
from django.core.cache import cache
from django.template.loader import render_to_string

from portal.assurance import records
from portal.assurance.client import Credentials
from portal.assurance.errors import Unavailable, UnexpectedResponse
from portal.standards import library
from portal.standards.content import Choices, Filters, arrange
from portal.standards.library import PREVIEW, sector_of
from portal.standards.markup import points_markup
from portal.standards.templatetags.standards import standards_url

POINTS_IN_MEMORY_BYTES = 64 * 1024 * 1024  # for each process
NAME_WAIT_SECONDS = 5.0  # for the scheme's name, once the section is in hand


@dataclass(frozen=True, slots=True)
class SectionPage:
    """What a section page shows for one filter, but the frame round it."""

    version: str
    refreshed: datetime
    title: str
    scheme_name: str | None  # in the breadcrumbs: a page is made again when it changes
    header_html: bytes  # from the breadcrumbs to the filters
    points_digest: str  # of the points' HTML, which is also what htmx asks for on a filter


@dataclass(frozen=True, slots=True)
class Served:
    page: SectionPage
    points_html: bytes
    from_cache_only: bool = False  # the upstream could not be reached; this is the last copy

    @property
    def refreshed(self) -> datetime:  # as library.Fetched has it, for refreshed.html
        return self.page.refreshed


_ALONGSIDE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="standards")

_points_in_memory: LRUCache[str, bytes] = LRUCache(POINTS_IN_MEMORY_BYTES, getsizeof=len)
_points_lock = threading.Lock()


def section_page(
    credentials: Credentials,
    stage: str,
    scheme_guid: str,
    segment: str,
    prefix: str,
    filters: Filters,
) -> Served:
    """The page for a section (`segment` is its sector as in addresses) and filter.

    Within STANDARDS_FRESH_SECONDS of its refresh the kept page is used as it is; after that the
    section is asked of the library (which refreshes it), and the page is made again only if
    the section's content changed. Raises the library's errors (NotFound, Unavailable).
    """
    key = library.cache_key("page", stage, scheme_guid, segment, prefix, filters)
    page: SectionPage | None = cache.get(key)
    points = _points(page.points_digest) if page is not None else None
    if points is not None and library.is_fresh(page.refreshed):
        return Served(page, points)
    # A stale page's scheme name is checked while its section is; a new page asks for the name
    # once the section has come, which on this machine makes the section come sooner.
    name = _name_alongside(credentials, stage, scheme_guid) if points is not None else None
    fetched = library.section(credentials, stage, scheme_guid, prefix, sector_of(segment))
    if points is not None and page.version == fetched.version and _same_name(page, name):
        if page.refreshed != fetched.refreshed:  # the same content, checked again just now
            page = replace(page, refreshed=fetched.refreshed)
            cache.set(key, page, settings.STANDARDS_KEEP_SECONDS)
        return Served(page, points, fetched.from_cache_only)
    name = name or _name_alongside(credentials, stage, scheme_guid)
    page, points = _make(fetched, stage, scheme_guid, segment, filters, name)
    _keep(key, page, points)
    return Served(page, points, fetched.from_cache_only)


def _name_alongside(credentials: Credentials, stage: str, scheme_guid: str) -> Future[str | None]:
    """The scheme's name, for the breadcrumbs, looked up while the page is made; None if the
    service cannot say (the breadcrumbs then say "The scheme")."""
    return _ALONGSIDE.submit(_scheme_name, credentials, stage, scheme_guid)


def _scheme_name(credentials: Credentials, stage: str, scheme_guid: str) -> str | None:
    try:
        return library.scheme_name(credentials, stage, scheme_guid)
    except (Unavailable, UnexpectedResponse):
        return None


def _name(asked: Future[str | None]) -> str | None:
    """The name asked for, or None if it takes longer than the breadcrumbs are worth."""
    try:
        return asked.result(timeout=NAME_WAIT_SECONDS)
    except TimeoutError:
        return None


def _same_name(page: SectionPage, asked: Future[str | None]) -> bool:
    """Whether the scheme is still called as the page says (or the service cannot say)."""
    now = _name(asked)
    return now is None or now == page.scheme_name


def _points(digest: str) -> bytes | None:
    with _points_lock:
        points = _points_in_memory.get(digest)
    if points is None:
        points = cache.get(_points_key(digest))
        if points is not None:
            _hold(digest, points)
    return points


def _keep(key: str, page: SectionPage, points: bytes) -> None:
    cache.set(_points_key(page.points_digest), points, settings.STANDARDS_KEEP_SECONDS)
    cache.set(key, page, settings.STANDARDS_KEEP_SECONDS)
    _hold(page.points_digest, points)


def forget() -> None:
    """Drops the points this process holds (the shared cache keeps its own)."""
    with _points_lock:
        _points_in_memory.clear()


def _hold(digest: str, points: bytes) -> None:
    if len(points) <= POINTS_IN_MEMORY_BYTES:
        with _points_lock:
            _points_in_memory[digest] = points


def _points_key(digest: str) -> str:
    return f"standards:points:{digest}"


def _make(
    fetched: library.Fetched[records.SectionData],
    stage: str,
    scheme_guid: str,
    segment: str,
    filters: Filters,
    scheme_name: Future[str | None],
) -> tuple[SectionPage, bytes]:
    section = fetched.record
    points = arrange(section)
    choices = Choices.of(points)
    filters = filters.within(choices)
    shown = filters.apply(points)
    point_base = standards_url("point", stage, scheme_guid, "X").removesuffix("X/")
    context = {
        "stage": stage, "scheme_guid": scheme_guid, "sector_segment": segment,
        "section": section, "filters": filters,
        "choices": choices,
        "points": shown, "points_markup": points_markup(shown, point_base), "total": len(points),
    }  # fmt: skip
    points_html = render_to_string("standards/section.html#points", context).encode()
    context["scheme_name"] = _name(scheme_name)  # asked for alongside, wanted only now
    page = SectionPage(
        version=fetched.version,
        refreshed=fetched.refreshed,
        title=(section.section_name or "") + (" (preview)" if stage == PREVIEW else ""),
        scheme_name=context["scheme_name"],
        header_html=render_to_string("standards/section.html#header", context).encode(),
        points_digest=hashlib.sha256(points_html).hexdigest()[:40],
    )
    return page, points_html
