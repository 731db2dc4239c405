"""Calls made a few at once: for a job that asks the service for many things (an export's
PDFs, a batch's passports) within a small bound, PORTAL_JOB_CALLS_AT_ONCE."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait

from django.db import connections


def in_order[T, R](
    items: Iterable[T],
    ask: Callable[[T], R],
    bound: int,
    keep_asking: Callable[[], bool] = lambda: True,
) -> Iterator[tuple[T, Future[R]]]:
    """Each item with the finished future of `ask(item)`, in the items' order. `ask` runs in
    `bound` threads, at most `bound` items ahead of the one taken; once `keep_asking()` is
    false no more items are asked for, and those asked already are still given. Stopping
    early (closing the iterator) cancels what has not started and waits for what has."""
    pending = iter(items)
    ask_and_close = closing_connections(ask)
    with ThreadPoolExecutor(bound, "asking") as pool:
        ahead: deque[tuple[T, Future[R]]] = deque()
        try:
            while True:
                while len(ahead) < bound and keep_asking():
                    item = next(pending, _NONE)
                    if item is _NONE:
                        break
                    ahead.append((item, pool.submit(ask_and_close, item)))
                if not ahead:
                    return
                item, asked = ahead.popleft()
                wait([asked])
                yield item, asked
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


_NONE = object()


def closing_connections[T, R](work: Callable[[T], R]) -> Callable[[T], R]:
    """`work` for a thread of a pool: the database connections it opened (a call's report is
    recorded in the database, portal/operations/recording.py) are closed when it returns,
    back to the process's pool, rather than held by a thread that ends."""

    def closing(item: T) -> R:
        try:
            return work(item)
        finally:
            connections.close_all()

    return closing
