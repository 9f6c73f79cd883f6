"""The fitted rule's statistics counted on its (type, class) rows equal those counted on every
training row (the per-row path they replaced), and stay within ``memory_limit``."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.context import FormalContext
from logicrules.formula import Literal, conjunction
from logicrules.ideal.finish import type_rows
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.memory import MemoryBudget, MemoryLimitError


def traced_peak(f):
    """``f()`` and the peak of the memory it traced."""
    tracemalloc.start()
    try:
        return f(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def per_row(monkeypatch) -> None:
    """Make the fit count the rule's statistics on every training row (the reference)."""
    monkeypatch.setattr(IdealDNFClassifier, "_type_rows", lambda self, *args, **kwargs: None)


def fitted_statistics(model: IdealDNFClassifier) -> tuple:
    cells = (model.cell_counts_, model.cell_sides_) if hasattr(model, "cell_counts_") else (None, None)
    return model.rules_, cells


def data(seed: int, n: int, classes: int):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.standard_normal((n, 5)), columns=[f"f{j}" for j in range(5)])
    X.iloc[rng.random(n) < 0.05, 2] = np.nan
    score = (X.f0 > 0).astype(int) + (X.f1 > 0.3) + (rng.random(n) < 0.2)
    return X, (score % classes).to_numpy()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(20, 400), classes=st.sampled_from([2, 3]),
       weighted=st.booleans(), binarizer=st.sampled_from(["median", "quantile"]),
       max_rule_size=st.sampled_from([None, 3, 20]))
def test_statistics_on_types_equal_those_on_every_row(seed, n, classes, weighted, binarizer, max_rule_size):
    X, y = data(seed, n, classes)
    w = np.random.default_rng(seed).integers(1, 4, n) * 0.37 if weighted else None
    params = dict(random_state=seed, max_features=4, binarizer=binarizer, max_rule_size=max_rule_size)
    fast = IdealDNFClassifier(**params).fit(X, y, sample_weight=w)
    with pytest.MonkeyPatch.context() as patch:
        per_row(patch)
        slow = IdealDNFClassifier(**params).fit(X, y, sample_weight=w)
    (fast_rules, (fast_cells, fast_sides)), (slow_rules, (slow_cells, slow_sides)) = \
        fitted_statistics(fast), fitted_statistics(slow)
    pd.testing.assert_frame_equal(fast_rules, slow_rules)
    if fast_cells is not None:
        assert np.array_equal(fast_sides, slow_sides)
        # weighted sums are added per type first: equal up to rounding, exact without weights
        np.testing.assert_allclose(fast_cells, slow_cells, rtol=1e-12 if weighted else 0, atol=0)
    np.testing.assert_allclose(fast.predict_proba(X), slow.predict_proba(X), rtol=1e-12)


def test_type_rows_of_a_context_count_its_types():
    rng = np.random.default_rng(3)
    X = rng.random((1000, 6)) < 0.5
    y = rng.integers(0, 3, 1000)
    w = rng.random(1000) + 0.1
    rows = type_rows(FormalContext(X), y, 3, [1, 4], weights=w, block_rows=128)
    dense = rows.context.to_dense()
    assert not dense[:, [0, 2, 3, 5]].any()
    for pattern, cls, count, weight in zip(dense[:, [1, 4]], rows.classes, rows.counts, rows.weights):
        match = (X[:, [1, 4]] == pattern).all(axis=1) & (y == cls)
        assert count == match.sum() > 0
        assert weight == pytest.approx(w[match].sum(), rel=1e-12)
    assert rows.counts.sum() == 1000


def test_rule_statistics_stay_within_a_small_memory_limit():
    """Per row, the statistics of a rule of several terms took about 20 bytes per row and term
    (cell memberships and scores: 15 MB traced peak here); on its types a few kilobytes (10 MB)."""
    rng = np.random.default_rng(0)
    n = 300_000
    X = rng.normal(size=(n, 4))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)) | ((X[:, 2] > 0) & (X[:, 3] > 0))
    IdealDNFClassifier(random_state=0).fit(X[:500], y[:500])  # imports and caches outside the trace
    limit = 24_000_000  # a little more than the binarizer's fit alone is allowed
    model, peak = traced_peak(lambda: IdealDNFClassifier(random_state=0, memory_limit=limit).fit(X, y))
    assert peak < 12_000_000 < limit
    assert len(model.rules_) > 2 and model.score(X, y) > 0.99


def test_too_small_a_limit_for_the_rule_statistics_raises_the_clear_error():
    rng = np.random.default_rng(1)
    n = 100_000
    context = FormalContext(rng.random((n, 64)) < 0.5)
    names = list(context.attributes)
    y = rng.random(n) < 0.5
    model = IdealDNFClassifier(memory_limit="20MB")
    model._budget = MemoryBudget("20MB")
    wide = conjunction(*(Literal(a) for a in names[:20]))  # up to 2**21 (type, class) rows
    with pytest.raises(MemoryLimitError, match=r"the rule's statistics on its types \(20 attributes\) needs "
                                               r"[0-9.]+ MB, more than memory_limit=20.0 MB allows; use a "
                                               r"smaller max_features"):
        model._type_rows([wide], names, context, y, 2)
    widest = conjunction(*(Literal(a) for a in names[:63]))  # too many for type codes: every row
    with pytest.raises(MemoryLimitError, match=r"the rule's statistics on every training row \(100000 rows\)"):
        model._type_rows([widest], names, context, y, 2)
    small = conjunction(Literal(names[0]), Literal(names[1]))
    rows, peak = traced_peak(lambda: model._type_rows([small], names, context, y, 2))
    assert rows.counts.sum() == n and peak < 20_000_000
