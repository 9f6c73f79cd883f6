"""Column generation on a row sample: the same certified LP bound as on all rows."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ContextCounts
from logicrules.lp.colgen import learn_dnf_cg
from logicrules.lp.data import merged_data
from logicrules.lp.colgen_rows import (_fill_groups, learn_dnf_cg_sampled, merge_cover_rows,
                                       rule_set_problem_from_counts)
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.lp.master import ConjunctionPool, build_rule_set_problem, solve_master_lp


def _data(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(8, 120)), int(rng.integers(2, 7))
    X = rng.random((n, m)) < rng.uniform(0.2, 0.8)
    y = rng.random(n) < rng.uniform(0.2, 0.8)
    sw = rng.integers(1, 5, n) / 2 if seed % 2 else None
    return rng, X, y, sw


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_problem_from_counts_is_the_merged_problem(seed, complement):
    rng, X, y, sw = _data(seed)
    weights = (float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2)))
    counts = ContextCounts(FormalContext(X), y, sw)
    got = rule_set_problem_from_counts(counts, 0.3, weights=weights, complement=complement)
    # the reference: the distinct rows unpacked (the estimator's former path), then merged again
    rows, labels, row_weight = merged_data(counts)
    A, target = (~rows, ~labels) if complement else (rows, labels)
    ref = build_rule_set_problem(A, target, 0.3, sample_weight=row_weight, weights=weights)

    for field in ("A_pos", "pos_weight", "A_neg", "neg_weight"):
        np.testing.assert_array_equal(getattr(got, field), getattr(ref, field))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.05, 1.0), st.booleans())
def test_sampled_master_certifies_the_unsampled_lp_bound(seed, fraction, budgeted):
    rng, X, y, sw = _data(seed)
    lam = float(rng.uniform(0.05, 2))
    budget = float(rng.uniform(2, 8)) if budgeted else None
    problem = rule_set_problem_from_counts(ContextCounts(FormalContext(X), y, sw), lam, budget=budget)
    full = learn_dnf_cg(None, None, lam, problem=problem, max_size=2, mip_time_limit=None)
    sampled = learn_dnf_cg_sampled(problem, row_sampling=fraction, max_size=2, mip_time_limit=None,
                                   random_state=seed)
    assert full.certified and sampled.certified
    tol = problem.tolerance()
    assert sampled.lp_bound == pytest.approx(full.lp_bound, abs=tol)
    assert sampled.lp_objective == pytest.approx(full.lp_objective, abs=tol)
    # the integer master over the pool is solved over all rows (merged by cover pattern)
    covered = np.zeros(problem.A_pos.shape[0], dtype=bool)
    for term in sampled.terms:
        covered |= problem.A_pos[:, term].all(axis=1)
    neg = sum(float(problem.neg_weight @ problem.A_neg[:, t].all(axis=1)) for t in sampled.terms)
    value = neg + lam * sum(1 + len(t) for t in sampled.terms) + float(problem.pos_weight[~covered].sum())
    assert sampled.mip_objective == pytest.approx(value, abs=tol)
    assert sampled.mip_objective >= sampled.lp_bound - tol


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_fill_groups_splits_each_group_dual_within_the_caps(seed):
    rng = np.random.default_rng(seed)
    n, g = int(rng.integers(1, 30)), int(rng.integers(1, 6))
    inverse = rng.integers(0, g, n)
    caps = rng.uniform(0.1, 2, n)
    totals = np.bincount(inverse, weights=caps, minlength=g)
    dual = totals * rng.uniform(0, 1, g)
    got = _fill_groups(dual, inverse, caps)
    assert (got >= 0).all() and (got <= caps).all()
    np.testing.assert_allclose(np.bincount(inverse, weights=got, minlength=g), dual, atol=1e-12)
    for group in range(g):  # filled in row order: a row is positive only when the earlier rows are full
        rows = np.flatnonzero(inverse == group)
        left = dual[group]
        for row in rows:
            assert got[row] == pytest.approx(min(caps[row], max(left, 0.0)), abs=1e-12)
            left -= caps[row]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_rows_merged_by_cover_pattern_keep_the_master(seed):
    rng, X, y, sw = _data(seed)
    problem = build_rule_set_problem(X, y, 0.2, sample_weight=sw)
    pool = ConjunctionPool(problem)
    m = X.shape[1]
    pool.add({tuple(sorted(rng.choice(m, size=int(rng.integers(1, 3)), replace=False))) for _ in range(4)})
    lp = solve_master_lp(pool)
    merged, merged_lp = merge_cover_rows(pool, lp)
    assert merged.cover.shape[0] <= pool.cover.shape[0]
    assert solve_master_lp(merged).objective == pytest.approx(lp.objective, abs=problem.tolerance())
    np.testing.assert_allclose(merged.reduced_costs(merged_lp.mu, merged_lp.nu), pool.reduced_costs(lp.mu, lp.nu),
                               atol=1e-9)
    for _ in range(5):
        chosen = rng.random(len(pool)) < 0.5
        assert merged.integer_objective(chosen) == pytest.approx(pool.integer_objective(chosen))


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_estimator_samples_the_master_rows_with_the_same_bound(rule):
    rng = np.random.default_rng(3)
    X = rng.random((3000, 8)) < 0.5
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    y ^= rng.random(3000) < 0.05
    plain = LPRuleClassifier(rule=rule, binarizer="passthrough", max_term_size=2).fit(X, y)
    sampled = LPRuleClassifier(rule=rule, binarizer="passthrough", max_term_size=2, row_sampling=0.1,
                               random_state=0).fit(X, y)
    assert plain.lp_result_["certified"] and sampled.lp_result_["certified"]
    assert sampled.lp_result_["lp_bound"] == pytest.approx(plain.lp_result_["lp_bound"], rel=1e-7)
    assert plain.lp_result_["rows_sampled"] is None
    assert 0 < sampled.lp_result_["rows_sampled"] <= int((y if rule == "dnf" else ~y).sum())
    assert str(sampled.formula_) == str(plain.formula_)
