"""The estimator base: validation, binarization, prediction and presentation of a rule.

A tiny learner defined here (best single literal, or a fixed formula) exercises the base without
depending on any of the real learners.
"""

import pickle

import numpy as np
import pandas as pd
import pytest

from sklearn.utils.estimator_checks import parametrize_with_checks

from logicrules.base import RuleClassifier, make_binarizer
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer
from logicrules.formula import And, Literal, Or


class BestLiteral(RuleClassifier):
    """Predicts with the single attribute of highest training accuracy."""

    def __init__(self, *, binarizer="quantile"):
        self.binarizer = binarizer

    def _fit_formula(self, Xb, y, names, sample_weight=None):
        accuracy = np.average(Xb == y[:, None], axis=0, weights=sample_weight)
        return Literal(names[int(np.argmax(accuracy))])


class Fixed(RuleClassifier):
    """Returns a formula built by a callable from the attribute names."""

    def __init__(self, *, build=None, binarizer="passthrough"):
        self.build = build
        self.binarizer = binarizer

    def _fit_formula(self, Xb, y, names):
        return self.build(names)


def toy_frame():
    X = pd.DataFrame({
        "age": [30, 40, 50, 60, 70, 80],
        "sex": ["m", "f", "m", "f", "m", "f"],
    })
    y = pd.Series(["no", "no", "no", "yes", "yes", "yes"])
    return X, y


def test_fit_predict_on_dataframe_keeps_names_and_labels():
    X, y = toy_frame()
    X_before = X.copy()
    model = BestLiteral(binarizer=MedianBinarizer()).fit(X, y)
    assert model.classes_.tolist() == ["no", "yes"]
    assert model.n_features_in_ == 2 and model.feature_names_in_.tolist() == ["age", "sex"]
    assert str(model.formula_) == "age > 55"
    assert model.predict(X).tolist() == y.tolist()
    assert model.score(X, y) == 1.0
    assert "IF age > 55 THEN yes" in str(model)
    pd.testing.assert_frame_equal(X, X_before)
    assert str(model.to_sympy()) == "age > 55"


def test_passthrough_requires_binary_matrix():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    y = np.array([0, 1, 1, 0])
    model = BestLiteral(binarizer="passthrough").fit(X, y)
    assert str(model.formula_) == "x0"
    with pytest.raises(ValueError, match=r"columns with other values or NaN: \[.x0., .x1.\]"):
        BestLiteral(binarizer="passthrough").fit(X * 2, y)
    with pytest.raises(ValueError, match=r"boolean \(0/1\)"):
        BestLiteral(binarizer="passthrough").fit(np.where(X == 1, np.nan, 0.0), y)


def test_bad_targets_and_shapes():
    X, y = toy_frame()
    three = BestLiteral().fit(X, pd.Series(["a", "b", "c", "a", "b", "c"]))  # one rule per class
    assert sorted(three.formula_) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="class"):
        BestLiteral().fit(X, pd.Series(["a"] * 6))
    with pytest.raises(ValueError, match="6 rows but y has 5"):
        BestLiteral().fit(X, y[:5])
    with pytest.raises(ValueError, match="Unknown label type"):
        BestLiteral().fit(X, np.linspace(0, 1, 6))
    with pytest.raises(ValueError, match="requires y"):
        BestLiteral().fit(X, None)
    model = BestLiteral(binarizer=MedianBinarizer()).fit(X, y)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(X.rename(columns={"age": "AGE"}))
    with pytest.raises(ValueError, match="'binarizer' parameter of BestLiteral must be .* Got 'bins'"):
        BestLiteral(binarizer="bins").fit(X, y)
    with pytest.raises(TypeError, match="'binarizer' parameter of BestLiteral must be .* Got 3"):
        BestLiteral(binarizer=3).fit(X, y)


def test_explain_and_rules_for_a_dnf():
    X = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 0]])
    y = np.array([1, 0, 1, 0])
    model = Fixed(build=lambda n: Or(And(Literal(n[0]), Literal(n[1])), Literal(n[2]))).fit(X, y)
    assert model.predict(X).tolist() == [1, 0, 1, 0]
    expl = model.explain(X)
    assert expl[0] == "1: x0 AND x1 holds"
    assert expl[1] == "0: x1 is false; x2 is false"
    assert expl[2] == "1: x2 holds"
    rules = model.get_rules()
    assert rules["rule"].tolist() == ["x0 AND x1", "x2", "(x0 AND x1) OR x2"]
    assert rules["support"].tolist() == [1, 1, 2]
    assert rules["precision"].tolist() == [1.0, 1.0, 1.0]
    assert rules["coverage"].tolist() == [0.25, 0.25, 0.5]
    again = model.get_rules(X[:2], y[:2])
    assert again["support"].tolist() == [1, 0, 1]


def test_explain_for_a_cnf():
    X = np.array([[1, 0, 1], [0, 0, 1], [0, 1, 0]])
    y = np.array([1, 0, 0])
    model = Fixed(build=lambda n: And(Or(Literal(n[0]), Literal(n[1])), Literal(n[2]))).fit(X, y)
    assert model.predict(X).tolist() == [1, 0, 0]
    expl = model.explain(X)
    assert expl[0] == "1: x0 is true; x2 is true"
    assert expl[1] == "0: clause x0 OR x1 fails"
    assert expl[2] == "0: clause x2 fails"
    assert model.get_rules()["rule"].tolist() == ["x0 OR x1", "x2", "(x0 OR x1) AND x2"]


def test_formula_over_unknown_attributes_is_rejected():
    X = np.array([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="unknown to the binarizer"):
        Fixed(build=lambda n: Literal("nope")).fit(X, [0, 1])


def test_pickle_round_trip():
    X, y = toy_frame()
    model = BestLiteral(binarizer=QuantileBinarizer()).fit(X, y)
    clone = pickle.loads(pickle.dumps(model))
    assert clone.predict(X).tolist() == model.predict(X).tolist()
    assert clone.formula_ == model.formula_


def test_make_binarizer_clones():
    prototype = QuantileBinarizer(n_thresholds=3)
    made = make_binarizer(prototype)
    assert made is not prototype and made.get_params() == prototype.get_params()
    assert make_binarizer("passthrough") is None


@parametrize_with_checks([BestLiteral()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
