"""Calls made a few at once: for a job that asks the service for many things (an export's
PDFs, a batch's passports) within a small bound, PORTAL_JOB_CALLS_AT_ONCE; for intake's check
of many codes, PORTAL_INTAKE_CALLS_AT_ONCE."""

from __future__ import annotations

import contextvars
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from django.db import connections

# Answers that may wait for their turn, for each thread: a slow answer lets the other threads
# go on, but a very slow one does not let the answers after it pile up without end.
WAITING_PER_THREAD = 4


def in_order[T, R](
    items: Iterable[T],
    ask: Callable[[T], R],
    bound: int,
    keep_asking: Callable[[], bool] = lambda: True,
) -> Iterator[tuple[T, Future[R]]]:
    """Each item with the finished future of `ask(item)`, in the items' order. `ask` runs in
    `bound` threads, each asking for the next item as soon as it is free, so that an answer
    slow to come holds up no other; at most WAITING_PER_THREAD times `bound` answers wait to
    be taken. An item is taken from `items` only when it is asked for. Once `keep_asking()` is
    false no more items are asked for, and those asked already are still given; it is asked
    before the answers that came are given, so an ask that must stop those after it (a refusal)
    says so through `keep_asking` itself. For asks that read: the next is asked while the
    caller works on an answer, so an ask that makes something (a batch's passports, asked one
    by one in portal/passports/tasks.py) would leave one more unrecorded when cut short.
    Stopping early (closing the iterator) waits for the calls under way. Each thread runs its
    asks in a copy of the context the iterator was first taken from (its request's id for the
    log, the calls it gathers to record: portal/operations/recording.py), one copy for all of
    them: Django keeps a thread's cache client in its context, so a copy for each ask would set
    up a client again for each (~0.3 ms of CPU; the service's outage is asked of the cache on
    every call)."""
    pending = iter(items)
    callers = contextvars.copy_context()
    threads = threading.local()

    def in_callers_context(item: T) -> R:
        if not hasattr(threads, "context"):
            threads.context = callers.copy()
        return threads.context.run(ask, item)

    ask_and_close = closing_connections(in_callers_context)
    most_waiting = bound * WAITING_PER_THREAD
    with ThreadPoolExecutor(bound, "asking") as pool:
        asked: deque[tuple[T, Future[R]]] = deque()  # in the items' order, not yet given
        under_way: set[Future[R]] = set()
        try:
            while True:
                # The room that ended calls left is filled before their answers are given, so
                # that the calls go on while the caller works on an answer (a batch records a
                # passport while the service makes the next): the first answer is seen to have
                # come before the room is counted.
                answered = bool(asked) and asked[0][1].done()
                under_way = {answer for answer in under_way if not answer.done()}
                while len(under_way) < bound and len(asked) < most_waiting and keep_asking():
                    item = next(pending, _NONE)
                    if item is _NONE:
                        break
                    answer = pool.submit(ask_and_close, item)
                    asked.append((item, answer))
                    under_way.add(answer)
                if answered:
                    yield asked.popleft()
                elif asked:
                    wait(under_way, return_when=FIRST_COMPLETED)
                else:
                    return
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
