"""Compiled (numba) kernels of the distributed binarizer statistics: one column, one read.

The column summaries and the radix selection of :mod:`~logicrules.fca.dask_radix` read every
numeric column of every partition once per pass. Written with numpy, each statistic is a pass of
its own over the column plus its temporaries (a float64 copy, the sort keys, their top bits, a
mask, the masked keys): on a partition of 262,144 rows the temporaries, not the arithmetic,
set the cost. These kernels read a column once, in its own dtype (a float32 block column is
not converted first), and compute the sort key of each value on the fly (the key of
:func:`~logicrules.fca.dask_radix.float_keys`: a float's bits, flipped so that unsigned order is
numeric order, ``-0.0`` and ``0.0`` sharing one).

Every result is the numpy statistic's exactly: counts, minimum and maximum, and histograms whose
weighted bins add the weights in row order, as ``np.bincount`` does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["NO_WEIGHTS", "bucket_histogram", "bucket_rows", "column_summary", "range_sketch"]

_SIGN = np.uint64(1 << 63)
_BINS = 1 << 16
#: The ``weights`` argument of an unweighted call (never read).
NO_WEIGHTS = np.zeros(0, dtype=np.float64)


@njit(cache=True, nogil=True, inline="always")
def _key(value, scratch, bits):
    """The sort key of a (non-NaN) float64 ``value``: ``scratch`` a float64 buffer of one
    element and ``bits`` its uint64 view."""
    scratch[0] = value + 0.0  # -0.0 + 0.0 is 0.0: one key for both zeros
    raw = bits[0]
    return ~raw if raw >> np.uint64(63) else raw | _SIGN


@njit(cache=True, nogil=True)
def column_summary(values, weights, weighted_too):  # pragma: no cover - compiled
    """One read of a column: ``(missing, infinite, low, high, ones, zeros, counts, weighted)``.

    ``missing``: NaN values; ``infinite``: whether a present value is infinite; ``low`` /
    ``high``: the smallest and largest present value (``inf`` / ``-inf`` when none; of the equal
    extremes ``-0.0`` and ``0.0`` the last one, where numpy's ``min`` / ``max`` may return either,
    depending on its vectorized loops);
    ``ones`` / ``zeros``: present values equal to 1 and to 0; ``counts``: the histogram of the top
    16 bits of the present values' keys (int64, 65536 bins); ``weighted``: with ``weighted_too``,
    the same histogram of their ``weights`` (float64, summed in row order), else empty (and
    ``weights`` is not read).
    """
    scratch = np.empty(1, dtype=np.float64)
    bits = scratch.view(np.uint64)
    counts = np.zeros(_BINS, dtype=np.int64)
    weighted = np.zeros(_BINS if weighted_too else 0, dtype=np.float64)
    missing, ones, zeros = 0, 0, 0
    infinite = False
    low, high = np.inf, -np.inf
    shift = np.uint64(48)
    for i in range(values.size):
        value = np.float64(values[i])
        if value != value:
            missing += 1
            continue
        if value <= low:
            low = value
        if value >= high:
            high = value
        if value == 1.0:
            ones += 1
        elif value == 0.0:
            zeros += 1
        elif value == np.inf or value == -np.inf:
            infinite = True
        top = _key(value, scratch, bits) >> shift
        counts[top] += 1
        if weighted_too:
            weighted[top] += weights[i]
    return missing, infinite, low, high, ones, zeros, counts, weighted


@njit(cache=True, nogil=True)
def bucket_rows(values, prefix, n_bits):  # pragma: no cover - compiled
    """The rows of the present values whose keys' top ``n_bits`` bits are ``prefix`` (int64
    positions, in row order), and the smallest key above that bucket (all ones when none: no
    value's key is all ones, that is a NaN's). ``n_bits`` in 1 .. 63."""
    scratch = np.empty(1, dtype=np.float64)
    bits = scratch.view(np.uint64)
    shift = np.uint64(64 - n_bits)
    want = np.uint64(prefix)
    high = (want << shift) | ((np.uint64(1) << shift) - np.uint64(1))
    above = ~np.uint64(0)
    rows = np.empty(values.size, dtype=np.int64)
    found = 0
    for i in range(values.size):
        value = np.float64(values[i])
        if value != value:
            continue
        key = _key(value, scratch, bits)
        if key >> shift == want:
            rows[found] = i
            found += 1
        elif key > high and key < above:
            above = key
    return rows[:found].copy(), above


@njit(cache=True, nogil=True)
def bucket_histogram(values, weights, weighted_too, prefix, n_bits):  # pragma: no cover - compiled
    """The histogram of the 16 key bits after the top ``n_bits`` (0 .. 48) of the present values
    whose top ``n_bits`` bits are ``prefix``: int64 counts and, with ``weighted_too``, their
    ``weights``' float64 sums in row order (else empty)."""
    scratch = np.empty(1, dtype=np.float64)
    bits = scratch.view(np.uint64)
    counts = np.zeros(_BINS, dtype=np.int64)
    weighted = np.zeros(_BINS if weighted_too else 0, dtype=np.float64)
    want = np.uint64(prefix)
    digit_shift = np.uint64(48 - n_bits)
    mask = np.uint64(_BINS - 1)
    for i in range(values.size):
        value = np.float64(values[i])
        if value != value:
            continue
        key = _key(value, scratch, bits)
        if n_bits and key >> np.uint64(64 - n_bits) != want:
            continue
        digit = (key >> digit_shift) & mask
        counts[digit] += 1
        if weighted_too:
            weighted[digit] += weights[i]
    return counts, weighted


@njit(cache=True, nogil=True)
def range_sketch(values, above_from, inside_from, above, inside, chosen):  # pragma: no cover - compiled
    """One read of a column against a range of values, given as the smallest float above it
    (``above_from``) and its smallest float (``inside_from``; NaN: none, as for a range past
    every float). Writes ``above[i] = values[i] >= above_from``, ``inside[i] = values[i] >=
    inside_from`` (bool) and ``chosen[i]`` = ``values[i]`` where above, else ``inf`` (its minimum
    is the smallest value above the range); returns how many values are NaN or infinite. One
    loop without branches, which the compiler vectorizes."""
    odd = 0
    for i in range(values.size):
        value = np.float64(values[i])
        over = value >= above_from
        above[i] = over
        inside[i] = value >= inside_from
        chosen[i] = values[i] if over else np.inf
        odd += (value - value) != 0.0  # NaN - NaN and inf - inf are NaN
    return odd
