"""Presentation of a rule: str(model) and get_rules() term by term, explanations with missing values."""

import numpy as np
import pandas as pd

from logicrules.base import RuleClassifier
from logicrules.fca.scaling import QuantileBinarizer
from logicrules.formula import Literal
from logicrules.presentation import explanations, rules_frame


class Fixed(RuleClassifier):
    """Returns a formula built by a callable from the attribute names."""

    def __init__(self, build=None, binarizer="passthrough"):
        self.build = build
        self.binarizer = binarizer

    def _fit_formula(self, Xb, y, names):
        return self.build(names)


def test_str_and_get_rules_show_each_term_and_the_whole_rule():
    X = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 1, 1]])
    y = np.array([1, 0, 1, 0, 0])
    model = Fixed(build=lambda n: (Literal(n[0]) & Literal(n[1])) | Literal(n[2])).fit(X, y)
    rules = model.get_rules()
    assert rules["rule"].tolist() == ["x0 AND x1", "x2", "(x0 AND x1) OR x2"]
    assert rules["part"].tolist() == ["term", "term", "rule"]
    single = Fixed(build=lambda n: Literal(n[2])).fit(X, y).get_rules()
    assert single["rule"].tolist() == ["x2"] and single["part"].tolist() == ["term"]
    assert rules["size"].tolist() == [2, 1, 3]
    assert rules["support"].tolist() == [1, 2, 3]
    np.testing.assert_allclose(rules["precision"], [1.0, 0.5, 2 / 3])
    np.testing.assert_allclose(rules["coverage"], [0.2, 0.4, 0.6])
    text = str(model).splitlines()
    assert text[0] == "Fixed: IF (x0 AND x1) OR x2 THEN 1 ELSE 0"
    assert text[1].split() == ["support", "precision", "coverage", "term"]
    assert text[2].split() == ["1", "1.000", "0.200", "x0", "AND", "x1"]
    assert text[4].split()[:3] == ["3", "0.667", "0.600"] and text[4].endswith("(whole rule, 3 literals)")


def test_explanations_name_each_literal_once():
    a, b, c = Literal("a"), Literal("b"), Literal("c")
    formula = (a & b) | (a & c) | (a & ~b)
    Xb = np.array([[0, 1, 1], [1, 0, 0]], dtype=bool)
    prediction = formula.evaluate(Xb, feature_names=["a", "b", "c"])
    texts = explanations(formula, Xb, ["a", "b", "c"], prediction, ["no", "yes"])
    assert texts[0] == "no: a is false"
    assert texts[1] == "yes: a AND NOT b holds"


def test_missing_values_are_named_in_explanations():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=200), "z": rng.normal(size=200)})
    X.loc[:9, "x"] = np.nan
    binarizer = QuantileBinarizer(n_thresholds=1)

    def build(names):
        le, gt = [n for n in names if n.startswith("x <=")][0], [n for n in names if n.startswith("z >")][0]
        return ~Literal(le) | Literal(gt)
    model = Fixed(build=build, binarizer=binarizer).fit(X, (X.z > 0).astype(int))
    assert str(model.formula_).startswith("(x > ")
    row = X.iloc[[0]].assign(z=-1.0)
    text = model.explain(row)[0]
    assert text.endswith("holds (x is missing)") and "or missing" in text
    negative = X.iloc[[0]].assign(x=-5.0, z=-1.0)
    text = model.explain(negative)[0]
    assert "(x is missing)" not in text and text.count("is false") == 2


def test_rules_frame_of_a_cnf():
    a, b, c = Literal("a"), Literal("b"), Literal("c")
    formula = (a | b) & (b | c)
    Xb = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 0]], dtype=bool)
    frame = rules_frame(formula, Xb, ["a", "b", "c"], np.array([True, True, False]))
    assert frame["part"].tolist() == ["clause", "clause", "rule"]
    assert frame["support"].tolist() == [3, 2, 2]


def test_checklist_explanations_name_missing_values():
    from logicrules.checklist import AtLeast
    from logicrules.fca.scaling import Condition

    conditions = [Condition(c, ">", 0.0) for c in "uvw"]
    items = [Literal(c.name, condition=c) for c in conditions]
    rule = AtLeast(2, items)
    Xb = np.array([[True, False, False], [True, True, False]])
    prediction = rule.evaluate(Xb, feature_names=[c.name for c in conditions])
    missing = {"v": np.array([True, False]), "w": np.array([False, False])}
    texts = explanations(rule, Xb, [c.name for c in conditions], prediction, ["no", "yes"], missing)
    assert texts[0] == "no: 1 of the 3 items hold (at least 2 needed): u > 0; not holding (v is missing)"
    assert texts[1] == "yes: 2 of the 3 items hold (at least 2 needed): u > 0, v > 0"
