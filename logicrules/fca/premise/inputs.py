"""Checks of the arguments of the premise search: data, target, weights, connectives, time limit.

:func:`_search_arguments` checks what the in-memory search and the search over counts share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from logicrules.fca.premise.results import PremiseSearchMemoryError
from logicrules.fca.premise.preparation import PackedColumns
from logicrules.fca.premise.space import CONNECTIVES
from logicrules.memory import parse_memory
from logicrules.metrics import Objective, get_objective
from logicrules.validation import as_boolean_matrix, as_boolean_target

__all__: list[str] = []


@dataclass(frozen=True)
class _SearchArguments:
    """The checked arguments both premise searches share (:func:`_search_arguments`)."""

    max_size: int
    objective: Objective
    top_k: int
    negations: bool
    memory: int
    connectives: tuple[str, ...]
    size_cost: float


def _check_max_size(max_size: Any) -> int:
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or not 1 <= max_size <= 4:
        raise ValueError(f"max_size must be an integer from 1 to 4, got {max_size!r}")
    return int(max_size)


def _search_arguments(max_size: Any, objective: Any, top_k: Any, negations: Any, memory_limit: Any,
                      min_support: Any, connectives: Any, size_cost: Any) -> _SearchArguments:
    """Checked ``max_size``, objective (with ``min_support``), ``top_k``, ``negations``, memory
    limit, connectives and ``size_cost`` of a premise search, or a ValueError naming the bad one."""
    max_size = _check_max_size(max_size)
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
        raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
    if not isinstance(negations, (bool, np.bool_)):
        raise ValueError(f"negations must be True or False, got {negations!r}")
    memory = parse_memory(memory_limit)
    obj = get_objective(objective, min_support=min_support or None)
    connectives = _parse_connectives(connectives)
    if isinstance(size_cost, bool) or not isinstance(size_cost, (int, float, np.integer, np.floating)) \
            or not np.isfinite(size_cost):
        raise ValueError(f"size_cost must be a finite number (score lost per literal), got {size_cost!r}")
    return _SearchArguments(max_size, obj, int(top_k), bool(negations), memory, connectives, float(size_cost))


def _no_premise_error(args: _SearchArguments) -> ValueError:
    """The error of a search in which no premise has a finite score."""
    obj = args.objective
    return ValueError(f"no premise of size <= {args.max_size} has a finite {obj.name} score"
                      + (f" (min_support={obj.min_support} may exceed what any premise covers)" if obj.min_support
                         else ""))


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


_CONVERT_BYTES = 8 * 2**20     # largest working memory of one block converted to bool (a sixteenth of the limit)


def _as_bool(X: Any, labels: list | None, memory: int | None) -> np.ndarray:
    """``X`` (a 2-D array or a scipy sparse matrix) as a bool array: itself when it is one, else
    one bool copy (``n m`` bytes, checked against ``memory`` first) filled a block of rows at a
    time, so the conversion and its 0/1 check never hold a float copy of the whole input."""
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        if X.dtype == bool:
            return X
    elif X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got a sparse array of shape {X.shape}")
    else:
        X = X.tocsr()
    n, m = X.shape
    _check_copy(n * m, f"X is not a bool array: its bool copy ({n} x {m} bytes)", memory)
    out = np.empty((n, m), dtype=bool)
    step = max(1, _convert_bytes(memory) // (16 * max(m, 1)))      # rows: a float64 copy, 0/1 checks
    for start in range(0, n, step):
        block = X[start:start + step]
        out[start:start + step] = as_boolean_matrix(block.toarray() if sp.issparse(block) else block, labels=labels)
    return out


def _as_inputs(X: Any, y: Any, memory: int | None = None,
               weighted: bool = False) -> tuple[np.ndarray | PackedColumns, np.ndarray, list]:
    """Boolean matrix (or packed columns), boolean target and the attribute keys formulas should use.

    A bool ndarray is used in place, a FormalContext's bits too (as :class:`PackedColumns`,
    unless ``weighted``: the weighted packing reorders rows and reads a bool array); any other
    input is converted to one bool copy a block at a time (:func:`_as_bool`), refused with
    :class:`PremiseSearchMemoryError` when that copy alone exceeds ``memory``.
    """
    if hasattr(X, "bits") and hasattr(X, "attributes") and hasattr(X, "to_dense"):
        keys: list = [str(a) for a in X.attributes]
        if not weighted:
            matrix = PackedColumns(np.asarray(X.bits), int(X.n_objects))
            return matrix, as_boolean_target(y, matrix.shape[0]), keys
        _check_copy(X.n_objects * len(X.attributes), "the context's dense bool copy (for sample_weight)", memory)
        matrix = np.asarray(X.to_dense(), dtype=bool)
    elif hasattr(X, "columns") and hasattr(X, "iloc"):
        keys = [str(c) for c in X.columns]
        if len(set(keys)) != len(keys):
            raise ValueError("X has duplicate column names; formulas could not name attributes")
        n, m = X.shape
        _check_copy(n * m, "the DataFrame's bool copy", memory)
        matrix = np.empty((n, m), dtype=bool)
        step = max(1, _convert_bytes(memory) // (24 * max(n, 1)))  # columns: a frame, an array, 0/1 checks
        for j0 in range(0, m, step):
            matrix[:, j0:j0 + step] = as_boolean_matrix(X.iloc[:, j0:j0 + step].to_numpy(), labels=keys[j0:j0 + step])
    else:
        matrix = _as_bool(X, None, memory)
        keys = list(range(matrix.shape[1]))
    return matrix, as_boolean_target(y, matrix.shape[0]), keys


def _convert_bytes(memory: int | None) -> int:
    return _CONVERT_BYTES if memory is None else max(2**16, min(_CONVERT_BYTES, memory // 16))


def _check_copy(nbytes: int, what: str, memory: int | None) -> None:
    if memory is not None and nbytes > memory:
        raise PremiseSearchMemoryError(
            f"{what} needs {nbytes / 1e9:.3g} GB, more than memory_limit={memory / 1e9:.3g} GB; pass X as a bool "
            "ndarray (read in place, never copied), or raise memory_limit")
