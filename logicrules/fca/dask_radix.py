"""Exact order statistics of columns of a dask collection by radix selection, and what the
selection learns on the way: counts below a value and the value next above it.

A float's bits, flipped so that unsigned order is numeric order (:func:`float_keys`), are
resolved 16 bits per pass: each pass every partition histograms the next 16 bits of its values
inside each wanted statistic's candidate bucket (65536 counts, sent as the non-empty bins:
:class:`SparseBins`), and a bucket of at most 65536
values is gathered instead, with the smallest key above it. The first histogram (the top 16
bits) can come with another pass (the binarizer's column summaries), so that a selection takes
one more pass when the gathered bucket resolves it, as it usually does.

A gathered bucket tells, for any value inside its key range, exactly how many values lie below
and above it and the smallest value above it (:class:`Bucket`): the binarizers read their
thresholds' gaps and their attributes' counts from it without another pass.
"""

from __future__ import annotations

import functools
import numpy as np

from logicrules.fca.dask_stats import Merged, Partials, PartitionColumns, Step
from logicrules.fca.radix_kernels import NO_WEIGHTS, bucket_histogram, bucket_rows

__all__ = ["float_keys", "key_floats"]

#: Bits of the key resolved per radix pass (histograms of ``2**16`` counts).
DIGIT = 16
#: A candidate bucket of at most this many values is gathered instead of histogrammed again.
GATHER = 1 << 16
_SIGN = np.uint64(1 << 63)
_TOP = np.int64(-(1 << 63))
_MAX = np.uint64((1 << 64) - 1)


def float_keys(values: np.ndarray) -> np.ndarray:
    """Unsigned 64-bit keys ordered as the (non-NaN) floats are; -0.0 and 0.0 share a key."""
    bits = (np.asarray(values, dtype=np.float64) + 0.0).view(np.int64)
    flip = bits >> 63  # -1 (all bits) for a negative value, 0 otherwise
    flip |= _TOP  # and the sign bit
    flip ^= bits
    return flip.view(np.uint64)


def key_floats(keys: np.ndarray) -> np.ndarray:
    """The floats of :func:`float_keys` (its inverse)."""
    keys = np.asarray(keys, dtype=np.uint64)
    return np.where(keys >> np.uint64(63), keys & ~_SIGN, ~keys).view(np.float64)


def _bucket_range(prefix: int, bits: int) -> tuple[int, int]:
    """The smallest and the largest key whose top ``bits`` bits are ``prefix``."""
    low = prefix << (64 - bits) if bits else 0
    return low, low + (1 << (64 - bits)) - 1


class SparseBins:
    """A histogram of ``2**16`` bins (a second row of weights when weighted) held as its
    non-empty bins: what a partition sends and what the tree sum adds. A column's values fill
    few of the top-16-bit bins (a float's sign, exponent and first mantissa bits), so a partial
    is a few KB where the dense histogram is 512 KB (1 MB weighted). ``+`` adds exactly (int64
    counts; weights as float64 sums, as the dense histograms add them); :attr:`value` is the
    dense histogram."""

    def __init__(self, bins: np.ndarray, counts: np.ndarray) -> None:
        self.bins, self.counts = bins, counts

    @classmethod
    def from_dense(cls, dense: np.ndarray) -> SparseBins:
        bins = np.flatnonzero(dense if dense.ndim == 1 else dense[0]).astype(np.uint16)
        return cls(bins, dense[..., bins])

    @property
    def value(self) -> np.ndarray:
        """The dense histogram, ``(2**16,)`` int64 or ``(2, 2**16)`` float64 when weighted."""
        dense = np.zeros((*self.counts.shape[:-1], 1 << DIGIT), dtype=self.counts.dtype)
        dense[..., self.bins] = self.counts
        return dense

    def __add__(self, other: SparseBins) -> SparseBins:
        return SparseBins.from_dense(self.value + other.value)


def bucket_kernel(columns: PartitionColumns, weights: np.ndarray | None,
                  requests: dict[str, list[tuple[int, int, bool]]]) -> Partials:
    """Per column and bucket ``(prefix, bits, gather)``: a histogram of the next 16 key bits of
    the values whose top ``bits`` bits are ``prefix``, or those keys themselves (with their
    weights) and the smallest key above the bucket; one compiled read of the column per bucket
    (:mod:`~logicrules.fca.radix_kernels`)."""
    out = Partials()
    for column, buckets in requests.items():
        values = columns.numbers(column)
        for prefix, bits, gather in buckets:
            if gather:
                if bits:
                    rows, above = bucket_rows(values, prefix, bits)
                else:  # the whole column
                    rows, above = np.flatnonzero(~np.isnan(values)), _MAX
                inside = float_keys(values[rows])
                out[(column, prefix, bits)] = Merged(inside, _concat) if weights is None else \
                    Merged((inside, weights[rows]), _concat_pairs)
                if above != _MAX:
                    out[("above", column, prefix, bits)] = Merged(int(above), min)
            else:
                counts, weighted = bucket_histogram(values, NO_WEIGHTS if weights is None else weights,
                                                    weights is not None, prefix, bits)
                out[(column, prefix, bits)] = SparseBins.from_dense(
                    counts if weights is None else np.vstack([counts, weighted]))
    return out


def _concat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.concatenate([a, b])


def _concat_pairs(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])


class Bucket:
    """A gathered bucket of one column: its key range, its sorted keys, how many of the column's
    values lie below it, and the smallest key above it (None: no value above).

    For a value the bucket :meth:`knows` (its key lies in the range, or above it but below the
    smallest key above the bucket), :meth:`below` / :meth:`next_above` are exact statistics of
    the whole column (its non-missing values)."""

    def __init__(self, prefix: int, bits: int, keys: np.ndarray, below: int, above: int | None) -> None:
        self.low, self.high = _bucket_range(prefix, bits)
        self.keys, self.n_below, self.above = np.sort(keys), int(below), above

    def knows(self, value: float) -> bool:
        """Whether the column's values below and next above ``value`` are known: its key lies in
        the bucket's range, or in the gap between the range and the smallest key above it."""
        key = int(float_keys(np.array([value]))[0])
        return self.low <= key <= self.high or (key > self.high and (self.above is None or key < self.above))

    def below(self, value: float, inclusive: bool) -> int:
        """Values ``< value`` (``<=`` when inclusive) in the column."""
        key = float_keys(np.array([value]))
        return self.n_below + int(np.searchsorted(self.keys, key, side="right" if inclusive else "left")[0])

    def next_above(self, value: float) -> float | None:
        """The smallest value ``> value`` in the column (None: none)."""
        key = float_keys(np.array([value]))
        at = int(np.searchsorted(self.keys, key, side="right")[0])
        if at < self.keys.size:
            return float(key_floats(self.keys[at:at + 1])[0])
        return None if self.above is None else float(key_floats(np.array([self.above], dtype=np.uint64))[0])


class Target:
    """One wanted statistic: the smallest value whose cumulative weight passes ``target``
    (``strict``: ``W(<= v) > target``, else ``>=``), resolved bucket by bucket."""

    def __init__(self, target: float, strict: bool, gather: bool) -> None:
        self.prefix, self.bits, self.target, self.strict, self.gather = 0, 0, float(target), bool(strict), gather
        self.below = 0  # values (unweighted) with keys below the current bucket
        self.value: float | None = None
        self.bucket: Bucket | None = None

    def request(self) -> tuple[int, int, bool]:
        return self.prefix, self.bits, self.gather

    def read(self, found: Partials, column: str, weighted: bool) -> None:
        """Resolve one level from the merged bucket statistic of this target's request."""
        merged = found[(column, self.prefix, self.bits)].value
        side = "right" if self.strict else "left"
        if self.gather:  # the bucket's keys (and weights): the answer among them
            keys, w = (merged, np.ones(merged.size)) if not weighted else merged
            order = np.argsort(keys, kind="stable")
            at = min(int(np.searchsorted(np.cumsum(w[order]), self.target, side=side)), keys.size - 1)
            self.value = float(key_floats(keys[order][at:at + 1])[0])
            above = found.get(("above", column, self.prefix, self.bits))
            self.bucket = Bucket(self.prefix, self.bits, keys, self.below, None if above is None else above.value)
            return
        counts, w = (merged, merged) if not weighted else (merged[0], merged[1])
        cum = np.cumsum(w)
        digit = int(np.searchsorted(cum, self.target, side=side))
        if digit >= w.size or counts[digit] == 0:  # the next digit holding values (else the largest)
            held = np.flatnonzero(counts)
            digit = int(held[held >= digit][0]) if (held >= digit).any() else int(held[-1])
        self.target -= float(cum[digit - 1]) if digit else 0.0
        self.below += int(counts[:digit].sum())
        self.prefix, self.bits = (self.prefix << DIGIT) | digit, self.bits + DIGIT
        if self.bits == 64:
            self.value = float(key_floats(np.array([self.prefix], dtype=np.uint64))[0])
        else:
            self.gather = int(counts[digit]) <= GATHER


def selection_steps(wanted: dict[str, tuple[int, list[tuple[float, bool]]]], weighted: bool,
                    first: Partials | None = None) -> Step:
    """The radix selection of every wanted statistic, as steps of passes (see
    :func:`~logicrules.fca.dask_stats.drive`); returns ``{column: [Target, ...]}``.

    ``wanted``: column -> (number of non-missing values, [(target, strict), ...]). ``first``:
    the top-16-bit histograms of the columns (key ``(column, 0, 0)``) counted in an earlier
    pass, read instead of a first pass of their own.
    """
    state = {column: [Target(t, strict, count <= GATHER) for t, strict in targets]
             for column, (count, targets) in wanted.items()}
    if first is not None:
        for column, targets in state.items():
            if (column, 0, 0) in first:
                for target in targets:
                    target.gather = False
                    target.read(first, column, weighted)
    while True:
        open_ = {c: [t for t in targets if t.value is None] for c, targets in state.items()}
        requests = {c: sorted({t.request() for t in targets}) for c, targets in open_.items() if targets}
        if not requests:
            return state
        found = yield functools.partial(bucket_kernel, requests=requests), "order statistics (radix selection)"
        for column, targets in open_.items():
            for target in targets:
                target.read(found, column, weighted)


def buckets_of(targets: list[Target]) -> list[Bucket]:
    """The gathered buckets among a column's resolved targets."""
    return [t.bucket for t in targets if t.bucket is not None]


def find_bucket(buckets: list[Bucket], value: float) -> Bucket | None:
    """A gathered bucket that knows ``value`` (None: none does)."""
    return next((b for b in buckets if b.knows(value)), None)
