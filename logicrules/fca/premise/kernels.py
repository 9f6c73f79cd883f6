"""Compiled inner loops of the optimal premise search (numba).

The premise search spends all its time in two loops that NumPy cannot express without
materializing billions of intermediate values:

* :func:`scan_triples` visits every triple of attributes ``a < b < c``, counts the rows of
  ``a AND b AND c`` among positives and negatives with a hardware popcount, recovers the 8 cells
  of the triple's truth table by inclusion-exclusion from single and pair counts, and keeps the
  triple when the best read-once formula over it reaches a *linear* score threshold
  (``alpha * tp + beta * fp >= threshold``). The best formula of each family has a closed form
  over the 8 weighted cells, so no formula is enumerated.
* :func:`scan_quadruples` (size 4) visits every quadruple ``a < b < c < d``: one popcount of
  ``a AND b AND c AND d`` per class and the stored 3-way counts (:func:`triple_counts`) give the
  16 weighted cells by inclusion-exclusion; the sum of the positive cells bounds every formula
  and :func:`best_read_once4` is the closed form of the best read-once formula of 4 literals.
  Premises of size 4 repeating an attribute are tested per triple. Exact proximity bounds
  (:func:`triple_rooms`) skip most quadruples before counting.
* :func:`scan_extent_pairs` combines two lists of extents by AND and OR (premises of size 4 are
  ``P_1 o P_3`` and ``P_2 o P_2``), prunes a pair from its operands' counts with exact
  rectangle bounds of the objective's linear filter and keeps the combinations passing it, for
  exact scoring (the former size-4 method, ``size4_method="extents"``).

Bitsets here use the search's own layout: two uint64 arrays with one row per attribute (or
extent), one over the positive objects and one over the negative objects, each padded with zero
words to a multiple of 4 words so that LLVM vectorizes the AND + popcount loops (measured: 4x
faster than one row holding both halves).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

__all__ = [
    "best_read_once4", "popcount_rows", "scan_extent_pairs", "scan_quadruples", "scan_triples", "triple_counts",
    "triple_offsets", "triple_rooms",
]


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
    for g in range(wseg.shape[0]):
        count = 0
        for w in range(seg[g], seg[g + 1]):
            count += _ctpop(x[w] & y[w])
        total += wseg[g] * count
    return total


@njit(cache=True, nogil=True)
def weighted_popcount_rows(bits, seg, wseg):
    """Weighted popcount (:func:`_wcount_and` of each row with itself) of ``bits`` (k, W) as float64 (k,)."""
    k = bits.shape[0]
    out = np.zeros(k, np.float64)
    for i in range(k):
        out[i] = _wcount_and(bits[i], bits[i], seg, wseg)
    return out


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


_TILE = 128    # words per tile of the size-3 counting: the tiles of every attribute stay in L2
_SCAN_BATCH = 1 << 16    # (b, c) candidates of one first attribute counted together (bounded buffers)


@njit(cache=True, nogil=True)
def _tiled_triple_counts(bits, seg, wseg, a, pair_b, pair_start, cand_c, out):
    """``out[j] += |a AND b AND c_j|`` (weighted as :func:`_wcount_and`) for the candidates of each pair.

    ``pair_b[q]`` is a second attribute whose third attributes are ``cand_c[pair_start[q]:
    pair_start[q + 1]]``. The words are visited in tiles of :data:`_TILE` words, every pair and
    candidate per tile, so the tiles of all attributes are read from cache instead of streaming
    every candidate's whole bitset from memory once per pair. Group counts are exact integers,
    multiplied by their weight once and summed in group order, as in :func:`_wcount_and`.
    """
    k = cand_c.shape[0]
    counts = np.zeros(k, np.int64)
    ab = np.empty(_TILE, np.uint64)
    row_a = bits[a]
    for g in range(wseg.shape[0]):
        counts[:] = 0
        for t0 in range(seg[g], seg[g + 1], _TILE):
            nt = min(_TILE, seg[g + 1] - t0)
            for q in range(pair_b.shape[0]):
                row_b = bits[pair_b[q]]
                for w in range(nt):
                    ab[w] = row_a[t0 + w] & row_b[t0 + w]
                for j in range(pair_start[q], pair_start[q + 1]):
                    row_c = bits[cand_c[j]]
                    total = 0
                    for w in range(nt):
                        total += _ctpop(ab[w] & row_c[t0 + w])
                    counts[j] += total
        for j in range(k):
            out[j] += wseg[g] * counts[j]


@njit(cache=True, nogil=True, inline="always")
def _keep_triples(a, pair_b, pair_start, n_pairs, cand_c, tot_p, tot_n, alpha, beta, w_single, w_pair, w_total,
                  threshold, negations, mode, i, cap, out_bc, count):
    """Closed form of the best formula of each counted triple; record those reaching ``threshold``.

    Writes ``(b, c)`` of the kept triples of ``a`` into ``out_bc[i, count:]`` (up to ``cap``) and
    returns the new ``count`` (which may exceed ``cap``: overflow).
    """
    wa = w_single[a]
    for q in range(n_pairs):
        b = pair_b[q]
        wb = w_single[b]
        wab = w_pair[a, b]
        rest = w_total - wa - wb + wab
        for j in range(pair_start[q], pair_start[q + 1]):
            c = cand_c[j]
            dd = alpha * tot_p[j] + beta * tot_n[j]
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
            if mode == 1:
                best = _best_cell(w0, w1, w2, w3, w4, w5, w6, w7) if negations else w7
            elif mode == 2:
                tot = w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7
                worst = min(min(min(w0, w1), min(w2, w3)), min(min(w4, w5), min(w6, w7))) if negations else w0
                best = tot - worst
            elif negations:
                best = _best_negations(w0, w1, w2, w3, w4, w5, w6, w7)
            else:
                best = _best_positive(w0, w1, w2, w3, w4, w5, w6, w7)
            if best >= threshold:
                if count < cap:
                    out_bc[i, count, 0] = b
                    out_bc[i, count, 1] = c
                count += 1
    return count


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


@njit(cache=True, nogil=True, parallel=True)
def scan_triples(bits_p, bits_n, seg_p, wseg_p, seg_n, wseg_n, alpha, beta, w_single, w_pair, w_total, threshold,
                 negations, mode, elim, elim_t, elim_const, room, least_room, a_list, cap, out_bc, out_count,
                 out_counted):
    """Collect the triples ``(a, b, c)``, ``a < b < c``, whose best formula passes a linear test.

    A triple is kept when ``max_f alpha * tp(f) + beta * fp(f) >= threshold`` over its
    read-once formulas ``f``. Only the count ``D = alpha |abc|_pos + beta |abc|_neg`` of the
    triple needs a popcount; each weighted cell is ``D`` plus or minus weighted single and pair
    counts (inclusion-exclusion), precomputed once per threshold.

    Parameters
    ----------
    bits_p, bits_n : uint64 (m, Wp), (m, Wn)
        Attribute bitsets over the positive and over the negative objects.
    seg_p, wseg_p, seg_n, wseg_n : int64 (G + 1,), float64 (G,)
        Weight groups of the bitsets' words (:func:`_wcount_and`; unweighted: one group of 1).
    alpha, beta : float
        Weights of a positive and of a negative row (times the row weights).
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
    mode : int
        0: every read-once formula; 1: conjunctions of 3 literals only (one cell of the truth
        table, ``a AND b AND c`` alone without negations); 2: disjunctions only (all cells but one).
    elim, elim_t : float64 (m, m)
        ``elim[x, y]``: a bound on what a premise can lose when ``x`` is replaced by ``y`` (or
        ``NOT y``) in it; ``elim_t`` is its transpose (contiguous).
    elim_const : float64 (m,)
        The same bound for ``x`` replaced by a constant.
    room : float64 (m, m)
        ``threshold`` minus the best weighted value of a premise of size <= 2 over ``{x, y}``
        (constants included). A triple is skipped without counting when replacing one of its
        attributes by one of the other two or by a constant loses less than the other two's
        ``room``: the premise over two attributes it gives is below the threshold (exact
        pruning, see ``Pruning._proximity_pruning`` in :mod:`logicrules.fca.premise.pruning`).
    least_room : float64 (m, m + 1)
        ``least_room[x, c] = min(room[x, c:])`` (inf at ``m``): all ``c`` of a pair ``(a, b)`` are
        skipped at once when ``b`` (or ``a``) can be replaced by the other or a constant whatever
        ``c`` is.
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
    for i in prange(a_list.shape[0]):
        a = a_list[i]
        # the (b, c) worth a popcount, b ascending and c ascending within b, counted in batches
        pair_b = np.empty(m, np.int64)
        pair_start = np.zeros(m + 1, np.int64)
        cand_c = np.empty(max(_SCAN_BATCH, m), np.int64)
        tot_p = np.empty(cand_c.shape[0], np.float64)
        tot_n = np.empty(cand_c.shape[0], np.float64)
        n_pairs = 0
        k = 0
        count = 0
        counted = 0
        for b in range(a + 1, m + 1):
            if b < m:
                da = min(elim[a, b], elim_const[a])       # a replaced by b or a constant
                db = min(elim[b, a], elim_const[b])
                if db < least_room[a, b + 1] or da < least_room[b, b + 1]:
                    continue
                room_ab = room[a, b]
                first = k
                for c in range(b + 1, m):
                    if min(min(elim_t[a, c], elim_t[b, c]), elim_const[c]) < room_ab:
                        continue
                    if min(db, elim[b, c]) < room[a, c]:
                        continue
                    if min(da, elim[a, c]) < room[b, c]:
                        continue
                    cand_c[k] = c
                    k += 1
                if k > first:
                    pair_b[n_pairs] = b
                    n_pairs += 1
                    pair_start[n_pairs] = k
            # count the batch when the next b could overflow it, and at the end
            if k == 0 or (b < m - 1 and k + m - b - 2 <= cand_c.shape[0]):
                continue
            counted += k
            tot_p[:k] = 0.0
            tot_n[:k] = 0.0
            _tiled_triple_counts(bits_p, seg_p, wseg_p, a, pair_b[:n_pairs], pair_start, cand_c[:k], tot_p)
            _tiled_triple_counts(bits_n, seg_n, wseg_n, a, pair_b[:n_pairs], pair_start, cand_c[:k], tot_n)
            count = _keep_triples(a, pair_b, pair_start, n_pairs, cand_c, tot_p, tot_n, alpha, beta, w_single, w_pair,
                                  w_total, threshold, negations, mode, i, cap, out_bc, count)
            n_pairs = 0
            k = 0
        out_count[i] = count
        out_counted[i] = counted


@njit(cache=True, nogil=True, parallel=True)
def scan_extent_pairs(left_p, left_n, right_p, right_n, seg_p, wseg_p, seg_n, wseg_n, tp_l, fp_l, tp_r, fp_r,
                      triangle, alpha, beta, threshold, n_pos, n_neg, i_list, cap, out_j, out_op, out_count,
                      out_counted):
    """Pairs ``left[i] AND right[j]`` and ``left[i] OR right[j]`` passing a linear test.

    ``left_p``/``left_n`` (``right_p``/``right_n``) hold the extents' bits over the positive and
    negative objects, ``tp_*``/``fp_*`` their counts. A combination is kept when ``alpha tp +
    beta fp >= threshold`` (the objective's filter: every combination that can beat the current
    threshold passes it). An AND has ``tp <= min`` and ``fp <= min`` of its operands' counts, an
    OR ``>= max`` (up to ``n_pos``, ``n_neg``), so a pair is skipped without counting when the
    largest value of the linear form over that rectangle is below ``threshold``: exact pruning.
    With ``triangle`` only ``j > i`` is visited (left and right are the same list).
    Kept pairs of ``i_list[k]``: ``out_j[k, :count]``, ``out_op`` (0 AND, 1 OR); ``out_count[k]``
    may exceed ``cap`` (overflow); ``out_counted[k]`` is the number of pairs that survived the
    bounds and were counted.
    """
    n_right = right_p.shape[0]
    pa = max(alpha, 0.0)
    pb = max(beta, 0.0)
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
            and_ok = pa * min(tpi, tpj) + pb * min(fpi, fpj) >= threshold
            t_hi = max(tpi, tpj)
            f_hi = max(fpi, fpj)
            or_ok = (alpha * n_pos if alpha > 0 else alpha * t_hi) + (beta * n_neg if beta > 0 else beta * f_hi) \
                >= threshold
            if not (and_ok or or_ok):
                continue
            counted += 1
            t_and = _wcount_and(left_p[i], right_p[j], seg_p, wseg_p)
            f_and = _wcount_and(left_n[i], right_n[j], seg_n, wseg_n)
            if and_ok and alpha * t_and + beta * f_and >= threshold:
                if count < cap:
                    out_j[k, count] = j
                    out_op[k, count] = 0
                count += 1
            if or_ok and alpha * (tpi + tpj - t_and) + beta * (fpi + fpj - f_and) >= threshold:
                if count < cap:
                    out_j[k, count] = j
                    out_op[k, count] = 1
                count += 1
        out_count[k] = count
        out_counted[k] = counted


@njit(cache=True, nogil=True, parallel=True)
def triple_counts(bits_p, bits_n, seg_p, wseg_p, seg_n, wseg_n, weighted, offsets, out_p, out_n):
    """``out[offsets[a, b] + c] = |a AND b AND c|`` over positives / negatives for ``a < b < c``.

    ``out_p``, ``out_n`` are integer arrays (float64 ``weighted`` counts, :func:`_wcount_and`) of
    ``m (m - 1) (m - 2) / 6`` entries, one per sorted triple in lexicographic order
    (:func:`triple_offsets`), so that ``c`` runs contiguously.
    """
    m = bits_p.shape[0]
    wp = bits_p.shape[1]
    wn = bits_n.shape[1]
    for a in prange(m):
        ab_p = np.empty(wp, np.uint64)
        ab_n = np.empty(wn, np.uint64)
        for b in range(a + 1, m):
            for w in range(wp):
                ab_p[w] = bits_p[a, w] & bits_p[b, w]
            for w in range(wn):
                ab_n[w] = bits_n[a, w] & bits_n[b, w]
            base = offsets[a, b]
            for c in range(b + 1, m):
                if weighted:
                    out_p[base + c] = _wcount_and(ab_p, bits_p[c], seg_p, wseg_p)
                    out_n[base + c] = _wcount_and(ab_n, bits_n[c], seg_n, wseg_n)
                else:
                    out_p[base + c] = _count_and(ab_p, bits_p[c])
                    out_n[base + c] = _count_and(ab_n, bits_n[c])


def triple_offsets(m: int) -> np.ndarray:
    """int64 (m, m): ``offsets[a, b] + c`` indexes the sorted triple ``a < b < c`` in a flat array.

    Triples are numbered lexicographically (``0, 1, 2`` first), ``m (m - 1) (m - 2) / 6`` in all:
    a sixth of an (m, m, m) array, with the same locality in ``c``. Entries with ``a >= b`` are
    meaningless.

    Examples
    --------
    >>> off = triple_offsets(4)
    >>> [int(off[a, b] + c) for a, b, c in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]]
    [0, 1, 2, 3]
    """
    row = np.maximum(m - 1 - np.arange(m, dtype=np.int64), 0)             # pairs (b, c) per b: m-1-b
    before_b = np.concatenate([[0], np.cumsum(row)])                       # sum_{b' < b} (m - 1 - b')
    per_a = (row * (row - 1)) // 2                                          # triples starting with a
    before_a = np.concatenate([[0], np.cumsum(per_a)])[:m]
    a = np.arange(m, dtype=np.int64)[:, None]
    b = np.arange(m, dtype=np.int64)[None, :]
    a1 = np.minimum(a + 1, m)
    return before_a[:, None] + before_b[b] - before_b[a1] - (b + 1)


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


@njit(cache=True, nogil=True, parallel=True)
def scan_quadruples(bits_p, bits_n, seg_p, wseg_p, seg_n, wseg_n, offsets, t_p, t_n, alpha, beta, w_single, w_pair,
                    w_total, threshold, negations, mode, half_idx, pair_idx, rep_cells, elim, elim_t, elim_const, slack,
                    rooms, row_min, use_rooms, a_list, cap,
                    out_q, out_qcount, out_t, out_tcount, out_counted):
    """Premises of size 4 passing a linear test, by attribute quadruples and triples.

    A premise of size 4 over four distinct attributes ``a < b < c < d`` is read-once; one
    popcount of ``a AND b AND c AND d`` per class, the triple counts ``t_p``/``t_n`` (flat, at
    ``offsets[x, y] + z``, from :func:`triple_counts`), pair and single weights give its 16
    weighted cells by
    inclusion-exclusion. The quadruple is skipped when the sum of its positive cells (a bound
    on every formula over it) is below ``threshold``, otherwise kept when
    :func:`best_read_once4` (``mode`` 0; 1: the best conjunction, one cell; 2: the best
    disjunction, all cells but one) reaches ``threshold``: kept ``(b, c, d)`` in ``out_q[i]``.
    Counts are weighted popcounts over the weight groups ``seg_*``/``wseg_*`` (:func:`_wcount_and`).
    A premise of size 4 over at most three distinct attributes (repeats such as ``(a AND b) OR
    (NOT a AND c)``) is one of the functions in ``rep_cells`` (float (L, 8) 0/1 cell matrix);
    triples ``a < b < c`` whose best such function reaches ``threshold`` go to ``out_t[i]``.
    Counts may exceed ``cap`` (overflow: the caller retries). ``out_counted[i]`` is the number
    of quadruples of ``a_list[i]`` whose cells were computed.

    Exact proximity pruning (as in :func:`scan_triples`): substituting ``d := z`` in a premise
    of size 4 over ``a, b, c, d``, ``z`` one of ``a, b, c`` (or their negations, with negations)
    or a constant, gives a premise of size <= 4 over ``{a, b, c}`` or a constant, whose value is
    at most ``M3 = max(best function of rep_cells, 0, w_total)`` (bounded by the sum of positive
    cells when that is below ``threshold``); the premise loses at most ``elim[d, z]`` /
    ``elim_const[d]`` by the substitution (``elim_t`` is ``elim`` transposed; see
    ``Pruning._proximity_pruning`` in :mod:`logicrules.fca.premise.pruning`). So ``d`` is
    skipped without a popcount when one of those bounds is below ``threshold - M3(a, b, c) - slack``, and likewise ``c`` (replaced by
    ``a``, ``b``, ``d`` or a constant) against ``M3(a, b, d)``; the ``M3(a, b, .)`` are computed
    in a first pass over the triples of ``(a, b)``. With ``use_rooms``, ``rooms[offsets[x, y] + z]``
    (:func:`triple_rooms`) holds ``threshold - M3 - slack`` of every triple and ``a`` and ``b``
    are tested the same way against ``(b, c, d)`` and ``(a, c, d)``.
    """
    m = bits_p.shape[0]
    wp = bits_p.shape[1]
    wn = bits_n.shape[1]
    for i in prange(a_list.shape[0]):
        a = a_list[i]
        ab_p = np.empty(wp, np.uint64)
        ab_n = np.empty(wn, np.uint64)
        abc_p = np.empty(wp, np.uint64)
        abc_n = np.empty(wn, np.uint64)
        f = np.empty(16)
        g = np.empty(8)
        room_ab = np.empty(m)
        least_room_ab = np.empty(m + 1)
        least_room_a = np.full(m + 1, np.inf)
        w3 = np.empty(m)
        qc = 0
        tc = 0
        counted = 0
        wa = w_single[a]
        if use_rooms:
            # least_room_a[c]: the least room of the triples (a, c', d), c' >= c
            for c in range(m - 1, a, -1):
                least_room_a[c] = min(least_room_a[c + 1], row_min[a, c])
        for b in range(a + 1, m):
            for w in range(wp):
                ab_p[w] = bits_p[a, w] & bits_p[b, w]
            for w in range(wn):
                ab_n[w] = bits_n[a, w] & bits_n[b, w]
            wb = w_single[b]
            wab = w_pair[a, b]
            off_ab = offsets[a, b]
            near_a = min(elim[a, b], elim_const[a])         # a replaced by b or a constant
            near_b = min(elim[b, a], elim_const[b])
            # pass 1: triples (a, b, c), their size-4 premises with repeats and their rooms
            for c in range(b + 1, m):
                wabc = alpha * t_p[off_ab + c] + beta * t_n[off_ab + c]
                g[0] = w_total
                g[4] = wa
                g[2] = wb
                g[1] = w_single[c]
                g[6] = wab
                g[5] = w_pair[a, c]
                g[3] = w_pair[b, c]
                g[7] = wabc
                _mobius(g, 3)
                m3 = _best_repeat_shape(g, rep_cells, threshold)
                if m3 >= threshold:
                    if tc < cap:
                        out_t[i, tc, 0] = b
                        out_t[i, tc, 1] = c
                    tc += 1
                room_ab[c] = threshold - max(m3, max(0.0, w_total)) - slack
                w3[c] = wabc
            # pass 2: quadruples (a, b, c, d); d (or c) near another attribute is skipped when
            # the other three leave too little room. Whole ranges go at once when an attribute
            # can be replaced whatever the others are: b (by a or a constant) or a (by b or a
            # constant) for every (c, d), below the least room of the triples (a, c, d) / (b, c, d)
            if use_rooms:
                if near_b < least_room_a[b + 1]:
                    continue
                least_b = np.inf
                for c in range(b + 1, m):
                    least_b = min(least_b, row_min[b, c])
                if near_a < least_b:
                    continue
            least_room_ab[m] = np.inf
            for c in range(m - 1, b, -1):
                least_room_ab[c] = min(least_room_ab[c + 1], room_ab[c])
            for c in range(b + 1, m - 1):
                wc = w_single[c]
                wac = w_pair[a, c]
                wbc = w_pair[b, c]
                wabc = w3[c]
                room = room_ab[c]
                near_c = min(min(elim[c, a], elim[c, b]), elim_const[c])
                # every d at once: c replaced by a, b or a constant, or b, a replaced by c
                if near_c < least_room_ab[c + 1]:
                    continue
                if use_rooms:
                    if min(near_b, elim[b, c]) < row_min[a, c] or min(near_a, elim[a, c]) < row_min[b, c]:
                        continue
                off_ac = offsets[a, c]
                off_bc = offsets[b, c]
                for w in range(wp):
                    abc_p[w] = ab_p[w] & bits_p[c, w]
                for w in range(wn):
                    abc_n[w] = ab_n[w] & bits_n[c, w]
                for d in range(c + 1, m):
                    near = min(min(elim_t[a, d], elim_t[b, d]), min(elim_t[c, d], elim_const[d]))
                    if near < room:
                        continue
                    if min(near_c, elim[c, d]) < room_ab[d]:
                        continue
                    if use_rooms:
                        if min(near_b, min(elim[b, c], elim[b, d])) < rooms[off_ac + d]:
                            continue
                        if min(near_a, min(elim[a, c], elim[a, d])) < rooms[off_bc + d]:
                            continue
                    counted += 1
                    f[15] = alpha * _wcount_and(abc_p, bits_p[d], seg_p, wseg_p) \
                        + beta * _wcount_and(abc_n, bits_n[d], seg_n, wseg_n)
                    f[0] = w_total
                    f[8] = wa
                    f[4] = wb
                    f[2] = wc
                    f[1] = w_single[d]
                    f[12] = wab
                    f[10] = wac
                    f[9] = w_pair[a, d]
                    f[6] = wbc
                    f[5] = w_pair[b, d]
                    f[3] = w_pair[c, d]
                    f[14] = wabc
                    f[13] = alpha * t_p[off_ab + d] + beta * t_n[off_ab + d]
                    f[11] = alpha * t_p[off_ac + d] + beta * t_n[off_ac + d]
                    f[7] = alpha * t_p[off_bc + d] + beta * t_n[off_bc + d]
                    _mobius(f, 4)
                    ideal = 0.0
                    for k in range(16):
                        if f[k] > 0:
                            ideal += f[k]
                    if ideal < threshold:
                        continue
                    if mode == 0:
                        value = best_read_once4(f, negations, half_idx, pair_idx)
                    else:
                        value = _best_cell16(f, negations, mode)
                    if value >= threshold:
                        if qc < cap:
                            out_q[i, qc, 0] = b
                            out_q[i, qc, 1] = c
                            out_q[i, qc, 2] = d
                        qc += 1
        out_qcount[i] = qc
        out_tcount[i] = tc
        out_counted[i] = counted


@njit(cache=True, nogil=True, parallel=True)
def triple_rooms(offsets, t_p, t_n, alpha, beta, w_single, w_pair, w_total, threshold, rep_cells, slack, out,
                 row_min):
    """``out[offsets[a, b] + c] = threshold - M3(a, b, c) - slack`` (float32, rounded down), ``a < b < c``.

    ``M3`` bounds every premise of size <= 4 over ``{a, b, c}`` and the constants, as in
    :func:`scan_quadruples` (the sum of the positive cells when below ``threshold``, else the best
    function of ``rep_cells``). ``row_min[a, b]`` (float32 (m, m)) receives the least room of
    the triples ``(a, b, c)``, ``c > b`` (inf when there is none).
    """
    m = offsets.shape[0]
    for a in prange(m):
        g = np.empty(8)
        for b in range(m):
            row_min[a, b] = np.inf
        for b in range(a + 1, m):
            base = offsets[a, b]
            least = np.float32(np.inf)
            for c in range(b + 1, m):
                g[0] = w_total
                g[4] = w_single[a]
                g[2] = w_single[b]
                g[1] = w_single[c]
                g[6] = w_pair[a, b]
                g[5] = w_pair[a, c]
                g[3] = w_pair[b, c]
                g[7] = alpha * t_p[base + c] + beta * t_n[base + c]
                _mobius(g, 3)
                m3 = _best_repeat_shape(g, rep_cells, threshold)
                room = threshold - max(m3, max(0.0, w_total)) - slack
                out[base + c] = np.float32(room - 1e-6 * (abs(room) + 1.0))
                least = min(least, out[base + c])
            row_min[a, b] = least
