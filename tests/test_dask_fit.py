"""Fitting from dask partitions: the same formula and predictions as in memory on the same rows."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules import IdealDNFClassifier, load_dataset  # noqa: E402
from logicrules.fca.dask_counts import RowSplit  # noqa: E402


def _random_frame(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 6, n), "c": rng.normal(size=n),
                      "d": rng.choice(["u", "v", "w"], n), "e": rng.integers(0, 2, n)})
    y = pd.Series(((X["a"] > 0.2) & (X["d"] != "w") | (X["b"] >= 4) & (X["e"] == 1)) ^ (rng.random(n) < 0.05),
                  name="target").map({True: "yes", False: "no"})
    return X, y


def _in_memory_with_split(make, X, y, Xd, seed):
    """The in-memory fit given the dask fit's validation split (RowSplit of the partition lengths)."""
    lengths = Xd.map_partitions(len).compute().tolist()
    valid = RowSplit(make().validation_size, seed, "validation").mask(lengths)
    model = make()
    model._split = lambda target: (np.flatnonzero(~valid), np.flatnonzero(valid))
    return model.fit(X, y)


def _same_model(got, expected, X):
    assert str(got.formula_) == str(expected.formula_)
    assert got.ideal_formula_ == expected.ideal_formula_
    pd.testing.assert_frame_equal(got.path_, expected.path_)
    pd.testing.assert_frame_equal(got.candidates_, expected.candidates_)
    pd.testing.assert_frame_equal(got.rules_, expected.rules_)
    np.testing.assert_array_equal(got.cell_counts_, expected.cell_counts_)
    assert got.selected_features_ == expected.selected_features_
    assert got.class_prior_ == expected.class_prior_
    assert [c for c in got.binarizer_.conditions_] == [c for c in expected.binarizer_.conditions_]
    np.testing.assert_array_equal(got.predict(X), expected.predict(X))
    np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X))


@pytest.mark.parametrize("seed, binarizer", [(0, "median"), (1, "quantile"), (2, "median")])
def test_ideal_from_dask_equals_in_memory_with_the_same_split(seed, binarizer):
    X, y = _random_frame(seed, 300)
    Xd, yd = dd.from_pandas(X, npartitions=3 + seed), dd.from_pandas(y, npartitions=3 + seed)

    def make():
        return IdealDNFClassifier(binarizer=binarizer, random_state=seed, max_features=3)

    with dask.config.set(scheduler="synchronous"):
        got = make().fit(Xd, yd)
        expected = _in_memory_with_split(make, X, y, Xd, seed)
        _same_model(got, expected, X)
        np.testing.assert_array_equal(got.predict(Xd).compute(), expected.predict(X))


def test_ideal_from_dask_arrays_and_passthrough():
    X, y = _random_frame(7, 200)
    values = X[["a", "b", "c", "e"]].to_numpy()
    bits = (values > np.median(values, axis=0)).astype(np.int8)
    for data, binarizer in ((values, "median"), (bits, "passthrough")):
        Xd, yd = da.from_array(data, chunks=(80, 2)), da.from_array(y.to_numpy(), chunks=80)

        def make():
            return IdealDNFClassifier(binarizer=binarizer, random_state=1, max_features=2)

        with dask.config.set(scheduler="synchronous"):
            got = make().fit(Xd, yd)
            valid = RowSplit(0.3, 1, "validation").mask(Xd.chunks[0])
            expected = make()
            expected._split = lambda target: (np.flatnonzero(~valid), np.flatnonzero(valid))
            expected.fit(data, y.to_numpy())
        assert str(got.formula_) == str(expected.formula_)
        pd.testing.assert_frame_equal(got.path_, expected.path_)
        np.testing.assert_array_equal(got.predict(data), expected.predict(data))


def test_ideal_from_dask_on_bundled_data_and_a_local_cluster(dask_client):
    X, y = load_dataset("breast_cancer_wisconsin")
    X, y = X.reset_index(drop=True), pd.Series(np.asarray(y), name="target")
    Xd, yd = dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4)

    def make():
        return IdealDNFClassifier(random_state=0, max_features=3)

    got = make().fit(Xd, yd)
    expected = _in_memory_with_split(make, X, y, Xd, 0)
    _same_model(got, expected, X)


def test_ideal_from_dask_reports_its_passes(capsys):
    X, y = _random_frame(0, 120)
    with dask.config.set(scheduler="synchronous"):
        IdealDNFClassifier(random_state=0, max_features=2, verbose=1).fit(
            dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2))
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dask pass")]
    assert any("type histograms" in line for line in lines) and any("column summaries" in line for line in lines)
