"""The premise search over counts against the in-memory search and brute force.

Rows are split into several chunks (:class:`ChunkedCounts`), so every count the search reads is
a sum over chunks; results must equal the in-memory search on the same rows (scores, sizes,
counts; the formula too for sizes <= 2 and whenever the best extent is unique) and the
brute-force enumeration of the premise space (distinct extents, each with its smallest size).
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ChunkedCounts, ContextCounts
from logicrules.fca.premise.from_counts import find_best_premises_from_counts
from logicrules.fca.premise import PremiseSearchMemoryError, find_best_premises
from logicrules.metrics import OBJECTIVES, get_objective
from tests.fca.test_search import brute_force_extents
from tests.fca.test_search import random_context as random_case

OBJECTIVE_NAMES = sorted(OBJECTIVES)


def weighted_scores(extents, y, w, objective, size_cost):
    """Score every extent with weighted counts; residues of float sums (below 1e-9 of the total) are 0."""
    keys = list(extents)
    bits = np.array([[(e >> i) & 1 for i in range(len(y))] for e in keys], dtype=bool).reshape(len(keys), len(y))
    tol = 1e-9 * w.sum()

    def snap(x):
        return np.where(np.abs(x) <= tol, 0.0, x)

    tp, fp = snap(bits[:, y] @ w[y]), snap(bits[:, ~y] @ w[~y])
    fn, tn = snap(w[y].sum() - tp), snap(w[~y].sum() - fp)
    scores = np.asarray(objective(tp, fp, fn, tn), dtype=float)
    return keys, np.where(np.isnan(scores), -np.inf, scores) - size_cost * np.array([extents[k] for k in keys])


def chunked(X, y, w, n_chunks, seed=0):
    """ChunkedCounts over ``n_chunks`` random contiguous pieces of the rows."""
    n = len(y)
    cuts = np.sort(np.random.default_rng(seed).integers(0, n + 1, max(n_chunks - 1, 0)))
    bounds = [0, *cuts.tolist(), n]
    pieces = [(X[a:b], y[a:b].astype(int)) + (() if w is None else (w[a:b],)) for a, b in zip(bounds, bounds[1:])]
    return ChunkedCounts(pieces, attributes=[f"x{j}" for j in range(X.shape[1])], weighted=w is not None)


def check(X, y, max_size, objective, negations=True, top_k=1, w=None, connectives=("and", "or"), size_cost=0.0,
          n_chunks=3, seed=0):
    obj = get_objective(objective) if isinstance(objective, str) else objective
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    kwargs = dict(max_size=max_size, objective=obj, negations=negations, top_k=top_k, connectives=connectives,
                  size_cost=size_cost)
    counts = chunked(X, y, w, n_chunks, seed)
    try:
        expected = find_best_premises(frame, y, sample_weight=w, backend="numba", **kwargs)
    except ValueError as exc:
        assert "no premise" in str(exc)
        with pytest.raises(ValueError, match="no premise"):
            find_best_premises_from_counts(counts, **kwargs)
        return None
    got = find_best_premises_from_counts(counts, **kwargs)
    weight = np.ones(len(y)) if w is None else w
    atol = 1e-12 if w is None else 1e-9 * (1 + weight.sum())
    # brute force: the scores of the top distinct extents, each extent once, at its smallest size
    keep = weight > 0
    extents = brute_force_extents(X[keep], max_size, negations, connectives)
    keys, scores = weighted_scores(extents, y[keep], weight[keep], obj, size_cost)
    top = np.sort(scores)[::-1][:top_k]
    np.testing.assert_allclose([r.score for r in got], top, rtol=0, atol=atol)
    np.testing.assert_allclose([r.score for r in expected], top, rtol=0, atol=atol)
    assert len(got) == len(expected)
    rows = np.flatnonzero(keep)
    seen = set()
    for r in got:
        ext = r.formula.evaluate(frame)
        assert r.formula.size == r.size <= max_size
        tp, fp = weight[ext & y].sum(), weight[ext & ~y].sum()
        assert r.tp == pytest.approx(tp, abs=atol) and r.fp == pytest.approx(fp, abs=atol)
        key = int(sum(1 << i for i, row in enumerate(rows) if ext[row]))
        assert key in extents and key not in seen
        assert r.size == extents[key]
        seen.add(key)
        if w is None:
            assert isinstance(r.tp, int) and isinstance(r.fn, int)
    if top_k == 1:
        assert got[0].size == expected[0].size
        best = np.flatnonzero(scores >= scores.max() - atol)
        if len(best) == 1 or max_size <= 2:
            np.testing.assert_array_equal(got[0].formula.evaluate(frame)[keep],
                                          expected[0].formula.evaluate(frame)[keep])
        if max_size <= 2 and w is None:
            assert str(got[0].formula) == str(expected[0].formula)
    return got


@pytest.mark.parametrize("objective", OBJECTIVE_NAMES)
@pytest.mark.parametrize("negations", [True, False])
def test_every_objective_sizes_1_to_4(objective, negations):
    for seed, max_size in [(0, 1), (1, 2), (2, 3), (3, 4)]:
        X, y = random_case(seed, n=40 + 5 * seed, m=5)
        check(X, y, max_size, objective, negations=negations)


@pytest.mark.parametrize("objective", ["f1", "accuracy", "mcc", "wracc", "precision", "linear"])
def test_weighted_every_size(objective):
    for seed, max_size in [(4, 2), (5, 3), (6, 4)]:
        X, y = random_case(seed, n=45, m=5)
        w = np.random.default_rng(seed).exponential(1.0, len(y)) * (np.random.default_rng(seed + 1).random(len(y)) < 0.85)
        check(X, y, max_size, objective, w=w, n_chunks=4)


@pytest.mark.parametrize("top_k", [2, 5, 13])
def test_top_k_distinct_extents(top_k):
    for seed in range(3):
        X, y = random_case(100 + seed, n=30, m=5)
        check(X, y, 3, "f1", top_k=top_k)
        check(X, y, 4, "accuracy", top_k=top_k, negations=seed % 2 == 0)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 40), m=st.integers(1, 6), max_size=st.integers(1, 4),
       negations=st.booleans(), objective=st.sampled_from(OBJECTIVE_NAMES), top_k=st.integers(1, 4),
       connectives=st.sampled_from([("and", "or"), ("and",), ("or",)]), weighted=st.booleans(),
       n_chunks=st.integers(1, 5))
def test_hypothesis_equals_memory_and_brute_force(data, n, m, max_size, negations, objective, top_k, connectives,
                                                  weighted, n_chunks):
    X = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    w = None
    if weighted:
        w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)))
        if not (w > 0).any():
            w[0] = 1.0
    check(X.reshape(n, m), y, max_size, objective, negations=negations, top_k=top_k, w=w, connectives=connectives,
          n_chunks=n_chunks, seed=n)


def test_size_cost_min_support_and_callable():
    X, y = random_case(7, n=50, m=6)

    def youden(tp, fp, fn, tn):
        tp, fp, fn, tn = (np.asarray(a, float) for a in (tp, fp, fn, tn))
        return tp / np.maximum(tp + fn, 1) - fp / np.maximum(fp + tn, 1)

    check(X, y, 3, youden)
    check(X, y, 3, get_objective("precision", min_support=8), top_k=3)
    check(X, y, 4, "f1", size_cost=0.01)


def test_duplicate_complementary_and_constant_attributes():
    X, y = random_case(8, n=40, m=3)
    X = np.column_stack([X, X[:, 0], ~X[:, 1], np.zeros(40, bool), np.ones(40, bool)])
    for max_size in (2, 3, 4):
        for negations in (True, False):
            check(X, y, max_size, "f1", negations=negations, top_k=3)


def test_planted_rule_over_many_chunks_and_context_counts():
    rng = np.random.default_rng(9)
    X = rng.random((3000, 12)) < 0.5
    got = check(X[:400], (X[:400, 2] & ~X[:400, 5]) | X[:400, 7], 3, "f1", n_chunks=7)
    assert got[0].score == 1.0 and got[0].size == 3
    y = (X[:, 2] & ~X[:, 5]) | (X[:, 7] & X[:, 8])
    names = [f"x{j}" for j in range(12)]
    counts = ContextCounts(FormalContext(X, attributes=names), y, block_rows=256)
    best, passes = find_best_premises_from_counts(counts, max_size=4, return_passes=True)
    assert best[0].score == 1.0 and best[0].size == 4 and passes < 30
    memory = find_best_premises(pd.DataFrame(X, columns=names), y, max_size=4, top_k=3)
    assert [(r.score, r.size, r.tp, r.fp) for r in find_best_premises_from_counts(counts, max_size=4, top_k=3)] \
        == [(r.score, r.size, r.tp, r.fp) for r in memory]


def test_memory_limit_and_bad_inputs():
    X, y = random_case(10, n=100, m=150)
    counts = chunked(X, y, None, 2)
    with pytest.raises(PremiseSearchMemoryError, match="3-way counts"):
        find_best_premises_from_counts(counts, max_size=4, memory_limit="4MB")
    with pytest.raises(PremiseSearchMemoryError, match="Gram"):
        find_best_premises_from_counts(counts, max_size=2, memory_limit=1000)
    with pytest.raises(TypeError, match="Counts"):
        find_best_premises_from_counts(X)
    with pytest.raises(ValueError, match="max_size"):
        find_best_premises_from_counts(counts, max_size=5)
    with pytest.raises(ValueError, match="two classes"):
        find_best_premises_from_counts(ChunkedCounts([(X, y.astype(int))], attributes=150, n_classes=3))
    with pytest.raises(ValueError, match="no rows"):
        find_best_premises_from_counts(ChunkedCounts([], attributes=3))
