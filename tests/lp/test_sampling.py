import numpy as np
import pytest

from logicrules.lp.model import build_problem
from logicrules.lp.sampling import extend_dual, solve_with_row_sampling
from logicrules.lp.solvers import solve_problem, solve_relaxation

from ._reference import h1_reference, random_instance


def _sampled_problem(seed):
    rng = np.random.default_rng(seed)
    p, z, n = int(rng.integers(5, 60)), int(rng.integers(1, 60)), int(rng.integers(2, 15))
    A_pos, A_neg = random_instance(rng, p, z, n, float(rng.uniform(0.1, 0.5)))
    lam = float(rng.choice([0.5, 1.0, 3.0]))
    weights = (float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))) if seed % 2 else None
    sample = np.sort(rng.choice(p, size=max(1, p // 4), replace=False))
    problem = build_problem(A_pos, A_neg, lam, weights)
    small = solve_problem(problem.sample_rows(sample))
    return A_pos, A_neg, lam, weights, problem, sample, small


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
def test_extended_dual_is_feasible_and_matches_reference(heuristic):
    for seed in range(40):
        A_pos, A_neg, lam, weights, problem, sample, small = _sampled_problem(seed)
        mu = extend_dual(A_pos, A_neg, lam, sample, small.dual, heuristic=heuristic, w=small.w, weights=weights)
        assert problem.dual_violation(mu) <= 1e-9
        assert np.allclose(mu[sample], small.dual, atol=1e-7)  # the sampled part is kept
        assert mu.sum() <= solve_problem(problem).objective + 1e-7  # a lower bound
        skip = np.flatnonzero(A_pos @ small.w > 1 + 1e-9) if heuristic == "H2" else ()
        c_pos = (weights or (1, 1))[0]
        ref = h1_reference(A_pos, problem.costs, c_pos, sample, mu[sample], skip=skip)
        assert np.allclose(mu, ref)


def test_h2_needs_w_and_bad_arguments():
    A_pos, A_neg = np.eye(3, dtype=bool), np.zeros((1, 3), dtype=bool)
    with pytest.raises(ValueError, match="H2"):
        extend_dual(A_pos, A_neg, 1.0, [0], [1.0], heuristic="H2")
    with pytest.raises(ValueError, match="heuristic"):
        extend_dual(A_pos, A_neg, 1.0, [0], [1.0], heuristic="H3")
    with pytest.raises(ValueError, match="sample"):
        extend_dual(A_pos, A_neg, 1.0, [0, 1], [1.0])
    with pytest.raises(ValueError, match="repeated"):
        extend_dual(A_pos, A_neg, 1.0, [0, 0], [1.0, 1.0])


@pytest.mark.parametrize("heuristic", ["H1", "H2"])
@pytest.mark.parametrize("grow", [False, True])
def test_row_sampling_reaches_the_full_optimum(heuristic, grow):
    for seed in range(12):
        rng = np.random.default_rng(900 + seed)
        A_pos, A_neg = random_instance(rng, 150, 120, 30, float(rng.uniform(0.05, 0.3)))
        lam = float(rng.choice([0.5, 2.0, 5.0]))
        full = solve_relaxation(A_pos, A_neg, lam)
        res = solve_with_row_sampling(A_pos, A_neg, lam, 0.1, heuristic=heuristic, grow=grow, random_state=seed)
        assert res.objective == pytest.approx(full.objective, abs=1e-6)
        problem = build_problem(A_pos, A_neg, lam)
        assert problem.dual_violation(res.dual) <= 1e-7
        assert res.dual.sum() == pytest.approx(res.objective, abs=1e-6)
        assert 1 <= res.rows_sampled <= 150


def test_row_sampling_integer_program_and_certificate():
    rng = np.random.default_rng(7)
    A_pos, A_neg = random_instance(rng, 100, 100, 20, 0.2)
    full = solve_relaxation(A_pos, A_neg, 2.0, integral=True)
    res = solve_with_row_sampling(A_pos, A_neg, 2.0, 0.2, integral=True, random_state=0)
    assert res.objective == pytest.approx(full.objective)
    # an easy instance (a perfect literal) is certified on the sample alone
    y_lit = np.zeros((200, 5), dtype=bool)
    y_lit[:, 0] = True
    neg = np.zeros((50, 5), dtype=bool)
    neg[:, 1:] = True
    res = solve_with_row_sampling(y_lit, neg, 1.0, 0.1, random_state=0)
    assert res.details["certified_by_sample"] and res.objective == pytest.approx(1.0)
    with pytest.raises(ValueError, match="sample_size"):
        solve_with_row_sampling(y_lit, neg, 1.0, 1.5)


@pytest.mark.parametrize("integral", [False, True])
def test_row_generation_from_a_sample_is_exact(integral):
    from logicrules.lp.screening import solve_with_screening

    for seed in range(30):
        A_pos, A_neg, lam, weights, problem, sample, _ = _sampled_problem(seed)
        full = solve_problem(problem, integral=integral)
        generated = solve_with_screening(problem, rows=sample, integral=integral, max_working=3)
        assert generated.objective == pytest.approx(full.objective, abs=1e-6 * max(1, full.objective))
        assert generated.details["rows_solved"] <= problem.n_rows
        if not integral:   # the padded dual is feasible for the full problem and certifies the value
            assert problem.dual_violation(generated.dual) <= 1e-7
            assert generated.lower_bound == pytest.approx(full.objective, abs=1e-6 * max(1, full.objective))
