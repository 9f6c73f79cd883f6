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
from logicrules.fca.dask_radix import Bucket  # noqa: E402
from logicrules.fca.dask_scaling import (fit_binarizer, fit_binarizers, float_keys, key_floats,  # noqa: E402
                                         order_statistics)
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
    import logicrules.fca.dask_radix as module

    monkeypatch.setattr(module, "GATHER", 8)  # force histogram passes down to the last 16 bits
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


def _passes(monkeypatch):
    """Count the passes of dask_stats.run_pass (and the statistics asked in each)."""
    import logicrules.fca.dask_stats as stats

    seen = []
    run = stats.run_pass

    def counted(X, jobs, verbose, what, weights=None, also=(), keep=None):
        seen.append(what)
        return run(X, jobs, verbose, what, weights, also, keep)

    monkeypatch.setattr(stats, "run_pass", counted)
    return seen


def test_joint_fits_share_passes_and_equal_the_in_memory_fits(monkeypatch):
    """A median fit of a numeric table takes two passes (summaries, then the gathered buckets
    that give the cut points' gaps and the attributes' counts), and two fits share them."""
    rng = np.random.default_rng(5)
    values = rng.standard_normal((3000, 4)).astype(np.float32)
    values[:, 3] = np.round(values[:, 3])  # ties
    X = da.from_array(values, chunks=(700, 4))
    split = RowSplit(0.3, seed=2)
    seen = _passes(monkeypatch)
    with dask.config.set(scheduler="synchronous"):
        stage, final = fit_binarizers([(MedianBinarizer(), split), (MedianBinarizer(), None)], X)
    assert seen == ["column summaries", "order statistics (radix selection)"]
    lengths = [len(c) for c in np.array_split(np.arange(3000), np.cumsum([700] * 4))][:5]
    _same_fit(stage, MedianBinarizer().fit(values[split.mask(lengths)]))
    _same_fit(final, MedianBinarizer().fit(values))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 120), gather=st.sampled_from([1, 3, 8, 1 << 16]),
       decimals=st.integers(0, 2), quantile=st.booleans(), weighted=st.booleans(), missing=st.booleans())
def test_cut_points_and_counts_from_buckets_equal_the_in_memory_fit(seed, n, gather, decimals, quantile, weighted,
                                                                   missing):
    """Whatever the bucket sizes (small ``GATHER``: deeper radix levels, cut points outside the
    gathered buckets, the fallback passes), the fit equals the in-memory one."""
    import logicrules.fca.dask_radix as radix

    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n, 3)).round(decimals)
    values[:, 1] = np.where(rng.random(n) < 0.5, 1.0, values[:, 1])  # a heavy tie
    values[:, 2] = rng.integers(0, 2, n)  # 0/1: an 'is true' attribute
    if missing:
        values[rng.random(n) < 0.2, 0] = np.nan
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    if w is not None:
        w[0] = 1.0
    policy = "indicator" if missing else "error"
    make = (lambda: QuantileBinarizer(n_thresholds=2, missing=policy)) if quantile else \
        (lambda: MedianBinarizer(missing=policy))
    expected = make().fit(values, sample_weight=w)
    old = radix.GATHER
    radix.GATHER = gather
    try:
        with dask.config.set(scheduler="synchronous"):
            got = fit_binarizer(make(), da.from_array(values, chunks=(max(1, n // 3), 3)),
                                weights=None if w is None else da.from_array(w, chunks=(max(1, n // 3),)))
    finally:
        radix.GATHER = old
    _same_fit(got, expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=40), st.integers(-6, 6))
def test_bucket_counts_and_next_value(values, probe):
    """A bucket holding every value (bits 0) answers like the sorted values."""
    values = np.array(values, dtype=np.float64)
    bucket = Bucket(0, 0, float_keys(values), 0, None)
    assert bucket.knows(float(probe))
    assert bucket.below(float(probe), inclusive=True) == int((values <= probe).sum())
    assert bucket.below(float(probe), inclusive=False) == int((values < probe).sum())
    above = values[values > probe]
    assert bucket.next_above(float(probe)) == (float(above.min()) if above.size else None)
    # a bucket of the values 0 .. 1 (keys 0x3ff0... and below) knows what lies up to the next value
    low = values[values <= 1]
    if low.size and low.size < values.size:
        keys = float_keys(low)
        part = Bucket(int(keys.max()) >> 48, 16, keys[(keys >> np.uint64(48)) == (keys.max() >> np.uint64(48))],
                      int((keys >> np.uint64(48) < keys.max() >> np.uint64(48)).sum()),
                      int(float_keys(above_one := values[values > 1]).min()))
        for probe in (1.0, 1.5, float(above_one.min()) - 0.25):
            if part.knows(probe):
                assert part.below(probe, inclusive=True) == int((values <= probe).sum())
                assert part.next_above(probe) == float(values[values > probe].min())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.integers(0, 300))
def test_sparse_histograms_add_as_the_dense_ones(seed, weighted, filled):
    from logicrules.fca.dask_radix import SparseBins

    rng = np.random.default_rng(seed)

    def dense():
        counts = np.zeros(1 << 16, dtype=np.int64)
        counts[rng.integers(0, 1 << 16, filled)] = rng.integers(1, 2**40, filled)
        if not weighted:
            return counts
        return np.vstack([counts, np.where(counts > 0, rng.integers(0, 50, counts.size) / 4, 0.0)])

    a, b = dense(), dense()
    total = SparseBins.from_dense(a) + SparseBins.from_dense(b)
    np.testing.assert_array_equal(total.value, a + b)
    assert total.value.dtype == (a + b).dtype and total.bins.size == np.count_nonzero((a + b).reshape(-1, 1 << 16)[0])
