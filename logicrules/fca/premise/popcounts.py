"""Popcounts of packed bitsets in compiled code (numba): plain, weighted, and the pair (Gram) counts.

Bitsets use the premise search's layout (:mod:`logicrules.fca.premise.space`): uint64 rows,
one per attribute, over the objects of one class; with row weights the words come in groups of
equal weight (``seg`` word bounds, ``wseg`` weights), and a weighted count is the sum over
groups of the weight times the group's exact integer popcount. The helpers here are inlined
into the scans of :mod:`~logicrules.fca.premise.triple_scan` and
:mod:`~logicrules.fca.premise.quadruple_scan`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

__all__ = ["pair_counts", "popcount_rows"]


@intrinsic
def _ctpop(typingctx, x):
    """LLVM ``ctpop`` on a uint64 (one POPCNT instruction on x86-64)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def _count_and(x, y):
    """Popcount of ``x & y`` (two uint64 rows of equal length)."""
    total = 0
    for w in range(x.shape[0]):
        total += _ctpop(x[w] & y[w])
    return total


@njit(cache=True, nogil=True, inline="always")
def _wcount_and(x, y, seg, wseg):
    """Weighted popcount of ``x & y``: ``sum_g wseg[g] * popcount(words seg[g] .. seg[g + 1] - 1)``.

    Rows are packed in groups of equal weight (:func:`logicrules.fca.premise.space.prepare_attributes`);
    each group's popcount is an exact integer, multiplied by its weight once and summed in group
    order (unweighted: one group of weight 1, the plain popcount).
    """
    total = 0.0
    for g in range(wseg.shape[0]):  # a group's words as slices: the plain popcount loop, vectorized
        total += wseg[g] * _count_and(x[seg[g]:seg[g + 1]], y[seg[g]:seg[g + 1]])
    return total


@njit(cache=True, nogil=True)
def popcount_rows(bits):
    """Popcount of every row of ``bits`` (uint64 (k, W)) as int64 (k,)."""
    k = bits.shape[0]
    out = np.zeros(k, np.int64)
    for i in range(k):
        for w in range(bits.shape[1]):
            out[i] += _ctpop(bits[i, w])
    return out


@njit(cache=True, nogil=True, parallel=True)
def pair_counts(bits, seg, wseg, weighted, out):
    """``out[a, b] = |a AND b|`` for all attributes (weighted as :func:`_wcount_and` with ``weighted``).

    The Gram matrix of the packed rows ``bits`` (k, W) by popcounts: ``k (k + 1) / 2`` AND +
    popcount passes over the words, no unpacking; ``out`` is (k, k), integer or float64.
    """
    k = bits.shape[0]
    for a in prange(k):
        for b in range(a, k):
            if weighted:
                v = _wcount_and(bits[a], bits[b], seg, wseg)
            else:
                v = _count_and(bits[a], bits[b])
            out[a, b] = v
            out[b, a] = v
