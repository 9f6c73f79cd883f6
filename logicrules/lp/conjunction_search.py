"""Exact search of the conjunctions of least weighted linear cost, by float matrix products.

The pricing problem of the DNF master (:mod:`logicrules.lp.pricing`) asks for the conjunctions
K of at most k literals (k <= 4) of least

    ``f(K) = L(K) - G(K) + cost (1 + |K|)``,

where ``G(K)`` sums the gain weights ``g_i > 0`` of the positive rows on which K holds and
``L(K)`` the loss weights ``l_i > 0`` of the negative rows. The weights are arbitrary floats
(LP duals): here no count is grouped by weight, every count is a float matrix product over the
0/1 rows, so the work is rows x candidates whatever the number of distinct weights:

- sizes 1 and 2: ``g @ X`` and the weighted Gram matrix ``X^T diag(g) X`` (and the same for the
  negative rows), computed in blocks of first literals;
- size 3, when the two ``m x m`` pair-count matrices fit in :data:`_PAIR_BYTES`: every triple
  bounded from its pairs' counts, gains and losses (:mod:`~logicrules.lp.triple_bounds`, which
  also bounds the loss, unlike the Gram matrices), and only the survivors counted on their
  rows; a first literal whose survivors are too many for that to pay is searched by its Gram
  matrix instead (the cost rule of :func:`_bounded_triples`). Otherwise, first literal a: the
  Gram matrix of the rows of a's extent, ``X_a^T diag(g_a) X_a``, over the literals b > a still
  alive (below);
- size 4, first literal a: for every alive pair (b, c), the product of the column
  ``g_a * x_b * x_c`` with ``X_a`` (chunks of pairs).

**Pruning (exact).** Adding literals only shrinks the extent, so for K' containing K,
``G(K') <= G(K)`` and ``L(K') >= 0``; hence ``f(K') >= -G(K) + cost (1 + |K'|)`` (optional
extra literal costs ``e_j >= 0`` only add to f). Candidates are
only kept when ``f < t``, where t is the ``top_k``-th least value found so far, and never above
0 (only negative reduced costs are columns). A literal b joins the size-s terms with first
literal a only when ``-G({a, b}) + cost (1 + s) < t``, and a pair (b, c) joins the size-4 terms
only when ``-G({a, b, c}) + 5 cost < t``: no pruned term can have ``f < t``, so the least value
found is the least value of the class whenever it is below 0 (a small slack guards the float
comparison).

Memory: the pair counts of the triple bounds at most :data:`_PAIR_BYTES`, the blocks of the
Gram matrices ``block x m`` floats, the size-4 chunks at most about ``_CHUNK`` floats per
operand; beyond those the search holds no ``m x m`` or larger array.
"""

from __future__ import annotations

import time

import numpy as np

from logicrules.lp.triple_bounds import PairCounts, TripleBounds

__all__ = ["least_conjunctions", "least_short_terms"]

#: First literals per block of the size-1/2 Gram matrices.
_BLOCK = 256
#: Floats per operand of one size-4 product chunk.
_CHUNK = 1 << 21
#: Bytes of the two ``m x m`` pair-count matrices from which triples are bounded by pairs
#: (:mod:`logicrules.lp.triple_bounds`); wider problems count triples by Gram matrices only.
_PAIR_BYTES = 1 << 27
#: First literals whose triples are bounded in one compiled pass (the threshold tightens between passes).
_FIRSTS = 64
#: How much faster a step of a BLAS Gram product is taken to be than a step of counting one
#: triple on its rows: the rule that picks the engine per first literal.
_GRAM_SPEEDUP = 16


class _Best:
    """The ``top_k`` least values seen (terms padded with -1 to 4 literals); ``threshold`` is
    the value a new candidate must beat: the ``top_k``-th least seen, never above 0."""

    def __init__(self, top_k: int, slack: float):
        self.top_k = top_k
        self.slack = slack
        self.values = np.empty(0)
        self.terms = np.empty((0, 4), dtype=np.intp)
        self.threshold = 0.0

    def full(self) -> bool:
        return self.values.size >= self.top_k

    def bound(self) -> float:
        """Prune when a lower bound is at least this (the threshold plus the float slack)."""
        return self.threshold + self.slack

    def offer(self, values: np.ndarray, columns: list[np.ndarray]) -> None:
        keep = values < self.threshold
        if not keep.any():
            return
        terms = np.full((int(keep.sum()), 4), -1, dtype=np.intp)
        for j, column in enumerate(columns):
            terms[:, j] = column[keep]
        self.values = np.concatenate([self.values, values[keep]])
        self.terms = np.vstack([self.terms, terms])
        if self.values.size >= self.top_k:
            order = np.argsort(self.values, kind="stable")[:self.top_k]
            self.values, self.terms = self.values[order], self.terms[order]
            self.threshold = min(0.0, float(self.values[-1]))


def least_conjunctions(X: np.ndarray, positive: np.ndarray, weight: np.ndarray, cost: float, max_size: int, *,
                       top_k: int = 10, time_limit: float | None = None, stop_when_full: bool = False,
                       literal_cost: np.ndarray | None = None):
    """The conjunctions of 1 to ``max_size`` columns of X with the least ``f`` (module notes).

    Parameters
    ----------
    X : ndarray of bool, shape (n, m)
        Rows over the literals.
    positive : ndarray of bool, shape (n,)
        True for gain rows (weight counts ``-g_i``), False for loss rows (``+l_i``).
    weight : ndarray of shape (n,)
        Row weights, > 0.
    cost : float
        Cost per term and per literal, ``>= 0``.
    max_size : int
        Longest conjunction, 1 to 4.
    top_k : int, default 10
        Number of conjunctions returned.
    time_limit : float, optional
        Seconds; checked between first literals. A stopped search is not complete.
    stop_when_full : bool, default False
        Stop as soon as ``top_k`` conjunctions with ``f < 0`` are held (checked after sizes 1
        and 2 and after each first literal of sizes 3 and 4): a fast source of good columns,
        not complete when it stops.
    literal_cost : ndarray of shape (m,), optional
        Extra cost ``e_j >= 0`` of each literal, added to f (the bounds ignore it: still valid).

    Returns
    -------
    terms : list of tuple of int
        Up to ``top_k`` conjunctions with ``f < 0``, least first (ties: smaller terms first).
        Conjunctions that hold on every row are left out (the empty conjunction has their
        extent at a lower cost), and of conjunctions with equal extents only the cheapest
        may be returned.
    values : ndarray
        Their values f.
    complete : bool
        True when the search was not stopped: every conjunction left out has ``f >= 0`` or
        ``f >=`` the last value returned.

    Examples
    --------
    >>> X = np.array([[1, 1, 0], [1, 1, 1], [1, 0, 1], [0, 1, 1]], dtype=bool)
    >>> terms, values, complete = least_conjunctions(X, np.array([1, 1, 0, 0], bool), np.ones(4), 0.1, 2, top_k=2)
    >>> terms, np.round(values, 6).tolist(), complete
    ([(0, 1), (0,)], [-1.7, -0.8], True)
    """
    start = time.perf_counter()
    X = np.asarray(X, dtype=bool)
    positive = np.asarray(positive, dtype=bool)
    weight = np.asarray(weight, dtype=np.float64)
    # literals equal on every row to an earlier one, or true on every row, are left out (the
    # kept one, or the term without it, has the same extent at no greater cost)
    extra = np.zeros(X.shape[1]) if literal_cost is None else np.asarray(literal_cost, dtype=np.float64)
    literals = np.sort(_distinct_columns(X, np.argsort(extra, kind="stable")))
    X, extra = X[:, literals], extra[literals]
    n, m = X.shape
    XP, XN = X[positive].astype(np.float64), X[~positive].astype(np.float64)
    gP, lN = weight[positive], weight[~positive]
    scale = float(weight.sum()) + cost * (1 + max_size)
    best = _Best(int(top_k), 1e-9 * max(1.0, scale))
    all_literals = np.arange(m)

    def out_of_time() -> bool:
        return time_limit is not None and time.perf_counter() - start > time_limit

    pairs = PairCounts(XP, XN, gP, lN) if max_size >= 3 and 16 * m * m <= _PAIR_BYTES else None
    if pairs is not None:
        # the literals renumbered by how many pairs with them can reach the threshold, fewest
        # first: a term is searched from its first literal in this order, so the literals of
        # many strong pairs meet only each other (the ordering of triangle listing)
        strong = -pairs.G2 + 4.0 * cost + extra[:, None] + extra[None, :] < best.bound()
        order = np.argsort(strong.sum(axis=1), kind="stable")
        literals, X, extra, XP, XN = literals[order], X[:, order], extra[order], XP[:, order], XN[:, order]
        pairs = pairs.take(order)
    # sizes 1 and 2 (whole pair counts when they fit, else blocks of first literals)
    gain1, loss1 = gP @ XP, lN @ XN
    best.offer(loss1 - gain1 + 2.0 * cost + extra, [all_literals])
    if pairs is not None:
        a, b = np.triu_indices(m, 1)
        best.offer(pairs.L2[a, b] - pairs.G2[a, b] + 3.0 * cost + extra[a] + extra[b], [a, b])
    elif max_size >= 2:
        for lo in range(0, m, _BLOCK):
            block = np.arange(lo, min(m, lo + _BLOCK))
            F2 = ((XN[:, block] * lN[:, None]).T @ XN - (XP[:, block] * gP[:, None]).T @ XP + 3.0 * cost
                  + extra[block, None] + extra[None, :])
            a, b = np.nonzero((block[:, None] < all_literals[None, :]) & (F2 < best.threshold))
            best.offer(F2[a, b], [block[a], b])
    # sizes 3 and 4, per first literal a (the best sizes 1-3 first: they tighten the threshold)
    for size in range(3, max_size + 1):
        if size == 3 and pairs is not None:
            signed = np.where(positive, -weight, weight)
            triples = TripleBounds(X, signed, pairs, cost, extra)
            for lo in range(0, m, _FIRSTS):
                if out_of_time() or (stop_when_full and best.full()):
                    return _result(best, literals, False)
                _bounded_triples(np.argsort(-gain1, kind="stable")[lo:lo + _FIRSTS], triples, pairs.G2, XP, XN,
                                 gP, lN, cost, extra, best)
            continue
        for a in np.argsort(-gain1, kind="stable"):
            if -gain1[a] + cost * (1 + size) >= best.bound():
                continue
            if out_of_time() or (stop_when_full and best.full()):
                return _result(best, literals, False)
            _extend(a, size, XP, XN, gP, lN, cost, extra, best)
    return _result(best, literals, True)


def least_short_terms(X: np.ndarray, positive: np.ndarray, weight: np.ndarray, cost: float, count: int, *,
                      literal_cost: np.ndarray | None = None):
    """The ``count`` conjunctions of one or two columns of X with the least ``f``, of any sign.

    The seeds of a beam past two literals (:func:`~logicrules.lp.pricing.price_short_beam`): a
    pair of positive ``f`` may still extend to a negative triple. Same notation as
    :func:`least_conjunctions`; the pairs are scored in blocks of first literals (one weighted
    Gram matrix product per block, at most ``_BLOCK x m`` floats held).

    Returns
    -------
    terms : list of tuple of int
        Least ``f`` first (ties: smaller terms first).
    values : ndarray
        Their values f.

    Examples
    --------
    >>> X = np.array([[1, 1, 0], [1, 1, 1], [1, 0, 1], [0, 1, 1]], dtype=bool)
    >>> terms, values = least_short_terms(X, np.array([1, 1, 0, 0], bool), np.ones(4), 0.1, 3)
    >>> terms, np.round(values, 6).tolist()
    ([(0, 1), (0,), (1,)], [-1.7, -0.8, -0.8])
    """
    X = np.asarray(X, dtype=bool)
    positive = np.asarray(positive, dtype=bool)
    weight = np.asarray(weight, dtype=np.float64)
    m = X.shape[1]
    extra = np.zeros(m) if literal_cost is None else np.asarray(literal_cost, dtype=np.float64)
    XP, XN = X[positive].astype(np.float64), X[~positive].astype(np.float64)
    gP, lN = weight[positive], weight[~positive]
    count = int(count)
    values = lN @ XN - gP @ XP + 2.0 * cost + extra
    terms = np.column_stack([np.arange(m), np.full(m, -1)])
    for lo in range(0, m, _BLOCK):
        block = np.arange(lo, min(m, lo + _BLOCK))
        # pairs (a, b) with b > a only: the columns before the block are never products
        F2 = np.full((block.size, m), np.inf)
        F2[:, lo:] = ((XN[:, block] * lN[:, None]).T @ XN[:, lo:] - (XP[:, block] * gP[:, None]).T @ XP[:, lo:]
                      + 3.0 * cost + extra[block, None] + extra[None, lo:])
        F2[:, lo:lo + block.size][~(block[:, None] < block[None, :])] = np.inf
        flat = F2.ravel()
        take = np.argpartition(flat, min(count, flat.size - 1))[:count] if flat.size > count else np.arange(flat.size)
        a, b = np.divmod(take, m)
        values = np.concatenate([values, flat[take]])
        terms = np.vstack([terms, np.column_stack([block[a], b])])
        if values.size > 2 * count:
            keep = np.argpartition(values, count)[:count]
            values, terms = values[keep], terms[keep]
    finite = np.isfinite(values)
    values, terms = values[finite], terms[finite]
    order = np.lexsort(((terms >= 0).sum(axis=1), values))[:count]
    return [tuple(int(j) for j in row if j >= 0) for row in terms[order]], values[order]


def _distinct_columns(S: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """The candidates whose columns of the 0/1 rows S are not all ones and not equal to an
    earlier candidate's (the first of each group of equal columns is kept), in their order."""
    columns = S[:, candidates] > 0
    candidates, columns = candidates[~columns.all(axis=0)], columns[:, ~columns.all(axis=0)]
    if candidates.size < 2:
        return candidates
    packed = np.ascontiguousarray(np.packbits(columns, axis=0).T)   # one byte string per column
    _, first = np.unique(packed.view(np.dtype((np.void, packed.shape[1]))).ravel(), return_index=True)
    return candidates[np.sort(first)]


def _merge_rows(M: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a boolean matrix (as floats) and the summed weights of their copies."""
    if M.shape[0] < 2:
        return M.astype(np.float64), weight
    packed = np.ascontiguousarray(np.packbits(M, axis=1))
    _, first, inverse = np.unique(packed.view(np.dtype((np.void, packed.shape[1]))).ravel(),
                                  return_index=True, return_inverse=True)
    return M[first].astype(np.float64), np.bincount(inverse.ravel(), weights=weight, minlength=first.size)


def _extend(a: int, size: int, XP, XN, gP, lN, cost: float, extra: np.ndarray, best: _Best) -> None:
    """Offer every alive term of ``size`` (3 or 4) literals whose first literal is a.

    Within the rows of a's extent, a literal that holds on all of them adds nothing (the term
    without it has the same extent and costs less) and of literals that agree on all of them
    one stands for the others (same extents, same costs): both are left out, so the least
    value is still found.
    """
    rows_p, rows_n = XP[:, a] > 0, XN[:, a] > 0
    Xa, ga = XP[rows_p], gP[rows_p]
    S = np.vstack([Xa, XN[rows_n]])                     # a's extent: gain rows, then loss rows
    signed = np.concatenate([-ga, lN[rows_n]])
    alive = np.flatnonzero((-(ga @ Xa) + cost * (1 + size) < best.bound()) & (np.arange(XP.shape[1]) > a))
    alive = np.sort(_distinct_columns(S, alive[np.argsort(extra[alive], kind="stable")]))
    if alive.size < size - 1:
        return
    # rows equal on the alive literals count as one row of their summed weight (exact: the
    # counts are linear in the rows); many rows with few literals left shrink a lot
    Sa, signed = _merge_rows(S[:, alive] > 0, signed)
    ea, base = extra[alive], (1.0 + size) * cost + extra[a]
    if size == 3:
        F3 = (Sa * signed[:, None]).T @ Sa
        F3 += ea[:, None]
        F3 += ea[None, :] + base
        i, j = np.nonzero(np.triu(F3 < best.threshold, 1))
        best.offer(F3[i, j], [np.full(i.size, a), alive[i], alive[j]])
        return
    Pa, gu = _merge_rows(Xa[:, alive] > 0, ga)
    pair_alive = np.triu(-((Pa * gu[:, None]).T @ Pa) + 5.0 * cost < best.bound(), 1)
    i, j = np.nonzero(pair_alive)
    chunk = max(1, _CHUNK // max(1, Sa.shape[0], alive.size))
    for lo in range(0, i.size, chunk):
        bi, ci = i[lo:lo + chunk], j[lo:lo + chunk]
        F4 = (Sa[:, bi] * Sa[:, ci] * signed[:, None]).T @ Sa
        F4 += (ea[bi] + ea[ci] + base)[:, None]
        F4 += ea[None, :]
        # the fourth literal d follows c and keeps the triples (a, b, d) and (a, c, d) alive
        fourth = ((np.arange(alive.size)[None, :] > ci[:, None]) & pair_alive[bi] & pair_alive[ci]
                  & (F4 < best.threshold))
        r, d = np.nonzero(fourth)
        best.offer(F4[r, d], [np.full(r.size, a), alive[bi[r]], alive[ci[r]], alive[d]])


def _bounded_triples(firsts: np.ndarray, triples: TripleBounds, G2: np.ndarray, XP, XN, gP, lN, cost: float,
                     extra: np.ndarray, best: _Best) -> None:
    """Offer every triple with first literal in ``firsts`` whose value can be below the threshold.

    The pair bounds (:mod:`~logicrules.lp.triple_bounds`) leave some triples of each first
    literal a to count one by one over their rows (about ``left x rows`` scalar steps); when
    they leave more than ``1 /`` :data:`_GRAM_SPEEDUP` of the triples of a's alive literals, a
    is searched by the Gram matrix of those literals instead (:func:`_extend`, ``alive^2 x
    rows`` flops of a BLAS product, taken to be that many times faster per step). Both are
    exact, so the choice changes only the time.
    """
    bound = best.bound()
    alive = ((-G2[firsts] + 4.0 * cost + extra[firsts, None] + extra[None, :] < bound)
             & (np.arange(G2.shape[0])[None, :] > firsts[:, None])).sum(axis=1)
    a, b, c, values, gram = triples.search(firsts, bound, alive * (alive - 1) // (2 * _GRAM_SPEEDUP) + 1)
    best.offer(values, [a, b, c])
    for a in firsts[gram]:
        _extend(int(a), 3, XP, XN, gP, lN, cost, extra, best)


def _result(best: _Best, literals: np.ndarray, complete: bool):
    """The terms held over the caller's literal indices, sorted, least value first (ties:
    smaller terms, then the smaller first literal)."""
    terms = np.where(best.terms >= 0, literals[np.maximum(best.terms, 0)], -1)
    terms = np.sort(np.where(terms >= 0, terms, np.iinfo(np.intp).max), axis=1)
    order = np.lexsort((terms[:, 0], (best.terms >= 0).sum(axis=1), best.values))
    return [tuple(int(j) for j in row if j != np.iinfo(np.intp).max) for row in terms[order]], best.values[order], complete
