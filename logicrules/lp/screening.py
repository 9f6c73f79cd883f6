"""Safe screening of columns (paper's appendix 2) and the cheap bounds that feed it.

For a feasible dual mu of (20) and the value V of a feasible integral solution of (19), fixing
``w_j = 1`` costs at least ``c_j + sum_{i in N(j)} mu_i`` (N(j): positive rows where column j is
0), which is the dual bound (22) of the LP left after fixing. When that bound exceeds V, no
optimal integral rule uses column j, and the column can be dropped before solving. The bound is
``c_j + sum(mu) - (mu^T A_P)_j`` = the dual value plus the reduced cost of column j, so it is
computed for all columns with one (blocked) matrix product.

Screening needs a good pair (mu, V) cheaply, before any LP is solved: :func:`greedy_dual` builds
a feasible dual from column shares and a greedy fill, and :func:`greedy_cover` and
:func:`round_solution` build integral rules (greedy set cover, best threshold of a fractional
LP solution).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from scipy import sparse

from logicrules.lp import kernels
from logicrules import memory
from logicrules.memory import MemoryLimitError
from logicrules.lp.model import GroupTestingProblem, build_problem, column_counts, rmatvec, row_counts, row_max
from logicrules.lp.clause_warm import RowSolve, WarmClauseLP, warm_available
from logicrules.lp.solvers import LPResult, model_bytes, solve_problem

#: LP weights closer than this are one threshold of rounding (:func:`threshold_values`).
ROUND_TOL = 1e-9
#: Fewest uncovered rows a round of row generation adds (when there are that many).
ROWS_PER_ROUND = 2000
#: Rounds of row generation in which slack rows may leave the row set (afterwards it only grows).
DROPPING_ROUNDS = 20

__all__ = ["ROUND_TOL", "threshold_values", "screen_columns", "screen_problem", "greedy_dual", "greedy_fill", "repair_dual", "greedy_cover",
           "round_solution", "threshold_rules", "upper_bound", "solve_with_screening"]


def screen_columns(A_pos, A_neg, lam: float, dual, upper_bound: float, weights=None) -> np.ndarray:
    """Safe screening test: boolean mask of the columns to **keep**.

    Parameters
    ----------
    A_pos, A_neg : array-like or sparse matrix
        0/1 rows of the positive and negative examples (see :func:`solve_relaxation`).
    lam : float
        Cost of one selected column.
    dual : array-like of shape (p,)
        A feasible solution mu of the dual (20) (checked; ValueError when infeasible).
    upper_bound : float
        Objective value V of a feasible integral solution of (19), e.g. from
        :func:`greedy_cover` or :func:`round_solution`.
    weights : None or pair of float, optional
        ``(c_pos, c_neg)`` class costs, as in :func:`solve_relaxation`.

    Returns
    -------
    ndarray of bool, shape (n,)
        False where ``lam + c_neg ||a_Z^j||_1 + sum_{i in N(j)} mu_i > V``: such a column is 0 in
        every optimal integral solution, so dropping it never changes the integer optimum.

    Examples
    --------
    >>> A_pos, A_neg = [[1, 0], [1, 1]], [[0, 1], [0, 1]]
    >>> screen_columns(A_pos, A_neg, 0.5, dual=[0.5, 0.0], upper_bound=0.5).tolist()
    [True, False]
    """
    return screen_problem(build_problem(A_pos, A_neg, lam, weights), np.asarray(dual, dtype=np.float64),
                          float(upper_bound))


def screen_problem(problem: GroupTestingProblem, mu: np.ndarray, upper: float) -> np.ndarray:
    """:func:`screen_columns` on a prepared problem: keep-mask of its columns."""
    violation = problem.dual_violation(mu)
    if violation > problem.tolerance():
        raise ValueError(f"the dual solution is not feasible for (20) (violation {violation:.3g}); "
                         "screening with it would not be safe")
    if not np.isfinite(upper):
        raise ValueError(f"upper_bound must be a finite objective value, got {upper}")
    bound = problem.dual_slack(mu) + float(np.sum(mu))  # = c_j + sum_{i in N(j)} mu_i
    return bound <= upper + problem.tolerance()


def repair_dual(problem: GroupTestingProblem, mu: np.ndarray) -> np.ndarray:
    """Make a nearly feasible dual (solver round-off) exactly feasible by clipping and scaling."""
    mu = np.clip(np.asarray(mu, dtype=np.float64), 0.0, problem.row_costs)
    load = rmatvec(problem.A_pos, mu)
    over = load > problem.costs
    if over.any():
        mu = mu * float(np.min(problem.costs[over] / load[over]))
    return mu


def greedy_fill(problem: GroupTestingProblem, mu: np.ndarray, rows: np.ndarray, *,
                fractional: bool = False) -> np.ndarray:
    """Raise the dual on ``rows`` greedily, in the given order, keeping (20) feasible.

    With ``fractional=False`` (the paper's H1 step) a row gets ``mu_k = c_pos`` when every column
    true on it still has slack >= c_pos, and keeps its value otherwise; with ``fractional=True``
    it is raised by as much as the tightest column allows. One compiled pass over the rows
    (:mod:`logicrules.lp.kernels`); the scan is sequential by definition (each decision changes
    the slack the next one sees).

    Parameters
    ----------
    problem : GroupTestingProblem
    mu : ndarray of shape (p,)
        A feasible dual (not modified).
    rows : ndarray of int
        Positive rows to scan, in scan order.

    Returns
    -------
    ndarray of shape (p,)
        The raised dual, still feasible.
    """
    mu = np.array(mu, dtype=np.float64)
    slack = problem.dual_slack(mu)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    caps = np.ascontiguousarray(problem.row_costs, dtype=np.float64)
    tol = 1e-12 * max(1.0, float(caps.max(initial=0.0)))
    kernels.fill(problem.A_pos, slack, mu, rows, caps, tol, bool(fractional))
    return mu


def greedy_dual(problem: GroupTestingProblem) -> np.ndarray:
    """A good feasible dual of (20) without solving any LP.

    Start from the column-share dual ``mu_i = min(c_pos, min_{j: a_ij = 1} c_j / |S(j)|)``
    (feasible: column j receives at most ``|S(j)|`` shares of ``c_j / |S(j)|``), then raise it by
    a fractional greedy fill over the rows, sparsest rows first.

    Examples
    --------
    >>> P = build_problem([[1, 0], [1, 1], [0, 0]], [[0, 1]], lam=1.0)
    >>> greedy_dual(P).tolist()
    [0.5, 0.5, 1.0]
    """
    A = problem.A_pos
    counts = column_counts(A)
    share = np.divide(problem.costs, counts, out=np.full_like(counts, np.inf), where=counts > 0)
    nnz = row_counts(A)
    mu = np.minimum(problem.row_costs, -row_max(A, -share))   # least share over the row's columns
    mu = repair_dual(problem, mu)
    order = np.argsort(nnz, kind="stable")
    return greedy_fill(problem, mu, order, fractional=True)


def greedy_cover(problem: GroupTestingProblem) -> np.ndarray:
    """Greedy weighted set cover: a good integral rule (0/1 vector) without any LP.

    Repeatedly add the column with the largest net gain ``c_pos * (newly covered positives) -
    c_j`` while it is positive.

    Examples
    --------
    >>> P = build_problem([[1, 0], [1, 1], [0, 1]], [[0, 1]], lam=0.5)
    >>> greedy_cover(P).tolist()
    [True, False]
    """
    A = problem.A_pos
    column_rows = A.T.tocsr() if sparse.issparse(A) else None
    w = np.zeros(problem.n_columns, dtype=bool)
    uncovered = np.ones(problem.n_rows, dtype=bool)
    weighted = problem.row_weights is not None
    # per column: the (weighted) number of uncovered positive rows it is true on
    open_rows = rmatvec(A, problem.row_costs) if weighted else column_counts(A)
    tol = problem.tolerance()
    for _ in range(problem.n_columns):
        gain = (open_rows if weighted else problem.c_pos * open_rows) - problem.costs
        gain[w] = -np.inf
        j = int(np.argmax(gain)) if gain.size else -1
        if j < 0 or gain[j] <= tol:
            break
        w[j] = True
        if column_rows is None:
            newly = uncovered & A[:, j]
        else:
            newly = np.zeros(problem.n_rows, dtype=bool)
            newly[column_rows.indices[column_rows.indptr[j]:column_rows.indptr[j + 1]]] = True
            newly &= uncovered
        # the rows just covered leave every column's count: one pass over them (the product
        # skips rows of weight 0), no copy of those rows
        open_rows -= rmatvec(A, np.where(newly, problem.row_costs if weighted else 1.0, 0.0))
        uncovered &= ~newly
    return w


def threshold_values(w: np.ndarray, max_thresholds: int = 256) -> np.ndarray:
    """The thresholds :func:`round_solution` tries: the distinct values of w above
    :data:`ROUND_TOL`, values within :data:`ROUND_TOL` of the next smaller one merged into it
    (solver round-off must not split weights the LP sets equal, e.g. two of 1/3, which would
    make the rule depend on it), at most ``max_thresholds`` of them (quantiles beyond).

    Examples
    --------
    >>> threshold_values(np.array([1 / 3, 1 / 3 + 1e-15, 0.0, 1.0])).tolist()
    [0.3333333333333333, 1.0]
    """
    values = np.unique(w[w > ROUND_TOL])
    if values.size > 1:
        values = values[np.concatenate([[True], np.diff(values) > ROUND_TOL])]
    if values.size > max_thresholds:
        values = np.unique(np.quantile(values, np.linspace(0, 1, max_thresholds), method="nearest"))
    return values


def round_solution(problem: GroupTestingProblem, w: np.ndarray, max_thresholds: int = 256) -> np.ndarray:
    """Best integral rule ``w >= t`` over the thresholds t among the distinct values of w.

    Parameters
    ----------
    w : ndarray of shape (n,)
        A fractional solution (e.g. the LP optimum).
    max_thresholds : int
        At most this many thresholds are tried (quantiles of the distinct values beyond it).

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> P = build_problem([[1, 0], [1, 1], [0, 1]], [[0, 1]], lam=0.5)
    >>> round_solution(P, np.array([0.9, 0.2])).tolist()
    [True, False]
    """
    W, scores = threshold_rules(problem, w, max_thresholds)
    if scores.size == 0:
        return np.zeros(problem.n_columns, dtype=bool)
    return W[:, int(np.argmin(scores))]


def threshold_rules(problem: GroupTestingProblem, w: np.ndarray,
                    max_thresholds: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Every threshold rule ``w >= t`` of :func:`round_solution` (the columns of a bool matrix
    of shape (n, t)) and its objective.

    Examples
    --------
    >>> P = build_problem([[1, 0], [1, 1], [0, 1]], [[0, 1]], lam=0.5)
    >>> W, scores = threshold_rules(P, np.array([0.9, 0.2]))
    >>> W.T.tolist(), scores.tolist()
    ([[True, True], [True, False]], [2.0, 1.5])
    """
    w = np.asarray(w, dtype=np.float64)
    values = threshold_values(w, max_thresholds)
    W = w[:, None] >= values[None, :]                                   # (n, t)
    if values.size == 0:
        return W, np.zeros(0)
    # a row is covered at threshold t iff its largest w over its true columns is >= t
    reach = row_max(problem.A_pos, w)
    order = np.argsort(reach, kind="stable")
    below = np.searchsorted(reach[order], values, side="left")         # rows with reach < t
    if problem.row_weights is None:
        scores = problem.costs @ W + problem.c_pos * below
    else:
        lost = np.concatenate([[0.0], np.cumsum(problem.row_costs[order])])
        scores = problem.costs @ W + lost[below]
    return W, scores


def upper_bound(problem: GroupTestingProblem, w: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """Best of the empty rule, greedy cover and (when w is given) rounding of w.

    Returns
    -------
    value : float
        Objective of the best integral rule found.
    rule : ndarray of bool, shape (n,)

    Examples
    --------
    >>> P = build_problem([[1, 0], [1, 1], [0, 1]], [[0, 1]], lam=0.5)
    >>> value, w = upper_bound(P)
    >>> value, w.tolist()
    (1.5, [True, False])
    """
    candidates = [np.zeros(problem.n_columns, dtype=bool), greedy_cover(problem)]
    if w is not None:
        candidates.append(round_solution(problem, w))
    values = [problem.integer_objective(c) for c in candidates]
    best = int(np.argmin(values))
    return values[best], candidates[best]


def solve_with_screening(problem: GroupTestingProblem, *, dual: np.ndarray | None = None,
                         w_hint: np.ndarray | None = None, solver: str = "highs", integral: bool = False,
                         time_limit: float | None = None, merge_rows: bool = True,
                         max_working: int = 64, rows: np.ndarray | None = None, warm: bool = True) -> LPResult:
    """Screen the columns, solve the reduced problem, and certify the optimum of the full one.

    The integer program (``integral=True``) is solved on the kept columns only: screening is
    safe for it, so the optimum is that of the full integer program. The LP relaxation may use a
    screened column fractionally, so after solving the reduced LP every screened column is
    priced with the reduced dual (reduced cost ``c_j - mu^T a^j``); columns with a negative
    reduced cost are put back and the reduced LP is solved again, until the dual is feasible
    for the full problem. The result is then the optimum of the full LP (primal value = dual
    value), with a dual feasible for the full (20).

    The LP relaxation is solved by column generation over the kept columns: when more than
    ``max_working`` columns survive screening, the first reduced LP takes the most promising
    ones (smallest screening bound, plus the support of ``w_hint`` and of the best integral
    rule); identical rows are merged over the working columns, so the reduced LP has one
    constraint per distinct row pattern; every round prices all columns with the reduced dual
    and adds those with a negative reduced cost. The final dual prices every column nonnegatively, so the
    optimum is that of the full LP.

    Parameters
    ----------
    problem : GroupTestingProblem
    dual : ndarray of shape (p,), optional
        A feasible dual for the screening test; :func:`greedy_dual` when omitted.
    w_hint : ndarray of shape (n,), optional
        A fractional solution whose rounding may give a better upper bound.
    solver, integral, time_limit, merge_rows
        As in :func:`solve_relaxation`; identical rows are merged by default (the reduced
        problem has few columns, so many positive rows coincide on them).
    max_working : int, default 64
        Largest first working set of the column generation (LP relaxation only), and most
        columns priced in per round.
    rows : ndarray of int, optional
        Start a row generation from these positive rows (e.g. a row sample): every reduced
        problem is solved on them plus the rows its solutions leave uncovered, until none is
        (exact, see :func:`_solve_generating_rows`). None: all rows from the start.
    warm : bool, default True
        Solve the LP relaxations of the column and row generation in one live HiGHS model,
        edited in place between rounds and restarted from the last basis
        (:class:`~logicrules.lp.clause_warm.WarmClauseLP`; ``solver="highs"`` with highspy
        installed). False, or without highspy: each LP from scratch (same optimum).

    Returns
    -------
    LPResult
        Over all columns (screened ones have ``w_j = 0``); ``columns_screened`` counts the
        columns left out of the final solve, ``details`` has the bounds and pricing rounds.

    Examples
    --------
    >>> P = build_problem([[1, 0], [1, 1], [0, 1]], [[0, 1]], lam=0.5)
    >>> result = solve_with_screening(P)
    >>> round(result.objective, 6), result.w.tolist()
    (1.5, [1.0, 0.0])
    """
    start = time.perf_counter()
    mu = greedy_dual(problem) if dual is None else repair_dual(problem, dual)
    upper, best_rule = upper_bound(problem, w_hint)
    bound = problem.dual_slack(mu) + float(np.sum(mu))
    keep = screen_problem(problem, mu, upper)
    screened_by_test = int((~keep).sum())
    working = keep.copy()
    if not integral and keep.sum() > max_working:
        working = _first_working_set(bound, keep, best_rule, w_hint, max_working)
    rounds = 0
    tol = problem.tolerance()
    live = WarmClauseLP(problem, time_limit) if warm and solver == "highs" and not integral and warm_available() \
        else None
    while True:
        rounds += 1
        columns = np.flatnonzero(working)
        if live is None:
            def solve(chosen, columns=columns):
                sub = problem if chosen is None else problem.restrict_rows(chosen)
                result = solve_problem(sub.restrict_columns(columns), solver=solver, integral=integral,
                                       time_limit=time_limit, merge_rows=merge_rows)
                return RowSolve(result.w, result.dual, result.status, result.solver, result.lower_bound)
        else:
            def solve(chosen, columns=columns):
                return live.solve(columns, chosen)
        reduced, rows = _solve_generating_rows(problem, columns, rows, solve, integral=integral)
        if integral:
            break
        slack = problem.dual_slack(reduced.dual)
        priced_in = np.flatnonzero(~working & (slack < -tol))
        if not priced_in.size:
            break
        # the most negative reduced costs first, at most max_working at a time (exact: the loop
        # only ends when no column has a negative reduced cost)
        working[priced_in[np.argsort(slack[priced_in], kind="stable")[:max(max_working, 1)]]] = True
    w = np.zeros(problem.n_columns)
    w[columns] = reduced.w
    dual_full = None if integral else repair_dual(problem, reduced.dual)
    return LPResult(
        objective=reduced.objective, w=w, xi=reduced.xi, dual=dual_full, status=reduced.status,
        seconds=time.perf_counter() - start, solver=reduced.solver, integral=integral,
        n_columns=problem.n_columns, n_rows=problem.n_rows, columns_screened=int((~working).sum()),
        lower_bound=float(dual_full.sum()) if dual_full is not None else reduced.lower_bound,
        details={"upper_bound": upper, "screening_dual_value": float(mu.sum()),
                 "screened_by_test": screened_by_test, "pricing_rounds": rounds,
                 "working_columns": int(columns.size),
                 "rows_solved": problem.n_rows if rows is None else int(rows.size)},
    )


def _solve_generating_rows(problem: GroupTestingProblem, columns: np.ndarray, rows: np.ndarray | None,
                           solve: Callable[[np.ndarray | None], RowSolve], *, integral: bool
                           ) -> tuple[LPResult, np.ndarray | None]:
    """Solve the problem on the working ``columns`` by row generation from the constraint rows
    ``rows`` (all when None); exact.

    ``solve(chosen)`` solves the problem restricted to ``columns`` on the positive rows
    ``chosen`` (None: all of them), cold or in a live model; the rows' coverage is read from
    the problem over all columns (w is 0 outside ``columns``), so no copy of the working
    columns over all rows is made.

    The LP (or integer program) on a subset S of the positive rows is a relaxation of the full
    one (fewer constraints, same costs). When its solution covers every row outside S
    (``a_i w >= 1``), it is feasible for the full problem at the same value, no other row paying
    an error, hence optimal; otherwise rows it leaves uncovered join S and S is solved again.
    The dual of S, zero on the other rows, is dual feasible for the full problem whenever it is
    for S (same column costs), with the same value.

    Bounded (:func:`_next_rows`): a round adds at most as many uncovered rows as S has (at least
    :data:`ROWS_PER_ROUND`) and as the memory limit leaves room for, the least covered first,
    and when that leaves some out, during the first :data:`DROPPING_ROUNDS` rounds, rows S
    covers with room to spare (``a_i w > 1``, dual 0) leave it; this only changes how S is
    reached, not the optimum (afterwards S only grows, so the loop ends). With ``rows=None`` all
    rows are solved at once when the solver's model fits the ``memory_limit`` of the fit,
    otherwise by this row generation from every tenth row.
    Returns the result over all rows and the final S (None when all rows were used).
    """
    start = time.perf_counter()
    chosen = None
    rounds = 0
    columns = np.asarray(columns, dtype=np.intp)

    def padded(w: np.ndarray) -> np.ndarray:
        out = np.zeros(problem.n_columns)
        out[columns] = w
        return out

    if rows is None:
        try:
            result = solve(None)
        except MemoryLimitError:
            if problem.n_rows < 10 * ROWS_PER_ROUND:
                raise
            rows = np.arange(0, problem.n_rows, 10)
        else:
            coverage = problem.coverage(padded(result.w))
    if rows is not None:
        active = np.zeros(problem.n_rows, dtype=bool)
        active[rows] = True
        while True:
            rounds += 1
            chosen = np.flatnonzero(active)
            result = solve(chosen)
            coverage = problem.coverage(padded(result.w))
            if not _next_rows(problem, columns, active, chosen, coverage, result.dual, rounds):
                break
    dual = result.dual
    if dual is not None and chosen is not None:
        dual = np.zeros(problem.n_rows)
        dual[chosen] = result.dual
    xi = np.maximum(0.0, 1.0 - coverage)
    objective = problem.integer_objective(padded(result.w)) if integral else problem.objective(padded(result.w))
    lower = float(dual.sum()) if dual is not None else result.lower_bound
    return LPResult(objective=objective, w=result.w, xi=(xi > 0.5).astype(np.float64) if integral else xi,
                    dual=dual, status=result.status, seconds=time.perf_counter() - start, solver=result.solver,
                    integral=integral, n_columns=int(columns.size), n_rows=problem.n_rows,
                    lower_bound=lower, details={"row_rounds": rounds}), chosen


def _next_rows(problem: GroupTestingProblem, columns: np.ndarray, active: np.ndarray, chosen: np.ndarray,
               coverage: np.ndarray, dual: np.ndarray | None, rounds: int) -> bool:
    """Update the row set S (``active``; ``chosen`` its rows) of a row generation over the working
    ``columns`` after a solve
    whose solution covers the rows ``coverage`` times; False when it is optimal (every row outside
    S covered). Adds the uncovered rows outside S, the least covered first, at most as many as S
    has (at least :data:`ROWS_PER_ROUND`) and as the solver's model of the grown S leaves room for
    under the fit's ``memory_limit``. When that cap leaves uncovered rows out, in the first
    :data:`DROPPING_ROUNDS` rounds, the rows of S covered more than once with dual 0 leave it
    (their constraint is slack: the solution stays optimal on the rest)."""
    missing = np.flatnonzero(~active & (coverage < 1.0 - 1e-9))
    if not missing.size:
        return False
    per_row = model_bytes(float(row_counts(problem.A_pos[missing[:1000]][:, columns]).mean()) + 1.0, 1.0, 1.0)
    room = max(chosen.size, ROWS_PER_ROUND)
    fits = memory.available() / per_row - chosen.size
    if fits < room:
        room = max(int(fits), 1)
    if missing.size > room:
        missing = missing[np.argsort(coverage[missing], kind="stable")[:room]]
        if rounds <= DROPPING_ROUNDS:
            slack = coverage[chosen] > 1.0 + 1e-9
            if dual is not None:
                slack &= dual <= 0.0
            active[chosen[slack]] = False
    active[missing] = True
    return True


def _first_working_set(bound: np.ndarray, keep: np.ndarray, rule: np.ndarray, w_hint, size: int) -> np.ndarray:
    """Kept columns with the smallest screening bounds, plus the hint's and the rule's support."""
    working = keep & rule
    if w_hint is not None:
        working |= keep & (np.asarray(w_hint, dtype=np.float64) > 1e-9)
    kept = np.flatnonzero(keep & ~working)
    room = max(size - int(working.sum()), 0)
    working[kept[np.argsort(bound[kept], kind="stable")[:room]]] = True
    return working
