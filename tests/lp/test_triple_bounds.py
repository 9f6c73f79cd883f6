"""The triples bounded by pair counts (``lp/triple_bounds.py``) against a row-by-row reference."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import logicrules.lp.conjunction_search as search
from logicrules.lp.conjunction_search import least_conjunctions
from logicrules.lp.triple_bounds import PairCounts, TripleBounds

from ._colgen_reference import holds


def _problem(seed: int, n: int, m: int):
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < rng.uniform(0.2, 0.9)
    positive = rng.random(n) < 0.5
    weight = rng.uniform(0.01, 2.0, n)
    extra = rng.choice([0.0, 0.01, 0.3], m) if seed % 2 else np.zeros(m)
    cost = float(rng.choice([0.0, 0.05, 0.4]))
    signed = np.where(positive, -weight, weight)
    pairs = PairCounts(X[positive].astype(float), X[~positive].astype(float), weight[positive], weight[~positive])
    return X, positive, weight, signed, extra, cost, TripleBounds(X, signed, pairs, cost, extra)


def _value(X, signed, extra, cost, t):
    return float(signed @ holds(X, t)) + cost * (1 + len(t)) + float(extra[list(t)].sum())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 30), m=st.integers(3, 9),
       bound=st.sampled_from([np.inf, 0.0, -0.5, -2.0]))
def test_bounded_triples_are_exact_and_keep_every_triple_below_the_bound(seed, n, m, bound):
    X, _, _, signed, extra, cost, triples = _problem(seed, n, m)
    firsts = np.arange(m)
    a, b, c, values, full = triples.search(firsts, bound, np.full(m, m * m))
    assert not full.any()
    found = {(int(i), int(j), int(k)): v for i, j, k, v in zip(a, b, c, values)}
    assert len(found) == a.size and all(i < j < k for i, j, k in found)
    for t in itertools.combinations(range(m), 3):
        exact = _value(X, signed, extra, cost, t)
        if t in found:     # every value returned is the triple's, and its bound was below the bound
            assert found[t] == pytest.approx(exact, abs=1e-9)
        else:              # a triple left out cannot be below the bound
            assert exact >= bound - 1e-9, (t, exact)
    if bound == np.inf:
        assert len(found) == m * (m - 1) * (m - 2) // 6


def test_bounded_triples_report_first_literals_past_their_room():
    X, _, _, signed, extra, cost, triples = _problem(3, 40, 8)
    firsts = np.arange(8)
    every = triples.search(firsts, np.inf, np.full(8, 100))
    per_first = np.bincount(every[0], minlength=8)
    room = np.maximum(per_first - 1, 0)
    a, b, c, values, full = triples.search(firsts, np.inf, room)
    assert full.tolist() == (per_first > 0).tolist() and a.size == 0


@pytest.mark.parametrize("speedup", [1, 4, 10**6])
def test_least_triples_match_brute_force_on_wider_rows(speedup, monkeypatch):
    """Wider than the brute-force tests of the search: each first literal by the engine the cost
    rule picks (speed-up 1: mostly Gram matrices; 10**6: pair bounds only)."""
    monkeypatch.setattr(search, "_GRAM_SPEEDUP", speedup)
    monkeypatch.setattr(search, "_FIRSTS", 5)
    for seed in range(12):
        X, positive, weight, signed, extra, cost, _ = _problem(seed, 60, 18)
        terms, values, complete = least_conjunctions(X, positive, weight, cost, 3, top_k=4, literal_cost=extra)
        assert complete
        every = [t for s in (1, 2, 3) for t in itertools.combinations(range(18), s) if not holds(X, t).all()]
        exact = np.array([_value(X, signed, extra, cost, t) for t in every])
        assert np.allclose(values, [_value(X, signed, extra, cost, t) for t in terms], atol=1e-9)
        if exact.min() < -1e-9:
            assert values[0] == pytest.approx(exact.min(), abs=1e-9)
        # nothing better was left out, up to terms of the same extent that cost no less
        limit = values[-1] if len(terms) == 4 else 0.0
        held = {}
        for t, v in zip(terms, values):
            held[holds(X, t).tobytes()] = min(v, held.get(holds(X, t).tobytes(), np.inf))
        for t, v in zip(every, exact):
            if v < limit - 1e-9:
                assert held.get(holds(X, t).tobytes(), np.inf) <= v + 1e-9, (seed, t, v)


def test_pair_counts_take_renumbers_the_literals():
    rng = np.random.default_rng(5)
    XP, XN = (rng.random((9, 7)) < 0.5).astype(float), (rng.random((6, 7)) < 0.5).astype(float)
    gP, lN = rng.random(9) + 0.1, rng.random(6) + 0.1
    order = rng.permutation(7)
    taken, direct = PairCounts(XP, XN, gP, lN).take(order), PairCounts(XP[:, order], XN[:, order], gP, lN)
    for name in ("G1", "L1", "G2", "L2"):
        assert np.allclose(getattr(taken, name), getattr(direct, name), atol=1e-12)
    assert taken.G2.flags.c_contiguous and taken.L2.flags.c_contiguous
