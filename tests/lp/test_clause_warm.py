"""The clause LPs in one live model edited in place give the optimum of cold solves, and the
screening's column and row generation through it gives the same optimum as without it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from logicrules.lp import clause_warm
from logicrules.lp.clause_warm import WarmClauseLP
from logicrules.lp.model import build_problem
from logicrules.lp.screening import solve_with_screening
from logicrules.lp.solvers import solve_problem
from logicrules.memory import MemoryBudget, MemoryLimitError

from ._reference import random_instance

pytest.importorskip("highspy")


def _problem(rng, p, n, sparse_rows=False):
    A_pos, A_neg = random_instance(rng, p, int(rng.integers(0, 40)), n, float(rng.uniform(0.1, 0.6)))
    A_pos[rng.integers(0, p, size=p // 3)] = A_pos[rng.integers(0, p, size=p // 3)]   # repeated rows
    if sparse_rows:
        A_pos = sparse.csr_array(A_pos)
    weights = (float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))) if rng.random() < 0.5 else None
    pos_weight = rng.integers(1, 4, size=p).astype(float) if rng.random() < 0.3 else None
    lam = float(rng.choice([0.0, 0.3, 1.0, 4.0]))
    return build_problem(A_pos, A_neg, lam, weights, pos_weight=pos_weight)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 10), st.sampled_from([0.0, 0.02, 10.0]),
       st.booleans())
def test_edited_model_equals_cold_solves(seed, p, n, warm_edit, sparse_rows):
    """A sequence of LPs (working columns growing or shrinking, rows joining and leaving, repeated
    rows) in one model: every value equals the cold solve's, the dual over the rows is feasible
    for the restricted problem and attains the value, and w attains it in the primal. With
    ``warm_edit`` 0 every solve is an interior point one, with 10 every edit is warm-started."""
    rng = np.random.default_rng(seed)
    problem = _problem(rng, p, n, sparse_rows)
    saved, clause_warm.WARM_EDIT = clause_warm.WARM_EDIT, warm_edit
    try:
        model = WarmClauseLP(problem)
        columns = np.flatnonzero(rng.random(n) < 0.5)
        rows = np.flatnonzero(rng.random(p) < 0.5)
        for _ in range(6):
            got = model.solve(columns, None if rows.size == p else rows)
            sub = problem.restrict_columns(columns).restrict_rows(rows)
            cold = solve_problem(sub, merge_rows=True)
            tol = 1e-7 * max(1.0, abs(cold.objective))
            assert got.status == "optimal"
            assert sub.objective(got.w) == pytest.approx(cold.objective, abs=tol)
            assert got.dual.sum() == pytest.approx(cold.objective, abs=tol)
            assert sub.dual_violation(got.dual) <= tol
            if rng.random() < 0.8:   # mostly more columns; sometimes fewer (a rebuilt model)
                columns = np.union1d(columns, np.flatnonzero(rng.random(n) < 0.2))
            else:
                columns = np.flatnonzero(rng.random(n) < 0.5)
            rows = np.flatnonzero((np.isin(np.arange(p), rows) & (rng.random(p) < 0.8)) | (rng.random(p) < 0.3))
    finally:
        clause_warm.WARM_EDIT = saved


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.02, 10.0]), st.booleans())
def test_screening_warm_equals_cold(seed, warm_edit, sampled):
    """The column and row generation of :func:`solve_with_screening` in one live model reaches the
    optimum of the cold one, with a dual feasible for the full problem."""
    rng = np.random.default_rng(seed)
    problem = _problem(rng, int(rng.integers(20, 120)), int(rng.integers(2, 16)))
    rows = np.sort(rng.choice(problem.n_rows, size=int(rng.integers(1, 10)), replace=False)) if sampled else None
    max_working = int(rng.integers(1, 8))
    saved, clause_warm.WARM_EDIT = clause_warm.WARM_EDIT, warm_edit
    try:
        warm = solve_with_screening(problem, rows=rows, max_working=max_working)
    finally:
        clause_warm.WARM_EDIT = saved
    cold = solve_with_screening(problem, rows=rows, max_working=max_working, warm=False)
    tol = 1e-6 * max(1.0, cold.objective)
    assert warm.objective == pytest.approx(cold.objective, abs=tol)
    assert warm.lower_bound == pytest.approx(cold.objective, abs=tol)
    assert problem.dual_violation(warm.dual) <= 1e-7


def test_model_over_the_memory_limit_is_refused_before_it_is_built():
    rng = np.random.default_rng(0)
    problem = build_problem(rng.random((3000, 20)) < 0.5, rng.random((100, 20)) < 0.5, lam=1.0)
    with MemoryBudget("1MB").active(), pytest.raises(MemoryLimitError, match="the clause LP"):
        WarmClauseLP(problem).solve(np.arange(20), None)
