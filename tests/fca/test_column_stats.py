"""Chunked column statistics and the median binarizer fitted from them, against direct numpy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca import column_stats as module
from logicrules.fca.column_stats import column_stats
from logicrules.fca.scaling import MedianBinarizer, _BaseBinarizer


def reference(X: np.ndarray, rows) -> list[tuple]:
    """Per column: median, next value above, values above / at least it (numpy on the column)."""
    Y = X if rows is None else X[rows]
    out = []
    for j in range(X.shape[1]):
        present = Y[:, j][~np.isnan(Y[:, j])]
        if present.size == 0:
            out.append((np.nan, np.nan, 0, 0, int(np.isnan(Y[:, j]).sum())))
            continue
        median = np.median(present)
        bigger = present[present > median]
        out.append((median, bigger.min() if bigger.size else np.nan, bigger.size,
                    int((present >= median).sum()), int(np.isnan(Y[:, j]).sum())))
    return out


def table(kind: int, n: int, k: int, rng) -> np.ndarray:
    if kind == 0:
        return rng.standard_normal((n, k))
    if kind == 1:  # many ties
        return rng.integers(0, 5, (n, k)).astype(float)
    if kind == 2:  # sorted columns: a sample bracket taken from the start would miss
        return np.sort(rng.integers(0, 50, (n, k)), axis=0).astype(float)
    X = rng.integers(0, 2, (n, k)).astype(float)  # 0/1 with missing values
    X[rng.random((n, k)) < 0.3] = np.nan
    return X


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), kind=st.integers(0, 3), n=st.integers(1, 2500), k=st.integers(1, 4),
       sample=st.integers(64, 400), chunk=st.integers(1, 700), masked=st.booleans())
def test_column_stats_equal_numpy_on_random_tables(seed, kind, n, k, sample, chunk, masked):
    rng = np.random.default_rng(seed)
    X = table(kind, n, k, rng)
    rows = rng.random(n) < 0.7 if masked else None
    saved = module._SAMPLE_ROWS
    module._SAMPLE_ROWS = sample  # small samples: brackets that miss are exercised too
    try:
        stats = column_stats(X, rows, chunk_rows=chunk)
    finally:
        module._SAMPLE_ROWS = saved
    for j, (median, above, n_above, n_at_least, n_missing) in enumerate(reference(X, rows)):
        assert np.array_equal([stats.median[j], stats.above[j]], [median, above], equal_nan=True)
        assert (stats.n_above[j], stats.n_at_least[j], stats.n_missing[j]) == (n_above, n_at_least, n_missing)
        Y = (X if rows is None else X[rows])[:, j]
        present = Y[~np.isnan(Y)]
        if present.size and present.min() >= 0 and present.max() <= 1:
            assert (stats.n_ones[j], stats.n_zeros[j]) == ((present == 1).sum(), (present == 0).sum())


def test_column_stats_of_a_large_table_are_exact():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300_000, 3))
    X[:, 2] = np.round(X[:, 2], 1)  # heavy ties around the median
    rows = rng.random(len(X)) < 0.7
    for mask in (None, rows):
        stats = column_stats(X, mask, chunk_rows=10_000)
        expected = np.median(X if mask is None else X[mask], axis=0)
        assert np.array_equal(stats.median, expected)


def generic(binarizer: MedianBinarizer, monkeypatch) -> None:
    """Make ``binarizer`` take the column-by-column path (the reference)."""
    monkeypatch.setattr(type(binarizer), "_fits_by_column_stats", lambda self, data, weights: False)


def fitted_state(b: MedianBinarizer) -> tuple:
    return ([(c.column, c.op, c.value, c.missing) for c in b.conditions_], b.column_kinds_, b.dropped_,
            b.redundant_, b.categories_, b.n_features_in_, list(getattr(b, "feature_names_in_", [])))


def awkward_table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    X = np.column_stack([
        rng.standard_normal(n),                    # numeric
        rng.integers(0, 2, n),                     # 0/1: "is true"
        np.full(n, 3.0),                           # constant: dropped
        rng.choice([1.0, 2.0, 2.0, 2.0], n),       # median = maximum: x >= 2
        np.where(rng.random(n) < 0.5, np.nan, rng.integers(0, 9, n)),  # missing values
        np.full(n, np.nan),                        # all missing
    ]).astype(float)
    return X


@pytest.mark.parametrize("missing", ["false", "indicator"])
@pytest.mark.parametrize("seed", range(12))
def test_chunked_median_fit_equals_the_column_by_column_fit(seed, missing, monkeypatch):
    X = awkward_table(seed)
    rng = np.random.default_rng(seed)
    weights = (rng.random(len(X)) < 0.6).astype(float) if seed % 2 else None
    if weights is not None and not weights.any():
        weights[0] = 1.0
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    for data in (X, frame):
        fast = MedianBinarizer(missing=missing).fit(data, sample_weight=weights)
        with monkeypatch.context() as patch:
            generic(fast, patch)
            slow = MedianBinarizer(missing=missing).fit(data, sample_weight=weights)
            slow_bits = slow.transform_packed(data, chunk_rows=64)
        assert fitted_state(fast) == fitted_state(slow)
        assert np.array_equal(fast.transform_packed(data, chunk_rows=128), slow_bits)


def test_chunked_transform_equals_the_generic_evaluation():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (1000, 3)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    b = MedianBinarizer(missing="indicator").fit(X)
    expected = b.transform(X)  # column by column through pandas
    bits = b.transform_packed(X, chunk_rows=256)
    from logicrules.fca import bitset

    assert np.array_equal(bitset.unpack(bits, len(X)).T, expected)


def test_chunked_fit_raises_the_same_errors(monkeypatch):
    X = np.array([[1.0, 2.0], [np.nan, 3.0], [2.0, np.inf]])
    with pytest.raises(ValueError, match=r"Input contains NaN \(missing values\) in column\(s\) \['x0'\]"):
        MedianBinarizer().fit(X)
    with pytest.raises(ValueError, match="Input contains infinity in column 'x1'"):
        MedianBinarizer(missing="false").fit(X)
    b = MedianBinarizer(missing="false").fit(X[:2])
    with pytest.raises(ValueError, match="Input contains infinity in column 'x1'"):
        b.transform_packed(X)
    strict = MedianBinarizer().fit(np.array([[1.0], [2.0]]))
    with pytest.raises(ValueError, match=r"Input contains NaN \(missing values\) in column\(s\) \['x0'\]"):
        strict.transform_packed(np.array([[np.nan]]))


def test_only_plain_numeric_unweighted_or_selecting_fits_read_in_chunks():
    b = MedianBinarizer()
    numeric = pd.DataFrame({"a": [1.0, 2.0], "b": [1, 2]})
    assert b._fits_by_column_stats(numeric, None)
    assert b._fits_by_column_stats(numeric, np.array([1.0, 0.0]))
    assert not b._fits_by_column_stats(numeric, np.array([0.5, 1.0]))  # weighted medians
    assert not b._fits_by_column_stats(pd.DataFrame({"a": ["x", "y"]}), None)
    assert not b._fits_by_column_stats(pd.DataFrame({"a": [True, False]}), None)
    assert not MedianBinarizer(categorical=["a"])._fits_by_column_stats(numeric, None)
    assert not _BaseBinarizer._median_thresholds


def test_type_histogram_sums_dense_and_sparse_blocks():
    """A small last block is counted sparsely and added to the dense partials of the others."""
    from logicrules.fca.context import FormalContext
    from logicrules.fca.counts import ContextCounts

    rng = np.random.default_rng(4)
    X = rng.random((4096 + 64, 12)) < 0.5
    y = rng.random(len(X)) < 0.3
    K = FormalContext(X)
    blocked = ContextCounts(K, y, block_rows=2048).type_histogram(list(range(12)))  # dense, dense, sparse
    whole = ContextCounts(K, y).type_histogram(list(range(12)))
    assert np.array_equal(blocked.keys, whole.keys) and np.array_equal(blocked.counts, whole.counts)
