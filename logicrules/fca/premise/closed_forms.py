"""Closed forms of the best premise over a truth table of weighted cells (numba, inlined by the scans).

A premise over ``k`` distinct attributes holds on a union of the ``2**k`` cells of their truth
table, so its linear value ``alpha tp + beta fp`` is the sum of the weighted cells it covers.
The best value over every read-once premise of 3 literals (8 cells) or 4 literals (16 cells),
or over conjunctions / disjunctions only, has a closed form over the cells: no premise is
enumerated. :func:`_mobius` turns the weighted counts of the attribute subsets' intersections
into the cells (inclusion-exclusion).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["best_read_once4"]


@njit(cache=True, nogil=True, inline="always")
def _best_half_split(a0, a1, a2, a3, b0, b1, b2, b3, tot):
    """Best of ``x AND (y OR z)`` and ``x OR (y AND z)`` shapes for one split into halves.

    ``a*`` are the four cells of one half (``x`` false, say) and ``b*`` of the other: a half
    minus its worst cell, or a half plus the best cell of the other half.
    """
    s0 = a0 + a1 + a2 + a3
    s1 = tot - s0
    lo0 = min(min(a0, a1), min(a2, a3))
    lo1 = min(min(b0, b1), min(b2, b3))
    hi0 = max(max(a0, a1), max(a2, a3))
    hi1 = max(max(b0, b1), max(b2, b3))
    return max(max(s0 - lo0, s1 - lo1), max(s0 + hi1, s1 + hi0))


@njit(cache=True, nogil=True, inline="always")
def _best_negations(w0, w1, w2, w3, w4, w5, w6, w7):
    """Best weighted sum over the 64 read-once formulas of 3 literals (any polarity).

    Cell ``k = 4 va + 2 vb + vc``. AND-AND selects one cell, OR-OR all but one, ``x AND (y OR
    z)`` a half (``x`` or ``NOT x``) minus one of its cells, ``x OR (y AND z)`` a half plus one
    cell of the other half.
    """
    tot = w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7
    mx = max(max(max(w0, w1), max(w2, w3)), max(max(w4, w5), max(w6, w7)))
    mn = min(min(min(w0, w1), min(w2, w3)), min(min(w4, w5), min(w6, w7)))
    best = max(mx, tot - mn)
    best = max(best, _best_half_split(w0, w1, w2, w3, w4, w5, w6, w7, tot))  # halves by a
    best = max(best, _best_half_split(w0, w1, w4, w5, w2, w3, w6, w7, tot))  # halves by b
    best = max(best, _best_half_split(w0, w2, w4, w6, w1, w3, w5, w7, tot))  # halves by c
    return best


@njit(cache=True, nogil=True, inline="always")
def _best_repeat_shape(g, rep_cells, threshold):
    """Best weighted sum over the shapes ``rep_cells`` (r, 8) of the 8 weighted cells ``g``.

    When the sum of the positive cells (a bound on every shape) is already below
    ``threshold``, that bound is returned instead: it is all the callers need then.
    """
    bound = 0.0
    for k in range(8):
        if g[k] > 0:
            bound += g[k]
    if bound < threshold:
        return bound
    best = -np.inf
    for r in range(rep_cells.shape[0]):
        total = 0.0
        for k in range(8):
            total += rep_cells[r, k] * g[k]
        best = max(best, total)
    return best


@njit(cache=True, nogil=True, inline="always")
def _best_cell(w0, w1, w2, w3, w4, w5, w6, w7):
    """Best conjunction of 3 literals of any polarity: the heaviest of the 8 cells."""
    return max(max(max(w0, w1), max(w2, w3)), max(max(w4, w5), max(w6, w7)))


@njit(cache=True, nogil=True, inline="always")
def _best_positive(w0, w1, w2, w3, w4, w5, w6, w7):
    """Best weighted sum over the 8 read-once formulas of 3 positive literals."""
    a_and = w5 + w6 + w7        # a AND (b OR c)
    b_and = w3 + w6 + w7        # b AND (a OR c)
    c_and = w3 + w5 + w7        # c AND (a OR b)
    tot = w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7
    best = max(w7, tot - w0)
    best = max(best, max(a_and, max(b_and, c_and)))
    best = max(best, max(w4 + w5 + w6 + w7 + w3, w2 + w3 + w6 + w7 + w5))   # a OR bc, b OR ac
    best = max(best, w1 + w3 + w5 + w7 + w6)                                # c OR ab
    return best


@njit(cache=True, nogil=True, inline="always")
def _best3(w0, w1, w2, w3, w4, w5, w6, w7, negations, mode):
    """Best weighted sum over the premises of 3 literals allowed by ``mode``.

    ``mode`` 0: every read-once premise (64 with negations, 8 positive ones); 1: conjunctions
    only (one cell, ``a AND b AND c`` alone without negations); 2: disjunctions only (all cells
    but one).
    """
    if mode == 1:
        return _best_cell(w0, w1, w2, w3, w4, w5, w6, w7) if negations else w7
    if mode == 2:
        tot = w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7
        worst = min(min(min(w0, w1), min(w2, w3)), min(min(w4, w5), min(w6, w7))) if negations else w0
        return tot - worst
    if negations:
        return _best_negations(w0, w1, w2, w3, w4, w5, w6, w7)
    return _best_positive(w0, w1, w2, w3, w4, w5, w6, w7)


@njit(cache=True, nogil=True, inline="always")
def _best_triple(dd, wa, wb, wc, wab, wac, wbc, w_total, negations, mode):
    """:func:`_best3` of a triple from its weighted count ``dd = alpha |abc|_pos + beta |abc|_neg``.

    ``wa``.. are the weighted single and pair counts and ``w_total`` that of all rows; the 8
    cells ``k = 4 va + 2 vb + vc`` follow by inclusion-exclusion.
    """
    rest = w_total - wa - wb + wab
    return _best3(rest - wc + wac + wbc - dd, wc - wac - wbc + dd, wb - wab - wbc + dd, wbc - dd,
                  wa - wab - wac + dd, wac - dd, wab - dd, dd, negations, mode)


@njit(cache=True, nogil=True, inline="always")
def _mobius(f, n):
    """In place: ``f[U]`` = weight of the subsets' intersection -> weight of each truth-table cell.

    On entry ``f[U]`` is the weighted count of the rows having every variable of ``U`` (bit set)
    and ``f[0]`` the total; on exit ``f[U]`` is the weighted count of the cell where exactly the
    variables of ``U`` are true (inclusion-exclusion, ``n`` variables, ``2^n`` entries).
    """
    size = 1 << n
    bit = 1
    while bit < size:
        for u in range(size):
            if (u & bit) == 0:
                f[u] -= f[u | bit]
        bit <<= 1


@njit(cache=True, nogil=True, inline="always")
def _best_repeat_triple(g, wa, wb, wc, wab, wac, wbc, wabc, w_total, rep_cells, threshold):
    """:func:`_best_repeat_shape` of a triple from its weighted counts (``g``: scratch of 8 floats).

    ``wa``.. are the weighted counts of the triple's attributes, pairs and of all three
    (``wabc``), ``w_total`` that of all rows; :func:`_mobius` gives the 8 cells.
    """
    g[0] = w_total
    g[4] = wa
    g[2] = wb
    g[1] = wc
    g[6] = wab
    g[5] = wac
    g[3] = wbc
    g[7] = wabc
    _mobius(g, 3)
    return _best_repeat_shape(g, rep_cells, threshold)


@njit(cache=True, nogil=True)
def best_read_once4(f, negations, half_idx, pair_idx):
    """Best weighted sum over the read-once premises of 4 literals over 4 variables (16 cells).

    ``f[k]``, ``k = 8 va + 4 vb + 2 vc + vd``. ``x o g`` (``g`` of size 3 over the other three):
    ``x AND g`` is the best size-3 premise on the half ``x = 1``, ``x OR g`` that whole half
    plus the best size-3 premise on the other half (and the same with ``NOT x``). ``(x o y) o
    (z o w)``: with the 4 x 4 table ``W[i, j]`` (``i`` the cell of ``(x, y)``, ``j`` of ``(z,
    w)``) an AND selects a block ``G x H`` where ``G`` and ``H`` are the cells selected by the two
    pair premises (one cell for an AND of literals, three for an OR), an OR everything but such
    a block (the complement of a one- or three-cell set is a three- or one-cell set); without
    negations ``G, H`` are ``{11}`` or ``{01, 10, 11}``.
    ``half_idx[x, v]`` lists the 8 cells with variable ``x`` equal to ``v``; ``pair_idx[p, i, j]``
    the cell of row ``i``, column ``j`` for the pairing ``p``.
    """
    tot = 0.0
    for k in range(16):
        tot += f[k]
    best = -np.inf
    for x in range(4):
        h1 = half_idx[x, 1]
        h0 = half_idx[x, 0]
        s1 = 0.0
        for k in range(8):
            s1 += f[h1[k]]
        s0 = tot - s1
        if negations:
            b1 = _best_negations(f[h1[0]], f[h1[1]], f[h1[2]], f[h1[3]], f[h1[4]], f[h1[5]], f[h1[6]], f[h1[7]])
            b0 = _best_negations(f[h0[0]], f[h0[1]], f[h0[2]], f[h0[3]], f[h0[4]], f[h0[5]], f[h0[6]], f[h0[7]])
            best = max(best, max(max(b1, b0), max(s1 + b0, s0 + b1)))
        else:
            b1 = _best_positive(f[h1[0]], f[h1[1]], f[h1[2]], f[h1[3]], f[h1[4]], f[h1[5]], f[h1[6]], f[h1[7]])
            b0 = _best_positive(f[h0[0]], f[h0[1]], f[h0[2]], f[h0[3]], f[h0[4]], f[h0[5]], f[h0[6]], f[h0[7]])
            best = max(best, max(b1, s1 + b0))
    for p in range(3):
        W = np.empty((4, 4))
        for i in range(4):
            for j in range(4):
                W[i, j] = f[pair_idx[p, i, j]]
        if negations:
            R = np.zeros(4)
            C = np.zeros(4)
            for i in range(4):
                for j in range(4):
                    R[i] += W[i, j]
                    C[j] += W[i, j]
            mx = -np.inf
            mn = np.inf
            for i in range(4):
                for j in range(4):
                    w = W[i, j]
                    v1 = R[i] - w
                    v2 = C[j] - w
                    v3 = tot - R[i] - C[j] + w
                    mx = max(mx, max(max(w, v1), max(v2, v3)))
                    mn = min(mn, min(min(w, v1), min(v2, v3)))
            best = max(best, max(mx, tot - mn))
        else:
            s_and11 = W[3, 3]
            s_and13 = W[3, 1] + W[3, 2] + W[3, 3]
            s_and31 = W[1, 3] + W[2, 3] + W[3, 3]
            s_and33 = 0.0
            s_or11 = 0.0
            for i in range(1, 4):
                for j in range(1, 4):
                    s_and33 += W[i, j]
            for i in range(3):
                for j in range(3):
                    s_or11 += W[i, j]
            s_or33 = W[0, 0]
            s_or13 = W[0, 0] + W[1, 0] + W[2, 0]
            s_or31 = W[0, 0] + W[0, 1] + W[0, 2]
            best = max(best, max(max(s_and11, s_and13), max(s_and31, s_and33)))
            best = max(best, tot - min(min(s_or11, s_or33), min(s_or13, s_or31)))
    return best


@njit(cache=True, nogil=True, inline="always")
def _best_cell16(f, negations, mode):
    """Best conjunction (``mode`` 1: one cell) or disjunction (2: all cells but one) of 4 literals."""
    if not negations:
        if mode == 1:
            return f[15]
        total = 0.0
        for k in range(16):
            total += f[k]
        return total - f[0]
    hi = -np.inf
    lo = np.inf
    total = 0.0
    for k in range(16):
        hi = max(hi, f[k])
        lo = min(lo, f[k])
        total += f[k]
    return hi if mode == 1 else total - lo
