"""Row sampling (paper's section 5.3 and appendix 3): solve on a sample, extend the dual, screen.

The LP (19) has one constraint per positive row; the negative rows only enter the column costs.
Solving the LP on a sample of the positive rows, with the costs scaled by the sample fraction (as
if the negatives were sampled at the same rate), gives a dual mu_hat that is feasible for the full
dual (20) once padded with zeros (the full costs are larger, and there are more rows). :func:`extend_dual` raises the unseen rows greedily (H1; H2 skips rows the sample's
primal covers more than once, whose dual is 0 at the optimum by complementary slackness), which
gives a good lower bound and a good dual for screening the full problem.
:func:`solve_with_row_sampling` ties it together and returns the exact optimum of the full LP.
"""

from __future__ import annotations

import time

import numpy as np

from logicrules.lp.model import GroupTestingProblem, build_problem, row_counts
from logicrules.lp.screening import greedy_fill, repair_dual, solve_with_screening
from logicrules.lp.solvers import LPResult, solve_problem
from logicrules.validation import check_seed

__all__ = ["HEURISTICS", "extend_dual", "extend_problem_dual", "solve_with_row_sampling", "sample_rows"]

#: Names of the dual extension heuristics.
HEURISTICS = ("H1", "H2")


def extend_dual(A_pos, A_neg, lam: float, sample, sample_dual, heuristic: str = "H1", w=None,
                weights=None) -> np.ndarray:
    """Extend the dual of the LP on sampled positive rows to a feasible dual of the full LP.

    Parameters
    ----------
    A_pos, A_neg : array-like or sparse matrix
        0/1 rows of all positive and all negative examples.
    lam : float
        Cost of one selected column.
    sample : array-like of int
        Indices into the rows of ``A_pos`` on which the small LP was solved (all negatives are
        always used: they only set the column costs).
    sample_dual : array-like of shape (len(sample),)
        The small LP's dual mu_hat (feasible for its (20)).
    heuristic : {"H1", "H2"}
        H1: scan the unseen positive rows in increasing order and set ``mu_k = c_pos`` whenever
        the dual constraints stay satisfied. H2: the same, but leave ``mu_k = 0`` on rows with
        ``a_k w > 1``.
    w : array-like of shape (n,), optional
        The small LP's primal (required by H2).
    weights : None or pair of float, optional
        Class costs ``(c_pos, c_neg)``.

    Returns
    -------
    ndarray of shape (p,)
        A feasible dual of the full (20); its sum is a lower bound on the full optimum.

    Examples
    --------
    >>> A_pos = [[1, 0], [1, 0], [0, 1]]
    >>> extend_dual(A_pos, [[1, 1]], 1.0, sample=[0], sample_dual=[1.0]).tolist()
    [1.0, 1.0, 1.0]
    """
    problem = build_problem(A_pos, A_neg, lam, weights)
    return extend_problem_dual(problem, sample, sample_dual, heuristic=heuristic, w=w)


def extend_problem_dual(problem: GroupTestingProblem, sample, sample_dual, heuristic: str = "H1",
                        w=None) -> np.ndarray:
    """:func:`extend_dual` on a prepared :class:`GroupTestingProblem`."""
    if heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {heuristic!r}; use one of {', '.join(HEURISTICS)}")
    p = problem.n_rows
    sample = np.asarray(sample, dtype=np.intp).ravel()
    sample_dual = np.asarray(sample_dual, dtype=np.float64).ravel()
    if sample.shape != sample_dual.shape:
        raise ValueError(f"sample has {sample.size} rows but sample_dual has {sample_dual.size} values")
    if sample.size and (sample.min() < 0 or sample.max() >= p):
        raise ValueError(f"sample indices must lie in [0, {p}) (rows of A_pos)")
    if np.unique(sample).size != sample.size:
        raise ValueError("sample contains repeated row indices")
    mu = np.zeros(p)
    mu[sample] = sample_dual
    mu = repair_dual(problem, mu)
    unseen = np.ones(p, dtype=bool)
    unseen[sample] = False
    if heuristic == "H2":
        if w is None:
            raise ValueError("heuristic 'H2' needs the sample's primal solution w")
        w = np.asarray(w, dtype=np.float64).ravel()
        if w.shape != (problem.n_columns,):
            raise ValueError(f"w must have one value per column ({problem.n_columns}), got {w.size}")
        unseen &= problem.coverage(w) <= 1.0 + 1e-9
    return greedy_fill(problem, mu, np.flatnonzero(unseen), fractional=False)


def sample_rows(n_rows: int, sample_size, rng: np.random.Generator) -> np.ndarray:
    """Sorted random row indices: ``sample_size`` a fraction in (0, 1] or a count >= 1."""
    if isinstance(sample_size, (float, np.floating)) and 0 < sample_size <= 1:
        size = int(np.ceil(sample_size * n_rows))
    elif isinstance(sample_size, (int, np.integer)) and not isinstance(sample_size, bool) and sample_size >= 1:
        size = int(sample_size)
    else:
        raise ValueError(f"sample_size must be a fraction in (0, 1] or a row count >= 1, got {sample_size!r}")
    size = min(max(size, 1), n_rows)
    return np.sort(rng.choice(n_rows, size=size, replace=False))


def solve_with_row_sampling(A_pos, A_neg, lam: float, sample_size=0.1, *, heuristic: str = "H2",
                            grow: bool = False, max_rounds: int = 5, solver: str = "highs", weights=None,
                            integral: bool = False, time_limit: float | None = None,
                            screen_sample: bool = True, polish: bool = True, merge_rows: bool = True,
                            random_state=None,
                            problem: GroupTestingProblem | None = None) -> LPResult:
    """Solve the full LP (or integer program) through a row sample, extended dual and screening.

    1. Solve the LP on a random sample of the positive rows, with the column costs scaled by the
       sample fraction (as if the negative rows were sampled at the same rate, like the paper;
       see :meth:`GroupTestingProblem.sample_rows`). With ``screen_sample`` the sample LP itself
       is screened and priced, still exactly.
    2. Extend its dual to all rows (:func:`extend_dual`, H1 or H2) and, with ``polish``, raise
       it further by a fractional greedy pass over all rows (raising the dual never weakens the
       screening test). This is a feasible dual of the full problem, whose value is a lower
       bound; the sample's primal, evaluated on all rows, is an upper bound. If they meet, the
       sample's solution is certified optimal and returned.
    3. With ``grow=True``, add the unseen rows the sample's primal leaves uncovered (at most
       doubling the sample) and repeat, up to ``max_rounds`` times.
    4. Otherwise screen the full problem with the extended dual and the best integral rule
       (rounding the sample's primal, greedy cover), solve it on the kept columns by row
       generation from the sample (the sample's rows plus every row the solution leaves
       uncovered, until none is: exact, and usually far fewer rows than all) and price the
       screened columns back in when needed (:func:`solve_with_screening` with ``rows``).

    The result is always the optimum of the full problem (same value as
    :func:`solve_relaxation`), with a dual feasible for the full (20).

    Parameters
    ----------
    A_pos, A_neg, lam, solver, weights, integral, time_limit
        As in :func:`solve_relaxation`.
    sample_size : float or int, default 0.1
        Fraction (0, 1] or number of positive rows in the first sample.
    heuristic : {"H1", "H2"}, default "H2"
    grow : bool, default False
        Grow the sample until the bounds certify optimality (or ``max_rounds``).
    screen_sample : bool, default True
        Solve the sample LP with screening and pricing (:func:`solve_with_screening`).
    polish : bool, default True
        Raise the extended dual by a fractional greedy pass (sparsest rows first).
    merge_rows : bool, default True
        Merge identical positive rows in every solve (exact; see :func:`solve_relaxation`).
    random_state : None, int or numpy Generator
    problem : GroupTestingProblem, optional
        A prebuilt problem (then A_pos, A_neg, lam and weights are ignored and may be None).

    Returns
    -------
    LPResult
        ``rows_sampled`` is the final sample size, ``details`` records each round and
        ``rows_solved``, the rows of the last reduced problem.

    Examples
    --------
    >>> from logicrules.lp.solvers import solve_relaxation
    >>> rng = np.random.default_rng(0)
    >>> A_pos, A_neg = rng.random((200, 30)) < 0.2, rng.random((200, 30)) < 0.05
    >>> full = solve_relaxation(A_pos, A_neg, 1.0)
    >>> sampled = solve_with_row_sampling(A_pos, A_neg, 1.0, 0.2, random_state=0)
    >>> bool(abs(full.objective - sampled.objective) < 1e-6)
    True
    """
    start = time.perf_counter()
    if problem is None:
        problem = build_problem(A_pos, A_neg, lam, weights)
    if heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {heuristic!r}; use one of {', '.join(HEURISTICS)}")
    rng = np.random.default_rng(check_seed(random_state))
    p = problem.n_rows
    tol = problem.tolerance()
    rows = sample_rows(p, sample_size, rng) if p else np.zeros(0, dtype=np.intp)
    history = []
    for _ in range(max(1, int(max_rounds))):
        sub = problem.sample_rows(rows)
        if screen_sample:
            small = solve_with_screening(sub, solver=solver, time_limit=time_limit, merge_rows=merge_rows)
        else:
            small = solve_problem(sub, solver=solver, time_limit=time_limit, merge_rows=merge_rows)
        mu = extend_problem_dual(problem, rows, small.dual, heuristic=heuristic, w=small.w)
        if polish:
            mu = greedy_fill(problem, mu, np.argsort(row_counts(problem.A_pos), kind="stable"),
                             fractional=True)
        lower, upper = float(mu.sum()), problem.objective(small.w)
        history.append({"rows": int(rows.size), "lower": lower, "upper": upper, "seconds": small.seconds})
        if not integral and upper - lower <= tol:
            xi = np.maximum(0.0, 1.0 - problem.coverage(small.w))
            return LPResult(objective=upper, w=small.w, xi=xi, dual=mu, status="optimal",
                            seconds=time.perf_counter() - start, solver=small.solver, integral=False,
                            n_columns=problem.n_columns, n_rows=p, rows_sampled=int(rows.size),
                            lower_bound=lower, details={"rounds": history, "certified_by_sample": True})
        if not grow or rows.size == p:
            break
        unseen = np.ones(p, dtype=bool)
        unseen[rows] = False
        violated = np.flatnonzero(unseen & (problem.coverage(small.w) < 1.0 - 1e-9))
        if violated.size == 0:
            break
        if violated.size > rows.size:
            violated = rng.choice(violated, size=rows.size, replace=False)
        rows = np.union1d(rows, violated)
    result = solve_with_screening(problem, dual=mu, w_hint=small.w, solver=solver, integral=integral,
                                  time_limit=time_limit, merge_rows=merge_rows, rows=rows)
    result.seconds = time.perf_counter() - start
    result.rows_sampled = int(rows.size)
    result.details.update({"rounds": history, "certified_by_sample": False})
    return result
