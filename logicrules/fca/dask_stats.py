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

    def subset(self, keep: np.ndarray) -> PartitionColumns:
        """These rows where ``keep`` (bool mask), read by column on their own (a numpy block's
        rows copied, then transposed when read: cheaper than indexing every transposed column)."""
        keep = np.asarray(keep, dtype=bool)
        if self._array is None:
            return PartitionColumns(self._frame.iloc[np.flatnonzero(keep)])
        return PartitionColumns(self._array[keep])

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
                  weights: Any, labels: Any = None, sketch: Callable | None = None) -> tuple[Any, ...]:
    """Every job's kernel on its kept rows of one partition (None for no rows), the partition
    read once for all (rows of weight 0 dropped, then each job's ``rows`` among the others);
    with ``sketch`` also its sketch and the sketch's summary
    (:func:`~logicrules.fca.dask_sketch.sketch_partition`, with ``labels``)."""
    part, (labels,), weights = partition_rows(number, part, (labels,), None, weights)
    whole = PartitionColumns(part)
    out = []
    for kernel, rows in jobs:
        columns, w = whole, weights
        if rows is not None:
            keep = np.asarray(rows(number, len(whole)), dtype=bool)
            columns, w = whole.subset(keep), None if weights is None else weights[keep]
        out.append(kernel(columns, w) if len(columns) else None)
    if sketch is not None:
        out.extend(sketch(part, whole, labels, weights))
    return tuple(out)


def run_pass(X: Any, jobs: Sequence[tuple[Kernel, Callable | None]], verbose: int, what: str,
             weights: Any = None, also: Sequence[Any] = (), keep: tuple[Any, dict] | None = None) -> list[Partials]:
    """One pass: every ``(kernel, rows)`` job on every partition (its kept rows; weights None
    when unweighted), each tree-summed; the partitions are produced once for all jobs.
    ``also``: other delayed objects computed in the same ``compute`` (their results follow the
    jobs' in the returned list), e.g. a summary of the labels, derived from the same partitions.
    ``keep``: ``(keeper, ranges)``: the same pass also sketches every partition against those
    key ranges (the keeper's ``kernel``, with its labels), the sketches persisted where they are
    made and handed to the :class:`~logicrules.fca.dask_sketch.SketchKeeper`."""
    import dask

    task = dask.delayed(_on_partition, pure=True)
    pick = dask.delayed(operator.getitem, pure=True)
    keeper, ranges = keep if keep is not None else (None, None)
    parts = dask_partitions(X, weights, None if keeper is None else keeper.labels())
    start = time.perf_counter()
    sketch = None if keeper is None else keeper.kernel(ranges)
    per_part = [task(tuple(jobs), number, part, w, y, sketch) for number, (part, w, y) in enumerate(parts)]
    if keeper is not None:  # each partition's results kept where computed: its sketch stays there
        persisted = dask.persist(*per_part, *also)  # one graph: every partition produced once
        per_part, also = list(persisted[:len(per_part)]), [*persisted[len(per_part):],
                                                           tree_sum([pick(p, len(jobs) + 1) for p in persisted])]
        what += ", partitions sketched"
    sums = [tree_sum([pick(p, i) for p in per_part]) for i in range(len(jobs))]
    totals = dask.compute(*sums, *also)
    if keeper is not None:
        keeper.keep([pick(p, len(jobs)) for p in per_part], totals[-1], ranges)
        totals = totals[:-1]
    pass_line(verbose, f"dask pass: {what} over {len(parts)} partitions", time.perf_counter() - start)
    return [Partials() if total is None else total for total in totals[:len(sums)]] + list(totals[len(sums):])


def drive(fits: Sequence[Step], rows: Sequence[Callable | None], X: Any, verbose: int = 0,
          weights: Any = None, first: tuple[Sequence[Any], Callable, str] | None = None,
          keep: Any = None) -> list[Any]:
    """Run fits that ask for statistics step by step, in lockstep: each pass computes the
    pending step of every fit not finished yet (fit ``i`` on ``rows[i]`` of each partition).
    ``first``: ``(delayed objects, callback, what)``: the objects are computed in the first pass
    (``what`` added to its line) and ``callback(results)`` is called with them before any fit
    reads that pass (it may raise). ``keep``: a
    :class:`~logicrules.fca.dask_sketch.SketchKeeper`: each pass that gathers buckets of the
    radix selection also sketches the partitions against every bucket gathered so far.

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
        ranges = None if keep is None else keep.ranges_for([pending[i][0] for i in order])
        totals = run_pass(X, [(pending[i][0], rows[i]) for i in order], verbose, what, weights, also,
                          None if ranges is None else (keep, ranges))
        if callback is not None:
            callback(totals[len(order):])
            also, callback = (), None
        pending = {}
        for i, total in zip(order, totals):
            advance(i, total)
    return results
