"""The integer master by highspy from the LP's rounding, under a node limit (and by SciPy's milp)."""
import importlib.util

import numpy as np
import pytest

from logicrules import LPRuleClassifier
from logicrules.lp import master
from logicrules.lp.master import ConjunctionPool, build_rule_set_problem, solve_master_lp, solve_master_mip
from logicrules.lp.highs_mip import solve_mip_highs
from logicrules.lp.master_rounding import round_master

from ._colgen_reference import all_conjunctions, best_subset, random_rule_instance

pytestmark = pytest.mark.skipif(importlib.util.find_spec("highspy") is None, reason="needs highspy")

STATUSES = {"optimal", "node_limit", "time_limit", "rounded"}


def _pool(seed, m, k, n_terms=None):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 60))
    A, y = random_rule_instance(rng, n, m, float(rng.uniform(0.3, 0.7)))
    sw = rng.choice([0.5, 1.0, 2.0], size=n) if seed % 2 else None
    lam = float(rng.choice([0.0, 0.1, 0.5]))
    budget = float(rng.choice([3.0, 6.0])) if seed % 3 == 0 else None
    pool = ConjunctionPool(build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget))
    terms = all_conjunctions(m, k)
    if n_terms is not None:
        terms = [terms[i] for i in rng.permutation(len(terms))[:n_terms]]
    pool.add(terms)
    return pool, A, y, np.ones(n) if sw is None else sw, lam, budget


@pytest.mark.parametrize("node_limit", [0, 1, 5, None])
def test_never_worse_than_the_rounding(node_limit):
    for seed in range(12):
        pool, *_ = _pool(seed, m=7, k=3)
        lp = solve_master_lp(pool)
        rounded = pool.integer_objective(round_master(pool, lp.w))
        mip = solve_master_mip(pool, lp=lp, node_limit=node_limit)
        assert mip.status in STATUSES
        assert mip.objective <= rounded + pool.problem.tolerance()
        assert mip.objective == pytest.approx(pool.integer_objective(mip.chosen), abs=1e-9)
        assert pool.within_budget(mip.chosen)
        assert lp.objective - 1e-7 <= mip.bound <= mip.objective + 1e-7
        if node_limit is None:
            assert mip.status == "optimal" and mip.gap == 0.0


def test_equals_the_brute_force_optimum_on_small_pools():
    for seed in range(12):
        pool, A, y, weight, lam, budget = _pool(seed, m=5, k=2, n_terms=9)
        best = best_subset(A, y, weight, lam, pool.terms, budget)
        for node_limit in (1, None):
            mip = solve_master_mip(pool, node_limit=node_limit)
            assert mip.objective >= best - 1e-7
            if mip.status == "optimal":
                assert mip.objective == pytest.approx(best, abs=1e-7) and mip.gap == 0.0
            else:
                assert mip.bound <= best + 1e-7
        assert solve_master_mip(pool).objective == pytest.approx(best, abs=1e-7)


def test_highs_keeps_its_start():
    for seed in range(6):
        pool, *_ = _pool(seed, m=6, k=2)
        rng = np.random.default_rng(seed)
        start = rng.random(len(pool)) < 0.2
        start &= np.cumsum(1 + pool.sizes * start) <= (pool.problem.budget or np.inf)  # within the budget
        x, bound, status, name = solve_mip_highs(master._matrices(pool), pool.cover, start, 0, None)
        assert name == "highs-mip" and status in {"node_limit", "optimal"}
        assert x is not None and pool.integer_objective(x > 0.5) <= pool.integer_objective(start) + 1e-9


def test_same_choice_twice():
    pool, *_ = _pool(3, m=9, k=3)
    a, b = solve_master_mip(pool, node_limit=1), solve_master_mip(pool, node_limit=1)
    assert np.array_equal(a.chosen, b.chosen) and a.status == b.status and a.bound == b.bound


def test_two_fits_learn_the_same_rule():
    rng = np.random.default_rng(0)
    X = rng.random((300, 12))
    y = ((X[:, 0] > 0.6) & (X[:, 1] < 0.5)) | ((X[:, 2] > 0.7) & (X[:, 3] > 0.3)) ^ (rng.random(300) < 0.1)
    fits = [LPRuleClassifier(rule="dnf").fit(X, y) for _ in range(2)]
    assert str(fits[0].formula_) == str(fits[1].formula_)
    assert fits[0].lp_result_["mip_objective"] == fits[1].lp_result_["mip_objective"]
    assert fits[0].lp_result_["mip_status"] in STATUSES


def test_scipy_milp_without_highspy(monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(master.importlib.util, "find_spec",
                        lambda name, *args: None if name == "highspy" else find_spec(name, *args))
    solvers = set()
    for seed in range(6):
        pool, A, y, weight, lam, budget = _pool(seed, m=5, k=2, n_terms=9)
        mip = solve_master_mip(pool)
        solvers.add(mip.solver)   # "highs" when no column can beat the empty rule set
        assert mip.status == "optimal"
        assert mip.objective == pytest.approx(best_subset(A, y, weight, lam, pool.terms, budget), abs=1e-7)
        limited = solve_master_mip(pool, node_limit=1)
        assert limited.status in STATUSES and limited.objective >= mip.objective - 1e-7
    assert "highs-milp" in solvers


def _milp_optimum(pool):
    from scipy.optimize import Bounds, LinearConstraint, milp

    c, A_ub, b_ub, K, p = master._matrices(pool)
    res = milp(c, constraints=LinearConstraint(A_ub, -np.inf, b_ub), integrality=np.r_[np.ones(K), np.zeros(p)],
               bounds=Bounds(0, 1))
    assert res.status == 0
    return res.fun


@pytest.mark.parametrize("seed, m, k, from_rounding", [(2, 6, 2, False), (11, 6, 2, False), (17, 6, 2, False),
                                                       (56, 7, 3, True)])
def test_an_answer_of_highs_that_contradicts_itself_is_not_trusted(seed, m, k, from_rounding):
    """Pools on which HiGHS 1.16, handed the start, says "optimal" while the columns it returns
    cost more than the objective it reports (the empty start: 31 against 21, 10.5 against 6,
    18.5 against 17; the rounding: a bound of 9.7 below the returned 10): the answer is
    solved again without the start, and "optimal" comes only with the true optimum."""
    pool, *_ = _pool(seed, m=m, k=k)
    start = round_master(pool, solve_master_lp(pool).w) if from_rounding else np.zeros(len(pool), dtype=bool)
    x, bound, status, _ = solve_mip_highs(master._matrices(pool), pool.cover, start, None, None)
    best = _milp_optimum(pool)
    value = pool.integer_objective(x > 0.5)
    assert value <= pool.integer_objective(start) + 1e-9
    if status == "optimal":
        assert value == pytest.approx(best, abs=1e-7) and bound == pytest.approx(best, abs=1e-6)
    assert solve_master_mip(pool).objective == pytest.approx(best, abs=1e-7)


@pytest.mark.parametrize("second_consistent", [True, False])
def test_an_inconsistent_first_answer_is_solved_again(monkeypatch, second_consistent):
    """The guard itself, whatever HiGHS version runs: a first answer whose columns cost more than
    the objective it reports is solved again without the start; the best of both answers and
    the start is kept, proved "optimal" only by a consistent second answer."""
    from logicrules.lp import highs_mip

    pool, *_ = _pool(3, m=7, k=3)
    start = round_master(pool, solve_master_lp(pool).w)
    matrices = master._matrices(pool)
    true_run = highs_mip._run_mip
    calls = []

    def run(matrices, cover, start_, node_limit, time_limit):
        calls.append(start_ is None)
        x, bound, status, reported = true_run(matrices, cover, start_, node_limit, time_limit)
        if len(calls) == 1:   # first: HiGHS's bug, the start returned at a lower "optimal" objective
            return start.astype(np.float64), reported - 5.0, "optimal", reported - 5.0
        return x, bound, status, reported if second_consistent else reported - 1.0

    monkeypatch.setattr(highs_mip, "_run_mip", run)
    x, bound, status, _ = solve_mip_highs(matrices, pool.cover, start, None, None)
    best = _milp_optimum(pool)
    assert calls == [False, True]
    assert pool.integer_objective(x > 0.5) == pytest.approx(best, abs=1e-7)
    if second_consistent:
        assert status == "optimal" and bound == pytest.approx(best, abs=1e-6)
    else:
        assert status == "node_limit" and bound is None


@pytest.mark.parametrize("node_limit", [None, 1])
def test_a_node_limit_keeps_the_search_light(monkeypatch, node_limit):
    """Under a node limit: no presolve, restart, RINS, RENS, root reduced-cost heuristic or
    symmetry detection, and a cut pool of 100 rows; without one only presolve is off (HiGHS's
    defaults elsewhere)."""
    from logicrules.lp import highs_mip

    models = []
    true_new = highs_mip._new_highs
    monkeypatch.setattr(highs_mip, "_new_highs", lambda: models.append(true_new()) or models[-1])
    pool, *_ = _pool(4, m=7, k=3)
    start = round_master(pool, solve_master_lp(pool).w)
    solve_mip_highs(master._matrices(pool), pool.cover, start, node_limit, None)
    (h,) = models

    def value(name):  # highspy 1.16 answers (status, value), older versions the value
        answer = h.getOptionValue(name)
        return answer[1] if isinstance(answer, tuple) else answer

    assert value("presolve") == "off"
    light = node_limit is not None
    assert value("mip_pool_soft_limit") == (100 if light else 10000)
    for option in highs_mip._LIGHT_SEARCH_OFF:
        assert value(option) is (not light), option
    if light:
        assert value("mip_max_nodes") == node_limit


@pytest.mark.parametrize("seed", range(10))
def test_the_integer_program_merges_rows_the_kept_columns_do_not_tell_apart(seed, monkeypatch):
    """After reduced-cost fixing the integer program has one constraint per cover pattern over the
    kept columns (of the patterns' summed cost): fewer rows, the same optimum as SciPy's milp
    over every row and column, and merged_rows maps each row to a pattern of its own cover."""
    pool, *_ = _pool(seed, m=6, k=2, n_terms=6)
    programs = []
    true_solve = master._solve_mip
    monkeypatch.setattr(master, "_solve_mip", lambda sub, *a: programs.append(sub) or true_solve(sub, *a))
    mip = solve_master_mip(pool, node_limit=None)
    assert mip.objective == pytest.approx(_milp_optimum(pool), abs=1e-7)
    for sub in programs:  # distinct rows carrying all of the rows' cost
        assert len({tuple(r) for r in sub.cover.tolist()}) == sub.cover.shape[0]
        assert sub.problem.pos_weight.sum() == pytest.approx(pool.problem.pos_weight.sum())
    distinct = len({tuple(r) for r in pool.cover.tolist()})
    merged, group = pool.merged_rows()
    if group is None:  # distinct rows: the pool itself
        assert merged is pool and distinct == pool.cover.shape[0]
        return
    np.testing.assert_array_equal(merged.cover[group], pool.cover)
    np.testing.assert_allclose(np.bincount(group, weights=pool.problem.pos_weight), merged.problem.pos_weight)
    assert merged.cover.shape[0] == distinct < pool.cover.shape[0]
    chosen = np.random.default_rng(seed).random(len(pool)) < 0.5
    assert merged.integer_objective(chosen) == pytest.approx(pool.integer_objective(chosen))
