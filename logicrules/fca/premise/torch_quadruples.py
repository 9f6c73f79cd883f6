"""The torch backend's size-4 scan: attribute quadruples and triples by matrix products.

For a first attribute ``a``, ``|a AND x AND y|`` over all ``x, y`` is one GEMM of the
counter's 0/1 matrices, and for a list of triples ``(a, b, c)`` the 4-way counts over all ``d``
are one more; the exact proximity pruning of the numba scan
(:func:`~logicrules.fca.premise.quadruple_scan.scan_quadruples`) decides, as whole rows of
masks, which triples are worth a GEMM row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from logicrules.fca.premise.results import PremiseSearchMemoryError
from logicrules.fca.premise.torch_closed_forms import _best_cells, _best_read_once4, _mobius_, _suffix_min

if TYPE_CHECKING:
    from logicrules.fca.premise.torch_counter import TorchCounter

__all__ = ["QuadrupleScan"]

_QUAD_CANDIDATE_BYTES = 2048    # peak bytes per candidate quadruple in the closed form of size 4
_CELL_BYTES = 640               # peak bytes per quadruple whose 16 cells are computed


class QuadrupleScan:
    """Premises of size 4 passing one linear test, by attribute quadruples and triples, with torch.

    The counterpart of numba's :func:`~logicrules.fca.premise.quadruple_scan.scan_quadruples` and
    :func:`~logicrules.fca.premise.quadruple_scan.triple_rooms` for one linear test
    ``alpha tp + beta fp >= threshold``. A quadruple ``a < b < c < d`` is kept when the sum of
    its positive weighted cells and the best read-once formula of 4 literals reach the
    threshold; a triple ``a < b < c`` when the best function of ``rep_cells`` over its 8 cells
    does (premises of size 4 repeating an attribute). Comparisons have the slack of
    :meth:`TorchCounter.scan_triples`, so the results hold what numba keeps.

    With ``elim`` and ``elim_const`` (the substitution bounds of the search's proximity pruning)
    the scan skips what cannot pass, with the same exact tests as the numba kernel: each triple
    has a room ``threshold - M3 - slack`` (``M3`` bounds every premise of size <= 4 over it);
    the construction computes the least room ``row_min[a, b]`` of the triples ``(a, b, .)``
    (one pass of triple tables over all first attributes). :meth:`run` then works per first
    attribute ``a``:

    1. the triple table of ``a``: ``|a AND x AND y|`` for all ``x, y > a`` (one GEMM per class),
       the 8 cells, the best function of ``rep_cells`` and the room of every ``(a, b, c)``;
    2. the pairs ``(b, c)`` left by the range skips (``a`` or ``b`` replaceable whatever ``c, d``
       are; ``c`` replaceable whatever ``d`` is);
    3. per chunk of those pairs: the tests on ``d`` from the rooms of ``(a, b, c)``, ``(a, b,
       d)`` and ``(a, c, d)``; for the pairs with a ``d`` left, two GEMMs per class give
       ``|a b c d|`` and ``|b c d|`` for all ``d``; the 16 cells of the quadruples left, their
       positive sum and the closed form.

    Without ``elim`` nothing is skipped (every quadruple's cells are computed). ``counted``
    adds up the quadruples whose cells were computed, as numba's ``out_counted``.

    Memory: half of the counter's ``memory_limit`` for the triple table of one ``a`` (about
    ``160 mr^2 + s mr n`` bytes, ``mr = m - a - 1``, ``s`` = 2 bytes on CUDA, 4 on the CPU,
    ``n`` the larger class) and the chunks of pairs (``2 s n + 112 mr`` bytes per pair); the
    other half for the chunks of cells and closed forms.
    On top, resident: ``5 m^2`` float64 (pair weights, bounds, least rooms).

    Parameters
    ----------
    counter : TorchCounter
    alpha, beta, w_single, w_pair, w_total, threshold, negations
        As in :meth:`TorchCounter.scan_triples`.
    rep_cells : float (L, 8)
        0/1 cell matrix of the functions of a triple computed by premises of size 4 with
        repeated attributes (cell ``k = 4 va + 2 vb + vc``).
    elim : float (m, m), optional
        ``elim[x, y]``: bound on what a premise loses when attribute ``x`` is replaced by ``y``.
    elim_const : float (m,), optional
        The same for ``x`` replaced by a constant. Give both or neither.
    mode : int
        0: every read-once formula of 4 literals; 1: conjunctions only; 2: disjunctions only.
    """

    def __init__(self, counter: TorchCounter, alpha: float, beta: float, w_single: np.ndarray, w_pair: np.ndarray,
                 w_total: float, threshold: float, negations: bool, rep_cells: np.ndarray,
                 elim: np.ndarray | None = None, elim_const: np.ndarray | None = None, mode: int = 0):
        torch = counter._torch
        self._torch = torch
        self.counter = counter
        (self.alpha, self.beta, self.ws, self.wp, self.w_total, self.threshold,
         self.slack) = counter._weights(alpha, beta, w_single, w_pair, w_total, threshold)
        self.thr = self.threshold - self.slack
        self.negations = bool(negations)
        self.mode = int(mode)
        rep = np.asarray(rep_cells, dtype=np.float64)
        if rep.ndim != 2 or rep.shape[1] != 8 or not len(rep):
            raise ValueError(f"rep_cells must have shape (L, 8) with L >= 1, got {rep.shape}")
        m = counter.m
        (self.elim, self.elim_const), self.pruned = counter._pruning_tables(elim=elim, elim_const=elim_const)
        self.elim_t = self.elim.T.contiguous()
        dev = counter.device
        self.rep = torch.as_tensor(rep, device=dev)
        self.block_budget = counter.memory_limit // 2
        chunk_budget = counter.memory_limit - self.block_budget
        self.quad_chunk = chunk_budget // _QUAD_CANDIDATE_BYTES
        self.cell_chunk = chunk_budget // _CELL_BYTES
        self.rep_chunk = chunk_budget // (8 * len(rep) + 256)
        if min(self.quad_chunk, self.rep_chunk) < 1:
            raise PremiseSearchMemoryError(
                f"memory_limit={counter.memory_limit} bytes leaves no room for the closed form of "
                "size 4")
        self.counted = 0
        with torch.inference_mode():
            self.row_min = self._row_min() if self.pruned else torch.full((m, m), -np.inf, dtype=torch.float64,
                                                                          device=dev)
            # least_room_a[a, c]: the least room of the triples (a, c', d), c' >= c; least_b[b]: of (b, ., .)
            self.least_room_a = torch.full((m, m + 1), np.inf, dtype=torch.float64, device=dev)
            self.least_room_a[:, :m] = _suffix_min(torch, self.row_min)
            self.least_b = self.row_min.amin(1)

    def _best(self, W):
        """Best premise of 4 literals over the 16 cells ``W`` (16, N) in this scan's premise space."""
        if self.mode:
            return _best_cells(self._torch, W, self.negations, self.mode)
        return _best_read_once4(self._torch, W, self.negations, self.counter._half, self.counter._pair)

    def _table_bytes(self, mr: int) -> int:
        """Peak bytes of the triple table of one first attribute (``mr`` attributes after it)."""
        return 160 * mr * mr + self.counter._gemm_bytes(mr)

    def _triple_table(self, A, r0: int):
        """Triple tables of the first attributes ``A`` (long (B,)), over ``x, y`` in ``r0 .. m - 1``.

        Returns ``(D, R, keep)``, each (B, mr, mr): ``D`` the weighted ``|a x y|``, ``R`` the room
        of the triple ``(a, x, y)`` (inf unless ``a < x < y``), ``keep`` whether the best
        function of ``rep_cells`` passes.
        """
        torch = self._torch
        m = self.counter.m
        mr = m - r0
        x = torch.arange(r0, m, device=self.counter.device)
        D = self.counter._weighted_products((A.repeat_interleave(mr), x.repeat(len(A))), r0, self.alpha,
                                            self.beta).view(len(A), mr, mr)
        ws, wp = self.ws, self.wp
        F = torch.empty((2, 2, 2, len(A), mr, mr), dtype=torch.float64, device=self.counter.device)
        F[0, 0, 0] = self.w_total
        F[1, 0, 0] = ws[A][:, None, None]
        F[0, 1, 0] = ws[r0:][None, :, None]
        F[0, 0, 1] = ws[r0:][None, None, :]
        w_ax = wp[A][:, r0:]
        F[1, 1, 0] = w_ax[:, :, None]
        F[1, 0, 1] = w_ax[:, None, :]
        F[0, 1, 1] = wp[r0:, r0:][None]
        F[1, 1, 1] = D
        _mobius_(F, 3)
        G = F.view(8, -1)
        m3 = G.clamp_min(0).sum(0)                      # bounds every function of the 8 cells
        idx = (m3 >= self.thr).nonzero().ravel()
        for s in range(0, len(idx), self.rep_chunk):
            part = idx[s:s + self.rep_chunk]
            m3[part] = (self.rep @ G[:, part]).amax(0)
        del F, G
        valid = (x[None, :, None] > A[:, None, None]) & (x[None, None, :] > x[None, :, None])
        m3 = m3.view(len(A), mr, mr)
        keep = (m3 >= self.thr) & valid
        R = (self.threshold - self.slack) - m3.clamp_min_(max(0.0, self.w_total))
        R.masked_fill_(~valid, np.inf)
        return D, R, keep

    def _row_min(self):
        """``row_min[a, b]``: the least room of the triples ``(a, b, c)``, ``c > b`` (inf: none)."""
        torch = self._torch
        m = self.counter.m
        row_min = torch.full((m, m), np.inf, dtype=torch.float64, device=self.counter.device)
        i = 0
        while i < m - 2:
            r0 = i + 1
            count = self.block_budget // self._table_bytes(m - r0)
            if count < 1:
                raise PremiseSearchMemoryError(
                    f"the torch quadruple scan needs about {self._table_bytes(m - r0) / 1e6:.1f} MB "
                    f"for the triple table of one attribute ({m} attributes), more than half of "
                    f"memory_limit={self.counter.memory_limit / 1e6:.1f} MB")
            A = torch.arange(i, min(i + count, m - 2), device=self.counter.device)
            row_min[A, r0:] = self._triple_table(A, r0)[1].amin(2)
            i += len(A)
        return row_min

    def run(self, a_list: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scan the first attributes ``a_list``; returns ``(quads, trips)`` sorted lexicographically.

        Parameters
        ----------
        a_list : int array (k,)

        Returns
        -------
        quads : int64 ndarray (k, 4)
        trips : int64 ndarray (j, 3)
        """
        a_sorted = self.counter._first_attributes(a_list)
        quads, trips = [], []
        with self._torch.inference_mode():
            for a in a_sorted[a_sorted < self.counter.m - 2]:
                self._scan_first(int(a), quads, trips)
        return (np.concatenate(quads) if quads else np.zeros((0, 4), np.int64),
                np.concatenate(trips) if trips else np.zeros((0, 3), np.int64))

    def _scan_first(self, a: int, quads: list, trips: list) -> None:
        torch = self._torch
        m = self.counter.m
        dev = self.counter.device
        r0 = a + 1
        mr = m - r0
        fixed = self._table_bytes(mr)
        per_pair = 2 * self.counter._itemsize() * max(self.counter.n_pos, self.counter.n_neg, 1) + 112 * mr
        pair_chunk = (self.block_budget - fixed) // per_pair
        if pair_chunk < 1:
            raise PremiseSearchMemoryError(
                f"the torch quadruple scan needs about {(fixed + per_pair) / 1e6:.1f} MB for one "
                f"attribute ({m} attributes), more than half of "
                f"memory_limit={self.counter.memory_limit / 1e6:.1f} MB")
        D, R, keep = (t[0] for t in self._triple_table(torch.tensor([a], device=dev), r0))
        b, c = keep.nonzero(as_tuple=True)
        trips.append(torch.stack([torch.full_like(b, a), b + r0, c + r0], 1).cpu().numpy())
        del keep, b, c
        if mr < 3:
            return
        x = torch.arange(r0, m, device=dev)
        E = self.elim[r0:, r0:]                                     # E[i, j] = elim[r0 + i, r0 + j]
        near_a = torch.minimum(self.elim[a, r0:], self.elim_const[a])   # a replaced by b or a constant
        near_b = torch.minimum(self.elim[r0:, a], self.elim_const[r0:])
        # whole ranges: b (by a or a constant) or a (by b or a constant) for every (c, d)
        skip_b = (near_b < self.least_room_a[a, r0 + 1:]) | (near_a < self.least_b[r0:])
        # c by a, b or a constant, or b, a by c, for every d
        near_c = torch.minimum(torch.minimum(self.elim[r0:, a][None, :], E.T), self.elim_const[r0:][None, :])
        later = torch.full((mr, mr), np.inf, dtype=torch.float64, device=dev)
        later[:, :-1] = _suffix_min(torch, R)[:, 1:]               # least room of (a, b, c'), c' > c
        ok = near_c >= later
        del later
        ok &= torch.minimum(near_b[:, None], E) >= self.row_min[a, r0:][None, :]
        ok &= torch.minimum(near_a[:, None], self.elim[a, r0:][None, :]) >= self.row_min[r0:, r0:]
        ok &= (x[None, :] > x[:, None]) & (x[None, :] < m - 1) & ~skip_b[:, None]
        pb, pc = ok.nonzero(as_tuple=True)
        del ok
        for s in range(0, len(pb), pair_chunk):
            self._scan_pairs(a, r0, pb[s:s + pair_chunk], pc[s:s + pair_chunk], D, R, E, near_b, near_c, quads)

    def _scan_pairs(self, a, r0, b, c, D, R, E, near_b, near_c, quads) -> None:
        """Quadruples ``(a, b, c, d)`` of the pairs ``b, c`` (long, local to ``r0``) passing the test."""
        torch = self._torch
        d0 = int(c.min()) + 1                   # d runs over d0 .. mr - 1 (local)
        ba, ca = b + r0, c + r0
        # d replaced by a, b, c or a constant: the room of (a, b, c)
        keep = torch.minimum(torch.minimum(self.elim_t[a, r0 + d0:][None, :], self.elim_t[ba, r0 + d0:]),
                             torch.minimum(self.elim_t[ca, r0 + d0:], self.elim_const[r0 + d0:][None, :])) \
            >= R[b, c][:, None]
        keep &= torch.arange(d0, R.shape[0], device=keep.device)[None, :] > c[:, None]
        # c replaced by a, b, d or a constant: the room of (a, b, d)
        keep &= torch.minimum(near_c[b, c][:, None], E[c, d0:]) >= R[b, d0:]
        # b replaced by a, c, d or a constant: the room of (a, c, d)
        keep &= torch.minimum(torch.minimum(near_b[b], E[b, c])[:, None], E[b, d0:]) >= R[c, d0:]
        rows = keep.any(1).nonzero().ravel()
        if not len(rows):
            return
        keep, b, c, ba, ca = keep[rows], b[rows], c[rows], ba[rows], ca[rows]
        start = r0 + d0
        abcd = self.counter._weighted_products((a, ba, ca), start, self.alpha, self.beta)
        bcd = self.counter._weighted_products((ba, ca), start, self.alpha, self.beta)
        k, d = keep.nonzero(as_tuple=True)
        del keep
        self.counted += len(k)
        ws, wp = self.ws, self.wp
        for s in range(0, len(k), self.cell_chunk):
            kk, dd = k[s:s + self.cell_chunk], d[s:s + self.cell_chunk]
            bl, cl, dl = b[kk], c[kk], dd + d0
            bq, cq, dq = bl + r0, cl + r0, dl + r0
            F = torch.empty((2, 2, 2, 2, len(kk)), dtype=torch.float64, device=abcd.device)
            F[1, 1, 1, 1] = abcd[kk, dd]
            F[0, 1, 1, 1] = bcd[kk, dd]
            F[1, 1, 1, 0] = D[bl, cl]
            F[1, 1, 0, 1] = D[bl, dl]
            F[1, 0, 1, 1] = D[cl, dl]
            F[0, 0, 0, 0] = self.w_total
            F[1, 0, 0, 0] = ws[a]
            F[0, 1, 0, 0] = ws[bq]
            F[0, 0, 1, 0] = ws[cq]
            F[0, 0, 0, 1] = ws[dq]
            F[1, 1, 0, 0] = wp[a, bq]
            F[1, 0, 1, 0] = wp[a, cq]
            F[1, 0, 0, 1] = wp[a, dq]
            F[0, 1, 1, 0] = wp[bq, cq]
            F[0, 1, 0, 1] = wp[bq, dq]
            F[0, 0, 1, 1] = wp[cq, dq]
            _mobius_(F, 4)
            W = F.view(16, -1)
            idx = (W.clamp_min(0).sum(0) >= self.thr).nonzero().ravel()
            passed = [idx[i:i + self.quad_chunk][self._best(W[:, idx[i:i + self.quad_chunk]]) >= self.thr]
                      for i in range(0, len(idx), self.quad_chunk)]
            if passed:
                idx = torch.cat(passed)
                quads.append(torch.stack([torch.full_like(idx, a), bq[idx], cq[idx], dq[idx]], 1).cpu().numpy())
