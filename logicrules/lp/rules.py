"""Rules from the group-testing LP: OR/AND clauses, DNF/CNF rule sets, m-of-n checklists.

All learners work on a boolean matrix ``A`` (rows = examples, columns = literals) and a boolean
target, with ``lam`` the cost of one literal in units of one (weighted) error, and return column
indices; :mod:`logicrules.lp.estimator` turns them into formulas.

- OR-rule (one clause): the LP (19), rounded (best threshold, or greedy cover when better) or
  solved as an integer program (``rounding="exact"``).
- AND-rule by De Morgan: ``AND_{j in S} x_j = NOT OR_{j in S} NOT x_j``, so an OR-rule learned on
  the complemented literals ``~A`` for the complemented label ``~y`` gives the conjunction.
- DNF by sequential covering: learn a conjunction, remove the positives it covers, repeat while
  the new term lowers the training objective, up to ``max_clauses`` terms. CNF is the De Morgan
  dual: a DNF learned on ``~A`` for ``~y``, read as clauses over ``A``.
- m-of-n (threshold group testing): the rule fires when at least m of the n chosen literals hold.
  For each m the LP ``A_P w + xi >= m``, ``A_Z w - zeta <= m - 1``, ``0 <= w <= 1`` (errors in
  units of missing / surplus literals, so m = 1 is the LP (10)) chooses the literals; the final
  (literals, m) pair is picked by its exact training objective. Large instances are solved by
  row generation from a row sample over packed rows (:mod:`logicrules.lp.mofn_rows`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import sparse

from logicrules import memory
from logicrules.lp.model import GroupTestingProblem, class_costs, problem_from_rows
from logicrules.lp.mofn_rows import ChecklistRows, best_checklist, solve_threshold_lp
from logicrules.lp.sampling import solve_with_row_sampling
from logicrules.lp.rule_choice import best_gain, choose_rule
from logicrules.lp.screening import greedy_cover, solve_with_screening, threshold_rules
from logicrules.lp.solvers import LPResult, solve_problem
from logicrules.threads import map_in_threads, thread_count
from logicrules.validation import as_boolean_matrix, as_boolean_target, check_count, check_seed

__all__ = ["ClauseFit", "RuleSetFit", "MofNFit", "learn_or_rule", "learn_and_rule", "learn_dnf", "learn_cnf",
           "learn_m_of_n", "learn_checklist", "m_of_n_predict"]


@dataclass
class ClauseFit:
    """One clause learned by the LP: column indices and solve statistics; ``tied`` the column
    indices of every rounding tied with it at the least objective, in the preference order of
    :func:`~logicrules.lp.rule_choice.choose_rule` (empty when the rule is the integer optimum)."""

    columns: np.ndarray
    result: LPResult
    objective: float
    tied: list[np.ndarray] = field(default_factory=list)


@dataclass
class RuleSetFit:
    """Terms (DNF) or clauses (CNF), each a column-index array; ``fits`` has every LP solved
    (the last one may have been rejected because it did not lower the objective)."""

    terms: list[np.ndarray]
    fits: list[ClauseFit] = field(default_factory=list)


@dataclass
class MofNFit:
    """An m-of-n rule: the n chosen columns and the threshold m; ``lp_objectives`` the LP optimum
    per m, ``groups`` the most constraints (row groups) of a final LP of the row generation
    (None without row sampling, when every distinct row has its own)."""

    columns: np.ndarray
    m: int
    objective: float
    seconds: float
    lp_objectives: dict[int, float] = field(default_factory=dict)
    optimal: bool = True
    groups: int | None = None


def _check_data(A, y) -> tuple[np.ndarray, np.ndarray]:
    """A as a 2-D bool matrix and y as a bool target of one entry per row (0/1 values only)."""
    if sparse.issparse(A):
        raise TypeError("A must be a dense boolean matrix; convert a sparse one with A.toarray()")
    A = as_boolean_matrix(A, name="A")
    return A, as_boolean_target(y, A.shape[0])


def _sampling_fraction(row_sampling, n_positive: int) -> float | None:
    if row_sampling is None:
        return None
    if row_sampling == "auto":
        return 0.1 if n_positive > 5000 else None
    try:
        fraction = float(row_sampling)
    except (TypeError, ValueError):
        fraction = np.nan
    if not 0 < fraction <= 1:
        raise ValueError(f"row_sampling must be None, 'auto' or a fraction in (0, 1], got {row_sampling!r}")
    return fraction


def learn_or_rule(A, y, lam: float, *, weights=None, solver: str = "highs", screening: bool = True,
                  row_sampling=None, rounding: str = "threshold", time_limit: float | None = None,
                  random_state=None, sample_weight=None) -> ClauseFit:
    """Learn one OR-clause (the columns of a disjunction) with the LP.

    Parameters
    ----------
    A : array-like of bool, shape (n, m)
        Literal matrix.
    y : array-like of bool, shape (n,)
        Target (True = the clause should fire).
    lam : float
        Cost of one literal, in units of one (weighted) error.
    weights : None or pair of float
        ``(c_pos, c_neg)`` error costs.
    solver : {"highs", "pulp"}
    screening : bool
        Screen columns safely before solving (exact: same optimum).
    row_sampling : None, "auto" or float
        Solve through a row sample (:func:`solve_with_row_sampling`); "auto" samples 10% when
        there are more than 5000 positive rows.
    rounding : {"threshold", "exact"}
        "threshold": solve the LP, take the best rule among thresholds of w and the greedy cover.
        "exact": solve the integer program.
    time_limit : float, optional
        Seconds per solve (see :func:`solve_relaxation`).
    random_state : None or int
        Seeds the row sample.
    sample_weight : array-like of shape (n,), optional
        Row weights (> 0): a row of weight k costs as much as k identical rows.

    Returns
    -------
    ClauseFit

    Examples
    --------
    >>> A = np.array([[1, 0], [1, 0], [0, 1], [0, 0]], dtype=bool)
    >>> learn_or_rule(A, np.array([1, 1, 0, 0], dtype=bool), lam=0.5).columns.tolist()
    [0]
    """
    A, y = _check_data(A, y)
    return _learn_clause(A, y, ~y, lam, weights=weights, solver=solver, screening=screening,
                         row_sampling=row_sampling, rounding=rounding, time_limit=time_limit,
                         random_state=random_state, sample_weight=_sample_weight(sample_weight, y))


def _learn_clause(A: np.ndarray, positive: np.ndarray, negative: np.ndarray, lam: float, *,
                  complement: bool = False, weights=None, solver: str = "highs", screening: bool = True,
                  row_sampling=None, rounding: str = "threshold", time_limit: float | None = None,
                  random_state=None, sample_weight: np.ndarray | None = None) -> ClauseFit:
    """:func:`learn_or_rule` on the rows ``positive`` / ``negative`` of A (or of ``~A`` with
    ``complement``), without copying the negative rows or complementing A."""
    problem = problem_from_rows(A, positive, negative, lam, weights, complement=complement,
                                sample_weight=sample_weight)
    with memory.held(_nbytes(problem.A_pos)):   # the positive rows' copy stays alive while the LPs are solved
        return solve_clause(problem, solver=solver, screening=screening, row_sampling=row_sampling,
                            rounding=rounding, time_limit=time_limit, random_state=random_state)


def _nbytes(A) -> int:
    """Bytes of a dense or CSR matrix."""
    return int(A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) if sparse.issparse(A) else int(A.nbytes)


def solve_clause(problem: GroupTestingProblem, *, solver: str = "highs", screening: bool = True,
                 row_sampling=None, rounding: str = "threshold", time_limit: float | None = None,
                 random_state=None) -> ClauseFit:
    """Learn the OR-clause of a prepared LP (19): solve it, then round (see :func:`learn_or_rule`).

    Examples
    --------
    >>> from logicrules.lp.model import build_problem
    >>> solve_clause(build_problem([[1, 0], [1, 1]], [[0, 1]], lam=0.5)).columns.tolist()
    [0]
    """
    if rounding not in ("threshold", "exact"):
        raise ValueError(f"rounding must be 'threshold' or 'exact', got {rounding!r}")
    integral = rounding == "exact"
    fraction = _sampling_fraction(row_sampling, problem.n_rows)
    if fraction is not None and problem.n_rows > 1:
        result = solve_with_row_sampling(None, None, problem.lam, fraction, problem=problem, solver=solver,
                                         integral=integral, time_limit=time_limit, random_state=random_state)
    elif screening:
        result = solve_with_screening(problem, solver=solver, integral=integral, time_limit=time_limit)
    else:
        result = solve_problem(problem, solver=solver, integral=integral, time_limit=time_limit)
    if integral:
        return ClauseFit(np.flatnonzero(result.w > 0.5), result, result.objective)
    W, scores = threshold_rules(problem, result.w)
    empty, greedy = np.zeros(problem.n_columns, dtype=bool), greedy_cover(problem)
    value, rule, tied = choose_rule([problem.integer_objective(empty), problem.integer_objective(greedy), *scores],
                                    [empty, greedy, *W.T])
    return ClauseFit(np.flatnonzero(rule), result, value, tied)


def learn_and_rule(A, y, lam: float, *, weights=None, **options) -> ClauseFit:
    """Learn one conjunction by De Morgan: an OR-rule on ``~A`` for ``~y``.

    The returned columns S mean ``AND_{j in S} A[:, j]``; no column means the constant TRUE.
    ``weights = (c_pos, c_neg)`` keep their meaning for the original label.

    Examples
    --------
    >>> A = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool)
    >>> learn_and_rule(A, np.array([1, 0, 0, 0], dtype=bool), lam=0.1).columns.tolist()
    [0, 1]
    """
    A, y = _check_data(A, y)
    c_pos, c_neg = class_costs(weights)
    sample_weight = _sample_weight(options.pop("sample_weight", None), y)
    return _learn_clause(A, ~y, y, lam, complement=True, weights=(c_neg, c_pos), sample_weight=sample_weight,
                         **options)


def learn_dnf(A, y, lam: float, max_clauses: int = 5, *, weights=None, sample_weight=None,
              **options) -> RuleSetFit:
    """Sequential covering: a DNF (OR of conjunctions) of at most ``max_clauses`` terms.

    Each round learns a conjunction on the positives not yet covered plus all negatives, and
    keeps it only when it lowers the training objective ``lam * size + c_pos * FN + c_neg * FP``.
    When the round's LP has several tied roundings, the one that lowers the objective most is
    taken (:func:`~logicrules.lp.rule_choice.best_gain`): never a term already in the set.

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 1, 1],
    ...               [0, 1, 0], [1, 0, 0], [0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=bool)
    >>> y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0], dtype=bool)
    >>> [t.tolist() for t in learn_dnf(A, y, lam=0.1).terms]
    [[2], [0, 1]]
    """
    A, y = _check_data(A, y)
    return _cover(A, y, lam, max_clauses, class_costs(weights), _sample_weight(sample_weight, y), options)


def _cover(A: np.ndarray, y: np.ndarray, lam: float, max_clauses, costs: tuple[float, float],
           sw: np.ndarray | None, options: dict, *, complemented: bool = False) -> RuleSetFit:
    """Sequential covering of :func:`learn_dnf` over the literals A, or over ``~A`` when
    ``complemented`` (the CNF's De Morgan dual), without materializing ``~A``: a term over
    ``~A`` fires where none of its columns of A holds."""
    max_clauses = check_count(max_clauses, "max_clauses")
    c_pos, c_neg = costs
    row_weight = np.ones(len(y)) if sw is None else sw
    remaining = y.copy()
    predicted = np.zeros_like(y)
    fit = RuleSetFit([])
    with memory.held(A.nbytes):   # inside a fit, the literal rows are the fit's own (its distinct rows)
        for _ in range(max_clauses):
            if not remaining.any():
                break
            clause = _learn_clause(A, ~y, remaining, lam, complement=not complemented, weights=(c_neg, c_pos),
                                   sample_weight=sw, **options)
            steps = []
            for columns in clause.tied or [clause.columns]:
                fires = ~A[:, columns].any(axis=1) if complemented else A[:, columns].all(axis=1)
                new_tp = float(row_weight[fires & remaining].sum())
                new_fp = float(row_weight[fires & ~y & ~predicted].sum())
                steps.append((c_pos * new_tp - c_neg * new_fp - lam * columns.size, columns, fires))
            gain, columns, fires = steps[best_gain([step[0] for step in steps])]
            clause = replace(clause, columns=columns)
            fit.fits.append(clause)
            if gain <= 0:
                break
            fit.terms.append(clause.columns)
            remaining &= ~fires
            predicted |= fires
    return fit


def learn_cnf(A, y, lam: float, max_clauses: int = 5, *, weights=None, **options) -> RuleSetFit:
    """A CNF (AND of OR-clauses) by De Morgan: a DNF learned on ``~A`` for ``~y`` (without
    materializing ``~A``: no copy of the literal matrix).

    Each returned column set T means the clause ``OR_{j in T} A[:, j]``.

    Examples
    --------
    >>> A = np.array([[1, 0], [0, 1], [0, 0], [0, 0]], dtype=bool)
    >>> [t.tolist() for t in learn_cnf(A, np.array([1, 1, 0, 0], dtype=bool), lam=0.1).terms]
    [[0, 1]]
    """
    A, y = _check_data(A, y)
    c_pos, c_neg = class_costs(weights)
    sw = _sample_weight(options.pop("sample_weight", None), y)
    return _cover(A, ~y, lam, max_clauses, (c_neg, c_pos), sw, options, complemented=True)


def m_of_n_predict(A, columns, m: int) -> np.ndarray:
    """Rows where at least m of the given columns are true (the m-of-n rule).

    Examples
    --------
    >>> m_of_n_predict(np.array([[1, 1, 0], [1, 0, 0]], dtype=bool), [0, 1, 2], 2).tolist()
    [True, False]
    """
    A = as_boolean_matrix(A, name="A")
    columns = np.asarray(columns, dtype=np.intp).reshape(-1)
    if columns.size and not (0 <= columns.min() and columns.max() < A.shape[1]):
        raise ValueError(f"columns must be positions of A's {A.shape[1]} columns, got {columns.tolist()[:10]}")
    return A[:, columns].sum(axis=1) >= check_count(m, "m", minimum=0)


def _sample_weight(sample_weight, y: np.ndarray) -> np.ndarray | None:
    """Row weights as floats (None stays None), one per row, all > 0."""
    if sample_weight is None:
        return None
    sw = np.asarray(sample_weight, dtype=np.float64).ravel()
    if sw.shape != y.shape:
        raise ValueError(f"sample_weight must have one weight per row ({y.size}), got shape {sw.shape}")
    if not (np.isfinite(sw).all() and (sw > 0).all()):
        raise ValueError("sample_weight must hold finite weights > 0 (leave rows of weight 0 out)")
    return sw


def learn_m_of_n(A, y, lam: float, *, max_m: int = 3, weights=None, rounding: str = "threshold",
                 time_limit: float | None = None, max_terms: int | None = None,
                 sample_weight=None, row_sampling=None, random_state=None) -> MofNFit:
    """Learn an m-of-n checklist by threshold group testing.

    For each m in 1..max_m the (integer or relaxed) threshold LP selects literals; for every
    threshold t of its w the literal set ``{j: w_j >= t}`` is combined with every m' (with
    ``max_terms``, only those whose rule has at most that many DNF terms, ``C(n, m') <=
    max_terms``, for a rule that must be expanded), and the pair with the least exact training
    objective ``lam * n + c_pos * FN + c_neg * FP`` wins (ties: fewer literals). Identical rows
    are merged into weighted rows; with ``row_sampling`` each LP is solved by row generation
    from a row sample (:func:`~logicrules.lp.mofn_rows.solve_threshold_lp`), to the same optimum.

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    >>> fit = learn_m_of_n(A, np.array([1, 1, 1, 0, 0, 0], dtype=bool), lam=0.1)
    >>> fit.columns.tolist(), fit.m
    ([0, 1, 2], 2)
    """
    A, y = _check_data(A, y)
    rows = ChecklistRows.from_dense(A, y, _sample_weight(sample_weight, y))
    return learn_checklist(rows, lam, max_m=max_m, weights=weights, rounding=rounding, time_limit=time_limit,
                           max_terms=max_terms, row_sampling=row_sampling, random_state=random_state)


def learn_checklist(rows: ChecklistRows, lam: float, *, max_m: int = 3, weights=None, rounding: str = "threshold",
                    time_limit: float | None = None, max_terms: int | None = None, row_sampling=None,
                    random_state=None, n_jobs: int | None = None) -> MofNFit:
    """:func:`learn_m_of_n` on distinct weighted packed rows (:class:`~logicrules.lp.mofn_rows.ChecklistRows`).

    ``row_sampling``: None, "auto" (10% when there are more than 5000 distinct rows) or a
    fraction in (0, 1]; the LPs' optimum does not depend on it. With row sampling the LPs of
    the m's (small relaxations over row groups) run side by side in ``n_jobs`` threads (None:
    one per available core, at most one per m; :mod:`logicrules.threads`); without it, one
    after another (each LP's model has a constraint per row). Each m draws its samples from its
    own generator (spawned from ``random_state``), so the result does not depend on ``n_jobs``.

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    >>> rows = ChecklistRows.from_dense(A, np.array([1, 1, 1, 0, 0, 0], dtype=bool))
    >>> learn_checklist(rows, 0.1, row_sampling=0.5).m
    2
    """
    if rounding not in ("threshold", "exact"):
        raise ValueError(f"rounding must be 'threshold' or 'exact', got {rounding!r}")
    max_m = check_count(max_m, "max_m")
    c_pos, c_neg = class_costs(weights)
    fraction = _sampling_fraction(row_sampling, rows.n_rows)
    rng = np.random.default_rng(check_seed(random_state))
    start = time.perf_counter()
    ms = list(range(1, min(max_m, rows.n_attributes) + 1))

    def solve(m: int, generator: np.random.Generator):
        return solve_threshold_lp(rows, m, lam, c_pos, c_neg, integral=rounding == "exact", time_limit=time_limit,
                                  row_sampling=None if fraction == 1 else fraction, rng=generator)

    # one generator per m, so that the samples do not depend on the order the LPs run in; without
    # sampling each LP has one constraint per row, and their models are built one at a time so
    # that each is checked against memory_limit alone
    sampled = fraction not in (None, 1)
    solved = map_in_threads(solve, ms, rng.spawn(len(ms)), threads=thread_count(len(ms), n_jobs) if sampled else 1)
    fits = dict(zip(ms, solved))
    objective, columns, m = best_checklist(rows, {m: fit.w for m, fit in fits.items()}, lam, c_pos, c_neg, max_terms)
    return MofNFit(columns=columns, m=m, objective=objective, seconds=time.perf_counter() - start,
                   lp_objectives={m: fit.objective for m, fit in fits.items()},
                   optimal=all(fit.optimal for fit in fits.values()),
                   groups=None if fraction is None else max(fit.groups for fit in fits.values()))
