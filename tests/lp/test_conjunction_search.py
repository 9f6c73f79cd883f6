import numpy as np
import pytest

import logicrules.lp.conjunction_search as search
from logicrules.lp.conjunction_search import least_conjunctions, least_short_terms

from ._colgen_reference import all_conjunctions, holds


def _instance(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 40)), int(rng.integers(1, 8))
    X = rng.random((n, m)) < rng.uniform(0.3, 0.9)
    if m > 2 and seed % 3 == 0:   # equal and all-true columns: left out of the search, still exact
        X[:, 1] = X[:, 0]
        X[:, 2] = True
    positive = rng.random(n) < 0.5
    weight = rng.uniform(0.01, 2.0, n)   # all distinct
    cost = float(rng.choice([0.0, 0.05, 0.3]))
    return X, positive, weight, cost


def _values(X, positive, weight, cost, k, extra=None):
    signed = np.where(positive, -weight, weight)
    extra = np.zeros(X.shape[1]) if extra is None else extra
    # a term holding on every row has the empty term's extent (priced by the caller)
    terms = [t for t in all_conjunctions(X.shape[1], k)[1:] if not holds(X, t).all()]
    return terms, np.array([signed @ holds(X, t) + cost * (1 + len(t)) + extra[list(t)].sum() for t in terms])


@pytest.fixture(params=["pairs", "gram", "mixed"])
def engine(request, monkeypatch):
    """The triples bounded by pair counts (small first-literal passes), by Gram matrices only,
    or each first literal by either (whichever the cost rule picks at a low speed-up)."""
    if request.param == "gram":
        monkeypatch.setattr(search, "_PAIR_BYTES", 0)
    else:
        monkeypatch.setattr(search, "_FIRSTS", 2)
    if request.param == "mixed":
        monkeypatch.setattr(search, "_GRAM_SPEEDUP", 2)
    return request.param


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_least_conjunctions_matches_brute_force_with_distinct_weights(k, engine):
    for seed in range(40):
        X, positive, weight, cost = _instance(seed)
        top_k = 1 + seed % 6
        # extra literal costs on some seeds (a tie-break between equal literals)
        extra = np.random.default_rng(seed).choice([0.0, 0.01, 0.2], X.shape[1]) if seed % 2 else None
        terms, values, complete = least_conjunctions(X, positive, weight, cost, k, top_k=top_k, literal_cost=extra)
        assert complete and len(terms) <= top_k
        all_terms, all_values = _values(X, positive, weight, cost, k, extra)
        if not all_terms:
            assert terms == []
            continue
        value_of = dict(zip(all_terms, all_values))
        # every returned term has the value claimed, is short enough and negative, least first
        assert all(len(t) <= k and list(t) == sorted(set(t)) for t in terms)
        assert np.allclose(values, [value_of[t] for t in terms], atol=1e-9)
        assert np.all(values < 0) and np.all(np.diff(values) >= -1e-12)
        if all_values.min() < -1e-9:
            assert values[0] == pytest.approx(all_values.min(), abs=1e-9)
        # nothing better was left out, up to terms of the same extent that cost no less
        limit = values[-1] if len(terms) == top_k else 0.0
        extents = {}
        for t, v in zip(terms, values):
            key = holds(X, t).tobytes()
            extents[key] = min(v, extents.get(key, np.inf))
        for t, v in zip(all_terms, all_values):
            if v < limit - 1e-9:
                assert extents.get(holds(X, t).tobytes(), np.inf) <= v + 1e-9, (seed, t, v)


def test_least_conjunctions_time_limit_and_empty():
    X = np.ones((5, 3), dtype=bool)
    terms, values, complete = least_conjunctions(X, np.ones(5, bool), np.ones(5), 0.1, 3)
    assert terms == [] and complete   # every literal is TRUE: the empty term stands for them all
    rng = np.random.default_rng(0)
    X = rng.random((60, 30)) < 0.7
    _, _, complete = least_conjunctions(X, rng.random(60) < 0.5, rng.random(60) + 0.1, 0.0, 4, time_limit=0.0)
    assert not complete


@pytest.mark.parametrize("block", [2, 256])
def test_least_short_terms_are_the_least_terms_of_one_or_two_literals(block, monkeypatch):
    monkeypatch.setattr(search, "_BLOCK", block)   # several blocks of first literals, or one
    for seed in range(40):
        X, positive, weight, cost = _instance(seed)
        extra = np.random.default_rng(seed).choice([0.0, 0.01, 0.2], X.shape[1]) if seed % 2 else None
        count = 1 + seed % 7
        terms, values = least_short_terms(X, positive, weight, cost, count, literal_cost=extra)
        signed = np.where(positive, -weight, weight)
        e = np.zeros(X.shape[1]) if extra is None else extra
        every = all_conjunctions(X.shape[1], 2)[1:]   # all terms of one or two literals, any sign
        exact = np.sort([signed @ holds(X, t) + cost * (1 + len(t)) + e[list(t)].sum() for t in every])
        assert len(terms) == min(count, len(every)) == len(set(terms))
        assert all(1 <= len(t) <= 2 and list(t) == sorted(set(t)) for t in terms)
        assert np.all(np.diff(values) >= -1e-12)
        for t, v in zip(terms, values):   # each value is its term's, and they are the least ones
            assert v == pytest.approx(signed @ holds(X, t) + cost * (1 + len(t)) + e[list(t)].sum(), abs=1e-9)
        assert values == pytest.approx(exact[:len(terms)], abs=1e-9)
