"""Solving the group-testing LP (19) and its integer program with HiGHS (SciPy) or PuLP.

Both back ends return an :class:`LPResult` holding the primal ``w``, the slacks ``xi`` and, for
the LP relaxation, the dual ``mu`` of (20): one value per positive row, feasible and with
``sum(mu)`` equal to the optimum (strong duality). A solve that stops early (time limit) never
passes silently: without a usable solution it raises :class:`SolverError`; an integer program
stopped with a feasible incumbent returns it with ``status="time_limit"`` and a
:class:`SolverWarning`.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from scipy import optimize, sparse

from logicrules import memory
from logicrules.lp.model import GroupTestingProblem, build_problem, row_counts, to_csr

__all__ = ["LPResult", "SolverError", "SolverWarning", "solve_problem", "solve_relaxation", "SOLVERS",
           "lp_result", "model_bytes", "require_model_memory"]

#: Names accepted for ``solver``.
SOLVERS = ("highs", "pulp")
#: Bytes the HiGHS model of an LP takes, with the work of its interior-point solve, per nonzero of
#: the constraint matrix, per row and per column (measured on the reduced LPs of the rule learners:
#: 138-148 bytes per nonzero at 0.6e6-2e6 nonzeros, about 460 per row).
_MODEL_BYTES = (160.0, 500.0, 100.0)


def model_bytes(nnz: float, n_rows: float, n_columns: float) -> float:
    """Estimated bytes of the solver's model of an LP with ``nnz`` nonzeros (HiGHS, interior point).

    Examples
    --------
    >>> model_bytes(1_000_000, 10_000, 64) / 1e6
    165.0064
    """
    per_nonzero, per_row, per_column = _MODEL_BYTES
    return per_nonzero * nnz + per_row * n_rows + per_column * n_columns


def require_model_memory(nnz: float, n_rows: int, n_columns: int, what: str) -> None:
    """Check the solver's model of an LP against the ``memory_limit`` of the fit under way
    (:func:`logicrules.memory.require`) before it is built."""
    memory.require(model_bytes(nnz, n_rows, n_columns),
                   f"the LP solver's model of {what} ({n_rows} rows x {n_columns} columns, {int(nnz)} nonzeros)",
                   "use row_sampling, a larger lam, fewer rows or a binarizer with fewer attributes")


class SolverError(RuntimeError):
    """The LP/IP solver returned no usable solution (time limit, numerical trouble)."""


class SolverWarning(UserWarning):
    """The solver stopped before proving optimality; the returned solution may be suboptimal."""


@dataclass
class LPResult:
    """Solution of the group-testing LP (19) or of its integer program.

    Attributes
    ----------
    objective : float
        Optimal value (of the relaxation, or of the integer program when ``integral``).
    w : ndarray of shape (n,)
        Column weights (0/1 when ``integral``); zeros on screened-out columns.
    xi : ndarray of shape (p,)
        Slack per positive row, ``max(0, 1 - a_i w)``.
    dual : ndarray of shape (p,) or None
        mu of the dual (20), feasible, ``sum(dual) == objective`` at an LP optimum; None for the
        integer program.
    status : str
        ``"optimal"`` or ``"time_limit"``.
    seconds : float
        Wall time of the whole solve (model building included).
    solver : str
        Back end, e.g. ``"highs"``, ``"highs-milp"``, ``"pulp-HiGHS"``, ``"pulp-PULP_CBC_CMD"``.
    integral : bool
        Whether the integer program was solved.
    n_columns, n_rows : int
        Size of the full problem.
    columns_screened : int
        Columns removed by the safe screening test before solving.
    rows_sampled : int or None
        Positive rows in the final row sample (None: no row sampling).
    lower_bound : float or None
        Best certified lower bound on the optimum (equal to ``objective`` when optimal).
    details : dict
        Extra per-stage information (rounds, timings, bounds).
    """

    objective: float
    w: np.ndarray
    xi: np.ndarray
    dual: np.ndarray | None
    status: str
    seconds: float
    solver: str
    integral: bool
    n_columns: int
    n_rows: int
    columns_screened: int = 0
    rows_sampled: int | None = None
    lower_bound: float | None = None
    details: dict = field(default_factory=dict)

    @property
    def optimal(self) -> bool:
        """True when the solver proved optimality."""
        return self.status == "optimal"

    def selected(self, threshold: float = 0.5) -> np.ndarray:
        """Indices of the columns with ``w_j >= threshold``."""
        return np.flatnonzero(self.w >= threshold)


def solve_relaxation(A_pos, A_neg, lam: float, solver: str = "highs", weights=None,
                     integral: bool = False, time_limit: float | None = None,
                     merge_rows: bool = False) -> LPResult:
    """Solve the LP (10)/(19) of an OR-rule, or its integer program, returning primal and dual.

    Parameters
    ----------
    A_pos : array-like or sparse matrix of shape (p, n)
        0/1 rows of the positive examples.
    A_neg : array-like or sparse matrix of shape (z, n)
        0/1 rows of the negative examples.
    lam : float
        Cost of one selected column, >= 0.
    solver : {"highs", "pulp"}, default "highs"
        ``"highs"``: :func:`scipy.optimize.linprog` (``method="highs"``), or
        :func:`scipy.optimize.milp` when ``integral``. ``"pulp"``: the same model in PuLP,
        solved by HiGHS through highspy when installed, else by CBC.
    weights : None or pair of float, optional
        ``(c_pos, c_neg)``: cost of an uncovered positive and of a covered negative row.
    integral : bool, default False
        Solve the integer program (w in {0, 1}) exactly instead of the relaxation.
    time_limit : float, optional
        Seconds; reaching it raises :class:`SolverError` (no solution) or warns
        (:class:`SolverWarning`, integer incumbent returned with ``status="time_limit"``).
    merge_rows : bool, default False
        Merge identical positive rows into one constraint whose slack costs ``c_pos`` times its
        multiplicity (``solver="highs"`` only). Exact: identical rows have equal optimal slacks,
        and the merged dual split evenly over the rows is feasible with the same value.

    Returns
    -------
    LPResult

    Examples
    --------
    >>> res = solve_relaxation([[1, 0], [0, 1]], [[0, 1]], lam=0.5)
    >>> round(res.objective, 6), res.w.round(6).tolist(), res.dual.round(6).tolist()
    (1.5, [1.0, 0.0], [0.5, 1.0])
    """
    start = time.perf_counter()
    problem = build_problem(A_pos, A_neg, lam, weights)
    result = solve_problem(problem, solver=solver, integral=integral, time_limit=time_limit,
                           merge_rows=merge_rows)
    result.seconds = time.perf_counter() - start
    return result


def solve_problem(problem: GroupTestingProblem, solver: str = "highs", integral: bool = False,
                  time_limit: float | None = None, merge_rows: bool = False) -> LPResult:
    """Solve a prepared :class:`GroupTestingProblem` (see :func:`solve_relaxation`).

    Examples
    --------
    >>> from logicrules.lp.model import build_problem
    >>> result = solve_problem(build_problem([[1, 0], [1, 1], [0, 1]], [[0, 1]], lam=0.5))
    >>> round(result.objective, 6), result.w.tolist()
    (1.5, [1.0, 0.0])
    """
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; use one of {', '.join(SOLVERS)}")
    check_time_limit(time_limit)
    start = time.perf_counter()
    if solver == "highs":
        groups = _row_groups(problem.A_pos) if merge_rows and problem.n_rows > 1 else None
        counts_per_row = row_counts(problem.A_pos)
        rows = problem.n_rows if groups is None else int(groups[0].size)
        nnz = counts_per_row.sum() if groups is None else counts_per_row[groups[0]].sum()
        require_model_memory(float(nnz) + rows, rows, problem.n_columns + rows, "the group-testing LP")
        solve = _solve_milp if integral else _solve_linprog
        if groups is None:
            w, dual, status, name = solve(problem, time_limit)
        else:
            first, inverse, counts = groups
            if problem.row_weights is None:
                w, dual, status, name = solve(problem.restrict_rows(first), time_limit,
                                              problem.c_pos * counts.astype(np.float64))
                if dual is not None:
                    dual = (dual / counts)[inverse]
            else:  # a group's constraint costs the sum of its rows' costs; its dual is shared alike
                group_costs = np.bincount(inverse, weights=problem.row_costs, minlength=first.size)
                w, dual, status, name = solve(problem.restrict_rows(first), time_limit, group_costs)
                if dual is not None:
                    dual = (dual / group_costs)[inverse] * problem.row_costs
    else:
        w, dual, status, name = _solve_pulp(problem, integral, time_limit)
    return lp_result(problem, w, dual, status, name, integral, start)


def lp_result(problem: GroupTestingProblem, w: np.ndarray, dual: np.ndarray | None, status: str, solver: str,
              integral: bool, start: float, lower: float | None = None) -> LPResult:
    """The :class:`LPResult` of a back end's answer ``w`` / ``dual`` to ``problem``: the weights
    clipped (rounded when ``integral``), the objective and slacks they give, the lower bound
    (``lower``, else the dual's value, else the objective when optimal); ``start``: the solve's
    ``time.perf_counter()``."""
    if integral:
        w = (w > 0.5).astype(np.float64)
        objective = problem.integer_objective(w)
    else:
        w = np.maximum(w, 0.0)
        objective = problem.objective(w)
    xi = np.maximum(0.0, 1.0 - problem.coverage(w))
    if integral:
        xi = (xi > 0.5).astype(np.float64)
    if lower is None:
        lower = float(dual.sum()) if dual is not None else (objective if status == "optimal" else None)
    return LPResult(objective=objective, w=w, xi=xi, dual=dual, status=status,
                    seconds=time.perf_counter() - start, solver=solver, integral=integral,
                    n_columns=problem.n_columns, n_rows=problem.n_rows, lower_bound=lower)


def check_time_limit(time_limit) -> None:
    """Raise a ValueError naming ``time_limit`` unless it is None or a finite number of seconds > 0."""
    if time_limit is not None and (isinstance(time_limit, (bool, np.bool_)) or not isinstance(time_limit, Real)
                                   or not 0 < time_limit < math.inf):
        raise ValueError(f"time_limit must be a number of seconds > 0 or None, got {time_limit!r}")


def _stopped(message: str, time_limit: float | None) -> SolverError:
    limit = f" (time_limit={time_limit} s)" if time_limit is not None else ""
    return SolverError(f"the solver stopped without an optimal solution{limit}: {message}; "
                       "raise time_limit or shrink the problem (screening, row sampling)")


def _row_groups(A) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Identical rows of a 0/1 matrix (dense bool or CSR): (first row of each group, group of each
    row, sizes).

    None when all rows are distinct (nothing to merge).
    """
    p, n = A.shape
    if sparse.issparse(A):
        dense = np.zeros((p, n), dtype=bool)
        dense[np.repeat(np.arange(p), np.diff(A.indptr)), A.indices] = True
    else:
        dense = A
    packed = np.ascontiguousarray(np.packbits(dense, axis=1)) if n else np.zeros((p, 1), dtype=np.uint8)
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    if first.size == A.shape[0]:
        return None
    return first, inverse.ravel(), counts


def _constraint_matrix(problem: GroupTestingProblem) -> sparse.csr_array:
    """``[A_P  I]``: the left-hand side of ``A_P w + xi >= 1``."""
    p = problem.n_rows
    return sparse.hstack([to_csr(problem.A_pos), sparse.identity(p, format="csr")], format="csr")


def _solve_linprog(problem: GroupTestingProblem, time_limit, row_cost: np.ndarray | None = None):
    n, p = problem.n_columns, problem.n_rows
    row_cost = problem.row_costs if row_cost is None else row_cost
    options = {"presolve": True}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    if p == 0:
        return np.zeros(n), np.zeros(0), "optimal", "highs"
    # The dual (20) has n constraints and box-bounded variables instead of p constraints plus p
    # slack columns; HiGHS' interior point (with crossover to a vertex) solves it several times
    # faster than the primal on the dense 0/1 rows of binarized data. The primal w is the
    # dual value (marginal) of the column constraints. HiGHS' interior point does not check the
    # clock while it iterates, so under a time limit the dual simplex (which does) is used.
    method = "highs-ipm" if time_limit is None else "highs-ds"
    res = optimize.linprog(-np.ones(p), A_ub=to_csr(problem.A_pos).T.tocsr(), b_ub=problem.costs,
                           bounds=np.column_stack([np.zeros(p), row_cost]), method=method, options=options)
    if res.status != 0 or res.x is None:
        raise _stopped(f"scipy linprog status {res.status}: {res.message}", time_limit)
    dual = np.clip(np.asarray(res.x, dtype=np.float64), 0.0, row_cost)
    w = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0)
    return w, dual, "optimal", "highs"


def _solve_milp(problem: GroupTestingProblem, time_limit, row_cost: np.ndarray | None = None):
    n, p = problem.n_columns, problem.n_rows
    if p == 0:
        return np.zeros(n), None, "optimal", "highs-milp"
    row_cost = problem.row_costs if row_cost is None else row_cost
    c = np.concatenate([problem.costs, row_cost])
    integrality = np.concatenate([np.ones(n), np.zeros(p)])
    bounds = optimize.Bounds(np.zeros(n + p), np.ones(n + p))
    constraint = optimize.LinearConstraint(_constraint_matrix(problem), lb=np.ones(p), ub=np.inf)
    options = {"mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    res = optimize.milp(c, integrality=integrality, bounds=bounds, constraints=constraint, options=options)
    if res.status == 0:
        return res.x[:n], None, "optimal", "highs-milp"
    if res.status == 1 and res.x is not None:
        warnings.warn(f"the integer program hit its limit (time_limit={time_limit} s) before proving "
                      f"optimality; returning the best rule found (gap not closed): {res.message}",
                      SolverWarning, stacklevel=4)
        return res.x[:n], None, "time_limit", "highs-milp"
    raise _stopped(f"scipy milp status {res.status}: {res.message}", time_limit)


def pulp_backend():
    """The PuLP solver class used for ``solver="pulp"``: HiGHS (highspy) when available, else CBC."""
    import pulp

    for name in ("HiGHS", "COIN_CMD", "PULP_CBC_CMD"):
        backend = getattr(pulp, name, None)
        if backend is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            if backend(msg=False).available():
                return backend
    raise SolverError("PuLP finds no solver: install highspy (pip install highspy) or CBC")


def _solve_pulp(problem: GroupTestingProblem, integral: bool, time_limit):
    import pulp

    n, p = problem.n_columns, problem.n_rows
    backend = pulp_backend()
    name = f"pulp-{backend.__name__}"
    model = pulp.LpProblem("group_testing", pulp.LpMinimize)
    category = pulp.LpBinary if integral else pulp.LpContinuous
    new_variable = getattr(model, "add_variable", None) or pulp.LpVariable  # PuLP >= 3.3 / older
    w = [new_variable(f"w_{j}", 0, 1 if integral else None, cat=category) for j in range(n)]
    xi = [new_variable(f"xi_{i}", 0, None) for i in range(p)]
    if problem.row_weights is None:
        slack_cost = problem.c_pos * pulp.lpSum(xi)
    else:
        slack_cost = pulp.lpSum(float(cost) * x for cost, x in zip(problem.row_costs, xi))
    model += pulp.lpSum(float(problem.costs[j]) * w[j] for j in range(n)) + slack_cost
    A = to_csr(problem.A_pos)
    constraints = []
    for i in range(p):  # model building in PuLP is row by row by design
        cols = A.indices[A.indptr[i]:A.indptr[i + 1]]
        constraint = pulp.lpSum(w[j] for j in cols) + xi[i] >= 1
        model += constraint, f"cover_{i}"
        constraints.append(constraint)
    kwargs = {"msg": False}
    if time_limit is not None:
        kwargs["timeLimit"] = float(time_limit)
    if backend is not getattr(pulp, "HiGHS", None) and integral:
        kwargs["gapRel"] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # PuLP 3.3 deprecates PULP_CBC_CMD
        model.solve(backend(**kwargs))
    status = pulp.LpStatus[model.status]
    values = np.array([v.value() if v.value() is not None else np.nan for v in w], dtype=np.float64)
    # PuLP leaves out of the model a variable that is in no constraint and costs nothing (lam = 0,
    # a literal that is 0 on every positive row): it has no value, and 0 is optimal for it
    unconstrained = np.bincount(A.indices, minlength=n) == 0
    values[unconstrained & np.isnan(values)] = 0.0
    if status != "Optimal":
        if integral and model.sol_status in (pulp.LpSolutionIntegerFeasible,) and not np.isnan(values).any():
            warnings.warn(f"the integer program hit its limit (time_limit={time_limit} s) before proving "
                          "optimality; returning the best rule found", SolverWarning, stacklevel=4)
            return values, None, "time_limit", name
        raise _stopped(f"PuLP status {status!r}", time_limit)
    if np.isnan(values).any():
        raise _stopped("PuLP reported Optimal but some variables have no value", time_limit)
    dual = None
    if not integral:
        # pi = d objective / d rhs, >= 0 for a covering constraint of a minimization
        dual = np.array([c.pi for c in constraints], dtype=np.float64)
        dual = np.clip(dual, 0.0, problem.row_costs)
    return values, dual, "optimal", name
