"""Rows of column generation: the rule-set problem from counts, and its master over a row sample.

The master LP of a DNF rule set (:mod:`logicrules.lp.master`) has one covering row per distinct
positive row. :func:`rule_set_problem_from_counts` builds the instance straight from the distinct
rows of a :class:`~logicrules.fca.counts.Counts` (merged already, in bit order: the same instance
as :func:`~logicrules.lp.master.build_rule_set_problem` on the unpacked data, without a second
merge). :func:`learn_dnf_cg_sampled` runs column generation with the master LP restricted to a
set S of those rows, grown by row generation, and stays exact:

- The master LP on S keeps every column's full cost (all negative rows) and drops the covering
  rows outside S (their errors, which are >= 0): a relaxation of the full master, whose dual,
  padded with zeros, is feasible for the full dual (same column costs, ``0 <= mu_i <= u_i``).
  So its value ``z_S`` is a lower bound, and the Lagrangian bound of :mod:`logicrules.lp.colgen`
  holds for the padded dual, with ``sum_k w_k`` bounded by the *full* objective of S's primal.
- Every round prices the padded dual (over the rows with ``mu_i > 0``, all in S, and all
  negative rows), with the cheap beam first. When it finds no column, the rows outside S that
  S's primal leaves short of covered (``a_i w < 1``) join S; only when there are none does
  the exact pricing run. When it proves that no conjunction of at most ``max_size`` literals
  has a negative reduced cost, S's primal is feasible for the full master at the same value
  ``z_S``: the LP bound over the whole class is certified, as without sampling.

The master LP is solved with the rows of S merged by their cover pattern over the pool (equal
constraints, one of their summed cost; the dual is shared in proportion to the rows' costs).
Row sampling saves master LP work and memory; the exact pricing, which reads every negative row,
is the same as without it (a bound from a sample of the negatives would be exact too, but the
sample's broad conjunctions all look negative and pull in nearly every negative row).

The integer master is then solved over the rows merged by their cover pattern over the pool
(rows that no pool column tells apart are one constraint of their summed cost: exact, and far
fewer than the distinct rows).

Examples
--------
>>> import numpy as np
>>> from logicrules.fca.context import FormalContext
>>> from logicrules.fca.counts import ContextCounts
>>> X = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 0]] * 4, dtype=bool)
>>> y = np.array([1, 1, 1, 0, 0, 0] * 4, dtype=bool)
>>> problem = rule_set_problem_from_counts(ContextCounts(FormalContext(X), y), lam=0.1)
>>> fit = learn_dnf_cg_sampled(problem, row_sampling=0.5, max_size=2, random_state=0)
>>> sorted(t.tolist() for t in fit.terms), fit.certified
([[0, 1], [2]], True)
"""

from __future__ import annotations

import time

import numpy as np

from logicrules.fca.counts import Counts
from logicrules.lp.colgen import ColumnGeneration, ColumnGenerationFit
from logicrules.lp.data import class_rows_in_bit_order
from logicrules.lp.master import (ConjunctionPool, MasterLP, RuleSetProblem, solve_master_lp,
                                  solve_master_mip)
from logicrules.lp.model import check_lam, class_costs, matvec
from logicrules.lp.pricing import Pricing, price_beam, price_exact
from logicrules.lp.pricing_bits import BitsPricing, use_bits_pricing
from logicrules.lp.sampling import sample_rows
from logicrules.lp.solvers import _row_groups
from logicrules.validation import check_seed

__all__ = ["rule_set_problem_from_counts", "learn_dnf_cg_sampled", "generate_columns_on_rows",
           "merge_cover_rows"]

#: A row is short of covered when ``a_i w < 1 - _COVER_TOL``.
_COVER_TOL = 1e-9


def rule_set_problem_from_counts(counts: Counts, lam: float, *, weights=None, budget: float | None = None,
                                 literal_cost=None, complement: bool = False) -> RuleSetProblem:
    """The DNF master's instance from the distinct rows of a two-class count.

    Parameters
    ----------
    counts : Counts
        Two classes; class 1 is the one the rule set should fire on.
    lam, budget, literal_cost
        As in :func:`~logicrules.lp.master.build_rule_set_problem`.
    weights : None or pair of float
        ``(c_pos, c_neg)`` error costs of the problem's classes.
    complement : bool, default False
        The De Morgan instance of a CNF: the DNF over the complemented literals that fires on
        class 0 (``weights`` then price class 0 and class 1, in that order).

    Returns
    -------
    RuleSetProblem
        Rows in bit order with their summed weights (rows of weight 0 left out), the same
        instance as ``build_rule_set_problem`` on the unpacked rows.
    """
    if counts.n_classes != 2:
        raise ValueError(f"a rule set needs a two-class count, got {counts.n_classes} classes")
    lam = check_lam(lam)
    if budget is not None and not (np.isfinite(float(budget)) and float(budget) >= 0):
        raise ValueError(f"budget must be None or a finite number >= 0, got {budget}")
    m = counts.n_attributes
    if literal_cost is not None:
        literal_cost = np.asarray(literal_cost, dtype=np.float64)
        if literal_cost.shape != (m,) or not (np.isfinite(literal_cost).all() and (literal_cost >= 0).all()):
            raise ValueError(f"literal_cost must hold one finite number >= 0 per literal ({m}), "
                             f"got shape {literal_cost.shape}")
    c_pos, c_neg = class_costs(weights)
    firing, other = (0, 1) if complement else (1, 0)
    pos, pos_weight = class_rows_in_bit_order(counts, firing)
    neg, neg_weight = class_rows_in_bit_order(counts, other)
    if complement:
        np.logical_not(pos, out=pos)
        np.logical_not(neg, out=neg)
    return RuleSetProblem(pos, c_pos * pos_weight, neg, c_neg * neg_weight, lam,
                          None if budget is None else float(budget), literal_cost)


def merge_cover_rows(pool: ConjunctionPool, lp: MasterLP | None = None) -> tuple[ConjunctionPool, MasterLP | None]:
    """The pool over its positive rows merged by cover pattern, and the LP solution mapped onto it.

    Rows with equal cover over every pool column are equal constraints of the master (LP or
    integer): merged into one of their summed cost, the optimum is the same, and a dual of the
    original rows summed over each group prices every pool column alike. Returns the merged
    pool (same columns, same order) and ``lp`` with its duals summed per group.
    """
    if len(pool) == 0:
        return pool, lp
    merged, inverse = pool.merged_rows()
    if inverse is None or lp is None:
        return merged, lp
    mu = np.bincount(inverse, weights=lp.mu, minlength=merged.cover.shape[0])
    xi = np.maximum(0.0, 1.0 - matvec(merged.cover, lp.w))
    return merged, MasterLP(lp.objective, lp.w, xi, mu, lp.nu, lp.solver)


def _fill_groups(group_dual: np.ndarray, inverse: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Share each group's dual among its rows, filling them to their caps in row order.

    Any split with the group's sum and ``0 <= mu_i <= caps_i`` is a feasible dual of equal
    value (the rows are equal constraints); filling in turn leaves most rows at 0, so the pricing,
    which reads the rows of positive dual, reads few (a proportional split would read all).
    """
    order = np.argsort(inverse, kind="stable")
    sorted_caps = caps[order]
    before = np.cumsum(sorted_caps) - sorted_caps          # caps of the earlier rows, all groups
    groups = inverse[order]
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    before -= np.repeat(before[starts], np.diff(np.r_[starts, groups.size]))
    out = np.empty_like(caps)
    out[order] = np.clip(group_dual[groups] - before, 0.0, sorted_caps)
    return out


def _master_on_rows(pool: ConjunctionPool, active: np.ndarray, solver: str) -> tuple[MasterLP, float, np.ndarray]:
    """The master LP on the rows ``active`` (merged by cover pattern), its dual padded with zeros.

    Returns the LP (objective ``z_S``, duals over all rows), the full objective of its primal
    (an upper bound on the full master over the pool) and the coverage ``a_i w`` of every row.
    """
    rows = np.flatnonzero(active)
    costs = pool.problem.pos_weight[rows]
    groups = _row_groups(pool.cover[rows]) if rows.size > 1 else None
    if groups is None:
        lp = solve_master_lp(pool.on_rows(rows), solver=solver)
        shared = lp.mu
    else:  # equal constraints merged; a group's dual goes back to its rows by filling them in turn
        first, inverse, _ = groups
        group_costs = np.bincount(inverse, weights=costs, minlength=first.size)
        lp = solve_master_lp(pool.on_rows(rows[first], group_costs), solver=solver)
        shared = _fill_groups(lp.mu, inverse, costs)
    mu = np.zeros(pool.cover.shape[0])
    mu[rows] = shared
    coverage = matvec(pool.cover, lp.w) if len(pool) else np.zeros(pool.cover.shape[0])
    xi = np.maximum(0.0, 1.0 - coverage)
    upper = float(pool.costs() @ lp.w + pool.problem.pos_weight @ xi)
    return MasterLP(lp.objective, lp.w, xi, mu, lp.nu, lp.solver), upper, coverage


def generate_columns_on_rows(problem: RuleSetProblem, price, rows: np.ndarray, *, solver: str = "highs",
                             max_iterations: int = 100, time_limit: float | None = None,
                             heuristic=None, initial_terms=()) -> tuple[ColumnGeneration, np.ndarray]:
    """Column generation with the master LP on a growing set of its covering rows (module notes).

    Parameters
    ----------
    problem : RuleSetProblem
    price : callable ``(mu, nu) -> Pricing``
        Exact pricing of the class the bound speaks of, under duals over all positive rows.
    rows : ndarray of int
        The first rows S of the master (e.g. a random sample).
    solver, max_iterations, time_limit, heuristic, initial_terms
        As in :func:`~logicrules.lp.colgen.generate_columns` (``heuristic`` takes ``(mu, nu)``).

    Returns
    -------
    ColumnGeneration, ndarray of bool
        The run (``lp`` with duals over all rows; ``lp.objective`` is the value on S, equal to
        the full master's when ``certified``) and the final rows S.
    """
    start = time.perf_counter()
    pool = ConjunctionPool(problem)
    pool.add(initial_terms)
    active = np.zeros(problem.A_pos.shape[0], dtype=bool)
    active[np.asarray(rows, dtype=np.intp)] = True
    tol = problem.tolerance()
    history: list[dict] = []
    best_bound, certified, pricing_seconds, iterations = -np.inf, False, 0.0, 0

    def negative(found: Pricing) -> list[tuple[int, ...]]:
        return [t for t, rc in zip(found.terms, found.reduced_costs) if rc < -tol and t not in pool]

    while True:
        lp, upper, coverage = _master_on_rows(pool, active, solver)
        iterations += 1
        new, source, found, grown = [], "heuristic", None, 0
        if heuristic is not None:
            found = heuristic(lp.mu, lp.nu)
            pricing_seconds += found.seconds
            new = negative(found)
        if not new:  # rows first: the exact pricing runs on a master that covers every row left out
            missing = ~active & (coverage < 1.0 - _COVER_TOL)
            grown = int(missing.sum())
            active |= missing
            source = "rows"
        if not new and not grown:
            found = price(lp.mu, lp.nu)
            pricing_seconds += found.seconds
            new, source = negative(found), "exact"
            if found.complete:
                least = min(found.least, 0.0)
                limits = ([problem.budget] if problem.budget is not None else []) + (
                    [upper / problem.lam] if problem.lam > 0 else [])
                bound = lp.objective + least * min(limits) if limits else (lp.objective if least == 0 else -np.inf)
                best_bound = max(best_bound, bound)
            # S's primal covers every other row: it is feasible for the full master at the value z_S
            certified = not new and found.complete and found.least >= -tol
            if certified:
                best_bound = lp.objective
        added = pool.add(new)
        history.append({"lp_objective": lp.objective, "least_reduced_cost": None if found is None else found.least,
                        "added": added, "rows_added": grown, "rows": int(active.sum()), "source": source})
        out_of_time = time_limit is not None and time.perf_counter() - start > time_limit
        if certified or (not added and not grown) or iterations >= max_iterations or out_of_time:
            break
    if added or grown:  # stopped by a limit with new columns or rows: the LP over them
        lp, _, _ = _master_on_rows(pool, active, solver)
    return ColumnGeneration(pool, lp, iterations, best_bound, certified, pricing_seconds, history), active


def _priced_rows(problem: RuleSetProblem, mu: np.ndarray) -> tuple[RuleSetProblem, np.ndarray]:
    """The instance on the positive rows of positive dual only (the others add nothing to a
    reduced cost: the same pricing on fewer rows), with their duals."""
    keep = np.flatnonzero(mu > 0)
    return RuleSetProblem(problem.A_pos[keep], problem.pos_weight[keep], problem.A_neg, problem.neg_weight,
                          problem.lam, problem.budget, problem.literal_cost), mu[keep]


def learn_dnf_cg_sampled(problem: RuleSetProblem, *, row_sampling: float = 0.1, max_size: int = 3,
                         solver: str = "highs", max_iterations: int = 100, time_limit: float | None = None,
                         mip_time_limit: float | None = 2.0, mip_node_limit: int | None = None,
                         heuristic_width: int = 10, top_k: int = 50,
                         early_stop: bool = True, random_state=None, initial_terms=()) -> ColumnGenerationFit:
    """:func:`~logicrules.lp.colgen.learn_dnf_cg` with the master LP on a row sample (exact).

    Parameters
    ----------
    problem : RuleSetProblem
        The instance (e.g. :func:`rule_set_problem_from_counts`).
    row_sampling : float in (0, 1] or int, default 0.1
        The first rows of the master: a random fraction (or number) of the distinct positive
        rows; rows the solution leaves short of covered join it (module notes).
    random_state : None, int or numpy Generator
        Seeds the sample.
    max_size, solver, max_iterations, time_limit, mip_time_limit, mip_node_limit, heuristic_width, top_k, early_stop, initial_terms
        As in :func:`~logicrules.lp.colgen.learn_dnf_cg`.

    Returns
    -------
    ColumnGenerationFit
        As from ``learn_dnf_cg``; ``history`` records the rows of the master in every round
        (``rows``: distinct positive rows in S, before merging by cover pattern).
    """
    start = time.perf_counter()
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or not 1 <= max_size <= 4:
        raise ValueError(f"max_size must be an integer from 1 to 4, got {max_size!r}")
    rng = np.random.default_rng(check_seed(random_state))
    p = problem.A_pos.shape[0]
    rows = sample_rows(p, row_sampling, rng) if p else np.zeros(0, dtype=np.intp)

    bits = BitsPricing(problem) if use_bits_pricing(problem, max_size) else None   # many rows: packed counts

    def price(mu, nu):
        if bits is not None:
            return bits.price(mu, nu, int(max_size), top_k=top_k, first_found=bool(early_stop))
        sub, sub_mu = _priced_rows(problem, mu)
        return price_exact(sub, sub_mu, nu, int(max_size), top_k=top_k, first_found=bool(early_stop))

    heuristic = None
    if heuristic_width:
        def heuristic(mu, nu):
            if bits is not None:
                return bits.beam(mu, nu, width=int(heuristic_width), max_size=int(max_size))
            sub, sub_mu = _priced_rows(problem, mu)
            return price_beam(sub, sub_mu, nu, [()], width=int(heuristic_width), max_size=int(max_size))

    run, _ = generate_columns_on_rows(problem, price, rows, solver=solver, max_iterations=int(max_iterations),
                                           time_limit=time_limit, heuristic=heuristic, initial_terms=initial_terms)
    merged, lp = merge_cover_rows(run.pool, run.lp)
    mip = solve_master_mip(merged, solver=solver, time_limit=mip_time_limit, lp=lp, node_limit=mip_node_limit)
    terms = [np.array(run.pool.terms[k], dtype=np.intp) for k in np.flatnonzero(mip.chosen)]
    return ColumnGenerationFit.from_run(run, mip, terms, time.perf_counter() - start)
