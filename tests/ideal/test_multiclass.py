"""The native multiclass ideal classifier against a per-type majority counted by a Python dict."""

from collections import defaultdict
from itertools import product

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logicrules.datasets import load_dataset
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.ideal.multiclass import class_priority
from logicrules.persistence import load_model, save_model


def priority_of(y, w, n_classes):
    """Classes by training rows, largest first; equal counts by their first row."""
    totals, first = [0.0] * n_classes, [len(y)] * n_classes
    for i, label in enumerate(y.tolist()):
        totals[label] += w[i]
        first[label] = min(first[label], i)
    return sorted(range(n_classes), key=lambda k: (-totals[k], first[k]))


def reference(B, y, w, priority):
    """Per-type class counts by a dict over rows; the predict function of their majority, ties
    and unseen types to the class earliest in ``priority`` among the tied."""
    n_classes = len(priority)
    counts = defaultdict(lambda: [0.0] * n_classes)
    for i, (row, label) in enumerate(zip(map(tuple, B.tolist()), y.tolist())):
        counts[row][label] += w[i]

    def predict(row):
        c = counts.get(tuple(row), [0.0] * n_classes)
        return next(k for k in priority if c[k] == max(c))

    return counts, predict


@st.composite
def problems(draw):
    n = draw(st.integers(6, 30))
    m = draw(st.integers(1, 4))
    k = draw(st.integers(3, 4))
    X = np.array(draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    weighted = draw(st.booleans())
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))) if weighted else None
    if w is not None and (w > 0).sum() < 3:
        w[:3] = 1
    keep = np.ones(n, dtype=bool) if w is None else w > 0
    if len(np.unique(y[keep])) < 3:  # fewer classes: the two-class method
        y[np.flatnonzero(keep)[:3]] = [0, 1, 2]
    selection = draw(st.sampled_from(["filter", "wrapper"]))
    return X.astype(int), y, w, selection, draw(st.integers(0, 3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_native_multiclass_matches_a_per_type_majority_by_dict(problem):
    X, y, w, selection, seed = problem
    model = IdealDNFClassifier(binarizer="passthrough", selection=selection, max_features=X.shape[1],
                               max_rule_size=None, random_state=seed).fit(X, y, sample_weight=w)
    keep = np.ones(len(y), dtype=bool) if w is None else w > 0
    Xk, target = X[keep].astype(bool), np.searchsorted(model.classes_, y[keep])
    wk = np.ones(len(target)) if w is None else w[keep].astype(float)
    K = len(model.classes_)
    priority = priority_of(target, wk, K)  # of all training rows, as the tie rule is
    assert not hasattr(model, "estimators_") and sorted(model.formula_) == model.classes_.tolist()
    # every candidate's validation and training accuracy, from a dict of the training part
    train, valid = model._split(target)
    wt, wv = wk[train], wk[valid]
    for features, val_acc, train_acc in zip(model.candidates_.features, model.candidates_.validation_accuracy,
                                            model.candidates_.training_accuracy):
        cols = [int(f[1:]) for f in features]
        counts, predict = reference(Xk[train][:, cols], target[train], wt, priority)
        right = sum(wv[i] for i, row in enumerate(Xk[valid][:, cols]) if predict(row) == target[valid][i])
        assert val_acc == pytest.approx(right / wv.sum(), abs=1e-12)
        errors = sum(sum(c) - c[predict(row)] for row, c in counts.items())
        assert train_acc == pytest.approx(1 - errors / wt.sum(), abs=1e-12)
    # the final classifier on every combination of the selected attributes
    cols = [int(f[1:]) for f in model.selected_features_]
    counts, predict = reference(Xk[:, cols], target, wk, priority)
    grid = np.zeros((1 << len(cols), X.shape[1]), dtype=int)
    grid[:, cols] = list(product([0, 1], repeat=len(cols)))
    expected = np.array([predict(row) for row in grid[:, cols].astype(bool)])
    np.testing.assert_array_equal(model.predict(grid), model.classes_[expected])
    holds = np.column_stack([model.formula_[c].evaluate(grid.astype(bool), feature_names=model.attribute_names_)
                             for c in model.classes_.tolist()])
    np.testing.assert_array_equal(holds, np.eye(K, dtype=bool)[expected])  # the formulas partition
    raw = np.column_stack([model.raw_formula_[c].evaluate(grid.astype(bool), feature_names=model.attribute_names_)
                           for c in model.classes_.tolist()])
    np.testing.assert_array_equal(raw, holds)
    proba = model.predict_proba(grid)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba.argmax(axis=1), expected)
    smoothed = np.array([[(c + 1) / (sum(row) + K) for c in row]
                         for row in (counts.get(tuple(r), np.bincount(target, weights=wk, minlength=K).tolist())
                                     for r in grid[:, cols].astype(bool).tolist())])
    agree = smoothed.argmax(axis=1) == expected
    np.testing.assert_allclose(proba[agree], smoothed[agree])


def test_class_priority_is_label_invariant():
    labels = np.array([2, 0, 1, 1, 0, 2, 2])
    assert class_priority(labels, 3).tolist() == [2, 0, 1]
    renamed = np.array([1, 2, 0])[labels]
    assert class_priority(renamed, 3).tolist() == [0, 1, 2]  # the same classes, renamed
    assert class_priority(labels, 3, weights=np.array([1, 5, 1, 1, 0.5, 1, 1.0])).tolist() == [0, 2, 1]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("selection", ["filter", "wrapper"])
def test_permuting_the_labels_permutes_the_predictions(seed, selection):
    rng = np.random.default_rng(seed)
    n = 150
    X = pd.DataFrame(rng.integers(0, 4, size=(n, 5)), columns=list("abcde"))
    y = (X.a + X.b + rng.integers(0, 3, n)) % 4
    names = np.array(["w", "x", "y", "z"])
    renamed = np.array(["z", "w", "y", "x"])  # another order of the sorted classes
    w = rng.integers(0, 3, n) if seed % 2 else None
    fits = [IdealDNFClassifier(selection=selection, max_features=4, random_state=seed)
            .fit(X, labels[y], sample_weight=w) for labels in (names, renamed)]
    first, second = fits
    to_second = dict(zip(names, renamed))
    np.testing.assert_array_equal([to_second[p] for p in first.predict(X)], second.predict(X))
    columns = [list(second.classes_).index(to_second[c]) for c in first.classes_]
    np.testing.assert_allclose(first.predict_proba(X), second.predict_proba(X)[:, columns])
    assert {to_second[c]: str(f) for c, f in first.formula_.items()} == {c: str(f) for c, f in second.formula_.items()}


@pytest.mark.parametrize("name", ["iris", "wine", "heart_disease_cleveland"])
def test_bundled_multiclass_data(name, tmp_path):
    if name == "heart_disease_cleveland":
        X, y = load_dataset(name, binary_target=False)
        y = np.asarray(y)
    else:
        from sklearn import datasets

        data = getattr(datasets, f"load_{name}")(as_frame=True)
        X, y = data.data, np.asarray(data.target)
    binarizer = "quantile" if name == "iris" else "median"  # one median cut cannot tell three species
    model = IdealDNFClassifier(binarizer=binarizer, random_state=0).fit(X, y)
    assert sorted(model.formula_) == np.unique(y).tolist()
    accuracy = model.score(X, y)
    assert accuracy > {"iris": 0.9, "wine": 0.85, "heart_disease_cleveland": 0.55}[name]
    # the classes' formulas partition the training rows; the predicted class's formula holds
    Xb = model.binarize(X)
    holds = np.column_stack([model.formula_[c].evaluate(Xb, feature_names=model.attribute_names_)
                             for c in model.classes_.tolist()])
    assert (holds.sum(axis=1) == 1).all()
    np.testing.assert_array_equal(model.classes_[holds.argmax(axis=1)], model.predict(X))
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.classes_[model.decision_function(X).argmax(axis=1)], model.predict(X))
    rules = model.get_rules()
    assert set(rules["class"]) == set(model.classes_.tolist())
    texts = model.explain(X.iloc[:10])
    assert all(t.split(":")[0] == str(p) for t, p in zip(texts, model.predict(X.iloc[:10])))
    assert str(model).count(" THEN ") == len(model.classes_)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_allclose(loaded.predict_proba(X), proba)
    assert loaded.formula_ == model.formula_ and loaded.raw_formula_ == model.raw_formula_
    # one-vs-rest stays available
    ovr = IdealDNFClassifier(binarizer=binarizer, random_state=0, multiclass="ovr").fit(X, y)
    assert sorted(ovr.estimators_) == sorted(model.formula_)


def test_two_class_options_are_refused_with_more_classes():
    X = np.random.default_rng(0).integers(0, 2, size=(30, 3))
    y = np.arange(30) % 3
    with pytest.raises(ValueError, match="tie='positive'.*multiclass='ovr'"):
        IdealDNFClassifier(binarizer="passthrough", tie="positive").fit(X, y)
    with pytest.raises(ValueError, match="protocol='paper'.*multiclass='ovr'"):
        IdealDNFClassifier(binarizer="passthrough", protocol="paper").fit(X, y)
    IdealDNFClassifier(binarizer="passthrough", tie="positive", multiclass="ovr").fit(X, y)
