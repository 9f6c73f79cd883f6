"""The ideal method's two binarizations: one fitted on the training part, one on all rows.

Step 2 fits the binarizer on the training part only (the validation rows must not shape the
cuts the search is validated on) and binarizes every row with it; step 6 refits it on all
training data, so the attributes chosen in the first binarization are mapped onto the second
(:func:`map_features`): a median or quantile threshold moves with the refit.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import has_fit_parameter

from logicrules.memory import MemoryBudget

__all__ = ["fit_on_training_part", "map_features"]


def _nbytes(X: Any) -> int:
    """Bytes of a table's values (an array's buffer, a DataFrame's columns)."""
    if hasattr(X, "memory_usage"):
        return int(X.memory_usage(index=False, deep=False).sum())
    return int(np.asarray(X).nbytes)


def _rows(X: Any, index: np.ndarray) -> Any:
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


def fit_on_training_part(binarizer: Any, X: Any, valid: np.ndarray, w: np.ndarray | None,
                         budget: MemoryBudget) -> Any:
    """Fit ``binarizer`` on the training part of ``X`` (the rows outside ``valid``) and return it.

    The training part is selected by weights 0 / 1 (the built-in binarizers leave rows of
    weight 0 out; the median binarizer reads a numeric table in row chunks, so no row is
    copied); a binarizer without ``sample_weight`` is fitted on a copy of the training rows. What
    the fit needs is checked against ``budget`` first.

    Parameters
    ----------
    binarizer : transformer
        An unfitted binarizer (:func:`~logicrules.base.make_binarizer`).
    X : DataFrame or ndarray of shape (n, m)
        The raw training data.
    valid : ndarray of bool, shape (n,)
        The validation rows.
    w : ndarray of float, shape (n,), optional
        Row weights (``sample_weight``).
    budget : MemoryBudget
        The fit's memory budget.

    Returns
    -------
    transformer
        ``binarizer``, fitted.
    """
    train_w = np.where(valid, 0.0, 1.0 if w is None else w)
    n, n_columns = X.shape
    weighted = has_fit_parameter(binarizer, "sample_weight")
    frame = X if hasattr(X, "dtypes") else pd.DataFrame(X, copy=False)
    chunked = weighted and hasattr(binarizer, "_fits_by_column_stats") \
        and binarizer._fits_by_column_stats(frame, train_w)
    if chunked:  # row positions, the values in the median brackets, chunk temporaries
        need = 8 * n + n * n_columns / 4 + 48 * n_columns * (1 << 16)
    else:  # a copy of the training rows, then a fit one column at a time (64 bytes per row)
        need = _nbytes(X) * float((~valid).mean()) + n * (64 + n_columns)
    budget.require(need, f"fitting {type(binarizer).__name__} on the training part ({n} rows x "
                         f"{n_columns} columns{'' if chunked else ', copied'})", "use fewer rows")
    if weighted:
        binarizer.fit(X, sample_weight=train_w)
    else:
        binarizer.fit(_rows(X, np.flatnonzero(~valid)))
    return binarizer


def map_features(stage: Any, final: Any, features: list[str], final_names: list[str]) -> list[str]:
    """Names in the final binarization of the attributes chosen in the validation stage.

    A median (or quantile) threshold moves when the binarizer is refitted on all training data,
    so attributes are matched by their :class:`~logicrules.fca.scaling.Condition`: same column and operator, same value
    for categorical / binary conditions, and for thresholds the same direction (``>`` or ``>=``
    versus ``<`` or ``<=``: the median binarizer cuts a column whose median is its maximum as
    ``x >= median``) and the same rank among that column's thresholds (or the nearest threshold
    when their number changed). Without ``conditions_`` names are matched as they are.

    Parameters
    ----------
    stage, final : transformer or None
        The binarizer fitted on the training part, and the one refitted on all training data.
    features : list of str
        Attributes chosen in the stage binarization.
    final_names : list of str
        The attributes of the final binarization.

    Returns
    -------
    list of str
        The counterparts in ``final_names``, in the order of ``features`` (repeats and attributes
        without a counterpart left out, the latter with a warning).
    """
    final_set = set(final_names)
    stage_conditions = getattr(stage, "conditions_", None)
    final_conditions = getattr(final, "conditions_", None)
    if stage_conditions is None or final_conditions is None:
        missing = [f for f in features if f not in final_set]
        if missing:
            raise ValueError(f"selected attributes {missing} are not produced by the refitted binarizer")
        return list(features)
    by_name = {c.name: c for c in stage_conditions}
    direction = {">": ">", ">=": ">", "<": "<", "<=": "<"}

    def kind(c):
        return c.column, direction.get(c.op, c.op)

    mapped = []
    for name in features:
        cond = by_name[name]
        same = [c for c in final_conditions if kind(c) == kind(cond)]
        if cond.op in ("==", "!=", "is true", "is missing"):
            match = [c for c in same if c.value == cond.value]
        else:
            stage_same = [c for c in stage_conditions if kind(c) == kind(cond)]
            if len(same) == len(stage_same) and same:
                match = [same[stage_same.index(cond)]]
            else:
                match = sorted(same, key=lambda c: abs(float(c.value) - float(cond.value)))[:1]
        if not match or match[0].name not in final_set:
            warnings.warn(f"attribute {name!r} has no counterpart after refitting the binarizer on all "
                          "training data; it is left out of the final formula", UserWarning, stacklevel=3)
            continue
        if match[0].name not in mapped:
            mapped.append(match[0].name)
    return mapped
