"""The exact pricing of column generation on dask data: the dual side on the driver, the
negatives counted over the partitions.

Under the duals ``mu`` of the master's rows (a set S of positive patterns held by the driver)
and ``nu`` of its budget, a conjunction K has the reduced cost

    ``rc(K) = L(K) - G(K) + (lam + nu) (1 + |K|) + e_K``,

``G(K)`` the dual on S's rows holding K (computed on the driver), ``L(K)`` the weight of the
negative rows holding K times their error cost (:class:`Negatives`: from the Gram matrix of the
partitions for one and two literals; for three and four, counted over the partitions).

:func:`price` is exact over every conjunction of at most ``max_size`` (<= 4) literals and the
empty one. Terms of at most two literals are evaluated directly. A triple's or quadruple's
``L`` is not known, but ``L >= 0``, so ``-G(K) + (lam + nu)(1 + |K|) + e_K`` bounds its reduced
cost from below; ``G`` only shrinks as literals are added, so a pair or triple whose gain
already fails that bound for the larger size has no hopeful extension (the bounds and the exact
gains on the driver come from the packed kernels of the in-memory pricing,
:mod:`logicrules.lp.pricing_bits`). Only the triples and quadruples whose bound lies below the
threshold ``t`` are sent to the partitions (each partition returns one count per candidate,
summed: :class:`HeldCounts`); every other one has ``rc >= t``. The threshold is ``-tol`` (a
column must price out), lowered to the ``top_k``-th least reduced cost known (a candidate
above it cannot be among the ``top_k`` returned); candidates are counted in batches of the
least bounds first, each batch one pass that lowers the threshold for the rest
(:class:`_Counted`). So every conjunction of
negative reduced cost among the ``top_k`` least is found with its exact value, and when none
has one the pricing proves it, as the in-memory pricing does
(:func:`~logicrules.lp.pricing.price_exact`).

Memory on the driver: S's rows of positive dual packed (one bit per cell), ``m x m`` gain
matrices, at most :data:`PENDING_CANDIDATES` candidates waiting, and the counted values kept
for later rounds (``L`` does not change; checked against ``memory_limit``, 40 bytes each). A
partition holds its packed rows of the other class (weighted: unpacked once to group them by
weight) and one count per candidate of the pass.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np

from logicrules import memory
from logicrules.fca.row_block import RowBlock
from logicrules.lp.pricing import Pricing
from logicrules.lp.pricing_bits import WeightedBits, _bounded_pairs, _candidate_layout
from logicrules.progress import pass_line

__all__ = ["Negatives", "HeldCounts", "count_layout", "price", "price_beam", "CANDIDATE_BYTES", "FIRST_BATCH", "PENDING_CANDIDATES"]

#: Driver bytes per candidate conjunction sent to the partitions (its literals and its count,
#: the cached key and value).
CANDIDATE_BYTES = 40
#: Candidates of one size counted in the first pass of a pricing round (then twice as many per
#: pass), the least bounds first (:func:`_least`).
FIRST_BATCH = 1 << 14
#: Most candidates of one size waiting to be counted on the driver (:class:`_Counted`).
PENDING_CANDIDATES = 1 << 20
#: Words (64 rows each) of candidate conjunctions ANDed at once by a partition.
_WORDS_AT_ONCE = 1 << 22


def _negative_bits(block: RowBlock, other: int, complement: bool) -> WeightedBits:
    """The rows of class ``other`` of a partition (complemented with ``complement``) as
    :class:`~logicrules.lp.pricing_bits.WeightedBits`: its packed bits masked by the class
    without weights (one group of weight 1, padded to whole tiles of 4 words), packed from the
    class's rows grouped by weight with them."""
    if block.weights is None:
        mask = block.class_bits()[other]
        words = max(4, -(-mask.size // 4) * 4)
        bits = np.zeros((block.n_attributes, words), dtype=np.uint64)
        bits[:, :mask.size] = (~block.bits if complement else block.bits) & mask
        valid = np.zeros(words, dtype=np.uint64)
        valid[:mask.size] = mask
        return WeightedBits(bits, np.array([0, words], dtype=np.int64), np.ones(1), valid)
    rows = np.flatnonzero(block.labels == other)
    dense = block.dense()[rows]
    if complement:
        np.logical_not(dense, out=dense)
    return WeightedBits.pack(dense, np.asarray(block.weights, dtype=np.float64)[rows])


def _layout(combos: np.ndarray) -> tuple:
    """How :func:`_held` counts sorted combinations (rows ascending, all distinct): the flat
    arrays of the triple kernel (grouped by first literal) or of the quadruple kernel (grouped
    by the first three), or the combinations themselves for other sizes."""
    t, r = combos.shape
    if r == 3:
        starts = np.flatnonzero(np.r_[True, combos[1:, 0] != combos[:-1, 0]])
        bounds = np.r_[starts, t]
        return 3, _candidate_layout([(int(combos[lo, 0]), combos[lo:hi, 1], combos[lo:hi, 2])
                                     for lo, hi in zip(bounds[:-1], bounds[1:])])
    if r == 4:
        starts = np.flatnonzero(np.r_[True, (combos[1:, :3] != combos[:-1, :3]).any(axis=1)])
        prefix = combos[starts].astype(np.int64)
        return 4, (prefix[:, 0], prefix[:, 1], prefix[:, 2], np.r_[starts, t].astype(np.int64),
                   combos[:, 3].astype(np.int64))
    return r, combos


def count_layout(rows: WeightedBits, layout: tuple) -> np.ndarray:
    """The weight of the packed ``rows`` on which every literal of each combination of
    ``layout`` (:func:`_layout`) holds: by the parallel kernels of the exact in-memory pricing
    for triples and quadruples, by ANDed extents for other sizes."""
    r, arrays = layout
    if r == 3:
        return rows.triples(*arrays)
    if r == 4:
        return rows.quads(*arrays)
    counted = np.zeros(arrays.shape[0])
    per = max(1, _WORDS_AT_ONCE // max(r * rows.bits.shape[1], 1))
    for lo in range(0, arrays.shape[0], per):
        counted[lo:lo + per] = rows.count(np.bitwise_and.reduce(rows.bits[arrays[lo:lo + per]], axis=1))
    return counted


def _held(block: RowBlock, layout: tuple, other: int, complement: bool) -> np.ndarray:
    """The weight (without weights: the number) of the rows of class ``other`` of a partition on
    which every literal of each combination of ``layout`` (:func:`_layout`) holds (is false,
    with ``complement``)."""
    return count_layout(_negative_bits(block, other, complement), layout)


class HeldCounts:
    """One counting pass: each partition returns, for every candidate conjunction, the weight of
    its negative rows holding it (:func:`_held`); the partial counts are tree-summed. The
    candidates are sorted and laid out for the kernels once, on the driver."""

    def __init__(self, counts: Any, other: int, complement: bool) -> None:
        self.counts, self.other, self.complement = counts, other, complement

    def __call__(self, combos: np.ndarray) -> np.ndarray:
        import dask

        start = time.perf_counter()
        combos = np.asarray(combos, dtype=np.intp)
        order = np.lexsort(combos.T[::-1])
        kernel = dask.delayed(functools.partial(_held, layout=_layout(combos[order]), other=self.other,
                                                complement=self.complement))
        (total,) = dask.compute(self.counts.lazy(kernel))  # one key for the candidates, not one per task
        self.counts.n_passes += 1
        pass_line(self.counts.verbose, f"dask pass: negatives of {combos.shape[0]} conjunctions of "
                  f"{combos.shape[1]} literals over {self.counts.n_partitions} partitions",
                  time.perf_counter() - start)
        out = np.zeros(combos.shape[0])
        if total is not None:
            out[order] = np.asarray(total, dtype=np.float64)
        return out


class Negatives:
    """``L(K)``: the weight of the negative rows a conjunction holds on (times their error
    cost ``c_neg``), from the Gram matrix for sizes up to 2 and by counting passes beyond
    (every count kept: the negatives do not change between rounds)."""

    def __init__(self, counts: Any, other: int, complement: bool, c_neg: float, total: float) -> None:
        self.c_neg, self.total = c_neg, total
        gram = counts.gram()[other].astype(np.float64)
        diag = np.diag(gram).copy()
        if complement:  # rows where both literals are false
            gram = total - diag[:, None] - diag[None, :] + gram
            diag = total - diag
        self.single, self.pair = c_neg * diag, c_neg * gram
        self.m = int(diag.size)
        self._count = HeldCounts(counts, other, complement)
        self._known: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # size: sorted keys, values

    def _keys(self, combos: np.ndarray) -> np.ndarray:
        keys = np.zeros(combos.shape[0], dtype=np.int64)
        for j in range(combos.shape[1]):
            keys = keys * self.m + combos[:, j]
        return keys

    def split(self, combos: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``L`` of the combinations (rows of sorted literals, all of one size > 2) known so
        far (NaN where not), and the distinct unknown ones with their sorted keys, their driver
        memory checked first: what a counting pass must count (:meth:`record` keeps it)."""
        combos = np.asarray(combos, dtype=np.int64)
        r = combos.shape[1]
        keys = self._keys(combos)
        known_keys, known = self._known.get(r, (np.zeros(0, np.int64), np.zeros(0)))
        at = np.minimum(np.searchsorted(known_keys, keys), max(known_keys.size - 1, 0))
        hit = known_keys[at] == keys if known_keys.size else np.zeros(keys.size, dtype=bool)
        out = np.where(hit, known[at] if known_keys.size else 0.0, np.nan)
        missing_keys, first = np.unique(keys[~hit], return_index=True)
        if missing_keys.size:
            memory.require(CANDIDATE_BYTES * (missing_keys.size + known_keys.size),
                           f"the pricing's {missing_keys.size} candidate conjunctions of {r} literals (and "
                           f"{known_keys.size} counted before)", "use a larger lam or a smaller max_term_size")
        return out, combos[~hit][first], missing_keys

    def record(self, combos: np.ndarray, out: np.ndarray, missing: np.ndarray, missing_keys: np.ndarray,
               counted: np.ndarray) -> np.ndarray:
        """Keep the counts ``counted`` (unscaled) of the ``missing`` combinations of
        :meth:`split` and fill them into its ``out``: ``L`` of every combination."""
        if not missing_keys.size:
            return out
        r = missing.shape[1]
        values = self.c_neg * np.asarray(counted, dtype=np.float64)
        known_keys, known = self._known.get(r, (np.zeros(0, np.int64), np.zeros(0)))
        merged = np.concatenate([known_keys, missing_keys])
        order = np.argsort(merged, kind="stable")
        self._known[r] = (merged[order], np.concatenate([known, values])[order])
        unknown = np.isnan(out)
        out[unknown] = values[np.searchsorted(missing_keys, self._keys(np.asarray(combos, np.int64)[unknown]))]
        return out

    def held(self, combos: np.ndarray) -> np.ndarray:
        """``L`` of every combination (rows of sorted literals, all of one size > 2), the ones
        not known yet counted in one pass (their driver memory checked first)."""
        out, missing, missing_keys = self.split(combos)
        counted = self._count(missing) if missing_keys.size else np.zeros(0)
        return self.record(combos, out, missing, missing_keys, counted)

    def of(self, terms: list[tuple[int, ...]]) -> np.ndarray:
        """``L`` of every term of a pool (passes for the sizes above 2 not known yet, one per size)."""
        out = np.empty(len(terms))
        sizes = np.array([len(t) for t in terms], dtype=np.intp)
        for r in np.unique(sizes):
            where = np.flatnonzero(sizes == r)
            if r == 0:
                out[where] = self.c_neg * self.total
            elif r == 1:
                out[where] = self.single[[terms[k][0] for k in where]]
            elif r == 2:
                pairs = np.array([terms[k] for k in where], dtype=np.intp)
                out[where] = self.pair[pairs[:, 0], pairs[:, 1]]
            else:
                out[where] = self.held(np.array([terms[k] for k in where], dtype=np.int64))
        return out


def _prices_out(values: list[np.ndarray], tol: float) -> bool:
    return any(bool((v < -tol).any()) for v in values)


def _least(values: np.ndarray, top_k: int) -> np.ndarray:
    """The ``top_k`` least values, ascending."""
    if values.size > top_k:
        values = np.partition(values, top_k - 1)[:top_k]
    return np.sort(values)


def _threshold(values: list[np.ndarray], top_k: int, tol: float) -> float:
    """``-tol``, or the ``top_k``-th least of the values known when that is lower."""
    known = np.concatenate(values) if values else np.zeros(0)
    if known.size < top_k:
        return -tol
    return min(-tol, float(np.partition(known, top_k - 1)[top_k - 1]))


class _Counted:
    """The triples or quadruples of one pricing round: candidates with lower bounds ``base`` on
    their reduced costs (here the reduced cost less L, a bound as ``L >= 0``), counted over the
    partitions in batches: ``value(candidates, base)`` gives their exact reduced costs (one pass).

    :meth:`add` keeps the candidates whose bound is below the threshold (``-tol``, or the
    ``top_k``-th least value known when lower); :meth:`count` counts them the least bounds
    first, a batch per pass (:data:`FIRST_BATCH`, then twice as many each pass), every batch
    lowering the threshold, so that candidates no longer below it are never counted. When more
    than :data:`PENDING_CANDIDATES` wait, :meth:`add` counts batches until half as many do, so
    the driver never holds more (the threshold it reaches also prunes the later candidates).
    Counted terms and their exact values go to ``terms`` and ``values``."""

    def __init__(self, value: Any, terms: list, values: list, top_k: int, tol: float) -> None:
        self.value, self.terms, self.values, self.top_k, self.tol = value, terms, values, top_k, tol
        self.pending: list[tuple[np.ndarray, np.ndarray]] = []
        self.batch = FIRST_BATCH
        self.least = _least(np.concatenate(values), top_k)

    def threshold(self) -> float:
        """``-tol``, or the ``top_k``-th least value known when lower (it falls as batches are counted)."""
        return -self.tol if self.least.size < self.top_k else min(-self.tol, float(self.least[-1]))

    def add(self, candidates: np.ndarray, base: np.ndarray) -> None:
        keep = base < self.threshold()
        if keep.any():
            self.pending.append((candidates[keep], base[keep]))
        if sum(b.size for _, b in self.pending) > PENDING_CANDIDATES:
            self.count(PENDING_CANDIDATES // 2)

    def count(self, leave: int = 0) -> None:
        """Count batches until at most ``leave`` candidates below the threshold wait."""
        if not self.pending:
            return
        candidates = np.concatenate([c for c, _ in self.pending])
        base = np.concatenate([b for _, b in self.pending])
        while True:
            keep = base < self.threshold()
            candidates, base = candidates[keep], base[keep]
            if base.size <= leave:
                break
            take = np.zeros(base.size, dtype=bool)
            take[np.argpartition(base, self.batch - 1)[:self.batch] if base.size > self.batch else slice(None)] = True
            self.terms.append(candidates[take])
            self.values.append(self.value(candidates[take], base[take]))
            self.least = _least(np.concatenate([self.least, self.values[-1]]), self.top_k)
            candidates, base = candidates[~take], base[~take]
            self.batch *= 2
        self.pending = [(candidates, base)] if base.size else []


def _plus_negatives(L: Negatives):
    """The exact reduced costs of candidates from their bounds less ``L``: the bound plus ``L``."""
    return lambda candidates, base: L.held(candidates) + base


def price(P: Any, L: Negatives, mu: np.ndarray, nu: float, max_size: int, top_k: int, tol: float,
          first_found: bool = False) -> Pricing:
    """The ``top_k`` conjunctions of least reduced cost (module notes) over S's rows ``P.A_pos``.

    Parameters
    ----------
    P : RuleSetProblem
        The master's problem on S (``A_pos``, ``lam``, ``literal_cost``).
    L : Negatives
    mu : ndarray
        Duals of S's rows.
    nu : float
        Dual of the budget.
    max_size : int
        Longest conjunction, 1 to 4.
    top_k : int
    tol : float
        A column prices out when its reduced cost is below ``-tol``.
    first_found : bool, default False
        Stop after the first size (terms of at most two literals, then triples) at which some
        column prices out: no counting pass for the larger sizes in the rounds that still find
        short columns. Then not ``complete``; a search that finds nothing is complete.

    Returns
    -------
    Pricing
        ``complete`` (the search is exhaustive); ``least`` the least reduced cost evaluated.
    """
    start = time.perf_counter()
    m = P.n_literals
    e = np.zeros(m) if P.literal_cost is None else np.asarray(P.literal_cost, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    pos = WeightedBits.pack(P.A_pos, mu)  # the rows of positive dual, grouped by it
    step = P.lam + nu
    terms: list[np.ndarray] = [np.zeros((1, 0), dtype=np.intp)]
    values = [np.array([L.c_neg * L.total - float(mu[mu > 0].sum()) + step])]
    gain1 = pos.singles()
    terms.append(np.arange(m)[:, None])
    values.append(L.single - gain1 + 2 * step + e)
    if max_size >= 2 and m >= 2:
        gain2 = pos.pairs()
        i, j = np.triu_indices(m, 1)
        terms.append(np.column_stack([i, j]))
        values.append(L.pair[i, j] - gain2[i, j] + 3 * step + e[i] + e[j])
        if max_size >= 3 and m >= 3 and not (first_found and _prices_out(values, tol)):
            per_first, gains3 = _triples(pos, gain1, gain2, e, step, _threshold(values, top_k, tol))
            if per_first:
                triples = _Counted(_plus_negatives(L), terms, values, top_k, tol)
                found = np.concatenate([np.column_stack([np.full(b.size, a), b, c]) for a, b, c in per_first])
                triples.add(found, 4 * step + e[found].sum(axis=1) - np.concatenate(gains3))
                triples.count()
            if max_size >= 4 and m >= 4 and per_first and not (first_found and _prices_out(values, tol)):
                quads = _Counted(_plus_negatives(L), terms, values, top_k, tol)
                _quads(pos, gain1, per_first, gains3, e, step, quads)
                quads.count()
    return _pricing(terms, values, top_k, tol, first_found, start)


def _pricing(terms: list[np.ndarray], values: list[np.ndarray], top_k: int, tol: float, first_found: bool,
             start: float) -> Pricing:
    """The ``top_k`` least reduced costs among the evaluated candidates (``terms`` and their
    ``values``, block by block) as a :class:`~logicrules.lp.pricing.Pricing`; not ``complete``
    when a search stopped at the first size at which a column priced out."""
    flat = np.concatenate(values)
    complete = not (first_found and _prices_out(values, tol))
    order = np.argsort(flat, kind="stable")[:top_k]
    starts = np.cumsum([0] + [v.size for v in values])
    block = np.searchsorted(starts, order, side="right") - 1
    found = [tuple(int(j) for j in terms[b][k - starts[b]]) for b, k in zip(block.tolist(), order.tolist())]
    return Pricing(found, flat[order], float(flat.min()), complete, time.perf_counter() - start)


def _triples(pos: WeightedBits, gain1: np.ndarray, gain2: np.ndarray, e: np.ndarray, step: float,
             threshold: float) -> tuple[list, list]:
    """The triples ``a < b < c`` whose bound from their pairs, ``-min G(pair) + 4 step + e_abc``,
    is below ``threshold``, grouped by first literal ``(a, b, c)`` (b ascending, c ascending
    within b), with their exact gains (counted on the driver's rows of positive dual)."""
    per_first = []
    for a in range(gain1.size - 2):
        pairs = _bounded_pairs(a, gain1, gain2, e, step, threshold)
        if pairs is not None:
            per_first.append((a, *pairs))
    if not per_first:
        return [], []
    gains = pos.triples(*_candidate_layout(per_first))
    bounds = np.cumsum([0] + [b.size for _, b, _ in per_first])
    return per_first, [gains[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]


def _quads(pos: WeightedBits, gain1: np.ndarray, per_first: list, gains3: list, e: np.ndarray, step: float,
           found: _Counted) -> None:
    """Offer ``found`` every quadruple ``a < b < c < d`` whose bound is below its threshold
    (read again for every prefix triple), with its bound ``5 step + e_abcd - G`` (G its exact
    gain). A quadruple extends (a, b, c), (a, b, d) and (a, c, d): ``-min`` of their gains ``+
    5 step + e_abcd`` bounds it first. Only triples of :func:`_triples` have a gain; any other
    was pruned there with ``4 step`` at a threshold at least this one, so every quadruple
    holding it is pruned too."""
    m = gain1.size
    for (a, b, c), g in zip(per_first, gains3):
        threshold = found.threshold()
        if -gain1[a] + 5 * step + e[a] >= threshold:
            continue
        alive = -g + 5 * step + e[a] + e[b] + e[c] < threshold
        if not alive.any():
            continue
        G = np.full((m, m), -np.inf)
        G[b, c] = g
        qb, qc, qg = b[alive], c[alive], g[alive]
        rows = max(1, (1 << 22) // m)  # (prefixes x m) candidate masks a block at a time
        for lo in range(0, qb.size, rows):
            pb, pc, pg = qb[lo:lo + rows], qc[lo:lo + rows], qg[lo:lo + rows]
            low = np.minimum(np.minimum(G[pb], G[pc]), pg[:, None])
            bound = 5 * step + e[a] + (e[pb] + e[pc])[:, None] + e[None, :] - low
            q, d = np.nonzero((np.arange(m)[None, :] > pc[:, None]) & (bound < found.threshold()))
            if not q.size:
                continue
            exact = pos.quads(np.full(pb.size, a), pb, pc, np.searchsorted(q, np.arange(pb.size + 1)), d)
            found.add(np.column_stack([np.full(q.size, a), pb[q], pc[q], d]),
                      5 * step + e[a] + e[pb[q]] + e[pc[q]] + e[d] - exact)


def price_beam(P: Any, L: Negatives, mu: np.ndarray, nu: float, max_size: int, width: int, tol: float,
               top_k: int) -> Pricing:
    """A cheap heuristic pricing: the ``width`` pairs of least reduced cost extended one literal
    at a time up to ``max_size``, the ``width`` best kept per step; each step's extensions that
    can still price out (``-G + cost`` below ``-tol``) counted in one pass. Returns the columns
    of negative reduced cost found (the ``top_k`` least), of one or two literals (exact) or from
    the beam (not ``complete``): tried before :func:`price` in every round, it finds the long columns of the
    early rounds, whose large duals leave the exact search's bounds weak, in a pass or two."""
    start = time.perf_counter()
    m = P.n_literals
    e = np.zeros(m) if P.literal_cost is None else np.asarray(P.literal_cost, dtype=np.float64)
    pos = WeightedBits.pack(P.A_pos, np.asarray(mu, dtype=np.float64))
    step = P.lam + nu
    gain2 = pos.pairs()
    single = L.single - np.diag(gain2) + 2 * step + e
    found = {(int(k),): float(single[k]) for k in np.flatnonzero(single < -tol)}
    i, j = np.triu_indices(m, 1)
    pair = L.pair[i, j] - gain2[i, j] + 3 * step + e[i] + e[j]
    found.update({(int(i[k]), int(j[k])): float(pair[k]) for k in np.flatnonzero(pair < -tol)})
    beam = np.column_stack([i, j])[np.argsort(pair, kind="stable")[:width]]
    while beam.size and beam.shape[1] < max_size:
        gains = pos.extension_counts(np.bitwise_and.reduce(pos.bits[beam], axis=1))  # G of each extension
        bound = -gains + step * (2.0 + beam.shape[1]) + e[beam].sum(axis=1)[:, None] + e[None, :]
        np.put_along_axis(bound, beam, np.inf, axis=1)  # a literal already in the term
        k, c = np.nonzero(bound < -tol)
        if not k.size:
            break
        combos = np.unique(np.sort(np.column_stack([beam[k], c]), axis=1), axis=0)
        values = (L.held(combos) - pos.count(np.bitwise_and.reduce(pos.bits[combos], axis=1))
                  + step * (1.0 + combos.shape[1]) + e[combos].sum(axis=1))
        found.update({tuple(int(x) for x in t): float(v) for t, v in zip(combos, values) if v < -tol})
        beam = combos[np.argsort(values, kind="stable")[:width]]
    terms = sorted(found, key=found.get)[:top_k]
    rc = np.array([found[t] for t in terms])
    return Pricing(terms, rc, float(rc.min()) if terms else np.inf, False, time.perf_counter() - start)
