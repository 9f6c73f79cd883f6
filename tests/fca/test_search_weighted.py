"""Weighted premise search, conjunction-only space, size costs and time limits against brute force.

The reference enumerates the premise space from its definition (restricted to the allowed
connectives), as Python integer bitmasks, and scores every distinct extent with weighted counts:
``tp`` the sum of the weights of the positive rows in the extent, ``fp`` of the negative ones.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from logicrules.fca.premise.search import find_best_premises
from logicrules.metrics import OBJECTIVES, get_objective
from tests.fca.test_search import brute_force_extents

OBJECTIVE_NAMES = sorted(OBJECTIVES)


def weighted_scores(extents, y, w, objective, size_cost=0.0):
    keys = list(extents)
    bits = np.array([[(e >> i) & 1 for i in range(len(y))] for e in keys], dtype=bool).reshape(len(keys), len(y))
    tp = bits[:, y] @ w[y]
    fp = bits[:, ~y] @ w[~y]
    P, N = w[y].sum(), w[~y].sum()
    scores = np.asarray(objective(tp, fp, P - tp, N - fp), dtype=float)
    scores = np.where(np.isnan(scores), -np.inf, scores) - size_cost * np.array([extents[k] for k in keys])
    return keys, scores


def check_weighted(X, y, w, max_size, objective, negations=True, top_k=1, connectives=("and", "or"), size_cost=0.0,
                   **options):
    obj = get_objective(objective)
    results = find_best_premises(X, y, max_size=max_size, objective=obj, negations=negations, top_k=top_k,
                                 sample_weight=w, connectives=connectives, size_cost=size_cost, **options)
    extents = brute_force_extents(X[w > 0], max_size, negations, connectives)
    keys, scores = weighted_scores(extents, y[w > 0], w[w > 0], obj, size_cost)
    expected = np.sort(scores)[::-1][:top_k]
    got = np.array([r.score for r in results])
    assert len(results) == min(top_k, len(keys))
    scale = 1e-9 * (1 + np.abs(expected).max())
    np.testing.assert_allclose(got, expected, rtol=0, atol=scale)
    for r in results:
        ext = r.formula.evaluate(X)
        assert r.formula.size == r.size <= max_size
        tp, fp = w[ext & y].sum(), w[ext & ~y].sum()
        assert r.tp == pytest.approx(tp, abs=1e-9 * w.sum()) and r.fp == pytest.approx(fp, abs=1e-9 * w.sum())
        score = float(obj(np.array([tp]), np.array([fp]), np.array([w[y].sum() - tp]),
                          np.array([w[~y].sum() - fp]))[0])
        if np.isnan(score):
            score = -np.inf
        assert r.score == pytest.approx(score - size_cost * r.size, abs=scale)
        if connectives == ("and",):
            assert " OR " not in str(r.formula)
        if connectives == ("or",):
            assert " AND " not in str(r.formula)
    return results


def random_case(seed, n, m, density=0.5, integer=False):
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < density
    y = rng.random(n) < rng.uniform(0.2, 0.7)
    w = rng.integers(0, 4, n).astype(float) if integer else rng.exponential(1.0, n) * (rng.random(n) < 0.9)
    if not (w > 0).any():
        w[0] = 1.0
    return X, y, w


@pytest.mark.parametrize("objective", OBJECTIVE_NAMES)
def test_every_objective_with_random_weights(objective):
    for seed in range(3):
        X, y, w = random_case(seed, n=24 + 5 * seed, m=5)
        check_weighted(X, y, w, 3, objective, negations=bool(seed % 2 == 0))


@pytest.mark.parametrize("objective", ["f1", "accuracy", "mcc", "linear", "wracc"])
def test_weighted_size4_both_methods(objective):
    X, y, w = random_case(50, n=28, m=4)
    check_weighted(X, y, w, 4, objective)
    check_weighted(X, y, w, 4, objective, size4_method="extents")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 30), m=st.integers(1, 6), max_size=st.integers(1, 3),
       negations=st.booleans(), objective=st.sampled_from(OBJECTIVE_NAMES), top_k=st.integers(1, 4),
       connectives=st.sampled_from([("and", "or"), ("and",), ("or",)]))
# an empty extent whose weighted counts round to ~1e-16 of either sign scored precision 4/3
@example(seed=0, n=13, m=6, max_size=3, negations=True, objective="precision", top_k=1,
         connectives=("and", "or"))
def test_hypothesis_weighted_connectives(seed, n, m, max_size, negations, objective, top_k, connectives):
    X, y, w = random_case(seed, n, m)
    check_weighted(X, y, w, max_size, objective, negations=negations, top_k=top_k, connectives=connectives)


@pytest.mark.parametrize("connectives", [("and",), ("or",)])
@pytest.mark.parametrize("max_size", [3, 4])
def test_conjunctions_only_unweighted_and_signed_costs(connectives, max_size):
    for seed in range(2):
        X, y, _ = random_case(60 + seed, n=30, m=4 if max_size == 4 else 6)
        check_weighted(X, y, np.ones(len(y)), max_size, "f1", connectives=connectives, top_k=3)
        costs = np.random.default_rng(seed).normal(size=len(y))         # sum_i c_i [premise holds on i]
        check_weighted(X, costs > 0, np.abs(costs), max_size, "linear", connectives=connectives, top_k=2)


def test_size_cost_is_exact_and_prices_columns():
    # maximize sum_P mu_i a_i - sum_Z a_i - s |K| over conjunctions (the pricing problem)
    for seed in range(3):
        X, y, _ = random_case(70 + seed, n=30, m=6)
        mu = np.random.default_rng(seed).uniform(0, 2, len(y))
        w = np.where(y, mu, 1.0)
        for s in (0.0, 0.4, 3.0):
            check_weighted(X, y, w, 3, "linear", connectives=("and",), size_cost=s, top_k=3)
            check_weighted(X, y, w, 3, "f1", size_cost=s / 10)


@pytest.mark.parametrize("backend", ["numba", "torch"])
def test_integer_weights_equal_row_repetition(backend):
    if backend == "torch":
        pytest.importorskip("torch")
    options = {"backend": backend, **({"device": "cpu"} if backend == "torch" else {})}
    for seed, (max_size, objective) in enumerate([(3, "f1"), (3, "mcc"), (4, "accuracy"), (2, "precision")]):
        X, y, w = random_case(80 + seed, n=40, m=5 if max_size < 4 else 4, integer=True)
        reps = w.astype(int)
        weighted = find_best_premises(X, y, max_size=max_size, objective=objective, sample_weight=w, top_k=4,
                                      **options)
        repeated = find_best_premises(np.repeat(X, reps, axis=0), np.repeat(y, reps), max_size=max_size,
                                      objective=objective, top_k=4, **options)
        assert [(r.score, r.tp, r.fp, r.fn, r.tn, r.size) for r in weighted] == \
            [(r.score, r.tp, r.fp, r.fn, r.tn, r.size) for r in repeated]
        assert [str(r.formula) for r in weighted] == [str(r.formula) for r in repeated]


def test_torch_backend_weighted_equals_numba():
    pytest.importorskip("torch")
    for seed, max_size in ((90, 3), (91, 4)):
        X, y, w = random_case(seed, n=40, m=6 if max_size == 3 else 5)
        for connectives in (("and", "or"), ("and",)):
            a = find_best_premises(X, y, max_size=max_size, objective="linear", sample_weight=w, top_k=3,
                                   connectives=connectives, backend="numba")
            b = find_best_premises(X, y, max_size=max_size, objective="linear", sample_weight=w, top_k=3,
                                   connectives=connectives, backend="torch", device="cpu")
            np.testing.assert_allclose([r.score for r in a], [r.score for r in b], rtol=0, atol=1e-9)


def test_weights_of_ones_change_nothing_but_the_count_type():
    X, y, _ = random_case(95, n=50, m=6)
    plain = find_best_premises(X, y, max_size=3, top_k=3)
    ones = find_best_premises(X, y, max_size=3, top_k=3, sample_weight=np.ones(len(y)))
    assert [(r.score, str(r.formula)) for r in plain] == [(r.score, str(r.formula)) for r in ones]
    assert isinstance(plain[0].tp, int) and isinstance(ones[0].tp, float)


def test_time_limit_stops_with_the_best_found_and_says_so():
    rng = np.random.default_rng(0)
    X = rng.random((300, 60)) < 0.5
    y = X[:, 0] ^ X[:, 1] ^ (rng.random(300) < 0.3)
    results, stats = find_best_premises(X, y, max_size=4, return_stats=True, time_limit=1e-6)
    assert not stats.complete and results and len(stats.sizes) < 4
    results, stats = find_best_premises(X[:, :8], y, max_size=3, return_stats=True, time_limit=600)
    assert stats.complete and [s.size for s in stats.sizes] == [1, 2, 3]


def test_bad_weights_and_options():
    X, y, w = random_case(96, n=20, m=4)
    for bad, match in [(w[:-1], "one weight per row"), (-w, "non-negative"), (np.full(20, np.nan), "finite"),
                       (np.zeros(20), "zero on every row"), ("heavy", "non-negative numbers")]:
        with pytest.raises(ValueError, match=match):
            find_best_premises(X, y, sample_weight=bad)
    with pytest.raises(ValueError, match="connectives"):
        find_best_premises(X, y, connectives=("xor",))
    with pytest.raises(ValueError, match="connectives"):
        find_best_premises(X, y, connectives=())
    assert find_best_premises(X, y, connectives="and")[0].score >= 0
    with pytest.raises(ValueError, match="size_cost"):
        find_best_premises(X, y, size_cost=np.inf)
    for bad in (0, -1, np.nan, "x", True):
        with pytest.raises(ValueError, match="time_limit"):
            find_best_premises(X, y, time_limit=bad)
    for bad in (np.nan, np.inf, -5.0):
        with pytest.raises(ValueError, match="memory_limit"):
            find_best_premises(X, y, memory_limit=bad)


def test_cost_estimate_before_the_search_and_sparse_input():
    import scipy.sparse as sp

    from logicrules.fca.premise.search import PremiseSearchMemoryError, estimate_premise_search

    rng = np.random.default_rng(1)
    X = rng.random((400, 300)) < 0.3
    y = X[:, 0] & X[:, 1]
    est = estimate_premise_search(X, y, max_size=3)
    assert est.n_distinct_attributes == 300 and est.combinations[3] == 300 * 299 * 298 // 6
    assert est.memory_bytes == sum(est.memory_parts.values()) > 80 * 300**2
    assert "300 distinct attributes" in str(est)
    with pytest.raises(PremiseSearchMemoryError, match="pair tables"):
        find_best_premises(X, y, max_size=3, memory_limit=est.memory_bytes // 2)
    results, stats = find_best_premises(sp.csr_matrix(X[:, :10]), y, max_size=2, return_stats=True)
    assert stats.estimate.n_distinct_attributes == 10 and str(results[0].formula) == "x0 AND x1"
    with pytest.raises(ValueError, match="0/1"):
        find_best_premises(sp.csr_matrix(np.where(X[:, :5], 2.0, 0.0)), y)


def test_estimator_time_limit_flags_an_incomplete_search():
    from logicrules.fca.premise.estimator import OptimalPremiseClassifier

    rng = np.random.default_rng(2)
    X = rng.random((200, 40)) < 0.5
    y = X[:, 0] ^ X[:, 1]
    clf = OptimalPremiseClassifier(binarizer="passthrough", max_size=4, time_limit=1e-6).fit(X, y)
    assert not clf.search_stats_.complete and clf.formula_ is not None
    assert OptimalPremiseClassifier(binarizer="passthrough", max_size=2).fit(X, y).search_stats_.complete
