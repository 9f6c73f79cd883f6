import warnings

import numpy as np
import pytest

from logicrules.lp.model import build_problem
from logicrules.lp.solvers import SolverError, SolverWarning, solve_relaxation

from ._reference import brute_force_optima, random_instance, solve_dual_20


def _instances(count, max_cols=8):
    for seed in range(count):
        rng = np.random.default_rng(100 + seed)
        A_pos, A_neg = random_instance(rng, int(rng.integers(1, 16)), int(rng.integers(0, 16)),
                                       int(rng.integers(1, max_cols + 1)), float(rng.uniform(0.15, 0.5)))
        lam = float(rng.choice([0.2, 0.5, 1.0, 3.0]))
        weights = (float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))) if seed % 2 else None
        yield A_pos, A_neg, lam, weights


@pytest.mark.parametrize("solver", ["highs", "pulp"])
def test_strong_duality_and_dual_feasibility(solver):
    for A_pos, A_neg, lam, weights in _instances(10):
        res = solve_relaxation(A_pos, A_neg, lam, solver=solver, weights=weights)
        problem = build_problem(A_pos, A_neg, lam, weights)
        assert res.status == "optimal" and res.optimal
        assert res.dual.shape == (A_pos.shape[0],) and res.w.shape == (A_pos.shape[1],)
        assert problem.dual_violation(res.dual) <= 1e-7
        assert res.dual.sum() == pytest.approx(res.objective, abs=1e-6)
        # the dual (20) solved on its own reaches the same value
        assert solve_dual_20(A_pos, A_neg, lam, weights or (1, 1)) == pytest.approx(res.objective, abs=1e-6)
        assert np.allclose(res.xi, np.maximum(0, 1 - A_pos @ res.w), atol=1e-9)


def test_pulp_and_highs_agree():
    for A_pos, A_neg, lam, weights in _instances(8):
        a = solve_relaxation(A_pos, A_neg, lam, weights=weights)
        b = solve_relaxation(A_pos, A_neg, lam, weights=weights, solver="pulp")
        assert a.objective == pytest.approx(b.objective, abs=1e-6)
        assert b.solver.startswith("pulp-")
        ai = solve_relaxation(A_pos, A_neg, lam, weights=weights, integral=True)
        bi = solve_relaxation(A_pos, A_neg, lam, weights=weights, integral=True, solver="pulp")
        assert ai.objective == pytest.approx(bi.objective, abs=1e-6)


def test_integer_program_is_exact():
    for A_pos, A_neg, lam, weights in _instances(15):
        best, _ = brute_force_optima(A_pos, A_neg, lam, weights or (1, 1))
        res = solve_relaxation(A_pos, A_neg, lam, weights=weights, integral=True)
        assert res.integral and res.dual is None
        assert set(np.unique(res.w)) <= {0.0, 1.0}
        assert res.objective == pytest.approx(best, abs=1e-7)
        # the relaxation is a lower bound
        assert solve_relaxation(A_pos, A_neg, lam, weights=weights).objective <= best + 1e-7


def test_edge_cases():
    empty_pos = solve_relaxation(np.zeros((0, 3)), np.ones((2, 3)), 1.0)
    assert empty_pos.objective == 0 and empty_pos.w.tolist() == [0, 0, 0]
    no_columns = solve_relaxation(np.zeros((4, 0)), np.zeros((1, 0)), 1.0)
    assert no_columns.objective == pytest.approx(4) and no_columns.dual.tolist() == [1, 1, 1, 1]


def test_time_limit_never_silent():
    rng = np.random.default_rng(0)
    A_pos, A_neg = random_instance(rng, 2000, 2000, 200)
    with pytest.raises(SolverError, match="time_limit"):
        solve_relaxation(A_pos, A_neg, 1.0, time_limit=1e-4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = solve_relaxation(A_pos, A_neg, 1.0, integral=True, time_limit=1e-4)
        except SolverError:
            pass  # no incumbent yet: an error, never a silent rule
        else:
            assert res.status == "time_limit" and not res.optimal
            assert any(issubclass(w.category, SolverWarning) for w in caught)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown solver"):
        solve_relaxation([[1]], [[0]], 1.0, solver="gurobi")
    with pytest.raises(ValueError, match="time_limit"):
        solve_relaxation([[1]], [[0]], 1.0, time_limit=0)


@pytest.mark.parametrize("integral", [False, True])
def test_merging_identical_rows_is_exact(integral):
    for seed in range(10):
        rng = np.random.default_rng(40 + seed)
        base_pos, A_neg = random_instance(rng, 8, 20, 6)
        A_pos = base_pos[rng.integers(0, 8, size=40)]  # many duplicate positive rows
        weights = (1.5, 0.7) if seed % 2 else None
        plain = solve_relaxation(A_pos, A_neg, 0.8, weights=weights, integral=integral)
        merged = solve_relaxation(A_pos, A_neg, 0.8, weights=weights, integral=integral, merge_rows=True)
        assert merged.objective == pytest.approx(plain.objective, abs=1e-7)
        if not integral:
            problem = build_problem(A_pos, A_neg, 0.8, weights)
            assert merged.dual.shape == (40,)
            assert problem.dual_violation(merged.dual) <= 1e-7
            assert merged.dual.sum() == pytest.approx(merged.objective, abs=1e-6)


def test_pulp_cbc_fallback(monkeypatch):
    """Without highspy, solver="pulp" uses CBC: same optimum, valid dual."""
    import pulp

    from logicrules.lp import solvers

    monkeypatch.setattr(solvers, "pulp_backend", lambda: pulp.PULP_CBC_CMD)
    for A_pos, A_neg, lam, weights in _instances(3):
        res = solvers.solve_relaxation(A_pos, A_neg, lam, weights=weights, solver="pulp")
        assert res.solver == "pulp-PULP_CBC_CMD"
        assert res.objective == pytest.approx(solve_relaxation(A_pos, A_neg, lam, weights=weights).objective, abs=1e-6)
        assert build_problem(A_pos, A_neg, lam, weights).dual_violation(res.dual) <= 1e-6
        assert res.dual.sum() == pytest.approx(res.objective, abs=1e-6)
        best, _ = brute_force_optima(A_pos, A_neg, lam, weights or (1, 1))
        assert solvers.solve_relaxation(A_pos, A_neg, lam, weights=weights, solver="pulp",
                                        integral=True).objective == pytest.approx(best, abs=1e-7)
