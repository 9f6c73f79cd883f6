"""OptimalPremiseClassifier: fit/predict, fitted attributes, Pareto fronts and the TP-TN plot."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.fca.premise import find_best_premises, pareto_indices


def planted(seed=0, n=200, m=6):
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < 0.5
    y = X[:, 0] & (X[:, 1] | ~X[:, 2])
    return X, y


def test_recovers_planted_rule_and_predicts():
    X, y = planted()
    clf = OptimalPremiseClassifier(binarizer="passthrough").fit(X, y.astype(int))
    assert clf.score_ == 1.0
    assert clf.formula_.size == 3
    assert np.array_equal(clf.predict(X), y.astype(int))
    assert list(clf.classes_) == [0, 1]
    assert clf.search_stats_.to_frame().index.tolist() == [1, 2, 3]
    assert len(clf.get_rules()) >= 1
    assert len(clf.explain(X[:3])) == 3
    assert str(clf.to_sympy())


def test_matches_search_and_objectives():
    rng = np.random.default_rng(3)
    X = rng.random((80, 5)) < 0.4
    y = rng.random(80) < 0.3
    for objective in ("f1", "mcc", "accuracy"):
        clf = OptimalPremiseClassifier(binarizer="passthrough", objective=objective, max_size=2,
                                       negations=False, top_k=3).fit(X, y)
        direct = find_best_premises(X, y, max_size=2, objective=objective, negations=False, top_k=3)
        assert clf.score_ == direct[0].score
        assert [p.score for p in clf.premises_] == [p.score for p in direct]


def test_pareto_fronts():
    rng = np.random.default_rng(4)
    X = rng.random((60, 5)) < 0.5
    y = rng.random(60) < 0.4
    clf = OptimalPremiseClassifier(binarizer="passthrough", max_size=2).fit(X, y)
    assert set(clf.pareto_) == {1, 2}
    # size-1 and size-2 fronts are exact: brute force over every literal and pair premise
    P, N = int(y.sum()), int((~y).sum())
    lits = [X[:, j] for j in range(5)] + [~X[:, j] for j in range(5)]
    points = {1: {(int((e & y).sum()), int((e & ~y).sum())) for e in lits}}
    points[2] = {(int(((p & q) & y).sum()), int(((p & q) & ~y).sum())) for p in lits for q in lits} | \
        {(int(((p | q) & y).sum()), int(((p | q) & ~y).sum())) for p in lits for q in lits}
    for size in (1, 2):
        pts = np.array(sorted(points[size]))
        keep = pareto_indices(pts[:, 0], pts[:, 1])
        expected = {(int(t), N - int(f)) for t, f in pts[keep]}
        front = clf.pareto_[size]
        assert set(zip(front["tp"], front["tn"])) == expected
        for formula, tp, tn in zip(front["formula"], front["tp"], front["tn"]):
            e = formula.evaluate(pd.DataFrame(X, columns=[f"x{j}" for j in range(5)]))
            assert (int((e & y).sum()), N - int((e & ~y).sum())) == (tp, tn)
    assert P > 0


def test_pareto_indices_against_definition():
    rng = np.random.default_rng(5)
    for _ in range(20):
        tp = rng.integers(0, 10, 30)
        fp = rng.integers(0, 10, 30)
        keep = set(pareto_indices(tp, fp).tolist())
        points = set(zip(tp.tolist(), fp.tolist()))
        nondominated = {(t, f) for t, f in points
                        if not any(t2 >= t and f2 <= f and (t2, f2) != (t, f) for t2, f2 in points)}
        assert {(int(tp[i]), int(fp[i])) for i in keep} == nondominated
        assert len(keep) == len(nondominated)


def test_plot_tp_tn():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    X, y = planted(1, n=80, m=4)
    clf = OptimalPremiseClassifier(binarizer="passthrough").fit(X, y)
    ax = clf.plot_tp_tn()
    assert ax.get_xlabel() == "true positives"
    assert len(ax.collections) >= 2


def test_plot_needs_fit_and_clone():
    clf = OptimalPremiseClassifier(max_size=2, objective="mcc")
    with pytest.raises(Exception):
        clf.plot_tp_tn()
    assert clone(clf).get_params()["objective"] == "mcc"


def test_quantile_binarizer_on_dataframe():
    pytest.importorskip("logicrules.fca.scaling")
    rng = np.random.default_rng(6)
    frame = pd.DataFrame({"age": rng.integers(20, 90, 150), "chol": rng.normal(200, 30, 150),
                          "sex": rng.choice(["m", "f"], 150)})
    y = (frame["age"] > 60) & (frame["chol"] > 210)
    clf = OptimalPremiseClassifier(max_size=2).fit(frame, y)
    assert clf.score_ > 0.6
    assert clf.formula_.attributes <= set(clf.attribute_names_)
    assert clf.predict(frame).shape == (150,)


def test_plot_without_matplotlib(monkeypatch):
    import sys

    X, y = planted(2, n=60, m=4)
    clf = OptimalPremiseClassifier(binarizer="passthrough", max_size=2).fit(X, y)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        clf.plot_tp_tn()


def test_sample_weight_reaches_the_search_and_integer_weights_repeat_rows():
    rng = np.random.default_rng(3)
    X = rng.random((120, 5)) < 0.5
    y = (X[:, 0] & X[:, 1]) ^ (rng.random(120) < 0.2)
    w = rng.integers(1, 4, 120).astype(float)
    weighted = OptimalPremiseClassifier(binarizer="passthrough", max_size=2).fit(X, y, sample_weight=w)
    reps = w.astype(int)
    repeated = OptimalPremiseClassifier(binarizer="passthrough", max_size=2).fit(np.repeat(X, reps, axis=0),
                                                                                 np.repeat(y, reps))
    assert str(weighted.formula_) == str(repeated.formula_) and weighted.score_ == repeated.score_
    plain = OptimalPremiseClassifier(binarizer="passthrough", max_size=2).fit(X, y)
    assert plain.score_ == OptimalPremiseClassifier(binarizer="passthrough", max_size=2).fit(
        X, y, sample_weight=np.ones(120)).score_
    with pytest.raises(ValueError, match="sample_weight"):
        OptimalPremiseClassifier(binarizer="passthrough", max_size=1).fit(X, y, sample_weight=-w)


def test_integer_weights_equal_repetition_with_the_default_binarizer():
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.integers(0, 5, 80).astype(float), "c": rng.random(80)})
    y = ((X["a"] > 0) & (X["b"] >= 2)).to_numpy() ^ (rng.random(80) < 0.1)
    reps = rng.integers(0, 4, 80)
    weighted = OptimalPremiseClassifier(max_size=3).fit(X, y, sample_weight=reps.astype(float))
    repeated = OptimalPremiseClassifier(max_size=3).fit(X.loc[np.repeat(X.index, reps)], np.repeat(y, reps))
    assert str(weighted.formula_) == str(repeated.formula_) and weighted.score_ == repeated.score_
    assert weighted.premises_[0].tp == repeated.premises_[0].tp
