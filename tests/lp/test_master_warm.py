"""The warm-started master LP (one HiGHS model re-solved as the pool grows) against cold solves."""

import numpy as np
import pytest

from logicrules.lp.colgen import generate_columns, learn_dnf_cg
from logicrules.lp.master import ConjunctionPool, build_rule_set_problem, solve_master_lp
from logicrules.lp.master_highs import WarmMasterLP, master_lp_solver

from ._colgen_reference import all_conjunctions, master_lp_value, random_rule_instance
from .test_colgen import brute_force_pricer

pytest.importorskip("highspy")


def _check_optimal_duals(pool, lp, tol=1e-6):
    """Dual feasibility, complementary slackness and strong duality of an LP solution."""
    P = pool.problem
    rc = pool.reduced_costs(lp.mu, lp.nu)
    assert np.all(lp.mu >= 0) and np.all(lp.mu <= P.pos_weight + 1e-9) and lp.nu >= 0
    assert rc.min(initial=0.0) >= -tol                                  # dual feasible
    assert np.all(np.abs(rc[lp.w > tol]) <= tol)                        # w_k > 0 -> rc_k = 0
    assert np.all(np.abs(lp.mu - P.pos_weight)[lp.xi > tol] <= tol)      # xi_i > 0 -> mu_i = u_i
    slack = pool.cover @ lp.w + lp.xi - 1.0
    assert np.all(lp.mu[slack > tol] <= tol)                            # slack row -> mu_i = 0
    if P.budget is not None and P.budget - (1.0 + pool.sizes) @ lp.w > tol:
        assert lp.nu <= tol
    assert lp.mu.sum() - (P.budget or 0.0) * lp.nu == pytest.approx(lp.objective, abs=tol)


@pytest.mark.parametrize("seed", range(30))
def test_warm_master_equals_cold_solves_as_the_pool_grows(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(5, 40)), int(rng.integers(2, 6))
    A, y = random_rule_instance(rng, n, m, float(rng.uniform(0.2, 0.8)))
    sw = rng.uniform(0.1, 3.0, size=n) if seed % 2 else None
    lam = float(rng.choice([0.0, 0.05, 0.3, 1.0]))
    budget = float(rng.choice([0.0, 2.0, 4.0, 7.0])) if seed % 3 == 0 else None
    problem = build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget)
    terms = all_conjunctions(m, 3)
    rng.shuffle(terms)
    pool = ConjunctionPool(problem)
    warm = WarmMasterLP(pool)
    weight = np.ones(n) if sw is None else sw
    for chunk in np.array_split(np.arange(len(terms)), int(rng.integers(1, 6))):
        pool.add([terms[k] for k in chunk])
        hot, cold = warm.solve(), solve_master_lp(pool)
        assert hot.objective == pytest.approx(cold.objective, abs=1e-6)
        assert hot.objective == pytest.approx(master_lp_value(A, y, weight, lam, pool.terms, budget), abs=1e-6)
        assert hot.w.shape == (len(pool),) and hot.solver == "highs"
        _check_optimal_duals(pool, hot)
        hot_again = warm.solve()   # nothing new: the same optimum
        assert hot_again.objective == pytest.approx(hot.objective, abs=1e-9)


def test_warm_and_cold_column_generation_reach_the_same_certified_bound():
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)
        A, y = random_rule_instance(rng, int(rng.integers(10, 40)), 5, 0.5)
        problem = build_rule_set_problem(A, y, float(rng.choice([0.05, 0.2])),
                                         budget=6.0 if seed % 2 else None)
        runs = [generate_columns(problem, brute_force_pricer(problem, 3), warm=w) for w in (True, False)]
        assert all(run.certified for run in runs)
        assert runs[0].lp_bound == pytest.approx(runs[1].lp_bound, abs=1e-6)
        for run in runs:   # each stopped only when no conjunction has a negative reduced cost
            rc = brute_force_pricer(problem, 3, top_k=1)(run.lp.mu, run.lp.nu).least
            assert rc >= -1e-7
        fit = learn_dnf_cg(A, y, problem.lam, budget=problem.budget, max_size=3)   # exact pricing, warm
        assert fit.certified and fit.lp_bound == pytest.approx(runs[0].lp_bound, abs=1e-6)


def test_master_lp_solver_choices():
    problem = build_rule_set_problem(np.eye(3, dtype=bool), [1, 1, 0], lam=0.1)
    pool = ConjunctionPool(problem)
    pool.add([(0,), (1,)])
    values = [master_lp_solver(pool, solver, warm=warm)().objective
              for solver, warm in (("highs", True), ("highs", False), ("pulp", None))]
    assert values == pytest.approx([0.4] * 3)
    with pytest.raises(ValueError, match="solver='highs'"):
        master_lp_solver(pool, "pulp", warm=True)
    empty = ConjunctionPool(build_rule_set_problem(np.eye(2, dtype=bool), [0, 0], lam=0.1))
    assert WarmMasterLP(empty).solve().objective == 0.0
