"""The OR-clause LP (19) on dask data, exact: a row sample on the driver, its dual extended over
the partitions, screening on the full data, and row generation over merged rows.

The paper's row sampling (section 5.3, appendix 3) is the large-data path; here every step that
reads all rows is one pass over the partitions (:func:`~logicrules.lp.dask_passes.run_pass`:
map + tree sum, one ``compute``) and the driver holds only a sample and the reduced problem:

1. **Costs** (one pass): rows per class and per-class literal counts give the column costs
   ``c_j = lam + ||a_Z^j||_1`` exactly.
2. **Sample** (one pass): each partition draws its constraint rows with probability
   ``fraction`` (seeded by the partition's number, see :mod:`~logicrules.lp.dask_passes`) and
   returns them merged into distinct rows with counts. The driver solves the LP on them, the
   costs scaled by the sampled fraction (:meth:`GroupTestingProblem.sample_rows`), with
   screening; its dual is feasible for the full dual (20).
3. **Dual extension** (one pass): every partition raises the dual of its unseen rows greedily
   (H2, then a fractional pass) within its share of the slack the sample's dual leaves (shares
   proportional to the partition's unseen rows, so the sum stays feasible; the paper's H1/H2
   scan the rows in one sequence, which no partitioned data allows). The same pass evaluates
   the sample's solution on all rows (an upper bound; when it meets the extended dual's value,
   the sample's solution is optimal and the LP is done) and some integral rules (the sample's
   greedy cover, the thresholds of its solution): the best is the V of the screening test.
4. **Screening**: column j is dropped when ``c_j + sum(mu) - (mu^T A)_j > V`` (appendix 2):
   safe for the integer program; for the LP, screened columns are priced back in (step 6).
5. **Row generation** over merged rows (one pass per round): the reduced problem (the kept
   columns, at most ``max_working`` at first, as in memory) is solved on distinct patterns over
   those columns with their exact counts, starting from the sample's patterns; each pass returns
   the patterns its solution leaves uncovered, summed over partitions, which join the problem,
   until no partition reports a violated constraint. The reduced problem over a subset of the
   rows is a relaxation of the full one, and a solution covering every other row is feasible
   for the full one at the same value, hence optimal.
6. **Pricing** (in the same passes): the dual of the reduced problem, spread evenly over the
   rows of each pattern, is priced on every column; columns of negative reduced cost join the
   working set, until none is left: the optimum of the full LP, with a feasible full dual.

The rule is then chosen as in memory (:func:`~logicrules.lp.rules.solve_clause`): the best of
the empty rule, the greedy cover of the full problem and the thresholds of the LP solution, ties
broken alike (:func:`~logicrules.lp.rule_choice.choose_rule`), all evaluated on every row (the
greedy cover takes one pass per chosen column, riding along the passes above); with ``integral=True`` the integer program's optimum. Sequential covering
(:func:`learn_rule_set_on_partitions`) solves one such LP per term.

Weighted rows (``sample_weight``) and error costs per class (``class_weight``) enter as in
memory: every count is a sum of weights (:mod:`~logicrules.lp.dask_passes`), a merged pattern
weighs the sum of its rows' weights, an uncovered constraint row costs ``c_pos`` times its
weight and a covered row of the other class ``c_neg`` times its weight (through the column
costs). The LP over merged rows is then the in-memory LP, whose rows are merged the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from logicrules import memory
from logicrules.fca.counts import RowMultiset
from logicrules.lp.clause_warm import WarmClauseLP, warm_available
from logicrules.lp.dask_passes import (ClauseRows, ExtendDual, OpenCounts, SampleRows, ScanRows, Sums, TermCounts,
                                       Totals, lookup, row_keys, run_pass)
from logicrules.lp.data import distinct_rows_bytes
from logicrules.lp.model import GroupTestingProblem, rmatvec
from logicrules.lp.rule_choice import best_gain, choose_rule
from logicrules.lp.rules import ClauseFit, RuleSetFit
from logicrules.lp.screening import (_first_working_set, greedy_cover, repair_dual, solve_with_screening,
                                     threshold_values)
from logicrules.lp.solvers import LPResult, lp_result, solve_problem

__all__ = ["DASK_SAMPLE_ROWS", "solve_clause_on_partitions", "learn_rule_set_on_partitions", "sample_fraction"]

#: Constraint rows the driver samples by default: 10% of them, at least 2000, at most this many.
DASK_SAMPLE_ROWS = 100_000


def sample_fraction(row_sampling: Any, n_rows: int) -> float:
    """The probability that a constraint row joins the driver's sample.

    ``row_sampling`` a fraction in (0, 1]: that fraction; None or "auto": 10% of the rows, at
    least 2000 and at most :data:`DASK_SAMPLE_ROWS` of them.

    Examples
    --------
    >>> sample_fraction(0.25, 1000), sample_fraction(None, 10_000_000)
    (0.25, 0.01)
    """
    if row_sampling is not None and row_sampling != "auto":
        return float(row_sampling)
    if n_rows <= 0:
        return 1.0
    target = min(max(0.1 * n_rows, 2000.0), float(DASK_SAMPLE_ROWS))
    return min(1.0, target / n_rows)


@dataclass
class _LPOutcome:
    w: np.ndarray
    objective: float
    lower: float | None
    thresholds: np.ndarray
    below: np.ndarray
    status: str
    solver: str
    rows_sampled: int
    columns_screened: int
    details: dict


def _threshold_rules(costs: np.ndarray, w: np.ndarray, values: np.ndarray, below: np.ndarray,
                     c_pos: float) -> tuple[np.ndarray, np.ndarray]:
    """Every threshold rule ``w >= t`` (columns of a bool (m, t) matrix) and its objective, from
    the (weighted) rows below each threshold counted over all rows (``threshold_rules``)."""
    W = w[:, None] >= values[None, :]
    return W, costs @ W + c_pos * np.asarray(below, dtype=np.float64)


def _rounded(costs: np.ndarray, w: np.ndarray, values: np.ndarray, below: np.ndarray,
             total: float, c_pos: float) -> tuple[np.ndarray, float]:
    """The best threshold rule ``w >= t`` (the weight of the rows it leaves uncovered):
    ``round_solution`` from the (weighted) rows below each threshold, counted over all rows."""
    if values.size == 0:
        return np.zeros(costs.size, dtype=bool), total
    W, scores = _threshold_rules(costs, w, values, below, c_pos)
    best = int(np.argmin(scores))
    return W[:, best], below[best]


def _value(costs: np.ndarray, rule: np.ndarray, uncovered: float, c_pos: float) -> float:
    """The integer objective of a 0/1 rule (as ``GroupTestingProblem.integer_objective``):
    its columns' costs and ``c_pos`` per (weighted) row left uncovered."""
    return float(costs[rule].sum()) + c_pos * float(uncovered)


def _big_endian_order(rows: np.ndarray) -> np.ndarray:
    """Row order of the in-memory reduced LP (its merged rows sorted by big-endian packed bytes)."""
    if rows.shape[0] <= 1 or rows.shape[1] == 0:
        return np.arange(rows.shape[0])
    packed = np.ascontiguousarray(np.packbits(rows, axis=1))
    return np.argsort(packed.view(np.dtype((np.void, packed.shape[1]))).ravel(), kind="stable")


def _greedy(costs: np.ndarray, first_open: np.ndarray, total: float, c_pos: float, tol: float
            ) -> Generator[OpenCounts, Sums, tuple[np.ndarray, float]]:
    """The greedy cover of the full problem (``greedy_cover``), one pass per chosen column."""
    m = costs.size
    w = np.zeros(m, dtype=bool)
    open_rows, uncovered = first_open.astype(np.float64), total
    for _ in range(m):
        gain = c_pos * open_rows - costs
        gain[w] = -np.inf
        j = int(np.argmax(gain)) if gain.size else -1
        if j < 0 or gain[j] <= tol:
            break
        w[j] = True
        answer = yield OpenCounts(np.flatnonzero(w), m)
        open_rows, uncovered = answer["open"].astype(np.float64), answer["uncovered"]
    return w, uncovered


class _Reduced:
    """The reduced problem of the row generation: distinct patterns over the working columns
    with their exact counts (a RowMultiset), solved by the in-memory solver.

    Its LP (not the integer program) is solved in one live HiGHS model
    (:class:`~logicrules.lp.clause_warm.WarmClauseLP`, when highspy is installed) carried
    through the rounds that only add patterns (:meth:`joined`): the new patterns follow the old
    ones, so the model keeps its variables and a small addition is solved from the last basis
    instead of from scratch (the third of a sequential cover's reduced LPs at 1e6 rows: 155k
    patterns, 1.8k of them new)."""

    def __init__(self, rows: RowMultiset | None, columns: np.ndarray, *, after: _Reduced | None = None) -> None:
        self.columns = columns
        if rows is None:
            rows = RowMultiset.from_dense(np.zeros((0, columns.size), dtype=bool))
        dense = rows.to_dense()
        order = _big_endian_order(dense)
        dense, weights = dense[order], rows.weights[order].astype(np.float64)
        self.live = None if after is None else after.live
        if after is not None:  # after the patterns of ``after``, in their order
            dense, weights = np.concatenate([after.dense, dense]), np.concatenate([after.weights, weights])
        self.dense, self.weights = dense, weights
        keys = row_keys(self.dense)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]

    @property
    def n_rows(self) -> int:
        return int(self.dense.shape[0])

    def fresh(self, rows: RowMultiset | None) -> RowMultiset | None:
        """The patterns of ``rows`` not in this problem yet (None when there is none)."""
        if rows is None or rows.n_rows == 0:
            return None
        new = lookup(self.keys, row_keys(rows.to_dense())) < 0
        if not new.any():
            return None
        return RowMultiset(rows.packed[new], rows.weights[new], rows.n_attributes)

    def joined(self, rows: RowMultiset) -> _Reduced:
        """This problem with the new patterns ``rows`` (see :meth:`fresh`): after this one's in a
        live model, else all of them in the in-memory reduced LP's order."""
        if self.live is not None:
            return _Reduced(rows, self.columns, after=self)
        mine = RowMultiset.from_dense(self.dense, self.weights.astype(rows.weights.dtype))
        return _Reduced(mine + rows, self.columns)

    def solve(self, costs, neg_counts, lam, c_pos: float, c_neg: float,
              options: dict) -> tuple[np.ndarray, np.ndarray | None, LPResult | None]:
        """Weights on the working columns and the dual per pattern (None for the integer program)."""
        if self.n_rows == 0:  # nothing to cover: the empty rule, with the zero dual
            return np.zeros(self.columns.size), np.zeros(0), None
        J = self.columns
        problem = GroupTestingProblem(self.dense, costs[J], neg_counts[J], lam, c_pos, c_neg, self.weights)
        if options["integral"] or options["solver"] != "highs" or not warm_available():
            result = solve_problem(problem, merge_rows=True, **options)
            return result.w, result.dual, result
        start = time.perf_counter()
        if self.live is None:
            self.live = WarmClauseLP(problem, options["time_limit"])
        self.live.problem = problem  # the last model's patterns first: its variables stay valid
        solved = self.live.solve(np.arange(J.size), None)
        result = lp_result(problem, solved.w, solved.dual, solved.status, solved.solver, False, start,
                           solved.lower_bound)
        return result.w, result.dual, result

    def dual_per_row(self, dual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sorted pattern keys and the dual value per unit of weight of each (its pattern's dual
        spread over the pattern's rows in proportion to their weights)."""
        return self.keys, (dual / self.weights)[self.order]


def _clause_lp(costs: np.ndarray, neg_counts: np.ndarray, lam: float, total: float, rows: int, n_partitions: int,
               fraction: float, *, c_pos: float, c_neg: float, solver: str, integral: bool,
               time_limit: float | None, screening: bool, max_working: int = 64) -> Generator[Any, Sums, _LPOutcome]:
    """Steps 2-6 of the module notes, as a sequence of requests answered by passes (``total``
    the weight of the constraint rows, ``rows`` their number)."""
    m = costs.size
    tol = 1e-7 * max(1.0, c_pos * float(total), float(costs.max(initial=0.0)))
    options = {"solver": solver, "integral": integral, "time_limit": time_limit}
    memory.require(distinct_rows_bytes(fraction * rows * 1.1 + 64, m),
                   f"the row sample of the LP (about {int(fraction * rows)} rows x {m} attributes)",
                   "use a smaller row_sampling fraction")
    answer = yield SampleRows(n_partitions)
    sample = answer["rows"] if answer.get("rows") is not None else RowMultiset.from_dense(np.zeros((0, m), bool))
    unseen = answer["unseen"]
    sampled = int(rows - unseen.sum())
    rows_s = sample.to_dense()
    sub = GroupTestingProblem(rows_s, costs * (float(sample.weights.sum()) / total), neg_counts, lam, c_pos, c_neg,
                              sample.weights.astype(np.float64))
    solves = []
    if sub.n_rows:
        small = solve_with_screening(sub, solver=solver, time_limit=time_limit)
        solves.append(small)
        w_hat, mu_s, greedy_s = small.w, repair_dual(sub, small.dual), greedy_cover(sub)
    else:
        w_hat, mu_s, greedy_s = np.zeros(m), np.zeros(0), np.zeros(m, dtype=bool)
    load = rmatvec(rows_s, mu_s) if sub.n_rows else np.zeros(m)
    share = unseen / max(int(unseen.sum()), 1)
    values = threshold_values(w_hat)
    answer = yield ExtendDual(np.maximum(costs - load, 0.0), share, "H2", w_hat, values, [np.flatnonzero(greedy_s)],
                              c_pos)
    mu_sum, load = float(mu_s.sum()) + answer["mu"], load + answer["load"]
    over = load > costs
    if over.any():  # round-off of the shares: scale the dual back into feasibility
        scale = float(np.min(costs[over] / load[over]))
        mu_sum, load = mu_sum * scale, load * scale
    lp_value = float(costs @ w_hat) + c_pos * answer["xi"]
    rounded, rounded_uncovered = _rounded(costs, w_hat, values, answer["below"], total, c_pos)
    candidates = [(c_pos * float(total), np.zeros(m, dtype=bool)),
                  (_value(costs, greedy_s, answer["uncovered"][0], c_pos), greedy_s),
                  (_value(costs, rounded, rounded_uncovered, c_pos), rounded)]
    upper, best_rule = min(candidates, key=lambda c: c[0])
    details = {"sample_lower_bound": mu_sum, "sample_upper_bound": lp_value, "screening_upper_bound": upper}
    if not integral and lp_value - mu_sum <= tol:  # the sample's solution is optimal
        return _LPOutcome(w_hat, lp_value, mu_sum, values, answer["below"], "optimal",
                          solves[0].solver if solves else solver, sampled, 0,
                          {**details, "certified_by_sample": True, "row_rounds": 0, "rows_solved": 0})
    bound = costs - load + mu_sum  # = c_j + sum_{i in N(j)} mu_i
    keep = bound <= upper + tol if screening else np.ones(m, dtype=bool)
    working = keep.copy()
    if not integral and keep.sum() > max_working:
        working = _first_working_set(bound, keep, best_rule, w_hat, max_working)
    J = np.flatnonzero(working)
    w = np.where(working, w_hat, 0.0)
    seed = np.unique(row_keys(np.ascontiguousarray(rows_s[:, J])))
    answer = yield ScanRows(J, w[J], np.arange(J.size), seed, n_columns=m)
    reduced = _Reduced(answer["rows"], J)
    rounds, priced_in, statuses = 0, 0, ["optimal"]
    while True:
        rounds += 1
        w_J, dual, result = reduced.solve(costs, neg_counts, lam, c_pos, c_neg, options)
        if result is not None:
            solves.append(result)
            statuses.append(result.status)
        w = np.zeros(m)
        w[J] = w_J
        keys, per_row = reduced.dual_per_row(dual) if dual is not None else (None, None)
        values = threshold_values(w)
        answer = yield ScanRows(J, w_J, dual_keys=keys, dual_values=per_row,
                                thresholds=None if integral else values, n_columns=m)
        fresh = reduced.fresh(answer["rows"])
        if fresh is not None:
            reduced = reduced.joined(fresh)
            continue
        if integral:
            break
        reduced_cost = costs - answer["load"]
        priced = np.flatnonzero(~working & (reduced_cost < -tol))
        if not priced.size:
            break
        old, priced_in = J, priced_in + min(priced.size, max(max_working, 1))
        working[priced[np.argsort(reduced_cost[priced], kind="stable")[:max(max_working, 1)]]] = True
        J = np.flatnonzero(working)
        answer = yield ScanRows(J, w[J], np.searchsorted(J, old), reduced.keys, n_columns=m)
        reduced = _Reduced(answer["rows"], J)
    objective = float(costs @ w) + c_pos * answer["xi"]
    lower = None if integral else float(dual.sum())
    solver_name = next((s.solver for s in reversed(solves)), "highs")
    return _LPOutcome(w, objective, lower, values, answer.get("below", np.zeros(values.size)),
                      "optimal" if all(s == "optimal" for s in statuses) else "time_limit", solver_name, sampled,
                      int(m - J.size), {**details, "certified_by_sample": False, "row_rounds": rounds,
                                        "rows_solved": reduced.n_rows, "priced_in": priced_in})


def _drive(counts: Any, view: ClauseRows, procedures: dict[str, Generator]) -> dict[str, Any]:
    """Run the procedures together: each pass answers the pending request of every one of them."""
    results, pending = {}, {}
    for name, procedure in procedures.items():
        try:
            pending[name] = next(procedure)
        except StopIteration as stop:
            results[name] = stop.value
    while pending:
        names = list(pending)
        what = " + ".join(pending[n].what for n in names)
        for name, answer in zip(names, run_pass(counts, view, [pending[n] for n in names], what)):
            try:
                pending[name] = procedures[name].send(answer)
            except StopIteration as stop:
                results[name] = stop.value
                del pending[name]
    return results


#: Error costs of one fit: ``(cost of an error on class 1, on class 0)``, or a function of the
#: (weighted) class totals giving them (``class_weight="balanced"``).
ErrorCosts = tuple[float, float] | Callable[[np.ndarray], tuple[float, float]]


@dataclass
class _Costs:
    """The column costs of one clause LP: ``costs = lam_abs + c_neg * neg_counts``, the
    constraint rows' column counts (``firing_counts``, the greedy cover's start), their weight
    (``total``) and number (``rows``), and the error costs of the LP's two sides (``c_pos``: a
    constraint row left uncovered; ``c_neg``: a row of the other class covered)."""

    costs: np.ndarray
    neg_counts: np.ndarray
    firing_counts: np.ndarray
    total: float
    rows: int
    lam_abs: float
    c_pos: float
    c_neg: float


def _class_costs(answer: Sums, error_costs: ErrorCosts | None) -> tuple[float, float]:
    """``(cost of class 1, cost of class 0)`` from a :class:`Totals` answer."""
    if error_costs is None:
        return 1.0, 1.0
    costs = error_costs(np.asarray(answer["totals"], dtype=np.float64)) if callable(error_costs) else error_costs
    return float(costs[0]), float(costs[1])


def _clause_costs(answer: Sums, rest: Sums, lam: float, complement: bool,
                  error_costs: ErrorCosts | None = None) -> _Costs:
    """Costs from a :class:`Totals` answer, the cost rows being ``rest``'s (a covering step's);
    ``lam_abs = lam * (c_1 * W_1 + c_0 * W_0)`` as in memory (``W_k`` the weight of class k)."""
    firing = 0 if complement else 1
    totals, literals = answer["totals"], answer["literals"]
    cost = _class_costs(answer, error_costs)[::-1]  # cost[k]: an error on class k
    lam_abs = lam * (cost[1] * float(totals[1]) + cost[0] * float(totals[0]))
    neg_counts = rest["rest"].astype(np.float64)
    firing_counts = literals[firing].astype(np.float64)
    if complement:
        neg_counts = float(rest["rest_total"]) - neg_counts
        firing_counts = float(totals[firing]) - firing_counts
    c_pos, c_neg = cost[firing], cost[1 - firing]
    return _Costs(lam_abs + c_neg * neg_counts, neg_counts, firing_counts, float(totals[firing]),
                  int(answer["rows"][firing]), lam_abs, c_pos, c_neg)


def _solve(counts: Any, prepared: _Costs, complement: bool, *, row_sampling: Any, seed: int, solver: str,
           screening: bool, rounding: str, time_limit: float | None) -> ClauseFit:
    """The clause LP of prepared costs (module notes, steps 2-6) and its rule."""
    start = time.perf_counter()
    costs, total, m, c_pos = prepared.costs, prepared.total, prepared.costs.size, prepared.c_pos
    fraction = sample_fraction(row_sampling, prepared.rows)
    view = ClauseRows(0 if complement else 1, complement, (int(seed), fraction))
    integral = rounding == "exact"
    tol = 1e-7 * max(1.0, c_pos * float(total), float(costs.max(initial=0.0)))
    if prepared.rows == 0:  # nothing to cover: the empty clause is optimal
        outcome = _LPOutcome(np.zeros(m), 0.0, 0.0, np.zeros(0), np.zeros(0), "optimal", solver, 0, 0, {})
        greedy = (np.zeros(m, dtype=bool), 0.0)
    else:
        procedures = {"lp": _clause_lp(costs, prepared.neg_counts, prepared.lam_abs, total, prepared.rows,
                                       counts.n_partitions, fraction, c_pos=c_pos, c_neg=prepared.c_neg,
                                       solver=solver, integral=integral, time_limit=time_limit,
                                       screening=screening)}
        if not integral:
            procedures["greedy"] = _greedy(costs, prepared.firing_counts, total, c_pos, tol)
        results = _drive(counts, view, procedures)
        outcome = results["lp"]
        greedy = results.get("greedy")
    tied = []
    if integral:
        rule, value = outcome.w > 0.5, outcome.objective
    else:  # the candidates of the in-memory rounding, chosen alike
        W, scores = _threshold_rules(costs, outcome.w, outcome.thresholds, outcome.below, c_pos)
        value, rule, tied = choose_rule([c_pos * float(total), _value(costs, greedy[0], greedy[1], c_pos), *scores],
                                        [np.zeros(m, dtype=bool), greedy[0], *W.T])
    result = LPResult(objective=outcome.objective, w=outcome.w, xi=np.zeros(0), dual=None, status=outcome.status,
                      seconds=time.perf_counter() - start, solver=outcome.solver, integral=integral, n_columns=m,
                      n_rows=prepared.rows, columns_screened=outcome.columns_screened,
                      rows_sampled=outcome.rows_sampled, lower_bound=outcome.lower,
                      details={**outcome.details, "passes": counts.n_passes})
    return ClauseFit(np.flatnonzero(rule), result, value, tied)


def solve_clause_on_partitions(counts: Any, lam: float, *, complement: bool = False, row_sampling: Any = None,
                               seed: int = 0, solver: str = "highs", screening: bool = True,
                               rounding: str = "threshold", time_limit: float | None = None,
                               error_costs: ErrorCosts | None = None) -> tuple[ClauseFit, float]:
    """Learn the OR-clause of a two-class :class:`~logicrules.fca.dask_counts.DaskCounts` (module notes).

    Parameters
    ----------
    counts : DaskCounts
        Two classes, weighted or not; class 1 is the one the clause fires on.
    lam : float
        Cost of one literal as a fraction of the (weighted) rows: the LP receives
        ``lam * (c_1 * W_1 + c_0 * W_0)``, ``W_k`` the weight of class k.
    complement : bool, default False
        The De Morgan problem of a conjunction (rows and literals complemented, firing on class 0).
    row_sampling : None, "auto" or float
        The sample's fraction of the constraint rows (see :func:`sample_fraction`).
    seed : int
        Seeds the row sample.
    solver, screening, rounding, time_limit
        As in :func:`~logicrules.lp.rules.solve_clause`.
    error_costs : pair of float or callable, optional
        ``(c_1, c_0)``: the cost of an error on class 1 and on class 0 (the estimator's
        ``class_weight``), or a function of the class totals giving them; None: 1 each.

    Returns
    -------
    ClauseFit, float
        The clause (its ``result`` an :class:`LPResult` whose ``xi`` is empty and ``dual`` None:
        they would hold one value per row), and the LP's literal cost ``lam_abs``.
    """
    view = ClauseRows(0 if complement else 1, complement)
    (answer,) = run_pass(counts, view, [Totals(other=1 if complement else 0)], "class totals and literal counts")
    prepared = _clause_costs(answer, answer, lam, complement, error_costs)
    fit = _solve(counts, prepared, complement, row_sampling=row_sampling, seed=seed, solver=solver,
                 screening=screening, rounding=rounding, time_limit=time_limit)
    return fit, prepared.lam_abs


def learn_rule_set_on_partitions(counts: Any, lam: float, max_clauses: int, *, cnf: bool = False,
                                 error_costs: ErrorCosts | None = None, **options: Any) -> tuple[RuleSetFit, float]:
    """A DNF (or CNF) by sequential covering (:func:`~logicrules.lp.rules.learn_dnf`), every term
    one clause LP over the partitions (:func:`solve_clause_on_partitions`).

    A DNF term is the conjunction learned (De Morgan) against all negative rows with the costs
    counted over the positives no earlier term covers; it is kept when it lowers the training
    objective (``c_1 * TP - c_0 * FP`` of the rows it newly fires on, weighted, above its
    literals' cost), counted in one pass that also gives the next term's costs (for every rounding
    tied at the LP's least objective, the one of largest gain taken, as in memory). A CNF is the
    same on complemented literals and labels: each clause an OR-clause over the positive rows,
    its costs over the negatives no earlier clause excludes.

    Parameters
    ----------
    counts : DaskCounts
    lam : float
        Cost of one literal as a fraction of the (weighted) rows.
    max_clauses : int
        Most terms (clauses).
    cnf : bool, default False
    error_costs : pair of float or callable, optional
        As in :func:`solve_clause_on_partitions`.
    **options
        ``row_sampling``, ``seed``, ``solver``, ``screening``, ``rounding``, ``time_limit`` of
        :func:`solve_clause_on_partitions`.

    Returns
    -------
    RuleSetFit, float
        The terms (column arrays) with every clause fit, and the literal cost ``lam_abs``.
    """
    complement, other = not cnf, 1 if not cnf else 0
    view = ClauseRows(0 if complement else 1, complement)
    (answer,) = run_pass(counts, view, [Totals(other=other, negated=cnf)], "class totals and literal counts")
    rest, fit = answer, RuleSetFit([])
    cost = _class_costs(answer, error_costs)[::-1]  # cost[k]: an error on class k
    lam_abs = _clause_costs(answer, rest, lam, complement, cost[::-1]).lam_abs
    for _ in range(int(max_clauses)):
        if float(rest["rest_total"]) <= 0:
            break
        clause = _solve(counts, _clause_costs(answer, rest, lam, complement, cost[::-1]), complement, **options)
        choices = clause.tied or [clause.columns]
        steps = run_pass(counts, view, [TermCounts(other, list(fit.terms), columns, cnf) for columns in choices],
                         "term counts")
        gains = [cost[other] * float(step["tp"]) - cost[1 - other] * float(step["fp"]) - lam_abs * columns.size
                 for step, columns in zip(steps, choices)]
        pick = best_gain(gains)
        clause, step = replace(clause, columns=choices[pick]), steps[pick]
        fit.fits.append(clause)
        if gains[pick] <= 0:
            break
        fit.terms.append(clause.columns)
        rest = step
    return fit, lam_abs
