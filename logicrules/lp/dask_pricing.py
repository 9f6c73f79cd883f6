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
already fails that bound for the larger size has no hopeful extension. Only the triples and
quadruples whose bound lies below the threshold ``t`` are sent to the partitions, all those of
one size in one counting pass (each partition returns one count per candidate, summed:
:class:`HeldCounts`); every other one has ``rc >= t``. The threshold is ``-tol`` (a column must
price out), lowered to the ``top_k``-th least reduced cost already known from the smaller
sizes (a candidate above it cannot be among the ``top_k`` returned). So every conjunction of
negative reduced cost among the ``top_k`` least is found with its exact value, and when none
has one the pricing proves it, as the in-memory pricing does
(:func:`~logicrules.lp.pricing.price_exact`).

Memory on the driver: S's rows of positive dual as floats, ``m x m`` gain matrices (one per
first literal, one per hopeful pair for quadruples), the candidates of one pass (checked
against ``memory_limit`` before they are sent, 40 bytes each), and the counted values kept for
later rounds (``L`` does not change).
"""

from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np

from logicrules import memory
from logicrules.fca.row_block import RowBlock
from logicrules.lp.pricing import Pricing
from logicrules.progress import pass_line

__all__ = ["Negatives", "HeldCounts", "price", "CANDIDATE_BYTES"]

#: Driver bytes per candidate conjunction sent to the partitions (its literals and its count,
#: the cached key and value).
CANDIDATE_BYTES = 40
#: Words (64 rows each) of candidate conjunctions ANDed at once by a partition.
_WORDS_AT_ONCE = 1 << 22
#: Cells (rows x candidates) of a weighted partition tested at once.
_CELLS_AT_ONCE = 1 << 24


def _held(block: RowBlock, combos: np.ndarray, other: int, complement: bool) -> np.ndarray:
    """The weight (without weights: the number) of the rows of class ``other`` of a partition on
    which every literal of each combination holds (is false, with ``complement``)."""
    t, r = combos.shape
    if block.weights is None:
        out = np.zeros(t, dtype=np.int64)
        mask = block.class_bits()[other]
        per = max(1, _WORDS_AT_ONCE // max(r * block.bits.shape[1], 1))
        for lo in range(0, t, per):
            sub = block.bits[combos[lo:lo + per]]  # (g, r, words)
            if complement:
                np.invert(sub, out=sub)
            out[lo:lo + per] = np.bitwise_count(np.bitwise_and.reduce(sub, axis=1) & mask).sum(axis=1)
        return out
    out = np.zeros(t)
    rows = np.flatnonzero(block.labels == other)
    if rows.size == 0 or t == 0:
        return out
    used, local = np.unique(combos, return_inverse=True)
    local = local.reshape(t, r)
    dense = block.dense(columns=used)[rows]
    if complement:
        np.logical_not(dense, out=dense)
    weights = block.weights[rows]
    per = max(1, _CELLS_AT_ONCE // rows.size)
    for lo in range(0, t, per):
        part = local[lo:lo + per]
        holds = dense[:, part[:, 0]].copy()
        for j in range(1, r):
            holds &= dense[:, part[:, j]]
        out[lo:lo + per] = weights @ holds
    return out


class HeldCounts:
    """One counting pass: each partition returns, for every candidate conjunction, the weight of
    its negative rows holding it (:func:`_held`); the partial counts are tree-summed."""

    def __init__(self, counts: Any, other: int, complement: bool) -> None:
        self.counts, self.other, self.complement = counts, other, complement

    def __call__(self, combos: np.ndarray) -> np.ndarray:
        import dask

        start = time.perf_counter()
        kernel = dask.delayed(functools.partial(_held, combos=np.ascontiguousarray(combos, dtype=np.intp),
                                                other=self.other, complement=self.complement))
        (total,) = dask.compute(self.counts.lazy(kernel))  # one key for the candidates, not one per task
        self.counts.n_passes += 1
        pass_line(self.counts.verbose, f"dask pass: negatives of {combos.shape[0]} conjunctions of "
                  f"{combos.shape[1]} literals over {self.counts.n_partitions} partitions",
                  time.perf_counter() - start)
        return np.zeros(combos.shape[0]) if total is None else np.asarray(total, dtype=np.float64)


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

    def held(self, combos: np.ndarray) -> np.ndarray:
        """``L`` of every combination (rows of sorted literals, all of one size > 2), the ones
        not known yet counted in one pass (their driver memory checked first)."""
        combos = np.asarray(combos, dtype=np.int64)
        r = combos.shape[1]
        keys = self._keys(combos)
        known_keys, known = self._known.get(r, (np.zeros(0, np.int64), np.zeros(0)))
        at = np.minimum(np.searchsorted(known_keys, keys), max(known_keys.size - 1, 0))
        hit = known_keys[at] == keys if known_keys.size else np.zeros(keys.size, dtype=bool)
        out = np.where(hit, known[at] if known_keys.size else 0.0, np.nan)
        if not hit.all():
            missing_keys, first = np.unique(keys[~hit], return_index=True)
            missing = combos[~hit][first]
            memory.require(CANDIDATE_BYTES * (missing_keys.size + known_keys.size),
                           f"the pricing's {missing_keys.size} candidate conjunctions of {r} literals (and "
                           f"{known_keys.size} counted before)", "use a larger lam or a smaller max_term_size")
            values = self.c_neg * self._count(missing)
            merged = np.concatenate([known_keys, missing_keys])
            order = np.argsort(merged, kind="stable")
            self._known[r] = (merged[order], np.concatenate([known, values])[order])
            out[~hit] = values[np.searchsorted(missing_keys, keys[~hit])]
        return out

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


def _threshold(values: list[np.ndarray], top_k: int, tol: float) -> float:
    """``-tol``, or the ``top_k``-th least of the values known when that is lower."""
    known = np.concatenate(values) if values else np.zeros(0)
    if known.size < top_k:
        return -tol
    return min(-tol, float(np.partition(known, top_k - 1)[top_k - 1]))


def price(P: Any, L: Negatives, mu: np.ndarray, nu: float, max_size: int, top_k: int, tol: float) -> Pricing:
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

    Returns
    -------
    Pricing
        ``complete`` (the search is exhaustive); ``least`` the least reduced cost evaluated.
    """
    start = time.perf_counter()
    m = P.n_literals
    e = np.zeros(m) if P.literal_cost is None else np.asarray(P.literal_cost, dtype=np.float64)
    rows, g = P.A_pos[mu > 0].astype(np.float64), mu[mu > 0]
    step = P.lam + nu
    terms: list[np.ndarray] = [np.zeros((1, 0), dtype=np.intp)]
    values = [np.array([L.c_neg * L.total - float(g.sum()) + step])]
    G1 = g @ rows if rows.size else np.zeros(m)
    terms.append(np.arange(m)[:, None])
    values.append(L.single - G1 + 2 * step + e)
    if max_size >= 2 and m >= 2:
        G2 = (rows * g[:, None]).T @ rows if rows.size else np.zeros((m, m))
        i, j = np.triu_indices(m, 1)
        terms.append(np.column_stack([i, j]))
        values.append(L.pair[i, j] - G2[i, j] + 3 * step + e[i] + e[j])
    if max_size >= 3 and m >= 3 and rows.size:
        t3 = _threshold(values, top_k, tol)
        triples, gains3 = _hopeful_triples(rows, g, e, step, t3, max_size)
        if triples.size:
            terms.append(triples)
            values.append(L.held(triples) - gains3 + 4 * step + e[triples].sum(axis=1))
        if max_size >= 4 and m >= 4:
            t4 = _threshold(values, top_k, tol)
            quads, gains4 = _hopeful_quads(rows, g, e, step, t4)
            if quads.size:
                terms.append(quads)
                values.append(L.held(quads) - gains4 + 5 * step + e[quads].sum(axis=1))
    flat = np.concatenate(values)
    order = np.argsort(flat, kind="stable")[:top_k]
    starts = np.cumsum([0] + [v.size for v in values])
    block = np.searchsorted(starts, order, side="right") - 1
    found = [tuple(int(j) for j in terms[b][k - starts[b]]) for b, k in zip(block.tolist(), order.tolist())]
    return Pricing(found, flat[order], float(flat.min()), True, time.perf_counter() - start)


def _hopeful_triples(rows: np.ndarray, g: np.ndarray, e: np.ndarray, step: float, threshold: float,
                     max_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every triple ``a < b < c`` whose bound ``-G + 4 step + e_abc`` is below ``threshold``,
    with its gain G (by first literal: the gains of pairs over the rows holding it)."""
    m = rows.shape[1]
    found, gains = [], []
    held = rows > 0
    for a in range(m - 2):
        ra = held[:, a]
        if -g[ra].sum() + 4 * step + e[a] >= threshold:  # G(abc) <= G(a): no triple with a
            continue
        Ra, ga = rows[ra], g[ra]
        G3 = (Ra * ga[:, None]).T @ Ra
        b, c = np.triu_indices(m, 1)
        inside = b > a
        b, c = b[inside], c[inside]
        hopeful = -G3[b, c] + 4 * step + e[a] + e[b] + e[c] < threshold  # L >= 0: only these can price out
        found.append(np.column_stack([np.full(hopeful.sum(), a), b[hopeful], c[hopeful]]))
        gains.append(G3[b, c][hopeful])
    if not found:
        return np.zeros((0, 3), dtype=np.intp), np.zeros(0)
    return np.concatenate(found), np.concatenate(gains)


def _hopeful_quads(rows: np.ndarray, g: np.ndarray, e: np.ndarray, step: float,
                   threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Every quadruple ``a < b < c < d`` whose bound ``-G + 5 step + e_abcd`` is below
    ``threshold``, with its gain G: by hopeful pair (a, b) (``-G(ab) + 5 step + e_a + e_b``
    below it), the gains of pairs over the rows holding both, among the literals c whose triple
    (a, b, c) is still hopeful."""
    m = rows.shape[1]
    held = rows > 0
    found, gains = [], []
    later = np.arange(m)
    for a in range(m - 3):
        ra = held[:, a]
        if -g[ra].sum() + 5 * step + e[a] >= threshold:
            continue
        Ra, ga = rows[ra], g[ra]
        Ha = held[ra]
        G3 = (Ra * ga[:, None]).T @ Ra  # G(a, b, c) at [b, c]; G(a, b) on the diagonal
        for b in range(a + 1, m - 2):
            if -G3[b, b] + 5 * step + e[a] + e[b] >= threshold:
                continue
            alive = np.flatnonzero((later > b) & (-G3[b] + 5 * step + e[a] + e[b] + e < threshold))
            if alive.size < 2:
                continue
            rab = Ha[:, b]
            Rab = Ra[rab][:, alive]
            G4 = (Rab * ga[rab][:, None]).T @ Rab
            c, d = np.triu_indices(alive.size, 1)
            hopeful = -G4[c, d] + 5 * step + e[a] + e[b] + e[alive[c]] + e[alive[d]] < threshold
            if hopeful.any():
                c, d = c[hopeful], d[hopeful]
                found.append(np.column_stack([np.full(c.size, a), np.full(c.size, b), alive[c], alive[d]]))
                gains.append(G4[c, d])
    if not found:
        return np.zeros((0, 4), dtype=np.intp), np.zeros(0)
    return np.concatenate(found), np.concatenate(gains)
