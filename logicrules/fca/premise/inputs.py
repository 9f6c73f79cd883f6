"""Checks of the arguments of the premise search: data, target, weights, connectives, time limit."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from logicrules.fca.premise.space import CONNECTIVES
from logicrules.validation import as_boolean_matrix, as_boolean_target

__all__: list[str] = []


def _parse_connectives(connectives: Any) -> tuple[str, ...]:
    """``("and", "or")``, ``("and",)`` or ``("or",)`` from a name or a sequence of names."""
    names = (connectives,) if isinstance(connectives, str) else connectives
    try:
        chosen = {str(c).strip().lower() for c in names}
    except TypeError:
        chosen = None
    if not chosen or not chosen <= set(CONNECTIVES):
        raise ValueError(f"connectives must be 'and', 'or' or both (e.g. ('and',) for conjunctions only), "
                         f"got {connectives!r}")
    return tuple(c for c in CONNECTIVES if c in chosen)


def _parse_time_limit(time_limit: Any) -> float | None:
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.integer, np.floating)) \
            or not time_limit > 0 or not np.isfinite(time_limit):
        raise ValueError(f"time_limit must be a positive finite number of seconds or None, got {time_limit!r}")
    return float(time_limit)


def _as_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Checked float64 row weights (None stays None)."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be an array of non-negative numbers, one per row of X") from None
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have one weight per row of X: shape ({n},), got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must hold finite non-negative numbers (rows of weight 0 are left out)")
    if not (w > 0).any():
        raise ValueError("sample_weight is zero on every row; at least one row needs a positive weight")
    return w


def _as_inputs(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, list]:
    """Boolean matrix, boolean target and the attribute keys formulas should use."""
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got a sparse array of shape {X.shape}")
        X = X.toarray()               # 0/1 values are checked below; the search packs them into bits
    if hasattr(X, "bits") and hasattr(X, "attributes") and hasattr(X, "to_dense"):
        matrix = np.asarray(X.to_dense(), dtype=bool)
        keys: list = [str(a) for a in X.attributes]
    elif hasattr(X, "columns") and hasattr(X, "iloc"):
        keys = [str(c) for c in X.columns]
        if len(set(keys)) != len(keys):
            raise ValueError("X has duplicate column names; formulas could not name attributes")
        matrix = as_boolean_matrix(X.to_numpy(), labels=keys)
    else:
        matrix = as_boolean_matrix(X)
        keys = list(range(matrix.shape[1]))
    return matrix, as_boolean_target(y, matrix.shape[0]), keys
