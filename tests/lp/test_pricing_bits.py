"""Pricing over packed bits: the least reduced cost of the dense exact pricing and of brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.lp import pricing_bits
from logicrules.lp.colgen import learn_dnf_cg
from logicrules.lp.colgen_rows import learn_dnf_cg_sampled
from logicrules.lp.master import RuleSetProblem, build_rule_set_problem, conjunction_extents
from logicrules.lp.pricing import price_exact, reduced_costs
from logicrules.lp.pricing_bits import BitsPricing, WeightedBits

from ._colgen_reference import all_conjunctions, brute_force_least, random_rule_instance


def _problem(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(4, 90)), int(rng.integers(1, 8))
    A, y = random_rule_instance(rng, n, m, float(rng.uniform(0.2, 0.8)))
    kind = seed % 3
    sw = None if kind == 0 else rng.choice([0.5, 1.0, 2.0], size=n) if kind == 1 else rng.uniform(0.1, 3.0, n)
    lam = float(rng.choice([0.0, 0.05, 0.3, 1.0]))
    cost = rng.choice([0.0, 0.01, 0.2], size=m) * (rng.random(m) < 0.5) if seed % 5 == 0 else None
    problem = build_rule_set_problem(A, y, lam, sample_weight=sw, literal_cost=cost)
    p = len(problem.pos_weight)
    levels = (rng.choice([0.0, 0.25, 0.5, 1.0], size=p) if seed % 4 else rng.random(p) * (rng.random(p) < 0.7))
    return rng, problem, levels * problem.pos_weight


def _stacked(problem, mu):
    A = np.vstack([problem.A_pos, problem.A_neg])
    y = np.r_[np.ones(len(problem.pos_weight), bool), np.zeros(len(problem.neg_weight), bool)]
    return A, y, np.r_[problem.pos_weight, problem.neg_weight], np.r_[mu, np.zeros(len(problem.neg_weight))]


def _brute_least(problem, mu, nu, k):
    """Least reduced cost over all conjunctions of <= k literals (literal costs included)."""
    terms = all_conjunctions(problem.n_literals, k)
    return float(reduced_costs(problem, mu, nu, terms).min())


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.sampled_from([0.0, 0.3]), st.integers(1, 6))
def test_bits_pricing_finds_the_least_reduced_cost(seed, k, nu, top_k):
    _, problem, mu = _problem(seed)
    found = BitsPricing(problem).price(mu, nu, k, top_k=top_k)
    least = _brute_least(problem, mu, nu, k)
    dense = price_exact(problem, mu, nu, k, top_k=top_k)
    assert found.complete
    # every column has the reduced cost it claims, is negative, of <= k literals, least first
    assert np.allclose(found.reduced_costs, reduced_costs(problem, mu, nu, found.terms), atol=1e-9)
    assert (found.reduced_costs < 0).all() and all(len(t) <= k for t in found.terms)
    assert (np.diff(found.reduced_costs) >= -1e-12).all() and len(found.terms) <= top_k
    assert found.least == pytest.approx(min(least, 0.0), abs=1e-9)
    assert found.least == pytest.approx(dense.least, abs=1e-9)
    if least < -1e-9:
        assert found.reduced_costs[0] == pytest.approx(least, abs=1e-9)
    else:
        assert not found.terms
    # one column per extent over all rows
    extents = conjunction_extents(np.vstack([problem.A_pos, problem.A_neg]), found.terms)
    assert len({e.tobytes() for e in extents.T}) == len(found.terms)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bits_pricing_stopped_early_reports_true_columns(seed):
    _, problem, mu = _problem(seed)
    k = 3 + seed % 2
    found = BitsPricing(problem).price(mu, 0.0, k, top_k=1, first_found=True)
    assert np.allclose(found.reduced_costs, reduced_costs(problem, mu, 0.0, found.terms), atol=1e-9)
    if found.complete:
        assert found.least == pytest.approx(min(_brute_least(problem, mu, 0.0, k), 0.0), abs=1e-9)
    else:
        assert found.terms and found.least <= found.reduced_costs[0] + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bits_pricing_cache_gives_the_same_prices_in_later_rounds(seed):
    rng, problem, mu = _problem(seed)
    pricing = BitsPricing(problem)
    for _ in range(3):  # later rounds read the triple losses of earlier ones
        mu = rng.random(len(mu)) * problem.pos_weight * (rng.random(len(mu)) < 0.6)
        found = pricing.price(mu, 0.0, 3, top_k=3)
        assert found.least == pytest.approx(min(_brute_least(problem, mu, 0.0, 3), 0.0), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_weighted_bits_count_like_dense_rows(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(0, 300)), int(rng.integers(1, 6))
    A = rng.random((n, m)) < 0.5
    w = rng.choice([0.0, 0.5, 1.0, 3.0], size=n) if seed % 2 else rng.random(n)
    rows = WeightedBits.pack(A, w)
    F = A.astype(float)
    np.testing.assert_allclose(rows.singles(), w @ F, atol=1e-9)
    np.testing.assert_allclose(rows.pairs(), (F * w[:, None]).T @ F, atol=1e-9)
    terms = [(), (0,)] + ([(0, m - 1)] if m > 1 else [])
    np.testing.assert_allclose(rows.count(rows.extents(terms)), w @ conjunction_extents(A, terms), atol=1e-9)
    np.testing.assert_allclose(rows.extension_counts(rows.extents(terms)),
                               np.stack([(w * conjunction_extents(A, [t])[:, 0]) @ F for t in terms]), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bits_beam_columns_have_their_reduced_costs(seed):
    _, problem, mu = _problem(seed)
    found = BitsPricing(problem).beam(mu, 0.1, width=3, max_size=3)
    assert not found.complete
    assert np.allclose(found.reduced_costs, reduced_costs(problem, mu, 0.1, found.terms), atol=1e-9)
    assert (found.reduced_costs < 0).all()


def test_bits_pricing_refuses_terms_of_five_literals():
    problem = build_rule_set_problem(np.eye(3, dtype=bool), [1, 0, 1], 0.1)
    with pytest.raises(ValueError, match="1 to 4 literals"):
        BitsPricing(problem).price(np.ones(2), 0.0, 5)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4))
def test_column_generation_over_bits_certifies_the_dense_bound(seed, k):
    _, problem, _ = _problem(seed)
    problem = RuleSetProblem(problem.A_pos, problem.pos_weight, problem.A_neg, problem.neg_weight,
                             problem.lam + 0.05, None, problem.literal_cost)
    dense = learn_dnf_cg(None, None, problem.lam, problem=problem, max_size=k, mip_time_limit=None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pricing_bits, "BITS_PRICING_ROWS", 0)
        bits = learn_dnf_cg(None, None, problem.lam, problem=problem, max_size=k, mip_time_limit=None)
        sampled = learn_dnf_cg_sampled(problem, row_sampling=0.5, max_size=k, mip_time_limit=None, random_state=seed)
    tol = problem.tolerance()
    for fit in (bits, sampled):
        assert fit.certified
        assert fit.lp_bound == pytest.approx(dense.lp_bound, abs=tol)


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_estimator_over_bits_keeps_the_certified_bound(rule):
    from logicrules.lp.estimator import LPRuleClassifier

    rng = np.random.default_rng(5)
    X = rng.random((600, 7)) < 0.5
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]) ^ (rng.random(600) < 0.05)
    params = {"rule": rule, "binarizer": "passthrough", "lam": 0.01}
    dense = LPRuleClassifier(**params).fit(X, y)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pricing_bits, "BITS_PRICING_ROWS", 0)
        bits = LPRuleClassifier(**params).fit(X, y)
        sampled = LPRuleClassifier(**params, row_sampling=0.3, random_state=0).fit(X, y)
    for model in (bits, sampled):
        assert model.lp_result_["certified"]
        assert model.lp_result_["lp_bound"] == pytest.approx(dense.lp_result_["lp_bound"], abs=1e-6)


def test_bits_pricing_finds_a_planted_four_literal_term():
    rng = np.random.default_rng(1)
    A = rng.random((400, 8)) < 0.6
    y = A[:, [1, 3, 4, 6]].all(axis=1)
    problem = build_rule_set_problem(A, y, 0.05)
    mu = problem.pos_weight.copy()
    found = BitsPricing(problem).price(mu, 0.0, 4, top_k=3)
    assert found.complete and found.terms[0] == (1, 3, 4, 6)
    assert found.least == pytest.approx(_brute_least(problem, mu, 0.0, 4), abs=1e-9)
