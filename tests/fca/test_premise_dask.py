"""The premise search over dask partitions equals the in-memory search (synchronous scheduler and a
small LocalCluster), on random and bundled data, and so does the learner's fit from counts."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules.datasets import load_dataset  # noqa: E402
from logicrules.fca.dask_counts import DaskCounts  # noqa: E402
from logicrules.fca.premise import OptimalPremiseClassifier, find_best_premises  # noqa: E402
from logicrules.fca.premise.from_counts import find_best_premises_from_counts  # noqa: E402
from logicrules.fca.scaling import QuantileBinarizer  # noqa: E402

CASES = [(0, 2, "f1", True, 1, False), (1, 3, "accuracy", True, 3, True), (2, 3, "mcc", False, 2, False)]


def _same(got, expected):
    assert [(r.score, r.size) for r in got] == pytest.approx([(r.score, r.size) for r in expected], abs=1e-9)
    assert [(r.tp, r.fp) for r in got] == pytest.approx([(r.tp, r.fp) for r in expected], abs=1e-9)


def _case(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((400, 7)) < rng.uniform(0.2, 0.8, 7)
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3]) ^ (rng.random(400) < 0.1)
    return X, y, rng.integers(1, 4, 400).astype(float)


def _check_random_cases(cases):
    names = [f"a{j}" for j in range(7)]
    for seed, max_size, objective, negations, top_k, weighted in cases:
        X, y, w = _case(seed)
        w = w if weighted else None
        kwargs = dict(max_size=max_size, objective=objective, negations=negations, top_k=top_k)
        expected = find_best_premises(pd.DataFrame(X, columns=names), y, sample_weight=w, **kwargs)
        counts = DaskCounts(da.from_array(X.astype(np.uint8), chunks=(90, 7)), da.from_array(y.astype(int), chunks=90),
                            weights=None if w is None else da.from_array(w, chunks=90), attributes=names)
        got = find_best_premises_from_counts(counts, **kwargs)
        _same(got, expected)
        if top_k == 1:
            assert str(got[0].formula) == str(expected[0].formula) or max_size > 2
            np.testing.assert_array_equal(got[0].formula.evaluate(pd.DataFrame(X, columns=names)),
                                          expected[0].formula.evaluate(pd.DataFrame(X, columns=names)))


def test_random_partitions_synchronous_scheduler():
    with dask.config.set(scheduler="synchronous"):
        _check_random_cases(CASES)


def test_random_partitions_on_a_local_cluster(dask_client):
    _check_random_cases(CASES[1:2])


def _bundled(name="breast_cancer_wisconsin"):
    X, y = load_dataset(name)
    binarizer = QuantileBinarizer().fit(X)
    return X, y.to_numpy(), binarizer


@pytest.mark.parametrize("scheduler", ["synchronous", "cluster"])
def test_learner_fit_from_dask_counts_equals_the_in_memory_fit(scheduler, request):
    X, y, binarizer = _bundled()
    clf = OptimalPremiseClassifier(max_size=3, binarizer=binarizer).fit(X, y)
    labels = (y == clf.pos_label_).astype(int)
    frame = dd.from_pandas(X, npartitions=4)
    target = dd.from_pandas(pd.Series(labels, index=X.index), npartitions=4)

    def fit():
        counts = DaskCounts(frame, target, binarizer=clf.binarizer_)
        learner = OptimalPremiseClassifier(max_size=3)
        return learner, learner._fit_counts(counts)

    if scheduler == "cluster":
        request.getfixturevalue("dask_client")
        learner, formula = fit()
    else:
        with dask.config.set(scheduler="synchronous"):
            learner, formula = fit()
    assert learner.score_ == pytest.approx(clf.score_, abs=1e-12)
    assert (learner.n_positive_, learner.n_negative_) == (clf.n_positive_, clf.n_negative_)
    Xb = pd.DataFrame(clf.binarizer_.transform(X), columns=[c.name for c in clf.binarizer_.conditions_])
    np.testing.assert_array_equal(formula.evaluate(Xb), clf.premises_[0].formula.evaluate(Xb))


def test_fit_from_counts_refuses_a_time_limit():
    X, y, _ = _case(0)
    counts = DaskCounts(da.from_array(X.astype(np.uint8), chunks=(100, 7)), da.from_array(y.astype(int), chunks=100))
    with pytest.raises(ValueError, match="time_limit"):
        OptimalPremiseClassifier(time_limit=5.0)._fit_counts(counts)


@pytest.mark.parametrize("scheduler", ["synchronous", "cluster"])
def test_fit_on_a_dask_dataframe_equals_the_in_memory_fit(scheduler, request):
    X, y = load_dataset("breast_cancer_wisconsin")
    expected = OptimalPremiseClassifier(max_size=3).fit(X, y)
    frame, target = dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4)
    if scheduler == "cluster":
        request.getfixturevalue("dask_client")
        got = OptimalPremiseClassifier(max_size=3).fit(frame, target)
    else:
        with dask.config.set(scheduler="synchronous"):
            got = OptimalPremiseClassifier(max_size=3).fit(frame, target)
    # the same extent (a tie of equal score and size may be written as another premise of it)
    assert got.score_ == pytest.approx(expected.score_, abs=1e-12)
    names = [c.name for c in expected.binarizer_.conditions_]
    assert [c.name for c in got.binarizer_.conditions_] == names
    Xb = pd.DataFrame(expected.binarizer_.transform(X), columns=names)
    np.testing.assert_array_equal(got.raw_formula_.evaluate(Xb), expected.raw_formula_.evaluate(Xb))
    np.testing.assert_array_equal(got.predict(X), expected.predict(X))
    np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X))


@pytest.mark.parametrize("seed, n_classes, weighted", [(0, 2, True), (1, 3, False), (2, 3, True)])
def test_premise_learner_from_dask_with_weights_and_classes(seed, n_classes, weighted):
    from logicrules.equivalence import equivalent

    rng = np.random.default_rng(seed)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 6, n), "c": rng.choice(["u", "v", "w"], n)})
    labels = np.where((X.a > 0) & (X.b > 2), "p", "q") if n_classes == 2 else \
        np.where(X.a > 0.3, "p", np.where(X.c == "u", "q", "r"))
    y = pd.Series(np.where(rng.random(n) < 0.1, rng.permutation(labels), labels), name="t")
    w = rng.integers(0, 4, n).astype(float)
    fit_w = {"sample_weight": w} if weighted else {}
    dask_w = {"sample_weight": dd.from_pandas(pd.Series(w), npartitions=3)} if weighted else {}
    for max_size in (2, 3):
        expected = OptimalPremiseClassifier(max_size=max_size).fit(X, y, **fit_w)
        with dask.config.set(scheduler="synchronous"):
            got = OptimalPremiseClassifier(max_size=max_size).fit(dd.from_pandas(X, npartitions=3),
                                                                  dd.from_pandas(y, npartitions=3), **dask_w)
        pairs = [(got.formula_, expected.formula_)] if n_classes == 2 else \
            [(got.formula_[c], expected.formula_[c]) for c in expected.formula_]
        assert all(equivalent(a, b) for a, b in pairs)
        np.testing.assert_array_equal(got.predict(X), expected.predict(X))
        np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X))
        if max_size == 2:  # size 3 from counts may list a rule's literals in another order
            pd.testing.assert_frame_equal(got.rules_, expected.rules_)
