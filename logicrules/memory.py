"""One memory limit for a whole fit: parse it, check allocations against it, size chunks by it.

Every learner takes ``memory_limit``: the bytes its ``fit`` may allocate on top of the input
the user passed (X and y themselves are not counted). The data path checks its large
allocations before making them (the binarizer's fit, the packed binarized data, one chunk of
booleans at a time) and sizes its chunks to stay inside; a learner checks its own tables the
same way. What cannot fit raises :class:`MemoryLimitError` before the allocation, naming what
needs the memory and how to reduce it, never a bare numpy ``MemoryError`` halfway through.

Examples
--------
>>> budget = MemoryBudget("1MB")
>>> budget.limit
1000000
>>> budget.rows_per_chunk(100, fixed=200_000)
1984
>>> budget.require(2e6, "a table of 2 MB", "use fewer rows")
Traceback (most recent call last):
...
logicrules.memory.MemoryLimitError: a table of 2 MB needs 2.0 MB, more than memory_limit=1.0 MB allows; use fewer rows, or raise memory_limit
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

__all__ = ["DEFAULT_MEMORY_LIMIT", "MemoryBudget", "MemoryLimitError", "available", "held", "parse_memory", "require",
           "work_bytes"]

#: Default ``memory_limit`` of every learner: 2 GiB.
DEFAULT_MEMORY_LIMIT = 2 * 1024**3

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
#: Smallest and largest chunk of rows the data path uses (multiples of 64).
_MIN_CHUNK, _MAX_CHUNK = 64, 1 << 16
#: The budget :func:`require` checks: the one of the fit under way (see :meth:`MemoryBudget.active`).
_ACTIVE: ContextVar[MemoryBudget | None] = ContextVar("logicrules_memory_budget", default=None)


class MemoryLimitError(MemoryError):
    """A fit would need more memory than its ``memory_limit``; the message says what and how to fix it."""


def parse_memory(limit: Any) -> int:
    """Bytes from an int, a float or a string such as "512MB", "4GB", "1GiB" (None: the default).

    Examples
    --------
    >>> parse_memory("1.5GiB"), parse_memory(None) == DEFAULT_MEMORY_LIMIT
    (1610612736, True)
    """
    if limit is None:
        return DEFAULT_MEMORY_LIMIT
    if isinstance(limit, (int, np.integer, float, np.floating)) and not isinstance(limit, (bool, np.bool_)):
        if not limit > 0 or not np.isfinite(limit):
            raise ValueError(f"memory_limit must be a positive number of bytes, got {limit}")
        return int(limit)
    if isinstance(limit, str):
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-z]*)\s*", limit.lower())
        if match and match.group(2) in _UNITS and float(match.group(1)) > 0:
            return int(float(match.group(1)) * _UNITS[match.group(2)])
    raise ValueError(f"memory_limit must be a positive number of bytes or a string like '4GB', got {limit!r}")


def _mb(nbytes: float) -> str:
    if nbytes < 1e4:
        return f"{int(nbytes)} bytes"
    if nbytes < 1e6:
        return f"{nbytes / 1e3:.1f} kB"
    return f"{nbytes / 1e6:.1f} MB"


class MemoryBudget:
    """The ``memory_limit`` of one fit, and the checks made against it.

    Allocations that stay alive are recorded with :meth:`hold`, so every later check counts
    them too.

    Parameters
    ----------
    limit : int, float, str or None
        Bytes, or a string like "512MB" (see :func:`parse_memory`); None for the default 2 GiB.
    """

    def __init__(self, limit: Any = None) -> None:
        self.limit = parse_memory(limit)
        self.held = 0.0

    def hold(self, nbytes: float) -> None:
        """Record an allocation that stays alive (e.g. a packed context) until :meth:`release`."""
        self.held += float(nbytes)

    def release(self, nbytes: float) -> None:
        """Forget an allocation recorded with :meth:`hold`."""
        self.held = max(0.0, self.held - float(nbytes))

    def require(self, nbytes: float, what: str, how: str) -> None:
        """Raise :class:`MemoryLimitError` when ``what`` (``nbytes``) does not fit the limit.

        Parameters
        ----------
        nbytes : float
            Bytes the allocation needs.
        what : str
            What needs them, for the message.
        how : str
            How to need less, for the message.
        """
        if nbytes + self.held > self.limit:
            besides = f" besides {_mb(self.held)} already held" if self.held else ""
            raise MemoryLimitError(f"{what} needs {_mb(nbytes)}{besides}, more than memory_limit="
                                   f"{_mb(self.limit)} allows; {how}, or raise memory_limit")

    @contextmanager
    def active(self) -> Iterator[MemoryBudget]:
        """Make this the budget :func:`require` checks while the block runs, so that code deep in
        a fit which takes no budget argument (an LP solver, say) is held to it too."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

    def rows_per_chunk(self, bytes_per_row: float, fixed: float = 0.0) -> int:
        """Rows to process at once so that ``fixed + rows x bytes_per_row`` stays within a quarter
        of what is left of the limit (a multiple of 64, between 64 and 65536)."""
        room = max(self.limit - self.held - fixed, 0) / 4
        rows = int(room // max(bytes_per_row, 1)) // 64 * 64
        return int(min(max(rows, _MIN_CHUNK), _MAX_CHUNK))


def require(nbytes: float, what: str, how: str) -> None:
    """:meth:`MemoryBudget.require` on the active budget (:meth:`MemoryBudget.active`); outside
    a fit with a budget, nothing is checked.

    Examples
    --------
    >>> require(1e12, "a huge table", "use fewer rows")   # no active budget: no check
    >>> with MemoryBudget("1MB").active():
    ...     require(2e6, "a table of 2 MB", "use fewer rows")
    Traceback (most recent call last):
    ...
    logicrules.memory.MemoryLimitError: a table of 2 MB needs 2.0 MB, more than memory_limit=1.0 MB allows; use fewer rows, or raise memory_limit
    """
    budget = _ACTIVE.get()
    if budget is not None:
        budget.require(nbytes, what, how)


def available() -> float:
    """Bytes the active budget (:meth:`MemoryBudget.active`) has left: its limit less what it
    holds; infinite outside a fit with a budget.

    Examples
    --------
    >>> available()
    inf
    >>> with MemoryBudget("1MB").active():
    ...     available()
    1000000.0
    """
    budget = _ACTIVE.get()
    return float("inf") if budget is None else max(float(budget.limit) - budget.held, 0.0)


@contextmanager
def held(nbytes: float) -> Iterator[None]:
    """Count ``nbytes`` as held in the active budget (:meth:`MemoryBudget.active`) while the block
    runs, so that what is sized by the budget inside it leaves room for an array kept alive
    across it; nothing outside a fit with a budget.

    Examples
    --------
    >>> with MemoryBudget("1MB").active():
    ...     with held(4e5):
    ...         available()
    600000.0
    """
    budget = _ACTIVE.get()
    if budget is None:
        yield
        return
    budget.hold(nbytes)
    try:
        yield
    finally:
        budget.release(nbytes)


def work_bytes(default: int) -> int:
    """Bytes of one block of working arrays: ``default``, or less under an active budget.

    Kernels deep in a fit that take no budget argument (the counting interface's cell counts
    and Gram matrices, say) size their blocks with it: a sixteenth of what is left of the
    active budget's limit (:meth:`MemoryBudget.active`) when that is smaller than ``default``,
    at least 64 kB.

    Examples
    --------
    >>> work_bytes(1 << 22)
    4194304
    >>> with MemoryBudget("8MB").active():
    ...     work_bytes(1 << 22)
    500000
    """
    budget = _ACTIVE.get()
    if budget is None:
        return int(default)
    return int(max(min(default, (budget.limit - budget.held) // 16), 1 << 16))
