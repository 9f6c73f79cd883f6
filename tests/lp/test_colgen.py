import numpy as np
import pandas as pd
import pytest

from logicrules import LPRuleClassifier
from logicrules.lp.colgen import generate_columns, learn_cnf_cg, learn_dnf_cg
from logicrules.lp.master import (ConjunctionPool, build_rule_set_problem, conjunction_extents, solve_master_lp,
                                  solve_master_mip)
from logicrules.lp.master_rounding import improve_choice, round_master
from logicrules.lp.pricing import Pricing, price_beam, price_exact, price_short_beam, pricing_rows, reduced_costs

from ._colgen_reference import (all_conjunctions, best_subset, brute_force_least, holds, master_dual_value,
                                master_lp_value, random_rule_instance, reduced_cost)


def _instance(seed, n=None, m=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(6, 30))
    m = m or int(rng.integers(2, 6))
    A, y = random_rule_instance(rng, n, m, float(rng.uniform(0.3, 0.7)))
    sw = rng.choice([0.5, 1.0, 2.0], size=n) if seed % 2 else None
    lam = float(rng.choice([0.0, 0.1, 0.5, 1.0]))
    budget = float(rng.choice([2.0, 5.0])) if seed % 3 == 0 else None
    return rng, A, y, sw, lam, budget


def _stacked(problem, mu):
    """The merged rows as one matrix with per-row weights and duals (for the brute force)."""
    A = np.vstack([problem.A_pos, problem.A_neg])
    y = np.concatenate([np.ones(len(problem.pos_weight), bool), np.zeros(len(problem.neg_weight), bool)])
    weight = np.concatenate([problem.pos_weight, problem.neg_weight])
    mu_rows = np.concatenate([mu, np.zeros(len(problem.neg_weight))])
    return A, y, weight, mu_rows


def brute_force_pricer(problem, k, top_k=5):
    def price(mu, nu):
        A, y, weight, mu_rows = _stacked(problem, mu)
        terms = all_conjunctions(problem.n_literals, k)
        values = np.array([reduced_cost(A, y, weight, mu_rows, nu, problem.lam, t) for t in terms])
        order = np.argsort(values, kind="stable")[:top_k]
        return Pricing([terms[i] for i in order], values[order], float(values.min()), True, 0.0)
    return price


@pytest.mark.parametrize("solver", ["highs", "pulp"])
def test_master_lp_and_duals_match_independent_formulations(solver):
    for seed in range(12):
        rng, A, y, sw, lam, budget = _instance(seed)
        weight = np.ones(len(y)) if sw is None else sw
        problem = build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget)
        terms = [t for t in all_conjunctions(A.shape[1], 2) if rng.random() < 0.5]
        pool = ConjunctionPool(problem)
        pool.add(terms)
        lp = solve_master_lp(pool, solver=solver)
        # merging identical rows is exact: the unmerged LP and its dual LP have the same value
        assert lp.objective == pytest.approx(master_lp_value(A, y, weight, lam, pool.terms, budget), abs=1e-6)
        assert lp.objective == pytest.approx(master_dual_value(A, y, weight, lam, pool.terms, budget), abs=1e-6)
        # the returned duals are feasible and reach the optimum (strong duality)
        assert np.all(lp.mu >= 0) and np.all(lp.mu <= problem.pos_weight + 1e-9) and lp.nu >= 0
        assert pool.reduced_costs(lp.mu, lp.nu).min(initial=0) >= -1e-6
        dual = lp.mu.sum() - (budget or 0.0) * lp.nu
        assert dual == pytest.approx(lp.objective, abs=1e-6)
        assert np.allclose(lp.xi, np.maximum(0, 1 - pool.cover @ lp.w), atol=1e-9)


def test_highs_and_pulp_masters_agree():
    for seed in range(6):
        _, A, y, sw, lam, budget = _instance(seed)
        pool = ConjunctionPool(build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget))
        pool.add(all_conjunctions(A.shape[1], 2))
        a, b = solve_master_lp(pool), solve_master_lp(pool, solver="pulp")
        assert a.objective == pytest.approx(b.objective, abs=1e-6)
        assert b.solver.startswith("pulp-")
        ia, ib = solve_master_mip(pool), solve_master_mip(pool, solver="pulp")
        assert ia.objective == pytest.approx(ib.objective, abs=1e-6)


def test_integer_master_is_exact_over_the_pool():
    for seed in range(10):
        rng, A, y, sw, lam, budget = _instance(seed)
        weight = np.ones(len(y)) if sw is None else sw
        problem = build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget)
        pool = ConjunctionPool(problem)
        terms = all_conjunctions(A.shape[1], 2)
        pool.add([terms[i] for i in rng.permutation(len(terms))[:8]])
        mip = solve_master_mip(pool)
        best = best_subset(A, y, weight, lam, pool.terms, budget)
        assert mip.status == "optimal" and mip.gap == 0.0
        assert mip.objective == pytest.approx(best, abs=1e-7)
        assert pool.integer_objective(mip.chosen) == pytest.approx(best, abs=1e-7)
        assert solve_master_lp(pool).objective <= best + 1e-7
        # the rounding is feasible for the same objective and never beats the optimum
        rounded = round_master(pool, solve_master_lp(pool).w)
        assert best - 1e-7 <= pool.integer_objective(rounded) <= pool.integer_objective(np.zeros(len(pool), bool))


def test_pool_columns_and_reduced_costs():
    _, A, y, sw, lam, _ = _instance(3, n=25, m=5)
    problem = build_rule_set_problem(A, y, lam, sample_weight=sw)
    terms = all_conjunctions(5, 3)
    pool = ConjunctionPool(problem)
    assert pool.add(terms + terms[:4]) == len(terms)
    ext = conjunction_extents(problem.A_pos, terms)
    for k, t in enumerate(terms):
        assert np.array_equal(ext[:, k], holds(problem.A_pos, t))
    rng = np.random.default_rng(0)
    mu, nu = rng.random(len(problem.pos_weight)) * problem.pos_weight, 0.3
    A2, y2, weight, mu_rows = _stacked(problem, mu)
    direct = [reduced_cost(A2, y2, weight, mu_rows, nu, lam, t) for t in terms]
    assert np.allclose(pool.reduced_costs(mu, nu), direct)
    assert np.allclose(reduced_costs(problem, mu, nu, terms), direct)
    with pytest.raises(ValueError, match="distinct literal indices"):
        pool.add([(0, 0)])


def test_column_generation_stops_only_without_negative_reduced_cost():
    for seed in range(10):
        _, A, y, sw, lam, budget = _instance(seed)
        weight = np.ones(len(y)) if sw is None else sw
        k = 2 if seed % 2 else 3
        problem = build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget)
        run = generate_columns(problem, brute_force_pricer(problem, k))
        assert run.certified
        least, _ = brute_force_least(*_stacked(problem, run.lp.mu), run.lp.nu, lam, k)
        assert least >= -1e-6
        # certified: the LP over the pool is the LP over every conjunction of <= k literals
        full = master_lp_value(A, y, weight, lam, all_conjunctions(A.shape[1], k), budget)
        assert run.lp.objective == pytest.approx(full, abs=1e-6)
        assert run.lp_bound == pytest.approx(full, abs=1e-6)


def test_stopped_column_generation_reports_a_valid_bound():
    for seed in range(8):
        _, A, y, sw, lam, budget = _instance(seed, n=30, m=5)
        lam = max(lam, 0.1)
        weight = np.ones(len(y)) if sw is None else sw
        problem = build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget)
        run = generate_columns(problem, brute_force_pricer(problem, 3, top_k=1), max_iterations=2)
        full = master_lp_value(A, y, weight, lam, all_conjunctions(5, 3), budget)
        assert run.lp_bound <= full + 1e-6
        assert run.lp.objective >= full - 1e-6
        assert run.certified == (run.lp_bound >= run.lp.objective - 1e-6 and run.history[-1]["added"] == 0)


def test_beam_extends_terms_past_the_exact_class():
    # the positive rows are exactly those where literals 0, 1, 2 and 3 all hold
    rng = np.random.default_rng(5)
    A = rng.random((200, 6)) < 0.7
    y = A[:, :4].all(axis=1)
    problem = build_rule_set_problem(A, y, lam=0.5)
    mu = problem.pos_weight.copy()
    beam = price_beam(problem, mu, 0.0, [(0,), (1,)], width=4, max_size=4)
    assert beam.terms[0] == (0, 1, 2, 3) and not beam.complete
    assert np.allclose(beam.reduced_costs, reduced_costs(problem, mu, 0.0, beam.terms))
    # with only size-2 exact pricing, the beam brings the size-4 term into the pool
    def beam_step(pool, mu, nu):
        order = np.argsort(pool.reduced_costs(mu, nu))
        return price_beam(problem, mu, nu, [pool.terms[k] for k in order if pool.sizes[k]][:4], width=4, max_size=4)
    run = generate_columns(problem, brute_force_pricer(problem, 2), beam=beam_step)
    assert (0, 1, 2, 3) in run.pool
    assert any(h["source"] == "beam" and h["added"] for h in run.history)


def test_short_beam_finds_the_best_pairs_and_prices_every_term_right():
    for seed in range(20):
        rng, A, y, sw, lam, budget = _instance(seed, n=30, m=5)
        problem = build_rule_set_problem(A, y, lam + 0.05, sample_weight=sw)
        mu = problem.pos_weight * rng.random(problem.pos_weight.size)
        found = price_short_beam(problem, mu, 0.0, width=50, max_size=3)
        assert not found.complete and all(1 <= len(t) <= 3 for t in found.terms)
        assert np.all(found.reduced_costs < 0) and np.all(np.diff(found.reduced_costs) >= -1e-12)
        assert np.allclose(found.reduced_costs, reduced_costs(problem, mu, 0.0, found.terms))
        # width 50 holds every term of one or two of the 5 literals: the least of them is found
        pairs = all_conjunctions(problem.n_literals, 2)[1:]
        least_pair = reduced_costs(problem, mu, 0.0, pairs).min()
        if least_pair < -1e-9:
            assert found.reduced_costs[0] <= least_pair + 1e-9



@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_no_term_longer_than_max_size(rule):
    """The cheap pricing scores pairs too; with max_size=1 none of them may enter the pool or the
    rule, and the certified bound is the brute-force one over single literals."""
    for seed in range(20):
        rng, A, y, sw, lam, budget = _instance(seed, n=30, m=4)
        problem = build_rule_set_problem(A, y, lam + 0.05, sample_weight=sw)
        mu = problem.pos_weight * rng.random(problem.pos_weight.size)
        assert all(len(t) == 1 for t in price_short_beam(problem, mu, 0.0, width=50, max_size=1).terms)
        X = pd.DataFrame(A.astype(np.int8), columns=[f"v{j}" for j in range(A.shape[1])])
        fit = LPRuleClassifier(rule=rule, max_term_size=1, binarizer="passthrough", lam=0.001).fit(X, y)
        # terms (clauses) of one literal: a DNF without AND, a CNF without OR
        assert fit.lp_result_["certified"] and (" AND " if rule == "dnf" else " OR ") not in str(fit.formula_)


def test_bad_inputs():
    A = np.zeros((3, 2), dtype=bool)
    with pytest.raises(ValueError, match="one entry per row"):
        build_rule_set_problem(A, [1, 0], 0.1)
    with pytest.raises(ValueError, match="lam"):
        build_rule_set_problem(A, [1, 0, 0], -1)
    with pytest.raises(ValueError, match="budget"):
        build_rule_set_problem(A, [1, 0, 0], 0.1, budget=-2)
    with pytest.raises(ValueError, match="sample_weight"):
        build_rule_set_problem(A, [1, 0, 0], 0.1, sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="solver"):
        solve_master_lp(ConjunctionPool(build_rule_set_problem(A, [1, 0, 0], 0.1)), solver="cplex")


def _duals(rng, problem, sparse=True):
    """Random duals in [0, u] (many zeros, a few distinct values, as LP duals tend to be)."""
    levels = rng.choice([0.0, 0.25, 0.5, 1.0], size=len(problem.pos_weight)) if sparse else \
        rng.random(len(problem.pos_weight))
    return levels * problem.pos_weight


def test_exact_pricing_finds_the_brute_force_least_reduced_cost():
    for seed in range(16):
        rng, A, y, sw, lam, budget = _instance(seed, m=int(np.random.default_rng(seed).integers(2, 7)))
        problem = build_rule_set_problem(A, y, lam + 0.05, sample_weight=sw)
        mu = _duals(rng, problem, sparse=seed % 2 == 0)
        nu = float(rng.choice([0.0, 0.2]))
        k = 3 if seed % 4 else 4
        pricing = price_exact(problem, mu, nu, k, top_k=5)
        least, _ = brute_force_least(*_stacked(problem, mu), nu, problem.lam, k)
        assert pricing.complete
        # the reported terms have the reduced costs they claim, the best one is optimal
        assert np.allclose(pricing.reduced_costs, reduced_costs(problem, mu, nu, pricing.terms), atol=1e-9)
        assert all(len(t) <= k for t in pricing.terms)
        if least < 0:
            assert pricing.least == pytest.approx(least, abs=1e-9)
            assert pricing.reduced_costs[0] == pytest.approx(least, abs=1e-9)
        else:
            assert pricing.least <= least + 1e-9 and pricing.least >= -1e-9


def test_exact_pricing_with_all_distinct_weights_and_duals():
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        n, m = int(rng.integers(8, 40)), int(rng.integers(3, 7))
        A, y = random_rule_instance(rng, n, m, float(rng.uniform(0.3, 0.8)))
        problem = build_rule_set_problem(A, y, float(rng.uniform(0.01, 0.3)), sample_weight=rng.uniform(0.1, 3.0, n))
        mu = rng.random(len(problem.pos_weight)) * problem.pos_weight
        nu = float(rng.choice([0.0, 0.1]))
        for k in (2, 3, 4):
            pricing = price_exact(problem, mu, nu, k, top_k=4)
            least, _ = brute_force_least(*_stacked(problem, mu), nu, problem.lam, k)
            assert pricing.complete
            assert np.allclose(pricing.reduced_costs, reduced_costs(problem, mu, nu, pricing.terms), atol=1e-9)
            assert pricing.least == pytest.approx(min(least, 0.0), abs=1e-9)


def test_pricing_rows_reduction_keeps_every_negative_term():
    for seed in range(8):
        rng, A, y, sw, lam, _ = _instance(seed, n=40, m=6)
        problem = build_rule_set_problem(A, y, lam + 0.3, sample_weight=sw)
        mu = _duals(rng, problem)
        X, target, weight, literals = pricing_rows(problem, mu, problem.lam)
        stacked = _stacked(problem, mu)
        for term in all_conjunctions(6, 3)[1:]:
            rc = reduced_cost(*stacked, 0.0, problem.lam, term)
            if not set(term) <= set(literals.tolist()):
                assert rc >= -1e-9   # a dropped literal is in no negative term
                continue
            # the merged signed rows give the same linear objective
            local = [int(np.flatnonzero(literals == j)[0]) for j in term]
            signed = np.where(target, weight, -weight) @ holds(X, tuple(local))
            assert signed == pytest.approx(-(rc - problem.lam * (1 + len(term))), abs=1e-9)


def test_learn_dnf_cg_is_certified_against_brute_force():
    for seed in range(6):
        _, A, y, sw, lam, budget = _instance(seed, n=40, m=5)
        lam = lam + 0.1
        weight = np.ones(len(y)) if sw is None else sw
        problem = build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget)
        for heuristic in (None, lambda pool, mu, nu: price_beam(problem, mu, nu, [()], width=3, max_size=3),
                          lambda pool, mu, nu: price_short_beam(problem, mu, nu, width=3, max_size=3)):
            run = generate_columns(problem, lambda mu, nu: price_exact(problem, mu, nu, 3), heuristic=heuristic)
            assert run.certified
            least, _ = brute_force_least(*_stacked(problem, run.lp.mu), run.lp.nu, lam, 3)
            assert least >= -1e-6
            full = master_lp_value(A, y, weight, lam, all_conjunctions(5, 3), budget)
            assert run.lp.objective == pytest.approx(full, abs=1e-6)
        fit = learn_dnf_cg(A, y, lam, sample_weight=sw, budget=budget)
        assert fit.certified and fit.lp_bound == pytest.approx(full, abs=1e-6)
        assert fit.mip_objective >= fit.lp_bound - 1e-6
        report = fit.report()
        assert {"iterations", "pool_size", "lp_bound", "mip_gap", "seconds"} <= set(report)


def test_warm_start_keeps_the_certified_lp_bound():
    # a fit started from another lam's pool certifies the same LP optimum over the class as a
    # cold fit, and its pool holds the warm start terms
    for seed in range(6):
        _, A, y, sw, lam, budget = _instance(seed, n=40, m=5)
        lam = lam + 0.1
        other = learn_dnf_cg(A, y, lam / 4 + 0.01, sample_weight=sw, budget=budget, max_size=2)
        cold = learn_dnf_cg(A, y, lam, sample_weight=sw, budget=budget)
        warm = learn_dnf_cg(A, y, lam, sample_weight=sw, budget=budget, initial_terms=other.pool)
        assert cold.certified and warm.certified
        assert warm.lp_bound == pytest.approx(cold.lp_bound, abs=1e-6)
        assert set(other.pool) <= set(warm.pool)
        assert warm.mip_objective >= warm.lp_bound - 1e-6


def test_literal_cost_breaks_ties_between_equal_literals():
    # columns 0 and 1 are equal on every row: the cheaper one is chosen, by either pricing
    rng = np.random.default_rng(3)
    A = rng.random((40, 4)) < 0.5
    A[:, 1] = A[:, 0]
    y = A[:, 0] & A[:, 2]
    for cost, expected in (([0.0, 0.01, 0.0, 0.0], [0, 2]), ([0.01, 0.0, 0.0, 0.0], [1, 2])):
        for width in (0, 10):
            fit = learn_dnf_cg(A, y, 0.5, literal_cost=np.array(cost), heuristic_width=width)
            assert [t.tolist() for t in fit.terms] == [expected] and fit.certified
    problem = build_rule_set_problem(A, y, 0.5, literal_cost=np.array([0.0, 0.01, 0.3, 0.0]))
    mu = np.ones(len(problem.pos_weight)) * 0.9
    A_all, y_all, weight, mu_rows = _stacked(problem, mu)
    pricing = price_exact(problem, mu, 0.0, 3)
    terms = all_conjunctions(4, 3)
    brute = [reduced_cost(A_all, y_all, weight, mu_rows, 0.0, 0.5, t) + problem.literal_cost[list(t)].sum()
             for t in terms]
    assert pricing.least == pytest.approx(min(min(brute), 0.0), abs=1e-9)
    assert np.allclose(pricing.reduced_costs, reduced_costs(problem, mu, 0.0, pricing.terms), atol=1e-12)
    with pytest.raises(ValueError, match="literal_cost"):
        build_rule_set_problem(A, y, 0.5, literal_cost=[-1.0, 0, 0, 0])


def test_cnf_by_de_morgan():
    for seed in range(6):
        _, A, y, sw, lam, _ = _instance(seed, n=40, m=5)
        weights = (1.0, 2.0) if seed % 2 else None
        cnf = learn_cnf_cg(A, y, lam + 0.1, weights=weights, sample_weight=sw)
        flipped = (2.0, 1.0) if seed % 2 else None
        dnf = learn_dnf_cg(~A, ~y, lam + 0.1, weights=flipped, sample_weight=sw)
        assert [t.tolist() for t in cnf.terms] == [t.tolist() for t in dnf.terms]
        assert cnf.mip_objective == pytest.approx(dnf.mip_objective)
        # AND of the clauses OR_{j in T} A_j  ==  NOT (OR of the terms AND_{j in T} NOT A_j)
        cnf_value = np.ones(len(y), bool)
        for clause in cnf.terms:
            cnf_value &= A[:, clause].any(axis=1)
        dnf_value = np.zeros(len(y), bool)
        for term in dnf.terms:
            dnf_value |= (~A)[:, term].all(axis=1)
        assert np.array_equal(cnf_value, ~dnf_value)


def test_local_search_only_improves_and_keeps_the_budget():
    for seed in range(10):
        rng, A, y, sw, lam, budget = _instance(seed)
        problem = build_rule_set_problem(A, y, lam, sample_weight=sw, budget=budget)
        pool = ConjunctionPool(problem)
        pool.add(all_conjunctions(A.shape[1], 2))
        start = np.zeros(len(pool), bool)
        better = improve_choice(pool, start)
        assert pool.within_budget(better)
        assert pool.integer_objective(better) <= pool.integer_objective(start) + 1e-12
        # a local optimum: no single add or drop within the budget lowers the objective
        for k in range(len(pool)):
            flip = better.copy()
            flip[k] = ~flip[k]
            if pool.within_budget(flip):
                assert pool.integer_objective(flip) >= pool.integer_objective(better) - 1e-7


def test_pricing_rows_keeps_the_literals_of_the_whole_pair_gain_matrix():
    # reference: the kept literals read off the full weighted Gram matrix of the positive rows
    for seed in range(30):
        rng, A, y, sw, lam, _ = _instance(seed, n=40, m=8)
        problem = build_rule_set_problem(A, y, lam, sample_weight=sw)
        mu = _duals(rng, problem)
        cost = problem.lam * float(rng.choice([0.2, 1.0, 3.0]))
        keep = mu > 0
        positives = problem.A_pos[keep].astype(float)
        pair_gain = (positives * mu[keep, None]).T @ positives
        np.fill_diagonal(pair_gain, 0.0)
        single = problem.neg_weight @ problem.A_neg - mu[keep] @ positives + 2.0 * cost
        expected = np.flatnonzero((single < 0) | (pair_gain.max(axis=1, initial=0.0) > 3.0 * cost))
        assert pricing_rows(problem, mu, cost)[3].tolist() == expected.tolist()
