"""Compact storage of the LP: dense bool and CSR give the same problem, kernels match references."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from logicrules.lp.model import (build_problem, matvec, problem_from_rows, rmatvec, row_max, to_csr)
from logicrules.lp.screening import greedy_cover, greedy_dual, greedy_fill, round_solution, solve_with_screening
from logicrules.lp.solvers import solve_problem

from ._reference import random_instance, solve_formulation_10


def _instance(seed):
    rng = np.random.default_rng(seed)
    p, z, n = (int(v) for v in rng.integers(1, 25, size=3))
    A_pos, A_neg = random_instance(rng, p, z, n, float(rng.uniform(0.05, 0.6)))
    return rng, A_pos, A_neg


def _greedy_cover_reference(A_pos, costs, row_costs, tol):
    """Greedy set cover recomputing every gain from scratch (the definition)."""
    A = np.asarray(A_pos, dtype=float)
    w = np.zeros(A.shape[1], dtype=bool)
    uncovered = np.ones(A.shape[0])
    while True:
        gain = (row_costs * uncovered) @ A - costs
        gain[w] = -np.inf
        if gain.size == 0 or gain.max() <= tol:
            return w
        j = int(np.argmax(gain))
        w[j] = True
        uncovered[A[:, j] > 0] = 0.0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_dense_and_sparse_storage_agree_with_references(seed, weighted):
    rng, A_pos, A_neg = _instance(seed)
    lam = float(rng.uniform(0, 3))
    rows = {}
    if weighted:
        # multiples of 1/4: every sum of weights is exact in float64, so the incremental greedy
        # cover and the recomputing reference see the same gains and break ties alike
        rows = {"pos_weight": rng.integers(1, 13, A_pos.shape[0]) / 4, "neg_weight": rng.integers(1, 13, A_neg.shape[0]) / 4}
    dense = build_problem(A_pos, A_neg, lam, **rows)
    csr = build_problem(sparse.csr_array(A_pos.astype(float)), sparse.csr_array(A_neg.astype(float)), lam, **rows)
    assert dense.A_pos.dtype == bool and sparse.issparse(csr.A_pos)
    np.testing.assert_allclose(dense.costs, csr.costs)
    u, w = rng.random(A_pos.shape[0]), rng.random(A_pos.shape[1])
    np.testing.assert_allclose(matvec(dense.A_pos, w), A_pos.astype(float) @ w)
    np.testing.assert_allclose(rmatvec(dense.A_pos, u), u @ A_pos.astype(float))
    reach = np.array([w[row].max() if row.any() else -np.inf for row in A_pos])
    np.testing.assert_array_equal(row_max(dense.A_pos, w), reach)
    np.testing.assert_array_equal(row_max(csr.A_pos, w), reach)
    np.testing.assert_array_equal(to_csr(dense.A_pos).toarray(), A_pos.astype(float))
    for problem in (dense, csr):
        mu = greedy_dual(problem)
        assert problem.dual_violation(mu) <= problem.tolerance()
        order = rng.permutation(problem.n_rows)
        for fractional in (False, True):
            np.testing.assert_allclose(greedy_fill(problem, mu * 0.5, order, fractional=fractional),
                                       greedy_fill(dense, mu * 0.5, order, fractional=fractional), atol=1e-12)
        ref = _greedy_cover_reference(A_pos, problem.costs, problem.row_costs, problem.tolerance())
        np.testing.assert_array_equal(greedy_cover(problem), ref)
        best = min(problem.integer_objective(w >= t) for t in np.unique(w))
        assert problem.integer_objective(round_solution(problem, w)) == pytest.approx(best)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_problem_from_rows_equals_sliced_problem(seed, complement):
    rng = np.random.default_rng(seed)
    rows, n = int(rng.integers(1, 30)), int(rng.integers(1, 12))
    A = rng.random((rows, n)) < rng.uniform(0.1, 0.9)
    label = rng.integers(0, 3, size=rows)          # 2 = row left out of the problem
    positive, negative = label == 1, label == 0
    B = ~A if complement else A
    sw = rng.uniform(0.5, 2, rows) if seed % 2 else None
    ref = build_problem(B[positive], B[negative], 1.5, weights=(2.0, 0.5),
                        pos_weight=None if sw is None else sw[positive],
                        neg_weight=None if sw is None else sw[negative])
    got = problem_from_rows(A, positive, negative, 1.5, weights=(2.0, 0.5), complement=complement,
                            sample_weight=sw)
    np.testing.assert_array_equal(got.A_pos, ref.A_pos)
    np.testing.assert_allclose(got.costs, ref.costs)
    np.testing.assert_allclose(got.row_costs, ref.row_costs)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_column_generation_reaches_the_full_optimum(seed, max_working):
    rng = np.random.default_rng(seed)
    A_pos, A_neg = random_instance(rng, int(rng.integers(5, 40)), int(rng.integers(0, 30)),
                                   int(rng.integers(5, 30)), float(rng.uniform(0.1, 0.5)))
    lam = float(rng.uniform(0.1, 2))
    problem = build_problem(A_pos, A_neg, lam)
    result = solve_with_screening(problem, max_working=max_working)
    assert result.objective == pytest.approx(solve_formulation_10(A_pos, A_neg, lam), abs=1e-6)
    assert result.objective == pytest.approx(solve_problem(problem).objective, abs=1e-6)
    assert problem.dual_violation(result.dual) <= problem.tolerance()
    assert result.dual.sum() == pytest.approx(result.objective, abs=1e-6)
