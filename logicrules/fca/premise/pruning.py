"""The exact pruning bounds of the size-3 and size-4 scans, and the rounds that keep them current.

The bounds are the objective's linear filter weights and the proximity bounds; the scans run
over first attributes in chunks (:meth:`Pruning._scan_rounds`), with the bounds recomputed
whenever the running threshold has risen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from logicrules.fca.premise.state import SearchState, _progress_bar

__all__: list[str] = []


class Pruning(SearchState):
    """The objective's linear filter over single and pair counts, and the substitution bounds."""

    def _filter_weights(self, threshold, tpv, fpv, size=0):
        """The linear filter of premises of ``size`` beating ``threshold``, and its weights of single attributes, pairs
        and all rows.

        Returns ``(filter, w_single, w_pair, w_total)``, or four Nones when no linear filter
        exists for the objective at this threshold.
        """
        filt = self._filter(threshold, size)
        if filt is None:
            return None, None, None, None
        p = self.prep
        w_single = filt.alpha * tpv + filt.beta * fpv
        w_pair = filt.alpha * self.pair_p + filt.beta * self.pair_n.astype(np.float64)
        w_total = filt.alpha * p.n_pos + filt.beta * p.n_neg
        return filt, w_single, w_pair, w_total

    def _proximity_pruning(self, filt, w_single, w_pair, w_total):
        """Substitution bounds and rooms for the exact proximity pruning of the scans.

        For attributes ``x, y`` let ``M2(x, y)`` be the best filter value ``L = alpha tp + beta
        fp`` of a premise of size <= 2 over ``{x, y}`` or a constant, and ``room(x, y) =
        threshold - M2(x, y)``. Substituting ``c := z`` in a premise ``f(a, b, c)``, with ``z``
        one of ``a, b`` (or their negations, with negations) or a constant, gives a formula of
        at most 3 leaves over ``{a, b}``: its extent is that of a premise of size <= 2 over
        ``{a, b}`` or a constant (only XOR/XNOR need 4 leaves; without negations it is
        monotone), so ``L(f) <= M2(a, b) + gain``. The gain is bounded with monotonicity: a
        read-once ``f`` is monotone in a positive literal ``c``, so on rows with ``c = 1, z = 0``
        it can only gain where ``f`` holds (a row of weight ``w > 0``) and on rows with ``c = 0,
        z = 1`` only where it does not (``w < 0``); for a negated ``c`` the two sets swap.
        ``elim[x, y]`` bounds the gain of eliminating ``x`` by ``y`` (both polarities of ``x``
        with negations, and the better of ``y``, ``NOT y``), ``elim_const[x]`` by a constant.
        When the bound is below ``room(a, b)`` the triple cannot pass the filter; the same for
        ``a`` and ``b`` in the role of ``c``. Returns ``(elim, elim.T, elim_const, room)``.
        """
        p = self.prep
        nv = len(w_single)
        alpha, beta = filt.alpha, filt.beta
        scale = abs(alpha) * p.n_pos + abs(beta) * p.n_neg + 1.0
        tpv, fpv = p.tp[self.vars], p.fp[self.vars]
        if nv < 3:
            zeros = np.zeros((nv, nv))
            return zeros, zeros, np.zeros(nv), np.full((nv, nv), -np.inf)

        def gains(tp_only_x, fp_only_x, tp_only_z, fp_only_z):
            """Gain bounds of replacing a positive / a negated literal x by z (rows x != z)."""
            up = max(alpha, 0.0) * tp_only_x + max(beta, 0.0) * fp_only_x \
                + max(-alpha, 0.0) * tp_only_z + max(-beta, 0.0) * fp_only_z
            down = max(alpha, 0.0) * tp_only_z + max(beta, 0.0) * fp_only_z \
                + max(-alpha, 0.0) * tp_only_x + max(-beta, 0.0) * fp_only_x
            return up, down

        room = np.empty((nv, nv))
        elim = np.empty((nv, nv))
        negated = w_total - w_single
        # row blocks of about 2**18 entries: the temporaries stay small whatever nv is
        step = max(1, (1 << 18) // nv)
        for r0 in range(0, nv, step):
            rows = slice(r0, min(nv, r0 + step))
            wp_ = w_pair[rows]
            ws_ = w_single[rows, None]
            c11 = wp_
            c10 = ws_ - wp_
            c01 = w_single[None, :] - wp_
            c00 = w_total - ws_ - w_single[None, :] + wp_
            best = np.maximum(np.maximum(ws_, w_single[None, :]), max(0.0, w_total))
            best = np.maximum(best, np.maximum(c11, c11 + c10 + c01))
            if p.negations:
                best = np.maximum(best, np.maximum(negated[rows, None], negated[None, :]))
                cells_max = np.maximum(np.maximum(c00, c01), np.maximum(c10, c11))
                cells_min = np.minimum(np.minimum(c00, c01), np.minimum(c10, c11))
                best = np.maximum(best, np.maximum(cells_max, w_total - cells_min))
            room[rows] = filt.threshold - best - 1e-9 * scale
            pp, pn = self.pair_p[rows], self.pair_n[rows]
            up, down = gains(tpv[rows, None] - pp, fpv[rows, None] - pn,     # rows x = 1, z = 0 (x: row)
                             tpv[None, :] - pp, fpv[None, :] - pn)
            if p.negations:
                # x replaced by NOT z: rows x = 1, NOT z = 0 are x AND z; rows x = 0, z = 0 the rest
                none_p = p.n_pos - tpv[rows, None] - tpv[None, :] + pp
                none_n = p.n_neg - fpv[rows, None] - fpv[None, :] + pn
                up_c, down_c = gains(pp, pn, none_p, none_n)
                elim[rows] = np.minimum(np.maximum(up, down), np.maximum(up_c, down_c))
            else:
                elim[rows] = up
        zero_p, zero_n = gains(tpv, fpv, 0, 0)                                   # x := false
        one_p, one_n = gains(0, 0, p.n_pos - tpv, p.n_neg - fpv)                 # x := true
        elim_const = np.minimum(np.maximum(zero_p, zero_n), np.maximum(one_p, one_n)) if p.negations \
            else np.minimum(zero_p, one_p)
        return elim, np.ascontiguousarray(elim.T), np.asarray(elim_const, dtype=np.float64), room

    def _scan_rounds(self, size: int, n_first: int, chunk: int, tpv, fpv,
                     refresh: Callable[..., Any], scan: Callable[[Any, np.ndarray, int], np.ndarray]) -> None:
        """Scan the first attributes ``0 .. n_first - 1`` a chunk at a time, bounds kept current.

        Before a chunk, when the running threshold has changed, the linear filter of premises
        of ``size`` and the proximity bounds are recomputed and handed to ``refresh(filter,
        w_single, w_pair, w_total, (elim, elim_t, elim_const, room))``, whose result goes to
        every ``scan(tables, a_list, cap)`` until the next change; the scan scores what it finds
        and returns, per first attribute, whether its output fitted ``cap`` candidates. Those
        that overflowed are scanned again (with 4 times the room when the threshold did not
        rise meanwhile, in half the chunk). The rounds stop when no premise can beat the
        threshold (no filter) or the time limit has passed.
        """
        pending = list(range(max(n_first, 0)))
        cap = 1024
        bar = _progress_bar(self.progress, len(pending), f"size {size}")
        filt_for = None
        tables = None
        while pending and not self._out_of_time():
            threshold = self.top.threshold()
            if filt_for != threshold:
                filt, w_single, w_pair, w_total = self._filter_weights(threshold, tpv, fpv, size)
                filt_for = threshold
                if filt is None:
                    break
                tables = refresh(filt, w_single, w_pair, w_total,
                                 self._proximity_pruning(filt, w_single, w_pair, w_total))
            a_list = np.array(pending[:chunk], dtype=np.int64)
            ok = scan(tables, a_list, cap)
            redo = [int(a) for a, o in zip(a_list, ok) if not o]
            pending = redo + pending[len(a_list):]
            if redo:
                # the threshold rose with the survivors just scored; if it did not, make room
                if self.top.threshold() == threshold:
                    cap *= 4
                chunk = max(1, chunk // 2)
            if bar is not None:
                bar.update(len(a_list) - len(redo))
        if bar is not None:
            bar.close()
