"""Compiled row scans of the group-testing LP (numba): greedy dual fill and per-row maxima.

Both scans read a 0/1 matrix either dense (``bool``, one byte per cell, C order) or as the
``indptr`` / ``indices`` of a CSR matrix. The greedy fill is sequential by definition (each row's
decision changes the slack the next row sees), so it is a compiled loop rather than array code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["fill_dense", "fill_csr", "row_max_dense", "row_max_csr"]


@njit(cache=True, nogil=True)
def fill_dense(A, slack, mu, rows, caps, tol, fractional):  # pragma: no cover - compiled
    """Greedy dual fill over the rows ``rows`` of a dense bool matrix, row k capped at ``caps[k]``
    (mu, slack updated in place)."""
    n = A.shape[1]
    for r in range(rows.size):
        k = rows[r]
        cap = caps[k]
        room = cap - mu[k]
        if room <= tol:
            continue
        tight = np.inf
        for j in range(n):
            if A[k, j] and slack[j] < tight:
                tight = slack[j]
        if fractional:
            step = min(room, tight)
            if step > tol:
                mu[k] += step
                for j in range(n):
                    if A[k, j]:
                        slack[j] -= step
        elif tight >= room - tol:
            mu[k] = cap
            for j in range(n):
                if A[k, j]:
                    slack[j] -= room


@njit(cache=True, nogil=True)
def fill_csr(indptr, indices, slack, mu, rows, caps, tol, fractional):  # pragma: no cover - compiled
    """:func:`fill_dense` on a CSR pattern."""
    for r in range(rows.size):
        k = rows[r]
        cap = caps[k]
        room = cap - mu[k]
        if room <= tol:
            continue
        tight = np.inf
        for t in range(indptr[k], indptr[k + 1]):
            if slack[indices[t]] < tight:
                tight = slack[indices[t]]
        if fractional:
            step = min(room, tight)
            if step > tol:
                mu[k] += step
                for t in range(indptr[k], indptr[k + 1]):
                    slack[indices[t]] -= step
        elif tight >= room - tol:
            mu[k] = cap
            for t in range(indptr[k], indptr[k + 1]):
                slack[indices[t]] -= room


@njit(cache=True, nogil=True)
def row_max_dense(A, w):  # pragma: no cover - compiled
    """Per row, the largest ``w_j`` over its true columns (``-inf`` on an empty row)."""
    p, n = A.shape
    out = np.full(p, -np.inf)
    for i in range(p):
        best = -np.inf
        for j in range(n):
            if A[i, j] and w[j] > best:
                best = w[j]
        out[i] = best
    return out


@njit(cache=True, nogil=True)
def row_max_csr(indptr, indices, w):  # pragma: no cover - compiled
    """:func:`row_max_dense` on a CSR pattern."""
    p = indptr.size - 1
    out = np.full(p, -np.inf)
    for i in range(p):
        best = -np.inf
        for t in range(indptr[i], indptr[i + 1]):
            if w[indices[t]] > best:
                best = w[indices[t]]
        out[i] = best
    return out
