"""Premises of size 3: every attribute triple by the compiled scan (or the torch backend), survivors scored."""

from __future__ import annotations

import time

import numpy as np

from logicrules.fca.premise.triple_scan import scan_triples
from logicrules.fca.premise.pruning import Pruning
from logicrules.fca.premise.seeds import Seeds
from logicrules.fca.premise.space import shape_matrix, triple_shapes
from logicrules.fca.premise.state import _dynamic_schedule

__all__: list[str] = []

_MAX_COUNTED_TRIPLES = 20_000    # size-3 distinct extents are counted up to this many scored triples


class Size3(Seeds, Pruning):
    """The size-3 scan and the exact scoring of the triples that pass its linear test."""

    def size3(self, count_extents: bool) -> None:
        started = time.perf_counter()
        p = self.prep
        self._seed_size3()
        v = self.vars
        nv = len(v)
        shapes = triple_shapes(p.negations, self.connectives)
        M = shape_matrix(shapes, 3)
        masks = np.array([s.mask for s in shapes], dtype=np.int64)
        combos = nv * (nv - 1) * (nv - 2) // 6 * len(shapes)
        bits_p, bits_n = self._var_bits()
        tpv, fpv = p.tp[v], p.fp[v]
        tested = 0
        counted = 0
        new_keys: set[bytes] = set()
        chunk = 32 if self.counter is None else 256
        if self.deadline is not None:
            chunk = 2 if self.counter is None else 16      # check the clock often

        def refresh(filt, w_single, w_pair, w_total, prox):
            elim, elim_t, elim_const, room = prox
            least_room = None
            if self.counter is None:        # the torch scan derives its own on the device
                least_room = np.full((nv, nv + 1), np.inf)
                least_room[:, :nv] = np.minimum.accumulate(room[:, ::-1], axis=1)[:, ::-1]
            return filt, w_single, w_pair, w_total, elim, elim_t, elim_const, room, least_room

        def scan(tables, a_list, cap):
            nonlocal tested, counted, count_extents
            filt, w_single, w_pair, w_total, elim, elim_t, elim_const, room, least_room = tables
            if self.counter is not None:
                triples, n_counted = self.counter.scan_triples(filt.alpha, filt.beta, w_single, w_pair, w_total,
                                                               filt.threshold, p.negations, a_list, elim, elim_const,
                                                               room, return_counted=True, mode=self.mode)
                overflow = np.zeros(len(a_list), dtype=bool)
                counted += n_counted * len(shapes)
            else:
                self._check_buffer(3, len(a_list) * cap * 2 * 4, "triples")
                out_bc = np.zeros((len(a_list), cap, 2), dtype=np.int32)
                out_count = np.zeros(len(a_list), dtype=np.int64)
                out_counted = np.zeros(len(a_list), dtype=np.int64)
                with _dynamic_schedule():
                    scan_triples(bits_p, bits_n, *self._kernel_weights(), filt.alpha, filt.beta, w_single,
                                 w_pair, w_total, filt.threshold, p.negations, self.mode, elim, elim_t,
                                 elim_const, room, least_room, a_list, cap, out_bc, out_count, out_counted)
                overflow = out_count > cap
                counted += int(out_counted[~overflow].sum()) * len(shapes)
                kept = np.where(overflow, 0, out_count)
                bc = np.concatenate([out_bc[i, :kept[i]] for i in range(len(a_list))]) if kept.sum() else \
                    np.zeros((0, 2), np.int32)
                triples = np.column_stack([np.repeat(a_list, kept), bc]).astype(np.int64) if kept.sum() \
                    else np.zeros((0, 3), np.int64)
            tested += len(triples) * len(shapes)
            if count_extents and tested > min(_MAX_COUNTED_TRIPLES * len(shapes), self.max_extent_keys):
                count_extents = False       # too many to materialize: report None
            self._score_triples(triples, M, masks, v, new_keys if count_extents else None)
            return ~overflow

        self._scan_rounds(3, nv - 2, chunk, tpv, fpv, refresh, scan)
        self._tick(3, started, combos, tested, len(new_keys) if count_extents else None, counted)

    def _score_triples(self, triples: np.ndarray, M, masks, v, new_keys) -> None:
        """Exact scores of all read-once premises over the given triples (positions in ``v``).

        One popcount of ``a AND b AND c`` per class gives the 8 cells by inclusion-exclusion
        (as in the kernel); extents are built only for the premises that enter the result list.
        ``new_keys`` (a set, or None) collects the distinct extents of every scored premise.
        """
        if not len(triples):
            return
        p = self.prep
        bp, bn = self._var_bits()
        tpv, fpv = p.tp[v], p.fp[v]
        # about 4 row gathers per class and triple at a time: bounded by work_bytes
        step = max(1, min(65536, self.work_bytes // (32 * (bp.shape[1] + bn.shape[1]))))
        for start in range(0, len(triples), step):
            t = triples[start:start + step]
            a, b, c = t[:, 0], t[:, 1], t[:, 2]
            cells = []
            dtype = np.float64 if p.weighted else np.int64
            for bits, single, pair, total, count in ((bp, tpv, self.pair_p, p.n_pos, p.count_p),
                                                     (bn, fpv, self.pair_n, p.n_neg, p.count_n)):
                t3 = count(bits[a] & bits[b] & bits[c])
                sa, sb, sc = single[a], single[b], single[c]
                ab, ac, bc = (pair[a, b].astype(dtype), pair[a, c].astype(dtype), pair[b, c].astype(dtype))
                cells.append(np.stack([
                    total - sa - sb - sc + ab + ac + bc - t3, sc - ac - bc + t3, sb - ab - bc + t3, bc - t3,
                    sa - ab - ac + t3, ac - t3, ab - t3, t3], axis=1))            # cell k = 4 va + 2 vb + vc
            tp = (cells[0] @ M.T).ravel()
            fp = (cells[1] @ M.T).ravel()
            flat = self._scores(tp, fp, 3)
            variables = v[t]
            if new_keys is not None:            # one shape at a time: a block of extents, not one per shape
                cp_, cn_ = self._cells_bits(variables)
                for mask in masks:
                    ep, en = self._extents_from_cells(cp_, cn_, np.full(len(variables), mask))
                    new_keys.update(self._extent_keys(ep, en))

            def materialize(idx, variables=variables, nf=len(M)):
                rows, f = np.divmod(idx, nf)
                cp_, cn_ = self._cells_bits(variables[rows])
                ep, en = self._extents_from_cells(cp_, cn_, masks[f])
                return ep, en, [("f3", int(variables[r, 0]), int(variables[r, 1]), int(variables[r, 2]), int(ff))
                                for r, ff in zip(rows, f)]

            self._offer_ranked(flat, 3, tp, fp, materialize)
            if self.fronts is not None:
                nf = len(M)
                self.fronts.add(3, tp, fp, lambda ix: [
                    ("f3", int(variables[j // nf, 0]), int(variables[j // nf, 1]), int(variables[j // nf, 2]),
                     int(j % nf)) for j in ix])
