"""portal.lib.bounded.in_order: calls made a few at once, answers taken in order."""

from __future__ import annotations

import contextvars
import threading
import time

import pytest
from django.core.cache import caches

from portal.lib.bounded import WAITING_PER_THREAD, in_order


def test_answers_come_in_the_items_order_however_the_calls_end():
    def slower_for_smaller(n: int) -> int:
        time.sleep(0.01 * (5 - n))
        return n * n

    taken = [(n, answered.result()) for n, answered in in_order(range(5), slower_for_smaller, 3)]
    assert taken == [(n, n * n) for n in range(5)]


def test_no_more_than_the_bound_are_under_way():
    lock, under_way, most = threading.Lock(), [0], [0]

    def counted(n: int) -> int:
        with lock:
            under_way[0] += 1
            most[0] = max(most[0], under_way[0])
        time.sleep(0.02)
        with lock:
            under_way[0] -= 1
        return n

    assert [n for n, _ in in_order(range(10), counted, 3)] == list(range(10))
    assert most[0] == 3


def test_once_told_to_stop_it_asks_for_no_more_and_gives_those_asked_already():
    asked, stop, asked_by_the_stop = [], threading.Event(), []

    def ask(n: int) -> int:
        asked.append(n)
        time.sleep(0.01)
        return n

    given = []
    for n, _ in in_order(range(100), ask, 4, keep_asking=lambda: not stop.is_set()):
        given.append(n)
        if not stop.is_set():
            stop.set()
            asked_by_the_stop = list(asked)
    assert given == sorted(asked) == list(range(len(asked)))
    assert len(asked) <= len(asked_by_the_stop) + 4  # at most those handed to a thread already
    assert len(asked) < 100


def test_the_next_is_asked_while_the_caller_works_on_an_answer():
    second_asked = threading.Event()

    def ask(n: int) -> int:
        if n == 1:
            second_asked.set()
        return n

    for n, _ in in_order(range(3), ask, 1):
        if n == 0:  # the caller at work on the first answer (a batch recording its passport)
            assert second_asked.wait(timeout=5), "the second was asked only once the first was done"


def test_a_slow_answer_holds_up_no_other_call():
    asked, asked_when_the_first_was_given = [], []

    def first_slow(n: int) -> int:
        asked.append(n)
        time.sleep(0.5 if n == 0 else 0.01)
        return n

    for n, _ in in_order(range(10), first_slow, 3):
        if n == 0:
            asked_when_the_first_was_given = sorted(asked)
    assert asked_when_the_first_was_given == list(range(10))


def test_a_slow_answer_lets_only_so_many_wait_behind_it():
    asked = []

    def first_slow(n: int) -> int:
        asked.append(n)
        time.sleep(0.5 if n == 0 else 0.001)
        return n

    answers = in_order(range(1000), first_slow, 2)
    first, _ = next(answers)
    assert first == 0 and len(asked) <= 2 * WAITING_PER_THREAD
    assert [n for n, _ in answers] == list(range(1, 1000))


def test_an_answer_that_failed_is_given_as_its_error():
    def fails_at_two(n: int) -> int:
        if n == 2:
            raise ValueError("two")
        return n

    answers = dict(in_order(range(4), fails_at_two, 2))
    with pytest.raises(ValueError, match="two"):
        answers[2].result()
    assert answers[3].result() == 3


def test_each_ask_sees_the_callers_context():
    request_id = contextvars.ContextVar("request_id", default="none")
    request_id.set("the caller's")

    seen = [answered.result() for _, answered in in_order(range(6), lambda _: request_id.get(), 2)]

    assert seen == ["the caller's"] * 6


def test_a_thread_sets_up_its_cache_client_once_for_all_its_asks():
    # The service's outage is asked of the cache on every call: an export of 200 PDFs set up
    # 200 cache clients when each ask had a context of its own.
    def cache_of_this_ask(_: int) -> int:
        return id(caches["default"])

    clients = {answered.result() for _, answered in in_order(range(8), cache_of_this_ask, 1)}

    assert len(clients) == 1
