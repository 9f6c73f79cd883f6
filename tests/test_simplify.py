"""Domain-aware simplification: exact on every row of the domain, shorter, no redundant literals."""

import itertools
import math

import numpy as np
import pytest
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logicrules.checklist import AtLeast, at_least
from logicrules.fca.scaling import Condition
from logicrules.formula import And, Literal, Not, Or, conjunction, disjunction
from logicrules.simplify import minimal_dnf, simplify_on_domain

GRID = [1.0, 2.0, 3.0]
VALUES = {"x": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5], "y": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5],
          "A": ["a", "b", "c", "unseen"], "s": [0.0, 1.0]}


def reference(condition, value):
    """Truth of a condition on a raw value, written from the binarizers' documentation."""
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    if condition.op == "is missing":
        return missing
    if missing:
        return False
    if condition.op == "is true":
        return value == 1.0
    if condition.op in ("==", "!="):
        return (value == condition.value) == (condition.op == "==")
    return {">": value > condition.value, "<=": value <= condition.value,
            ">=": value >= condition.value, "<": value < condition.value}[condition.op]


@st.composite
def literals(draw, policies):
    column = draw(st.sampled_from(["x", "y", "A", "s", "p", "q"]))
    if column in ("p", "q"):  # passthrough attributes: no condition
        return Literal(column, draw(st.booleans()))
    missing = policies[column]
    if column in ("x", "y"):
        op = draw(st.sampled_from([">", "<=", ">=", "<", "is missing"] if missing != "error" else
                                  [">", "<=", ">=", "<"]))
        c = Condition(column, op, None if op == "is missing" else draw(st.sampled_from(GRID)), missing=missing)
    elif column == "A":
        c = Condition("A", draw(st.sampled_from(["==", "!="])), draw(st.sampled_from(["a", "b", "c"])),
                      missing=missing)
    else:
        c = Condition("s", "is true", missing=missing)
    return Literal(c.name, draw(st.booleans()), c)


@st.composite
def formulas(draw, policies, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(literals(policies))
    kind = draw(st.sampled_from(["and", "or", "or", "and", "not", "atleast"]))
    if kind == "not":
        return Not(draw(formulas(policies, depth - 1)))
    ops = [draw(formulas(policies, depth - 1)) for _ in range(draw(st.integers(2, 4)))]
    if kind == "atleast":
        return at_least(draw(st.integers(1, len(ops))), ops)
    return conjunction(*ops) if kind == "and" else disjunction(*ops)


@st.composite
def cases(draw):
    policies = {c: draw(st.sampled_from(["error", "false"])) for c in ("x", "y", "A", "s")}
    return policies, draw(formulas(policies))


def domain_rows(policies):
    """Every combination of representative raw values (missing ones where the policy allows).

    Returns the value lists per column and the rows as an (n_rows, n_columns) index array.
    """
    values = {}
    for column, vals in VALUES.items():
        extra = [None if column == "A" else float("nan")] if policies[column] != "error" else []
        values[column] = vals + extra
    values["p"] = values["q"] = [False, True]
    grid = np.array(list(itertools.product(*(range(len(v)) for v in values.values()))))
    return values, grid


def evaluate_on_rows(formula, rows):
    values, grid = rows
    position = {column: j for j, column in enumerate(values)}
    leaves = {}
    stack = [formula]
    while stack:
        f = stack.pop()
        if isinstance(f, Literal):
            leaves[f.attribute] = f.condition
        else:
            stack.extend([f.operand] if isinstance(f, Not) else getattr(f, "operands", ()))
    names = sorted(leaves)
    columns = []
    for a in names:
        cond = leaves[a]
        column = a if cond is None else cond.column
        truth = np.array([bool(v) if cond is None else reference(cond, v) for v in values[column]])
        columns.append(truth[grid[:, position[column]]])
    matrix = np.array(columns, dtype=bool).T.reshape(len(grid), len(names))
    return formula.evaluate(matrix, feature_names=names)


def redundant_pairs(term):
    """Two bounds in one direction, or two positive categories, of one column in a conjunction.

    Two bounds in one direction are redundant unless one holds on a missing value and the other
    does not (``y <= 2 AND NOT y > 1`` is ``y <= 1``, missing excluded, which neither literal
    says alone).
    """
    seen = {}
    for lit in term:
        c = lit.condition
        if c is None or c.op in ("is missing", "is true", "!="):
            continue
        if c.op == "==":
            key = (c.column, "category") if not lit.negated else None
        else:
            lower = (c.op in (">", ">=")) != lit.negated
            key = (c.column, lower, lit.negated and c.missing != "error")
        if key is not None:
            if key in seen:
                return True
            seen[key] = lit
    return False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_simplified_formula_agrees_on_every_row_of_the_domain(case):
    policies, formula = case
    rows = domain_rows(policies)
    simplified = simplify_on_domain(formula)
    assert simplified.size <= formula.size
    np.testing.assert_array_equal(evaluate_on_rows(simplified, rows), evaluate_on_rows(formula, rows))
    if not any(isinstance(f, AtLeast) for f in [simplified, *getattr(simplified, "operands", [])]):
        try:
            terms = simplified.conjunctions()
        except TypeError:
            terms = []
        if simplified.size < formula.size and terms:
            assert not any(redundant_pairs(t) for t in terms), str(simplified)


def c(column, op, value=None, missing="false"):
    cond = Condition(column, op, value, missing=missing)
    return Literal(cond.name, condition=cond)


def test_the_issue_examples():
    assert str(simplify_on_domain(c("trestbps", "<=", 111.0) & c("trestbps", "<=", 153.0))) == "trestbps <= 111"
    assert str(simplify_on_domain(c("age", ">", 55.0) & c("age", ">", 45.0))) == "age > 55"
    a11, a14 = c("status", "==", "A11"), c("status", "==", "A14")
    assert str(simplify_on_domain(a11 & ~a14)) == "status == A11"
    assert str(simplify_on_domain(a11 & a14)) == "FALSE"
    assert str(simplify_on_domain((a11 & a14) | c("z", ">", 1.0))) == "z > 1"
    x20, x50 = c("x", ">", 20.0), c("x", ">", 50.0)
    assert str(simplify_on_domain(x20 & ~x50 & c("y", "==", "u"))) == "20 < x <= 50 AND y == u"
    # NOT x <= 20 also holds on a missing x, where x > 20 does not
    assert str(simplify_on_domain(x20 | ~c("x", "<=", 20.0))) == "x > 20 or missing"
    assert str(simplify_on_domain(x20 & ~c("x", "<=", 20.0))) == "x > 20"
    assert str(simplify_on_domain(x20 | ~x50)) == "TRUE"
    assert str(simplify_on_domain(c("x", ">", 50.0, "error") | ~c("x", ">", 20.0, "error"))) == "x > 50 OR x <= 20"


def test_minimal_dnf_uses_impossible_cells_as_dont_cares():
    x1, x2, x3 = (c("x", ">", t, "error") for t in (1.0, 2.0, 3.0))
    raw = (x1 & ~x2) | (x2 & ~x3) | (x3 & x1)
    assert str(minimal_dnf(raw)) == "x > 1"
    free = Literal("p")
    assert str(minimal_dnf((free & x2) | (free & x3) | (~free & x3))) == "x > 3 OR (p AND x > 2)"


def test_learners_keep_the_raw_formula_and_predict_alike():
    from logicrules.ideal.method import IdealDNFClassifier
    from logicrules.lp.estimator import LPRuleClassifier

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=400), "b": rng.normal(size=400), "c": rng.choice(list("uvw"), 400)})
    X.loc[rng.random(400) < 0.1, "a"] = np.nan
    y = (((X.a > 0.3) & (X.c != "w")) | (X.b > 1)).astype(int)
    for model in (IdealDNFClassifier(binarizer="quantile", random_state=0),
                  LPRuleClassifier(rule="dnf", lam=0.001)):
        model.fit(X, y)
        assert model.formula_.size <= model.raw_formula_.size
        Xb = model.binarize(X)
        np.testing.assert_array_equal(model.formula_.evaluate(Xb, feature_names=model.attribute_names_),
                                      model.raw_formula_.evaluate(Xb, feature_names=model.attribute_names_))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_heuristic_minimization_agrees_on_every_row_of_the_domain(case):
    """max_variables=0 sends every formula through the espresso-style path (threshold nodes as
    opaque variables), checked against the raw formula on every row of the domain."""
    policies, formula = case
    rows = domain_rows(policies)
    simplified = simplify_on_domain(formula, max_variables=0)
    assert simplified.size <= formula.size
    np.testing.assert_array_equal(evaluate_on_rows(simplified, rows), evaluate_on_rows(formula, rows))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n_terms=st.integers(1, 12))
def test_heuristic_beyond_twelve_attributes_is_exact_and_never_larger(seed, n_terms):
    """A random DNF over 10 free attributes and 6 thresholds on two columns (with missing
    values): the simplified formula agrees with it on every realizable assignment."""
    from logicrules.conditions import Domain

    rng = np.random.default_rng(seed)
    free = [Literal(f"p{j}") for j in range(10)]
    tied = [c(col, ">", float(t)) for col in ("u", "v") for t in range(3)]
    pool = free + tied
    terms = [conjunction(*(pool[j] if rng.random() < 0.5 else ~pool[j]
                           for j in rng.choice(len(pool), size=int(rng.integers(1, 6)), replace=False)))
             for _ in range(n_terms)]
    formula = disjunction(*terms)
    simplified = simplify_on_domain(formula)
    assert simplified.size <= formula.size
    attributes = sorted(formula.attributes | simplified.attributes)
    conditions = {lit.attribute: lit.condition for lit in tied}
    codes = Domain().assignments(attributes, conditions)
    bits = ((codes[:, None] >> np.arange(len(attributes))) & 1).astype(bool)
    np.testing.assert_array_equal(simplified.evaluate(bits, feature_names=attributes),
                                  formula.evaluate(bits, feature_names=attributes))


def _same(got, expected):
    """Same size and the same function (terms and literals may come in another order)."""
    from logicrules.equivalence import equivalent

    assert got.size == expected.size and equivalent(got, expected), str(got)


def test_heuristic_merges_terms_and_drops_implied_literals():
    free = [Literal(f"p{j}") for j in range(14)]
    wide = conjunction(*free[2:])
    formula = (free[0] & free[1] & wide) | (free[0] & ~free[1] & wide) | (~free[0] & wide)
    _same(simplify_on_domain(formula), wide)
    x2, x3 = c("x", ">", 2.0), c("x", ">", 3.0)  # 15 attributes: x > 3 implies x > 2
    formula = disjunction(*[t for lit in free[:13] for t in (x2 & ~x3 & lit, x3 & lit)])
    _same(simplify_on_domain(formula), disjunction(*[x2 & lit for lit in free[:13]]))


def test_threshold_nodes_are_units_of_the_minimal_dnf():
    a, b, d, e = (Literal(s) for s in "abde")
    node = AtLeast(2, [a, b, Literal("c")])
    assert simplify_on_domain((node & d) | (node & ~d)) == node
    _same(simplify_on_domain((node & d) | (node & ~d & e) | (node & e)), (node & d) | (node & e))
    assert simplify_on_domain(~node & d | ~node & ~d) == Not(node)


def _brute_force_minimum(formula, attributes, conditions):
    """Fewest literals of a DNF over ``attributes`` equal to ``formula`` on the domain."""
    from logicrules.conditions import Domain

    k = len(attributes)
    codes = Domain().assignments(attributes, conditions)
    bits = ((codes[:, None] >> np.arange(k)) & 1).astype(bool)
    target = formula.evaluate(bits, feature_names=attributes)
    cubes = [d for d in itertools.product(range(3), repeat=k)]
    truth = [np.all([(bits[:, j] == bool(v)) if v < 2 else np.ones(len(codes), bool)
                     for j, v in enumerate(d)], axis=0) for d in cubes]
    size = [sum(v < 2 for v in d) for d in cubes]
    best = 0 if not target.any() or target.all() else None
    for r in range(1, 5):
        for subset in itertools.combinations(range(len(cubes)), r):
            cost = sum(size[i] for i in subset)
            if best is not None and cost >= best:
                continue
            if np.array_equal(np.any([truth[i] for i in subset], axis=0), target):
                best = cost
    return best


@pytest.mark.parametrize("seed", range(12))
def test_exact_path_is_minimal_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    x1, x2 = c("x", ">", 1.0), c("x", ">", 2.0)
    pool = [x1, x2, Literal("p")] if seed % 2 else [Literal("p"), Literal("q"), Literal("r")]
    attributes = [lit.attribute for lit in pool]
    conditions = {lit.attribute: lit.condition for lit in pool if lit.condition is not None}
    terms = [conjunction(*(lit if rng.random() < 0.5 else ~lit for lit in pool if rng.random() < 0.8))
             for _ in range(int(rng.integers(1, 5)))]
    formula = disjunction(*terms)
    assert minimal_dnf(formula).size == _brute_force_minimum(formula, attributes, conditions)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_a_negated_formula_prints_with_its_negation_on_the_literals(case):
    policies, formula = case
    rows = domain_rows(policies)
    simplified = simplify_on_domain(Not(formula))
    assert not isinstance(simplified, Not) and simplified.size <= formula.size
    np.testing.assert_array_equal(evaluate_on_rows(simplified, rows), ~evaluate_on_rows(formula, rows))


def test_negated_dnf_of_bounds_reads_as_a_cnf_of_the_opposite_bounds():
    x, y, z = c("x", ">", 1.0), c("y", ">", 2.0), c("z", ">", 3.0)  # ~x: x <= 1 or missing
    assert str(Not(~x | (~y & ~z))) == "NOT ((x <= 1 or missing) OR ((y <= 2 or missing) AND (z <= 3 or missing)))"
    assert str(simplify_on_domain(Not(~x | (~y & ~z)))) == "x > 1 AND (y > 2 OR z > 3)"
