"""Independent solves of a fit in threads (logicrules.threads)."""

import contextvars

import pytest

from logicrules import memory
from logicrules.threads import map_in_threads, thread_count


def test_results_keep_the_order_of_the_arguments():
    assert map_in_threads(lambda a, b: a * b, range(7), range(7), threads=3) == [i * i for i in range(7)]
    assert map_in_threads(lambda a: a, [], threads=2) == []


def test_each_call_runs_in_the_callers_context():
    var = contextvars.ContextVar("var", default="unset")
    var.set("the fit's")
    assert map_in_threads(lambda _: var.get(), range(4), threads=2) == ["the fit's"] * 4
    with memory.MemoryBudget("1MB").active():
        assert map_in_threads(lambda _: memory.available(), range(3), threads=3) == [1e6] * 3


def test_the_first_exception_is_raised():
    def fail_on_two(i):
        if i == 2:
            raise KeyError(i)
        return i

    with pytest.raises(KeyError):
        map_in_threads(fail_on_two, range(5), threads=2)


def test_thread_count():
    assert thread_count(3, 2) == 2 and thread_count(2, 8) == 2 and thread_count(0) == 1
    assert 1 <= thread_count(100) <= 100
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            thread_count(3, bad)
