"""Pricing for the DNF master: the conjunction of least reduced cost under the master's duals.

Under duals ``mu`` (covering rows) and ``nu`` (budget) of :mod:`logicrules.lp.master`, the
reduced cost of a conjunction K is

    ``rc(K) = sum_{i in Z} v_i a_iK - sum_{i in P} mu_i a_iK + (lam + nu) (1 + |K|)``.

With row weights ``mu_i`` on the positive rows and ``v_i`` on the negative rows, the first two
terms are ``-(tp_w - fp_w)``: the weighted linear premise objective of K's extent. So
minimizing ``rc`` over conjunctions of at most k literals is the exact weighted premise search
restricted to conjunctions, with a cost ``lam + nu`` per literal
(:func:`logicrules.fca.search.find_best_premises` with ``objective="linear"``,
``connectives=("and",)``, ``size_cost``), plus the empty conjunction (TRUE), priced here
directly. When that search is exhaustive and finds no negative reduced cost, no conjunction of
at most k literals can improve the master LP: its optimum is the LP optimum over the whole class.

:func:`price_beam` goes beyond k heuristically: it extends the best columns of the pool one
literal at a time (a beam), scoring all one-literal extensions of the beam with one matrix
product per step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from logicrules.lp.master import RuleSetProblem, conjunction_extents

__all__ = ["Pricing", "reduced_costs", "price_beam"]


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
        The least reduced cost over the searched class (``inf`` when nothing was searched);
        a proved minimum when ``complete``.
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
    return loss - gain + (problem.lam + nu) * (1.0 + sizes)


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
