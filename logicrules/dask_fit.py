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
what to do. ``sample_weight`` is a dask Series / Array partitioned like X (rows of weight 0
are left out, as in memory); more than two classes give one rule per class
(:func:`fit_one_vs_rest_from_dask`) or a learner's native multiclass form.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets

from logicrules.distributed import import_dask
from logicrules.fca.dask_counts import delayed_parts
from logicrules.progress import pass_line

__all__ = ["begin_dask_fit", "check_dask_fit_input", "class_indices", "classes_pass", "classes_tasks",
           "dask_classes", "finish_from_counts", "fit_one_vs_rest_from_dask", "histogram_rows"]


def _as_series_or_array(y: Any, dd: Any, da: Any) -> Any:
    if isinstance(y, dd.DataFrame):
        if len(y.columns) != 1:
            raise ValueError(f"y must be a dask Series (one label per row), got a DataFrame with "
                             f"{len(y.columns)} columns")
        return y[y.columns[0]]
    if isinstance(y, da.Array) and y.ndim == 2 and y.shape[1] == 1:
        return y[:, 0]
    return y


def _labels_of(part: Any, weights: Any = None) -> tuple[np.ndarray, bool, np.ndarray]:
    """The distinct labels of a partition of y (of its rows of positive weight) in order of
    appearance, whether it has a missing one, and its weights' ``[rows, sum, min, max, bad]``
    (``bad``: a negative or non-finite weight)."""
    values = pd.Series(np.asarray(part))
    stats = np.array([len(values), 0.0, np.inf, 0.0, 0.0])
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(values),):
            raise ValueError(f"a partition of y has {len(values)} labels but its sample_weight {w.shape[0]} "
                             "weights: partition them alike")
        stats = np.array([w.size, w.sum(), w.min(initial=np.inf), w.max(initial=0.0),
                          float(not (np.isfinite(w) & (w >= 0)).all())])
        values = values[w > 0]
    missing = bool(values.isna().any())
    return np.asarray(pd.unique(values.dropna())), missing, stats


def dask_classes(y: Any, what: str = "y", weights: Any = None) -> tuple[Any, np.ndarray, np.ndarray]:
    """The sorted distinct labels of a dask Series / 1-D Array (one pass, over the rows of
    positive weight), y itself (a one-column DataFrame as its column), and the labels in order
    of first appearance; missing labels raise a ValueError naming ``what``, and so do weights
    that are negative, not finite, or out of the bounds of the in-memory fit."""
    import dask

    y, tasks, finish = classes_tasks(y, what, weights)
    return (y, *finish(dask.compute(*tasks)))


def classes_tasks(y: Any, what: str = "y", weights: Any = None) -> tuple[Any, list[Any], Callable]:
    """:func:`dask_classes` in two halves, so that its pass can be shared with another: returns
    y (a one-column DataFrame as its column), the delayed per-partition label summaries to
    compute, and ``finish(computed) -> (classes, appearance)``, which checks them."""
    import dask

    da, dd = import_dask()
    y = _as_series_or_array(y, dd, da)
    if not isinstance(y, (dd.Series, da.Array)) or y.ndim != 1:
        raise TypeError(f"with a dask X, {what} must be a dask Series or 1-D dask Array partitioned like X "
                        f"(e.g. a column of the same DataFrame), got {type(y).__name__}")
    parts = delayed_parts(y)
    if weights is None:
        weight_parts = [None] * len(parts)
    else:
        weights = _as_series_or_array(weights, dd, da)
        if not isinstance(weights, (dd.Series, da.Array)) or weights.ndim != 1:
            raise TypeError(f"with a dask X, sample_weight must be a dask Series or 1-D dask Array partitioned "
                            f"like X, got {type(weights).__name__}")
        if isinstance(weights, da.Array) and isinstance(y, da.Array):
            weights = weights.rechunk((y.chunks[0],)) if weights.shape == y.shape else weights
        weight_parts = delayed_parts(weights)
        if len(weight_parts) != len(parts):
            raise ValueError(f"y has {len(parts)} partitions but sample_weight {len(weight_parts)}: partition "
                             "them alike (e.g. take both from the same DataFrame as X)")
    tasks = [dask.delayed(_labels_of, pure=True)(part, w) for part, w in zip(parts, weight_parts)]
    return y, tasks, functools.partial(_classes_from, what=what, weighted=weights is not None)


def _classes_from(found: Sequence[tuple], what: str, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """The sorted classes and the labels in order of appearance from the partitions' summaries
    (:func:`_labels_of`), checked."""
    from logicrules.base import _WEIGHT_BOUNDS

    if any(missing for _, missing, _ in found):
        raise ValueError(f"{what} contains missing values (NaN or None); drop those rows or fill the labels")
    if weighted:
        stats = np.array([s for _, _, s in found])
        total, largest = stats[:, 1].sum(), stats[:, 3].max(initial=0.0)
        if stats[:, 4].any():
            raise ValueError("sample_weight must be finite and non-negative")
        if total > _WEIGHT_BOUNDS[1] or 0 < largest < _WEIGHT_BOUNDS[0]:
            raise ValueError(f"sample_weight must sum to at most {_WEIGHT_BOUNDS[1]:.0e} with a largest weight of "
                             f"at least {_WEIGHT_BOUNDS[0]:.0e} (got sum {total:.3g}, largest {largest:.3g}); "
                             "multiply or divide the weights by a constant")
    appearance = pd.unique(np.concatenate([values for values, _, _ in found]))
    classes = np.unique(np.asarray(appearance))
    check_classification_targets(classes)
    return classes, np.asarray(appearance)


def _class_index(part: Any, classes: np.ndarray) -> Any:
    """The class index (position in the sorted ``classes``) of every label of a partition."""
    index = np.searchsorted(classes, np.asarray(part)).astype(np.intp)
    return pd.Series(index, index=part.index) if isinstance(part, pd.Series) else index


def class_indices(y: Any, classes: np.ndarray) -> Any:
    """The lazy class index of every label of a dask Series / Array, partitioned like it."""
    _, dd = import_dask()
    if isinstance(y, dd.Series):
        return y.map_partitions(_class_index, classes, meta=(y.name, np.intp))
    return y.map_blocks(_class_index, classes, dtype=np.intp)


def check_dask_fit_input(estimator: Any, X: Any, y: Any, sample_weight: Any = None
                         ) -> tuple[Any, Any, Any, np.ndarray]:
    """Check a dask X, y and weights, find the classes (one pass over y and the weights) and set
    the estimator's ``classes_``, ``pos_label_`` (two classes), ``n_features_in_`` (and
    ``feature_names_in_``), as the in-memory fit does; rows of weight 0 do not count.

    Returns
    -------
    X, target, weights, first
        X unchanged; the lazy target partitioned like y: the boolean ``y == pos_label_`` for two
        classes, the class index (in ``classes_``) for more; the weights (None without); and the
        class indices in order of first appearance in y (the tie rules' order).
    """
    import dask

    tasks, finish, _ = begin_dask_fit(estimator, X, y, sample_weight)
    return finish(dask.compute(*tasks))


def classes_pass(estimator: Any, tasks: Sequence[Any], finish: Callable) -> tuple[Any, Any, Any, np.ndarray]:
    """The pass of :func:`begin_dask_fit`'s label summaries on its own, finished: ``(X, target,
    weights, first)``; one line on stderr with the estimator's ``verbose`` (which
    :func:`check_dask_fit_input` does not print)."""
    import dask

    start = time.perf_counter()
    found = dask.compute(*tasks)
    pass_line(int(getattr(estimator, "verbose", 0) or 0), f"dask pass: classes over {len(tasks)} partitions",
              time.perf_counter() - start)
    return finish(found)


def begin_dask_fit(estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> tuple[list[Any], Callable, Any]:
    """:func:`check_dask_fit_input` in two halves, so that the pass over y can be shared with the
    first pass over X (e.g. the binarizer's column summaries: a pass that needs y and X produces
    a partition once): the input is checked now; returns the delayed label summaries,
    ``finish(computed) -> (X, target, weights, first)``, which checks them and sets the
    estimator's classes, and the weights (a one-column DataFrame as its column; None without)."""
    da, dd = import_dask()
    name = type(estimator).__name__
    if not isinstance(X, (dd.DataFrame, da.Array)) or X.ndim != 2:
        raise TypeError(f"{name}.fit on dask data needs X as a dask DataFrame or a 2-D dask Array, got "
                        f"{type(X).__name__}")
    y, tasks, classes_of = classes_tasks(y, weights=sample_weight)
    if sample_weight is not None:
        sample_weight = _as_series_or_array(sample_weight, dd, da)

    def finish(found: Sequence[tuple]) -> tuple[Any, Any, Any, np.ndarray]:
        classes, appearance = classes_of(found)
        return _set_classes(estimator, X, y, sample_weight, classes, appearance)

    return tasks, finish, sample_weight


def _set_classes(estimator: Any, X: Any, y: Any, sample_weight: Any, classes: np.ndarray,
                 appearance: np.ndarray) -> tuple[Any, Any, Any, np.ndarray]:
    """The second half of :func:`check_dask_fit_input`, once the classes are known."""
    _, dd = import_dask()
    name = type(estimator).__name__
    if classes.size < 2:
        raise ValueError(f"y contains one class only ({classes[0] if classes.size else 'none'}); {name} "
                         "needs at least two classes to learn a rule")
    estimator.classes_ = classes
    columns = list(X.columns) if isinstance(X, dd.DataFrame) else None
    estimator.n_features_in_ = len(columns) if columns is not None else int(X.shape[1])
    if columns is not None and all(isinstance(c, str) for c in columns):
        estimator.feature_names_in_ = np.asarray(columns, dtype=object)
    else:
        estimator.__dict__.pop("feature_names_in_", None)
    first = np.searchsorted(classes, appearance)
    if classes.size > 2:
        if getattr(estimator, "pos_label", None) is not None:
            raise ValueError(f"pos_label={estimator.pos_label!r} names the class of a two-class rule, but y has "
                             f"{classes.size} classes (one rule per class is learned); leave pos_label=None, or "
                             "binarize y yourself (y == label)")
        return X, class_indices(y, classes), sample_weight, first
    estimator.pos_label_ = estimator._resolve_pos_label()
    return X, y == estimator.pos_label_, sample_weight, first


def histogram_rows(counts: Any, columns: list[str], names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                                 np.ndarray]:
    """The rows a fit from counts stands for: one per (type, class) with rows in the type
    histogram of ``columns``: ``(Xb, class index, rows, weight)`` (the weight equals the rows
    when the counts are unweighted; otherwise the rows come from an unweighted pass)."""
    histogram = counts.type_histogram(list(columns))
    cls, types = np.nonzero(histogram.counts)
    Xb = np.zeros((types.size, len(names)), dtype=bool)
    Xb[:, list(histogram.columns)] = histogram.patterns[types]
    weight = histogram.counts[cls, types]
    rows = weight
    if counts.weighted:  # the same types (the rows of positive weight), counted one each
        plain = counts.unweighted().type_histogram(list(columns))
        at = np.searchsorted(plain.keys, histogram.keys[types])
        rows = plain.counts[cls, at]
    return Xb, cls, rows, weight


def finish_from_counts(estimator: Any, formula: Any, names: list[str], counts: Any,
                       columns: list[str] | None = None, conditions: dict | None = None) -> None:
    """``_finish_fit`` from counts: the formula's statistics from the type histogram of its
    attributes (or of ``columns`` when they hold them: a histogram counted already), as the
    in-memory fit computes them from the rows (identical ``rules_`` and ``cell_counts_``; with
    weights ``cell_counts_`` weighted and ``rules_`` in rows, as in memory). ``conditions``: the
    literals' conditions of a per-class rule (see ``_finish_fit``)."""
    used = sorted(set(formula.attributes), key=names.index)
    if columns is None or not set(used) <= set(columns):
        columns = used
    Xb, cls, rows, weight = histogram_rows(counts, list(columns), names)
    estimator._finish_fit(formula, names, Xb, cls.astype(bool), conditions=conditions, row_counts=weight)
    if counts.weighted:
        estimator.rules_ = estimator._rules_frame(Xb, cls.astype(bool), rows)


def fit_one_vs_rest_from_dask(estimator: Any, target: Any, names: list[str],
                              fit_class: Callable[[Any, int], None]) -> None:
    """More than two classes from dask: one rule per class against all others, as
    ``_fit_one_vs_rest`` in memory (each class's copy of the learner, on the binarized
    attributes, in ``estimators_``). ``fit_class(sub, k)`` fits the copy ``sub`` (binarizer
    ``"passthrough"``, its classes ``[False, True]`` set) to ``target == k`` from dask counts
    and finishes it with the parent's conditions. A ``class_weight`` dict is not passed on: as in
    memory, ``fit_class`` weighs each row by the cost of its class instead."""
    from sklearn.base import clone

    own = estimator.get_params(deep=False)
    params = {k: v for k, v in (("binarizer", "passthrough"), ("pos_label", True), ("categorical", None),
                                ("verbose", 0)) if k in own}
    if isinstance(own.get("class_weight"), dict):  # fit_class folds the costs into the row weights
        params["class_weight"] = None
    estimator.estimators_ = {}
    for k, label in enumerate(estimator.classes_.tolist()):
        sub = clone(estimator).set_params(**params)
        sub.classes_, sub.pos_label_ = np.array([False, True]), True
        sub.n_features_in_, sub.feature_names_in_ = len(names), np.asarray(names, dtype=object)
        sub.binarizer_ = None
        fit_class(sub, k)
        estimator.estimators_[label] = sub
    estimator.__dict__.pop("_budget", None)
    estimator.attribute_names_ = list(names)
    estimator.raw_formula_ = {label: sub.raw_formula_ for label, sub in estimator.estimators_.items()}
    estimator.formula_ = {label: sub.formula_ for label, sub in estimator.estimators_.items()}
    estimator.rules_ = estimator._per_class(lambda label: estimator.estimators_[label].rules_)
