"""Independent solves of one fit run side by side in threads.

A fit that solves several independent problems (the m-of-n learner's LPs, one per m) spends
its time in code that releases the GIL (HiGHS, the compiled passes over packed rows, numpy), so
threads over the problems use the machine's cores without copying the data into processes.
Each task runs in a copy of the caller's :mod:`contextvars` context, so the fit's active
memory budget (:meth:`logicrules.memory.MemoryBudget.active`) checks what the tasks allocate.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["available_cores", "thread_count", "map_in_threads"]


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:   # pragma: no cover - platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


def thread_count(n_tasks: int, n_jobs: int | None = None) -> int:
    """Threads for ``n_tasks`` independent tasks: ``n_jobs`` (None: one per available core),
    at most one per task, at least one.

    Examples
    --------
    >>> thread_count(3, 2), thread_count(1), thread_count(5, 1)
    (2, 1, 1)
    """
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1):
        raise ValueError(f"n_jobs must be None or a positive integer, got {n_jobs!r}")
    wanted = available_cores() if n_jobs is None else n_jobs
    return max(1, min(int(n_tasks), wanted))


def map_in_threads(function: Callable[..., Any], *iterables: Iterable, threads: int) -> list:
    """``[function(*args) for args in zip(*iterables)]``, the calls run by ``threads`` threads
    (in order, in this thread, when ``threads`` is 1), each in a copy of the caller's context.
    The results keep the order of the arguments; the first exception raised is raised here.

    Examples
    --------
    >>> map_in_threads(pow, [2, 3, 4], [2, 2, 2], threads=2)
    [4, 9, 16]
    """
    calls = list(zip(*iterables))
    if threads <= 1 or len(calls) <= 1:
        return [function(*args) for args in calls]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(contextvars.copy_context().run, function, *args) for args in calls]
        return [future.result() for future in futures]
