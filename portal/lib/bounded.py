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

    def ask_and_close(item: T) -> R:
        try:
            return ask(item)
        finally:
            # A call's report is recorded in the database (portal/operations/recording.py):
            # the thread's own connection, closed rather than left to a thread that ends.
            connections.close_all()

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
