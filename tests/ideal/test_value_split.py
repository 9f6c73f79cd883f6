"""The order-free validation split (split="values"): identical rows share a side, the split ignores
row order and labels, and the fit on dask or with protocol="paper" refuses it."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.context import FormalContext
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.ideal.split import row_hashes, value_validation_mask


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 70), st.integers(1, 9), st.sampled_from(["table", "context"]))
def test_row_hashes_are_equal_exactly_on_equal_rows(seed, n, m, kind):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, m))
    h = row_hashes(FormalContext(X) if kind == "context" else X)
    _, row_class = np.unique(X, axis=0, return_inverse=True)
    _, hash_class = np.unique(h, return_inverse=True)
    # equal rows <=> equal hashes (no collision among these few distinct rows)
    assert np.array_equal(row_class.reshape(-1)[:, None] == row_class.reshape(-1)[None, :],
                          hash_class[:, None] == hash_class[None, :])


def test_row_hashes_read_mixed_columns_and_missing_values():
    X = pd.DataFrame({"a": [1.0, np.nan, 1.0, np.nan], "b": ["x", "y", "x", "y"], "c": [1, 2, 1, 3]})
    h = row_hashes(X)
    assert h[0] == h[2] and len(set(h.tolist())) == 3


def test_value_split_ignores_order_and_fraction_is_near_the_size():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 3))
    valid = value_validation_mask(X, 0.3, random_state=5)
    assert abs(valid.mean() - 0.3) < 0.015  # binomial: sd 0.0032
    order = rng.permutation(len(X))
    np.testing.assert_array_equal(value_validation_mask(X[order], 0.3, random_state=5), valid[order])
    assert not np.array_equal(value_validation_mask(X, 0.3, random_state=6), valid)  # the seed matters
    assert value_validation_mask(np.repeat(X[:1], 50, axis=0), 0.3, random_state=5).std() == 0


def test_value_split_fit_is_independent_of_row_order_and_label_invariant():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.integers(0, 10, size=(600, 5)), columns=list("abcde"))
    y = (((X.a > 5) & (X.c > 3)) ^ (rng.random(600) < 0.1)).astype(int).to_numpy()
    model = IdealDNFClassifier(split="values", random_state=0).fit(X, y)
    order = rng.permutation(600)
    shuffled = IdealDNFClassifier(split="values", random_state=0).fit(X.iloc[order], y[order])
    assert model.formula_ == shuffled.formula_
    assert model.validation_accuracy_ == pytest.approx(shuffled.validation_accuracy_)
    swapped = IdealDNFClassifier(split="values", random_state=0).fit(X, 1 - y)
    np.testing.assert_array_equal(swapped.predict(X), 1 - model.predict(X))


def test_value_split_puts_duplicates_on_one_side():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(400, 3))  # 27 distinct rows, many copies each
    valid = value_validation_mask(X, 0.3, random_state=0)
    _, group = np.unique(X, axis=0, return_inverse=True)
    for g in np.unique(group):
        assert valid[group.reshape(-1) == g].std() == 0


def test_value_split_refused_where_it_has_no_meaning():
    X = pd.DataFrame({"a": [0, 1, 2, 3] * 5})
    y = np.array([0, 1, 1, 0] * 5)
    with pytest.raises(ValueError, match="split='values' has no effect with protocol='paper'"):
        IdealDNFClassifier(split="values", protocol="paper").fit(X, y)
    dd = pytest.importorskip("dask.dataframe", reason="dask is not installed")
    with pytest.raises(ValueError, match="not available on dask"):
        IdealDNFClassifier(split="values").fit(dd.from_pandas(X, npartitions=2),
                                               dd.from_pandas(pd.Series(y), npartitions=2))


def test_value_split_keeps_both_sides_non_empty():
    X = np.array([[0, 1], [1, 0], [1, 1]] * 4)
    for seed in range(30):
        for size in (0.05, 0.95):
            valid = value_validation_mask(X, size, random_state=seed)
            assert valid.any() and not valid.all()
    assert not value_validation_mask(np.ones((6, 2)), 0.5, random_state=0).any()
