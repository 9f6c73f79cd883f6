"""Binarizers fitted from distributed statistics: cut points of a dask collection, never gathered.

:func:`fit_binarizer` fits a :class:`~logicrules.fca.scaling.MedianBinarizer` or
:class:`~logicrules.fca.scaling.QuantileBinarizer` on a ``dask.dataframe.DataFrame`` (or a 2-D
``dask.array.Array``) from statistics that each partition computes where it lives and that are
summed over partitions (one ``compute`` per pass); :func:`fit_binarizers` fits several on their
own rows (e.g. the training part of a split and all rows) in the same passes. The fitted
binarizer is the one the same rows in memory give: every statistic is **exact**.

- Column kinds, missing values, minimum and maximum, whether the values are 0/1 and how many
  are 1, infinities, and the histogram of the top 16 bits of every numeric column's values
  (the first level of the radix selection below) (one pass): exact.
- Categories (the distinct non-missing values of a categorical column, same pass): exact; each
  partition sends its distinct values only.
- Few distinct numeric values (the quantile binarizer's "a threshold between every two values"
  case, same pass): exact; each partition sends at most ``n_thresholds + 2`` distinct values
  per column.
- Medians (the paper's booleanization) and quantiles (NumPy's ``linear`` method, as
  ``np.quantile``): exact order statistics by radix selection
  (:mod:`~logicrules.fca.dask_radix`): 16 bits of a value's key resolved per pass, the last
  bucket of at most 65536 values gathered. Usually one pass after the summaries, at most four.
- The value next above a median or a quantile (the end of the gap where a threshold goes) and
  which candidate attributes are constant: exact, read from the gathered buckets (the number of
  values below any value in a bucket's range, the smallest value above it) and the summaries;
  one more pass each only when a bucket does not tell (a cut point outside every gathered
  bucket, categorical attributes, a quantile binarizer's few-values columns).

So a median fit of a numeric table takes two passes (three or four with heavy ties), whatever
the number of columns (all columns are counted in the same passes). Memory: a worker holds one
partition, one of its columns (as float64 unless the block holds floats) and its statistics,
each read in one go by the compiled kernels of :mod:`~logicrules.fca.radix_kernels`; the
driver holds the merged statistics (categories, at most 65536 counts or values per wanted
order statistic). Row weights (``sample_weight``) give the weighted medians and quantiles of
the in-memory fit (exact for integer weights, see :func:`fit_binarizer`).
:class:`~logicrules.fca.scaling.ThresholdBinarizer` is not supported (it merges attributes with
identical extents, which needs the rows), nor is a user's transformer.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np
import pandas as pd

from logicrules.fca.columns import _sorted_categories
from logicrules.fca.condition import Condition, format_value
from logicrules.fca.dask_radix import (SparseBins, buckets_of, find_bucket, float_keys,  # noqa: F401 (re-exported)
                                      key_floats, selection_steps)
from logicrules.fca.dask_stats import Merged, Partials, PartitionColumns, Step, drive
from logicrules.fca.radix_kernels import NO_WEIGHTS, column_summary
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer
from logicrules.fca.thresholds import _median

__all__ = ["fit_binarizer", "fit_binarizers", "order_statistics", "weighted_order_statistics"]


def _present(columns: PartitionColumns, column: str) -> np.ndarray:
    values = columns.floats(column)
    return values[~np.isnan(values)]


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


def _summary_kernel(columns: PartitionColumns, weights: np.ndarray | None, declared: frozenset,
                    distinct_cap: int | None) -> Partials:
    out = Partials(rows=Merged(len(columns), int.__add__), top=Partials())
    for column in columns.columns:
        kind = "categorical" if column in declared else columns.kind(column)
        if kind == "categorical":
            series = columns.frame[column]
            missing = series.isna().to_numpy()
            stats = {"categories": Merged(series[~missing].drop_duplicates(), _concat_unique)}
            n_missing = int(missing.sum())
        else:
            stats, n_missing = _numeric_summary(columns.numbers(column), weights, distinct_cap)
            top = stats.pop("top", None)
            if kind == "numeric" and top is not None:  # the radix selection's first level
                out["top"][(column, 0, 0)] = top
        stats["missing"] = Merged(n_missing, int.__add__)
        if n_missing < len(columns):  # an all-missing partition says nothing of the kind
            stats["kind"] = Merged(frozenset([kind]), frozenset.union)
        out[column] = Partials(stats)
    return out


def _numeric_summary(values: np.ndarray, weights: np.ndarray | None, distinct_cap: int | None
                     ) -> tuple[dict[str, Any], int]:
    """A numeric column's summaries (and ``"top"``: its keys' top-16-bit histogram, when a value
    is present) from one compiled read (:func:`~logicrules.fca.radix_kernels.column_summary`),
    and its missing values."""
    missing, infinite, low, high, ones, zeros, counts, weighted = column_summary(
        values, NO_WEIGHTS if weights is None else weights, weights is not None)
    n_present = values.size - missing
    stats = {"infinite": Merged(bool(infinite), bool.__or__), "present": Merged(int(n_present), int.__add__)}
    present = ~np.isnan(values) if weights is not None or (distinct_cap is not None and n_present) else None
    if weights is not None:  # the weight of the present values: the weighted ranks' total
        stats["weight"] = Merged(float(weights[present].sum()), float.__add__)
    if n_present:
        stats["low"] = Merged(float(low), min)
        stats["high"] = Merged(float(high), max)
        stats["ones"] = Merged(int(ones), int.__add__)
        stats["binary"] = Merged(int(ones + zeros) == n_present, bool.__and__)
        if distinct_cap is not None:
            stats["distinct"] = Merged(_distinct_upto(np.asarray(values[present], dtype=np.float64), distinct_cap),
                                       functools.partial(_union_upto, distinct_cap))
        stats["top"] = SparseBins.from_dense(counts if weights is None else np.vstack([counts, weighted]))
    return stats, int(missing)


def _concat_unique(a: pd.Series, b: pd.Series) -> pd.Series:
    return pd.concat([a, b], ignore_index=True).drop_duplicates()


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
    (state,) = drive([selection_steps(wanted, weights is not None)], [rows], X, verbose, weights)
    return {column: np.array([t.value for t in targets], dtype=np.float64) for column, targets in state.items()}


# ---- the value next above a threshold, and candidate counts (when no gathered bucket tells)
def _above_kernel(columns: PartitionColumns, weights: np.ndarray | None, requests: dict[str, list[float]]) -> Partials:
    out = Partials()
    for column, values in requests.items():
        present = _present(columns, column)
        for value in values:
            above = present[present > value]
            if above.size:
                out[(column, value)] = Merged(float(above.min()), min)
    return out


def _count_kernel(columns: PartitionColumns, weights: np.ndarray | None, binarizer: Any, conditions: list) -> Partials:
    counts = binarizer._evaluate(columns.frame, conditions).sum(axis=0).astype(np.int64)
    return Partials(counts=Merged(counts, np.add))


#: Conditions counted from a gathered bucket: whether the values below the threshold are counted
#: with those equal to it, and whether the condition holds above the threshold (else below).
_BUCKET_COUNTS = {">": (True, True), ">=": (False, True), "<=": (True, False), "<": (False, False)}


def _counts_from_statistics(candidates: list[Condition], stats: dict, buckets: dict[str, list]) -> np.ndarray | None:
    """The candidates' counts (rows where each holds) from the summaries and the gathered buckets,
    or None when one of them needs a counting pass (a categorical attribute, a threshold outside
    every gathered bucket)."""
    counts = []
    for condition in candidates:
        s = stats[condition.column]
        if condition.op == "is missing":
            counts.append(s["missing"])
        elif condition.op == "is true":
            counts.append(s["ones"])
        elif condition.op in _BUCKET_COUNTS:
            bucket = find_bucket(buckets.get(condition.column, []), float(condition.value))
            if bucket is None:
                return None
            inclusive, upper = _BUCKET_COUNTS[condition.op]
            below = bucket.below(float(condition.value), inclusive=inclusive)
            counts.append(s["present"] - below if upper else below)
        else:
            return None
    return np.asarray(counts, dtype=np.int64)


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
    return fit_binarizers([(binarizer, rows)], X, verbose, weights)[0]


def fit_binarizers(jobs: Sequence[tuple[Any, Callable | None]], X: Any, verbose: int = 0,
                   weights: Any = None, first: tuple[Sequence[Any], Callable, str] | None = None,
                   keep: Any = None) -> list[Any]:
    """Fit several binarizers, each on its own rows, in shared passes over a dask collection.

    Each pass produces every partition once and computes every fit's statistics on it, so two
    fits (e.g. on the training part of a split and on all rows) cost the passes of one.

    Parameters
    ----------
    jobs : sequence of (binarizer, rows)
        Each a median or quantile binarizer (fitted in place) and the rows it is fitted on, as
        ``rows`` of :func:`fit_binarizer` (None: all rows).
    X, verbose, weights
        As for :func:`fit_binarizer`.
    first : (delayed objects, callback, what), optional
        Computed in the first pass, ``callback(results)`` called before the fits read it (see
        :func:`~logicrules.fca.dask_stats.drive`): e.g. the classes of y, found in the pass of
        the column summaries.
    keep : SketchKeeper, optional
        Keep the partitions' sketches made in the pass that gathers the medians' (quantiles')
        buckets (:mod:`~logicrules.fca.dask_sketch`), so that counts of the fitted binarizers
        need not produce the partitions again.

    Returns
    -------
    list
        The binarizers, fitted, in order: each as :func:`fit_binarizer` fits it alone.

    Examples
    --------
    >>> import dask, dask.dataframe as dd
    >>> from logicrules.fca.dask_counts import RowSplit
    >>> X = dd.from_pandas(pd.DataFrame({"x": [1.0, 5.0, 2.0, 8.0, 3.0, 9.0]}), npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     fits = fit_binarizers([(MedianBinarizer(), RowSplit(0.5, 0)), (MedianBinarizer(), None)], X)
    >>> [b.get_feature_names_out().tolist() for b in fits]
    [['x > 5.5'], ['x > 4']]
    """
    for binarizer, _ in jobs:
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
                         f"{type(jobs[0][0]).__name__}.")
    fits = [_fit_steps(binarizer, columns, weights is not None) for binarizer, _ in jobs]
    fitted = drive(fits, [rows for _, rows in jobs], X, verbose, weights, first, keep)
    for binarizer in fitted:
        binarizer.n_features_in_ = len(columns)
        if hasattr(X, "columns") and all(isinstance(c, str) for c in X.columns):
            binarizer.feature_names_in_ = np.asarray(list(X.columns), dtype=object)
        elif hasattr(binarizer, "feature_names_in_"):
            del binarizer.feature_names_in_
    return fitted


def _fit_steps(binarizer: Any, columns: list[str], weighted: bool) -> Step:
    """One binarizer's fit as steps of passes (see :func:`~logicrules.fca.dask_stats.drive`)."""
    declared = frozenset(binarizer._categorical_columns(columns))
    quantile = isinstance(binarizer, QuantileBinarizer)
    cap = int(binarizer.n_thresholds) + 2 if quantile else None
    summary = yield (functools.partial(_summary_kernel, declared=declared, distinct_cap=cap), "column summaries")
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
    thresholds, buckets = yield from _threshold_steps(binarizer, stats, kinds, weighted, summary.get("top"))

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
    counts = _counts_from_statistics(candidates, stats, buckets) if candidates else np.zeros(0, dtype=np.int64)
    if counts is None:
        found = yield (functools.partial(_count_kernel, binarizer=binarizer, conditions=candidates),
                       "attribute counts")
        counts = found["counts"].value
    keep, redundant = binarizer._drop_constants(candidates, counts, n)
    binarizer._store(columns, candidates, keep, redundant, categories, reasons)
    return binarizer


def _threshold_steps(binarizer: Any, stats: dict, kinds: dict, weighted: bool, first: Partials | None) -> Step:
    """The threshold conditions of every numeric column, from exact (weighted) order statistics
    (the targets that ``np.median`` / ``np.quantile``, or :mod:`~logicrules.fca.scaling`'s
    weighted forms, each row repeated ``weight`` times, select), as steps of passes; returns
    them with the gathered buckets of every column (``first``: the summaries' histograms)."""
    numeric = [c for c, kind in kinds.items() if kind == "numeric" and stats[c]["present"]]
    out: dict[str, list] = {}
    ends: dict[str, list[float]] = {}  # column -> lower ends of gaps whose upper end is wanted

    def total(c):  # the ranks' total: values, or their weight
        return stats[c]["weight"] if weighted else stats[c]["present"]

    median = isinstance(binarizer, MedianBinarizer)
    if median:
        if not weighted:
            targets = {c: [((total(c) - 1) // 2, True), (total(c) // 2, True)] for c in numeric}
        else:  # the first value whose cumulative weight reaches half the total, and the first passing it
            targets = {c: [(total(c) / 2, False), (total(c) / 2, True)] for c in numeric}
        state = yield from selection_steps({c: (stats[c]["present"], targets[c]) for c in numeric}, weighted, first)
        medians = {c: _median(np.array([t.value for t in found])) for c, found in state.items()}
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
                below, above, fractions[c] = _quantile_positions(total(c), levels, not weighted)
                wanted[c] = (stats[c]["present"], [(float(r), True) for r in [*below, *above]])
        state = yield from selection_steps(wanted, weighted, first)
        for c, found in state.items():
            values = np.array([t.value for t in found])
            a, b = values[:levels.size], values[levels.size:]
            quantiles = _lerp(a, b, fractions[c])
            lows = np.where(quantiles >= b, b, a)  # the largest value <= each quantile
            ends[c] = sorted(set(lows[lows < stats[c]["high"]].tolist()))
    buckets = {c: buckets_of(found) for c, found in state.items()}
    above, unknown = {}, {}
    for c, values in ends.items():
        for value in values:
            bucket = find_bucket(buckets[c], value)
            if bucket is None:
                unknown.setdefault(c, []).append(value)
            else:
                above[(c, value)] = bucket.next_above(value)
    if unknown:
        found = yield (functools.partial(_above_kernel, requests=unknown), "values next above the cut points")
        above.update({key: value.value for key, value in found.items()})
    for c in numeric:
        if median:
            m = medians[c]
            out[c] = binarizer._median_conditions(c, m, above[(c, m)] if c in ends else None)[0]
        elif c in ends:
            out[c] = binarizer._gap_conditions(c, [(lo, above[(c, lo)]) for lo in ends[c]])
    return out, buckets


def _quantile_positions(total: float, levels: np.ndarray, counted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy's ``linear`` quantile at ``levels`` of ``total`` values (or of a total weight, each
    row repeated ``weight`` times): the ranks (cumulative-weight targets) below and above each
    position, and the fractions between them."""
    if counted:
        return _quantile_ranks(int(total), levels)
    position = (total - 1) * levels
    below = np.floor(position)
    return below, below + 1, position - below
