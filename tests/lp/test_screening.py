import numpy as np
import pytest

from logicrules.lp.model import build_problem
from logicrules.lp.screening import (greedy_cover, greedy_dual, round_solution, screen_columns, screen_problem,
                                     solve_with_screening, upper_bound)
from logicrules.lp.solvers import solve_problem, solve_relaxation

from ._reference import brute_force_optima, random_instance


def _instance(seed, max_cols=9):
    rng = np.random.default_rng(seed)
    p, z, n = int(rng.integers(2, 25)), int(rng.integers(1, 25)), int(rng.integers(2, max_cols + 1))
    A_pos, A_neg = random_instance(rng, p, z, n, float(rng.uniform(0.1, 0.5)))
    lam = float(rng.choice([0.3, 1.0, 2.0]))
    weights = (float(rng.uniform(0.5, 3)), float(rng.uniform(0.3, 2))) if seed % 3 == 0 else None
    return A_pos, A_neg, lam, weights


def test_screen_columns_matches_definition():
    for seed in range(20):
        A_pos, A_neg, lam, weights = _instance(seed)
        c_pos, c_neg = weights or (1, 1)
        problem = build_problem(A_pos, A_neg, lam, weights)
        mu = greedy_dual(problem)
        V = problem.integer_objective(greedy_cover(problem))
        keep = screen_columns(A_pos, A_neg, lam, mu, V, weights=weights)
        for j in range(A_pos.shape[1]):
            bound = lam + c_neg * A_neg[:, j].sum() + mu[~A_pos[:, j]].sum()
            assert keep[j] == (bound <= V + 1e-7)


@pytest.mark.parametrize("dual_source", ["greedy", "lp"])
def test_screening_is_safe_for_the_integer_program(dual_source):
    screened_any = 0
    for seed in range(60):
        A_pos, A_neg, lam, weights = _instance(seed)
        problem = build_problem(A_pos, A_neg, lam, weights)
        lp = solve_problem(problem)
        mu = greedy_dual(problem) if dual_source == "greedy" else lp.dual
        V, _ = upper_bound(problem, lp.w)
        keep = screen_problem(problem, mu, V)
        best, optimal_rules = brute_force_optima(A_pos, A_neg, lam, weights or (1, 1))
        # no optimal integral rule uses a dropped column ...
        for rule in optimal_rules:
            assert keep[rule].all()
        # ... so the integer program on the kept columns has the same optimum
        reduced = solve_problem(problem.restrict_columns(keep), integral=True)
        assert reduced.objective == pytest.approx(best, abs=1e-7)
        screened_any += int((~keep).sum())
    assert screened_any > 0  # the test is not vacuous


def test_heuristics_are_feasible_and_bounded():
    for seed in range(30):
        A_pos, A_neg, lam, weights = _instance(seed)
        problem = build_problem(A_pos, A_neg, lam, weights)
        mu = greedy_dual(problem)
        assert problem.dual_violation(mu) <= 1e-9
        lp = solve_problem(problem)
        best, _ = brute_force_optima(A_pos, A_neg, lam, weights or (1, 1))
        assert mu.sum() <= lp.objective + 1e-7
        for rule in (greedy_cover(problem), round_solution(problem, lp.w)):
            assert problem.integer_objective(rule) >= best - 1e-7
        value, rule = upper_bound(problem, lp.w)
        assert value == pytest.approx(problem.integer_objective(rule)) and value >= best - 1e-7


def test_infeasible_dual_is_rejected():
    with pytest.raises(ValueError, match="not feasible"):
        screen_columns([[1, 1]], [[1, 0]], 0.1, dual=[5.0], upper_bound=1.0)
    with pytest.raises(ValueError, match="not feasible"):
        screen_columns([[1, 1]], [[1, 0]], 0.1, dual=[-1.0], upper_bound=1.0)


@pytest.mark.parametrize("integral", [False, True])
def test_solve_with_screening_reaches_the_plain_optimum(integral):
    total_screened = 0
    for seed in range(25):
        rng = np.random.default_rng(500 + seed)
        A_pos, A_neg = random_instance(rng, 60, 60, 25, float(rng.uniform(0.05, 0.4)))
        lam = float(rng.choice([0.5, 2.0, 5.0]))
        problem = build_problem(A_pos, A_neg, lam)
        plain = solve_problem(problem, integral=integral)
        fast = solve_with_screening(problem, integral=integral)
        assert fast.objective == pytest.approx(plain.objective, abs=1e-6)
        if not integral:
            assert problem.dual_violation(fast.dual) <= 1e-7
            assert fast.dual.sum() == pytest.approx(fast.objective, abs=1e-6)
        total_screened += fast.columns_screened
    assert total_screened > 0


def test_public_entry_point_matches_plain_lp():
    rng = np.random.default_rng(3)
    A_pos, A_neg = random_instance(rng, 40, 40, 12)
    res = solve_relaxation(A_pos, A_neg, 1.0)
    problem = build_problem(A_pos, A_neg, 1.0)
    keep = screen_columns(A_pos, A_neg, 1.0, res.dual, upper_bound(problem, res.w)[0])
    assert keep.dtype == bool and keep.shape == (12,)
    full = solve_relaxation(A_pos, A_neg, 1.0, integral=True)
    reduced = solve_relaxation(A_pos[:, keep], A_neg[:, keep], 1.0, integral=True)
    assert reduced.objective == pytest.approx(full.objective)
