"""Binarizers fitted from distributed statistics give the in-memory fit's attributes exactly."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402

from logicrules import load_dataset  # noqa: E402
from logicrules.fca.dask_counts import RowSplit  # noqa: E402
from logicrules.fca.dask_scaling import fit_binarizer, float_keys, key_floats, order_statistics  # noqa: E402
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer, ThresholdBinarizer  # noqa: E402


def _same_fit(got, expected):
    assert got.conditions_ == expected.conditions_
    assert got.column_kinds_ == expected.column_kinds_
    assert got.categories_ == expected.categories_
    assert got.dropped_ == expected.dropped_
    assert got.redundant_ == expected.redundant_
    assert got.n_features_in_ == expected.n_features_in_


def _frame(seed, n):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "normal": rng.normal(size=n),
        "ties": rng.integers(0, 4, n).astype(float),
        "skewed": np.where(rng.random(n) < 0.8, 2.0, rng.integers(0, 2, n)),
        "wide": rng.standard_cauchy(n) * 1e200,
        "flag": rng.integers(0, 2, n),
        "const": np.full(n, 3.5),
        "cat": rng.choice(["a", "b", "c"], n),
        "gaps": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n).round(1)),
    })
    X.loc[rng.random(n) < 0.1, "cat"] = None
    return X


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("make", [lambda: MedianBinarizer(missing="indicator"),
                                  lambda: QuantileBinarizer(n_thresholds=5),
                                  lambda: QuantileBinarizer(n_thresholds=3, negations=False, missing="indicator"),
                                  lambda: MedianBinarizer(missing="false", categorical=["flag"])])
def test_fit_from_partitions_equals_in_memory(make, seed):
    X = _frame(seed, 200 + 37 * seed)
    Xd = dd.from_pandas(X, npartitions=1 + seed)
    with dask.config.set(scheduler="synchronous"):
        _same_fit(fit_binarizer(make(), Xd), make().fit(X))
        lengths = Xd.map_partitions(len).compute().tolist()
        split = RowSplit(0.3, seed=seed)
        _same_fit(fit_binarizer(make(), Xd, rows=split), make().fit(X[split.mask(lengths)]))


def test_fit_from_dask_arrays_and_bundled_data():
    X, _ = load_dataset("heart_disease_cleveland")
    with dask.config.set(scheduler="synchronous"):
        for make in (MedianBinarizer, QuantileBinarizer):
            _same_fit(fit_binarizer(make(missing="false"), dd.from_pandas(X, npartitions=3)),
                      make(missing="false").fit(X))
        values = X.select_dtypes("number").to_numpy(dtype=float)
        values = values[~np.isnan(values).any(axis=1)]
        _same_fit(fit_binarizer(QuantileBinarizer(), da.from_array(values, chunks=(50, 3))),
                  QuantileBinarizer().fit(values))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=60),
       st.integers(1, 5), st.data())
def test_order_statistics_are_exact(values, parts, data):
    values = np.array(values)
    ranks = data.draw(st.lists(st.integers(0, values.size - 1), min_size=1, max_size=4))
    frame = dd.from_pandas(pd.DataFrame({"v": values}), npartitions=min(parts, values.size))
    with dask.config.set(scheduler="synchronous"):
        got = order_statistics(frame, {"v": (values.size, ranks)})["v"]
    np.testing.assert_array_equal(got, np.sort(values + 0.0)[ranks])


def test_radix_passes_on_many_values(monkeypatch):
    import logicrules.fca.dask_scaling as module

    monkeypatch.setattr(module, "_GATHER", 8)  # force histogram passes down to the last 16 bits
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(size=500), np.full(100, 0.25), -np.zeros(3)])
    frame = dd.from_pandas(pd.DataFrame({"v": values}), npartitions=4)
    ranks = [0, 1, 250, 301, 302, 555, 602]
    with dask.config.set(scheduler="synchronous"):
        got = order_statistics(frame, {"v": (values.size, ranks)})["v"]
    np.testing.assert_array_equal(got, np.sort(values)[ranks])
    np.testing.assert_array_equal(key_floats(float_keys(values)), values + 0.0)


def test_refuses_what_needs_the_rows():
    frame = dd.from_pandas(pd.DataFrame({"v": [1.0, 2.0]}), npartitions=1)
    with pytest.raises(TypeError, match="ThresholdBinarizer"):
        fit_binarizer(ThresholdBinarizer(), frame)
    with dask.config.set(scheduler="synchronous"), pytest.raises(ValueError, match="missing values"):
        fit_binarizer(MedianBinarizer(), dd.from_pandas(pd.DataFrame({"v": [1.0, None]}), npartitions=1))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 150), decimals=st.integers(0, 2),
       quantile=st.booleans(), unit=st.booleans())
def test_weighted_fits_equal_the_in_memory_weighted_fit(seed, n, decimals, quantile, unit):
    """Integer weights (some 0: rows left out) give the weighted medians and quantiles of ``fit``."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n).round(decimals), "b": rng.integers(0, 4, n).astype(float),
                      "c": rng.choice(["u", "v", "w"], n)})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    w = np.ones(n) if unit else rng.integers(0, 4, n).astype(float)
    w[0] = 1.0
    make = (lambda: QuantileBinarizer(n_thresholds=3, missing="false")) if quantile else \
        (lambda: MedianBinarizer(missing="false"))
    expected = make().fit(X, sample_weight=w)
    with dask.config.set(scheduler="synchronous"):
        got = fit_binarizer(make(), dd.from_pandas(X, npartitions=3),
                            weights=dd.from_pandas(pd.Series(w), npartitions=3))
    _same_fit(got, expected)
