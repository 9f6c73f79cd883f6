"""Premises of size 4 from the truth tables of attribute quadruples (and triples with repeats)."""

from __future__ import annotations

import time

import numpy as np

from logicrules.fca.premise.quadruple_scan import scan_quadruples, triple_counts, triple_offsets, triple_rooms
from logicrules.fca.premise.pruning import Pruning
from logicrules.fca.premise.seeds import Seeds
from logicrules.fca.premise.space import (
    _quadruple_index_tables,
    quadruple_shapes,
    repeat_shapes,
    shape_matrix,
    shape_size,
)
from logicrules.fca.premise.state import _dynamic_schedule

__all__: list[str] = []

_MAX_COUNTED_PREMISES = 1_280_000   # size-4 distinct extents: up to this many scored premises


class Size4Cells(Seeds, Pruning):
    """The size-4 scan over quadruples' 16 cells (``size4_method="cells"``) and exact scoring."""

    def _score_shapes(self, variables: np.ndarray, shapes, sizes: np.ndarray, new_keys: set | None = None) -> int:
        """Exact scores of every shape over each row of ``variables`` (representatives, (k, v)).

        Cells are counted from the cell bitsets; extents are built only for premises entering the
        result list, and for every scored premise when ``new_keys`` (a set collecting distinct
        extents) is given. Returns the number of premises scored.
        """
        if not len(variables):
            return 0
        M = shape_matrix(shapes, variables.shape[1]).astype(np.float64)
        masks = np.array([s.mask for s in shapes], dtype=np.int64)
        nf = len(shapes)
        scored = 0
        words = self.prep.bits_p.shape[1] + self.prep.bits_n.shape[1]
        cells = 2 ** variables.shape[1]
        step = max(1, min(32768 // cells, self.work_bytes // (32 * cells * words)))
        for start in range(0, len(variables), step):
            var = variables[start:start + step]
            cp_, cn_ = self._cells_bits(var)
            cells_p, cells_n = self._count(cp_, cn_)
            tp = (cells_p @ M.T).ravel()
            fp = (cells_n @ M.T).ravel()
            if not self.prep.weighted:
                tp, fp = np.rint(tp).astype(np.int64), np.rint(fp).astype(np.int64)
            size = np.tile(sizes, len(var))
            flat = self._scores(tp, fp, size)
            scored += flat.size
            if new_keys is not None:
                for f, mask in enumerate(masks):
                    ep, en = self._extents_from_cells(cp_, cn_, np.full(len(var), mask))
                    new_keys.update(self._extent_keys(ep, en))

            def materialize(idx, var=var, cp_=cp_, cn_=cn_):
                rows, f = np.divmod(idx, nf)
                ep, en = self._extents_from_cells(cp_[rows], cn_[rows], masks[f])
                return ep, en, [("shape", tuple(int(x) for x in var[r]), shapes[ff]) for r, ff in zip(rows, f)]

            self._offer_ranked(flat, size, tp, fp, materialize)
            if self.fronts is not None:
                for sz in np.unique(sizes):
                    sel = np.flatnonzero(size == sz)
                    self.fronts.add(int(sz), tp[sel], fp[sel], lambda ix, sel=sel, var=var: [
                        ("shape", tuple(int(x) for x in var[sel[j] // nf]), shapes[sel[j] % nf]) for j in ix])
        return scored

    def size4_cells(self, count_extents: bool = False) -> None:
        """Size 4 from the truth tables of attribute quadruples (and triples with repeats).

        Every premise of size 4 is read-once over four distinct attributes, or a premise over at
        most three attributes (possibly repeating one). The compiled scan
        (:func:`~logicrules.fca.premise.quadruple_scan.scan_quadruples`) computes the 16 weighted cells of
        every quadruple from one 4-way popcount per class and stored 3-way counts, bounds every
        formula by the sum of its positive cells, and applies the closed form of the best
        read-once formula to the rest; triples are tested against every function a size-4
        premise computes over them. A fourth attribute near one of the other three (or a
        constant) is skipped without counting (exact proximity bound, see the kernel). The linear test is the current threshold's filter (the
        Dinkelbach line for F1/Jaccard), so survivors are all premises that can beat the k-th
        best; they are scored exactly. Memory: the 3-way counts of the m (m - 1) (m - 2) / 6 sorted
        triples (and their rooms when ``memory_limit`` allows) and bounded buffers.
        """
        started = time.perf_counter()
        self._seed_size4()
        p = self.prep
        v = self.vars
        nv = len(v)
        neg = p.negations
        quad = quadruple_shapes(neg, self.connectives)
        rep3 = repeat_shapes(3, neg, 4, self.connectives)
        quad_sizes = np.full(len(quad), 4, np.int64)
        rep3_sizes = np.array([shape_size(s.tree) for s in rep3], np.int64)
        tested = 0
        counted = 0
        new_keys: set[bytes] | None = set() if count_extents else None
        combos = nv * (nv - 1) * (nv - 2) * (nv - 3) // 24 * len(quad) + nv * (nv - 1) * (nv - 2) // 6 * len(rep3)
        if nv == 2:
            rep2 = repeat_shapes(2, neg, 4, self.connectives)
            tested += self._score_shapes(v[None, :].astype(np.int64), rep2,
                                         np.array([shape_size(s.tree) for s in rep2], np.int64), new_keys)
            counted = tested
            combos = len(rep2)
        if nv < 3:
            self._tick(4, started, combos, tested, None if new_keys is None else len(new_keys), counted)
            return
        bits_p, bits_n = self._var_bits()
        torch_scan = self.counter is not None
        if not torch_scan:
            offsets = triple_offsets(nv)
            n_triples = nv * (nv - 1) * (nv - 2) // 6
            t_p = np.zeros(n_triples, self._triple_count_dtype())
            t_n = np.zeros(n_triples, self._triple_count_dtype())
            triple_counts(bits_p, bits_n, *self._kernel_weights(), p.weighted, offsets, t_p, t_n)
            # rooms of all triples (4 bytes each) let the scan prune every role of a quadruple;
            # without room for them only two roles are pruned (same results, more quadruples counted)
            use_rooms = self._size4_cells_bytes(nv, rooms=True) <= self.memory
            rooms = np.zeros(n_triples if use_rooms else 1, np.float32)
            row_min = np.zeros((nv, nv) if use_rooms else (1, 1), np.float32)
        half_idx, pair_idx = _quadruple_index_tables()
        rep_cells = shape_matrix(rep3, 3).astype(np.float64)
        tpv, fpv = p.tp[v], p.fp[v]
        chunk = 16 if self.deadline is None else 2

        def refresh(filt, w_single, w_pair, w_total, prox):
            elim, elim_t, elim_const, _ = prox
            if torch_scan:
                return filt, self.counter.quadruple_scan(filt.alpha, filt.beta, w_single, w_pair, w_total,
                                                         filt.threshold, neg, rep_cells, elim, elim_const,
                                                         mode=self.mode)
            slack = 1e-9 * (abs(filt.alpha) * p.n_pos + abs(filt.beta) * p.n_neg + 1.0)
            if use_rooms:
                triple_rooms(offsets, t_p, t_n, filt.alpha, filt.beta, w_single, w_pair, w_total,
                             filt.threshold, rep_cells, slack, rooms, row_min)
            return filt, (w_single, w_pair, w_total, elim, elim_t, elim_const, slack)

        def scan(tables, a_list, cap):
            nonlocal tested, counted, new_keys
            filt, tab = tables
            if torch_scan:
                before = tab.counted
                quads, trips = tab.run(a_list)
                ok = np.ones(len(a_list), dtype=bool)
                counted += tab.counted - before
            else:
                w_single, w_pair, w_total, elim, elim_t, elim_const, slack = tab
                self._check_buffer(4, len(a_list) * cap * 5 * 4, "quadruples")
                out_q = np.zeros((len(a_list), cap, 3), np.int32)
                out_t = np.zeros((len(a_list), cap, 2), np.int32)
                out_qcount = np.zeros(len(a_list), np.int64)
                out_tcount = np.zeros(len(a_list), np.int64)
                out_counted = np.zeros(len(a_list), np.int64)
                with _dynamic_schedule():
                    scan_quadruples(bits_p, bits_n, *self._kernel_weights(), offsets, t_p, t_n, filt.alpha,
                                    filt.beta, w_single, w_pair, w_total, filt.threshold, neg, self.mode,
                                    half_idx, pair_idx, rep_cells, elim, elim_t, elim_const, slack, rooms, row_min,
                                    use_rooms, a_list, cap, out_q, out_qcount, out_t, out_tcount, out_counted)
                ok = (out_qcount <= cap) & (out_tcount <= cap)
                counted += int(out_counted[ok].sum())
                quads = [np.column_stack([np.full(out_qcount[i], a_list[i]), out_q[i, :out_qcount[i]]])
                         for i in np.flatnonzero(ok)]
                trips = [np.column_stack([np.full(out_tcount[i], a_list[i]), out_t[i, :out_tcount[i]]])
                         for i in np.flatnonzero(ok)]
                quads = np.concatenate(quads).astype(np.int64) if quads else np.zeros((0, 4), np.int64)
                trips = np.concatenate(trips).astype(np.int64) if trips else np.zeros((0, 3), np.int64)
            scored = tested + len(trips) * len(rep3) + len(quads) * len(quad)
            if new_keys is not None and scored > min(_MAX_COUNTED_PREMISES, self.max_extent_keys):
                new_keys = None         # too many to materialize: report None
            tested += self._score_shapes(v[trips], rep3, rep3_sizes, new_keys)
            tested += self._score_shapes(v[quads], quad, quad_sizes, new_keys)
            return ok

        self._scan_rounds(4, nv - 2, chunk, tpv, fpv, refresh, scan)
        self._tick(4, started, combos, tested, None if new_keys is None else len(new_keys), counted)
