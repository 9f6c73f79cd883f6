"""Partitions kept as sketches by the radix pass: a median binarizer's bits without reading X again.

The pass that gathers the buckets of the radix selection (:mod:`~logicrules.fca.dask_radix`)
reads every numeric column of every partition. While it does, each partition can keep, where it
lives, a :class:`PartitionSketch` of its rows against those buckets' key ranges: per range, the
packed bits of the rows above it and the rows inside it with their values (a gathered bucket
holds at most 65536 values of the whole column), the packed bits of the missing values of every
column, and the partition's labels and weights. A threshold ``t`` whose key lies in a range (or
between the range and the smallest key above it over all rows) splits every row: those above the
range lie above ``t``, those below under it, and only the few inside are compared with ``t``.
So once the binarizers are fitted, :func:`sketch_block` packs a partition's
:class:`~logicrules.fca.counts.RowBlock` from its sketch, with the very bits ``transform_packed``
gives, and the partition is not produced (read, generated) again: the fit of the ideal
classifier from dask data produces its table twice, not three times.

What a sketch covers (:meth:`Sketches.plan`): comparisons of a sketched numeric column and ``is
missing``, on partitions of plain numeric columns (a dask Array's blocks, or DataFrame
partitions of NumPy numeric dtypes), without infinite values in a compared column and, when the
binarizer refuses missing values, without missing values. Anything else (categories, ``is
true``, a threshold outside every range) is produced and binarized as before, where the same
checks raise the same errors.

Memory: a worker keeps one bit per row and range (a column sketched for two binarizers has two
ranges), one per row of a column with missing values, the labels in one byte per row (up to 256
classes) and the weights, until the blocks packed from the sketches are kept in their place.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable

import numpy as np

from logicrules.fca import bitset
from logicrules.fca.condition import _COMPARE
from logicrules.fca.counts import RowBlock
from logicrules.fca.dask_radix import float_keys, key_floats
from logicrules.fca.dask_stats import Merged, Partials, PartitionColumns
from logicrules.fca.radix_kernels import range_sketch

__all__ = ["PartitionSketch", "SketchKeeper", "Sketches", "sketch_block", "sketch_partition"]

#: A key range ``(low, high)`` of a column (the keys of :func:`~logicrules.fca.dask_radix.float_keys`).
Range = tuple[int, int]
_NO_KEY = (1 << 64) - 1


@dataclasses.dataclass
class PartitionSketch:
    """One partition's rows (those of positive weight) against key ranges of its columns.

    Attributes
    ----------
    n_rows : int
    labels : ndarray
        The partition's labels (one byte each when they are small non-negative integers).
    weights : ndarray of float64 or None
    missing : dict column -> packed bits
        The rows missing a value, for the columns that miss any.
    ones : dict column -> packed bits
        The rows holding 1, for the columns without a range (a binary column's attribute).
    ranges : dict (column, low, high) -> (above bits, inside)
        Per sketched range: the rows above it (packed) and those inside it: their positions and
        values (float64, row order), or packed bits when the range is a single key (one value).
    """

    n_rows: int
    labels: np.ndarray
    weights: np.ndarray | None
    missing: dict[str, np.ndarray]
    ones: dict[str, np.ndarray]
    ranges: dict[tuple[str, int, int], tuple[np.ndarray, Any]]

    def __sizeof__(self) -> int:
        """Bytes held (its arrays): what dask's memory accounting and transfer costs read."""
        arrays = [self.labels, self.weights, *self.missing.values(), *self.ones.values()]
        for above, inside in self.ranges.values():
            arrays += [above, *(inside if isinstance(inside, tuple) else (inside,))]
        return object.__sizeof__(self) + sum(a.nbytes for a in arrays if a is not None)


def _small_labels(labels: np.ndarray) -> np.ndarray:
    """Labels in one byte each when that keeps their values (bool, or integers in 0 .. 255)."""
    if labels.dtype.kind == "b" or (labels.dtype.kind in "iu" and labels.size
                                    and 0 <= labels.min() and labels.max() <= 255):
        return labels.astype(np.uint8)
    return labels


def sketch_partition(ranges: dict[str, tuple[Range, ...]], part: Any, columns: PartitionColumns, labels: Any,
                     weights: Any) -> tuple[PartitionSketch | None, Partials]:
    """The sketch of one partition against ``ranges``, and what the driver sums of it: per range
    the smallest key above it, per column whether a value is missing or infinite, and whether
    the partition is plain numeric (else no sketch). ``part``: its rows of positive weight,
    ``columns`` the same rows read by column; ``labels`` and ``weights`` theirs."""
    summary = Partials(plain=Merged(_plain_numeric(part), bool.__and__))
    if not summary["plain"].value:
        return None, summary
    n = len(columns)
    missing, ones, kept = {}, {}, {}
    up, mid = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)  # the kernel's buffers, reused
    chosen = np.empty(n, dtype=np.float64)
    for column in columns.columns:
        values = columns.numbers(column)
        spans = ranges.get(column, ())
        odd = True
        for low, high in spans:
            odd = range_sketch(values, _smallest_float(high + 1), _smallest_float(low), up, mid, chosen) > 0
            above = bitset.pack(up)
            if low == high:  # one key: the rows holding its value, packed
                rows = bitset.andnot(bitset.pack(mid), above)
            else:  # the few rows inside a bucket, by position, with their values
                rows = np.flatnonzero(mid & ~up)
                rows = (rows, np.asarray(values[rows], dtype=np.float64))
            kept[(column, low, high)] = (above, rows)
            lowest = chosen.min() if n else np.inf
            key = _NO_KEY if lowest == np.inf else int(float_keys(np.array([lowest]))[0])
            summary[("above", column, low, high)] = Merged(key, min)
        if not spans:
            ones[column] = bitset.pack(values == 1)
        has_missing = odd and bool(np.isnan(values).any())
        infinite = odd and bool(np.isinf(values).any())
        if has_missing:
            missing[column] = bitset.pack(np.isnan(values))
        summary[("missing", column)] = Merged(bool(has_missing), bool.__or__)
        summary[("infinite", column)] = Merged(bool(infinite), bool.__or__)
    sketch = PartitionSketch(n, _small_labels(np.asarray(labels)),
                             None if weights is None else np.asarray(weights, dtype=np.float64), missing, ones, kept)
    return sketch, summary


#: The keys of -inf and +inf, and the key no value has (the bits of -0.0, whose key is 0.0's).
_NEG_INF_KEY = int(float_keys(np.array([-np.inf]))[0])
_POS_INF_KEY = int(float_keys(np.array([np.inf]))[0])
_NEGATIVE_ZERO_KEY = (1 << 63) - 1


def _smallest_float(key: int) -> float:
    """The smallest float whose key is ``>= key`` (NaN: none), so that a value's key is ``>=
    key`` exactly when the value is ``>=`` it."""
    if key > _POS_INF_KEY:
        return float("nan")
    if key <= _NEG_INF_KEY:
        return -np.inf
    if key == _NEGATIVE_ZERO_KEY:
        return 0.0
    return float(key_floats(np.array([key], dtype=np.uint64))[0])


def _plain_numeric(part: Any) -> bool:
    """Whether the partition is read as ``transform_packed``'s plain numeric table: a numeric
    numpy block, or a DataFrame whose columns all have NumPy numeric dtypes."""
    if isinstance(part, np.ndarray):
        return part.ndim == 2 and part.dtype.kind in "iuf"
    dtypes = getattr(part, "dtypes", None)
    return dtypes is not None and all(isinstance(d, np.dtype) and d.kind in "iuf" for d in dtypes)


#: How a planned attribute is read from a sketch: ``("is missing", column)``, ``("is true",
#: column)`` or ``(op, column, threshold, (column, low, high))``.
Step = tuple


class Sketches:
    """The sketches kept of every partition by a pass (see the module notes), on the driver.

    Parameters
    ----------
    parts : list
        Each partition's persisted ``PartitionSketch`` (a delayed object).
    summary : Partials
        The summed summaries of :func:`sketch_partition`.
    ranges : dict column -> tuple of (low, high)
        The key ranges sketched.
    """

    def __init__(self, parts: list[Any], summary: Partials, ranges: dict[str, tuple[Range, ...]]) -> None:
        self.parts, self.ranges = parts, ranges
        self._summary = {key: value.value for key, value in summary.items()}

    def plan(self, binarizer: Any) -> list[Step] | None:
        """How each of ``binarizer``'s attributes is read from the sketches, or None when one of
        them is not covered (module notes): then the partitions must be produced again."""
        if not self._summary.get("plain", False):
            return None
        if binarizer.missing == "error" and any(self._summary.get(("missing", c), False)
                                                for c in binarizer.column_kinds_):
            return None  # transform_packed raises on it, naming the columns
        steps = []
        for condition in binarizer.conditions_:
            column, op = condition.column, condition.op
            if op == "is missing":
                steps.append((op, column))
                continue
            if self._summary.get(("infinite", column), True):  # transform_packed raises on it
                return None
            if op == "is true" and column not in self.ranges:
                steps.append((op, column))
                continue
            span = self._range_of(column, float(condition.value)) if op in _COMPARE else None
            if span is None:
                return None
            steps.append((op, column, float(condition.value), (column, *span)))
        return steps

    def blocks(self, plan: list[Step], n_classes: int, validation: Any = None, count_weights: bool = True,
               compact: bool = False) -> list[Any]:
        """The partitions' delayed RowBlocks packed from the sketches by :func:`sketch_block`."""
        import dask

        make = dask.delayed(sketch_block, pure=True)
        shared = dask.delayed(plan, pure=True, traverse=False)  # one key, not one copy per task
        return [make(shared, n_classes, number, sketch, validation, count_weights, compact)
                for number, sketch in enumerate(self.parts)]

    def _range_of(self, column: str, value: float) -> Range | None:
        """A sketched range of ``column`` that splits its rows at ``value``: the value's key lies
        in it, or above it but below every key above it."""
        key = int(float_keys(np.array([value]))[0])
        for low, high in self.ranges.get(column, ()):
            above = self._summary.get(("above", column, low, high), _NO_KEY)
            if low <= key <= high or high < key < above or (key > high and above == _NO_KEY):
                return low, high
        return None


def sketch_block(plan: list[Step], n_classes: int, number: int, sketch: PartitionSketch,
                 validation: Any = None, count_weights: bool = True, compact: bool = False) -> RowBlock:
    """The RowBlock of one partition from its sketch: the attributes of ``plan``
    (:meth:`Sketches.plan`), labels and weights as :class:`~logicrules.fca.dask_counts.DaskCounts`
    packs them from the partition itself (``compact``: as it keeps them between passes)."""
    from logicrules.fca.dask_counts import packed_block

    n = sketch.n_rows
    words = bitset.n_words(n)
    bits = np.zeros((len(plan), words), dtype=np.uint64)
    none = np.zeros(words, dtype=np.uint64)
    for j, step in enumerate(plan):
        if step[0] == "is missing":
            bits[j] = sketch.missing.get(step[1], none)
            continue
        if step[0] == "is true":
            bits[j] = sketch.ones[step[1]]
            continue
        op, column, value, key = step
        above, inside = sketch.ranges[key]
        single = not isinstance(inside, tuple)  # one key: the rows inside hold key's value
        if op in (">", ">="):
            bits[j] = above
        else:  # below the range: neither above it, nor inside it, nor missing
            bits[j] = bitset.andnot(bitset.not_(above, n), sketch.missing.get(column, none))
            if single:
                bits[j] &= ~inside
        if single:
            if _COMPARE[op](key_floats(np.array([key[1]], dtype=np.uint64))[0], value):
                bits[j] |= inside
        else:
            _set_rows(bits[j], inside[0], _COMPARE[op](inside[1], value))
    labels = np.asarray(sketch.labels).astype(np.intp)
    return packed_block(bits, n, labels, sketch.weights if count_weights else None, n_classes, number, validation,
                        compact)


def _set_rows(words: np.ndarray, rows: np.ndarray, holds: np.ndarray) -> None:
    """Set the bits of ``rows[holds]`` and clear those of the other ``rows`` (in place)."""
    bit = np.left_shift(np.uint64(1), (rows & 63).astype(np.uint64))
    np.bitwise_and.at(words, rows >> 6, ~bit)
    np.bitwise_or.at(words, rows[holds] >> 6, bit[holds])


class SketchKeeper:
    """What a fit asks of the binarizers' passes: keep, with the rows, the partitions' sketches
    against the gathered buckets, and these labels (see :func:`~logicrules.fca.dask_stats.drive`).

    Parameters
    ----------
    labels : callable returning a dask Series / 1-D Array
        The labels kept with the sketches, partitioned like X (asked when a pass sketches:
        e.g. known only after the first pass). The pass's weights are kept too.
    """

    def __init__(self, labels: Callable[[], Any]) -> None:
        self.labels = labels
        self.sketches: Sketches | None = None
        self._ranges: dict[str, set[Range]] = {}

    def ranges_for(self, kernels: list[Callable]) -> dict[str, tuple[Range, ...]] | None:
        """The key ranges a pass of these kernels should sketch: every bucket gathered so far
        (this pass's gathered buckets added), or None when this pass gathers none."""
        from logicrules.fca.dask_radix import _bucket_range, bucket_kernel
        from logicrules.fca.dask_scaling import _above_kernel

        found: list[tuple[str, Range]] = []
        for kernel in kernels:
            func, keywords = getattr(kernel, "func", None), getattr(kernel, "keywords", {})
            if func is bucket_kernel:  # the gathered buckets
                found += [(column, _bucket_range(prefix, bits)) for column, buckets in keywords["requests"].items()
                          for prefix, bits, gather in buckets if gather]
            elif func is _above_kernel:  # cut points found without a bucket (heavy ties): their one key
                found += [(column, (key, key)) for column, values in keywords["requests"].items()
                          for key in float_keys(np.asarray(values, dtype=np.float64)).tolist()]
        new = False
        for column, span in found:
            new |= span not in self._ranges.setdefault(column, set())
            self._ranges[column].add(span)
        if not new:
            return None
        return {column: tuple(sorted(spans)) for column, spans in self._ranges.items()}

    @staticmethod
    def kernel(ranges: dict[str, tuple[Range, ...]]) -> Callable:
        """What a sketching pass runs on each partition: ``(part, columns, labels, weights) ->
        (sketch, summary)`` (:func:`sketch_partition` against ``ranges``)."""
        return functools.partial(sketch_partition, ranges)

    def keep(self, parts: list[Any], summary: Partials, ranges: dict[str, tuple[Range, ...]]) -> None:
        """The sketches of the latest sketching pass (they replace the earlier ones)."""
        self.sketches = Sketches(parts, summary, ranges)

    def take(self) -> Sketches | None:
        """The sketches, handed over once: the keeper lets go of them (the workers free them
        when no one holds them)."""
        sketches, self.sketches = self.sketches, None
        return sketches
