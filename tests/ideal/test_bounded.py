"""Bounded DNF: the budget holds, counts agree with rows, never worse than truncation, exact on tiny cases."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ContextCounts, TypeHistogram
from logicrules.formula import FALSE, TRUE, Literal, conjunction, disjunction
from logicrules.ideal.algorithm import table_from_histogram
from logicrules.ideal.bounded import bounded_dnf, validated_bounded_dnf
from logicrules.ideal.method import compact_dnf


def _rows(seed: int, k: int, n: int):
    """Random 0/1 rows over k attributes with a noisy planted target (and a random histogram)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, k)) < rng.uniform(0.2, 0.8, k)
    score = X[:, : max(1, k // 2)].sum(axis=1) + rng.normal(0, 0.8, n)
    y = score > np.median(score)
    histogram = ContextCounts(FormalContext(X), y).type_histogram(list(range(k)))
    return X, y, histogram


def _accuracy(formula, X, y, names):
    """Slow reference: the formula evaluated on every row."""
    return float(np.mean(formula.evaluate(X, feature_names=names) == y))


def _truncation(histogram, X, y, names, budget):
    """The naive bound: the ideal DNF's compact cover, terms by decreasing training gain, kept
    while they fit (negated form when the ideal DNF is a negation)."""
    table = table_from_histogram(histogram, tuple(names), "negative", False)
    terms = [conjunction(*t) for t in compact_dnf(table).conjunctions()]
    gain = [(_accuracy(t, X, y, names), t) for t in terms]
    kept, size = [], 0
    for _, t in sorted(gain, key=lambda g: -g[0]):
        if size + t.size <= budget:
            kept.append(t)
            size += t.size
    return disjunction(*kept)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 7), budget=st.integers(0, 12), n=st.integers(1, 300))
def test_budget_holds_and_counts_agree_with_rows(seed, k, budget, n):
    X, y, histogram = _rows(seed, k, n)
    names = [f"a{j}" for j in range(k)]
    rule = bounded_dnf(histogram, budget, features=names)
    assert rule.n_literals <= budget and rule.formula.size == rule.n_literals
    assert rule.training_accuracy == pytest.approx(_accuracy(rule.formula, X, y, names))
    codes = (X.astype(np.int64) << np.arange(k)).sum(axis=1)
    assert np.array_equal(rule.predict(codes), rule.formula.evaluate(X, feature_names=names))
    # never less accurate on the training counts than truncating the ideal DNF
    assert rule.training_accuracy >= _accuracy(_truncation(histogram, X, y, names, budget), X, y, names) - 1e-12
    chosen, accuracy = validated_bounded_dnf(histogram, histogram, budget, features=names)
    assert chosen.n_literals <= budget and accuracy == pytest.approx(chosen.training_accuracy)


def _all_rules(k, budget):
    """Every DNF and negated DNF of at most ``budget`` literals over k attributes (slow)."""
    literals = [(Literal(j, negated=True), Literal(j)) for j in range(k)]
    cubes = [conjunction(*(literals[j][d] for j, d in enumerate(digits) if d < 2))
             for digits in itertools.product(range(3), repeat=k)]
    cubes = [c for c in cubes if c.size >= 1]
    yield TRUE
    yield FALSE
    for r in range(1, budget + 1):
        for subset in itertools.combinations(cubes, r):
            if sum(c.size for c in subset) <= budget:
                yield disjunction(*subset)
                yield ~disjunction(*subset)


@pytest.mark.parametrize("k, budget", [(1, 1), (2, 2), (2, 4), (3, 3)])
def test_exact_on_tiny_cases_matches_brute_force(k, budget):
    for seed in range(6):
        X, y, histogram = _rows(seed, k, 40)
        rule = bounded_dnf(histogram, budget, features=list(range(k)))
        best = max(float(np.mean(f.evaluate(X) == y)) for f in _all_rules(k, budget))
        assert rule.exact
        assert rule.training_accuracy == pytest.approx(best)


def test_weighted_histogram_and_bad_input():
    h = TypeHistogram((0, 1), np.arange(4), np.array([[4.0, 0.5, 0.5, 0.1], [0.2, 3.1, 3.0, 2.0]]))
    rule = bounded_dnf(h, 2, features=["a", "b"])
    assert str(rule.formula) == "a OR b" and rule.training_accuracy == pytest.approx(12.1 / 13.4)
    assert str(bounded_dnf(h, 0).formula) == "TRUE"  # 8.3 positive weight against 5.1
    with pytest.raises(ValueError, match="max_literals"):
        bounded_dnf(h, -1)
    with pytest.raises(TypeError, match="TypeHistogram"):
        bounded_dnf(np.zeros(3), 2)
    with pytest.raises(ValueError, match="same columns"):
        validated_bounded_dnf(h, TypeHistogram((0,), np.arange(2), np.ones((2, 2))), 2)
    big = TypeHistogram(tuple(range(13)), np.arange(2), np.ones((2, 2)))
    with pytest.raises(ValueError, match="at most 12"):
        bounded_dnf(big, 5)
