"""Checks shared by the estimators and by every function that takes a binarized matrix.

The learners' cores work on boolean matrices; a float, integer or object array of 0/1 values is
accepted too, but anything else (a 2, a NaN, a string) is a user error that must be named here,
with the offending columns, rather than surface as a wrong count deep inside a kernel.

Estimator parameters are declared in scikit-learn's ``_parameter_constraints`` style
(:mod:`sklearn.utils._param_validation`) and checked when ``fit`` starts; :class:`Interval`
here is scikit-learn's interval that a bool never satisfies, so ``max_clauses=True`` is an
error rather than 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval as _SklearnInterval

__all__ = ["Interval", "as_boolean_matrix", "as_boolean_target", "check_count", "check_seed"]


class Interval(_SklearnInterval):
    """scikit-learn's numeric interval constraint, never satisfied by a bool.

    ``True`` is an :class:`numbers.Integral` to Python, so scikit-learn's own interval would
    take ``max_clauses=True`` as 1; a parameter declared with this one rejects it with the usual
    ``InvalidParameterError`` naming the parameter.

    Examples
    --------
    >>> from numbers import Integral
    >>> positive = Interval(Integral, 1, None, closed="left")
    >>> positive.is_satisfied_by(3), positive.is_satisfied_by(True)
    (True, False)
    """

    def is_satisfied_by(self, val: Any) -> bool:
        if isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)


def as_boolean_matrix(X: Any, labels: Sequence[Any] | None = None, *, name: str = "X") -> np.ndarray:
    """``X`` as a 2-D bool array, or a ValueError naming the columns that are not 0/1.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Booleans, or numbers / objects equal to 0 and 1.
    labels : sequence, optional
        Column names for the error message (column positions when omitted).
    name : str, default "X"
        How the error message calls the matrix.

    Returns
    -------
    ndarray of bool
        ``X`` itself when it already is a bool array (no copy), else a new array.

    Examples
    --------
    >>> as_boolean_matrix([[0, 1], [1.0, 0.0]]).tolist()
    [[False, True], [True, False]]
    """
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {array.shape}")
    if array.dtype == bool:
        return array
    try:
        values = array.astype(np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None:
        bad = [j for j in range(array.shape[1]) if not pd.Series(array[:, j]).isin([0, 1, True, False]).all()]
    else:
        bad = np.flatnonzero((~np.isin(values, (0.0, 1.0))).any(axis=0)).tolist()
    if bad:
        names = [str(labels[j]) if labels is not None else j for j in bad[:10]]
        raise ValueError(
            f"{name} must be boolean (0/1); columns with other values or NaN: {names}"
            f"{' ...' if len(bad) > 10 else ''}; binarize raw data first (logicrules.fca.scaling)"
        )
    return values.astype(bool) if values is not None else array.astype(bool)


def as_boolean_target(y: Any, n: int | None = None) -> np.ndarray:
    """``y`` as a 1-D bool array (True = positive), checking its length against ``n`` rows.

    Examples
    --------
    >>> as_boolean_target([0, 1, 1], 3).tolist()
    [False, True, True]
    """
    target = np.asarray(y)
    if target.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {target.shape}")
    if n is not None and len(target) != n:
        raise ValueError(f"X has {n} rows but y has {len(target)} entries")
    if target.dtype == bool:
        return target
    try:
        values = target.astype(np.float64)
    except (TypeError, ValueError):
        values = np.array([np.nan])
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError(
            "y must be boolean or 0/1 (the positive class is 1 / True, no NaN); "
            "for other labels pass y == positive_label"
        )
    return values.astype(bool)


def pack_boolean_rows(X: Any, names: Sequence[str], chunk_rows: int = 1 << 16):
    """A 0/1 matrix (array or DataFrame) packed into a FormalContext, chunk by chunk.

    Each chunk of rows is checked like :func:`as_boolean_matrix` (a ValueError names the columns
    that are not 0/1) and packed, so no full boolean (or float) copy of X is made.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, m)
    names : sequence of str
        Attribute names (and the column names of error messages).
    chunk_rows : int, default 65536
        Rows per chunk (a multiple of 64).

    Returns
    -------
    FormalContext

    Examples
    --------
    >>> pack_boolean_rows([[1, 0], [1, 1]], ["a", "b"]).to_dense().tolist()
    [[True, False], [True, True]]
    """
    from logicrules.fca import bitset
    from logicrules.fca.context import FormalContext

    frame = hasattr(X, "iloc")
    if not frame:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    n, m = X.shape
    rows = max(64, chunk_rows // 64 * 64)
    bits = np.zeros((m, bitset.n_words(n)), dtype=np.uint64)
    for start in range(0, n, rows):
        chunk = X.iloc[start:start + rows].to_numpy() if frame else X[start:start + rows]
        block = as_boolean_matrix(chunk, labels=names)
        bits[:, start // 64:start // 64 + bitset.n_words(block.shape[0])] = bitset.pack_columns(block)
    return FormalContext.from_bits(bits, n, attributes=list(names),
                                   objects=X.index if frame else None)


def check_count(value: Any, name: str, minimum: int = 1) -> int:
    """``value`` as an int, or a ValueError naming ``name`` when it is no integer >= ``minimum``.

    Bools and strings are not counts (``max_clauses=True`` and ``max_m="3"`` are errors).

    Examples
    --------
    >>> check_count(3, "max_m")
    3
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def check_seed(random_state: Any) -> Any:
    """A ``random_state`` for :func:`numpy.random.default_rng`, or a ValueError naming it.

    Accepts None, an int >= 0, a numpy ``Generator``, ``BitGenerator`` or ``SeedSequence``, and
    a legacy ``RandomState`` (which scikit-learn passes), replaced by a seed drawn from it.

    Examples
    --------
    >>> check_seed(0)
    0
    """
    if random_state is None or isinstance(random_state, (np.random.Generator, np.random.BitGenerator,
                                                         np.random.SeedSequence)):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, Integral) and not isinstance(random_state, (bool, np.bool_)) and random_state >= 0:
        return random_state
    raise ValueError(f"random_state must be None, an int >= 0 or a numpy Generator, got {random_state!r}")
