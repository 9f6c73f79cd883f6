"""The size-3 scan in compiled code (numba): every attribute triple counted with popcounts.

:func:`scan_triples` visits every triple of attributes ``a < b < c``, counts the rows of ``a AND
b AND c`` among positives and negatives with a hardware popcount (in tiles that stay in cache),
recovers the 8 cells of the triple's truth table by inclusion-exclusion from single and pair
counts, and keeps the triple when the best read-once formula over it
(:mod:`~logicrules.fca.premise.closed_forms`) reaches a *linear* score threshold (``alpha * tp +
beta * fp >= threshold``). The exact proximity pruning skips most triples before counting
(:func:`_skip_pair`, :func:`_skip_third`; shared with the search over counts).

Bitsets are two uint64 arrays with one row per attribute, over the positive and over the
negative objects, each padded with zero words to a multiple of 4 words so that LLVM vectorizes
the AND + popcount loops (measured: 4x faster than one row holding both halves).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from logicrules.fca.premise.closed_forms import _best_triple
from logicrules.fca.premise.popcounts import _count_and

__all__ = ["scan_triples"]


_TILE = 128    # words per tile of the size-3 counting: the tiles of every attribute stay in L2
_SCAN_BATCH = 1 << 16    # (b, c) candidates of one first attribute counted together (bounded buffers)


@njit(cache=True, nogil=True)
def _tiled_triple_counts(bits, seg, wseg, a, pair_b, pair_start, cand_c, out):
    """``out[j] += |a AND b AND c_j|`` (weighted as :func:`_wcount_and`) for the candidates of each pair.

    ``pair_b[q]`` is a second attribute whose third attributes are ``cand_c[pair_start[q]:
    pair_start[q + 1]]``. The words are visited in tiles of :data:`_TILE` words, every pair and
    candidate per tile, so the tiles of all attributes are read from cache instead of streaming
    every candidate's whole bitset from memory once per pair. Group counts are exact integers,
    multiplied by their weight once and summed in group order, as in :func:`_wcount_and`. The
    popcounts run over slices of the tiles (:func:`_count_and`); the same loop indexing whole
    rows at the tile's offset took 25% more time on Myocard (32 words per attribute) and 2.6x
    the time at 1e6 rows x 200 attributes.
    """
    k = cand_c.shape[0]
    counts = np.zeros(k, np.int64)
    ab = np.empty(_TILE, np.uint64)
    for g in range(wseg.shape[0]):
        counts[:] = 0
        for t0 in range(seg[g], seg[g + 1], _TILE):
            t1 = min(t0 + _TILE, seg[g + 1])
            ab_t = ab[:t1 - t0]
            row_a = bits[a, t0:t1]
            for q in range(pair_b.shape[0]):
                row_b = bits[pair_b[q], t0:t1]
                for w in range(t1 - t0):
                    ab_t[w] = row_a[w] & row_b[w]
                for j in range(pair_start[q], pair_start[q + 1]):
                    counts[j] += _count_and(ab_t, bits[cand_c[j], t0:t1])
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
        for j in range(pair_start[q], pair_start[q + 1]):
            c = cand_c[j]
            dd = alpha * tot_p[j] + beta * tot_n[j]
            if _best_triple(dd, wa, wb, w_single[c], wab, w_pair[a, c], w_pair[b, c], w_total, negations,
                            mode) >= threshold:
                if count < cap:
                    out_bc[i, count, 0] = b
                    out_bc[i, count, 1] = c
                count += 1
    return count


@njit(cache=True, nogil=True, inline="always")
def _pair_skipped(a, b, elim, elim_const, least_room):
    """Whether every triple ``(a, b, c)``, ``c > b``, is pruned by proximity, and the two bounds of the pair.

    ``da`` bounds what a premise loses when ``a`` is replaced by ``b`` or a constant, ``db`` the
    same for ``b``; below the least room of ``(a, c)`` (``(b, c)``) over every ``c > b``, the
    premise over two attributes they leave cannot pass (see :func:`scan_triples`).
    """
    da = min(elim[a, b], elim_const[a])
    db = min(elim[b, a], elim_const[b])
    return db < least_room[a, b + 1] or da < least_room[b, b + 1], da, db


@njit(cache=True, nogil=True, inline="always")
def _third_skipped(a, b, c, da, db, room_ab, elim, elim_t, elim_const, room):
    """Whether the triple ``(a, b, c)`` is pruned by proximity: ``c`` replaced by ``a``, ``b`` or a
    constant loses less than the room of ``(a, b)``, or ``b`` (``a``) replaced by ``c`` less
    than the room of ``(a, c)`` (``(b, c)``); ``da``, ``db``, ``room_ab`` from :func:`_pair_skipped`."""
    return (min(min(elim_t[a, c], elim_t[b, c]), elim_const[c]) < room_ab
            or min(db, elim[b, c]) < room[a, c] or min(da, elim[a, c]) < room[b, c])


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
                skip, da, db = _pair_skipped(a, b, elim, elim_const, least_room)
                if skip:
                    continue
                room_ab = room[a, b]
                first = k
                for c in range(b + 1, m):
                    if _third_skipped(a, b, c, da, db, room_ab, elim, elim_t, elim_const, room):
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
