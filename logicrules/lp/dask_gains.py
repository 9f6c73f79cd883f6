"""The exact pricing of column generation on dask data with both sides counted over the
partitions: the master's duals spread over the positive rows.

The master LP of :mod:`logicrules.lp.dask_colgen` is solved over some groups of positive rows,
each group the rows of one cover pattern over the pool (one constraint per group g, of cost
``u_g``, the group's weight times its error cost); its dual ``mu_g`` lies in ``[0, u_g]``.
Spread over the group's rows in proportion to their costs, ``mu_i = r_g u_i`` with
``r_g = mu_g / u_g``, and 0 on the rows outside the groups (:class:`GroupDual`), it is a dual of
the master over every row, feasible for the pool's columns and of the same value: each row's
dual stays below its own cost, and a pool column's reduced cost reads the sum over each group,
``mu_g``. So a conjunction K has the reduced cost

    ``rc(K) = L(K) - G(K) + (lam + nu) (1 + |K|) + e_K``,  ``G(K) = sum_i mu_i [K holds on i]``,

exactly as in memory, and a pricing that proves ``rc >= -tol`` over every conjunction of at most
``max_size`` literals proves this dual feasible for the master over every row and all those
columns. When, besides, the master's solution covers every row outside the groups, it is
feasible there at the same value, and the LP optimum over every row is proved (the row pass of
:mod:`logicrules.lp.dask_colgen`).

:func:`price_counted` is that pricing. ``G`` and ``L`` of the empty term, the literals and the
pairs come from one pass (:class:`GainGram`, the positives' Gram matrix weighted by the dual;
the negatives' is :class:`~logicrules.lp.dask_pricing.Negatives`'). A triple or quadruple is
bounded from its pairs: ``G`` only shrinks as literals join (``G(K) <= min`` over its pairs),
and ``L`` of the rows holding every literal of K is at least ``sum_{y != x} L(x, y) - (|K| - 2)
L(x)`` for each literal x of K (the rows of x missing some other literal number at most the
sum of those missing each one), and at least 0. Only the candidates whose bound lies below the
threshold (``-tol``, or the ``top_k``-th least reduced cost known when lower) are counted, in
batches of the least bounds first, each one pass that returns ``G`` of every candidate and
``L`` of those not counted before (:meth:`Positives.reduced_costs`), every batch lowering the
threshold for the rest (:class:`~logicrules.lp.dask_pricing._Counted`).

Memory: on the driver, ``m x m`` matrices and the waiting candidates (as in
:mod:`logicrules.lp.dask_pricing`); on a worker, during a counting pass, its positive rows of
positive dual packed one bit per cell (unpacked once, one byte per cell, to pack them grouped
by dual) beside its negative rows.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicrules.fca.row_block import RowBlock
from logicrules.lp.dask_passes import ClauseRows, Sums, _Request, lookup, row_keys, run_pass
from logicrules.lp.dask_pricing import (Negatives, _Counted, _layout, _negative_bits, _prices_out, _pricing,
                                        count_layout)
from logicrules.lp.master import conjunction_extents
from logicrules.lp.pricing import Pricing
from logicrules.lp.pricing_bits import WeightedBits
from logicrules.progress import pass_line

__all__ = ["GroupDual", "GainGram", "Positives", "price_counted"]


@dataclass(frozen=True)
class GroupDual:
    """The master's dual over groups of positive rows, spread over the rows (module notes).

    ``terms``: the pool the groups are the cover patterns of; ``keys``: the groups' patterns'
    keys (:func:`~logicrules.lp.dask_passes.row_keys`), sorted; ``ratios``: ``mu_g / u_g`` of
    each (in ``[0, 1]``); ``scale``: the positives' error cost.
    """

    terms: tuple[tuple[int, ...], ...]
    keys: np.ndarray
    ratios: np.ndarray
    scale: float

    def of(self, rows: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
        """The dual of each of some positive rows (their weights, or 1 each): 0 outside the groups."""
        at = lookup(self.keys, row_keys(conjunction_extents(rows, list(self.terms))))
        dual = np.where(at >= 0, self.ratios[np.maximum(at, 0)] if self.keys.size else 0.0, 0.0) * self.scale
        return dual if weights is None else dual * weights


@dataclass
class GainGram(_Request):
    """The dual's gain of every literal and pair: ``sum_i mu_i a_ij a_ik`` over a partition's
    positive rows (the diagonal: the literals), and ``sum_i mu_i`` (``total``)."""

    dual: GroupDual

    what = "the positives' gains under the master's dual"

    def begin(self, number: int, block: Any) -> dict:
        return {"gram": np.zeros((block.n_attributes, block.n_attributes)), "total": 0.0}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        dual = self.dual.of(rows, weights)
        keep = dual > 0
        if keep.any():
            held = rows[keep].astype(np.float64)
            acc["gram"] += (held * dual[keep, None]).T @ held
            acc["total"] += float(dual[keep].sum())

    def end(self, number: int, acc: dict) -> Sums:
        return Sums(gram=acc["gram"], total=acc["total"])


def _positive_bits(block: RowBlock, view: ClauseRows, dual: GroupDual) -> WeightedBits:
    """A partition's positive rows (as the view reads them) packed grouped by their dual."""
    rows = np.flatnonzero(block.labels == view.firing)
    dense = block.dense()[rows]
    if view.complement:
        np.logical_not(dense, out=dense)
    weights = None if block.weights is None else np.asarray(block.weights, dtype=np.float64)[rows]
    return WeightedBits.pack(dense, dual.of(dense, weights))


def _gains_held(block: RowBlock, layout: tuple, view: ClauseRows, dual: GroupDual, negative_layout: tuple | None,
                other: int) -> np.ndarray:
    """``G`` of every combination of ``layout`` on a partition, then the negatives' count of
    every one of ``negative_layout`` (none when None)."""
    gains = count_layout(_positive_bits(block, view, dual), layout)
    if negative_layout is None:
        return gains
    return np.concatenate([gains, count_layout(_negative_bits(block, other, view.complement), negative_layout)])


class Positives:
    """``G`` under one round's dual: literals and pairs from one pass (:class:`GainGram`), larger
    terms counted with their ``L`` on demand (:meth:`reduced_costs`)."""

    def __init__(self, counts: Any, view: ClauseRows, dual: GroupDual, negatives: Negatives) -> None:
        self.counts, self.view, self.dual, self.negatives = counts, view, dual, negatives
        (answer,) = run_pass(counts, view, [GainGram(dual)], GainGram.what)
        m = counts.n_attributes
        self.pair = np.asarray(answer.get("gram", np.zeros((m, m))), dtype=np.float64)
        self.single = np.diag(self.pair).copy()
        self.total = float(answer.get("total", 0.0))

    def reduced_costs(self, combos: np.ndarray, cost: np.ndarray) -> np.ndarray:
        """``L - G + cost`` of combinations of one size > 2 (rows of sorted literals): one pass
        counting ``G`` of all of them and ``L`` of those not counted before."""
        import dask

        start = time.perf_counter()
        combos = np.asarray(combos, dtype=np.intp)
        L, missing, missing_keys = self.negatives.split(combos)
        order = np.lexsort(combos.T[::-1])
        negative_layout = _layout(missing) if missing_keys.size else None  # missing: sorted by key, so lexicographic
        kernel = dask.delayed(functools.partial(_gains_held, layout=_layout(combos[order]), view=self.view,
                                                dual=self.dual, negative_layout=negative_layout,
                                                other=1 - self.view.firing))
        (total,) = dask.compute(self.counts.lazy(kernel))
        self.counts.n_passes += 1
        pass_line(self.counts.verbose, f"dask pass: gains of {combos.shape[0]} conjunctions of {combos.shape[1]} "
                  f"literals ({missing.shape[0]} negatives) over {self.counts.n_partitions} partitions",
                  time.perf_counter() - start)
        total = np.zeros(combos.shape[0] + missing.shape[0]) if total is None else np.asarray(total, np.float64)
        gains = np.empty(combos.shape[0])
        gains[order] = total[:combos.shape[0]]
        L = self.negatives.record(combos, L, missing, missing_keys, total[combos.shape[0]:])
        return L - gains + cost


def _triples(a: int, P: Positives, L: Negatives, e: np.ndarray, step: float, threshold: float) -> tuple:
    """The triples ``(a, b, c)``, ``a < b < c``, whose bound (module notes) lies below
    ``threshold``, and their bounds."""
    m = e.size
    rest = np.arange(a + 1, m)
    G_ab, L_ab = P.pair[a, rest], L.pair[a, rest]
    G_sub, L_sub, L_rest = P.pair[np.ix_(rest, rest)], L.pair[np.ix_(rest, rest)], L.single[rest]
    G_up = np.minimum(np.minimum(G_ab[:, None], G_ab[None, :]), G_sub)
    L_low = np.maximum(np.maximum(L_ab[:, None] + L_ab[None, :] - L.single[a], L_ab[:, None] + L_sub - L_rest[:, None]),
                       np.maximum(L_ab[None, :] + L_sub - L_rest[None, :], 0.0))
    bound = 4 * step + e[a] + e[rest][:, None] + e[rest][None, :] - G_up + L_low
    b, c = np.nonzero(np.triu(bound < threshold, 1))
    return np.column_stack([np.full(b.size, a), rest[b], rest[c]]), bound[b, c]


def _quads(a: int, P: Positives, L: Negatives, e: np.ndarray, step: float, found: _Counted) -> None:
    """Offer ``found`` every quadruple ``(a, b, c, d)``, ``a < b < c < d``, whose bound (module
    notes) lies below its threshold: the prefixes ``(a, b, c)`` first, by ``G``'s bound alone
    (``L >= 0``), then their fourth literals."""
    m = e.size
    rest = np.arange(a + 1, m)
    G_ab = P.pair[a, rest]
    G_up3 = np.minimum(np.minimum(G_ab[:, None], G_ab[None, :]), P.pair[np.ix_(rest, rest)])
    prefix = 5 * step + e[a] + e[rest][:, None] + e[rest][None, :] + float(e.min()) - G_up3
    b, c = np.nonzero(np.triu(prefix < found.threshold(), 1))
    b, c = rest[b], rest[c]
    g3 = np.minimum(np.minimum(P.pair[a, b], P.pair[a, c]), P.pair[b, c])
    L_abc = [L.pair[a, b] + L.pair[a, c], L.pair[a, b] + L.pair[b, c], L.pair[a, c] + L.pair[b, c]]
    per = max(1, (1 << 22) // m)  # (prefixes x m) bounds a block at a time
    for lo in range(0, b.size, per):
        pb, pc, part = b[lo:lo + per], c[lo:lo + per], slice(lo, lo + per)
        G_up = np.minimum(np.minimum(g3[part, None], P.pair[a][None, :]), np.minimum(P.pair[pb], P.pair[pc]))
        L_ad, L_bd, L_cd = L.pair[a][None, :], L.pair[pb], L.pair[pc]
        L_low = np.maximum(
            np.maximum(L_abc[0][part, None] + L_ad - 2 * L.single[a], L_abc[1][part, None] + L_bd - 2 * L.single[pb][:, None]),
            np.maximum(L_abc[2][part, None] + L_cd - 2 * L.single[pc][:, None],
                       np.maximum(L_ad + L_bd + L_cd - 2 * L.single[None, :], 0.0)))
        bound = 5 * step + (e[a] + e[pb] + e[pc])[:, None] + e[None, :] - G_up + L_low
        q, d = np.nonzero((np.arange(m)[None, :] > pc[:, None]) & (bound < found.threshold()))
        if q.size:
            found.add(np.column_stack([np.full(q.size, a), pb[q], pc[q], d]), bound[q, d])


def price_counted(P: Positives, L: Negatives, lam: float, literal_cost: np.ndarray | None, nu: float, max_size: int,
                  top_k: int, tol: float, first_found: bool = False) -> Pricing:
    """The ``top_k`` conjunctions of least reduced cost under a round's dual over all rows
    (module notes), exact over every conjunction of at most ``max_size`` (<= 4) literals and
    the empty one.

    Parameters
    ----------
    P : Positives
        ``G`` under the round's dual.
    L : Negatives
    lam : float
        Cost of a term and of each literal.
    literal_cost : ndarray, optional
        Extra cost of each literal.
    nu : float
        Dual of the budget.
    max_size, top_k, tol, first_found
        As in :func:`~logicrules.lp.dask_pricing.price`.

    Returns
    -------
    Pricing
        ``complete`` (the search is exhaustive); ``least`` the least reduced cost evaluated.
    """
    start = time.perf_counter()
    m = P.single.size
    e = np.zeros(m) if literal_cost is None else np.asarray(literal_cost, dtype=np.float64)
    step = lam + nu
    terms: list[np.ndarray] = [np.zeros((1, 0), dtype=np.intp), np.arange(m)[:, None]]
    values = [np.array([L.c_neg * L.total - P.total + step]), L.single - P.single + 2 * step + e]
    if max_size >= 2 and m >= 2:
        i, j = np.triu_indices(m, 1)
        terms.append(np.column_stack([i, j]))
        values.append(L.pair[i, j] - P.pair[i, j] + 3 * step + e[i] + e[j])
        for size, search in ((3, _triples), (4, _quads)):
            if max_size < size or m < size or (first_found and _prices_out(values, tol)):
                break
            found = _Counted(lambda c, _, r=size: P.reduced_costs(c, (r + 1) * step + e[c].sum(axis=1)),
                             terms, values, top_k, tol)
            smallest = float(np.sort(e)[:size - 1].sum())
            for a in range(m - size + 1):
                if -P.single[a] + (size + 1) * step + e[a] + smallest >= found.threshold():
                    continue  # G(K) <= G(a): no term starting at a can price out
                if size == 3:
                    found.add(*_triples(a, P, L, e, step, found.threshold()))
                else:
                    _quads(a, P, L, e, step, found)
            found.count()
    return _pricing(terms, values, top_k, tol, first_found, start)
