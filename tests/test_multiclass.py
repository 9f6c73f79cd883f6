"""More than two classes: one rule per class for every learner, probabilities, rules, files, CLI."""

import numpy as np
import pandas as pd
import pytest

from logicrules.datasets import load_dataset
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.persistence import load_model, save_model

LEARNERS = {
    "ideal": lambda: IdealDNFClassifier(max_features=4, random_state=0),
    "premise": lambda: OptimalPremiseClassifier(max_size=2),
    "lp": lambda: LPRuleClassifier(rule="dnf", lam=0.01),
}


def three_classes(seed, n=240):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, 4)), columns=["a", "b", "c", "d"])
    y = np.where(X.a > 0.6, "high", np.where(X.b > 0.5, "mid", "low"))
    flip = rng.random(n) < 0.05
    y[flip] = rng.choice(["high", "mid", "low"], size=flip.sum())
    return X, y


@pytest.mark.parametrize("name", list(LEARNERS))
def test_one_rule_per_class_and_consistent_probabilities(name, tmp_path):
    X, y = three_classes(0)
    model = LEARNERS[name]().fit(X, y)
    assert model.classes_.tolist() == ["high", "low", "mid"]
    assert sorted(model.formula_) == ["high", "low", "mid"]
    assert model.score(X, y) > 0.85
    proba = model.predict_proba(X)
    assert proba.shape == (240, 3) and ((proba > 0) & (proba < 1)).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    predicted = model.predict(X)
    assert np.array_equal(model.classes_[proba.argmax(axis=1)], predicted)
    assert np.array_equal(model.classes_[model.decision_function(X).argmax(axis=1)], predicted)
    # a class whose rule fires wins over every class whose rule does not
    Xb = model.binarize(X)
    fires = np.column_stack([model.formula_[c].evaluate(Xb, feature_names=model.attribute_names_)
                             for c in model.classes_])
    some = fires.any(axis=1)
    assert fires[np.flatnonzero(some), proba.argmax(axis=1)[some]].all()
    rules = model.get_rules()
    assert set(rules["class"]) <= {"high", "low", "mid"} and len(rules) >= 3
    assert model.get_rules(X, y).shape == rules.shape
    texts = model.explain(X.iloc[:20])
    assert all(t.split(":")[0] == p for t, p in zip(texts, predicted[:20]))
    assert str(model).count(" THEN ") == 3
    assert set(model.to_sympy()) == {"high", "low", "mid"}
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.predict(X), predicted)
    np.testing.assert_allclose(loaded.predict_proba(X), proba)
    assert loaded.formula_ == model.formula_


def test_multiclass_on_bundled_data_with_weights():
    X, y = load_dataset("heart_disease_cleveland", binary_target=False)
    X, y = X.iloc[:200], np.asarray(y)[:200]
    model = LPRuleClassifier(rule="or", lam=0.01).fit(X, y)
    assert len(model.formula_) == len(np.unique(y))
    assert model.score(X, y) > 0.5
    w = np.random.default_rng(0).integers(0, 3, size=len(y))
    weighted = LPRuleClassifier(rule="or", lam=0.01).fit(X, y, sample_weight=w)
    index = np.repeat(np.arange(len(y)), w)
    repeated = LPRuleClassifier(rule="or", lam=0.01).fit(X.iloc[index], y[index])
    assert weighted.formula_ == repeated.formula_
    with pytest.raises(ValueError, match="pos_label"):
        LPRuleClassifier(pos_label=0).fit(X, y)


@pytest.mark.parametrize("name", ["premise", "lp"])
def test_per_class_rules_are_simplified_on_the_domain(name):
    from tests.test_simplify import redundant_pairs

    rng = np.random.default_rng(1)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    X.loc[rng.random(300) < 0.05, "b"] = np.nan
    y = np.where(X.a < -0.5, "low", np.where(X.a < 0.5, "mid", "high"))
    learner = {"premise": OptimalPremiseClassifier(max_size=3, binarizer="quantile"),
               "lp": LPRuleClassifier(rule="dnf", lam=0.001, binarizer="quantile")}[name]
    model = learner.fit(X, y)
    assert model.score(X, y) > 0.9
    assert sorted(model.raw_formula_) == sorted(model.formula_) == ["high", "low", "mid"]
    # rows of the whole domain: values between and beyond every threshold, and missing ones
    grid = pd.DataFrame({"a": np.r_[np.linspace(-3, 3, 61), np.nan].repeat(62),
                         "b": np.tile(np.r_[np.linspace(-3, 3, 61), np.nan], 62)})
    for label, formula in model.formula_.items():
        raw = model.raw_formula_[label]
        assert formula.size <= raw.size
        kind, terms = model.estimators_[label]._terms()
        assert all(lit.condition is not None for term in terms for lit in term)
        for Xb in (model.binarize(X), model.binarize(grid)):
            np.testing.assert_array_equal(formula.evaluate(Xb, feature_names=model.attribute_names_),
                                          raw.evaluate(Xb, feature_names=model.attribute_names_))
        assert not any(redundant_pairs(term) for term in terms), str(formula)
