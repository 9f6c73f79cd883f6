"""Pricing for the DNF master: the conjunction of least reduced cost under the master's duals.

Under duals ``mu`` (covering rows) and ``nu`` (budget) of :mod:`logicrules.lp.master`, the
reduced cost of a conjunction K is

    ``rc(K) = sum_{i in Z} v_i a_iK - sum_{i in P} mu_i a_iK + (lam + nu) (1 + |K|)``.

With row weights ``mu_i`` on the positive rows and ``v_i`` on the negative rows, the first two
terms are ``-(tp_w - fp_w)``: a weighted linear objective of K's extent (the same as
:func:`logicrules.fca.premise.search.find_best_premises` with ``objective="linear"``,
``connectives=("and",)`` and ``size_cost``). :func:`price_exact` minimizes it exactly over
conjunctions of at most k literals with
:func:`~logicrules.lp.conjunction_search.least_conjunctions`, float matrix products whose cost
does not grow with the number of distinct dual values, plus the empty conjunction (TRUE),
priced here directly. When that search is exhaustive and finds no negative reduced cost, no conjunction of
at most k literals can improve the master LP: its optimum is the LP optimum over the whole class.

:func:`price_beam` goes beyond k heuristically: it extends the best columns of the pool one
literal at a time (a beam), scoring all one-literal extensions of the beam with one matrix
product per step. :func:`price_short_beam`, the cheap pricing tried first in every round of
column generation, scores every term of one or two literals exactly (one Gram matrix product)
and extends the best of them by such a beam: a fraction of the exact search's work on wide data
(its work is rows x literals^2 against rows x literals^3), and it finds the columns that a beam
grown from the empty term misses (those whose single literals are not among the best).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from logicrules.lp.blas_threads import pricing_blas_threads
from logicrules.lp.conjunction_search import least_conjunctions, least_short_terms
from logicrules.lp.master import RuleSetProblem, conjunction_extents
from logicrules.lp.solvers import _row_groups

__all__ = ["Pricing", "reduced_costs", "pricing_rows", "price_exact", "price_beam", "price_short_beam"]


def _one_blas_thread_when_small(function):
    """Run a pricing function of ``(problem, ...)`` under
    :func:`~logicrules.lp.blas_threads.pricing_blas_threads` for the problem's size."""

    @functools.wraps(function)
    def wrapper(problem, *args, **kwargs):
        with pricing_blas_threads(problem.A_pos.shape[0] + problem.A_neg.shape[0], problem.n_literals):
            return function(problem, *args, **kwargs)

    return wrapper


@dataclass
class Pricing:
    """Candidate columns found by a pricing step.

    Attributes
    ----------
    terms : list of tuple of int
        Conjunctions (sorted literal indices), least reduced cost first.
    reduced_costs : ndarray
        Their reduced costs.
    least : float
        A lower bound on the reduced costs over the searched class, proved when ``complete``:
        the least reduced cost itself when that is negative (``inf`` when nothing was searched).
    complete : bool
        True when the search was exhaustive over its class (exact pricing that was not stopped).
    seconds : float
        Wall time.
    """

    terms: list[tuple[int, ...]]
    reduced_costs: np.ndarray
    least: float
    complete: bool
    seconds: float


def reduced_costs(problem: RuleSetProblem, mu: np.ndarray, nu: float, terms: list[tuple[int, ...]]) -> np.ndarray:
    """Reduced costs of given conjunctions under the duals, evaluated directly on the rows.

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> P = build_rule_set_problem(np.array([[1, 0], [0, 1]], dtype=bool), [1, 0], lam=0.5)
    >>> reduced_costs(P, np.array([1.0]), 0.0, [(0,), (1,), ()]).tolist()
    [0.0, 2.0, 0.5]
    """
    mu = np.asarray(mu, dtype=np.float64)
    sizes = np.array([len(t) for t in terms], dtype=np.float64)
    gain = mu @ conjunction_extents(problem.A_pos, terms)
    loss = problem.neg_weight @ conjunction_extents(problem.A_neg, terms)
    return loss - gain + problem.term_costs(terms) + nu * (1.0 + sizes)


def pricing_rows(problem: RuleSetProblem, mu: np.ndarray, cost: float):
    """The pricing problem's rows, reduced exactly: ``(X, y, weight, literals)``.

    Rows carry the signed weight ``mu_i`` (positives) or ``-v_i`` (negatives). Every
    conjunction K has ``rc(K) >= -g(K) + cost (1 + |K|)``, where ``g(K) = sum_P mu_i a_iK``
    only shrinks as literals are added. So a literal j is dropped when both its single term
    has ``rc({j}) >= 0`` and every pair has ``g({j, l}) <= 3 cost`` (then every term holding j
    and another literal has ``rc >= -g({j, l}) + 3 cost >= 0``). Rows that agree on the kept
    ``literals`` are merged into one row of their summed signed weight (the objective is linear
    in the rows), rows of net weight 0 dropped; ``y`` is the sign and ``weight`` the absolute
    value of the net weight.
    """
    keep = mu > 0
    positives = problem.A_pos[keep].astype(np.float64)
    gain = mu[keep] @ positives
    single = problem.neg_weight @ problem.A_neg - gain + 2.0 * cost
    # g({j, l}) <= g({j}): only a literal of gain above 3 cost can have a pair above it (the
    # margin covers the float rounding of the two sums), so only those rows of the weighted
    # Gram matrix are computed
    tested = np.flatnonzero((single >= 0) & (gain > 3.0 * cost * (1.0 - 1e-9)))
    pair_gain = np.zeros(problem.n_literals)
    if tested.size:
        pairs = (positives[:, tested] * mu[keep, None]).T @ positives
        pairs[np.arange(tested.size), tested] = 0.0
        pair_gain[tested] = pairs.max(axis=1, initial=0.0)
    literals = np.flatnonzero((single < 0) | (pair_gain > 3.0 * cost))
    X = np.vstack([problem.A_pos[keep][:, literals], problem.A_neg[:, literals]])
    signed = np.concatenate([mu[keep], -problem.neg_weight])
    if X.shape[0] > 1:
        groups = _row_groups(X)  # dense rows as they are: no CSR copy
        if groups is not None:
            first, inverse, _ = groups
            X, signed = X[first], np.bincount(inverse, weights=signed, minlength=first.size)
    nonzero = np.abs(signed) > 1e-12 * max(1.0, float(np.abs(signed).max(initial=0.0)))
    return X[nonzero], signed[nonzero] > 0, np.abs(signed[nonzero]), literals


@_one_blas_thread_when_small
def price_exact(problem: RuleSetProblem, mu: np.ndarray, nu: float, max_size: int, *, top_k: int = 10,
                time_limit: float | None = None, first_found: bool = False) -> Pricing:
    """The conjunctions of at most ``max_size`` literals with the least reduced costs, exactly.

    The rows are reduced by :func:`pricing_rows`, then searched by
    :func:`~logicrules.lp.conjunction_search.least_conjunctions` (weighted counts by float
    matrix products, so its time does not depend on how many distinct values the duals take).

    Parameters
    ----------
    problem : RuleSetProblem
    mu : ndarray of shape (p,)
        Duals of the covering rows.
    nu : float
        Dual of the budget row.
    max_size : int
        Largest conjunction, 1 to 4.
    top_k : int, default 10
        Number of conjunctions returned (several columns per round).
    time_limit : float, optional
        Seconds for the search; a stopped search is not ``complete``.
    first_found : bool, default False
        Stop the search as soon as it holds ``2 top_k`` columns of negative reduced cost
        (``stop_when_full`` of the search; then not ``complete``): cheap columns for the early
        rounds of column generation. A search that runs to its end is ``complete`` all the same.

    Returns
    -------
    Pricing
        The ``top_k`` best conjunctions of negative reduced cost (the empty one, TRUE,
        included), least reduced cost first, with distinct extents.

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> A = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    >>> P = build_rule_set_problem(A, [1, 0, 0, 1], lam=0.1)
    >>> pricing = price_exact(P, np.ones(2), 0.0, max_size=2, top_k=1)
    >>> pricing.terms, round(pricing.least, 6), pricing.complete
    ([(0, 1)], -1.7, True)
    """
    start = time.perf_counter()
    mu = np.asarray(mu, dtype=np.float64)
    cost = problem.lam + float(nu)
    X, y, weight, literals = pricing_rows(problem, mu, cost)
    # the empty conjunction (TRUE) covers every row; conjunctions left out of the search
    # (dropped literals, or rows of net weight 0 only) have reduced costs >= 0
    terms = [()]
    values = [float(problem.neg_weight.sum() - mu.sum() + cost)]
    complete = True
    if X.shape[0] and literals.size:
        # a few more than top_k: some of them may share an extent
        extra = None if problem.literal_cost is None else problem.literal_cost[literals]
        found, found_values, complete = least_conjunctions(X, y, weight, cost, int(max_size), top_k=2 * int(top_k),
                                                           time_limit=time_limit, stop_when_full=first_found,
                                                           literal_cost=extra)
        terms += [tuple(int(literals[j]) for j in t) for t in found]
        values += found_values.tolist()
    least = min(min(values), 0.0)
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")
    order = order[values[order] < 0]
    if order.size > 1:  # one column per extent: the cheapest term of each (least reduced cost first)
        extents = np.packbits(conjunction_extents(np.vstack([problem.A_pos, problem.A_neg]),
                                                  [terms[k] for k in order]), axis=0)
        _, first = np.unique(extents, axis=1, return_index=True)
        order = order[np.sort(first)]
    order = order[:int(top_k)]
    return Pricing([terms[k] for k in order], values[order], least, complete, time.perf_counter() - start)


@_one_blas_thread_when_small
def price_beam(problem: RuleSetProblem, mu: np.ndarray, nu: float, seeds: list[tuple[int, ...]], *,
               width: int, max_size: int) -> Pricing:
    """Extend seed conjunctions one literal at a time (beam search) up to ``max_size`` literals.

    At every step all one-literal extensions of the beam are scored at once (one matrix
    product per class), the ``width`` best distinct ones form the next beam, and every
    extension with a negative reduced cost is a candidate. Heuristic: ``complete`` is False.

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> A = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=bool)
    >>> P = build_rule_set_problem(A, [1, 0, 0, 0], lam=0.1)
    >>> price_beam(P, np.ones(1), 0.0, [(0,)], width=2, max_size=3).terms
    [(0, 1, 2)]
    """
    start = time.perf_counter()
    mu = np.asarray(mu, dtype=np.float64)
    m = problem.n_literals
    cost = problem.lam + float(nu)
    A_pos = problem.A_pos.astype(np.float64)
    A_neg = problem.A_neg.astype(np.float64)
    beam = list(dict.fromkeys(tuple(sorted(t)) for t in seeds if len(t) < max_size))
    found: dict[tuple[int, ...], float] = {}
    while beam:
        ext_pos = conjunction_extents(problem.A_pos, beam) * mu[:, None]
        ext_neg = conjunction_extents(problem.A_neg, beam) * problem.neg_weight[:, None]
        sizes = np.array([len(t) for t in beam], dtype=np.float64)
        rc = ext_neg.T @ A_neg - ext_pos.T @ A_pos + cost * (2.0 + sizes)[:, None]   # (beam, m)
        if problem.literal_cost is not None:
            rc += problem.literal_cost[None, :] + np.array([problem.literal_cost[list(t)].sum() for t in beam])[:, None]
        for b, term in enumerate(beam):
            rc[b, list(term)] = np.inf   # a literal already in the term adds nothing
        order = np.argsort(rc, axis=None, kind="stable")
        nxt: dict[tuple[int, ...], float] = {}
        for flat in order[:max(4 * width, width + m)]:
            b, j = divmod(int(flat), m)
            value = float(rc[b, j])
            if not np.isfinite(value):
                break
            term = tuple(sorted(beam[b] + (j,)))
            if term not in nxt:
                nxt[term] = value
            if len(nxt) == width:
                break
        found.update({t: v for t, v in nxt.items() if v < 0})
        beam = [t for t in nxt if len(t) < max_size]
    terms = sorted(found, key=found.get)
    values = np.array([found[t] for t in terms])
    return Pricing(terms, values, float(values.min()) if terms else np.inf, False, time.perf_counter() - start)


@_one_blas_thread_when_small
def price_short_beam(problem: RuleSetProblem, mu: np.ndarray, nu: float, *, width: int, max_size: int) -> Pricing:
    """Every term of one or two literals scored exactly, the ``width`` best extended by a beam.

    The rows are reduced as for the exact pricing (:func:`pricing_rows`), the ``width`` terms
    of one or two literals of least reduced cost (of any sign: a pair of positive reduced cost
    may extend to a negative triple) are found by
    :func:`~logicrules.lp.conjunction_search.least_short_terms` and grown by :func:`price_beam`
    up to ``max_size`` literals. Heuristic past two literals: ``complete`` is False.

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> A = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=bool)
    >>> P = build_rule_set_problem(A, [1, 0, 0, 0], lam=0.1)
    >>> price_short_beam(P, np.ones(1), 0.0, width=2, max_size=3).terms
    [(0, 1, 2)]
    """
    start = time.perf_counter()
    mu = np.asarray(mu, dtype=np.float64)
    cost = problem.lam + float(nu)
    X, y, weight, literals = pricing_rows(problem, mu, cost)
    if not (X.shape[0] and literals.size):
        return Pricing([], np.zeros(0), np.inf, False, time.perf_counter() - start)
    extra = None if problem.literal_cost is None else problem.literal_cost[literals]
    short, _ = least_short_terms(X, y, weight, cost, int(width), literal_cost=extra)
    seeds = [tuple(int(literals[j]) for j in t) for t in short if len(t) <= max_size]
    found = dict(zip(seeds, reduced_costs(problem, mu, nu, seeds).tolist()))
    if max_size > 2:
        grown = price_beam(problem, mu, nu, seeds, width=int(width), max_size=int(max_size))
        found.update(zip(grown.terms, grown.reduced_costs.tolist()))
    terms = sorted((t for t in found if found[t] < 0), key=lambda t: (found[t], len(t)))
    values = np.array([found[t] for t in terms])
    return Pricing(terms, values, float(values.min()) if terms else np.inf, False, time.perf_counter() - start)
