"""Passes over 0/1 rows packed one bit per cell (``uint8``, little-endian), without unpacking.

The m-of-n row generation (:mod:`logicrules.lp.mofn_rows`) reads all rows twice per round: the
products ``a_i w`` and, for the row groups it forms, the weighted sums ``sum_g c_i a_i``. Both
run here over the packed bytes, one compiled pass each:

- :func:`packed_scores`: a table of the 256 partial sums of ``w`` per byte position, so a row's
  product is one table look-up per byte (``ceil(n / 8)`` additions instead of ``n``);
  :func:`packed_scores_columns` the same for several w at once (the dask m-of-n pass replays
  every earlier round's w), with no BLAS call, so no threads spinning in a busy worker;
- :func:`packed_group_sums`: each row adds its cost to the columns of its set bits in its
  group's row of the output (no ``bool`` copy of the rows).

Memory: the output only (``u`` floats, or ``groups x n`` floats) and the ``ceil(n / 8) x 256``
table.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["packed_scores", "packed_scores_columns", "packed_group_sums"]

#: ``_BITS[v, t]``: bit t of the byte value v.
_BITS = ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1).astype(np.float64)


def packed_scores(packed: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``a_i w`` (float64) for every packed row ``a_i`` of ``packed`` (shape ``(u, ceil(n / 8))``).

    Examples
    --------
    >>> packed = np.packbits(np.array([[1, 0, 1], [0, 1, 1]], dtype=bool), axis=1, bitorder="little")
    >>> packed_scores(packed, np.array([0.5, 0.25, 1.0])).tolist()
    [1.5, 1.25]
    """
    return _scores(np.ascontiguousarray(packed), _table(w, packed.shape[1]))


def packed_scores_columns(packed: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``a_i W`` (float64, shape ``(u, k)``) for every packed row and the k columns of ``W``
    (shape ``(n, k)``): column j equals :func:`packed_scores` with ``W[:, j]``, bit for bit.

    Examples
    --------
    >>> packed = np.packbits(np.array([[1, 0, 1], [0, 1, 1]], dtype=bool), axis=1, bitorder="little")
    >>> packed_scores_columns(packed, np.array([[0.5, 1.0], [0.25, 1.0], [1.0, 0.0]])).tolist()
    [[1.5, 1.0], [1.25, 1.0]]
    """
    n_bytes, k = packed.shape[1], W.shape[1]
    tables = np.zeros((n_bytes, 256, k))
    for j in range(k):   # one table per w (k is small: the rounds of a fit)
        tables[:, :, j] = _table(W[:, j], n_bytes)
    return _scores_columns(np.ascontiguousarray(packed), tables)


def _table(w: np.ndarray, n_bytes: int) -> np.ndarray:
    """``table[b, v]``: the sum of ``w`` over the set bits of byte value v at byte position b."""
    padded = np.zeros(n_bytes * 8)
    padded[:w.size] = w
    return np.ascontiguousarray((_BITS @ padded.reshape(n_bytes, 8).T).T)  # (bytes, 256)


def packed_group_sums(packed: np.ndarray, index: np.ndarray, group: np.ndarray, coef: np.ndarray,
                      n_groups: int, n_attributes: int) -> np.ndarray:
    """``S[g] = sum coef[i] * a_i`` over the rows ``index`` of ``packed`` in group ``g``
    (``group`` and ``coef`` aligned with ``index``); shape ``(n_groups, n_attributes)``.

    Examples
    --------
    >>> packed = np.packbits(np.array([[1, 0, 1], [0, 1, 1]], dtype=bool), axis=1, bitorder="little")
    >>> packed_group_sums(packed, np.array([0, 1]), np.array([0, 0]), np.array([2.0, 1.0]), 1, 3).tolist()
    [[2.0, 1.0, 3.0]]
    """
    out = np.zeros((n_groups, packed.shape[1] * 8))
    _group_sums(np.ascontiguousarray(packed), np.asarray(index, dtype=np.intp), np.asarray(group, dtype=np.intp),
                np.asarray(coef, dtype=np.float64), out)
    return out[:, :n_attributes]


@njit(cache=True, nogil=True)
def _scores(packed, table):  # pragma: no cover - compiled
    out = np.empty(packed.shape[0])
    for i in range(packed.shape[0]):
        s = 0.0
        for b in range(packed.shape[1]):
            s += table[b, packed[i, b]]
        out[i] = s
    return out


@njit(cache=True, nogil=True)
def _scores_columns(packed, tables):  # pragma: no cover - compiled
    k = tables.shape[2]
    out = np.zeros((packed.shape[0], k))
    for i in range(packed.shape[0]):
        for b in range(packed.shape[1]):
            t = tables[b, packed[i, b]]
            for j in range(k):
                out[i, j] += t[j]
    return out


@njit(cache=True, nogil=True)
def _group_sums(packed, index, group, coef, out):  # pragma: no cover - compiled
    for k in range(index.size):
        i, g, c = index[k], group[k], coef[k]
        for b in range(packed.shape[1]):
            v = packed[i, b]
            if v:
                for t in range(8):
                    if (v >> t) & 1:
                        out[g, 8 * b + t] += c
