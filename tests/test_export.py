"""Formula export: text, JSON, SymPy, LaTeX, and pandas queries that select the predicted rows."""

import json

import numpy as np
import pandas as pd
import pytest
import sympy

from logicrules.datasets import load_dataset
from logicrules.export import export_formula, to_latex, to_query, to_sympy, to_text
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.fca.scaling import QuantileBinarizer, ThresholdBinarizer
from logicrules.formula import FALSE, TRUE, Literal
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.persistence import formula_from_json
from tests.test_persistence import _mixed_frame


def _assert_query_selects_positives(model, X, **kwargs):
    q = to_query(model, **kwargs)
    selected = X.query(q).index
    positive = X.index[np.asarray(model.predict(X)) == model.classes_[1]]
    assert selected.equals(positive), q
    return q


@pytest.fixture(scope="module")
def datasets():
    return {name: load_dataset(name) for name in ("hepatitis", "congressional_voting")} | {"mixed": _mixed_frame()}


@pytest.mark.parametrize("data", ["hepatitis", "congressional_voting", "mixed"])
@pytest.mark.parametrize("binarizer", ["median", "quantile", "threshold"])
def test_query_matches_premise_predictions(data, binarizer, datasets):
    X, y = datasets[data]
    for size in (1, 2 if binarizer == "threshold" else 3):
        model = OptimalPremiseClassifier(max_size=size, binarizer=binarizer).fit(X, y)
        _assert_query_selects_positives(model, X)


@pytest.mark.parametrize("rule", ["or", "and", "dnf", "cnf", "m_of_n"])
def test_query_matches_lp_predictions(rule, datasets):
    X, y = datasets["mixed"]
    model = LPRuleClassifier(rule=rule, lam=0.002).fit(X, y)
    _assert_query_selects_positives(model, X)


@pytest.mark.parametrize("data", ["hepatitis", "mixed"])
def test_query_matches_ideal_predictions(data, datasets):
    X, y = datasets[data]
    model = IdealDNFClassifier(binarizer="quantile", max_features=4, random_state=0).fit(X, y)
    _assert_query_selects_positives(model, X)


def test_query_with_missing_indicator_and_negations(datasets):
    X, y = datasets["hepatitis"]
    model = OptimalPremiseClassifier(max_size=3, objective="accuracy",
                                     binarizer=QuantileBinarizer(n_thresholds=3, missing="indicator")).fit(X, y)
    _assert_query_selects_positives(model, X)
    # every literal the binarizer can produce, alone and negated, selects exactly its rows
    from logicrules.formula import Not

    for condition in model.binarizer_.conditions_:
        for formula in (Literal(condition.name), Not(Literal(condition.name))):
            model.formula_ = formula
            _assert_query_selects_positives(model, X)


def test_every_literal_of_mixed_columns(datasets):
    X, y = datasets["mixed"]
    for binarizer in (QuantileBinarizer(missing="indicator"), ThresholdBinarizer()):
        model = LPRuleClassifier(binarizer=binarizer).fit(X, y)
        by_column = {}
        for condition in model.binarizer_.conditions_:
            by_column.setdefault(condition.column, []).append(condition)
        for condition in [c for group in by_column.values() for c in group[:3] + group[-2:]]:
            for literal in (Literal(condition.name), Literal(condition.name, negated=True)):
                model.formula_ = literal
                q = _assert_query_selects_positives(model, X)
                if condition.column == "home city":
                    assert "`home city`" in q


def test_query_constants_and_nullable_dtypes(datasets):
    X, y = datasets["hepatitis"]
    model = LPRuleClassifier(lam=0.9).fit(X, y)
    assert model.formula_ == FALSE
    assert X.query(to_query(model)).empty
    model.formula_ = TRUE
    assert len(X.query(to_query(model))) == len(X)
    # pandas' nullable dtypes (pd.NA) need guard_missing=True
    model = OptimalPremiseClassifier(max_size=2, binarizer="median").fit(X, y)
    model.formula_ = ~model.formula_
    Xn = X.convert_dtypes()
    assert Xn.isna().to_numpy().any()
    _assert_query_selects_positives(model, Xn, guard_missing=True)


def test_query_passthrough_and_bad_names():
    X = pd.DataFrame({"a": [1, 0, 1, 0], "b c": [1, 1, 0, 0]})
    y = [1, 1, 0, 0]
    model = OptimalPremiseClassifier(max_size=2, binarizer="passthrough").fit(X, y)
    assert _assert_query_selects_positives(model, X) == "(`b c` == 1)"
    model.formula_ = Literal("a") | ~Literal("b c")
    _assert_query_selects_positives(model, X)
    Xb = X.rename(columns={"a": "a`x"})
    bad = OptimalPremiseClassifier(max_size=1, binarizer="passthrough").fit(Xb, [1, 0, 1, 0])
    with pytest.raises(ValueError, match="backtick"):
        to_query(bad)
    with pytest.raises(TypeError, match="fitted model"):
        to_query(Literal("a"))
    with pytest.raises(ValueError, match="not fitted"):
        to_query(OptimalPremiseClassifier())


def test_text_sympy_json_latex(datasets):
    X, y = datasets["hepatitis"]
    model = OptimalPremiseClassifier(max_size=3, binarizer="quantile").fit(X, y)
    f = model.formula_
    assert to_text(model) == str(f) == export_formula(model, "text")
    assert to_sympy(model) == f.to_sympy()
    assert export_formula(model, "sympy") == str(f.to_sympy())
    assert formula_from_json(json.loads(export_formula(model, "json"))) == f
    assert export_formula(model, "query") == to_query(model)
    latex = to_latex(model)
    assert latex == export_formula(model, "latex")
    for name in {c.column for c in model.binarizer_.conditions_ if c.name in {str(a) for a in f.attributes}}:
        assert r"\text{" + name.replace("_", r"\_") + "}" in latex
    assert ("\\leq" in latex) == any("<=" in str(a) for a in f.attributes)
    assert ">" not in latex or "\\left(" in latex
    with pytest.raises(ValueError, match="unknown format"):
        export_formula(model, "xml")


def test_latex_of_bare_formula_escapes_names():
    f = Literal("a_1 & b") & ~Literal("50%")
    latex = to_latex(f)
    assert r"\text{a\_1 \& b}" in latex and r"\text{50\%}" in latex and r"\neg" in latex
    expr = to_sympy(f)
    assert isinstance(expr, sympy.And)


def test_query_with_awkward_column_names():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"1st": rng.normal(size=80), "a-b": rng.choice(["u", "v", "w"], 80),
                      "class": rng.integers(0, 5, 80).astype(float), "x.y": rng.random(80) < 0.5})
    X.loc[::7, "1st"] = np.nan
    y = (X["1st"] > 0) | (X["a-b"] == "v")
    model = LPRuleClassifier(rule="dnf", lam=0.001).fit(X, y)
    for condition in model.binarizer_.conditions_:
        model.formula_ = Literal(condition.name, negated=True)
        q = _assert_query_selects_positives(model, X)
        assert f"`{condition.column}`" in q
