"""Premises of sizes 1 and 2: literals, pairs of attributes from their pair counts, constants."""

from __future__ import annotations

import time

import numpy as np

from logicrules.fca.premise.gram import _extent_hashes, _gram, _hash_key, _n_bits, _sorted_unique
from logicrules.fca.premise.results import _select
from logicrules.fca.premise.space import pair_shapes, shape_matrix
from logicrules.fca.premise.state import SearchState

__all__: list[str] = []

_MAX_COUNTED_PAIRS = 12_000_000  # size-2 distinct extents are counted up to this many premises (pairs x shapes)


class SmallSizes(SearchState):
    """Sizes 1 and 2 of the search (and the constants ``a AND NOT a``, ``a OR NOT a``)."""

    # -- size 1 ------------------------------------------------------------------------
    def size1(self, count_extents: bool) -> None:
        started = time.perf_counter()
        p = self.prep
        r = np.arange(len(p.columns))
        neg = np.zeros(len(r), dtype=bool)
        if p.negations:
            r = np.concatenate([r, r])
            neg = np.concatenate([neg, np.ones(len(p.columns), dtype=bool)])
        tp = np.where(neg, p.n_pos - p.tp[r], p.tp[r])
        fp = np.where(neg, p.n_neg - p.fp[r], p.fp[r])
        scores = self._scores(tp, fp, 1)
        self._offer_ranked(scores, 1, tp, fp, lambda ix: (
            *self._lit_bits(r[ix], neg[ix]), [("lit", int(r[i]), bool(neg[i])) for i in ix]))
        if self.fronts is not None:
            self.fronts.add(1, tp, fp, lambda ix: [("lit", int(r[i]), bool(neg[i])) for i in ix])
        new = None
        if count_extents:
            # distinct literal extents: representatives are distinct up to complement; constants
            # of both polarities may coincide with nothing else
            new = len(r)
        self._tick(1, started, len(r), len(r), new)

    # -- size 2 ------------------------------------------------------------------------
    def size2(self, count_extents: bool) -> None:
        started = time.perf_counter()
        p = self.prep
        v = self.vars
        shapes = pair_shapes(p.negations, self.connectives)
        M = shape_matrix(shapes, 2)                     # (F, 4), cell j = 2 va + vb
        masks2 = np.array([sh.mask for sh in shapes], dtype=np.int64)
        bits_p, bits_n = self._var_bits()
        self.pair_p = _gram(bits_p, p.seg_p, p.wseg_p, p.weighted)
        self.pair_n = _gram(bits_n, p.seg_n, p.wseg_n, p.weighted)
        tpv, fpv = p.tp[v], p.fp[v]
        nv = len(v)
        tested = 0
        seed_pool: list[tuple[float, tuple]] = []
        hashes = []
        # 16 bytes of hashes per premise, and their sorted keys
        count_extents = count_extents and nv * (nv - 1) // 2 * len(shapes) <= min(_MAX_COUNTED_PAIRS, self.memory // 64)
        if count_extents:
            single_h, total_h, pair_h = _extent_hashes(bits_p, p.valid_p, _n_bits(p, "p"), bits_n,
                                                       p.valid_n, _n_bits(p, "n"), self.work_bytes)
        # about 96 bytes per (pair, shape) entry of a block: 2e6 entries, fewer under a small memory_limit
        entries = min(2e6, self.memory // 4 / 96)
        block = max(1, int(entries // max(nv * len(shapes), 1)))
        for start in range(0, nv, block):
            if self._out_of_time():
                break
            a = np.arange(start, min(nv, start + block))
            ai, bi = np.nonzero(np.arange(nv)[None, :] > a[:, None])
            ai = a[ai]
            if not len(ai):
                continue
            pp = self.pair_p[ai, bi].astype(self.pair_p.dtype if p.weighted else np.int64)
            pn = self.pair_n[ai, bi].astype(self.pair_n.dtype if p.weighted else np.int64)
            cells_p = np.stack([p.n_pos - tpv[ai] - tpv[bi] + pp, tpv[bi] - pp, tpv[ai] - pp, pp], axis=1)
            cells_n = np.stack([p.n_neg - fpv[ai] - fpv[bi] + pn, fpv[bi] - pn, fpv[ai] - pn, pn], axis=1)
            tp = (cells_p @ M.T).ravel()                         # (k * F,)
            fp = (cells_n @ M.T).ravel()
            flat = self._scores(tp, fp, 2)
            tested += flat.size
            # the 8 best so far; a block only offers what beats the 8th (stable sort: ties keep the first)
            seed = _select(flat, seed_pool[7][0] if len(seed_pool) >= 8 else -np.inf, 8)
            seed_pool.extend(
                (float(flat[j]), ("f2", int(v[ai[j // len(M)]]), int(v[bi[j // len(M)]]), int(j % len(M))))
                for j in seed)
            seed_pool.sort(key=lambda s: -s[0])
            del seed_pool[8:]

            def materialize(idx, ai=ai, bi=bi, nf=len(M)):
                rows, f = idx // nf, idx % nf
                variables = np.stack([v[ai[rows]], v[bi[rows]]], axis=1)
                cp_, cn_ = self._cells_bits(variables)
                ep, en = self._extents_from_cells(cp_, cn_, masks2[f])
                return ep, en, [("f2", int(a), int(b), int(ff)) for (a, b), ff in zip(variables, f)]

            self._offer_ranked(flat, 2, tp, fp, materialize)
            if self.fronts is not None:
                nf = len(M)
                self.fronts.add(2, tp, fp, lambda ix: [
                    ("f2", int(v[ai[j // nf]]), int(v[bi[j // nf]]), int(j % nf)) for j in ix])
            if count_extents:
                hab = np.stack([pair_h[k][ai, bi] for k in range(2)], axis=1)   # (k, 2)
                ha, hb = single_h[ai], single_h[bi]
                cells_h = np.stack([total_h - ha - hb + hab, hb - hab, ha - hab, hab], axis=1)  # (k,4,2)
                hashes.append(np.einsum("kcs,fc->kfs", cells_h, M.astype(np.float64)).reshape(-1, 2))
        self._constants(count_extents)
        self.seeds = [s[1] for s in seed_pool]
        new = None
        if count_extents:
            lit_h = self._literal_hashes(single_h, total_h)
            consts = [np.array([[0.0, 0.0], total_h])] if self.prep.negations else []
            all_h = np.concatenate(hashes + consts) if hashes or consts else np.zeros((0, 2))
            uniq = _sorted_unique(_hash_key(all_h))
            known = _sorted_unique(_hash_key(lit_h))
            pos = np.minimum(np.searchsorted(known, uniq), max(len(known) - 1, 0))
            new = len(uniq) - (int((known[pos] == uniq).sum()) if len(known) else 0)
        n_shapes = len(shapes)
        self._tick(2, started, nv * (nv - 1) // 2 * n_shapes, tested, new)

    def _literal_hashes(self, single_h, total_h) -> np.ndarray:
        p = self.prep
        h = [single_h]
        if p.negations:
            h.append(total_h[None, :] - single_h)
        consts = np.flatnonzero(p.constant)
        out = np.concatenate(h) if h else np.zeros((0, 2))
        if len(consts):
            empties = (p.tp[consts] + p.fp[consts]) == 0
            extra = []
            if empties.any() or (p.negations and (~empties).any()):
                extra.append([0.0, 0.0])
            if (~empties).any() or (p.negations and empties.any()):
                extra.append(list(total_h))
            out = np.concatenate([out, np.array(extra).reshape(-1, 2)])
        return out

    def _constants(self, count_extents: bool) -> None:
        """With negations, ``a AND NOT a`` (empty) and ``a OR NOT a`` (all) are premises of size 2."""
        p = self.prep
        if not p.negations or not len(p.columns):
            return
        r = int(self.vars[0]) if len(self.vars) else 0
        tp = np.array([0, p.n_pos])
        fp = np.array([0, p.n_neg])
        scores = self._scores(tp, fp, 2)
        if self.mode:       # a AND NOT a (conjunctions) or a OR NOT a (disjunctions) only
            keep = [0] if self.mode == 1 else [1]
            tp, fp, scores = tp[keep], fp[keep], scores[keep]
        W = p.bits_p.shape[1], p.bits_n.shape[1]
        ep = np.stack([np.zeros(W[0], np.uint64), p.valid_p])
        en = np.stack([np.zeros(W[1], np.uint64), p.valid_n])
        specs = [("const", False, r), ("const", True, r)]
        if self.mode:
            ep, en, specs = ep[keep], en[keep], [specs[i] for i in keep]
        self.top.offer(scores, np.full(len(scores), 2), tp, fp, ep, en, specs)
        if self.fronts is not None:
            self.fronts.add(2, tp, fp, lambda ix: [specs[i] for i in ix])

