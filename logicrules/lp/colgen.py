"""DNF and CNF rule sets by column generation with exact pricing (Dash, Gunluk and Wei 2018).

:func:`learn_dnf_cg` merges identical rows (:func:`~logicrules.lp.master.build_rule_set_problem`)
and runs :func:`generate_columns` with the exact pricing of
:func:`~logicrules.lp.pricing.price_exact` (an exact search over conjunctions of at most
``max_size`` literals by weighted matrix products), a cheap beam from the best terms of one or
two literals tried first in every round (:func:`~logicrules.lp.pricing.price_short_beam`), and
optionally a beam past
``max_size``; then the integer master over the generated pool
(:func:`~logicrules.lp.master.solve_master_mip`: HiGHS MIP from the LP's rounding under a node
limit and a time limit, gap reported,
rounding and local search when it stops). :func:`learn_cnf_cg` is the De Morgan dual: a DNF
learned on the complemented literals for the complemented label, read as clauses.

:func:`generate_columns` alternates the restricted master LP over a pool of conjunctions
(:func:`~logicrules.lp.master_highs.master_lp_solver`: one HiGHS model warm-started from the last
basis) with a pricing step under its duals, adding every
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
from dataclasses import dataclass, field

import numpy as np

from logicrules.lp.master import ConjunctionPool, MasterLP, RuleSetProblem, build_rule_set_problem, solve_master_mip
from logicrules.lp.master_highs import master_lp_solver
from logicrules.lp.pricing import Pricing, price_beam, price_exact, price_short_beam
from logicrules.lp.pricing_bits import BitsPricing, use_bits_pricing

__all__ = ["ColumnGeneration", "ColumnGenerationFit", "generate_columns", "learn_dnf_cg", "learn_cnf_cg"]


@dataclass
class ColumnGenerationFit:
    """A rule set learned by column generation, with the statistics of the run.

    Attributes
    ----------
    terms : list of ndarray
        The chosen conjunctions (DNF) or clauses (CNF), as literal-index arrays.
    iterations : int
        Master LP solves (pricing rounds).
    pool_size : int
        Conjunctions generated.
    lp_objective : float
        Value of the last restricted master LP.
    lp_bound : float
        Lower bound on the LP (hence on every rule set) over the pool and all conjunctions of
        at most ``max_size`` literals; equal to ``lp_objective`` when ``certified``.
    certified : bool
        True when the exact pricing proved that no such conjunction has a negative reduced cost.
    mip_objective : float
        Master objective of the chosen rule set.
    mip_bound, mip_gap : float or None
        The integer master's proved lower bound over the pool and relative gap (0: optimal).
    mip_status : str
        ``"optimal"``, ``"node_limit"``, ``"time_limit"`` or ``"rounded"`` (:class:`~logicrules.lp.master.MasterMIP`).
    solver : str
    seconds : float
        Wall time of the whole fit.
    pricing_seconds, mip_seconds : float
        Time in pricing and in the integer master.
    history : list of dict
        Per iteration: LP value, least reduced cost found, columns added.
    pool : list of tuple
        Every conjunction generated (literal indices), e.g. to warm-start a fit of the same
        literals at another lam or on other rows (``initial_terms``).
    """

    terms: list[np.ndarray]
    iterations: int
    pool_size: int
    lp_objective: float
    lp_bound: float
    certified: bool
    mip_objective: float
    mip_bound: float | None
    mip_gap: float | None
    mip_status: str
    solver: str
    seconds: float
    pricing_seconds: float = 0.0
    mip_seconds: float = 0.0
    history: list[dict] = field(default_factory=list)
    pool: list[tuple[int, ...]] = field(default_factory=list)

    @classmethod
    def from_run(cls, run: ColumnGeneration, mip, terms: list[np.ndarray], seconds: float) -> ColumnGenerationFit:
        """The fit of a column generation run and its integer master (a
        :class:`~logicrules.lp.master.MasterMIP`) choosing ``terms``."""
        return cls(terms=terms, iterations=run.iterations, pool_size=len(run.pool), lp_objective=run.lp.objective,
                   lp_bound=run.lp_bound, certified=run.certified, mip_objective=mip.objective,
                   mip_bound=mip.bound, mip_gap=mip.gap, mip_status=mip.status, solver=run.lp.solver,
                   seconds=seconds, pricing_seconds=run.pricing_seconds, mip_seconds=mip.seconds,
                   history=run.history, pool=list(run.pool.terms))

    def report(self) -> dict:
        """The statistics as a flat dict (the estimator's ``lp_result_``).

        ``status`` is ``"optimal"`` when the LP bound is certified and the integer master was
        solved to optimality, otherwise ``"not_converged"`` (iteration or time limit of the
        column generation) or the integer master's status.
        """
        status = ("not_converged" if not self.certified else self.mip_status)
        return {"lp_objective": self.lp_objective, "lp_bound": self.lp_bound, "certified": self.certified,
                "iterations": self.iterations, "n_lp_solves": self.iterations, "pool_size": self.pool_size,
                "mip_objective": self.mip_objective, "mip_bound": self.mip_bound, "mip_gap": self.mip_gap,
                "mip_status": self.mip_status, "seconds": self.seconds, "pricing_seconds": self.pricing_seconds,
                "mip_seconds": self.mip_seconds, "solver": self.solver, "status": status,
                "columns_screened": 0, "rows_sampled": None}


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
                     heuristic: Callable[[ConjunctionPool, np.ndarray, float], Pricing] | None = None,
                     beam: Callable[[ConjunctionPool, np.ndarray, float], Pricing] | None = None,
                     initial_terms=(), warm: bool | None = None) -> ColumnGeneration:
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
    heuristic : callable ``(pool, mu, nu) -> Pricing``, optional
        Cheap pricing over the same class tried first in every round (e.g. a beam over terms
        of at most k literals); the exact ``price`` runs only in the rounds where it finds no
        negative reduced cost, so the loop still stops only on the exact certificate.
    beam : callable ``(pool, mu, nu) -> Pricing``, optional
        Tried when the exact pricing finds nothing; its columns extend the class searched.
    initial_terms : iterable of tuple
        Conjunctions in the pool from the start.
    warm : bool, optional
        Keep the master LP in one HiGHS model and re-solve it from the last basis after each
        round's columns are added (:func:`~logicrules.lp.master_highs.master_lp_solver`; default:
        with ``solver="highs"`` when highspy is installed); False solves every round from scratch.

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
    solve_lp = master_lp_solver(pool, solver, warm=warm)
    tol = problem.tolerance()
    history: list[dict] = []
    best_bound, certified, pricing_seconds = -np.inf, False, 0.0
    iterations = 0
    def negative(found: Pricing) -> list[tuple[int, ...]]:
        return [t for t, rc in zip(found.terms, found.reduced_costs) if rc < -tol and t not in pool]

    while True:
        lp = solve_lp()
        iterations += 1
        new, certified = [], False
        if heuristic is not None:  # cheap columns first; the exact pricing proves the end
            found = heuristic(pool, lp.mu, lp.nu)
            pricing_seconds += found.seconds
            new, source = negative(found), "heuristic"
        if not new:
            found = price(lp.mu, lp.nu)
            pricing_seconds += found.seconds
            if found.complete:
                best_bound = max(best_bound, _lagrangian_bound(problem, lp, found.least))
            new, source = negative(found), "exact"
            certified = not new and found.complete and found.least >= -tol
            if certified:
                best_bound = lp.objective
            if not new and beam is not None:
                extra = beam(pool, lp.mu, lp.nu)
                pricing_seconds += extra.seconds
                new, source = negative(extra), "beam"
                if new:  # longer terms widen the class: earlier bounds no longer speak of it
                    certified, best_bound = False, -np.inf
        added = pool.add(new)
        history.append({"lp_objective": lp.objective, "least_reduced_cost": found.least,
                        "added": added, "source": source})
        out_of_time = time_limit is not None and time.perf_counter() - start > time_limit
        if not added or iterations >= max_iterations or out_of_time:
            break
    if added:  # stopped by a limit with new columns: the LP over the final pool
        lp = solve_lp()
    return ColumnGeneration(pool, lp, iterations, best_bound, certified, pricing_seconds, history)


def learn_dnf_cg(A, y, lam: float, *, max_size: int = 3, budget: float | None = None, sample_weight=None,
                 weights=None, literal_cost=None, solver: str = "highs", max_iterations: int = 100, time_limit: float | None = None,
                 mip_time_limit: float | None = 2.0, mip_node_limit: int | None = None,
                 heuristic_width: int = 10, beam_width: int = 0,
                 beam_max_size: int | None = None, top_k: int = 100, early_stop: bool = True,
                 initial_terms=(), problem: RuleSetProblem | None = None) -> ColumnGenerationFit:
    """Learn a DNF rule set (OR of conjunctions) by column generation with exact pricing.

    Parameters
    ----------
    A : array-like of bool, shape (n, m)
        Literal matrix; conjunctions are of its columns.
    y : array-like of bool, shape (n,)
        Target (True = the rule set should fire).
    lam : float
        Cost of a term and of each of its literals (``lam (1 + |K|)``), in units of one
        (weighted) error.
    max_size : int, default 3
        Longest term of the exact pricing (1 to 4): the class the LP bound is certified for.
    budget : float, optional
        Complexity budget C on ``sum_k (1 + |K_k|) w_k``.
    sample_weight : array-like of shape (n,), optional
        Row weights.
    weights : None or pair of float
        ``(c_pos, c_neg)`` class costs.
    literal_cost : array-like of shape (m,), optional
        Extra cost ``e_j >= 0`` of literal j in a term (a tie-break; see
        :class:`~logicrules.lp.master.RuleSetProblem`).
    solver : {"highs", "pulp"}, default "highs"
        Back end of the master LP and MIP.
    max_iterations : int, default 100
        Largest number of pricing rounds.
    time_limit : float, optional
        Seconds for the column generation loop (the integer master has its own limit).
    mip_time_limit : float or None, default 2
        Seconds (wall clock) for the integer master.
    mip_node_limit : int, optional
        Most branch-and-bound nodes of the integer master (a limit on work: the same result at
        any load; :func:`~logicrules.lp.master.solve_master_mip`). None: no limit.
    heuristic_width : int, default 10
        Width of a beam over terms of at most ``max_size`` literals, grown from the best terms
        of one or two literals (all of them scored exactly:
        :func:`~logicrules.lp.pricing.price_short_beam`), tried before the exact pricing in
        every round (0: exact pricing in every round).
        The exact pricing still runs whenever the beam finds nothing, so the result is
        certified all the same; the beam only saves exact searches.
    beam_width : int, default 0
        Width of the beam extension beyond ``max_size`` (0: none).
    beam_max_size : int, optional
        Longest term of the beam (default ``max_size + 2``).
    top_k : int, default 100
        Columns returned per exact pricing round (more columns, fewer exact searches: on
        sonar and ionosphere 100 takes 11-15% fewer rounds than 50 and less CPU; 200 took more
        CPU than 100 on ionosphere).
    early_stop : bool, default True
        Let the exact pricing stop as soon as it holds ``2 top_k`` columns of negative reduced
        cost (``first_found`` of :func:`~logicrules.lp.pricing.price_exact`): such a round adds
        good columns without searching the whole class, and only the last rounds, which find
        fewer, search it all; the result is certified all the same.
    initial_terms : iterable of tuple, optional
        Conjunctions in the pool from the start (a warm start, e.g. the ``pool`` of a fit of
        the same literals at another lam); the pricing still certifies the end as without them.

    problem : RuleSetProblem, optional
        A prebuilt instance (e.g. from counts,
        :func:`~logicrules.lp.colgen_rows.rule_set_problem_from_counts`); then A, y, lam,
        sample_weight, weights, budget and literal_cost are ignored and may be None.

    Returns
    -------
    ColumnGenerationFit

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=bool)
    >>> y = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    >>> fit = learn_dnf_cg(A, y, lam=0.1, max_size=2)
    >>> sorted(t.tolist() for t in fit.terms), fit.certified
    ([[0, 1], [2]], True)
    """
    start = time.perf_counter()
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or not 1 <= max_size <= 4:
        raise ValueError(f"max_size must be an integer from 1 to 4, got {max_size!r}")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or max_iterations < 1:
        raise ValueError(f"max_iterations must be an integer >= 1, got {max_iterations!r}")
    for name, value in (("beam_width", beam_width), ("heuristic_width", heuristic_width)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    beam_max_size = int(max_size) + 2 if beam_max_size is None else int(beam_max_size)
    if problem is None:
        problem = build_rule_set_problem(A, y, lam, sample_weight=sample_weight, weights=weights, budget=budget,
                                         literal_cost=literal_cost)

    bits = BitsPricing(problem) if use_bits_pricing(problem, max_size) else None   # many rows: packed counts

    def price(mu, nu):
        if bits is not None:
            return bits.price(mu, nu, int(max_size), top_k=top_k, first_found=bool(early_stop))
        return price_exact(problem, mu, nu, int(max_size), top_k=top_k, first_found=bool(early_stop))

    heuristic = None
    if heuristic_width:
        def heuristic(pool, mu, nu):
            if bits is not None:
                return bits.beam(mu, nu, width=int(heuristic_width), max_size=int(max_size))
            return price_short_beam(problem, mu, nu, width=int(heuristic_width), max_size=int(max_size))

    beam = None
    if beam_width and beam_max_size > max_size:
        def beam(pool, mu, nu):
            scores = pool.reduced_costs(mu, nu)
            seeds = [pool.terms[k] for k in np.argsort(scores, kind="stable") if pool.sizes[k] > 0]
            return price_beam(problem, mu, nu, seeds[:int(beam_width)], width=int(beam_width),
                              max_size=beam_max_size)

    run = generate_columns(problem, price, solver=solver, max_iterations=int(max_iterations),
                           time_limit=time_limit, heuristic=heuristic, beam=beam, initial_terms=initial_terms)
    mip = solve_master_mip(run.pool, solver=solver, time_limit=mip_time_limit, lp=run.lp, node_limit=mip_node_limit)
    terms = [np.array(run.pool.terms[k], dtype=np.intp) for k in np.flatnonzero(mip.chosen)]
    return ColumnGenerationFit.from_run(run, mip, terms, time.perf_counter() - start)


def learn_cnf_cg(A, y, lam: float, *, weights=None, **options) -> ColumnGenerationFit:
    """A CNF rule set (AND of OR-clauses) by De Morgan: :func:`learn_dnf_cg` on ``~A`` for ``~y``.

    ``AND_k OR_{j in T_k} A_j = NOT OR_k AND_{j in T_k} NOT A_j``: each conjunction of
    complemented literals learned for the complemented label is returned as the literal set T_k
    of one clause. ``weights = (c_pos, c_neg)`` keep their meaning for the original label.

    Examples
    --------
    >>> A = np.array([[1, 0], [0, 1], [0, 0], [0, 0]], dtype=bool)
    >>> fit = learn_cnf_cg(A, np.array([1, 1, 0, 0], dtype=bool), lam=0.1, max_size=2)
    >>> [t.tolist() for t in fit.terms]
    [[0, 1]]
    """
    from logicrules.lp.model import class_costs

    A = np.asarray(A, dtype=bool)
    y = np.asarray(y, dtype=bool)
    c_pos, c_neg = class_costs(weights)
    return learn_dnf_cg(~A, ~y, lam, weights=(c_neg, c_pos), **options)
