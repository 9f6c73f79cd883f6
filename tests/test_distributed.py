"""Dask input: predictions partition by partition equal those in memory; mismatched fit input is refused clearly."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules import IdealDNFClassifier, LPRuleClassifier, OptimalPremiseClassifier, load_dataset  # noqa: E402

LEARNERS = [
    lambda: OptimalPremiseClassifier(max_size=2),
    lambda: IdealDNFClassifier(),
    lambda: LPRuleClassifier(rule="dnf", max_clauses=2),
]


@pytest.fixture(scope="module")
def bundled():
    X, y = load_dataset("breast_cancer_wisconsin")
    X = X.reset_index(drop=True)
    y = pd.Series(np.asarray(y), name="target")
    return X, y, [make().fit(X, y) for make in LEARNERS]


def _random_frame(seed: int, n: int = 240):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    y = pd.Series(((X["a"] > 0.3) | (X["b"] < -0.5)) ^ (rng.random(n) < 0.05)).astype(int)
    return X, y


def _check_same_outputs(model, X, y, X_dask, y_dask):
    expected, proba = model.predict(X), model.predict_proba(X)
    got = model.predict(X_dask)
    assert type(got).__module__.startswith("dask")
    np.testing.assert_array_equal(np.asarray(got.compute()), expected)
    np.testing.assert_allclose(np.asarray(model.predict_proba(X_dask).compute()), proba)
    np.testing.assert_allclose(np.asarray(model.decision_function(X_dask).compute()), model.decision_function(X))
    assert float(model.score(X_dask, y_dask).compute()) == pytest.approx(model.score(X, y))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("make", LEARNERS)
def test_predictions_on_dask_frames_and_arrays_equal_in_memory(make, seed):
    X, y = _random_frame(seed)
    model = make().fit(X, y)
    with dask.config.set(scheduler="synchronous"):
        _check_same_outputs(model, X, y, dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4))
        array_model = make().fit(X.to_numpy(), y.to_numpy())
        _check_same_outputs(array_model, X.to_numpy(), y.to_numpy(), da.from_array(X.to_numpy(), chunks=(70, 2)),
                            da.from_array(y.to_numpy(), chunks=70))


def test_predictions_on_bundled_data(bundled):
    X, y, models = bundled
    with dask.config.set(scheduler="synchronous"):
        for model in models:
            _check_same_outputs(model, X, y, dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3))


def test_predictions_on_a_local_cluster(bundled, dask_client):
    X, y, models = bundled
    for model in models:
        _check_same_outputs(model, X, y, dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3))


@pytest.mark.parametrize("make", LEARNERS)
def test_fit_on_dask_input_says_what_to_do(make):
    X, y = _random_frame(0, 40)
    with pytest.raises(TypeError, match="y must be a dask Series"):  # a dask X needs a dask y partitioned alike
        make().fit(dd.from_pandas(X, npartitions=2), y)
    with pytest.raises(TypeError, match="y is a dask collection"):
        make().fit(X, da.from_array(y.to_numpy(), chunks=20))
