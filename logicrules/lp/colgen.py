"""Column generation for DNF rule sets (Dash, Gunluk and Wei 2018) over the master of
:mod:`logicrules.lp.master`.

:func:`generate_columns` alternates the restricted master LP over a pool of conjunctions
(:func:`~logicrules.lp.master.solve_master_lp`) with a pricing step under its duals, adding every
column with a negative reduced cost. It stops when the pricing proves that no conjunction of its
class has a negative reduced cost: the master LP's optimum is then the LP optimum over that whole
class, a lower bound on every DNF of such terms (``lp_bound``, ``certified``). An optional beam
step is tried when the pricing finds nothing; its columns widen the class.

While the loop has not converged (iteration or time limit), ``lp_bound`` is the Lagrangian
bound: for the LP's duals, every feasible (w, xi) of the LP over the class has value
``>= z_RMP + sum_k rc_k w_k >= z_RMP + min(0, rc_min) * S``, where ``S`` bounds ``sum_k w_k``:
the budget C, and ``z_RMP / lam`` (every unit of w costs at least lam and an optimum costs at
most ``z_RMP``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from logicrules.lp.master import ConjunctionPool, MasterLP, RuleSetProblem, solve_master_lp
from logicrules.lp.pricing import Pricing

__all__ = ["ColumnGeneration", "generate_columns"]


def _lagrangian_bound(problem: RuleSetProblem, lp: MasterLP, least: float) -> float:
    if least >= 0:
        return lp.objective
    limits = [problem.budget] if problem.budget is not None else []
    if problem.lam > 0:
        limits.append(lp.objective / problem.lam)
    return lp.objective + least * min(limits) if limits else -np.inf


@dataclass
class ColumnGeneration:
    """State at the end of :func:`generate_columns`: pool, last LP, iterations, the LP bound
    over the class (with ``certified`` when the pricing proved it), pricing time, history."""

    pool: ConjunctionPool
    lp: MasterLP
    iterations: int
    lp_bound: float
    certified: bool
    pricing_seconds: float
    history: list[dict]


def generate_columns(problem: RuleSetProblem, price: Callable[[np.ndarray, float], Pricing], *,
                     solver: str = "highs", max_iterations: int = 100, time_limit: float | None = None,
                     beam: Callable[[ConjunctionPool, np.ndarray, float], Pricing] | None = None,
                     initial_terms=()) -> ColumnGeneration:
    """Column generation over the master LP of ``problem``.

    Parameters
    ----------
    problem : RuleSetProblem
    price : callable ``(mu, nu) -> Pricing``
        Pricing of the class the bound speaks of; its ``complete`` and ``least`` certify the
        optimum.
    solver : {"highs", "pulp"}
        Master LP back end.
    max_iterations : int
        Largest number of master LP solves.
    time_limit : float, optional
        Seconds for the loop; it stops after the round that passes it.
    beam : callable ``(pool, mu, nu) -> Pricing``, optional
        Tried when the exact pricing finds nothing; its columns extend the class searched.
    initial_terms : iterable of tuple
        Conjunctions in the pool from the start.

    Returns
    -------
    ColumnGeneration
        Pool, last LP, iterations, bound, certificate, pricing time and history.

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> from logicrules.lp.pricing import Pricing, reduced_costs
    >>> problem = build_rule_set_problem(np.array([[1, 0], [1, 1], [0, 1]], dtype=bool), [1, 1, 0], lam=0.1)
    >>> singles = [(0,), (1,)]
    >>> def price(mu, nu):  # every conjunction of one literal, by enumeration
    ...     rc = reduced_costs(problem, mu, nu, singles)
    ...     return Pricing(singles, rc, float(rc.min()), True, 0.0)
    >>> run = generate_columns(problem, price)
    >>> run.pool.terms, round(run.lp.objective, 6), run.certified
    ([(0,)], 0.2, True)
    """
    start = time.perf_counter()
    pool = ConjunctionPool(problem)
    pool.add(initial_terms)
    tol = problem.tolerance()
    history: list[dict] = []
    best_bound, certified, pricing_seconds = -np.inf, False, 0.0
    iterations = 0
    while True:
        lp = solve_master_lp(pool, solver=solver)
        iterations += 1
        pricing = price(lp.mu, lp.nu)
        pricing_seconds += pricing.seconds
        if pricing.complete:
            best_bound = max(best_bound, _lagrangian_bound(problem, lp, pricing.least))
        new = [t for t, rc in zip(pricing.terms, pricing.reduced_costs) if rc < -tol and t not in pool]
        certified = not new and pricing.complete and pricing.least >= -tol
        if certified:
            best_bound = lp.objective
        source = "exact"
        if not new and beam is not None:
            extra = beam(pool, lp.mu, lp.nu)
            pricing_seconds += extra.seconds
            new = [t for t, rc in zip(extra.terms, extra.reduced_costs) if rc < -tol and t not in pool]
            source = "beam"
            if new:  # longer terms widen the class: earlier bounds no longer speak of it
                certified, best_bound = False, -np.inf
        added = pool.add(new)
        history.append({"lp_objective": lp.objective, "least_reduced_cost": pricing.least,
                        "added": added, "source": source})
        out_of_time = time_limit is not None and time.perf_counter() - start > time_limit
        if not added or iterations >= max_iterations or out_of_time:
            break
    if added:  # stopped by a limit with new columns: the LP over the final pool
        lp = solve_master_lp(pool, solver=solver)
    return ColumnGeneration(pool, lp, iterations, best_bound, certified, pricing_seconds, history)
