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
@pytest.mark.parametrize("persist", [False, True])
def test_ideal_from_dask_equals_in_memory_with_the_same_split(seed, binarizer, persist):
    X, y = _random_frame(seed, 300)
    Xd, yd = dd.from_pandas(X, npartitions=3 + seed), dd.from_pandas(y, npartitions=3 + seed)

    def make():
        return IdealDNFClassifier(binarizer=binarizer, random_state=seed, max_features=3)

    with dask.config.set({"scheduler": "synchronous", "logicrules.persist-bits": persist}):  # bits kept or re-read
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
    lines = [line for line in capsys.readouterr().err.splitlines() if "dask pass" in line]  # after a progress bar too
    assert any("type histograms" in line for line in lines) and any("column summaries" in line for line in lines)


def _labelled_frame(seed: int, n: int = 300, n_classes: int = 2):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 6, n), "c": rng.choice(["u", "v", "w"], n),
                      "d": rng.normal(size=n)})
    labels = np.where((X.a > 0) & (X.b > 2), "p", "q") if n_classes == 2 else \
        np.where(X.a > 0.3, "p", np.where(X.c == "u", "q", "r"))
    y = pd.Series(labels, name="t")
    flip = rng.random(n) < 0.1
    y[flip] = y.sample(frac=1, random_state=seed).to_numpy()[flip]
    return X, y, rng.integers(0, 4, n).astype(float)  # integer weights, some 0


def _same_fit(got, expected, X):
    assert str(got.formula_) == str(expected.formula_)
    pd.testing.assert_frame_equal(got.path_, expected.path_)
    pd.testing.assert_frame_equal(got.rules_, expected.rules_)
    np.testing.assert_array_equal(got.predict(X), expected.predict(X))
    np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X))
    if hasattr(expected, "cell_counts_"):
        np.testing.assert_allclose(got.cell_counts_, expected.cell_counts_)


@pytest.mark.parametrize("seed, n_classes, weighted, selection",
                         [(0, 2, True, "filter"), (1, 3, False, "filter"), (2, 3, True, "filter"),
                          (3, 2, False, "wrapper"), (4, 2, True, "wrapper"), (5, 3, True, "wrapper")])
def test_ideal_from_dask_with_weights_and_classes_equals_in_memory(seed, n_classes, weighted, selection):
    X, y, w = _labelled_frame(seed, n_classes=n_classes)
    Xd, yd, wd = (dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3),
                  dd.from_pandas(pd.Series(w), npartitions=3))

    def make():
        return IdealDNFClassifier(random_state=seed, max_features=3, selection=selection)

    with dask.config.set(scheduler="synchronous"):
        got = make().fit(Xd, yd, **({"sample_weight": wd} if weighted else {}))
        # the split is drawn over the rows of positive weight of each partition
        lengths = ((wd > 0).map_partitions(lambda s: s.sum()) if weighted else Xd.map_partitions(len)).compute()
    valid = RowSplit(0.3, seed, "validation").mask(lengths.tolist())
    expected = make()
    expected._split = lambda target: (np.flatnonzero(~valid), np.flatnonzero(valid))
    expected.fit(X, y, **({"sample_weight": w} if weighted else {}))
    _same_fit(got, expected, X)
    assert isinstance(got.formula_, dict) == (n_classes > 2)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_ideal_paper_protocol_from_dask_equals_in_memory(n_classes, dask_client):
    X, y, _ = _labelled_frame(4, n_classes=n_classes)

    def make():  # the paper's split (the last rows) is the same in partitions and in memory
        return IdealDNFClassifier(protocol="paper", scorers=("f_classif", "chi2"), max_features=3,
                                  multiclass="ovr" if n_classes > 2 else "native")

    got = make().fit(dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4))
    expected = make().fit(X, y)
    if n_classes == 2:
        _same_fit(got, expected, X)
    else:
        assert {c: str(f) for c, f in got.formula_.items()} == {c: str(f) for c, f in expected.formula_.items()}
        pd.testing.assert_frame_equal(got.rules_, expected.rules_)
        np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X))
        assert set(got.estimators_) == set(expected.estimators_)


def test_ideal_from_dask_on_bundled_data_with_weights():
    X, y = load_dataset("hepatitis")
    X, y = X.reset_index(drop=True), pd.Series(np.asarray(y), name="target")
    w = np.random.default_rng(0).integers(1, 3, len(y)).astype(float)
    Xd, yd, wd = (dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3),
                  dd.from_pandas(pd.Series(w), npartitions=3))
    with dask.config.set(scheduler="synchronous"):
        got = IdealDNFClassifier(random_state=0, max_features=3).fit(Xd, yd, sample_weight=wd)
        valid = RowSplit(0.3, 0, "validation").mask(Xd.map_partitions(len).compute().tolist())
    expected = IdealDNFClassifier(random_state=0, max_features=3)
    expected._split = lambda target: (np.flatnonzero(~valid), np.flatnonzero(valid))
    _same_fit(got, expected.fit(X, y, sample_weight=w), X)


def test_ideal_from_dask_refuses_what_counts_cannot_give():
    X, y, w = _labelled_frame(0, 60)
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    with pytest.raises(ValueError, match="mutual_info_classif"):
        IdealDNFClassifier(protocol="paper").fit(Xd, yd)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match="non-negative"):
            IdealDNFClassifier().fit(Xd, yd, sample_weight=dd.from_pandas(pd.Series(w - 5), npartitions=2))


def test_ideal_wrapper_from_dask_on_bundled_data_and_a_local_cluster(dask_client):
    X, y = load_dataset("breast_cancer_wisconsin")
    X, y = X.reset_index(drop=True), pd.Series(np.asarray(y), name="target")
    Xd, yd = dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4)

    def make():
        return IdealDNFClassifier(random_state=0, max_features=4, selection="wrapper")

    got = make().fit(Xd, yd)
    expected = _in_memory_with_split(make, X, y, Xd, 0)
    _same_model(got, expected, X)


def test_ideal_from_dask_finds_the_classes_in_the_first_pass_of_the_binarizers(capsys):
    X, y = _random_frame(3, 240)
    Xd, yd = dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3)

    def make(**extra):
        return IdealDNFClassifier(random_state=3, max_features=3, **extra)

    with dask.config.set(scheduler="synchronous"):
        got = make(verbose=1).fit(Xd, yd)
        lines = [line for line in capsys.readouterr().err.splitlines() if "dask pass" in line]
        assert "column summaries, classes" in lines[0] and not any("dask pass: classes" in line for line in lines)
        _same_model(got, _in_memory_with_split(make, X, y, Xd, 3), X)
        make(verbose=1, protocol="paper", scorers=("f_classif", "chi2")).fit(Xd, yd)  # the paper's split counts rows
        assert any("dask pass: classes" in line for line in capsys.readouterr().err.splitlines())


def test_ideal_from_dask_checks_the_labels_and_weights_found_with_the_binarizers():
    X, y = _random_frame(4, 120)
    Xd = dd.from_pandas(X, npartitions=2)
    missing = y.where(np.arange(len(y)) != 7)
    weights = pd.Series(np.where(np.arange(len(y)) == 5, -1.0, 1.0))
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match="y contains missing values"):
            IdealDNFClassifier(random_state=0).fit(Xd, dd.from_pandas(missing, npartitions=2))
        with pytest.raises(ValueError, match="one class only"):
            IdealDNFClassifier(random_state=0).fit(Xd, dd.from_pandas(pd.Series(["a"] * len(y)), npartitions=2))
        with pytest.raises(ValueError, match="finite and non-negative"):
            IdealDNFClassifier(random_state=0).fit(Xd, dd.from_pandas(y, npartitions=2),
                                                   sample_weight=dd.from_pandas(weights, npartitions=2))
