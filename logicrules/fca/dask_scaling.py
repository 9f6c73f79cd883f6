"""Binarizers fitted from distributed statistics: cut points of a dask collection, never gathered.

:func:`fit_binarizer` fits a :class:`~logicrules.fca.scaling.MedianBinarizer` or
:class:`~logicrules.fca.scaling.QuantileBinarizer` on a ``dask.dataframe.DataFrame`` (or a 2-D
``dask.array.Array``) from statistics that each partition computes where it lives and that are
summed over partitions (one ``compute`` per pass). The fitted binarizer is the one the same rows
in memory give: every statistic is **exact**.

- Column kinds, missing values, minimum and maximum, whether the values are 0/1, infinities
  (one pass): exact.
- Categories (the distinct non-missing values of a categorical column, same pass): exact; each
  partition sends its distinct values only.
- Few distinct numeric values (the quantile binarizer's "a threshold between every two values"
  case, same pass): exact; each partition sends at most ``n_thresholds + 2`` distinct values
  per column.
- Medians (the paper's booleanization) and quantiles (NumPy's ``linear`` method, as
  ``np.quantile``): exact order statistics by radix selection: a float's bits, flipped so that
  unsigned order is numeric order, are resolved 16 bits per pass; each pass every partition
  histograms the next 16 bits of its values inside the candidate bucket (65536 counts per
  wanted order statistic), and a bucket of at most 65536 values is gathered instead. At most
  four passes, usually two.
- The value next above a median or a quantile (the end of the gap where a threshold goes): exact,
  one pass (a minimum per partition).
- Which candidate attributes are constant: exact counts, one pass.

So a fit takes four to seven passes over the data, whatever the number of columns (all columns
are counted in the same passes). Memory: a worker holds one partition and its statistics; the
driver holds the merged statistics (categories, at most 65536 counts or values per wanted order
statistic). Row weights (``sample_weight``) give the weighted medians and quantiles of the
in-memory fit (exact for integer weights, see :func:`fit_binarizer`).
:class:`~logicrules.fca.scaling.ThresholdBinarizer` is not supported (it merges attributes with
identical extents, which needs the rows), nor is a user's transformer.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

import numpy as np
import pandas as pd

from logicrules.fca.dask_counts import dask_partitions, partition_rows, tree_sum
from logicrules.fca.columns import _column_kind, _column_to_float, _sorted_categories
from logicrules.fca.condition import Condition, format_value
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer
from logicrules.fca.thresholds import _median
from logicrules.progress import pass_line

__all__ = ["fit_binarizer", "order_statistics", "weighted_order_statistics"]

#: Bits of the key resolved per radix pass (histograms of ``2**16`` counts).
_DIGIT = 16
#: A candidate bucket of at most this many values is gathered instead of histogrammed again.
_GATHER = 1 << 16
_SIGN = np.uint64(1 << 63)


# ------------------------------------------------------------------------- float keys
def float_keys(values: np.ndarray) -> np.ndarray:
    """Unsigned 64-bit keys ordered as the (non-NaN) floats are; -0.0 and 0.0 share a key."""
    bits = (np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64)
    return np.where(bits >> np.uint64(63), ~bits, bits | _SIGN)


def key_floats(keys: np.ndarray) -> np.ndarray:
    """The floats of :func:`float_keys` (its inverse)."""
    keys = np.asarray(keys, dtype=np.uint64)
    return np.where(keys >> np.uint64(63), keys & ~_SIGN, ~keys).view(np.float64)


# ------------------------------------------------------------------------- passes
def _frame(part: Any) -> pd.DataFrame:
    """A partition as the binarizer's fit sees it: a DataFrame with str column names."""
    if isinstance(part, pd.DataFrame):
        return part.set_axis([str(c) for c in part.columns], axis=1)
    array = np.asarray(part)
    if array.dtype.kind in "US":
        array = array.astype(object)
    return pd.DataFrame(array, columns=[f"x{i}" for i in range(array.shape[1])], copy=False)


def _on_partition(kernel: Callable, number: int, part: Any, weights: Any, rows: Callable | None) -> Any:
    part, _, weights = partition_rows(number, part, (), rows, weights)
    return kernel(_frame(part), weights) if len(part) else None


def _present(frame: pd.DataFrame, column: str) -> np.ndarray:
    values = _column_to_float(frame[column], column)
    return values[~np.isnan(values)]


class _Partials(dict):
    """Partial statistics keyed by column (or request): ``+`` merges entry by entry."""

    def __add__(self, other: _Partials) -> _Partials:
        out = _Partials(self)
        for key, value in other.items():
            out[key] = value if key not in out else out[key] + value
        return out


class _Merged:
    """A value merged by a binary function (min, max, concatenation) under ``+``."""

    def __init__(self, value: Any, merge: Callable[[Any, Any], Any]) -> None:
        self.value, self.merge = value, merge

    def __add__(self, other: _Merged) -> _Merged:
        return _Merged(self.merge(self.value, other.value), self.merge)


def _run(X: Any, rows: Callable | None, kernel: Callable, verbose: int, what: str, weights: Any = None) -> Any:
    """One pass: ``kernel(frame, weights)`` on every partition (its kept rows; weights None
    when unweighted), tree-summed, computed."""
    import dask

    task = dask.delayed(_on_partition, pure=True)
    parts = dask_partitions(X, weights)
    start = time.perf_counter()
    (total,) = dask.compute(tree_sum([task(kernel, number, part, w, rows) for number, (part, w) in enumerate(parts)]))
    pass_line(verbose, f"dask pass: {what} over {len(parts)} partitions", time.perf_counter() - start)
    return _Partials() if total is None else total


# ---- pass 1: what every column holds
#: Values looked at first by :func:`_distinct_upto`: more than ``cap`` distinct among them
#: settles it without sorting the partition.
_DISTINCT_PROBE = 4096


def _distinct_upto(values: np.ndarray, cap: int) -> np.ndarray | None:
    """The sorted distinct values, or None when there are more than ``cap`` (a continuous column
    is told from the first values, not from a sort of all of them)."""
    if values.size > _DISTINCT_PROBE and np.unique(values[:_DISTINCT_PROBE]).size > cap:
        return None
    distinct = np.unique(values)
    return distinct if distinct.size <= cap else None


def _union_upto(cap: int, a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None or b is None:
        return None
    return _distinct_upto(np.concatenate([a, b]), cap)


def _summary_kernel(frame: pd.DataFrame, weights: np.ndarray | None, declared: frozenset,
                    distinct_cap: int) -> _Partials:
    out = _Partials()
    out["rows"] = _Merged(len(frame), int.__add__)
    for column in frame.columns:
        series = frame[column]
        missing = int(series.isna().sum())
        kind = "categorical" if column in declared else _column_kind(series, column)
        stats = {"missing": _Merged(missing, int.__add__)}
        if missing < len(series):  # an all-missing partition says nothing of the kind
            stats["kind"] = _Merged(frozenset([kind]), frozenset.union)
        if kind == "categorical":
            stats["categories"] = _Merged(series[~series.isna()].drop_duplicates(), _concat_unique)
        else:
            present = _present(frame, column)
            stats["infinite"] = _Merged(bool(np.isinf(present).any()), bool.__or__)
            stats["present"] = _Merged(int(present.size), int.__add__)
            if weights is not None:  # the weight of the present values: the weighted ranks' total
                stats["weight"] = _Merged(float(weights[~np.isnan(_column_to_float(series, column))].sum()),
                                          float.__add__)
            if present.size:
                stats["low"] = _Merged(float(present.min()), min)
                stats["high"] = _Merged(float(present.max()), max)
                stats["binary"] = _Merged(bool(np.isin(present, (0.0, 1.0)).all()), bool.__and__)
                stats["distinct"] = _Merged(_distinct_upto(present, distinct_cap),
                                            functools.partial(_union_upto, distinct_cap))
        out[column] = _Partials(stats)
    return out


def _concat_unique(a: pd.Series, b: pd.Series) -> pd.Series:
    return pd.concat([a, b], ignore_index=True).drop_duplicates()


# ---- radix selection of order statistics
def _bucket_kernel(frame: pd.DataFrame, weights: np.ndarray | None,
                   requests: dict[str, list[tuple[int, int, bool]]]) -> _Partials:
    """Per column and bucket ``(prefix, bits, gather)``: a histogram of the next 16 key bits of
    the values whose top ``bits`` bits are ``prefix``, or those keys themselves; weighted, the
    histogram has a second row of the weights (and the gathered keys come with theirs)."""
    out = _Partials()
    for column, buckets in requests.items():
        values = _column_to_float(frame[column], column)
        present = ~np.isnan(values)
        keys = float_keys(values[present])
        w = None if weights is None else weights[present]
        for prefix, bits, gather in buckets:
            mask = None if bits == 0 else (keys >> np.uint64(64 - bits)) == np.uint64(prefix)
            inside = keys if mask is None else keys[mask]
            inside_w = None if w is None else (w if mask is None else w[mask])
            if gather:
                out[(column, prefix, bits)] = _Merged(inside, _concat) if w is None else \
                    _Merged((inside, inside_w), _concat_pairs)
            else:
                digits = ((inside >> np.uint64(64 - bits - _DIGIT)) & np.uint64((1 << _DIGIT) - 1)).astype(np.intp)
                counts = np.bincount(digits, minlength=1 << _DIGIT).astype(np.int64)
                if w is not None:
                    counts = np.vstack([counts, np.bincount(digits, weights=inside_w, minlength=1 << _DIGIT)])
                out[(column, prefix, bits)] = _Merged(counts, np.add)
    return out


def _concat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.concatenate([a, b])


def _concat_pairs(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])


def order_statistics(X: Any, wanted: dict[str, tuple[int, list[int]]], rows: Callable | None = None,
                     verbose: int = 0) -> dict[str, np.ndarray]:
    """Exact order statistics of columns of a dask collection, by radix selection.

    Parameters
    ----------
    X : dask DataFrame or 2-D dask Array
    wanted : dict column -> (number of non-missing values, list of 0-based ranks)
        The ranks (in increasing order of the non-missing values) of each column wanted.
    rows : callable, optional
        Rows kept of each partition (see :class:`~logicrules.fca.dask_counts.DaskCounts`).
    verbose : int, default 0

    Returns
    -------
    dict column -> ndarray of float64
        The value of each wanted rank, in the order given.

    Examples
    --------
    >>> import dask, dask.dataframe as dd
    >>> frame = dd.from_pandas(pd.DataFrame({"x": [5.0, -1.0, 3.0, 2.0, 8.0]}), npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     order_statistics(frame, {"x": (5, [0, 2, 4])})["x"].tolist()
    [-1.0, 3.0, 8.0]
    """
    for column, (count, ranks) in wanted.items():
        if any(not 0 <= r < count for r in ranks):
            raise ValueError(f"ranks of column {column!r} must lie in [0, {count})")
    targets = {column: (count, [(float(r), True) for r in ranks]) for column, (count, ranks) in wanted.items()}
    return weighted_order_statistics(X, targets, rows, verbose)


def weighted_order_statistics(X: Any, wanted: dict[str, tuple[int, list[tuple[float, bool]]]],
                              rows: Callable | None = None, verbose: int = 0, weights: Any = None
                              ) -> dict[str, np.ndarray]:
    """The smallest value of each column whose cumulative weight passes a target, by radix selection.

    For a target ``(t, strict)`` of a column: the smallest non-missing value ``v`` with
    ``W(<= v) > t`` (``strict``) or ``W(<= v) >= t``, ``W`` the summed weights of the values
    up to ``v`` (each value weighs 1 without ``weights``: ``(r, True)`` is the value of rank
    ``r``); the largest value when no value passes. The weighted medians and quantiles of the
    binarizers are such values. Exact: with weights, the cumulative weights are sums in another
    order than in memory, equal for integer weights (sums below 2**53).

    Parameters
    ----------
    X : dask DataFrame or 2-D dask Array
    wanted : dict column -> (number of non-missing values, list of (target, strict))
    rows : callable, optional
    verbose : int, default 0
    weights : dask Series or 1-D Array, optional
        Row weights partitioned like X (rows of weight 0 are left out).

    Returns
    -------
    dict column -> ndarray of float64, one value per target in the order given.
    """
    # state of every target: [prefix, bits, target within the bucket, strict, gather, value]
    state = {column: [[0, 0, float(t), bool(strict), count <= _GATHER, None] for t, strict in targets]
             for column, (count, targets) in wanted.items()}
    while True:
        open_ = {c: [s for s in states if s[5] is None] for c, states in state.items()}
        requests = {c: sorted({(s[0], s[1], s[4]) for s in states}) for c, states in open_.items() if states}
        if not requests:
            break
        found = _run(X, rows, functools.partial(_bucket_kernel, requests=requests), verbose,
                     "order statistics (radix selection)", weights)
        for column, states in open_.items():
            for s in states:
                merged = found[(column, s[0], s[1])].value
                side = "right" if s[3] else "left"
                if s[4]:  # the bucket's keys (and weights): the answer among them
                    keys, w = (merged, np.ones(merged.size)) if weights is None else merged
                    order = np.argsort(keys, kind="stable")
                    at = min(int(np.searchsorted(np.cumsum(w[order]), s[2], side=side)), keys.size - 1)
                    s[5] = float(key_floats(keys[order][at:at + 1])[0])
                    continue
                counts, w = (merged, merged) if weights is None else (merged[0], merged[1])
                cum = np.cumsum(w)
                digit = int(np.searchsorted(cum, s[2], side=side))
                if digit >= w.size or counts[digit] == 0:  # the next digit holding values (else the largest)
                    held = np.flatnonzero(counts)
                    digit = int(held[held >= digit][0]) if (held >= digit).any() else int(held[-1])
                s[2] -= float(cum[digit - 1]) if digit else 0.0
                s[0], s[1] = (s[0] << _DIGIT) | digit, s[1] + _DIGIT
                if s[1] == 64:
                    s[5] = float(key_floats(np.array([s[0]], dtype=np.uint64))[0])
                else:
                    s[4] = int(counts[digit]) <= _GATHER
    return {column: np.array([s[5] for s in states], dtype=np.float64) for column, states in state.items()}


# ---- the value next above a threshold, and candidate counts
def _above_kernel(frame: pd.DataFrame, weights: np.ndarray | None, requests: dict[str, list[float]]) -> _Partials:
    out = _Partials()
    for column, values in requests.items():
        present = _present(frame, column)
        for value in values:
            above = present[present > value]
            if above.size:
                out[(column, value)] = _Merged(float(above.min()), min)
    return out


def _count_kernel(frame: pd.DataFrame, weights: np.ndarray | None, binarizer: Any, conditions: list) -> _Partials:
    return _Partials(counts=_Merged(binarizer._evaluate(frame, conditions).sum(axis=0).astype(np.int64), np.add))


# ------------------------------------------------------------------------- the fit
def _quantile_ranks(count: int, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy's ``linear`` quantile: positions, the ranks below and above, the fractions."""
    position = (count - 1) * levels
    below = np.floor(position)
    return below.astype(np.int64), np.minimum(below + 1, count - 1).astype(np.int64), position - below


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    diff = b - a  # NumPy's _lerp: exact at both ends
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def fit_binarizer(binarizer: Any, X: Any, rows: Callable | None = None, verbose: int = 0,
                  weights: Any = None) -> Any:
    """Fit a median or quantile binarizer on a dask collection from distributed statistics.

    Parameters
    ----------
    binarizer : MedianBinarizer or QuantileBinarizer
        Fitted in place (its parameters are validated as by ``fit``).
    X : dask.dataframe.DataFrame or 2-D dask.array.Array
    rows : callable ``(partition number, n_rows) -> bool mask``, optional
        Fit on these rows of each partition only (e.g. the training part of a
        :class:`~logicrules.fca.dask_counts.RowSplit`).
    verbose : int, default 0
        One line on stderr per pass.
    weights : dask Series or 1-D dask Array, optional
        Row weights partitioned like X (``fit(X, sample_weight=...)``): weighted medians and
        quantiles, rows of weight 0 left out. Exact for integer weights; with fractional ones
        a cumulative weight that equals a median's or quantile's target exactly may round the
        other way than in memory (the weights are summed in another order).

    Returns
    -------
    the binarizer, fitted: the same conditions as ``fit`` on the same rows in memory.

    Examples
    --------
    >>> import dask, dask.dataframe as dd
    >>> X = pd.DataFrame({"age": [40, 50, 60, 70], "sex": ["male", "female", "male", "male"]})
    >>> with dask.config.set(scheduler="synchronous"):
    ...     fitted = fit_binarizer(MedianBinarizer(), dd.from_pandas(X, npartitions=2))
    >>> fitted.get_feature_names_out().tolist()
    ['age > 55', 'sex == female', 'sex == male']
    """
    if not isinstance(binarizer, (MedianBinarizer, QuantileBinarizer)):
        raise TypeError(f"fitting {type(binarizer).__name__} on dask data is not supported: use the "
                        "median or quantile binarizer (ThresholdBinarizer merges attributes with "
                        "identical extents, which needs the rows in one place)")
    binarizer._validate_params()
    columns = [str(c) for c in X.columns] if hasattr(X, "columns") else [f"x{i}" for i in range(int(X.shape[1]))]
    if len(set(columns)) != len(columns):
        raise ValueError(f"X has duplicated column names: {sorted({c for c in columns if columns.count(c) > 1})}")
    if not columns:
        raise ValueError(f"Found array with 0 feature(s) while a minimum of 1 is required by "
                         f"{type(binarizer).__name__}.")
    declared = frozenset(binarizer._categorical_columns(columns))
    quantile = isinstance(binarizer, QuantileBinarizer)
    cap = int(binarizer.n_thresholds) + 2 if quantile else 1
    summary = _run(X, rows, functools.partial(_summary_kernel, declared=declared, distinct_cap=cap),
                   verbose, "column summaries", weights)
    n = summary["rows"].value if "rows" in summary else 0
    if n == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape=(0, {len(columns)})) while a minimum of 1 "
                         f"is required by {type(binarizer).__name__}.")
    stats = {column: {key: value.value for key, value in summary[column].items()} for column in columns}
    if binarizer.missing == "error":
        bad = [c for c in columns if stats[c]["missing"]]
        if bad:
            raise ValueError(f"Input contains NaN (missing values) in column(s) {bad}; use "
                             "missing='false' or missing='indicator' to accept them")
    kinds = {}
    for column in columns:
        seen = stats[column].get("kind", frozenset(["numeric"]))
        if len(seen) > 1:
            raise ValueError(f"column {column!r} reads as {' and as '.join(sorted(seen))} in different "
                             "partitions; cast it, or name it in categorical=[...]")
        kind = next(iter(seen))
        if kind != "categorical":
            if stats[column]["infinite"]:
                raise ValueError(f"Input contains infinity in column {column!r}")
            if kind == "numeric" and stats[column]["present"] and stats[column]["binary"]:
                kind = "binary"
            if kind == "binary" and not binarizer._binary_as_single:
                kind = "numeric"
        kinds[column] = kind
    thresholds = _thresholds(binarizer, X, rows, stats, kinds, verbose, weights)

    categories, candidates, reasons = {}, [], {}
    for column in columns:
        s, kind = stats[column], kinds[column]
        if kind == "categorical":
            categories[column] = _sorted_categories(s["categories"], column)
            conditions, reason = binarizer._categorical_conditions(column, categories[column])
        elif not s["present"]:
            conditions, reason = [], "all values missing"
        else:
            reason = None
            if s["low"] == s["high"]:
                reason = f"constant: the only value is {format_value(s['low'])}"
            conditions = [Condition(column, "is true")] if kind == "binary" else thresholds[column]
        if binarizer.missing == "indicator" and s["missing"]:
            conditions = conditions + [Condition(column, "is missing")]
        candidates.extend(conditions)
        if reason is not None:
            reasons[column] = reason
    binarizer.column_kinds_ = kinds
    counts = _run(X, rows, functools.partial(_count_kernel, binarizer=binarizer, conditions=candidates),
                  verbose, "attribute counts", weights)
    counts = counts["counts"].value if candidates else np.zeros(0, dtype=np.int64)
    keep, redundant = binarizer._drop_constants(candidates, counts, n)
    binarizer._store(columns, candidates, keep, redundant, categories, reasons)
    binarizer.n_features_in_ = len(columns)
    if hasattr(X, "columns") and all(isinstance(c, str) for c in X.columns):
        binarizer.feature_names_in_ = np.asarray(list(X.columns), dtype=object)
    elif hasattr(binarizer, "feature_names_in_"):
        del binarizer.feature_names_in_
    return binarizer


def _thresholds(binarizer: Any, X: Any, rows: Callable | None, stats: dict, kinds: dict,
                verbose: int, weights: Any = None) -> dict[str, list]:
    """The threshold conditions of every numeric column, from exact (weighted) order statistics:
    the targets of :func:`weighted_order_statistics` that ``np.median`` / ``np.quantile`` (or
    :mod:`~logicrules.fca.scaling`'s weighted forms, each row repeated ``weight`` times) select."""
    numeric = [c for c, kind in kinds.items() if kind == "numeric" and stats[c]["present"]]
    out: dict[str, list] = {}
    ends: dict[str, list[float]] = {}  # column -> lower ends of gaps whose upper end is wanted

    def total(c):  # the ranks' total: values, or their weight
        return stats[c]["present"] if weights is None else stats[c]["weight"]

    if isinstance(binarizer, MedianBinarizer):
        if weights is None:
            targets = {c: [((total(c) - 1) // 2, True), (total(c) // 2, True)] for c in numeric}
        else:  # the first value whose cumulative weight reaches half the total, and the first passing it
            targets = {c: [(total(c) / 2, False), (total(c) / 2, True)] for c in numeric}
        found = weighted_order_statistics(X, {c: (stats[c]["present"], targets[c]) for c in numeric}, rows,
                                          verbose, weights)
        medians = {c: _median(values) for c, values in found.items()}
        ends = {c: [m] for c, m in medians.items() if m < stats[c]["high"]}
    else:
        levels = np.arange(1, binarizer.n_thresholds + 1) / (binarizer.n_thresholds + 1)
        few = {c for c in numeric if stats[c]["distinct"] is not None
               and stats[c]["distinct"].size <= binarizer.n_thresholds + 1}
        for c in few:
            distinct = stats[c]["distinct"]
            out[c] = binarizer._gap_conditions(c, list(zip(distinct[:-1].tolist(), distinct[1:].tolist())))
        wanted, fractions = {}, {}
        for c in numeric:
            if c not in few:
                below, above, fractions[c] = _quantile_positions(total(c), levels, weights is None)
                wanted[c] = (stats[c]["present"], [(float(r), True) for r in [*below, *above]])
        for c, values in weighted_order_statistics(X, wanted, rows, verbose, weights).items():
            a, b = values[:levels.size], values[levels.size:]
            quantiles = _lerp(a, b, fractions[c])
            lows = np.where(quantiles >= b, b, a)  # the largest value <= each quantile
            ends[c] = sorted(set(lows[lows < stats[c]["high"]].tolist()))
    requests = {c: values for c, values in ends.items() if values}
    above = _run(X, rows, functools.partial(_above_kernel, requests=requests), verbose,
                 "values next above the cut points", weights) if requests else _Partials()
    for c in numeric:
        if isinstance(binarizer, MedianBinarizer):
            m = medians[c]
            out[c] = binarizer._median_conditions(c, m, above[(c, m)].value if c in ends else None)[0]
        elif c in ends:
            out[c] = binarizer._gap_conditions(c, [(lo, above[(c, lo)].value) for lo in ends[c]])
    return out


def _quantile_positions(total: float, levels: np.ndarray, counted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy's ``linear`` quantile at ``levels`` of ``total`` values (or of a total weight, each
    row repeated ``weight`` times): the ranks (cumulative-weight targets) below and above each
    position, and the fractions between them."""
    if counted:
        return _quantile_ranks(int(total), levels)
    position = (total - 1) * levels
    below = np.floor(position)
    return below, below + 1, position - below
