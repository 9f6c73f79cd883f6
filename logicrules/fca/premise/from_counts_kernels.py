"""Compiled bounds of the premise search over counts (numba): which combinations to count.

The search from a :class:`~logicrules.fca.counts.Counts` knows the single and pair counts of
every attribute exactly (from the summed Gram matrices) and, for size 4, the 3-way counts of
every triple; the highest-order count of a combination (``|a AND b AND c|`` of a triple,
``|a AND b AND c AND d|`` of a quadruple) is unknown until the combination is counted. Every
cell of the truth table is that count plus or minus known counts (inclusion-exclusion), and
each cell is non-negative, so the unknown count lies in an interval per class; the linear value
``L = alpha tp + beta fp`` of every premise over the combination is linear in
``D = alpha t_pos + beta t_neg``, hence the best premise's value is convex in ``D`` and its
maximum over the interval is at an end. A combination is sent to be counted only when that
maximum reaches the objective's linear filter, and when the exact proximity pruning of the
in-memory search (:mod:`logicrules.fca.premise.triple_scan`, ``Pruning._proximity_pruning``) does not
rule it out. The closed forms of the best premise over 8 or 16 weighted cells are the in-memory
search's own.

Combinations are numbered in the combinatorial number system (``a < b < c``: ``a + C(b, 2) +
C(c, 3)``; quadruples likewise), and a bitmap of those already counted lets later rounds skip
them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from logicrules.fca.premise.closed_forms import (
    _best_cell16,
    _best_repeat_triple,
    _best_triple,
    _mobius,
    best_read_once4,
)
from logicrules.fca.premise.quadruple_scan import _fourth_skipped
from logicrules.fca.premise.triple_scan import _pair_skipped, _third_skipped

__all__ = ["bound_quadruples", "bound_triples", "combination_index"]


@njit(cache=True, nogil=True, inline="always")
def _index3(a, b, c):
    return a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6


@njit(cache=True, nogil=True, inline="always")
def _index4(a, b, c, d):
    return a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6 + d * (d - 1) * (d - 2) * (d - 3) // 24


def combination_index(combos: np.ndarray) -> np.ndarray:
    """Combinatorial-number-system index of sorted rows ``a < b < c (< d)``, int64.

    Examples
    --------
    >>> combination_index(np.array([[0, 1, 2], [0, 1, 3], [1, 2, 3]])).tolist()
    [0, 1, 3]
    """
    combos = np.asarray(combos, dtype=np.int64)
    out = np.zeros(len(combos), dtype=np.int64)
    for j in range(combos.shape[1]):
        k = j + 1
        num = np.ones(len(combos), dtype=np.int64)
        for i in range(k):
            num *= combos[:, j] - i
        den = 1
        for i in range(1, k + 1):
            den *= i
        out += num // den
    return out


@njit(cache=True, nogil=True, inline="always")
def _done(bitmap, index):
    return (bitmap[index >> 3] >> (index & 7)) & 1


@njit(cache=True, nogil=True, inline="always")
def _interval3(ta, tb, tc, ab, ac, bc, total):
    """Range of ``|a AND b AND c|`` keeping the 8 cells of one class non-negative."""
    lo = max(max(0.0, ab + ac - ta), max(ab + bc - tb, ac + bc - tc))
    hi = min(min(ab, ac), min(bc, total - ta - tb - tc + ab + ac + bc))
    return lo, max(lo, hi)


@njit(cache=True, nogil=True, inline="always")
def _value_range(alpha, lo_p, hi_p, beta, lo_n, hi_n):
    """Least and greatest ``alpha t_p + beta t_n`` over the box of the two counts."""
    d_lo = min(alpha * lo_p, alpha * hi_p) + min(beta * lo_n, beta * hi_n)
    d_hi = max(alpha * lo_p, alpha * hi_p) + max(beta * lo_n, beta * hi_n)
    return d_lo, d_hi


@njit(cache=True, nogil=True, parallel=True)
def bound_triples(tp, fp, pair_p, pair_n, n_pos, n_neg, alpha, beta, w_single, w_pair, w_total, threshold,
                  negations, mode, elim, elim_t, elim_const, room, least_room, done, a_list, cap,
                  out_bc, out_value, out_count):
    """Triples ``a < b < c`` (not yet counted) whose best premise may reach ``threshold``.

    ``tp``, ``fp``, ``pair_p``, ``pair_n``: float64 single and pair counts per class;
    ``w_*``: their linear values ``alpha tp + beta fp`` (``w_total`` of all rows);
    ``elim``, ``elim_t``, ``elim_const``, ``room``, ``least_room``: the proximity bounds of
    ``scan_triples`` (same skips); ``done``: uint8 bitmap of counted triples. For ``a_list[i]``
    the kept ``(b, c)`` and their bounds go to ``out_bc[i]``, ``out_value[i]`` (at most ``cap``;
    ``out_count[i]`` may exceed it: overflow, the caller retries with more room).
    """
    m = tp.shape[0]
    for i in prange(a_list.shape[0]):
        a = a_list[i]
        count = 0
        wa = w_single[a]
        for b in range(a + 1, m):
            skip, da, db = _pair_skipped(a, b, elim, elim_const, least_room)
            if skip:
                continue
            room_ab = room[a, b]
            wb = w_single[b]
            wab = w_pair[a, b]
            for c in range(b + 1, m):
                if _third_skipped(a, b, c, da, db, room_ab, elim, elim_t, elim_const, room):
                    continue
                if _done(done, _index3(a, b, c)):
                    continue
                lo_p, hi_p = _interval3(tp[a], tp[b], tp[c], pair_p[a, b], pair_p[a, c], pair_p[b, c], n_pos)
                lo_n, hi_n = _interval3(fp[a], fp[b], fp[c], pair_n[a, b], pair_n[a, c], pair_n[b, c], n_neg)
                best = -np.inf
                for dd in _value_range(alpha, lo_p, hi_p, beta, lo_n, hi_n):
                    best = max(best, _best_triple(dd, wa, wb, w_single[c], wab, w_pair[a, c], w_pair[b, c], w_total,
                                                  negations, mode))
                if best >= threshold:
                    if count < cap:
                        out_bc[i, count, 0] = b
                        out_bc[i, count, 1] = c
                        out_value[i, count] = best - threshold
                    count += 1
        out_count[i] = count


@njit(cache=True, nogil=True, inline="always")
def _known_cells(f, single, pair, triple, total, a, b, c, d):
    """The 16 cells of one class with ``|abcd| = 0`` (cell ``k = 8 va + 4 vb + 2 vc + vd``)."""
    f[0] = total
    f[8] = single[a]
    f[4] = single[b]
    f[2] = single[c]
    f[1] = single[d]
    f[12] = pair[a, b]
    f[10] = pair[a, c]
    f[9] = pair[a, d]
    f[6] = pair[b, c]
    f[5] = pair[b, d]
    f[3] = pair[c, d]
    f[14] = triple[_index3(a, b, c)]
    f[13] = triple[_index3(a, b, d)]
    f[11] = triple[_index3(a, c, d)]
    f[7] = triple[_index3(b, c, d)]
    f[15] = 0.0
    _mobius(f, 4)


@njit(cache=True, nogil=True, inline="always")
def _interval4(f, sign):
    """Range of ``|abcd|`` keeping the cells ``f + sign |abcd|`` of one class non-negative."""
    lo = 0.0
    hi = np.inf
    for k in range(16):
        if sign[k] > 0:
            lo = max(lo, -f[k])
        else:
            hi = min(hi, f[k])
    return lo, max(lo, hi)


@njit(cache=True, nogil=True, inline="always")
def _best4(f, threshold, negations, mode, half_idx, pair_idx):
    """Best premise of 4 literals allowed by ``mode`` over 16 weighted cells (-inf when their positive sum,
    a bound on every premise, is below ``threshold``)."""
    positive = 0.0
    for k in range(16):
        positive += max(f[k], 0.0)
    if positive < threshold:
        return -np.inf
    if mode == 0:
        return best_read_once4(f, negations, half_idx, pair_idx)
    return _best_cell16(f, negations, mode)


@njit(cache=True, nogil=True, parallel=True)
def bound_quadruples(tp, fp, pair_p, pair_n, t3_p, t3_n, n_pos, n_neg, alpha, beta, w_single, w_pair, w_total,
                     threshold, negations, mode, half_idx, pair_idx, rep_cells, elim, elim_t, elim_const, slack,
                     done, a_list, cap, out_q, out_value, out_count):
    """Quadruples ``a < b < c < d`` (not yet counted) whose best read-once premise may reach ``threshold``.

    As :func:`bound_triples` with the 3-way counts ``t3_p``, ``t3_n`` (float64, by
    :func:`combination_index`) known and ``|a AND b AND c AND d|`` bounded; the proximity
    pruning is that of ``scan_quadruples`` (without the per-triple rooms): ``d`` or ``c``
    replaced by another attribute of the four or a constant gives a premise over three
    attributes, bounded by the best function of ``rep_cells`` over them.
    """
    m = tp.shape[0]
    sign = np.empty(16)
    for k in range(16):
        ones = 0
        for j in range(4):
            ones += (k >> j) & 1
        sign[k] = 1.0 if (4 - ones) % 2 == 0 else -1.0
    for i in prange(a_list.shape[0]):
        a = a_list[i]
        f_p = np.empty(16)
        f_n = np.empty(16)
        f = np.empty(16)
        g = np.empty(8)
        room_ab = np.empty(m)
        least_room_ab = np.empty(m + 1)
        count = 0
        wa = w_single[a]
        for b in range(a + 1, m):
            wb = w_single[b]
            wab = w_pair[a, b]
            for c in range(b + 1, m):
                m3 = _best_repeat_triple(g, wa, wb, w_single[c], wab, w_pair[a, c], w_pair[b, c],
                                         alpha * t3_p[_index3(a, b, c)] + beta * t3_n[_index3(a, b, c)], w_total,
                                         rep_cells, threshold)
                room_ab[c] = threshold - max(m3, max(0.0, w_total)) - slack
            least_room_ab[m] = np.inf
            for c in range(m - 1, b, -1):
                least_room_ab[c] = min(least_room_ab[c + 1], room_ab[c])
            for c in range(b + 1, m - 1):
                room = room_ab[c]
                near_c = min(min(elim[c, a], elim[c, b]), elim_const[c])
                if near_c < least_room_ab[c + 1]:
                    continue
                for d in range(c + 1, m):
                    if _fourth_skipped(a, b, c, d, near_c, room, room_ab, elim, elim_t, elim_const):
                        continue
                    if _done(done, _index4(a, b, c, d)):
                        continue
                    _known_cells(f_p, tp, pair_p, t3_p, n_pos, a, b, c, d)
                    _known_cells(f_n, fp, pair_n, t3_n, n_neg, a, b, c, d)
                    lo_p, hi_p = _interval4(f_p, sign)
                    lo_n, hi_n = _interval4(f_n, sign)
                    best = -np.inf
                    for dd in _value_range(alpha, lo_p, hi_p, beta, lo_n, hi_n):
                        for k in range(16):
                            f[k] = alpha * f_p[k] + beta * f_n[k] + sign[k] * dd
                        best = max(best, _best4(f, threshold, negations, mode, half_idx, pair_idx))
                    if best >= threshold:
                        if count < cap:
                            out_q[i, count, 0] = b
                            out_q[i, count, 1] = c
                            out_q[i, count, 2] = d
                            out_value[i, count] = best - threshold
                        count += 1
        out_count[i] = count
