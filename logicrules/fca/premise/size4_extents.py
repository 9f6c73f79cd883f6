"""Size 4 by materializing every distinct extent of size <= 3 (``size4_method="extents"``, the former method)."""

from __future__ import annotations

import time

import numpy as np

from logicrules.fca.premise.extent_pairs import scan_extent_pairs
from logicrules.fca.premise.space import pair_shapes, triple_shapes
from logicrules.fca.premise.state import SearchState, _dynamic_schedule

__all__: list[str] = []


class Size4Extents(SearchState):
    """Premises of size 4 as ``P_1 o P_<=3`` and ``P_<=2 o P_<=2`` over materialized extents."""

    def _all_extents(self) -> tuple[list[np.ndarray], list[np.ndarray], list[list[tuple]]]:
        """Distinct extents of sizes 1, 2, 3 (bits over positives, negatives, specs), smallest first."""
        p = self.prep
        v = self.vars
        nv = len(v)
        wp, wn = p.bits_p.shape[1], p.bits_n.shape[1]
        r = np.arange(len(p.columns))
        neg = np.zeros(len(r), dtype=bool)
        if p.negations:
            r = np.concatenate([r, r])
            neg = np.concatenate([neg, np.ones(len(p.columns), dtype=bool)])
        lp, ln = self._lit_bits(r, neg)
        levels_p, levels_n, levels_s = [lp], [ln], [[("lit", int(a), bool(b)) for a, b in zip(r, neg)]]
        # size 2
        ps, ns, ss = [], [], []
        shapes2 = pair_shapes(p.negations, self.connectives)
        masks2 = np.array([s.mask for s in shapes2], dtype=np.int64)
        if nv >= 2:
            ai, bi = np.triu_indices(nv, 1)
            variables = np.stack([v[ai], v[bi]], axis=1)
            cp_, cn_ = self._cells_bits(variables)
            for f, mask in enumerate(masks2):
                ep, en = self._extents_from_cells(cp_, cn_, np.full(len(ai), mask))
                ps.append(ep)
                ns.append(en)
                ss.extend(("f2", int(x), int(y), f) for x, y in variables)
        if p.negations and len(p.columns):
            rr = int(v[0]) if nv else 0
            keep = [0, 1] if not self.mode else ([0] if self.mode == 1 else [1])
            ps.append(np.stack([np.zeros(wp, np.uint64), p.valid_p])[keep])
            ns.append(np.stack([np.zeros(wn, np.uint64), p.valid_n])[keep])
            ss.extend([[("const", False, rr), ("const", True, rr)][i] for i in keep])
        levels_p.append(np.concatenate(ps) if ps else np.zeros((0, wp), np.uint64))
        levels_n.append(np.concatenate(ns) if ns else np.zeros((0, wn), np.uint64))
        levels_s.append(ss)
        # size 3
        ps, ns, ss = [], [], []
        shapes3 = triple_shapes(p.negations, self.connectives)
        if nv >= 3:
            trip = np.array(list(_combinations3(nv)), dtype=np.int64).reshape(-1, 3)
            for start in range(0, len(trip), 50_000):
                t = trip[start:start + 50_000]
                variables = v[t]
                cp_, cn_ = self._cells_bits(variables)
                for f, shape in enumerate(shapes3):
                    ep, en = self._extents_from_cells(cp_, cn_, np.full(len(t), shape.mask))
                    ps.append(ep)
                    ns.append(en)
                    ss.extend(("f3", int(a), int(b), int(c), f) for a, b, c in variables)
        levels_p.append(np.concatenate(ps) if ps else np.zeros((0, wp), np.uint64))
        levels_n.append(np.concatenate(ns) if ns else np.zeros((0, wn), np.uint64))
        levels_s.append(ss)
        return _dedupe_levels(levels_p, levels_n, levels_s)

    def size4_extents(self) -> None:
        """Size 4 by materializing every distinct extent of size <= 3 (the former method)."""
        started = time.perf_counter()
        lp, ln, ls = self._all_extents()
        tps = [self.prep.count_p(x) for x in lp]
        fps = [self.prep.count_n(x) for x in ln]
        sizes_of = [1, 2, 3]
        upto3_p = np.concatenate(lp)
        upto3_n = np.concatenate(ln)
        upto3_s = ls[0] + ls[1] + ls[2]
        upto3_size = np.concatenate([np.full(len(x), s) for x, s in zip(lp, sizes_of)])
        upto3_tp = np.concatenate(tps)
        upto3_fp = np.concatenate(fps)
        upto2 = len(lp[0]) + len(lp[1])
        combos = 2 * len(lp[0]) * len(upto3_p) + upto2 * (upto2 - 1)
        tested = 0
        counted = 0
        new = 0
        # P_1 o P_<=3 (left = literals, right = everything up to size 3), then P_<=2 o P_<=2
        jobs = [
            (lp[0], ln[0], tps[0], fps[0], ls[0], np.ones(len(lp[0]), int),
             upto3_p, upto3_n, upto3_tp, upto3_fp, upto3_s, upto3_size, False),
            (upto3_p[:upto2], upto3_n[:upto2], upto3_tp[:upto2], upto3_fp[:upto2], upto3_s[:upto2],
             upto3_size[:upto2], upto3_p[:upto2], upto3_n[:upto2], upto3_tp[:upto2], upto3_fp[:upto2],
             upto3_s[:upto2], upto3_size[:upto2], True),
        ]
        known = {a.tobytes() + b.tobytes() for a, b in zip(upto3_p, upto3_n)}
        for (Lp, Ln, Ltp, Lfp, Ls, Lsize, Rp, Rn, Rtp, Rfp, Rs, Rsize, tri) in jobs:
            pending = list(range(len(Lp)))
            cap = 256
            chunk = 64
            while pending and not self._out_of_time():
                threshold = self.top.threshold()
                filt = self._filter(threshold, 2)
                if filt is None:
                    break
                i_list = np.array(pending[:chunk], dtype=np.int64)
                out_j = np.zeros((len(i_list), cap), np.int64)
                out_op = np.zeros((len(i_list), cap), np.int8)
                out_count = np.zeros(len(i_list), np.int64)
                out_counted = np.zeros(len(i_list), np.int64)
                with _dynamic_schedule():
                    scan_extent_pairs(Lp, Ln, Rp, Rn, *self._kernel_weights(), Ltp, Lfp, Rtp, Rfp, tri,
                                              filt.alpha, filt.beta,
                                              filt.threshold, float(self.prep.n_pos), float(self.prep.n_neg),
                                              i_list, cap, out_j, out_op, out_count, out_counted)
                kept = np.minimum(out_count, cap)
                tested += int(kept[out_count <= cap].sum())
                counted += 2 * int(out_counted[out_count <= cap].sum())
                if kept.sum():
                    ii = np.repeat(i_list, kept)
                    jj = np.concatenate([out_j[k, :kept[k]] for k in range(len(i_list))])
                    oo = np.concatenate([out_op[k, :kept[k]] for k in range(len(i_list))])
                    is_and = (oo == 0)[:, None]
                    ep = np.where(is_and, Lp[ii] & Rp[jj], Lp[ii] | Rp[jj])
                    en = np.where(is_and, Ln[ii] & Rn[jj], Ln[ii] | Rn[jj])
                    tp, fp = self._count(ep, en)
                    sc = self._scores(tp, fp, Lsize[ii] + Rsize[jj])
                    above = sc > threshold
                    ii, jj, oo, ep, en, tp, fp, sc = (x[above] for x in (ii, jj, oo, ep, en, tp, fp, sc))
                    specs = [("op", "and" if oo[k] == 0 else "or", Ls[ii[k]], Rs[jj[k]]) for k in range(len(ii))]
                    size = Lsize[ii] + Rsize[jj]
                    new += sum(1 for a, b in zip(ep, en) if a.tobytes() + b.tobytes() not in known)
                    self._offer_ranked(sc, size, tp, fp, lambda ix, ep=ep, en=en, specs=specs: (
                        ep[ix], en[ix], [specs[i] for i in ix]))
                    if self.fronts is not None:
                        for sz in np.unique(size):
                            sel = np.flatnonzero(size == sz)
                            self.fronts.add(int(sz), tp[sel], fp[sel],
                                            lambda ix, sel=sel: [specs[sel[i]] for i in ix])
                overflow = out_count > cap
                redo = [int(i) for i, o in zip(i_list, overflow) if o]
                pending = redo + pending[len(i_list):]
                if redo and self.top.threshold() == threshold:
                    cap *= 4
        self._tick(4, started, combos, tested, new, counted)


def _combinations3(n: int):
    a, b, c = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    keep = (a < b) & (b < c)
    return np.stack([a[keep], b[keep], c[keep]], axis=1)


def _dedupe_levels(levels_p, levels_n, levels_s):
    """Keep the first occurrence of each extent across levels (smallest size first)."""
    allp = np.concatenate(levels_p)
    alln = np.concatenate(levels_n)
    both = np.ascontiguousarray(np.concatenate([allp, alln], axis=1))
    if both.shape[1] == 0:
        keys = np.zeros(len(both), dtype="V1")
    else:
        keys = both.view(np.dtype((np.void, both.shape[1] * 8))).ravel()
    _, first = np.unique(keys, return_index=True)
    first = np.sort(first)
    bounds = np.cumsum([0] + [len(x) for x in levels_p])
    specs = [s for level in levels_s for s in level]
    out_p, out_n, out_s = [], [], []
    for k in range(len(levels_p)):
        sel = first[(first >= bounds[k]) & (first < bounds[k + 1])]
        out_p.append(np.ascontiguousarray(allp[sel]))
        out_n.append(np.ascontiguousarray(alln[sel]))
        out_s.append([specs[i] for i in sel])
    return out_p, out_n, out_s
