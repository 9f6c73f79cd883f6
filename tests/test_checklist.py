"""The threshold node AtLeast: against its expansion on truth tables, exports, the m-of-n learner."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.checklist import AtLeast, at_least
from logicrules.equivalence import equivalent
from logicrules.export import to_latex, to_query
from logicrules.fca import bitset
from logicrules.formula import FALSE, TRUE, Literal, from_sympy
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.persistence import formula_from_json, formula_to_json

NAMES = ["a", "b", "c", "d", "e"]


@st.composite
def checklists(draw):
    n = draw(st.integers(2, 6))
    operands = [Literal(draw(st.sampled_from(NAMES)), draw(st.booleans())) for _ in range(n)]
    if draw(st.booleans()):  # a compound item too
        operands[0] = operands[0] & Literal(draw(st.sampled_from(NAMES)))
    return AtLeast(draw(st.integers(1, n)), operands)


def truth_table(k):
    return np.array(list(itertools.product([False, True], repeat=k)))


@settings(max_examples=40, deadline=None)
@given(checklists())
def test_at_least_matches_its_expansion_and_the_count(rule):
    X = truth_table(len(NAMES))
    got = rule.evaluate(X, feature_names=NAMES)
    items = np.column_stack([op.evaluate(X, feature_names=NAMES) for op in rule.operands])
    np.testing.assert_array_equal(got, items.sum(axis=1) >= rule.m)
    np.testing.assert_array_equal(got, rule.expand().evaluate(X, feature_names=NAMES))
    np.testing.assert_array_equal(got, rule.to_dnf().evaluate(X, feature_names=NAMES))
    bits = bitset.pack_columns(X)
    np.testing.assert_array_equal(bitset.unpack(rule.evaluate_bits(bits, len(X), NAMES), len(X)), got)
    np.testing.assert_array_equal((~rule).to_nnf().evaluate(X, feature_names=NAMES), ~got)
    # SymPy, JSON and the Tseitin path of equivalent all keep the function
    assert equivalent(from_sympy(rule.to_sympy()), rule)
    assert equivalent(rule, rule.expand(), max_table_variables=0)
    again = formula_from_json(json.loads(json.dumps(formula_to_json(rule))))
    assert again == rule and isinstance(again, AtLeast)


def test_size_text_and_normalization():
    a, b, c, d = (Literal(x) for x in "abcd")
    rule = AtLeast(2, [a, b, ~c, d])
    assert rule.size == 4 and rule.expand().size == 12
    assert str(rule) == "at least 2 of: a, b, NOT c, d"
    assert str(a & rule) == "a AND (at least 2 of: a, b, NOT c, d)"
    assert at_least(1, [a, b]) == a | b and at_least(2, [a, b]) == a & b
    assert at_least(0, [a]) is TRUE and at_least(3, [a, b]) is FALSE
    with pytest.raises(ValueError, match="1 <= m <= 2"):
        AtLeast(3, [a, b])
    with pytest.raises(ValueError, match="max_terms"):
        AtLeast(5, [Literal(f"x{i}") for i in range(12)]).expand(max_terms=100)


def test_exports_of_a_checklist_model():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, size=(300, 6)), columns=[f"q{i}" for i in range(6)])
    y = (X[["q0", "q1", "q2", "q3"]].sum(axis=1) >= 2).astype(int)
    model = LPRuleClassifier(rule="m_of_n", max_m=3, lam=0.001).fit(X, y)
    assert isinstance(model.formula_, AtLeast) and model.formula_.m == 2
    assert model.formula_.size == len(model.checklist_[0]) == 4
    np.testing.assert_array_equal(model.predict(X), y)
    rules = model.get_rules()
    assert len(rules) == 1 and rules["rule"].iloc[0].startswith("at least 2 of: ")
    assert sorted(X.query(to_query(model)).index) == list(np.flatnonzero(y))
    assert r"\operatorname{at\,least}_{2}" in to_latex(model)
    explanation = model.explain(X.iloc[[0]])[0]
    assert "items hold (at least 2 needed)" in explanation


def test_study_tables_count_the_checklist_literals():
    from logicrules.compare import compare_learners

    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.integers(0, 2, size=(200, 6)), columns=[f"q{i}" for i in range(6)])
    y = (X[["q0", "q1", "q2", "q3"]].sum(axis=1) >= 2).astype(int)
    results = compare_learners({"checks": (X, y)}, {"m_of_n": LPRuleClassifier(rule="m_of_n", lam=0.001)},
                               cv=2, return_estimators=True)
    for size, model in zip(results["formula_size"], results["estimator"]):
        assert size == len(model.checklist_[0]) == model.formula_.size
