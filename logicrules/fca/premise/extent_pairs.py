"""The former size-4 method in compiled code (numba): pairs of materialized extents by rectangle bounds.

Premises of size 4 are ``P_1 o P_3`` and ``P_2 o P_2``: :func:`scan_extent_pairs` combines two
lists of extents by AND and OR, prunes a pair from its operands' counts with exact rectangle
bounds of the objective's linear filter and keeps the combinations passing it, for exact
scoring (``size4_method="extents"``, :mod:`~logicrules.fca.premise.size4_extents`).
"""

from __future__ import annotations

from numba import njit, prange

from logicrules.fca.premise.popcounts import _wcount_and

__all__ = ["scan_extent_pairs"]


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
