"""Literals that know their condition: honest text, intervals, JSON, models carrying conditions."""

import json

import numpy as np
import pandas as pd

from logicrules.conditions import Domain, literal_text, with_conditions
from logicrules.fca.scaling import Condition, MedianBinarizer, QuantileBinarizer
from logicrules.formula import Literal
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.persistence import formula_from_json, formula_to_json, load_model, save_model


def lit(column, op, value=None, negated=False, missing="false"):
    c = Condition(column, op, value, missing=missing)
    return Literal(c.name, negated, c)


def test_negations_say_what_happens_to_missing_values():
    assert str(lit("x", "<=", 2.5, negated=True)) == "x > 2.5 or missing"
    assert str(lit("x", "<=", 2.5, negated=True, missing="error")) == "x > 2.5"
    assert str(lit("A", "==", "a", negated=True)) == "A != a or missing"
    assert str(lit("A", "!=", "a", negated=True)) == "A == a or missing"
    assert str(lit("s", "is true", negated=True)) == "NOT s or missing"
    assert str(lit("x", "is missing", negated=True)) == "x is not missing"
    assert str(lit("x", ">", 1.0, negated=True) & lit("y", ">", 2.0)) == "(x <= 1 or missing) AND y > 2"
    assert literal_text(Condition("x", ">=", 3.0), False) == "x >= 3"


def test_two_bounds_on_one_column_print_as_an_interval():
    low, high = lit("x", ">", 20.0), lit("x", ">", 50.0)
    assert str(low & ~high) == "20 < x <= 50"
    assert str(~high & lit("y", "==", "u") & low) == "20 < x <= 50 AND y == u"
    assert str(~lit("x", "<=", 20.0) & ~high) == "(20 < x <= 50 or missing)"
    assert str(lit("x", ">=", 1.0) & lit("x", "<", 2.0, missing="error")) == "1 <= x < 2"
    # three bounds on a column: printed literal by literal (an interval stands for two literals)
    assert str(low & ~high & lit("x", ">", 30.0)) == "x > 20 AND (x <= 50 or missing) AND x > 30"


def test_conditions_survive_json_and_model_files(tmp_path):
    f = lit("x", "<=", 2.5, negated=True) | (lit("A", "==", "a") & lit("s", "is true"))
    again = formula_from_json(json.loads(json.dumps(formula_to_json(f))))
    assert again == f and str(again) == str(f)
    assert [op.condition for op in again.operands[1].operands] == [op.condition for op in f.operands[1].operands]

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 80, 200).astype(float), "sex": rng.choice(["f", "m"], 200)})
    X.loc[::7, "age"] = np.nan
    y = ((X.age > 50) & (X.sex == "m")).astype(int)
    model = IdealDNFClassifier(random_state=0).fit(X, y)
    leaves = [op for op in [model.formula_, *getattr(model.formula_, "operands", [])] if isinstance(op, Literal)]
    assert leaves and all(leaf.condition is not None for leaf in leaves)
    assert all(leaf.condition.missing == "false" for leaf in leaves)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert str(loaded.formula_) == str(model.formula_)
    assert loaded.binarizer_.conditions_ == model.binarizer_.conditions_


def test_binarizers_record_policy_and_categories():
    X = pd.DataFrame({"x": [1.0, 2.0, np.nan, 4.0], "c": ["u", "v", "u", None]})
    quantile = QuantileBinarizer(missing="indicator").fit(X)
    assert {c.missing for c in quantile.conditions_} == {"indicator"}
    assert quantile.categories_ == {"c": ["u", "v"]}
    median = MedianBinarizer(missing="false").fit(X)
    f = with_conditions(~Literal(median.conditions_[0].name), {c.name: c for c in median.conditions_})
    assert str(f) == "x <= 2 or missing"


def test_domain_patterns_tie_conditions_of_one_column():
    gt45, gt55 = Condition("x", ">", 45.0), Condition("x", ">", 55.0)
    assert Domain().patterns([gt45, gt55]).tolist() == [[False, False], [True, False], [True, True]]
    a, b = Condition("A", "==", "a", missing="error"), Condition("A", "!=", "b", missing="error")
    # open domain: an unseen category makes A == a false and A != b true
    assert Domain().patterns([a, b]).tolist() == [[False, False], [False, True], [True, True]]
    closed = Domain(categories={"A": ["a", "b"]}, unseen_categories=False)
    assert closed.patterns([a, b]).tolist() == [[False, False], [True, True]]
    codes = Domain([gt45, gt55]).assignments([gt45.name, "free", gt55.name])
    assert codes.tolist() == [0, 1, 2, 3, 5, 7]


def test_equivalence_on_the_domain_of_a_binarization():
    import pandas as pd

    from logicrules.equivalence import equivalent
    from logicrules.fca.scaling import QuantileBinarizer

    X = pd.DataFrame({"vote": ["y", "n", "y", "n", None], "age": [20.0, 30.0, 40.0, 50.0, 60.0]})
    binarizer = QuantileBinarizer(n_thresholds=2).fit(X)
    conditions = {c.name: c for c in binarizer.conditions_}
    yes, not_no = (Literal(n, condition=conditions[n]) for n in ("vote == y", "vote != n"))
    assert not equivalent(yes, not_no)
    assert equivalent(yes, not_no, domain=binarizer)
    assert not equivalent(yes, not_no, domain=binarizer, unseen_categories=True)  # "maybe" != n
    low, high = (Literal(c.name, condition=c) for c in binarizer.conditions_ if c.column == "age" and c.op == ">")
    assert equivalent(low | high, low, domain=binarizer) and not equivalent(low | high, high, domain=binarizer)


def test_compare_formulas_on_the_domain():
    from logicrules.base import RuleClassifier
    from logicrules.compare import compare_formulas

    class Fixed(RuleClassifier):
        def __init__(self, attribute="", binarizer="quantile"):
            self.attribute = attribute
            self.binarizer = binarizer

        def _fit_formula(self, Xb, y, names):
            return Literal(self.attribute)

    X = pd.DataFrame({"vote": ["y", "n", "y", "n", "y", "n"], "age": [20.0, 30, 40, 50, 60, 70]})
    y = [1, 0, 1, 0, 1, 1]
    models = {"yes": Fixed(attribute="vote == y").fit(X, y), "not no": Fixed(attribute="vote != n").fit(X, y)}
    assert not compare_formulas(models)["equivalent"].iloc[0]
    assert compare_formulas(models, on_domain=True)["equivalent"].iloc[0]
    models["old"] = Fixed(attribute="age > 45").fit(X, y)
    assert not compare_formulas(models, on_domain=True)["equivalent"].iloc[1:].any()
