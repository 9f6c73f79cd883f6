"""Exact search of the three-literal conjunctions of least weighted linear cost, by pair bounds.

The notation is that of :mod:`logicrules.lp.conjunction_search`: a conjunction K has
``f(K) = L(K) - G(K) + cost (1 + |K|) + sum_{j in K} e_j``, where ``G`` sums the gain weights
of the rows K holds on and ``L`` the loss weights. Given the weighted counts of every literal
(``G1``, ``L1``) and every pair (``G2``, ``L2``), every triple (a, b, c) is bounded before
anything is counted on its rows:

- its extent lies in each of its pairs' extents, so ``G(abc) <= min(G(ab), G(ac), G(bc))``;
- for any measure, ``mu(A & B & C) >= mu(A & B) + mu(A & C) - mu(A)`` (the sets ``A & B`` and
  ``A & C`` lie in A, so their union weighs at most ``mu(A)``), and the same with B or C as the
  middle set, and ``mu >= 0``: ``L(abc) >= max(0, L(ab) + L(ac) - L(a), L(ab) + L(bc) - L(b),
  L(ac) + L(bc) - L(c))``.

Their difference plus the cost is a lower bound on ``f(abc)``. Only the triples whose bound is
below the search's threshold t (the ``top_k``-th least value held, never above 0, plus a float
slack) are counted exactly on their rows; no other triple can have ``f < t``. The loss bound is
what the Gram-matrix search of :func:`~logicrules.lp.conjunction_search.least_conjunctions`
cannot use (it counts every triple of a first literal's alive pairs): on the pricing problems
of column generation on wide data (sonar: 923 literals, 150 rows) it leaves about one triple in
a hundred of those the gain bounds leave.

Work: ``m^2`` floats for the pair counts (the caller decides whether they fit), the bounds of
the triples of alive pairs (a few flops each, compiled), and for each surviving triple a pass
over the rows of its first two literals' extent.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["PairCounts", "TripleBounds"]


class PairCounts:
    """Weighted counts of every literal and pair of 0/1 rows, split by gain and loss rows.

    Parameters
    ----------
    XP, XN : ndarray of float64, shapes (p, m) and (q, m)
        Gain rows and loss rows (0/1).
    gP, lN : ndarray of float64
        Their weights.

    Examples
    --------
    >>> XP = np.array([[1, 1, 0], [1, 0, 1]], float)
    >>> counts = PairCounts(XP, np.zeros((1, 3)), np.array([2.0, 0.5]), np.ones(1))
    >>> counts.G1.tolist(), float(counts.G2[0, 1]), float(counts.L2[0, 1])
    ([2.5, 2.0, 0.5], 2.0, 0.0)
    """

    def __init__(self, XP: np.ndarray, XN: np.ndarray, gP: np.ndarray, lN: np.ndarray):
        self.G1, self.L1 = gP @ XP, lN @ XN
        self.G2 = np.ascontiguousarray((XP * gP[:, None]).T @ XP)
        self.L2 = np.ascontiguousarray((XN * lN[:, None]).T @ XN)

    def take(self, order: np.ndarray) -> PairCounts:
        """The counts of the literals renumbered: literal ``order[j]`` becomes literal j."""
        out = object.__new__(PairCounts)
        out.G1, out.L1 = self.G1[order], self.L1[order]
        # two one-axis takes copy the same values as one np.ix_ gather, several times faster
        out.G2 = self.G2.take(order, axis=0).take(order, axis=1)
        out.L2 = self.L2.take(order, axis=0).take(order, axis=1)
        return out


class TripleBounds:
    """The triples of 0/1 rows bounded by their pairs' counts (module notes), counted exactly
    when their bound is below a threshold.

    Parameters
    ----------
    X : ndarray of bool, shape (n, m)
        The rows.
    signed : ndarray of float64, shape (n,)
        ``+l_i`` for loss rows, ``-g_i`` for gain rows.
    pairs : PairCounts
        Counts of X's literals and pairs.
    cost : float
        Cost per term and per literal.
    extra : ndarray of float64, shape (m,)
        Extra literal costs ``e_j >= 0``.

    Examples
    --------
    >>> X = np.array([[1, 1, 1], [1, 1, 0], [0, 1, 1]], dtype=bool)
    >>> pairs = PairCounts(X[:1].astype(float), X[1:].astype(float), np.array([3.0]), np.ones(2))
    >>> triples = TripleBounds(X, np.array([-3.0, 1.0, 1.0]), pairs, 0.1, np.zeros(3))
    >>> a, b, c, values, full = triples.search(np.array([0]), 0.0, capacity=np.array([5]))
    >>> (a.tolist(), b.tolist(), c.tolist()), np.round(values, 6).tolist(), full.tolist()
    (([0], [1], [2]), [-2.6], [False])
    """

    def __init__(self, X: np.ndarray, signed: np.ndarray, pairs: PairCounts, cost: float, extra: np.ndarray):
        self.XT = np.ascontiguousarray(np.asarray(X, dtype=bool).T).view(np.uint8)
        self.signed = np.asarray(signed, dtype=np.float64)
        self.args = (pairs.G1, pairs.L1, pairs.G2, pairs.L2, np.asarray(extra, dtype=np.float64), float(cost))

    def search(self, firsts: np.ndarray, bound: float, capacity: np.ndarray):
        """The triples ``a < b < c`` (a in ``firsts``) whose bound is below ``bound``, with their
        exact values f, for the first literals with at most ``capacity[i]`` such triples.

        Returns ``(a, b, c, values, full)``: ``full[i]`` is True when first literal i had more
        (its triples are then not returned: search them another way).
        """
        firsts = np.ascontiguousarray(firsts, dtype=np.int64)
        offsets = np.zeros(firsts.size + 1, dtype=np.int64)
        np.cumsum(capacity, out=offsets[1:])
        b = np.empty(offsets[-1], dtype=np.int64)
        c = np.empty(offsets[-1], dtype=np.int64)
        values = np.empty(offsets[-1])
        used = np.zeros(firsts.size, dtype=np.int64)
        _search_triples(firsts, self.XT, self.signed, *self.args, float(bound), offsets, b, c, values, used)
        full = used < 0
        stored = np.maximum(used, 0)
        # the slots used: offsets[i] + 0 .. stored[i] - 1 for each first literal i
        before = np.cumsum(stored) - stored
        keep = np.arange(int(stored.sum())) + np.repeat(offsets[:-1] - before, stored)
        a = np.repeat(firsts, stored)
        return a.astype(np.intp), b[keep].astype(np.intp), c[keep].astype(np.intp), values[keep], full


@njit(cache=True, nogil=True, parallel=True)
def _search_triples(firsts, XT, signed, G1, L1, G2, L2, e, cost, bound, offsets, out_b, out_c, out_v, used):
    """Per first literal (in parallel): its alive literals, the triples of alive pairs bounded
    by the pair counts, the survivors counted exactly on the rows of their first two literals;
    ``used[i]`` the number stored, or -1 when they overflow the room ``offsets[i]:offsets[i + 1]``."""
    n, m = XT.shape[1], G2.shape[0]
    for i in prange(firsts.size):
        a = firsts[i]
        room = offsets[i + 1] - offsets[i]
        if -G1[a] + 4.0 * cost + e[a] >= bound:
            continue
        alive = np.empty(m, dtype=np.int64)
        k = 0
        for b in range(a + 1, m):
            if -G2[a, b] + 4.0 * cost + e[a] + e[b] < bound:
                alive[k] = b
                k += 1
        # ordered by L(ab): past the first c whose L(ac) makes the bound with G(ab) reach the
        # threshold, every later c does too (the loop over c stops there)
        alive = alive[:k]
        order = np.argsort(np.array([L2[a, b] for b in alive]), kind="mergesort")
        alive = alive[order]
        gA = np.empty(k)
        lA = np.empty(k)
        l1A = np.empty(k)
        eA = np.empty(k)
        for q in range(k):
            gA[q] = G2[a, alive[q]]
            lA[q] = L2[a, alive[q]]
            l1A[q] = L1[alive[q]]
            eA[q] = e[alive[q]]
        base = 4.0 * cost + e[a]
        La = L1[a]
        rows = np.empty(n, dtype=np.int64)
        weights = np.empty(n)
        stored = 0
        for bi in range(k):
            b = alive[bi]
            gab, lab, Lb, eab = gA[bi], lA[bi], l1A[bi], base + eA[bi]
            r = -1    # the rows of the extent of (a, b), listed when a triple of it is counted
            for ci in range(bi + 1, k):
                if lab + lA[ci] - La - gab + eab >= bound:
                    break
                # the bound without the pair (b, c) first: it reads only the gathered arrays
                low = max(0.0, lab + lA[ci] - La)
                if low - min(gab, gA[ci]) + eab + eA[ci] >= bound:
                    continue
                c = alive[ci]
                lbc = L2[b, c]
                low = max(low, lab + lbc - Lb, lA[ci] + lbc - l1A[ci])
                if low - min(gab, gA[ci], G2[b, c]) + eab + eA[ci] >= bound:
                    continue
                if stored == room:
                    stored = -1
                    break
                if r < 0:
                    r = 0
                    for row in range(n):
                        if XT[a, row] and XT[b, row]:
                            rows[r] = row
                            weights[r] = signed[row]
                            r += 1
                total = 0.0
                for q in range(r):   # branch-free: whether c holds on a row is unpredictable
                    total += weights[q] * XT[c, rows[q]]
                out_b[offsets[i] + stored] = min(b, c)
                out_c[offsets[i] + stored] = max(b, c)
                out_v[offsets[i] + stored] = total + eab + eA[ci]
                stored += 1
            if stored < 0:
                break
        used[i] = stored
