"""predict_proba / decision_function from the rule's counts, pos_label, label-invariant ties."""

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import cross_val_score
from sklearn.multiclass import OneVsRestClassifier

from logicrules.base import RuleClassifier
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.formula import Literal
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.probability import assign_cells, consistent

LEARNERS = {
    "ideal": lambda **kw: IdealDNFClassifier(binarizer="passthrough", max_features=4, random_state=0, **kw),
    "premise": lambda **kw: OptimalPremiseClassifier(max_size=2, binarizer="passthrough", **kw),
    "lp_dnf": lambda **kw: LPRuleClassifier(rule="dnf", lam=0.01, binarizer="passthrough", **kw),
    "lp_cnf": lambda **kw: LPRuleClassifier(rule="cnf", lam=0.01, binarizer="passthrough", **kw),
    "lp_m_of_n": lambda **kw: LPRuleClassifier(rule="m_of_n", lam=0.01, binarizer="passthrough", **kw),
}


class Fixed(RuleClassifier):
    """A given formula, built from the attribute names."""

    def __init__(self, build=None, binarizer="passthrough", pos_label=None):
        self.build = build
        self.binarizer = binarizer
        self.pos_label = pos_label

    def _fit_formula(self, Xb, y, names):
        return self.build(names)


def noisy(seed, n=120, m=6):
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < 0.5
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    y ^= rng.random(n) < 0.15
    return X.astype(int), y.astype(int)


@pytest.mark.parametrize("name", list(LEARNERS))
def test_probabilities_are_consistent_with_predict(name):
    for seed in range(3):
        X, y = noisy(seed)
        model = LEARNERS[name]().fit(X, y)
        Xt, _ = noisy(seed + 100, n=60)
        proba = model.predict_proba(Xt)
        assert proba.shape == (60, 2)
        assert ((proba >= 0) & (proba <= 1)).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        predicted = model.predict(Xt)
        assert np.array_equal(model.classes_[proba.argmax(axis=1)], predicted)
        decision = model.decision_function(Xt)
        assert np.isfinite(decision).all()
        assert np.array_equal(model.classes_[(decision > 0).astype(int)], predicted)


def _reference_dnf_proba(terms, Xb, y, Xt):
    """Row by row: the firing term of best smoothed precision, else the rows where none fires."""
    def fires(term, row):
        return all(row[a] != neg for a, neg in term)

    def smoothed(rows):
        return (sum(y[i] for i in rows) + 1) / (len(rows) + 2)

    term_p = [smoothed([i for i in range(len(Xb)) if fires(t, Xb[i])]) for t in terms]
    rest = smoothed([i for i in range(len(Xb)) if not any(fires(t, Xb[i]) for t in terms)])
    out = []
    for row in Xt:
        firing = [p for t, p in zip(terms, term_p) if fires(t, row)]
        p = max(firing) if firing else rest
        if firing and p <= 0.5:  # the predicted class is raised 1e-9 above the other
            p = (1 - p + 1e-9) / (2 * (1 - p) + 1e-9)
        elif not firing and p > 0.5:
            p = p / (2 * p + 1e-9)
        out.append(p)
    return np.array(out)


def test_dnf_probabilities_match_row_by_row_reference():
    rng = np.random.default_rng(5)
    for trial in range(25):
        m = 4
        Xb = (rng.random((40, m)) < 0.5).astype(int)
        y = (rng.random(40) < 0.4).astype(int)
        y[:2] = [0, 1]
        terms = [[(int(a), bool(rng.random() < 0.3)) for a in rng.choice(m, size=rng.integers(1, 3), replace=False)]
                 for _ in range(rng.integers(1, 4))]

        def build(names, terms=terms):
            formula = None
            for term in terms:
                conj = None
                for a, neg in term:
                    lit = Literal(names[a], negated=neg)
                    conj = lit if conj is None else conj & lit
                formula = conj if formula is None else formula | conj
            return formula

        model = Fixed(build=build).fit(Xb, y)
        # the cells are the terms of the rule as simplified (formula_), not as built
        terms = [[(int(lit.attribute[1:]), lit.negated) for lit in term]
                 for term in model.formula_.conjunctions()]
        Xt = (rng.random((30, m)) < 0.5).astype(int)
        expected = _reference_dnf_proba(terms, Xb, y, Xt)
        np.testing.assert_allclose(model.predict_proba(Xt)[:, 1], expected, rtol=1e-7, atol=1e-8)


def test_consistency_helpers():
    P = consistent(np.array([[0.7, 0.3], [0.5, 0.5], [0.2, 0.8]]), np.array([1, 0, 1]))
    assert P.argmax(axis=1).tolist() == [1, 0, 1]
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P[2], [0.2, 0.8])
    masks = np.array([[1, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)
    sides = np.array([True, True, False])
    cells = assign_cells(masks, sides, np.array([True, False, False]), np.array([0.6, 0.9, 0.2]))
    assert cells.tolist() == [1, 2, 3]


@pytest.mark.parametrize("name", ["ideal", "premise", "lp_dnf"])
def test_scikit_learn_tools_use_the_probabilities(name):
    X, y = noisy(1, n=200)
    auc = cross_val_score(LEARNERS[name](), X, y, cv=3, scoring="roc_auc")
    assert np.isfinite(auc).all() and auc.mean() > 0.6
    calibrated = CalibratedClassifierCV(LEARNERS[name](), cv=3).fit(X, y)
    assert calibrated.predict_proba(X).shape == (200, 2)


def test_one_vs_rest_with_the_lp_learner():
    rng = np.random.default_rng(3)
    X = (rng.random((240, 5)) < 0.5).astype(int)
    y = X[:, 0] + X[:, 1] * (1 - X[:, 0]) * 2
    model = OneVsRestClassifier(LEARNERS["lp_dnf"]()).fit(X, y)
    assert model.score(X, y) > 0.9
    assert model.predict_proba(X).shape == (240, 3)


@pytest.mark.parametrize("name", list(LEARNERS))
def test_pos_label_names_the_described_class(name):
    X, y = noisy(2)
    labels = np.where(y == 1, "sick", "well")
    default = LEARNERS[name]().fit(X, labels)
    assert default.pos_label_ == "well"  # classes_[1]
    model = LEARNERS[name](pos_label="sick").fit(X, labels)
    assert model.pos_label_ == "sick"
    Xb = X.astype(bool)
    fires = model.formula_.evaluate(Xb, feature_names=model.attribute_names_)
    assert np.array_equal(model.predict(X) == "sick", fires)
    assert model.score(X, labels) > 0.7
    assert f"THEN sick ELSE well" in str(model)
    proba = model.predict_proba(X)
    assert np.array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))
    rules = model.get_rules()
    assert (rules["precision"].dropna() >= 0).all()
    with pytest.raises(ValueError, match="pos_label"):
        LEARNERS[name](pos_label="other").fit(X, labels)


def test_ideal_classifier_is_label_invariant_by_default():
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(20, 80))
        X = (rng.random((n, 4)) < 0.5).astype(int)
        y = ((X[:, 0] ^ (rng.random(n) < 0.3)) | (rng.random(n) < 0.2)).astype(int)
        if seed % 3 == 0:  # exactly balanced classes: ties go to the first row's class
            y = np.array([0, 1] * (n // 2) + [0] * (n % 2))[:n]
            X = X[:len(y)]
        Xt = np.array([[a, b, c, d] for a in (0, 1) for b in (0, 1) for c in (0, 1) for d in (0, 1)])
        a = IdealDNFClassifier(binarizer="passthrough", random_state=seed).fit(X, y)
        b = IdealDNFClassifier(binarizer="passthrough", random_state=seed).fit(X, 1 - y)
        assert np.array_equal(a.predict(Xt), 1 - b.predict(Xt)), seed
        np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(Xt)[:, ::-1], atol=1e-8)


def test_ideal_paper_tie_is_not_label_invariant():
    X = np.array([[1]] * 40 + [[0]] * 40)
    y = np.array([1, 0] * 20 + [0] * 40)
    a = IdealDNFClassifier(binarizer="passthrough", tie="positive", random_state=0).fit(X, y)
    b = IdealDNFClassifier(binarizer="passthrough", tie="positive", random_state=0).fit(X, 1 - y)
    assert a.predict([[1]]).tolist() == [1] and b.predict([[1]]).tolist() == [1]


def test_pos_label_on_dataframe_ideal():
    X = pd.DataFrame({"a": [0, 0, 1, 1] * 10, "b": [0, 1, 0, 1] * 10})
    y = pd.Series(["no", "no", "no", "yes"] * 10)
    model = IdealDNFClassifier(binarizer="passthrough", pos_label="no", random_state=0).fit(X, y)
    assert str(model.formula_) == "NOT a OR NOT b"
    assert model.predict(X).tolist() == y.tolist()


@pytest.mark.parametrize("name", ["ideal", "premise", "lp_dnf"])
def test_verbose_reports_progress_and_default_is_silent(name, capsys):
    X, y = noisy(0)
    LEARNERS[name]().fit(X, y)
    assert capsys.readouterr().err == ""
    labels = np.array(["a", "b", "c"])[(X[:, 0] + 2 * X[:, 1] * (1 - X[:, 0])).astype(int)]
    model = LEARNERS[name](verbose=1)
    if name.startswith("lp"):
        model.set_params(lam="cv")
    model.fit(X, y if name == "ideal" else labels)
    assert capsys.readouterr().err != ""


def test_progress_without_tqdm_prints_lines(monkeypatch, capsys):
    import builtins

    from logicrules.progress import progress_bar

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    with progress_bar(2, "steps", verbose=1) as bar:
        bar.update()
        bar.update()
    assert capsys.readouterr().err.splitlines() == ["steps: 1/2", "steps: 2/2"]
