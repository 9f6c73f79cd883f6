"""Passes of per-partition statistics over a dask collection, several statistics per pass.

A *statistic* is a kernel ``kernel(columns, weights) -> partial`` run on every partition (its
kept rows, as :class:`PartitionColumns`) whose partials add up (``+``) over partitions; a *pass*
computes several of them, each on its own rows of the partitions (e.g. the training part of a
split and all rows), in one ``compute``: every partition is produced (read, generated) once per
pass, whatever the number of statistics. :func:`drive` runs several fits that ask for statistics
step by step (generators) in lockstep, so that their steps share passes.

Memory: a worker holds one partition, one column of it as float64 at a time (numeric blocks)
and the partial statistics; the driver holds the merged statistics.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from logicrules.fca.columns import _column_kind, _column_to_float
from logicrules.fca.dask_counts import dask_partitions, partition_rows, tree_sum
from logicrules.progress import pass_line

__all__ = ["PartitionColumns", "drive", "run_pass"]

#: A statistic on one partition: ``kernel(columns, weights)``, its partials added with ``+``.
Kernel = Callable[["PartitionColumns", "np.ndarray | None"], Any]
#: A step of a fit: ``(kernel, what)``; the fit receives the kernel's merged result.
Step = Generator[tuple[Kernel, str], Any, Any]


def _frame(part: Any) -> pd.DataFrame:
    """A partition as the binarizer's fit sees it: a DataFrame with str column names."""
    if isinstance(part, pd.DataFrame):
        return part.set_axis([str(c) for c in part.columns], axis=1)
    array = np.asarray(part)
    if array.dtype.kind in "US":
        array = array.astype(object)
    return pd.DataFrame(array, columns=[f"x{i}" for i in range(array.shape[1])], copy=False)


class PartitionColumns:
    """The kept rows of one partition, read column by column.

    A numeric numpy block (bool, integer or float: a dask Array's block) is read without a
    DataFrame: transposed once, block by block (a copy of the block's size, so that a column's
    values are contiguous), and :meth:`floats` converts one column to float64 at a time into
    one reused buffer. Other partitions (a pandas DataFrame, an object array) go through
    :meth:`frame`, as the in-memory fit reads them.

    Parameters
    ----------
    part : pandas.DataFrame or 2-D ndarray
    """

    def __init__(self, part: Any) -> None:
        numeric = isinstance(part, np.ndarray) and part.ndim == 2 and part.dtype.kind in "biuf"
        self._array = part if numeric else None
        self._by_column: np.ndarray | None = None
        self._buffer: np.ndarray | None = None
        self._frame = None if numeric else _frame(part)
        self.columns = [f"x{j}" for j in range(part.shape[1])] if numeric else list(self._frame.columns)
        self._position = {c: j for j, c in enumerate(self.columns)}

    def __len__(self) -> int:
        return int(self._array.shape[0] if self._array is not None else self._frame.shape[0])

    @property
    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame with str column names (built on first use)."""
        if self._frame is None:
            self._frame = _frame(self._array)
        return self._frame

    def kind(self, column: str) -> str:
        """``'binary'``, ``'numeric'`` or ``'categorical'`` from the dtype, as the in-memory fit."""
        if self._array is not None:
            return "binary" if self._array.dtype.kind == "b" else "numeric"
        return _column_kind(self._frame[column], column)

    def floats(self, column: str) -> np.ndarray:
        """A numeric column's values as float64 (missing as NaN). For a numpy block the array is
        a buffer that the next call overwrites: use it before asking for another column."""
        if self._array is not None:
            if self._buffer is None:
                self._buffer = np.empty(self._array.shape[0], dtype=np.float64)
            self._buffer[:] = self._contiguous(column)
            return self._buffer
        return _column_to_float(self._frame[column], column)

    def numbers(self, column: str) -> np.ndarray:
        """A numeric column's values as float32 or float64 (missing as NaN), for reading only: a
        float block's column itself (no float64 copy, for the compiled kernels of
        :mod:`~logicrules.fca.radix_kernels`), else :meth:`floats`."""
        if self._array is not None and self._array.dtype in (np.float32, np.float64):
            return self._contiguous(column)
        return self.floats(column)

    def _contiguous(self, column: str) -> np.ndarray:
        """A numpy block's column, contiguous (the block transposed once, on first use)."""
        if self._by_column is None:
            self._by_column = _transposed(self._array)
        return self._by_column[self._position[column]]


#: Rows transposed at once by :func:`_transposed` (a block that stays in the caches).
_TRANSPOSE_ROWS = 4096


def _transposed(array: np.ndarray) -> np.ndarray:
    """``array.T`` as a C-contiguous copy, block by block (numpy's whole-array transposing copy
    strides through memory and is several times slower)."""
    out = np.empty(array.shape[::-1], dtype=array.dtype)
    for start in range(0, array.shape[0], _TRANSPOSE_ROWS):
        out[:, start:start + _TRANSPOSE_ROWS] = array[start:start + _TRANSPOSE_ROWS].T
    return out


class Partials(dict):
    """Partial statistics keyed by column (or request): ``+`` merges entry by entry."""

    def __add__(self, other: Partials) -> Partials:
        out = Partials(self)
        for key, value in other.items():
            out[key] = value if key not in out else out[key] + value
        return out


class Merged:
    """A value merged by a binary function (min, max, concatenation) under ``+``."""

    def __init__(self, value: Any, merge: Callable[[Any, Any], Any]) -> None:
        self.value, self.merge = value, merge

    def __add__(self, other: Merged) -> Merged:
        return Merged(self.merge(self.value, other.value), self.merge)


def _on_partition(jobs: tuple[tuple[Kernel, Callable | None], ...], number: int, part: Any,
                  weights: Any) -> tuple[Any, ...]:
    """Every job's kernel on its kept rows of one partition (None for no rows)."""
    out = []
    for kernel, rows in jobs:
        kept, _, w = partition_rows(number, part, (), rows, weights)
        out.append(kernel(PartitionColumns(kept), w) if len(kept) else None)
    return tuple(out)


def run_pass(X: Any, jobs: Sequence[tuple[Kernel, Callable | None]], verbose: int, what: str,
             weights: Any = None, also: Sequence[Any] = ()) -> list[Partials]:
    """One pass: every ``(kernel, rows)`` job on every partition (its kept rows; weights None
    when unweighted), each tree-summed; the partitions are produced once for all jobs.
    ``also``: other delayed objects computed in the same ``compute`` (their results follow the
    jobs' in the returned list), e.g. a summary of the labels, derived from the same partitions."""
    import dask

    task = dask.delayed(_on_partition, pure=True)
    pick = dask.delayed(operator.getitem, pure=True)
    parts = dask_partitions(X, weights)
    start = time.perf_counter()
    per_part = [task(tuple(jobs), number, part, w) for number, (part, w) in enumerate(parts)]
    sums = [tree_sum([pick(p, i) for p in per_part]) for i in range(len(jobs))]
    totals = dask.compute(*sums, *also)
    pass_line(verbose, f"dask pass: {what} over {len(parts)} partitions", time.perf_counter() - start)
    return [Partials() if total is None else total for total in totals[:len(sums)]] + list(totals[len(sums):])


def drive(fits: Sequence[Step], rows: Sequence[Callable | None], X: Any, verbose: int = 0,
          weights: Any = None, first: tuple[Sequence[Any], Callable, str] | None = None) -> list[Any]:
    """Run fits that ask for statistics step by step, in lockstep: each pass computes the
    pending step of every fit not finished yet (fit ``i`` on ``rows[i]`` of each partition).
    ``first``: ``(delayed objects, callback, what)``: the objects are computed in the first pass
    (``what`` added to its line) and ``callback(results)`` is called with them before any fit
    reads that pass (it may raise).

    Returns
    -------
    list
        Each fit's return value, in order.
    """
    results: list[Any] = [None] * len(fits)
    pending: dict[int, tuple[Kernel, str]] = {}

    def advance(i: int, value: Any) -> None:
        try:
            pending[i] = fits[i].send(value)
        except StopIteration as stop:
            results[i] = stop.value

    for i in range(len(fits)):
        advance(i, None)
    also, callback, extra = first if first is not None else ((), None, None)
    while pending:
        order = sorted(pending)
        what = ", ".join(dict.fromkeys([*(pending[i][1] for i in order), *([extra] if callback else [])]))
        totals = run_pass(X, [(pending[i][0], rows[i]) for i in order], verbose, what, weights, also)
        if callback is not None:
            callback(totals[len(order):])
            also, callback = (), None
        pending = {}
        for i, total in zip(order, totals):
            advance(i, total)
    return results
