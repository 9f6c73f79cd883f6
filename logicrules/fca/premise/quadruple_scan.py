"""The size-4 scan in compiled code (numba): attribute quadruples from stored 3-way counts.

* :func:`triple_counts` stores ``|a AND b AND c|`` per class for every sorted triple (flat, at
  :func:`triple_offsets`);
* :func:`scan_quadruples` visits every quadruple ``a < b < c < d``: one popcount of ``a AND b
  AND c AND d`` per class and the stored 3-way counts give the 16 weighted cells by
  inclusion-exclusion; the sum of the positive cells bounds every formula and
  :func:`~logicrules.fca.premise.closed_forms.best_read_once4` is the closed form of the best
  read-once formula of 4 literals. Premises of size 4 repeating an attribute are tested per
  triple. Exact proximity bounds (:func:`triple_rooms`) skip most quadruples before counting.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from logicrules.fca.premise.closed_forms import _best_cell16, _best_repeat_triple, _mobius, best_read_once4
from logicrules.fca.premise.popcounts import _count_and, _wcount_and

__all__ = ["scan_quadruples", "triple_counts", "triple_offsets", "triple_rooms"]


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
def _fourth_skipped(a, b, c, d, near_c, room, room_ab, elim, elim_t, elim_const):
    """Whether the quadruple ``(a, b, c, d)`` is pruned by proximity (see :func:`scan_quadruples`).

    ``d`` replaced by ``a``, ``b``, ``c`` or a constant loses less than ``room`` (that of ``(a,
    b, c)``), or ``c`` replaced by ``a``, ``b``, ``d`` or a constant (``near_c``: by ``a``, ``b`` or
    a constant) less than ``room_ab[d]`` (that of ``(a, b, d)``).
    """
    near = min(min(elim_t[a, d], elim_t[b, d]), min(elim_t[c, d], elim_const[d]))
    return near < room or min(near_c, elim[c, d]) < room_ab[d]


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
                m3 = _best_repeat_triple(g, wa, wb, w_single[c], wab, w_pair[a, c], w_pair[b, c], wabc, w_total,
                                         rep_cells, threshold)
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
                    if _fourth_skipped(a, b, c, d, near_c, room, room_ab, elim, elim_t, elim_const):
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
                m3 = _best_repeat_triple(g, w_single[a], w_single[b], w_single[c], w_pair[a, b], w_pair[a, c],
                                         w_pair[b, c], alpha * t_p[base + c] + beta * t_n[base + c], w_total,
                                         rep_cells, threshold)
                room = threshold - max(m3, max(0.0, w_total)) - slack
                out[base + c] = np.float32(room - 1e-6 * (abs(room) + 1.0))
                least = min(least, out[base + c])
            row_min[a, b] = least
