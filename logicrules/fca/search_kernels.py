"""Compiled inner loops of the optimal premise search (numba).

The premise search spends all its time in two loops that NumPy cannot express without
materializing billions of intermediate values:

* :func:`scan_triples` visits every triple of attributes ``a < b < c``, counts the rows of
  ``a AND b AND c`` among positives and negatives with a hardware popcount, recovers the 8 cells
  of the triple's truth table by inclusion-exclusion from single and pair counts, and keeps the
  triple when the best read-once formula over it reaches a *linear* score threshold
  (``alpha * tp + beta * fp >= threshold``). The best formula of each family has a closed form
  over the 8 weighted cells, so no formula is enumerated.
* :func:`scan_extent_pairs` combines two lists of extents by AND and OR (premises of size 4 are
  ``P_1 o P_3`` and ``P_2 o P_2``), prunes a pair from its operands' counts with the exact
  rectangle bounds of the score table, and scores the survivors exactly.

Bitsets here use the search's own layout: two uint64 arrays with one row per attribute (or
extent), one over the positive objects and one over the negative objects, each padded with zero
words to a multiple of 4 words so that LLVM vectorizes the AND + popcount loops (measured: 4x
faster than one row holding both halves).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

__all__ = ["popcount_rows", "scan_extent_pairs", "scan_triples"]


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


@njit(cache=True, nogil=True)
def popcount_rows(bits):
    """Popcount of every row of ``bits`` (uint64 (k, W)) as int64 (k,)."""
    k = bits.shape[0]
    out = np.zeros(k, np.int64)
    for i in range(k):
        for w in range(bits.shape[1]):
            out[i] += _ctpop(bits[i, w])
    return out


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
    # halves by a: {0,1,2,3} / {4,5,6,7}
    s0 = w0 + w1 + w2 + w3
    s1 = tot - s0
    lo0 = min(min(w0, w1), min(w2, w3))
    lo1 = min(min(w4, w5), min(w6, w7))
    hi0 = max(max(w0, w1), max(w2, w3))
    hi1 = max(max(w4, w5), max(w6, w7))
    best = max(best, max(max(s0 - lo0, s1 - lo1), max(s0 + hi1, s1 + hi0)))
    # halves by b: {0,1,4,5} / {2,3,6,7}
    s0 = w0 + w1 + w4 + w5
    s1 = tot - s0
    lo0 = min(min(w0, w1), min(w4, w5))
    lo1 = min(min(w2, w3), min(w6, w7))
    hi0 = max(max(w0, w1), max(w4, w5))
    hi1 = max(max(w2, w3), max(w6, w7))
    best = max(best, max(max(s0 - lo0, s1 - lo1), max(s0 + hi1, s1 + hi0)))
    # halves by c: {0,2,4,6} / {1,3,5,7}
    s0 = w0 + w2 + w4 + w6
    s1 = tot - s0
    lo0 = min(min(w0, w2), min(w4, w6))
    lo1 = min(min(w1, w3), min(w5, w7))
    hi0 = max(max(w0, w2), max(w4, w6))
    hi1 = max(max(w1, w3), max(w5, w7))
    best = max(best, max(max(s0 - lo0, s1 - lo1), max(s0 + hi1, s1 + hi0)))
    return best


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


@njit(cache=True, nogil=True, parallel=True)
def scan_triples(bits_p, bits_n, alpha, beta, w_single, w_pair, w_total, threshold, negations,
                 distance, distance_const, room, a_list, cap, out_bc, out_count, out_counted):
    """Collect the triples ``(a, b, c)``, ``a < b < c``, whose best formula passes a linear test.

    A triple is kept when ``max_f alpha * tp(f) + beta * fp(f) >= threshold`` over its
    read-once formulas ``f``. Only the count ``D = alpha |abc|_pos + beta |abc|_neg`` of the
    triple needs a popcount; each weighted cell is ``D`` plus or minus weighted single and pair
    counts (inclusion-exclusion), precomputed once per threshold.

    Parameters
    ----------
    bits_p, bits_n : uint64 (m, Wp), (m, Wn)
        Attribute bitsets over the positive and over the negative objects.
    alpha, beta : float
        Weights of a positive and of a negative row.
    w_single : float64 (m,)
        ``alpha * tp(a) + beta * fp(a)``.
    w_pair : float64 (m, m)
        ``alpha * tp(a AND b) + beta * fp(a AND b)``.
    w_total : float
        ``alpha * n_pos + beta * n_neg``.
    threshold : float
        Keep a triple whose best formula's weighted count reaches it.
    negations : bool
        Formulas over literals of both polarities (64 per triple) or positive ones (8).
    distance : float64 (m, m)
        Weighted size of ``x XOR y`` (with negations, the smaller of it and ``x XOR NOT y``).
    distance_const : float64 (m,)
        Weighted distance of ``x`` to the empty set or all objects, whichever is nearer.
    room : float64 (m, m)
        ``threshold`` minus the best weighted value of a premise of size <= 2 over ``{x, y}``
        (constants included). A triple is skipped without counting when one of its attributes
        lies nearer than ``room`` of the other two to one of them or to a constant: substituting
        it gives a premise over two attributes, which changes the value by at most that distance
        (exact pruning, see ``_Search._proximity_pruning``).
    a_list : int64 (k,)
        First attributes of the triples to scan (all ``b > a``, ``c > b`` are visited).
    cap : int
        Room per ``a`` in ``out_bc``.
    out_bc : int32 (k, cap, 2)
        Receives ``(b, c)`` of the kept triples of ``a_list[i]`` in ``out_bc[i]``.
    out_count : int64 (k,)
        Receives the number of kept triples per ``a`` (may exceed ``cap``: overflow).
    out_counted : int64 (k,)
        Receives the number of triples per ``a`` that survived the pruning and were counted.
    """
    m = bits_p.shape[0]
    wp = bits_p.shape[1]
    wn = bits_n.shape[1]
    for i in prange(a_list.shape[0]):
        a = a_list[i]
        count = 0
        counted = 0
        ab_p = np.empty(wp, np.uint64)
        ab_n = np.empty(wn, np.uint64)
        cs = np.empty(m, np.int64)
        d = np.empty(m, np.float64)
        best = np.empty(m, np.float64)
        wa = w_single[a]
        for b in range(a + 1, m):
            dab = distance[a, b]
            da = min(dab, distance_const[a])
            db = min(dab, distance_const[b])
            room_ab = room[a, b]
            # the c's worth a popcount
            k = 0
            for c in range(b + 1, m):
                dac = distance[a, c]
                dbc = distance[b, c]
                if min(min(dac, dbc), distance_const[c]) < room_ab:
                    continue
                if min(db, dbc) < room[a, c]:
                    continue
                if min(da, dac) < room[b, c]:
                    continue
                cs[k] = c
                k += 1
            if k == 0:
                continue
            counted += k
            for w in range(wp):
                ab_p[w] = bits_p[a, w] & bits_p[b, w]
            for w in range(wn):
                ab_n[w] = bits_n[a, w] & bits_n[b, w]
            wb = w_single[b]
            wab = w_pair[a, b]
            rest = w_total - wa - wb + wab
            # three simple loops (count, closed form, collect) vectorize better than one
            for j in range(k):
                c = cs[j]
                d[j] = alpha * _count_and(ab_p, bits_p[c]) + beta * _count_and(ab_n, bits_n[c])
            for j in range(k):
                c = cs[j]
                dd = d[j]
                wac = w_pair[a, c]
                wbc = w_pair[b, c]
                wc = w_single[c]
                # cells k = 4 va + 2 vb + vc, by inclusion-exclusion
                w7 = dd
                w6 = wab - dd
                w5 = wac - dd
                w4 = wa - wab - wac + dd
                w3 = wbc - dd
                w2 = wb - wab - wbc + dd
                w1 = wc - wac - wbc + dd
                w0 = rest - wc + wac + wbc - dd
                if negations:
                    best[j] = _best_negations(w0, w1, w2, w3, w4, w5, w6, w7)
                else:
                    best[j] = _best_positive(w0, w1, w2, w3, w4, w5, w6, w7)
            for j in range(k):
                if best[j] >= threshold:
                    if count < cap:
                        out_bc[i, count, 0] = b
                        out_bc[i, count, 1] = cs[j]
                    count += 1
        out_count[i] = count
        out_counted[i] = counted


@njit(cache=True, nogil=True, parallel=True)
def scan_extent_pairs(left_p, left_n, right_p, right_n, tp_l, fp_l, tp_r, fp_r, triangle, table, prefix_max,
                      suffix_max, threshold, i_list, cap, out_j, out_op, out_score, out_count,
                      out_counted):
    """Score ``left[i] AND right[j]`` and ``left[i] OR right[j]`` above a threshold, exactly.

    ``left_p``/``left_n`` (``right_p``/``right_n``) hold the extents' bits over the positive and
    negative objects.

    ``table[tp, fp]`` is the objective; ``prefix_max[tp, fp]`` (``suffix_max``) its maximum over
    all ``tp' <= tp, fp' <= fp`` (``>=``). An AND has ``tp <= min`` and ``fp <= min`` of its
    operands' counts, an OR ``>= max``, so a pair is skipped without counting when the table's
    best value in that rectangle does not exceed ``threshold``: exact pruning for any objective.
    With ``triangle`` only ``j > i`` is visited (left and right are the same list).
    Kept pairs of ``i_list[k]``: ``out_j[k, :count]``, ``out_op`` (0 AND, 1 OR), ``out_score``;
    ``out_count[k]`` may exceed ``cap`` (overflow); ``out_counted[k]`` is the number of pairs
    that survived the bounds and were counted.
    """
    n_right = right_p.shape[0]
    for k in prange(i_list.shape[0]):
        i = i_list[k]
        count = 0
        counted = 0
        start = i + 1 if triangle else 0
        tpi = tp_l[i]
        fpi = fp_l[i]
        for j in range(start, n_right):
            tpj = tp_r[j]
            fpj = fp_r[j]
            and_ok = prefix_max[min(tpi, tpj), min(fpi, fpj)] > threshold
            or_ok = suffix_max[max(tpi, tpj), max(fpi, fpj)] > threshold
            if not (and_ok or or_ok):
                continue
            counted += 1
            t_and = _count_and(left_p[i], right_p[j])
            f_and = _count_and(left_n[i], right_n[j])
            if and_ok:
                score = table[t_and, f_and]
                if score > threshold:
                    if count < cap:
                        out_j[k, count] = j
                        out_op[k, count] = 0
                        out_score[k, count] = score
                    count += 1
            if or_ok:
                t_or = tpi + tpj - t_and
                f_or = fpi + fpj - f_and
                score = table[t_or, f_or]
                if score > threshold:
                    if count < cap:
                        out_j[k, count] = j
                        out_op[k, count] = 1
                        out_score[k, count] = score
                    count += 1
        out_count[k] = count
        out_counted[k] = counted
