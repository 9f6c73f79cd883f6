"""Exact pricing of the DNF master over packed bits: the pricing for many rows.

The reduced cost of a conjunction K under the master's duals (:mod:`logicrules.lp.pricing`),

    ``rc(K) = L(K) - G(K) + (lam + nu) (1 + |K|) + sum_{j in K} e_j``,

has a part that does not depend on the duals, ``L(K) = sum_{i in Z} v_i a_iK`` over the
negative rows, and one that does, ``G(K) = sum_{i in P} mu_i a_iK`` over the positive rows,
where only rows of ``mu_i > 0`` count. :class:`BitsPricing` keeps the negative rows once as
packed ``uint64`` columns, grouped by weight (each group of equal weight starts a new word, so
a weighted count is a sum over groups of a weight times an exact integer popcount: the layout
of the premise search, :mod:`logicrules.fca.premise.popcounts`), and counts:

- ``L`` of every literal and pair once per problem (a popcount Gram matrix), and ``L`` of the
  triples a pricing round has to look at, by popcount passes over the candidates only, cached
  for the later rounds (they do not change);
- ``G`` per round over the positive rows of positive dual only, packed the same way grouped by
  dual value. Under row sampling (:mod:`logicrules.lp.colgen_rows`) those are rows of the
  master's sample, so the work of a round shrinks with the sample; only the one-off counts of
  the negative rows grow with all the data.

**Exactness.** Sizes 1 and 2 are evaluated for every literal and pair. A triple (a, b, c)
extends each of its pairs, and its extent lies in each of theirs, so ``G(abc) <=
min(G(ab), G(ac), G(bc))`` and ``L(abc) >= 0``: its reduced cost is at least ``-min G(pair) +
4 cost + e_a + e_b + e_c``. Triples whose bound is not below the threshold t (the ``top_k``-th
least value held, never above 0, plus a small float slack) are never counted. The others get
their exact ``G(abc)`` first (positive rows of positive dual only, the cheap side), and only
those with ``-G(abc) + 4 cost + e_a + e_b + e_c < t`` their ``L(abc)``; every remaining triple
is evaluated exactly. Quadruples (``max_size=4``) are bounded the same way by the gains of
three of their triples, then counted exactly (:meth:`BitsPricing._price_quads`). So the least
reduced cost over the conjunctions of at most ``max_size`` (<= 4) literals is found whenever it
is negative, exactly as
:func:`~logicrules.lp.pricing.price_exact` finds it (tested against it and against brute
force), and column generation still stops only when no conjunction of the class has a negative
reduced cost. First literals are visited by decreasing ``G`` so that t tightens early.

Memory: the negative rows' bits (one bit per cell, plus at most one word per weight group),
the positive rows' bits (one bit per cell of the rows of positive dual), two ``m x m`` float
matrices, and the cached triple values (at most :data:`_CACHE_TRIPLES` of them).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from logicrules.fca.premise.popcounts import _wcount_and, pair_counts
from logicrules.fca.premise.preparation import _pack_positions, _weighted_count, _weighted_layout
from logicrules.fca.premise.triple_scan import _tiled_triple_counts
from logicrules.lp.conjunction_search import _Best
from logicrules.lp.master import RuleSetProblem
from logicrules.lp.pricing import Pricing

__all__ = ["WeightedBits", "BitsPricing", "BITS_PRICING_ROWS", "use_bits_pricing"]

#: Rows (positive plus negative, distinct) from which column generation prices over packed bits.
BITS_PRICING_ROWS = 20_000
#: Most triple values of the negative rows kept between pricing rounds.
_CACHE_TRIPLES = 1 << 23
#: First literals whose triples are counted in one parallel pass (the threshold tightens between passes).
_FIRST_PER_PASS = 16


@dataclass(frozen=True)
class WeightedBits:
    """Rows of positive weight packed by column into ``uint64`` words, grouped by weight.

    Attributes
    ----------
    bits : ndarray of uint64, shape (m, W)
        Bit ``p`` of column j: the row at position ``p`` has literal j.
    seg : ndarray of int64, shape (G + 1,)
        Word bounds of the groups of equal weight (the last one padded).
    wseg : ndarray of float64, shape (G,)
        The weight of each group.
    valid : ndarray of uint64, shape (W,)
        The positions holding a row (the extent of the empty conjunction).

    Examples
    --------
    >>> A = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    >>> rows = WeightedBits.pack(A, np.array([0.5, 2.0, 2.0]))
    >>> rows.singles().tolist(), float(rows.pairs()[0, 1])
    ([2.5, 4.0], 2.0)
    """

    bits: np.ndarray
    seg: np.ndarray
    wseg: np.ndarray
    valid: np.ndarray

    @classmethod
    def pack(cls, A: np.ndarray, weight: np.ndarray) -> WeightedBits:
        """Pack the rows of ``A`` (bool (n, m)) with ``weight > 0`` (rows of weight 0 left out)."""
        rows = np.flatnonzero(weight > 0)
        order, position, seg, wseg, valid = _weighted_layout(np.asarray(weight, dtype=np.float64)[rows])
        return cls(_pack_positions(A, rows[order], position, int(seg[-1])), seg, wseg, valid)

    def count(self, extents: np.ndarray) -> np.ndarray:
        """Weighted count of packed extents (..., W)."""
        return _weighted_count(extents, self.seg, self.wseg, True)

    def singles(self) -> np.ndarray:
        """Weighted count of every literal, (m,)."""
        return self.count(self.bits)

    def pairs(self) -> np.ndarray:
        """Weighted count of every pair of literals, (m, m) (the diagonal: the singles)."""
        m = self.bits.shape[0]
        out = np.zeros((m, m))
        pair_counts(self.bits, self.seg, self.wseg, True, out)
        return out

    def extents(self, terms: list[tuple[int, ...]]) -> np.ndarray:
        """Packed extents of conjunctions, (len(terms), W)."""
        out = np.empty((len(terms), self.valid.size), dtype=np.uint64)
        for k, term in enumerate(terms):  # a few terms of a few literals
            out[k] = np.bitwise_and.reduce(self.bits[list(term)], axis=0) if term else self.valid
        return out

    def extension_counts(self, extents: np.ndarray) -> np.ndarray:
        """``out[t, j]``: weighted count of ``extents[t] AND literal j``, (t, m)."""
        out = np.zeros((extents.shape[0], self.bits.shape[0]))
        _extension_sums(np.ascontiguousarray(extents), self.bits, self.seg, self.wseg, out)
        return out

    def triples(self, firsts: np.ndarray, pair_ptr: np.ndarray, pair_b: np.ndarray, pair_start: np.ndarray,
                cand_c: np.ndarray, cand_ptr: np.ndarray) -> np.ndarray:
        """Weighted counts of candidate triples grouped by first literal (:func:`_triple_sums`)."""
        out = np.zeros(cand_c.size)
        if cand_c.size:
            _triple_sums(self.bits, self.seg, self.wseg, firsts, pair_ptr, pair_b, pair_start, cand_c, cand_ptr, out)
        return out


    def quads(self, a: np.ndarray, b: np.ndarray, c: np.ndarray, d_ptr: np.ndarray, cand_d: np.ndarray) -> np.ndarray:
        """Weighted counts of the conjunctions ``(a[q], b[q], c[q], d)`` for the fourth literals
        ``cand_d[d_ptr[q]:d_ptr[q + 1]]`` of each triple q (:func:`_quad_sums`)."""
        out = np.zeros(cand_d.size)
        if cand_d.size:
            _quad_sums(self.bits, self.seg, self.wseg, a.astype(np.int64), b.astype(np.int64), c.astype(np.int64),
                       d_ptr.astype(np.int64), cand_d.astype(np.int64), out)
        return out


@njit(cache=True, nogil=True, parallel=True)
def _extension_sums(extents, bits, seg, wseg, out):
    """``out[t, j] = weighted |extents[t] AND bits[j]|`` (:func:`_wcount_and`)."""
    m = bits.shape[0]
    for flat in prange(extents.shape[0] * m):
        t = flat // m
        j = flat - t * m
        out[t, j] = _wcount_and(extents[t], bits[j], seg, wseg)


@njit(cache=True, nogil=True, parallel=True)
def _triple_sums(bits, seg, wseg, firsts, pair_ptr, pair_b, pair_start, cand_c, cand_ptr, out):
    """Weighted ``|a AND b AND c|`` of candidate triples, one first literal per parallel task.

    First literal ``firsts[i]`` has the second literals ``pair_b[pair_ptr[i]:pair_ptr[i + 1]]``;
    the third literals of its q-th pair are ``cand_c[cand_ptr[i] + pair_start[pair_ptr[i] + i + q]
    : ... + 1]`` (``pair_start`` holds ``n_pairs + 1`` local offsets per first literal), and their
    counts go to the same positions of ``out`` (:func:`~logicrules.fca.premise.triple_scan.
    _tiled_triple_counts`: tiles of words kept in cache).
    """
    for i in prange(firsts.shape[0]):
        p0, p1 = pair_ptr[i], pair_ptr[i + 1]
        c0, c1 = cand_ptr[i], cand_ptr[i + 1]
        _tiled_triple_counts(bits, seg, wseg, firsts[i], pair_b[p0:p1], pair_start[p0 + i:p1 + i + 1],
                             cand_c[c0:c1], out[c0:c1])


@njit(cache=True, nogil=True, parallel=True)
def _quad_sums(bits, seg, wseg, a, b, c, d_ptr, cand_d, out):
    """``out[j]`` = weighted ``|a[q] AND b[q] AND c[q] AND cand_d[j]|`` for ``j`` in ``d_ptr[q]:d_ptr[q + 1]``,
    one triple ``q`` per parallel task (its extent ANDed once, then every fourth literal)."""
    words = bits.shape[1]
    for q in prange(a.shape[0]):
        abc = np.empty(words, np.uint64)
        for w in range(words):
            abc[w] = bits[a[q], w] & bits[b[q], w] & bits[c[q], w]
        for j in range(d_ptr[q], d_ptr[q + 1]):
            out[j] = _wcount_and(abc, bits[cand_d[j]], seg, wseg)


def _bounded_pairs(a: int, gain1: np.ndarray, gain2: np.ndarray, e: np.ndarray, step: float,
                   threshold: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The later literals ``(b, c)``, ``a < b < c``, of the triples with first literal ``a`` whose
    bound from their pairs, ``-min G(pair) + 4 step + e_a + e_b + e_c``, is below ``threshold``
    (b ascending, c ascending within b); None when there is none (G(abc) <= G(a) prunes all)."""
    if -gain1[a] + 4 * step + e[a] >= threshold:
        return None
    ga = gain2[a]
    alive = a + 1 + np.flatnonzero(-ga[a + 1:] + 4 * step + e[a] + e[a + 1:] < threshold)
    if alive.size < 2:
        return None
    g = np.minimum(np.minimum(ga[alive][:, None], ga[alive][None, :]), gain2[np.ix_(alive, alive)])
    ea = e[alive]
    i, j = np.nonzero(np.triu(-g + 4 * step + e[a] + ea[:, None] + ea[None, :] < threshold, 1))
    return (alive[i], alive[j]) if i.size else None


def _candidate_layout(per_first: list[tuple[int, np.ndarray, np.ndarray]]):
    """The flat arrays of :func:`_triple_sums` from ``(a, b, c)`` candidates per first literal
    (b ascending, c ascending within b)."""
    firsts, pair_b, pair_start, pair_ptr, cand_ptr = [], [], [], [0], [0]
    for a, b, c in per_first:
        starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
        firsts.append(a)
        pair_b.append(b[starts])
        pair_start.append(np.r_[starts, b.size])
        pair_ptr.append(pair_ptr[-1] + starts.size)
        cand_ptr.append(cand_ptr[-1] + b.size)
    cat = (lambda parts: np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64))
    return (np.array(firsts, dtype=np.int64), np.array(pair_ptr, dtype=np.int64), cat(pair_b), cat(pair_start),
            cat([c for _, _, c in per_first]), np.array(cand_ptr, dtype=np.int64))


class BitsPricing:
    """Exact pricing (sizes 1 to 4) and a beam of one problem over packed bits (module notes).

    Built once per :class:`~logicrules.lp.master.RuleSetProblem`: the negative rows' bits and
    their literal and pair counts; every call then reads the positive rows of positive dual.

    Parameters
    ----------
    problem : RuleSetProblem

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> A = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    >>> pricing = BitsPricing(build_rule_set_problem(A, [1, 0, 0, 1], lam=0.1))
    >>> found = pricing.price(np.ones(2), 0.0, max_size=2, top_k=1)
    >>> found.terms, round(found.least, 6), found.complete
    ([(0, 1)], -1.7, True)
    """

    def __init__(self, problem: RuleSetProblem):
        self.problem = problem
        m = problem.n_literals
        self.neg = WeightedBits.pack(problem.A_neg, problem.neg_weight)
        self.loss1 = self.neg.singles()
        self.loss2 = self.neg.pairs()
        self.extra = np.zeros(m) if problem.literal_cost is None else np.asarray(problem.literal_cost, np.float64)
        self.total_loss = float(problem.neg_weight.sum())
        self._all_pos: WeightedBits | None = None
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._cached = 0

    # ---------------------------------------------------------------- positives of positive dual
    def _gains(self, mu: np.ndarray) -> WeightedBits:
        mu = np.asarray(mu, dtype=np.float64)
        keep = np.flatnonzero(mu > 0)
        return WeightedBits.pack(self.problem.A_pos[keep], mu[keep])

    # ---------------------------------------------------------------- triple losses, cached
    def _triple_losses(self, per_first: list[tuple[int, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
        """``L(a, b, c)`` of the candidates of each first literal, counted once and cached."""
        m = self.problem.n_literals
        out, missing = [], []
        for k, (a, b, c) in enumerate(per_first):
            keys = b * m + c
            found = np.full(keys.size, np.nan)
            known, values = self._cache.get(a, (None, None))
            hit = np.zeros(keys.size, dtype=bool)
            if known is not None:
                where = np.minimum(np.searchsorted(known, keys), known.size - 1)
                hit = known[where] == keys
                found[hit] = values[where[hit]]
            out.append(found)
            if not hit.all():
                missing.append((k, ~hit))
        if not missing:
            return out
        parts = [(per_first[k][0], per_first[k][1][miss], per_first[k][2][miss]) for k, miss in missing]
        counted = self.neg.triples(*_candidate_layout(parts))
        start = 0
        for (k, miss), (a, b, c) in zip(missing, parts):
            values = counted[start:start + b.size]
            start += b.size
            out[k][miss] = values
            if self._cached + b.size <= _CACHE_TRIPLES:
                known, old = self._cache.get(a, (np.zeros(0, np.int64), np.zeros(0)))
                keys = np.concatenate([known, b * m + c])
                order = np.argsort(keys, kind="stable")
                self._cache[a] = (keys[order], np.concatenate([old, values])[order])
                self._cached += b.size
        return out

    # ---------------------------------------------------------------- exact pricing
    def price(self, mu: np.ndarray, nu: float, max_size: int, *, top_k: int = 10,
              first_found: bool = False) -> Pricing:
        """The conjunctions of at most ``max_size`` (1 to 4) literals of least reduced cost, exactly.

        Same contract as :func:`~logicrules.lp.pricing.price_exact`: the ``top_k`` best
        columns of negative reduced cost with distinct extents (the empty conjunction, TRUE,
        included), least first; ``least`` is the least reduced cost of the class when
        ``complete``. ``first_found`` stops as soon as ``2 top_k`` negative columns are held
        (then not complete).
        """
        if not 1 <= int(max_size) <= 4:
            raise ValueError(f"the pricing over packed bits searches terms of 1 to 4 literals, got {max_size!r}")
        start = time.perf_counter()
        P = self.problem
        m = P.n_literals
        mu = np.asarray(mu, dtype=np.float64)
        cost = P.lam + float(nu)
        e = self.extra
        pos = self._gains(mu)
        gain1 = pos.singles()
        scale = self.total_loss + float(mu.sum()) + cost * (1 + max_size)
        best = _Best(2 * int(top_k), 1e-9 * max(1.0, scale))
        literals = np.arange(m)
        best.offer(self.loss1 - gain1 + 2.0 * cost + e, [literals])
        complete = True
        if max_size >= 2 and m > 1:
            gain2 = pos.pairs()
            a, b = np.triu_indices(m, 1)
            best.offer(self.loss2[a, b] - gain2[a, b] + 3.0 * cost + e[a] + e[b], [a, b])
            if max_size >= 3:
                triples: list | None = [] if max_size >= 4 else None
                complete = self._price_triples(pos, gain1, gain2, cost, best, first_found, triples)
                if max_size >= 4 and complete:
                    complete = self._price_quads(pos, gain1, triples, cost, best, first_found)
        values = [float(self.total_loss - mu.sum() + cost)] + best.values.tolist()
        terms = [()] + [tuple(int(j) for j in row if j >= 0) for row in best.terms]
        return self._distinct(terms, np.asarray(values), int(top_k), complete, start)

    def _price_triples(self, pos: WeightedBits, gain1, gain2, cost: float, best: _Best, first_found: bool,
                       record: list | None = None) -> bool:
        """Offer every triple whose bound is below the threshold; False when stopped early.

        ``record`` (a list) receives ``(a, b, c, G(abc))`` of every triple whose gain was counted:
        the quadruple bounds of :meth:`_price_quads`.
        """
        m, e = self.problem.n_literals, self.extra
        order = np.argsort(-gain1, kind="stable")
        for lo in range(0, m, _FIRST_PER_PASS):
            if first_found and best.full():
                return False
            bound = best.bound()
            per_first = []
            for a in order[lo:lo + _FIRST_PER_PASS]:
                pairs = _bounded_pairs(int(a), gain1, gain2, e, cost, bound)
                if pairs is not None:
                    per_first.append((int(a), *pairs))
            if not per_first:
                continue
            # the dual part first (rows of positive dual only): L(abc) >= 0 prunes again on G(abc)
            gains = pos.triples(*_candidate_layout(per_first))
            kept, start = [], 0
            for a, b, c in per_first:
                g = gains[start:start + b.size]
                start += b.size
                if record is not None:
                    record.append((a, b, c, g))
                base = 4.0 * cost + e[a] + e[b] + e[c] - g
                alive = base < bound
                if alive.any():
                    kept.append((a, b[alive], c[alive], base[alive]))
            if not kept:
                continue
            losses = self._triple_losses([(a, b, c) for a, b, c, _ in kept])
            for (a, b, c, base), loss in zip(kept, losses):
                best.offer(loss + base, [np.full(b.size, a), b, c])
        return True

    def _price_quads(self, pos: WeightedBits, gain1, triples: list, cost: float, best: _Best,
                     first_found: bool) -> bool:
        """Offer every quadruple ``a < b < c < d`` whose bound is below the threshold.

        ``triples`` holds the gains ``G(abc)`` of every triple that :meth:`_price_triples` did
        not prune; a triple it pruned has ``-G(abc) + 5 cost >= t`` (its bound there was at least
        the threshold, which only falls), and so has every quadruple holding it. A quadruple
        extends (a, b, c), (a, b, d) and (a, c, d), so ``-min`` of their gains ``+ 5 cost +
        e_a + e_b + e_c + e_d`` bounds it; past that, its exact gain, then its exact loss.
        """
        m, e = self.problem.n_literals, self.extra
        for a, b, c, g in triples:
            if first_found and best.full():
                return False
            bound = best.bound()
            if -gain1[a] + 5.0 * cost + e[a] >= bound:
                continue
            alive = -g + 5.0 * cost + e[a] + e[b] + e[c] < bound
            if alive.sum() < 2:
                continue
            b, c, g = b[alive], c[alive], g[alive]
            G = np.full((m, m), -np.inf)
            G[b, c] = g
            rows = max(1, (1 << 22) // m)   # (pairs x m) candidate masks a block at a time
            for lo in range(0, b.size, rows):
                qb, qc, qg = b[lo:lo + rows], c[lo:lo + rows], g[lo:lo + rows]
                low = np.minimum(np.minimum(G[qb], G[qc]), qg[:, None])
                base = 5.0 * cost + e[a] + (e[qb] + e[qc])[:, None] + e[None, :] - low
                q, d = np.nonzero((np.arange(m)[None, :] > qc[:, None]) & (base < bound))
                if not q.size:
                    continue
                d_ptr = np.searchsorted(q, np.arange(qb.size + 1))
                first = np.full(qb.size, a)
                base = 5.0 * cost + e[a] + e[qb[q]] + e[qc[q]] + e[d] - pos.quads(first, qb, qc, d_ptr, d)
                keep = base < bound
                if not keep.any():
                    continue
                q, d, base = q[keep], d[keep], base[keep]
                d_ptr = np.searchsorted(q, np.arange(qb.size + 1))
                loss = self.neg.quads(first, qb, qc, d_ptr, d)
                best.offer(loss + base, [np.full(q.size, a), qb[q], qc[q], d])
        return True

    def _distinct(self, terms: list[tuple[int, ...]], values: np.ndarray, top_k: int, complete: bool,
                  start: float) -> Pricing:
        """One column per extent over all rows (the cheapest term of each), least first."""
        least = min(float(values.min()), 0.0)
        order = np.argsort(values, kind="stable")
        order = order[values[order] < 0]
        if order.size > 1:
            if self._all_pos is None:
                self._all_pos = WeightedBits.pack(self.problem.A_pos, np.ones(self.problem.A_pos.shape[0]))
            chosen = [terms[k] for k in order]
            extents = np.hstack([self._all_pos.extents(chosen), self.neg.extents(chosen)])
            _, first = np.unique(extents, axis=0, return_index=True)
            order = order[np.sort(first)]
        order = order[:top_k]
        return Pricing([terms[k] for k in order], values[order], least, complete, time.perf_counter() - start)

    # ---------------------------------------------------------------- beam (heuristic)
    def beam(self, mu: np.ndarray, nu: float, *, width: int, max_size: int) -> Pricing:
        """A beam from the empty term: the ``width`` best one-literal extensions kept per step.

        Every extension of the beam is scored exactly (its reduced cost from packed counts);
        the columns are those of negative reduced cost. Heuristic: ``complete`` is False.
        """
        start = time.perf_counter()
        P = self.problem
        m = P.n_literals
        cost = P.lam + float(nu)
        pos = self._gains(mu)
        beam: list[tuple[int, ...]] = [()]
        found: dict[tuple[int, ...], float] = {}
        while beam:
            rc = (self.neg.extension_counts(self.neg.extents(beam)) - pos.extension_counts(pos.extents(beam))
                  + cost * (2.0 + np.array([len(t) for t in beam]))[:, None] + self.extra[None, :]
                  + np.array([self.extra[list(t)].sum() for t in beam])[:, None])
            for k, term in enumerate(beam):
                rc[k, list(term)] = np.inf  # a literal already in the term adds nothing
            nxt: dict[tuple[int, ...], float] = {}
            for flat in np.argsort(rc, axis=None, kind="stable")[:max(4 * width, width + m)]:
                k, j = divmod(int(flat), m)
                if not np.isfinite(rc[k, j]) or len(nxt) == width:
                    break
                nxt.setdefault(tuple(sorted(beam[k] + (j,))), float(rc[k, j]))
            found.update({t: v for t, v in nxt.items() if v < 0})
            beam = [t for t in nxt if len(t) < max_size]
        terms = sorted(found, key=found.get)
        values = np.array([found[t] for t in terms])
        return Pricing(terms, values, float(values.min()) if terms else np.inf, False, time.perf_counter() - start)


def use_bits_pricing(problem: RuleSetProblem, max_size: int) -> bool:
    """Whether column generation prices ``problem`` over packed bits: terms of at most 4
    literals and at least :data:`BITS_PRICING_ROWS` distinct rows."""
    return int(max_size) <= 4 and problem.A_pos.shape[0] + problem.A_neg.shape[0] >= BITS_PRICING_ROWS
