"""Fitting from dask collections: the steps every learner shares.

A learner's ``fit(X, y)`` with a ``dask.dataframe.DataFrame`` (or a 2-D ``dask.array.Array``) X
and a dask Series (or 1-D array) y partitioned alike reads the data only through counts over
partitions (:class:`~logicrules.fca.dask_counts.DaskCounts`) and binarizers fitted from
distributed statistics (:mod:`logicrules.fca.dask_scaling`); X is never materialized. This
module holds the shared steps: checking the input and finding the classes (one pass over y),
and storing the rule's training statistics (``rules_``, ``cell_counts_``) from the type
histogram of the formula's attributes (one pass), as the in-memory fit stores them from rows.

A learner supports dask input by overriding ``_fit_dask(X, y, sample_weight)`` (see
:class:`~logicrules.base.RuleClassifier`); the others refuse it with a TypeError that says
what to do. Two-class targets only; ``sample_weight`` is not supported on dask input.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets

from logicrules.distributed import import_dask

__all__ = ["check_dask_fit_input", "finish_from_counts"]


def _as_series_or_array(y: Any, dd: Any, da: Any) -> Any:
    if isinstance(y, dd.DataFrame):
        if len(y.columns) != 1:
            raise ValueError(f"y must be a dask Series (one label per row), got a DataFrame with "
                             f"{len(y.columns)} columns")
        return y[y.columns[0]]
    if isinstance(y, da.Array) and y.ndim == 2 and y.shape[1] == 1:
        return y[:, 0]
    return y


def _labels_of(part: Any) -> tuple[np.ndarray, bool]:
    """The distinct labels of a partition of y, and whether it has a missing one."""
    values = pd.Series(np.asarray(part))
    missing = bool(values.isna().any())
    return np.asarray(pd.unique(values.dropna())), missing


def check_dask_fit_input(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, Any]:
    """Check a dask X and y, find the classes (one pass over y) and set the estimator's
    ``classes_``, ``pos_label_``, ``n_features_in_`` (and ``feature_names_in_``).

    Returns
    -------
    X, target
        X unchanged, and the lazy boolean target ``y == pos_label_`` partitioned like y.
    """
    import dask

    da, dd = import_dask()
    name = type(estimator).__name__
    if not isinstance(X, (dd.DataFrame, da.Array)) or X.ndim != 2:
        raise TypeError(f"{name}.fit on dask data needs X as a dask DataFrame or a 2-D dask Array, got "
                        f"{type(X).__name__}")
    y = _as_series_or_array(y, dd, da)
    if not isinstance(y, (dd.Series, da.Array)) or y.ndim != 1:
        raise TypeError(f"with a dask X, y must be a dask Series or 1-D dask Array partitioned like X "
                        f"(e.g. a column of the same DataFrame), got {type(y).__name__}")
    if sample_weight is not None:
        raise TypeError(f"{name}.fit does not accept sample_weight with dask input; fit on data in "
                        "memory for weighted rows")
    parts = y.to_delayed() if isinstance(y, dd.Series) else y.to_delayed().ravel()
    labels = dask.compute(*[dask.delayed(_labels_of, pure=True)(part) for part in parts])
    if any(missing for _, missing in labels):
        raise ValueError("y contains missing values (NaN or None); drop those rows or fill the labels")
    distinct = pd.unique(np.concatenate([values for values, _ in labels]))
    classes = np.unique(np.asarray(distinct))
    check_classification_targets(classes)
    if classes.size < 2:
        raise ValueError(f"y contains one class only ({classes[0] if classes.size else 'none'}); {name} "
                         "needs at least two classes to learn a rule")
    if classes.size > 2:
        raise ValueError(f"y has {classes.size} classes; fitting from dask data learns two-class rules "
                         "only: binarize y yourself (y == label) for one rule per class")
    estimator.classes_ = classes
    estimator.pos_label_ = estimator._resolve_pos_label()
    columns = list(X.columns) if isinstance(X, dd.DataFrame) else None
    estimator.n_features_in_ = len(columns) if columns is not None else int(X.shape[1])
    if columns is not None and all(isinstance(c, str) for c in columns):
        estimator.feature_names_in_ = np.asarray(columns, dtype=object)
    else:
        estimator.__dict__.pop("feature_names_in_", None)
    return X, y == estimator.pos_label_


def finish_from_counts(estimator: Any, formula: Any, names: list[str], counts: Any,
                       columns: list[str] | None = None) -> None:
    """``_finish_fit`` from counts: the formula's statistics from the type histogram of its
    attributes (or of ``columns`` when they hold them: a histogram counted already), as the
    in-memory fit computes them from the rows (identical ``rules_`` and ``cell_counts_``)."""
    used = sorted(set(formula.attributes), key=names.index)
    if columns is None or not set(used) <= set(columns):
        columns = used
    histogram = counts.type_histogram(list(columns))
    # one row per (type, class) with rows, standing for that many identical training rows
    patterns = histogram.patterns
    cls, types = np.nonzero(histogram.counts)
    Xb = np.zeros((types.size, len(names)), dtype=bool)
    Xb[:, list(histogram.columns)] = patterns[types]
    estimator._finish_fit(formula, names, Xb, cls.astype(bool), row_counts=histogram.counts[cls, types])
