"""Where the binarizers cut a numeric column: short thresholds, (weighted) medians and quantiles."""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal, localcontext

import numpy as np


def _short_threshold(lo: float, hi: float, *, near_low: bool) -> float:
    """A threshold with few digits that splits like any t in [lo, hi) (lo < t < hi when possible).

    ``near_low=False`` (a gap between two distinct values): the shortest decimal within the
    middle half of the open gap (lo, hi), nearest to its midpoint. ``near_low=True`` (a median):
    the shortest decimal in [lo, lo + (hi - lo) / 100], i.e. lo itself up to float noise
    (``0.39999999999999997`` becomes ``0.4``). Falls back to ``lo``, always a valid split for
    ``x <= t`` / ``x > t``, when no float lies in the window.
    """
    if near_low:
        # nearest first: the float nearest a short decimal may lie just below that decimal
        target, window, roundings = lo, hi / 100 - lo / 100, (ROUND_HALF_EVEN, ROUND_CEILING)
    else:
        target, window, roundings = lo / 2 + hi / 2, hi / 4 - lo / 4, (ROUND_HALF_EVEN,)
    if window <= 0:
        return lo
    exact = Decimal(target)
    start = -math.floor(math.log10(max(abs(lo), abs(hi)))) - 1  # coarsest: one digit
    with localcontext() as ctx:
        ctx.prec = 800
        for digits in range(start, start + 40):
            for rounding in roundings:
                candidate = float(exact.quantize(Decimal(1).scaleb(-digits), rounding=rounding))
                inside = lo <= candidate if near_low else lo < candidate
                if inside and candidate < hi and abs(candidate - target) <= window:
                    return candidate
    return lo


def _median(values: np.ndarray) -> float:
    """``np.median`` of finite values, without overflow near the float limits (1e308)."""
    with np.errstate(over="ignore"):
        median = float(np.median(values))
    if math.isfinite(median):
        return median
    middle = np.partition(values, [(values.size - 1) // 2, values.size // 2])
    lo, hi = float(middle[(values.size - 1) // 2]), float(middle[values.size // 2])
    return lo / 2 + hi / 2


# --------------------------------------------------------------------------------------------
# Weighted order statistics (integer weights: those of the data with repeated rows)


def _weighted_sorted(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct sorted values and the cumulative weight up to each of them."""
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, np.cumsum(np.bincount(inverse.reshape(-1), weights=weights, minlength=distinct.size))


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """``np.median`` of the values, each repeated ``weight`` times (any weights > 0).

    The mean of the lower median (first value whose cumulative weight reaches half the total)
    and the upper median (first value whose cumulative weight passes it), as ``np.median``
    averages the two middle elements of an even number of values.

    Examples
    --------
    >>> _weighted_median(np.array([1.0, 2.0, 5.0]), np.array([1.0, 1.0, 2.0]))
    3.5
    """
    distinct, cum = _weighted_sorted(values, weights)
    half = cum[-1] / 2
    lower = distinct[min(np.searchsorted(cum, half, side="left"), distinct.size - 1)]
    upper = distinct[min(np.searchsorted(cum, half, side="right"), distinct.size - 1)]
    return _median(np.array([lower, upper]))


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``np.quantile(..., method="linear")`` of the values each repeated ``weight`` times.

    Element ``i`` of the repeated sorted sample is the first value whose cumulative weight
    exceeds ``i``; the quantile at level ``q`` interpolates linearly at position
    ``(total - 1) q`` as NumPy does.

    Examples
    --------
    >>> _weighted_quantiles(np.array([1.0, 2.0, 5.0]), np.array([1.0, 1.0, 2.0]), np.array([0.5]))
    array([3.5])
    """
    distinct, cum = _weighted_sorted(values, weights)
    position = (cum[-1] - 1) * np.asarray(levels, dtype=np.float64)
    below = np.floor(position)

    def at(i):
        return distinct[np.minimum(np.searchsorted(cum, i, side="right"), distinct.size - 1)]

    a, b, t = at(below), at(below + 1), position - below
    diff = b - a  # NumPy's _lerp: exact at both ends
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


# --------------------------------------------------------------------------------------------
# Input handling


def _distinct_sorted(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (one sort, like ``np.unique``)."""
    ordered = np.sort(values)
    if ordered.size == 0:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]
