"""portal.lib.bounded.in_order: calls made a few at once, answers taken in order."""

from __future__ import annotations

import threading
import time

import pytest

from portal.lib.bounded import in_order


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
    asked, stop = [], threading.Event()

    def ask(n: int) -> int:
        asked.append(n)
        return n

    given = []
    for n, _ in in_order(range(100), ask, 4, keep_asking=lambda: not stop.is_set()):
        given.append(n)
        stop.set()
    assert given == sorted(asked) and len(asked) == 4  # the first four, asked before the stop


def test_an_answer_that_failed_is_given_as_its_error():
    def fails_at_two(n: int) -> int:
        if n == 2:
            raise ValueError("two")
        return n

    answers = dict(in_order(range(4), fails_at_two, 2))
    with pytest.raises(ValueError, match="two"):
        answers[2].result()
    assert answers[3].result() == 3
