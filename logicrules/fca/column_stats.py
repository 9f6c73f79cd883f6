"""Per-column statistics of a numeric table in row chunks: what the median binarizer needs.

Reading one column of a row-major (C-ordered) array touches every cache line of the array, so a
binarizer that works column by column reads the whole table once per column (20 columns of 1e7
rows: 20 passes over 1.6 GB). :func:`column_stats` reads the table once, in chunks of rows, all
columns at a time, and returns per column the missing and infinite values, the range, whether
the values are 0/1, and the exact median of the present values with the smallest present
value above it (and the number of rows at or above it).

The median is exact without sorting or partitioning a whole column: a random sample of rows
brackets each column's middle order statistics between two sample values, the chunked pass
counts the values below the bracket and keeps the few inside it, and the order statistics are
then read from those (a column whose bracket misses, which a sample of 65,536 rows makes
rare, gets one exact pass of its own). The result is the value of ``np.median``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ColumnStats", "column_stats"]

#: Rows of the sample that brackets the medians.
_SAMPLE_ROWS = 1 << 16
#: Half-width of the bracket, in standard deviations of a sample quantile's rank.
_BRACKET_SIGMAS = 6.0


@dataclass(frozen=True, eq=False)
class ColumnStats:
    """Statistics of the present (non-missing) values of each column, arrays of shape (k,).

    Attributes
    ----------
    n_rows : int
        Rows counted.
    n_missing, n_inf, n_ones, n_zeros : ndarray of int64
        Missing (NaN) values, infinite values, values equal to 1 and to 0 (the last two
        counted only in columns whose values lie in [0, 1], zero elsewhere).
    low, high : ndarray of float64
        Smallest and largest present value (NaN for an all-missing column).
    median : ndarray of float64
        ``np.median`` of the present values (NaN for an all-missing column).
    above : ndarray of float64
        Smallest present value above the median (NaN when none).
    n_at_least : ndarray of int64
        Present values at or above the median.
    n_above : ndarray of int64
        Present values above the median.
    """

    n_rows: int
    n_missing: np.ndarray
    n_inf: np.ndarray
    n_ones: np.ndarray
    n_zeros: np.ndarray
    low: np.ndarray
    high: np.ndarray
    median: np.ndarray
    above: np.ndarray
    n_at_least: np.ndarray
    n_above: np.ndarray

    @property
    def n_present(self) -> np.ndarray:
        """Present values per column."""
        return self.n_rows - self.n_missing


def _read(X, index) -> np.ndarray:
    """Rows ``index`` (a slice or positions) of an array or DataFrame as float64 (rows, k)."""
    if hasattr(X, "iloc"):
        return X.iloc[index].to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(X[index], dtype=np.float64)


def _chunks(X, rows: np.ndarray | None, chunk_rows: int):
    """Float64 row chunks of X (only the rows of the mask ``rows``)."""
    n = X.shape[0]
    for start in range(0, n, chunk_rows):
        stop = min(n, start + chunk_rows)
        chunk = _read(X, slice(start, stop))
        if rows is not None:
            chunk = chunk[rows[start:stop]]
        yield chunk


def _middle_ranks(n_present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """0-based ranks of the two middle values (equal for an odd count)."""
    return np.maximum((n_present - 1) // 2, 0), n_present // 2


def _brackets(sample: np.ndarray, n_present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column a value range that holds the middle order statistics with high probability."""
    k = sample.shape[1]
    lo, hi = np.full(k, -np.inf), np.full(k, np.inf)
    for j in range(k):
        values = np.sort(sample[:, j][~np.isnan(sample[:, j])])
        s = values.size
        if s < 64 or s >= n_present[j]:  # the sample is (nearly) everything: keep all values
            continue
        width = _BRACKET_SIGMAS * 0.5 * np.sqrt(s) + 2
        a, b = int(np.floor(s / 2 - width)), int(np.ceil(s / 2 + width))
        if a > 0:
            lo[j] = values[a]
        if b < s - 1:
            hi[j] = values[b]
    return lo, hi


def column_stats(X, rows: np.ndarray | None = None, chunk_rows: int = 1 << 12,
                 seed: int = 0) -> ColumnStats:
    """The :class:`ColumnStats` of a numeric table, reading it in chunks of rows.

    Parameters
    ----------
    X : ndarray or DataFrame of shape (n, k)
        Numeric values (NaN for missing), converted to float64 one chunk at a time.
    rows : ndarray of bool, shape (n,), optional
        Only these rows are counted (the training part of a split), without copying them out.
    chunk_rows : int, default 4096
        Rows read at once: memory is about ``chunk_rows x k x 8`` bytes times a few temporaries,
        plus the values inside the median brackets (a few percent of one column at most).
    seed : int, default 0
        Seed of the bracketing sample (the result does not depend on it, only the speed).

    Returns
    -------
    ColumnStats

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [3.0, np.nan], [2.0, 1.0], [8.0, 1.0]])
    >>> s = column_stats(X)
    >>> s.median.tolist(), s.above.tolist(), s.n_missing.tolist()
    ([2.5, 1.0], [3.0, nan], [0, 1])
    """
    n, k = X.shape
    selected = np.flatnonzero(rows) if rows is not None else None
    n_rows = n if selected is None else int(selected.size)
    rng = np.random.default_rng(seed)
    if n_rows <= _SAMPLE_ROWS:
        picks = np.arange(n_rows)
    else:
        picks = np.sort(rng.choice(n_rows, size=_SAMPLE_ROWS, replace=False))
    positions = picks if selected is None else selected[picks]
    sample = _read(X, positions)
    n_sample_present = (~np.isnan(sample)).sum(axis=0)
    # the bracket is chosen before the present counts are known: estimate them from the sample
    estimate = np.rint(n_sample_present * (n_rows / max(len(positions), 1))).astype(np.int64)
    lo, hi = _brackets(sample, np.maximum(estimate, 1))
    zeros = np.zeros(k, dtype=np.int64)
    n_missing, n_inf, n_below, n_inside = zeros.copy(), zeros.copy(), zeros.copy(), zeros.copy()
    low, high = np.full(k, np.inf), np.full(k, -np.inf)
    inside: list[np.ndarray] = []  # per chunk the values inside the brackets, grouped by column
    inside_counts: list[np.ndarray] = []
    lo_, hi_ = lo[:, None], hi[:, None]
    for chunk in _chunks(X, rows, chunk_rows):
        if not chunk.shape[0]:
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            clean = bool(np.isfinite(chunk.sum()))  # no NaN, no infinity (or an overflow)
        ct = np.ascontiguousarray(chunk.T)  # (k, rows): every reduction below runs along rows
        if clean:
            np.minimum(low, ct.min(axis=1), out=low)
            np.maximum(high, ct.max(axis=1), out=high)
        else:
            n_missing += np.count_nonzero(np.isnan(ct), axis=1)
            n_inf += np.count_nonzero(np.isinf(ct), axis=1)
            np.fmin(low, np.fmin.reduce(ct, axis=1), out=low)
            np.fmax(high, np.fmax.reduce(ct, axis=1), out=high)
        below = ct < lo_
        n_below += np.count_nonzero(below, axis=1)
        keep = ct <= hi_
        keep ^= below  # below lo implies at most hi; NaN is neither
        counts = np.count_nonzero(keep, axis=1)
        n_inside += counts
        inside.append(ct[keep])  # grouped by column
        inside_counts.append(counts)
    per_column = _group_by_column(inside, inside_counts, k)
    n_present = n_rows - n_missing
    median = np.full(k, np.nan)
    above = np.full(k, np.nan)
    n_at_least, n_above = zeros.copy(), zeros.copy()
    first, second = _middle_ranks(n_present)
    for j in range(k):
        if n_present[j] == 0:
            low[j] = high[j] = np.nan
            continue
        values = per_column[j]
        n_over = n_present[j] - n_below[j] - values.size  # present values above the bracket
        found = _middle(values, first[j] - n_below[j], second[j] - n_below[j], n_over)
        if found is None:  # the bracket missed the middle or the next value up: exactly
            values = np.concatenate([c[:, j] for c in _chunks(X, rows, chunk_rows)])
            n_over = 0
            found = _middle(values[~np.isnan(values)], first[j], second[j], 0)
        median[j], above[j], n_above[j], n_at_least[j] = found
        n_above[j] += n_over
        n_at_least[j] += n_over
    # 0/1 counts only where the range allows a 0/1 column (one more pass, rarely needed)
    n_ones, n_zeros = zeros.copy(), zeros.copy()
    unit = np.flatnonzero((low >= 0) & (high <= 1))
    if unit.size:
        for chunk in _chunks(X, rows, chunk_rows):
            part = chunk[:, unit]
            n_ones[unit] += np.count_nonzero(part == 1.0, axis=0)
            n_zeros[unit] += np.count_nonzero(part == 0.0, axis=0)
    return ColumnStats(n_rows, n_missing, n_inf, n_ones, n_zeros, low, high, median, above,
                       n_at_least, n_above)


def _group_by_column(parts: list[np.ndarray], counts: list[np.ndarray], k: int) -> list[np.ndarray]:
    """The values of each column from chunks of values grouped by column (``counts[c][j]`` values
    of column ``j`` in chunk ``c``), in chunk order."""
    if not parts:
        return [np.zeros(0) for _ in range(k)]
    values = np.concatenate(parts)
    sizes = np.stack(counts)  # (chunks, k)
    column = np.repeat(np.tile(np.arange(k, dtype=np.int16), len(parts)), sizes.ravel())
    values = values[np.argsort(column, kind="stable")]
    return np.split(values, np.cumsum(sizes.sum(axis=0))[:-1])


def _middle(values: np.ndarray, a: int, b: int, n_over: int):
    """Median, next value up, and the counts above / at least it, from the values between the
    ranks ``a`` and ``b`` (0-based within ``values``) when they are inside; else None."""
    if a < 0 or b >= values.size:
        return None
    middle = np.partition(values, [a, b])
    median = _median_of(middle[a], middle[b])
    bigger = values[values > median]
    if not bigger.size and n_over:
        return None
    return median, (bigger.min() if bigger.size else np.nan), bigger.size, np.count_nonzero(values >= median)


def _median_of(a: float, b: float) -> float:
    """``np.median`` of values whose two middle order statistics are ``a <= b``."""
    with np.errstate(over="ignore"):
        middle = float(np.mean(np.array([a, b])))
    return middle if np.isfinite(middle) else float(a) / 2 + float(b) / 2
