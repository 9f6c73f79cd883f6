"""Compiled row scans of the group-testing LP (numba): greedy dual fill, per-row maxima, products.

The scans read a 0/1 matrix either dense (``bool``, one byte per cell, C order) or as the
``indptr`` / ``indices`` of a CSR matrix. Each scan is written once, over the true columns of one
row at a time; only :func:`_row_columns`, which lists them, depends on the storage (numba compiles
one version of a scan per storage). The greedy fill is sequential by definition (each row's
decision changes the slack the next row sees), so it is a compiled loop rather than array code.

A storage is passed as the pair ``(A, indices)``: ``(dense bool matrix, empty int array)`` or
``(indptr, indices)`` of a CSR matrix (:func:`storage`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

__all__ = ["fill", "rmatvec", "row_reduce", "storage"]


def storage(A) -> tuple[np.ndarray, np.ndarray, int]:
    """The arguments ``(data, indices, n_columns)`` of the scans for a dense bool or CSR matrix."""
    if hasattr(A, "indptr"):
        return A.indptr, A.indices, int(A.shape[1])
    return np.ascontiguousarray(A), np.zeros(0, dtype=np.int32), int(A.shape[1])


def _row_columns(data, indices, k, out):  # pragma: no cover - replaced by the overload below
    """Write the true columns of row k into ``out``; return how many."""
    raise NotImplementedError


@overload(_row_columns, jit_options={"cache": True})
def _row_columns_impl(data, indices, k, out):  # pragma: no cover - compiled
    if isinstance(data, types.Array) and data.ndim == 2:
        def dense(data, indices, k, out):
            count = 0
            for j in range(data.shape[1]):
                if data[k, j]:
                    out[count] = j
                    count += 1
            return count
        return dense

    def csr(data, indices, k, out):
        count = 0
        for t in range(data[k], data[k + 1]):
            out[count] = indices[t]
            count += 1
        return count
    return csr


@njit(cache=True, nogil=True)
def fill(data, indices, n_columns, slack, mu, rows, caps, tol, fractional):  # pragma: no cover - compiled
    """Greedy dual fill over the rows ``rows`` of a 0/1 matrix, row k capped at ``caps[k]``
    (mu, slack updated in place)."""
    columns = np.empty(n_columns, dtype=np.int64)
    for r in range(rows.size):
        k = rows[r]
        cap = caps[k]
        room = cap - mu[k]
        if room <= tol:
            continue
        count = _row_columns(data, indices, k, columns)
        tight = np.inf
        for t in range(count):
            if slack[columns[t]] < tight:
                tight = slack[columns[t]]
        if fractional:
            step = min(room, tight)
            if step > tol:
                mu[k] += step
                for t in range(count):
                    slack[columns[t]] -= step
        elif tight >= room - tol:
            mu[k] = cap
            for t in range(count):
                slack[columns[t]] -= room


@njit(cache=True, nogil=True)
def row_reduce(data, indices, n_rows, n_columns, w, maximum):  # pragma: no cover - compiled
    """Per row, over its true columns: the largest ``w_j`` (``maximum``; ``-inf`` on an empty row)
    or their sum (``A @ w``)."""
    columns = np.empty(n_columns, dtype=np.int64)
    out = np.empty(n_rows)
    for i in range(n_rows):
        count = _row_columns(data, indices, i, columns)
        value = -np.inf if maximum else 0.0
        for t in range(count):
            if maximum:
                value = max(value, w[columns[t]])
            else:
                value += w[columns[t]]
        out[i] = value
    return out


@njit(cache=True, nogil=True)
def rmatvec(data, indices, n_rows, n_columns, u):  # pragma: no cover - compiled
    """``A.T @ u``: per column, the sum of ``u_i`` over the rows true on it."""
    columns = np.empty(n_columns, dtype=np.int64)
    out = np.zeros(n_columns)
    for i in range(n_rows):
        if u[i] == 0.0:
            continue
        count = _row_columns(data, indices, i, columns)
        for t in range(count):
            out[columns[t]] += u[i]
    return out
