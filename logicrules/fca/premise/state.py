"""The state of one premise search and what every size's scan shares.

:class:`SearchState` prepares the attributes, checks the memory estimate, holds the objective,
the result list and the statistics, and offers the helpers of the scans (scores, filters,
extents of literals and cells, the ranked offering of candidates, the memory checks of size 4).
The sizes are searched by its subclasses (:mod:`~logicrules.fca.premise.small_sizes`,
:mod:`~logicrules.fca.premise.size3`, :mod:`~logicrules.fca.premise.size4`,
:mod:`~logicrules.fca.premise.size4_extents`), put together in
:mod:`~logicrules.fca.premise.search`.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import numpy as np

from logicrules.fca.premise.cost import estimate_search_cost
from logicrules.fca.premise.gram import _n_bits, _row_positions
from logicrules.fca.premise.results import (
    PremiseResult,
    PremiseSearchMemoryError,
    SearchStatistics,
    SizeStatistics,
    _Builder,
    _Fronts,
    _TopList,
    pareto_indices,
)
from logicrules.fca.premise.preparation import prepare_attributes
from logicrules.fca.premise.space import CONNECTIVES, count_premises, triple_shapes

__all__: list[str] = []

_WORK_BYTES = 32 * 2**20      # largest block of working arrays of the scans' exact scoring and seeding
_MIN_WORK_BYTES = 2**18       # smallest one (a block holds at least one candidate whatever the limit)


class SearchState:
    """State of one search: prepared attributes, objective, result list, statistics."""

    def __init__(self, X, y, keys, max_size, objective, top_k, negations, memory, progress, pareto=False,
                 size4_method="cells", backend="numba", device=None, sample_weight=None, connectives=CONNECTIVES,
                 size_cost=0.0, time_limit=None, copied_input=False):
        self.n, self.m = X.shape
        self.connectives = tuple(connectives)
        self.mode = 0 if len(self.connectives) == 2 else (1 if self.connectives == ("and",) else 2)
        self.size_cost = float(size_cost)
        self.started = time.perf_counter()
        self.deadline = None if time_limit is None else self.started + float(time_limit)
        self.complete = True
        self.size4_method = size4_method
        self.max_size = max_size
        self.objective = objective
        self.top_k = top_k
        self.memory = memory
        self.progress = progress
        self.keys = keys
        # bytes of one block of working arrays (packing, literal blocks, scoring blocks): a share of the limit
        self.work_bytes = int(min(_WORK_BYTES, max(_MIN_WORK_BYTES, memory // 16)))
        # the statistics count distinct extents of sizes 2-4 up to this many premises (16-byte keys in a set)
        self.max_extent_keys = int(memory // 1024)
        # a bool copy of a non-bool input is held while the attributes are packed
        held = X.nbytes if copied_input else 0

        def check(nbytes: float, what: str, how: str) -> None:
            self._require(nbytes + held, what + (" besides the bool copy of X" if held else ""),
                          how + ("; pass X as a bool ndarray (read in place)" if held else ""))

        self.prep = prepare_attributes(X, y, negations, sample_weight, self.work_bytes, check)
        nv = int((~self.prep.constant).sum())
        if max_size >= 4:
            if size4_method == "extents":
                self._check_size4_memory()
            elif backend == "numba":
                self._check_size4_cells_memory(nv)
        self.estimate = estimate_search_cost(self.prep, max_size, size4_method,
                                             rooms=max_size >= 4 and self._size4_cells_bytes(nv, True) <= memory)
        if self.estimate.memory_bytes > memory:
            raise PremiseSearchMemoryError(
                f"{self.estimate}: more than memory_limit={memory / 1e9:.2f} GB; raise memory_limit, use fewer "
                "attributes (a coarser binarizer) or a smaller max_size")
        self.counter = None          # the torch backend's scanner (sizes 3 and 4), when chosen
        self._vbits = None           # bitsets of the non-constant representatives, when some are constant
        if backend == "torch" and max_size >= 3:
            from logicrules.fca.premise.torch_counter import TorchCounter
            from logicrules.fca.premise.torch_device import torch_device

            p = self.prep
            weights = positions = None
            if p.weighted:
                (pos_p, w_p), (pos_n, w_n) = (_row_positions(p.seg_p, p.wseg_p, p.valid_p),
                                              _row_positions(p.seg_n, p.wseg_n, p.valid_n))
                weights, positions = (w_p, w_n), (pos_p, pos_n)
            # on a CPU device its matrices and blocks are host memory: they get what the search leaves
            on_host = torch_device(device).type == "cpu"
            self.counter = TorchCounter(*self._var_bits(), _n_bits(p, "p"), _n_bits(p, "n"), device=device,
                                        memory_limit=max(memory - self.estimate.memory_bytes, 1) if on_host else memory,
                                        row_weights=weights, row_positions=positions, staging_bytes=self.work_bytes,
                                        limit_covers_matrices=True)
        self.builder = _Builder(self.prep, keys, self.connectives)
        self.top = _TopList(top_k)
        self.vars = np.flatnonzero(~self.prep.constant)           # representatives in pairs/triples
        self.stats = SearchStatistics(
            n_objects=self.n, n_attributes=self.m, n_distinct_attributes=len(self.prep.columns),
            objective=objective.name, negations=negations, connectives=self.connectives, estimate=self.estimate,
        )
        n_lit = self.m * (2 if negations else 1)
        self.premise_counts = count_premises(n_lit, max_size)
        self.seeds: list[tuple] = []    # a few good size-2 premises to seed size 3 greedily
        self.fronts = _Fronts() if pareto else None

    # -- helpers -----------------------------------------------------------------------
    def _scores(self, tp: np.ndarray, fp: np.ndarray, size: Any = 0) -> np.ndarray:
        """The score of count arrays: the objective minus ``size_cost`` per literal (NaN: -inf)."""
        P, N = self.prep.n_pos, self.prep.n_neg
        tp = np.asarray(tp)
        fp = np.asarray(fp)
        if tp.dtype.kind == "f":  # weighted sums: rounding leaves ~1e-16 of the total, of either sign
            tol = 1e-12 * (P + N)
            tp = np.where(np.abs(tp) < tol, 0.0, tp)
            fp = np.where(np.abs(fp) < tol, 0.0, fp)
        values = np.asarray(self.objective(tp, fp, P - tp, N - fp), dtype=np.float64)
        values = np.broadcast_to(values, np.broadcast(tp, fp).shape)
        if self.size_cost:
            values = values - self.size_cost * np.asarray(size, dtype=np.float64)
        return np.where(np.isnan(values), -np.inf, values)

    def _filter(self, threshold: float, size: int):
        """The objective's linear filter for premises of ``size`` beating ``threshold`` (None: none can)."""
        return self.objective.filter(threshold + self.size_cost * size, self.prep.n_pos, self.prep.n_neg,
                                     integer_counts=not self.prep.weighted)

    def _out_of_time(self) -> bool:
        """Whether ``time_limit`` has passed (the search then stops with what it has, incomplete)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.complete = False
        return not self.complete

    def _var_bits(self) -> tuple[np.ndarray, np.ndarray]:
        """Bitsets of the non-constant representatives over positives and negatives.

        The prepared bitsets themselves when no representative is constant (no copy), else one
        copy kept for the whole search.
        """
        p = self.prep
        if not p.constant.any():
            return p.bits_p, p.bits_n
        if self._vbits is None:
            v = np.flatnonzero(~p.constant)
            self._vbits = (np.ascontiguousarray(p.bits_p[v]), np.ascontiguousarray(p.bits_n[v]))
        return self._vbits

    def _count(self, bits_p: np.ndarray, bits_n: np.ndarray):
        """``(tp, fp)`` of packed extents (weighted sums with row weights)."""
        return self.prep.count_p(bits_p), self.prep.count_n(bits_n)

    def _kernel_weights(self) -> tuple:
        p = self.prep
        return p.seg_p, p.wseg_p, p.seg_n, p.wseg_n

    def _lit_bits(self, r: np.ndarray, negated: np.ndarray):
        """Bits (k, W) of literals (representative r, polarity) over positives and negatives."""
        p = self.prep
        bp = p.bits_p[r].copy()
        bn = p.bits_n[r].copy()
        neg = np.asarray(negated, dtype=bool)
        if neg.any():
            bp[neg] = ~bp[neg] & p.valid_p
            bn[neg] = ~bn[neg] & p.valid_n
        return bp, bn

    def _extent_keys(self, ep: np.ndarray, en: np.ndarray) -> list[bytes]:
        """A 16-byte digest of each extent (rows of ``ep``, ``en``) for counting distinct extents.

        The statistics keep one per scored premise, so a key is a digest (collisions: about
        ``k**2 / 2**129``), not the extent's bits.
        """
        return [hashlib.blake2b(a.tobytes() + b.tobytes(), digest_size=16).digest() for a, b in zip(ep, en)]

    def _cells_bits(self, variables: np.ndarray):
        """Cell bitsets (k, 2**v, W) of the truth tables of ``variables`` (k, v)."""
        k, v = variables.shape
        out_p = []
        out_n = []
        for cell in range(2**v):
            values = [(cell >> (v - 1 - i)) & 1 for i in range(v)]
            bp = bn = None
            for i in range(v):
                lp, ln = self._lit_bits(variables[:, i], np.full(k, values[i] == 0))
                bp, bn = (lp, ln) if bp is None else (bp & lp, bn & ln)
            out_p.append(bp)
            out_n.append(bn)
        return np.stack(out_p, axis=1), np.stack(out_n, axis=1)

    def _extents_from_cells(self, cells_p, cells_n, masks: np.ndarray):
        """OR of the cells selected by ``masks`` (k,) for each row of cells (k, c, W)."""
        c = cells_p.shape[1]
        sel = ((masks[:, None] >> np.arange(c)[None, :]) & 1).astype(bool)
        ep = np.bitwise_or.reduce(np.where(sel[:, :, None], cells_p, np.uint64(0)), axis=1)
        en = np.bitwise_or.reduce(np.where(sel[:, :, None], cells_n, np.uint64(0)), axis=1)
        return ep, en

    def _offer_ranked(self, scores, sizes, tp, fp, materialize) -> None:
        """Offer candidates best first, in growing batches, until none can enter the list.

        ``materialize(indices) -> (bits_p, bits_n, specs)`` builds extents and specs of the chosen
        candidates only. Batches continue past duplicates of extents already listed, so the
        ``top_k`` distinct extents are found however many premises share an extent.
        """
        scores = np.asarray(scores).ravel()
        sizes = np.broadcast_to(np.asarray(sizes), scores.shape)
        idx = np.flatnonzero(scores > self.top.threshold())
        if not len(idx):
            return
        order = idx[np.lexsort((sizes[idx], -scores[idx]))]
        start, batch = 0, 4 * self.top_k + 8
        while start < len(order) and scores[order[start]] > self.top.threshold():
            chunk = order[start:start + batch]
            ep, en, specs = materialize(chunk)
            self.top.offer(scores[chunk], sizes[chunk], tp[chunk], fp[chunk], ep, en, specs)
            start += len(chunk)
            batch *= 2

    def _require(self, nbytes: float, what: str, how: str) -> None:
        """Refuse ``what`` (``nbytes``) when it exceeds ``memory_limit``, saying ``how`` to need less."""
        if nbytes > self.memory:
            raise PremiseSearchMemoryError(
                f"{what} needs about {nbytes / 1e9:.3g} GB, more than memory_limit={self.memory / 1e9:.3g} GB; "
                f"{how}, or raise memory_limit")

    def _check_buffer(self, size: int, need: int, what: str) -> None:
        """Refuse a candidate buffer of ``need`` bytes larger than ``memory_limit``."""
        if need > self.memory:
            raise PremiseSearchMemoryError(
                f"size-{size} candidate buffer needs {need / 1e9:.2f} GB > memory_limit; the objective's "
                f"threshold lets too many {what} through (raise memory_limit or lower top_k)")

    def _tick(self, size, started, combos, tested, new, counted=None) -> None:
        self.stats.sizes.append(SizeStatistics(
            size=size, premises=self.premise_counts[size - 1], extent_combinations=int(combos),
            counted=int(tested if counted is None else counted), tested=int(tested), new_extents=None if new is None else int(new),
            kept=len(self.top.entries), best_score=float(self.top.best()),
            seconds=time.perf_counter() - started,
        ))

    def _triple_count_dtype(self):
        p = self.prep
        if p.weighted:
            return np.float64
        return np.int16 if max(p.n_pos, p.n_neg) < 2**15 else np.int32

    def _size4_cells_bytes(self, nv: int, rooms: bool) -> int:
        """Memory of size 4 by cells: 3-way counts per class (and the triples' rooms), pair tables."""
        per_triple = 2 * np.dtype(self._triple_count_dtype()).itemsize + (4 if rooms else 0)
        return per_triple * (nv * (nv - 1) * (nv - 2) // 6) + 104 * nv * nv

    def _check_size4_cells_memory(self, nv: int) -> None:
        """Size 4 by cells keeps the 3-way counts of all attribute triples: refuse if they cannot fit."""
        estimate = self._size4_cells_bytes(nv, rooms=False)
        if estimate > self.memory:
            raise PremiseSearchMemoryError(
                f"size 4 keeps the 3-way counts of every attribute triple: about {estimate / 1e9:.2f} GB "
                f"for {nv} distinct non-constant attributes, more than memory_limit={self.memory / 1e9:.2f} GB. "
                "Use max_size=3, fewer attributes (e.g. a coarser binarizer), or raise memory_limit "
                f"(time also grows as m^4/24 attribute quadruples: {nv**4 / 24:.2g} here).")

    def _check_size4_memory(self) -> None:
        """Size 4 materializes every extent of size <= 3: refuse before any work if it cannot fit."""
        p = self.prep
        nv = int((~p.constant).sum())
        wp, wn = p.bits_p.shape[1], p.bits_n.shape[1]
        n_shapes3 = len(triple_shapes(p.negations, self.connectives))
        estimate = (nv * (nv - 1) * (nv - 2) // 6 * n_shapes3 + nv * nv * 8 + 2 * len(p.columns)) \
            * (wp + wn) * 8 * 3
        if estimate > self.memory:
            raise PremiseSearchMemoryError(
                f"size 4 materializes every distinct extent of size <= 3: about {estimate / 1e9:.1f} GB "
                f"for {nv} distinct non-constant attributes, more than memory_limit="
                f"{self.memory / 1e9:.2f} GB. Use max_size=3, fewer attributes (e.g. a coarser "
                "binarizer), or raise memory_limit.")

    # -- results -----------------------------------------------------------------------
    def pareto(self) -> dict[int, list[PremiseResult]]:
        """Per size k, the non-dominated premises of size <= k (see ``SearchStatistics.pareto``)."""
        P, N = self.prep.n_pos, self.prep.n_neg
        out = {}
        dtype = np.float64 if self.prep.weighted else np.int64
        tp = np.zeros(0, dtype)
        fp = np.zeros(0, dtype)
        specs: list = []
        sizes = np.zeros(0, np.int64)
        for size in range(1, self.max_size + 1):
            if size in self.fronts.fronts:
                t, f, sp = self.fronts.fronts[size]
                tp, fp = np.concatenate([tp, t]), np.concatenate([fp, f])
                sizes = np.concatenate([sizes, np.full(len(t), size)])
                specs = specs + list(sp)
            keep = pareto_indices(tp, fp)          # stable: the smaller premise wins a tie
            tp, fp, sizes, specs = tp[keep], fp[keep], sizes[keep], [specs[i] for i in keep]
            scores = self._scores(tp, fp, sizes)
            out[size] = [PremiseResult(formula=self.builder.build(sp), score=float(sc), tp=t.item(), fp=f.item(),
                                       fn=P - t.item(), tn=N - f.item(), size=int(sz))
                         for t, f, sp, sc, sz in zip(tp, fp, specs, scores, sizes)]
        return out

    def results(self) -> list[PremiseResult]:
        out = []
        P, N = self.prep.n_pos, self.prep.n_neg
        for score, size, tp, fp, spec in self.top.sorted():
            out.append(PremiseResult(formula=self.builder.build(spec), score=float(score), tp=tp, fp=fp,
                                     fn=P - tp, tn=N - fp, size=size))
        return out



class _dynamic_schedule:
    """Give parallel loop iterations to threads one at a time (their costs differ widely)."""

    def __enter__(self):
        import numba

        self._old = numba.get_parallel_chunksize()
        numba.set_parallel_chunksize(1)

    def __exit__(self, *exc):
        import numba

        numba.set_parallel_chunksize(self._old)


def _progress_bar(enabled: bool, total: int, desc: str):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm: pip install tqdm") from None
    return tqdm(total=total, desc=desc, unit="attr")
