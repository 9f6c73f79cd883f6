import numpy as np
import pytest
from scipy import sparse

from logicrules.lp.model import as_binary_matrix, build_problem, class_costs
from logicrules.lp.solvers import solve_relaxation

from ._reference import integer_objective, random_instance, solve_formulation_10


@pytest.mark.parametrize("seed", range(12))
def test_lp_19_equals_formulation_10(seed):
    rng = np.random.default_rng(seed)
    A_pos, A_neg = random_instance(rng, rng.integers(1, 15), rng.integers(0, 15), rng.integers(1, 9))
    lam = float(rng.choice([0.0, 0.3, 1.0, 2.5]))
    weights = (float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2)))
    res = solve_relaxation(A_pos, A_neg, lam, weights=weights)
    assert res.objective == pytest.approx(solve_formulation_10(A_pos, A_neg, lam, weights), abs=1e-7)


def test_costs_and_objectives():
    P = build_problem([[1, 0, 1], [0, 1, 0]], [[1, 1, 0], [1, 0, 0]], lam=0.5, weights=(2, 3))
    assert P.costs.tolist() == [0.5 + 3 * 2, 0.5 + 3 * 1, 0.5]
    assert P.integer_objective(np.array([False, False, True])) == pytest.approx(0.5 + 2)
    assert P.objective(np.array([0, 0.5, 1.0])) == pytest.approx(0.5 * 3.5 + 0.5 + 2 * 0.5)
    rng = np.random.default_rng(1)
    A_pos, A_neg = random_instance(rng, 9, 7, 6)
    P = build_problem(A_pos, A_neg, 0.7, weights=(1.5, 0.5))
    for _ in range(20):
        w = rng.random(6) < 0.5
        assert P.integer_objective(w) == pytest.approx(integer_objective(A_pos, A_neg, 0.7, w, (1.5, 0.5)))


def test_sparse_and_dense_inputs_agree():
    rng = np.random.default_rng(2)
    A_pos, A_neg = random_instance(rng, 20, 20, 10)
    dense = solve_relaxation(A_pos, A_neg, 1.0)
    sp = solve_relaxation(sparse.csr_matrix(A_pos.astype(int)), sparse.coo_array(A_neg), 1.0)
    assert dense.objective == pytest.approx(sp.objective)


def test_inputs_are_not_modified():
    A_pos = np.array([[1, 0], [1, 1]])
    S = sparse.csr_array(A_pos)
    as_binary_matrix(S, "A").data[:] = 5
    assert S.toarray().tolist() == [[1, 0], [1, 1]]


@pytest.mark.parametrize("bad, match", [
    (np.array([[0, 2]]), "only 0 and 1"),
    (np.array([[0, np.nan]]), "only 0 and 1"),
    (np.array([1, 0]), "2-D"),
    (np.array([["a", "b"]]), "0/1 numbers"),
])
def test_bad_matrices(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        build_problem(bad, np.zeros((1, 2)), 1.0)


def test_bad_parameters():
    with pytest.raises(ValueError, match="same columns"):
        build_problem(np.ones((2, 3)), np.ones((2, 2)), 1.0)
    with pytest.raises(ValueError, match="lam"):
        build_problem(np.ones((2, 3)), np.ones((2, 3)), -1.0)
    with pytest.raises(ValueError, match="> 0"):
        class_costs((1, 0))
    with pytest.raises(TypeError, match="pair"):
        class_costs("balanced")
