"""The master problem of DNF rule sets (Dash, Gunluk and Wei 2018) over a pool of conjunctions.

A DNF rule set is an OR of conjunctions (terms) of literals, the columns of a boolean matrix A.
With ``a_ik = 1`` when conjunction k holds on row i, positive rows P, negative rows Z, a cost
``u_i`` for leaving positive row i uncovered and ``v_i`` for covering negative row i, the master
LP over a pool K of conjunctions is::

    minimize   sum_{i in P} u_i xi_i + sum_k c_k w_k,    c_k = sum_{i in Z} v_i a_ik + lam (1 + |k|)
    subject to xi_i + sum_k a_ik w_k >= 1        (i in P)              dual mu_i >= 0
               sum_k (1 + |k|) w_k <= C          (optional budget)     dual nu >= 0
               w, xi >= 0

(a negative row covered by several terms is counted once per term: the LP's standard
over-count, which keeps the problem a covering LP). Its dual is ``maximize sum_i mu_i - C nu``
subject to ``0 <= mu_i <= u_i`` and ``sum_i mu_i a_ik - nu (1 + |k|) <= c_k`` for every k, so
the reduced cost of any conjunction k, in the pool or not, is

    ``rc_k = sum_{i in Z} v_i a_ik - sum_{i in P} mu_i a_ik + (lam + nu) (1 + |k|)``,

a row-weighted linear function of the conjunction's extent (what the pricing problem of
:mod:`logicrules.lp.colgen` minimizes). Identical rows of one class are merged into one row whose
cost is the sum of theirs (exact: they have equal optimal slacks), so the master stays small.

:func:`solve_master_lp` returns the primal and the duals (HiGHS through SciPy's ``linprog``, or
PuLP; column generation keeps one warm-started HiGHS model instead,
:mod:`logicrules.lp.master_highs`); :func:`solve_master_mip` solves the same problem with binary
w (HiGHS MIP through highspy, started from the LP's rounding, or SciPy's ``milp``, or PuLP)
under a node limit (work, not time: reproducible) and a time limit, and reports the gap, with
:func:`~logicrules.lp.master_rounding.round_master` as the fallback when it stops without an
incumbent.
"""

from __future__ import annotations

import importlib.util
import time
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse

from logicrules.lp.master_rounding import round_master
from logicrules.lp.model import check_lam, class_costs
from logicrules.lp.solvers import SOLVERS, SolverError, _row_groups, pulp_backend, require_model_memory

__all__ = ["RuleSetProblem", "ConjunctionPool", "MasterLP", "MasterMIP", "build_rule_set_problem",
           "conjunction_extents", "solve_master_lp", "solve_master_mip"]


def _merge(A: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a boolean matrix with the summed weights of the rows they stand for."""
    if A.shape[0] <= 1:
        return A, weight
    groups = _row_groups(A)  # dense bool rows as they are (a CSR copy would cost 12 bytes per true cell)
    if groups is None:
        return A, weight
    first, inverse, _ = groups
    return A[first], np.bincount(inverse, weights=weight, minlength=first.size)


@dataclass(frozen=True)
class RuleSetProblem:
    """A DNF learning instance with identical rows merged (build it with :func:`build_rule_set_problem`).

    Attributes
    ----------
    A_pos : ndarray of bool, shape (p, m)
        Distinct positive rows over the m literals.
    pos_weight : ndarray of shape (p,)
        ``u_i``: cost of leaving row i uncovered (sum of the merged rows' weights).
    A_neg : ndarray of bool, shape (z, m)
        Distinct negative rows.
    neg_weight : ndarray of shape (z,)
        ``v_i``: cost of covering row i.
    lam : float
        Cost of one term and of each of its literals (a term of s literals costs ``lam (1 + s)``).
    budget : float or None
        Complexity budget C on ``sum_k (1 + |k|) w_k``; None for no budget.
    literal_cost : ndarray of shape (m,) or None
        Extra cost ``e_j >= 0`` of literal j in a term, added to the term's ``lam (1 + |k|)``
        (a tie-break, e.g. against negated literals); None for none.

    Examples
    --------
    >>> A = np.array([[1, 0], [1, 0], [0, 1]], dtype=bool)
    >>> P = build_rule_set_problem(A, np.array([1, 1, 0], dtype=bool), lam=0.5)
    >>> P.A_pos.tolist(), P.pos_weight.tolist(), P.n_literals
    ([[True, False]], [2.0], 2)
    """

    A_pos: np.ndarray
    pos_weight: np.ndarray
    A_neg: np.ndarray
    neg_weight: np.ndarray
    lam: float
    budget: float | None
    literal_cost: np.ndarray | None = None

    def term_costs(self, terms: list[tuple[int, ...]]) -> np.ndarray:
        """``lam (1 + |k|) + sum_{j in k} e_j`` of the given terms."""
        costs = self.lam * (1.0 + np.array([len(t) for t in terms], dtype=np.float64))
        if self.literal_cost is not None:
            costs += np.array([self.literal_cost[list(t)].sum() for t in terms], dtype=np.float64)
        return costs

    @property
    def n_literals(self) -> int:
        """Number of literals m (columns of A)."""
        return int(self.A_pos.shape[1])

    def tolerance(self) -> float:
        """Absolute tolerance on objective values and reduced costs of this instance."""
        return 1e-7 * max(1.0, float(self.pos_weight.sum()))


def build_rule_set_problem(A, y, lam: float, *, sample_weight=None, weights=None,
                           budget: float | None = None, literal_cost=None) -> RuleSetProblem:
    """Merge identical rows of each class and price errors: the instance of the master problem.

    Parameters
    ----------
    A : array-like of bool, shape (n, m)
        Literal matrix (rows = examples).
    y : array-like of bool, shape (n,)
        Target (True = the rule set should fire).
    lam : float
        Cost of one term and of each literal in it, in units of one (weighted) error, >= 0.
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights (default 1); rows of weight 0 are dropped.
    weights : None or pair of float, optional
        ``(c_pos, c_neg)``: class costs multiplying the row weights of positives and negatives.
    budget : float, optional
        Complexity budget C (>= 0) on the total size ``sum_k (1 + |k|) w_k``.
    literal_cost : array-like of shape (m,), optional
        Extra cost ``e_j >= 0`` of each literal in a term (see :class:`RuleSetProblem`).

    Returns
    -------
    RuleSetProblem

    Examples
    --------
    >>> A = np.array([[1, 0], [0, 1], [0, 1]], dtype=bool)
    >>> P = build_rule_set_problem(A, [True, False, False], lam=1.0, weights=(2.0, 1.0))
    >>> P.pos_weight.tolist(), P.neg_weight.tolist()
    ([2.0], [2.0])
    """
    A = np.asarray(A)
    if A.ndim != 2:
        raise ValueError(f"A must be a 2-D boolean matrix, got {A.ndim} dimension(s)")
    A = A.astype(bool)
    y = np.asarray(y)
    if y.shape != (A.shape[0],):
        raise ValueError(f"y must have one entry per row of A ({A.shape[0]}), got shape {y.shape}")
    y = y.astype(bool)
    lam = check_lam(lam)
    if budget is not None:
        budget = float(budget)
        if not np.isfinite(budget) or budget < 0:
            raise ValueError(f"budget must be None or a finite number >= 0, got {budget}")
    if sample_weight is None:
        sw = np.ones(A.shape[0])
    else:
        sw = np.asarray(sample_weight, dtype=np.float64)
        if sw.shape != (A.shape[0],):
            raise ValueError(f"sample_weight must have one entry per row ({A.shape[0]}), got shape {sw.shape}")
        if not (np.isfinite(sw).all() and (sw >= 0).all()):
            raise ValueError("sample_weight must be finite and >= 0")
    if literal_cost is not None:
        literal_cost = np.asarray(literal_cost, dtype=np.float64)
        if literal_cost.shape != (A.shape[1],) or not (np.isfinite(literal_cost).all() and (literal_cost >= 0).all()):
            raise ValueError(f"literal_cost must hold one finite number >= 0 per literal ({A.shape[1]}), "
                             f"got shape {literal_cost.shape}")
    c_pos, c_neg = class_costs(weights)
    keep = sw > 0
    pos, neg = keep & y, keep & ~y
    A_pos, pos_weight = _merge(A[pos], c_pos * sw[pos])
    A_neg, neg_weight = _merge(A[neg], c_neg * sw[neg])
    return RuleSetProblem(A_pos, pos_weight, A_neg, neg_weight, lam, budget, literal_cost)


def conjunction_extents(A: np.ndarray, terms: list[tuple[int, ...]]) -> np.ndarray:
    """Truth values (rows, len(terms)) of conjunctions of columns of a boolean matrix.

    The empty conjunction is TRUE. All terms are evaluated at once: they are padded to one
    width with an extra all-true column.

    Examples
    --------
    >>> A = np.array([[1, 1], [1, 0]], dtype=bool)
    >>> conjunction_extents(A, [(0,), (0, 1), ()]).tolist()
    [[True, True, True], [True, False, True]]
    """
    n, m = A.shape
    if not terms:
        return np.zeros((n, 0), dtype=bool)
    width = max(1, max(len(t) for t in terms))
    index = np.full((len(terms), width), m, dtype=np.intp)
    for k, term in enumerate(terms):  # building the index table, not evaluating
        index[k, :len(term)] = term
    padded = np.hstack([A, np.ones((n, 1), dtype=bool)])
    return padded[:, index].all(axis=2)


class ConjunctionPool:
    """The growing pool of conjunctions of the restricted master, with their columns.

    Each term is a sorted tuple of distinct literal indices. The pool stores, per term, its
    extent on the distinct positive rows (the master's constraint columns), its weighted count
    of covered negatives (``neg_cost``, plus the problem's literal costs of its literals) and its
    size.

    Examples
    --------
    >>> P = build_rule_set_problem(np.array([[1, 0], [1, 1], [0, 1]], dtype=bool), [1, 1, 0], lam=0.1)
    >>> pool = ConjunctionPool(P)
    >>> pool.add([(0,), (1,), (0,)])
    2
    >>> pool.costs().tolist()
    [0.2, 1.2]
    """

    def __init__(self, problem: RuleSetProblem):
        self.problem = problem
        self.terms: list[tuple[int, ...]] = []
        self._index: dict[tuple[int, ...], int] = {}
        self.cover = np.zeros((problem.A_pos.shape[0], 0), dtype=bool)
        self.neg_cost = np.zeros(0)
        self.sizes = np.zeros(0, dtype=np.intp)

    def __len__(self) -> int:
        return len(self.terms)

    def __contains__(self, term) -> bool:
        return tuple(sorted(term)) in self._index

    def add(self, terms) -> int:
        """Add the terms not yet in the pool; return how many were new."""
        new = []
        for term in terms:
            key = tuple(sorted(int(j) for j in term))
            if len(set(key)) != len(key) or (key and not 0 <= key[0] <= key[-1] < self.problem.n_literals):
                raise ValueError(f"a term must hold distinct literal indices in [0, {self.problem.n_literals}), "
                                 f"got {term!r}")
            if key not in self._index:
                self._index[key] = len(self.terms) + len(new)
                new.append(key)
        if new:
            P = self.problem
            self.cover = np.hstack([self.cover, conjunction_extents(P.A_pos, new)])
            # the term's cost beyond lam (1 + |k|) rides with its negatives' cost
            extra = P.term_costs(new) - P.lam * (1.0 + np.array([len(t) for t in new], dtype=np.float64))
            self.neg_cost = np.concatenate([self.neg_cost, P.neg_weight @ conjunction_extents(P.A_neg, new) + extra])
            self.sizes = np.concatenate([self.sizes, [len(t) for t in new]]).astype(np.intp)
            self.terms.extend(new)
        return len(new)

    def subset(self, columns) -> ConjunctionPool:
        """A pool of the same problem holding the given columns (indices), in that order."""
        pool = ConjunctionPool(self.problem)
        columns = np.asarray(columns, dtype=np.intp)
        pool.terms = [self.terms[k] for k in columns]
        pool._index = {t: k for k, t in enumerate(pool.terms)}
        pool.cover = self.cover[:, columns]
        pool.neg_cost = self.neg_cost[columns]
        pool.sizes = self.sizes[columns]
        return pool

    def on_rows(self, rows: np.ndarray, weights: np.ndarray | None = None) -> ConjunctionPool:
        """The pool's columns over some of its problem's positive rows (``weights``: their costs;
        default their own). The result shares the pool's terms: read it, do not grow it."""
        P = self.problem
        out = ConjunctionPool(RuleSetProblem(P.A_pos[rows], P.pos_weight[rows] if weights is None else weights,
                                             P.A_neg, P.neg_weight, P.lam, P.budget, P.literal_cost))
        out.terms, out._index = self.terms, self._index
        out.cover, out.neg_cost, out.sizes = self.cover[rows], self.neg_cost, self.sizes
        return out

    def merged_rows(self) -> tuple[ConjunctionPool, np.ndarray | None]:
        """The pool over its positive rows merged by cover pattern, and each row's group (None
        when the rows are distinct: the pool itself).

        Rows with equal cover over every pool column are equal constraints of the master (LP or
        integer): merged into one of their summed cost, the program has the same optimum and
        the same value at every choice of columns."""
        if self.cover.shape[0] <= 1:
            return self, None
        groups = _row_groups(self.cover)
        if groups is None:
            return self, None
        first, inverse, _ = groups
        weights = np.bincount(inverse, weights=self.problem.pos_weight, minlength=first.size)
        return self.on_rows(first, weights), inverse

    def costs(self) -> np.ndarray:
        """Objective coefficients ``c_k = sum_Z v_i a_ik + lam (1 + |k|)`` (plus the literal
        costs ``e_j`` of its literals) of the pool's columns."""
        return self.neg_cost + self.problem.lam * (1.0 + self.sizes)

    def reduced_costs(self, mu: np.ndarray, nu: float) -> np.ndarray:
        """``rc_k = c_k - sum_P mu_i a_ik + nu (1 + |k|)`` of the pool's columns."""
        return self.costs() - mu @ self.cover + nu * (1.0 + self.sizes)

    def within_budget(self, chosen: np.ndarray) -> bool:
        """Whether a 0/1 choice of pool columns respects the budget ``sum (1 + |k|) <= C``."""
        budget = self.problem.budget
        return budget is None or float((1.0 + self.sizes[np.asarray(chosen, dtype=bool)]).sum()) <= budget + 1e-9

    def integer_objective(self, chosen: np.ndarray) -> float:
        """Master objective of a 0/1 choice of pool columns (uncovered positives pay ``u_i``)."""
        chosen = np.asarray(chosen, dtype=bool)
        covered = self.cover[:, chosen].any(axis=1)
        return float(self.costs()[chosen].sum() + self.problem.pos_weight[~covered].sum())


@dataclass
class MasterLP:
    """Optimal solution of the restricted master LP.

    Attributes
    ----------
    objective : float
        Optimal value.
    w : ndarray of shape (K,)
        Weights of the pool's columns.
    xi : ndarray of shape (p,)
        Slack (uncovered part) of each distinct positive row.
    mu : ndarray of shape (p,)
        Duals of the covering rows, ``0 <= mu_i <= u_i``.
    nu : float
        Dual of the budget row (0 without a budget).
    solver : str
        Back end that solved it.
    """

    objective: float
    w: np.ndarray
    xi: np.ndarray
    mu: np.ndarray
    nu: float
    solver: str


@dataclass
class MasterMIP:
    """Solution of the integer master over the pool.

    Attributes
    ----------
    chosen : ndarray of bool, shape (K,)
        The pool columns in the rule set.
    objective : float
        Master objective of ``chosen`` (:meth:`ConjunctionPool.integer_objective`).
    bound : float
        Lower bound on the integer optimum over the pool: the solver's proved bound, and at
        least the master LP's value.
    gap : float
        ``(objective - bound) / max(|objective|, tiny)``: 0 when proved optimal.
    status : str
        ``"optimal"``, ``"node_limit"`` or ``"time_limit"`` (stopped with an incumbent by that
        limit) or ``"rounded"`` (stopped
        without one, or the rounding of the LP was better: see :func:`~logicrules.lp.master_rounding.round_master`).
    solver : str
    seconds : float
    """

    chosen: np.ndarray
    objective: float
    bound: float
    gap: float
    status: str
    solver: str
    seconds: float


def _check_solver(solver: str) -> None:
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {', '.join(SOLVERS)}, got {solver!r}")


def _matrices(pool: ConjunctionPool):
    """Objective and ``A_ub x <= b_ub`` of the master over x = (w, xi)."""
    P = pool.problem
    p, K = P.A_pos.shape[0], len(pool)
    c = np.concatenate([pool.costs(), P.pos_weight])
    rows = [-sparse.hstack([sparse.csr_array(pool.cover.astype(np.float64)), sparse.identity(p, format="csr")])]
    b = [-np.ones(p)]
    if P.budget is not None:
        rows.append(sparse.csr_array(np.concatenate([1.0 + pool.sizes, np.zeros(p)])[None, :]))
        b.append(np.array([P.budget]))
    return c, sparse.vstack(rows, format="csr"), np.concatenate(b), K, p


def solve_master_lp(pool: ConjunctionPool, solver: str = "highs", time_limit: float | None = None) -> MasterLP:
    """Solve the restricted master LP over the pool and return its primal and duals.

    Parameters
    ----------
    pool : ConjunctionPool
        The columns (and, through ``pool.problem``, the instance).
    solver : {"highs", "pulp"}, default "highs"
        SciPy's ``linprog(method="highs")`` without presolve (duals from
        ``res.ineqlin.marginals``), or PuLP (HiGHS through highspy when installed, else CBC;
        duals from ``constraint.pi``). HiGHS's presolve costs more than it saves on this LP
        (one slack per row, few columns): a sampled master of 63,314 rows x 100 columns took
        3.9 s of CPU with it and 1.6 s without.
    time_limit : float, optional
        Seconds; an LP that stops without an optimum raises :class:`SolverError`.

    Returns
    -------
    MasterLP

    Examples
    --------
    >>> A = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    >>> pool = ConjunctionPool(build_rule_set_problem(A, [1, 1, 0], lam=0.1))
    >>> _ = pool.add([(0,), (1,)])
    >>> lp = solve_master_lp(pool)
    >>> round(lp.objective, 6), lp.w.round(6).tolist(), lp.mu.round(6).tolist()
    (0.2, [1.0, 0.0], [0.2, 0.0])
    """
    _check_solver(solver)
    P = pool.problem
    p = P.A_pos.shape[0]
    if p == 0:
        return MasterLP(0.0, np.zeros(len(pool)), np.zeros(0), np.zeros(0), 0.0, solver)
    if solver == "pulp":
        return _pulp_master(pool, integral=False, time_limit=time_limit)[0]
    c, A_ub, b_ub, K, p = _matrices(pool)
    require_model_memory(A_ub.nnz, A_ub.shape[0], A_ub.shape[1], "the master LP over the conjunction pool")
    options = {"presolve": False}  # see the docstring
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    res = optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=(0, None), method="highs", options=options)
    if res.status != 0 or res.x is None:
        raise SolverError(f"the master LP stopped without an optimum (scipy linprog status {res.status}: "
                          f"{res.message}); raise time_limit or shrink the problem")
    marginals = -np.asarray(res.ineqlin.marginals, dtype=np.float64)  # d objective / d b, sign flipped
    mu = np.clip(marginals[:p], 0.0, P.pos_weight)
    nu = max(0.0, float(marginals[p])) if P.budget is not None else 0.0  # budget row: <= C
    w = np.maximum(res.x[:K], 0.0)
    xi = np.maximum(0.0, 1.0 - pool.cover @ w)
    return MasterLP(float(pool.costs() @ w + P.pos_weight @ xi), w, xi, mu, nu, "highs")


def solve_master_mip(pool: ConjunctionPool, solver: str = "highs", time_limit: float | None = None,
                     lp: MasterLP | None = None, node_limit: int | None = None) -> MasterMIP:
    """Solve the integer master (binary w) over the pool, under a node and a time limit, with its gap.

    Parameters
    ----------
    pool : ConjunctionPool
    solver : {"highs", "pulp"}, default "highs"
        HiGHS MIP: through highspy when installed (started from the rounding of the LP, so
        never worse than it: :func:`~logicrules.lp.highs_mip.solve_mip_highs`), else through
        SciPy's ``milp`` (no start); or PuLP (CBC or HiGHS, time limit only).
    time_limit : float, optional
        Seconds (wall clock, so a result stopped by it depends on the machine's load: use it
        as a safety net and ``node_limit`` as the limit). Stopped with an incumbent, the
        incumbent is used (``status="time_limit"`` or ``"node_limit"``, gap reported); without
        one, the LP solution is rounded (:func:`~logicrules.lp.master_rounding.round_master`);
        the rounding also replaces an incumbent it beats.
    lp : MasterLP, optional
        The master LP's optimum over this pool (solved when not given). Its rounding gives an
        upper bound U, and every column with ``z_LP + rc_k > U`` is left out of the integer
        program (reduced-cost fixing: exact, such a column is in no rule set better than U);
        its value is also a lower bound.
    node_limit : int, optional
        Most branch-and-bound nodes of HiGHS (``mip_max_nodes``; highspy and SciPy): a limit on
        work, so the result is the same at any load. Not applied by PuLP, whose solvers take
        only the time limit. None: no limit.

    Returns
    -------
    MasterMIP

    Examples
    --------
    >>> A = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    >>> pool = ConjunctionPool(build_rule_set_problem(A, [1, 1, 0], lam=0.1))
    >>> _ = pool.add([(0,), (1,)])
    >>> mip = solve_master_mip(pool)
    >>> mip.chosen.tolist(), round(mip.objective, 6), mip.gap
    ([True, False], 0.2, 0.0)
    """
    _check_solver(solver)
    start = time.perf_counter()
    P = pool.problem
    K, p = len(pool), P.A_pos.shape[0]
    if K == 0 or p == 0:
        chosen = np.zeros(K, dtype=bool)
        value = pool.integer_objective(chosen)
        return MasterMIP(chosen, value, value, 0.0, "optimal", solver, time.perf_counter() - start)
    lp = lp if lp is not None else solve_master_lp(pool, solver=solver)
    rounded = round_master(pool, lp.w)
    upper = pool.integer_objective(rounded)
    # reduced-cost fixing: a rule set using column k costs >= z_LP + rc_k, so columns with
    # z_LP + rc_k > upper are in no rule set better than the rounding (which keeps its columns)
    keep = np.flatnonzero((lp.objective + pool.reduced_costs(lp.mu, lp.nu) <= upper + P.tolerance()) | rounded)
    if keep.size == 0:  # no column can beat the empty rule set
        return MasterMIP(rounded, upper, upper, 0.0, "optimal", solver, time.perf_counter() - start)
    # the integer program over the kept columns, its rows merged by their cover over those columns
    # (rows no kept column tells apart are one constraint): the same program, often far smaller
    kept, _ = pool.subset(keep).merged_rows()
    x, bound, status, name = _solve_mip(kept, solver, time_limit, node_limit, rounded[keep])
    chosen = rounded
    if x is not None:
        chosen = np.zeros(K, dtype=bool)
        chosen[keep[x > 0.5]] = True
    value = pool.integer_objective(chosen)
    if status != "optimal" and (x is None or pool.integer_objective(rounded) < value - P.tolerance()):
        chosen, value, status = rounded, upper, "rounded"
    if status == "optimal":
        bound = value
    bound = lp.objective if bound is None else max(bound, lp.objective)
    gap = max(0.0, value - bound) / max(abs(value), 1e-12)
    return MasterMIP(chosen, value, bound, gap, status, name, time.perf_counter() - start)


def _solve_mip(pool: ConjunctionPool, solver: str, time_limit: float | None, node_limit: int | None,
               start: np.ndarray):
    """The integer master: (column values or None, proved bound or None, status, solver name)."""
    if solver == "pulp":
        return _pulp_master(pool, integral=True, time_limit=time_limit)[1]
    if importlib.util.find_spec("highspy") is not None:
        from logicrules.lp.highs_mip import solve_mip_highs

        return solve_mip_highs(_matrices(pool), pool.cover, start, node_limit, time_limit)
    c, A_ub, b_ub, K, p = _matrices(pool)
    options = {"mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    if node_limit is not None:
        options["node_limit"] = int(node_limit)
    res = optimize.milp(c, integrality=np.concatenate([np.ones(K), np.zeros(p)]),
                        bounds=optimize.Bounds(0, np.ones(K + p)),
                        constraints=optimize.LinearConstraint(A_ub, -np.inf, b_ub), options=options)
    if res.status not in (0, 1):
        raise SolverError(f"the integer master failed (scipy milp status {res.status}: {res.message})")
    bound = getattr(res, "mip_dual_bound", None)
    bound = float(bound) if bound is not None and np.isfinite(bound) else None
    x = res.x[:K] if res.x is not None else None
    limit = "time_limit" if node_limit is None or "time" in str(res.message).lower() else "node_limit"
    return x, bound, "optimal" if res.status == 0 else limit, "highs-milp"


def _pulp_master(pool: ConjunctionPool, integral: bool, time_limit: float | None):
    """The master in PuLP: (MasterLP or None, (x, bound, status, name) or None)."""
    import pulp

    P = pool.problem
    K, p = len(pool), P.A_pos.shape[0]
    backend = pulp_backend()
    name = f"pulp-{backend.__name__}"
    model = pulp.LpProblem("dnf_master", pulp.LpMinimize)
    new_variable = getattr(model, "add_variable", None) or pulp.LpVariable  # PuLP >= 3.3 / older
    category = pulp.LpBinary if integral else pulp.LpContinuous
    w = [new_variable(f"w_{k}", 0, 1 if integral else None, cat=category) for k in range(K)]
    xi = [new_variable(f"xi_{i}", 0, 1 if integral else None) for i in range(p)]
    costs = pool.costs()
    model += (pulp.lpSum(float(costs[k]) * w[k] for k in range(K))
              + pulp.lpSum(float(P.pos_weight[i]) * xi[i] for i in range(p)))
    rows = []
    for i in range(p):  # model building in PuLP is row by row by design
        constraint = pulp.lpSum(w[k] for k in np.flatnonzero(pool.cover[i])) + xi[i] >= 1
        model += constraint, f"cover_{i}"
        rows.append(constraint)
    budget = None
    if P.budget is not None:
        budget = pulp.lpSum(float(1 + pool.sizes[k]) * w[k] for k in range(K)) <= float(P.budget)
        model += budget, "budget"
    kwargs = {"msg": False}
    if time_limit is not None:
        kwargs["timeLimit"] = float(time_limit)
    if integral and backend is not getattr(pulp, "HiGHS", None):
        kwargs["gapRel"] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model.solve(backend(**kwargs))
    status = pulp.LpStatus[model.status]
    # a column in no constraint and of cost 0 is left out of the model by PuLP: its value is 0
    values = np.array([v.value() or 0.0 for v in w], dtype=np.float64)
    if integral:
        if status == "Optimal":
            return None, (values, None, "optimal", name)
        if model.sol_status == pulp.LpSolutionIntegerFeasible:
            return None, (values, None, "time_limit", name)
        return None, (None, None, "time_limit", name)
    if status != "Optimal":
        raise SolverError(f"the master LP stopped without an optimum (PuLP status {status!r}); raise "
                          "time_limit or shrink the problem")
    mu = np.clip(np.array([c.pi for c in rows], dtype=np.float64), 0.0, P.pos_weight)
    nu = max(0.0, -float(budget.pi)) if budget is not None else 0.0
    wv = np.maximum(values, 0.0)
    xiv = np.maximum(0.0, 1.0 - pool.cover @ wv)
    return MasterLP(float(costs @ wv + P.pos_weight @ xiv), wv, xiv, mu, nu, name), None
