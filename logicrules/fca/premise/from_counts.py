"""The optimal premise search driven by a :class:`~logicrules.fca.counts.Counts` (chunked, distributed).

:func:`find_best_premises_from_counts` returns what :func:`~logicrules.fca.premise.search.find_best_premises`
returns on the same rows (the ``top_k`` best distinct extents of premises of size <= 4 for any
objective, with negations, weights, restricted connectives and a size cost), but it reads the
data only through the counting interface, in *passes* (one map over the row blocks or
partitions and a sum): it never holds the rows, so it runs out of core over
:class:`~logicrules.fca.counts.ChunkedCounts` and on a cluster over a dask implementation.

* Sizes 1 and 2 come from the class totals and the per-class Gram matrices (two passes): single
  and pair counts give every literal and every premise over two attributes, and they merge
  equal (with negations: complementary) attributes and set constant ones aside, as the
  in-memory search does.
* Sizes 3 and 4 proceed in rounds of one counting pass each. The driver bounds every triple
  (quadruple) not counted yet with the objective's linear filter at the current threshold and
  the exact proximity pruning of the in-memory search, plus an interval on the one count it
  lacks (:mod:`logicrules.fca.premise.from_counts_kernels`); the best-bounded survivors, at most a
  batch, go to :meth:`~logicrules.fca.counts.Counts.cell_counts`, are scored exactly and raise
  the threshold; the next round bounds the rest again, until none survives. Batches grow
  geometrically (few passes when the first ones find the optimum). Size 4 first counts the
  3-way counts of every triple (passes over all triples) and scores the premises of size 4
  repeating an attribute on them.
* Distinct extents: premises with equal counts may share an extent; the result list keeps them
  together (one entry for the threshold, which keeps pruning exact) and, for ``top_k > 1``,
  tells them apart at the end with cell counts over the union of their attributes.

Memory is bounded by ``memory_limit``: the fixed tables (Gram matrices, pair bounds, for size 4
the 3-way counts of all triples and a bitmap of the counted quadruples) are estimated before
they are allocated and a search that cannot fit raises
:class:`~logicrules.fca.premise.results.PremiseSearchMemoryError`; the rest sizes the candidate batches
(a batch of ``t`` combinations of ``r`` attributes holds ``2 * t * 2**r`` counts on the driver
and in each partition's partial result).
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from logicrules.fca.counts import Counts
from logicrules.fca.premise import from_counts_kernels as ck
from logicrules.fca.premise.from_counts_extents import _DistinctExtents, _Groups
from logicrules.fca.premise.inputs import _no_premise_error, _search_arguments
from logicrules.fca.premise.pruning import Pruning
from logicrules.fca.premise.results import PremiseResult, PremiseSearchMemoryError, _Builder
from logicrules.fca.premise.space import (
    _quadruple_index_tables,
    pair_shapes,
    quadruple_shapes,
    repeat_shapes,
    shape_matrix,
    shape_size,
    triple_shapes,
)
from logicrules.memory import DEFAULT_MEMORY_LIMIT, MemoryBudget
from logicrules.metrics import Objective

__all__ = ["find_best_premises_from_counts"]

_FIRST_BATCH = 256          # combinations counted in the first pass of a size (then x8 per pass)
_WORK_BYTES = 32 * 2**20     # largest block of scoring arrays (the in-memory search's share too)
_MIN_WORK_BYTES = 2**18
_COUNT_BYTES = 8 * 4        # bytes per cell count of a batch: the driver's sum, a partial, scores


def _comb(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out if n >= k else 0


class _CountsSearch(_DistinctExtents):
    """State of one search over counts: prepared attributes, bounds, result groups."""

    def __init__(self, counts: Counts, max_size: int, objective: Objective, top_k: int, negations: bool,
                 memory: int, connectives: tuple[str, ...], size_cost: float):
        self.counts = counts
        self.max_size = max_size
        self.objective = objective
        self.top_k = top_k
        self.negations = negations
        self.memory = memory
        # bytes of one block of scoring arrays (candidates x shapes): a share of the limit
        self.work_bytes = int(min(_WORK_BYTES, max(_MIN_WORK_BYTES, memory // 16)))
        self.connectives = connectives
        self.mode = 0 if len(connectives) == 2 else (1 if connectives == ("and",) else 2)
        self.size_cost = size_cost
        self.weighted = counts.weighted
        self.passes = 0
        m = counts.n_attributes
        self._require(3 * 8 * m * m, f"the Gram matrices of {m} attributes", "use fewer attributes")
        totals = counts.class_totals()
        gram = counts.gram()
        self.passes += 2
        self.n_neg, self.n_pos = (float(totals[0]), float(totals[1])) if self.weighted \
            else (int(totals[0]), int(totals[1]))
        self.tolerance = 1e-9 * (self.n_pos + self.n_neg) if self.weighted else 0.0
        self._prepare(gram[1], gram[0])
        self.builder = _Builder(self.prep, list(counts.attributes), connectives)
        self.top = _Groups(top_k, self.tolerance)
        for size in range(3, max_size + 1):        # refuse before any further pass
            self._batch_limit(size, self._fixed_bytes(size))

    def _fixed_bytes(self, size: int) -> float:
        """Tables a size holds through its rounds: pair bounds, bitmap of counted combinations, 3-way counts."""
        nv = len(self.vars)
        fixed = 80.0 * nv * nv + _comb(nv, size) / 8
        if size == 4:
            fixed += 2 * 8 * _comb(nv, 3)
        return fixed

    # -- memory ------------------------------------------------------------------------
    def _require(self, nbytes: float, what: str, how: str) -> None:
        if nbytes > self.memory:
            raise PremiseSearchMemoryError(
                f"the premise search over counts needs about {nbytes / 1e9:.2f} GB for {what}, more than "
                f"memory_limit={self.memory / 1e9:.2f} GB; {how} or raise memory_limit")

    def _batch_limit(self, r: int, fixed: float) -> int:
        """Most combinations of ``r`` attributes one pass may count beside ``fixed`` bytes of tables."""
        per = 2 * (1 << r) * _COUNT_BYTES
        limit = int((self.memory - fixed) // per)
        if limit < 64:
            nv = len(self.vars)
            what = f"the pair bounds of {nv} distinct attributes, a bitmap of their combinations of {r}" + \
                (f", the 3-way counts of their {_comb(nv, 3)} triples" if r == 4 else "") + \
                f" and a batch of 64 combinations to count (size {r})"
            self._require(fixed + 64 * per, what, f"use max_size={r - 1}, fewer attributes (a coarser binarizer)")
        return limit

    # -- attributes --------------------------------------------------------------------
    def _prepare(self, gram_p: np.ndarray, gram_n: np.ndarray) -> None:
        """Merge equal (complementary) attributes, set constants aside, keep the pair tables."""
        tol = self.tolerance
        tp, fp = np.diagonal(gram_p).copy(), np.diagonal(gram_n).copy()

        def close(x, y):
            return np.abs(x - y) <= tol

        equal = close(tp[:, None], gram_p) & close(tp[None, :], gram_p) \
            & close(fp[:, None], gram_n) & close(fp[None, :], gram_n)
        same = equal
        if self.negations:
            opposite = close(gram_p, 0) & close(gram_n, 0) & close(tp[:, None] + tp[None, :], self.n_pos) \
                & close(fp[:, None] + fp[None, :], self.n_neg)
            same = equal | opposite
        first = np.argmax(same, axis=1)                 # the first attribute of each one's class
        reps = np.flatnonzero(first == np.arange(len(first)))
        complement = np.full(len(reps), -1, dtype=np.int64)
        if self.negations:
            for i, r in enumerate(reps):
                flipped = np.flatnonzero((first == r) & ~equal[r])
                if len(flipped):
                    complement[i] = flipped[0]
        self.tp, self.fp = tp[reps], fp[reps]
        constant = (close(self.tp, 0) & close(self.fp, 0)) | (close(self.tp, self.n_pos) & close(self.fp, self.n_neg))
        self.prep = types.SimpleNamespace(columns=reps.astype(np.int64), complement=complement, constant=constant,
                                          negations=self.negations, n_pos=self.n_pos, n_neg=self.n_neg,
                                          tp=self.tp, fp=self.fp)
        self.vars = np.flatnonzero(~constant)
        v = reps[self.vars]
        self.pair_p = np.ascontiguousarray(gram_p[np.ix_(v, v)])
        self.pair_n = np.ascontiguousarray(gram_n[np.ix_(v, v)])

    # -- scoring -----------------------------------------------------------------------
    def _scores(self, tp, fp, size) -> np.ndarray:
        fn, tn = self._snap(self.n_pos - np.asarray(tp)), self._snap(self.n_neg - np.asarray(fp))
        values = np.asarray(self.objective(tp, fp, fn, tn), dtype=np.float64)
        values = np.broadcast_to(values, np.broadcast(np.asarray(tp), np.asarray(fp)).shape)
        if self.size_cost:
            values = values - self.size_cost * np.asarray(size, dtype=np.float64)
        return np.where(np.isnan(values), -np.inf, values)

    def _snap(self, counts: np.ndarray) -> np.ndarray:
        """Weighted counts from differences of sums: residues within the tolerance are 0 (an empty cell)."""
        return np.where(counts <= self.tolerance, 0.0, counts) if self.weighted else counts

    def _filter(self, size: int):
        """The objective's linear filter at the current threshold and its weights (None: none can pass)."""
        threshold = self.top.threshold()
        filt = self.objective.filter(threshold + self.size_cost * size, self.n_pos, self.n_neg,
                                     integer_counts=not self.weighted)
        if filt is None:
            return None
        tpv, fpv = self.tp[self.vars].astype(np.float64), self.fp[self.vars].astype(np.float64)
        w_single = filt.alpha * tpv + filt.beta * fpv
        w_pair = filt.alpha * self.pair_p + filt.beta * self.pair_n.astype(np.float64)
        w_total = filt.alpha * self.n_pos + filt.beta * self.n_neg
        prox = Pruning._proximity_pruning(self, filt, w_single, w_pair, w_total)
        return filt, w_single, w_pair, float(w_total), prox

    def _cells(self, variables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-class cells (t, 2**r) of combinations of representatives (first = most significant bit)."""
        self.passes += 1
        columns = self.prep.columns[variables][:, ::-1]
        out = self.counts.cell_counts(np.ascontiguousarray(columns))
        return out[1], out[0]

    def _score_cells(self, variables: np.ndarray, cells_p, cells_n, shapes, sizes: np.ndarray, kind: str) -> None:
        """Score every shape over each combination (cells known) and offer the candidates."""
        M = shape_matrix(shapes, variables.shape[1])
        nf = len(shapes)
        step = max(1, self.work_bytes // (48 * nf))        # tp, fp, scores, sizes and temporaries
        for start in range(0, len(variables), step):
            var = variables[start:start + step]
            tp = (cells_p[start:start + step] @ M.T).ravel()
            fp = (cells_n[start:start + step] @ M.T).ravel()
            size = np.tile(sizes, len(var))
            flat = self._scores(tp, fp, size)

            def specs_of(ix, var=var):
                rows, f = np.divmod(ix, nf)
                if kind == "f3":
                    return [("f3", *(int(x) for x in var[r]), int(ff)) for r, ff in zip(rows, f)]
                return [("shape", tuple(int(x) for x in var[r]), shapes[ff]) for r, ff in zip(rows, f)]

            self.top.offer(flat, size, tp, fp, specs_of)

    # -- sizes 1 and 2 -----------------------------------------------------------------
    def size1(self) -> None:
        r = np.arange(len(self.tp))
        neg = np.zeros(len(r), dtype=bool)
        if self.negations:
            r, neg = np.concatenate([r, r]), np.concatenate([neg, np.ones(len(self.tp), dtype=bool)])
        tp = self._snap(np.where(neg, self.n_pos - self.tp[r], self.tp[r]))
        fp = self._snap(np.where(neg, self.n_neg - self.fp[r], self.fp[r]))
        self.top.offer(self._scores(tp, fp, 1), 1, tp, fp,
                       lambda ix: [("lit", int(r[i]), bool(neg[i])) for i in ix])

    def size2(self) -> None:
        v = self.vars
        nv = len(v)
        shapes = pair_shapes(self.negations, self.connectives)
        M = shape_matrix(shapes, 2)
        tpv, fpv = self.tp[v], self.fp[v]
        block = max(1, self.work_bytes // (48 * max(nv * len(shapes), 1)))   # rows a of the pairs (a, b > a)
        for start in range(0, nv, block):
            a = np.arange(start, min(nv, start + block))
            ai, bi = np.nonzero(np.arange(nv)[None, :] > a[:, None])
            ai = a[ai]
            if not len(ai):
                continue
            pp, pn = self.pair_p[ai, bi], self.pair_n[ai, bi]
            cells_p = self._snap(np.stack([self.n_pos - tpv[ai] - tpv[bi] + pp, tpv[bi] - pp, tpv[ai] - pp, pp], axis=1))
            cells_n = self._snap(np.stack([self.n_neg - fpv[ai] - fpv[bi] + pn, fpv[bi] - pn, fpv[ai] - pn, pn], axis=1))
            tp, fp = (cells_p @ M.T).ravel(), (cells_n @ M.T).ravel()
            nf = len(M)
            self.top.offer(self._scores(tp, fp, 2), 2, tp, fp, lambda ix, ai=ai, bi=bi, nf=nf: [
                ("f2", int(v[ai[j // nf]]), int(v[bi[j // nf]]), int(j % nf)) for j in ix])
        if self.negations and len(self.tp):
            r = int(v[0]) if nv else 0
            keep = [0, 1] if not self.mode else ([0] if self.mode == 1 else [1])
            tp = np.array([0, self.n_pos])[keep]
            fp = np.array([0, self.n_neg])[keep]
            specs = [[("const", False, r), ("const", True, r)][i] for i in keep]
            self.top.offer(self._scores(tp, fp, 2), 2, tp, fp, lambda ix: [specs[i] for i in ix])

    # -- sizes 3 and 4: rounds of bounding and counting ----------------------------------
    def _rounds(self, r: int, n_combos: int, fixed: float, scan, score) -> None:
        """Bound the combinations not yet counted, count the best-bounded batch, score; until none is left."""
        done = np.zeros(-(-n_combos // 8), dtype=np.uint8)
        limit = self._batch_limit(r, fixed + done.nbytes)
        batch = min(_FIRST_BATCH, limit)
        while True:
            bounds = self._filter(r)
            if bounds is None:
                return
            combos, values = scan(bounds, done)
            if not len(combos):
                return
            if len(combos) > batch:
                combos = combos[np.argpartition(-values, batch - 1)[:batch]]
            combos = combos[np.lexsort(combos.T[::-1])]
            index = ck.combination_index(combos)
            np.bitwise_or.at(done, index >> 3, (1 << (index & 7)).astype(np.uint8))
            score(self.vars[combos], *self._cells(self.vars[combos]))
            batch = min(limit, 8 * batch)

    def _float_tables(self) -> tuple:
        """The leading arguments of both bound kernels: single and pair counts as float64."""
        return (self.tp[self.vars].astype(np.float64), self.fp[self.vars].astype(np.float64),
                self.pair_p.astype(np.float64), self.pair_n.astype(np.float64))

    def _scan(self, run, a_count: int, width: int, fixed: float):
        """Run a bound kernel (``run(a_list, cap, out, values, counts)``) over every first attribute.

        Returns the surviving combinations (k, width + 1), sorted within, and their margins over
        the threshold.
        """
        pending = np.arange(max(a_count, 0), dtype=np.int64)
        cap = 256
        found, margins = [], []
        while len(pending):
            chunk = pending[:64]
            out = np.zeros((len(chunk), cap, width), np.int32)
            val = np.zeros((len(chunk), cap), np.float64)
            cnt = np.zeros(len(chunk), np.int64)
            run(chunk, cap, out, val, cnt)
            ok = cnt <= cap
            for i in np.flatnonzero(ok):
                found.append(np.column_stack([np.full(cnt[i], chunk[i]), out[i, :cnt[i]]]))
                margins.append(val[i, :cnt[i]])
            pending = np.concatenate([chunk[~ok], pending[len(chunk):]])
            if (~ok).any():
                cap = int(cnt[~ok].max())
                self._require(fixed + cap * len(chunk) * (4 * width + 8) + sum(f.nbytes for f in found),
                              f"the candidate combinations of {width + 1} attributes of one scan",
                              "use a smaller max_size or fewer attributes")
        if not found:
            return np.zeros((0, width + 1), np.int64), np.zeros(0)
        return np.concatenate(found).astype(np.int64), np.concatenate(margins)

    def size3(self) -> None:
        nv = len(self.vars)
        if nv < 3:
            return
        shapes = triple_shapes(self.negations, self.connectives)
        fixed = self._fixed_bytes(3)

        def scan(bounds, done):
            filt, w_single, w_pair, w_total, (elim, elim_t, elim_const, room) = bounds
            least_room = np.full((nv, nv + 1), np.inf)
            least_room[:, :nv] = np.minimum.accumulate(room[:, ::-1], axis=1)[:, ::-1]
            head = self._float_tables() + (float(self.n_pos), float(self.n_neg), filt.alpha, filt.beta,
                                                w_single, w_pair, w_total, filt.threshold, self.negations, self.mode)
            return self._scan(lambda *out: ck.bound_triples(*head, elim, elim_t, elim_const, room, least_room,
                                                            done, *out), nv - 2, 2, fixed)

        def score(variables, cells_p, cells_n):
            self._score_cells(variables, cells_p, cells_n, shapes, np.full(len(shapes), 3, np.int64), "f3")

        self._rounds(3, _comb(nv, 3), fixed, scan, score)

    def size4(self) -> None:
        nv = len(self.vars)
        v = self.vars
        neg = self.negations
        if nv == 2:
            rep2 = repeat_shapes(2, neg, 4, self.connectives)
            cells_p, cells_n = self._cells(v[None, :].astype(np.int64))
            self._score_cells(v[None, :], cells_p, cells_n, rep2,
                              np.array([shape_size(s.tree) for s in rep2], np.int64), "shape")
        if nv < 3:
            return
        n_triples = _comb(nv, 3)
        fixed = self._fixed_bytes(4)
        t3_p = np.zeros(n_triples, np.float64)
        t3_n = np.zeros(n_triples, np.float64)
        rep3 = repeat_shapes(3, neg, 4, self.connectives)
        rep3_sizes = np.array([shape_size(s.tree) for s in rep3], np.int64)
        # every triple, in batches (one pass each): its 3-way counts, and its premises of size 4 with repeats
        limit = self._batch_limit(3, fixed)
        a, b, c = _all_triples(nv)
        for start in range(0, n_triples, limit):
            combos = np.stack([a[start:start + limit], b[start:start + limit], c[start:start + limit]], axis=1)
            cells_p, cells_n = self._cells(v[combos])
            index = ck.combination_index(combos)
            t3_p[index], t3_n[index] = cells_p[:, 7], cells_n[:, 7]
            self._score_cells(v[combos], cells_p, cells_n, rep3, rep3_sizes, "shape")
        quad = quadruple_shapes(neg, self.connectives)
        half_idx, pair_idx = _quadruple_index_tables()
        rep_cells = shape_matrix(rep3, 3).astype(np.float64)

        def scan(bounds, done):
            filt, w_single, w_pair, w_total, (elim, elim_t, elim_const, _) = bounds
            slack = 1e-9 * (abs(filt.alpha) * self.n_pos + abs(filt.beta) * self.n_neg + 1.0)
            head = self._float_tables() + (t3_p, t3_n, float(self.n_pos), float(self.n_neg), filt.alpha,
                                                filt.beta, w_single, w_pair, w_total, filt.threshold,
                                                self.negations, self.mode, half_idx, pair_idx, rep_cells)
            return self._scan(lambda *out: ck.bound_quadruples(*head, elim, elim_t, elim_const, slack, done, *out),
                              nv - 3, 3, fixed)

        def score(variables, cells_p, cells_n):
            self._score_cells(variables, cells_p, cells_n, quad, np.full(len(quad), 4, np.int64), "shape")

        self._rounds(4, _comb(nv, 4), fixed, scan, score)


def _all_triples(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every sorted triple ``a < b < c < n`` as three int64 arrays (lexicographic order)."""
    if n < 3:
        return (np.zeros(0, np.int64),) * 3
    ab = np.array([(a, b) for a in range(n) for b in range(a + 1, n - 1)], dtype=np.int64).reshape(-1, 2)
    counts = n - 1 - ab[:, 1]
    a = np.repeat(ab[:, 0], counts)
    b = np.repeat(ab[:, 1], counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    c = b + 1 + (np.arange(len(a)) - first)
    return a, b, c


def find_best_premises_from_counts(
    counts: Counts,
    max_size: int = 3,
    objective: str | Objective | Any = "f1",
    top_k: int = 1,
    negations: bool = True,
    memory_limit: int | str | None = DEFAULT_MEMORY_LIMIT,
    min_support: float = 0,
    connectives: str | tuple[str, ...] = ("and", "or"),
    size_cost: float = 0.0,
    return_passes: bool = False,
) -> list[PremiseResult] | tuple[list[PremiseResult], int]:
    """The optimal premises from counts alone: :func:`~logicrules.fca.premise.search.find_best_premises` out of core.

    Reads the data only through ``counts`` (class totals, Gram matrices, then cell counts of
    candidate triples / quadruples in passes; see the module notes), so the rows may be chunks
    read one after the other (:class:`~logicrules.fca.counts.ChunkedCounts`) or partitions of a
    cluster. The result equals the in-memory search's on the same rows: the same scores and
    sizes, the same formula for sizes 1-2 and whenever the optimum is unique (ties of equal
    score and size may be broken by another premise of the same value); weighted counts agree
    up to float rounding of the sums (a relative 1e-9 of the total weight is taken as equal when
    merging attributes and extents).

    Parameters
    ----------
    counts : Counts
        Two classes; class 1 is the positive one (premises predict it where they hold). Weighted
        counts (``counts.weighted``) act as ``sample_weight``.
    max_size, objective, top_k, negations, min_support, connectives, size_cost
        As in :func:`~logicrules.fca.premise.search.find_best_premises`.
    memory_limit : int or str, default 2 GiB
        Bytes the search may allocate on the driver; the data behind ``counts`` (a chunk read,
        a partition) is not counted. Covered, estimated before allocating: the Gram matrices
        (``3 * 8 * m**2``), the pair bounds (about ``80 * m**2``), for size 4 the 3-way counts of
        every triple (``16 * m**3 / 6``) and a bitmap of the counted quadruples (``m**4 /
        192``); what is left sizes the candidate batches of the passes (``64 * 2**r`` bytes per
        combination of ``r`` attributes, on the driver and in each partition's partial counts).
        The search makes the limit the active :class:`~logicrules.memory.MemoryBudget`, so the
        counting kernels of :class:`~logicrules.fca.counts.Counts` size their blocks by it too
        (:func:`~logicrules.memory.work_bytes`), and its scoring blocks take a sixteenth of it
        (at most 32 MiB). What cannot fit raises
        :class:`~logicrules.fca.premise.results.PremiseSearchMemoryError` naming it.
    return_passes : bool, default False
        Also return the number of counting passes made over the data.

    Returns
    -------
    list of PremiseResult (best first), or ``(list, passes)``

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.fca.counts import ChunkedCounts
    >>> X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 0]], dtype=bool)
    >>> y = np.array([1, 1, 0, 0])
    >>> counts = ChunkedCounts([(X[:2], y[:2]), (X[2:], y[2:])], attributes=["a", "b", "c"])
    >>> best = find_best_premises_from_counts(counts, max_size=2)[0]
    >>> str(best.formula), best.score
    ('a', 1.0)
    """
    if not isinstance(counts, Counts):
        raise TypeError(f"counts must be a logicrules.fca.counts.Counts, got {type(counts).__name__}")
    if counts.n_classes != 2:
        raise ValueError(f"the premise search needs two classes (class 1 positive), got n_classes={counts.n_classes}")
    args = _search_arguments(max_size, objective, top_k, negations, memory_limit, min_support, connectives, size_cost)
    if counts.n_attributes == 0:
        raise ValueError("counts have no attributes; a premise needs at least one")
    with MemoryBudget(args.memory).active():         # the counting kernels size their blocks by it
        search = _CountsSearch(counts, args.max_size, args.objective, args.top_k, args.negations, args.memory,
                               args.connectives, args.size_cost)
        if search.n_pos + search.n_neg <= 0:
            raise ValueError("counts have no rows (or only rows of weight 0); premises are scored on at least one")
        search.size1()
        for step in (search.size2, search.size3, search.size4)[:args.max_size - 1]:
            step()
        results = search.results()
    if not results:
        raise _no_premise_error(args)
    return (results, search.passes) if return_passes else results
