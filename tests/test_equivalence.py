"""Tests of logicrules.equivalence against itertools truth tables and SymPy satisfiable."""

import itertools

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sympy.logic.inference import satisfiable

from logicrules.equivalence import agreement, equivalent
from logicrules.formula import FALSE, TRUE, And, Literal, Not, Or, disjunction
from logicrules.formula_algebras import _truth_table

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def formulas(attributes, max_leaves=8):
    leaves = st.one_of(st.builds(Literal, st.sampled_from(attributes), st.booleans()),
                       st.sampled_from([TRUE, FALSE]))

    def extend(children):
        return st.one_of(
            children.map(Not),
            st.lists(children, min_size=2, max_size=3).map(lambda ops: And(*ops)),
            st.lists(children, min_size=2, max_size=3).map(lambda ops: Or(*ops)),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


MIXED = ["a", "b", "c", 0, 1, 2]  # str and int keys are different attributes


def value(f, row):
    """Slow reference evaluation under ``row`` (dict attribute -> bool)."""
    if f is TRUE or f is FALSE:
        return f is TRUE
    if isinstance(f, Literal):
        return row[f.attribute] != f.negated
    if isinstance(f, Not):
        return not value(f.operand, row)
    results = [value(op, row) for op in f.operands]
    return all(results) if isinstance(f, And) else any(results)


def reference_equivalent(f, g):
    attributes = sorted(f.attributes | g.attributes, key=repr)
    return all(value(f, dict(zip(attributes, bits))) == value(g, dict(zip(attributes, bits)))
               for bits in itertools.product([False, True], repeat=len(attributes)))


@st.composite
def formula_pairs(draw):
    """Pairs that are often equivalent: a formula and a rewriting of it, or two random ones."""
    f = draw(formulas(MIXED))
    kind = draw(st.sampled_from(["random", "nnf", "dnf", "double_negation", "perturbed"]))
    if kind == "random":
        return f, draw(formulas(MIXED))
    if kind == "nnf":
        return f, f.to_nnf()
    if kind == "dnf":
        return f, f.to_dnf()
    if kind == "double_negation":
        return f, Not(Not(f))
    return f, f | draw(formulas(MIXED, max_leaves=2))


@SETTINGS
@given(formula_pairs())
def test_equivalent_matches_itertools_truth_table(pair):
    f, g = pair
    expected = reference_equivalent(f, g)
    assert equivalent(f, g) is expected
    assert equivalent(g, f) is expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formula_pairs())
def test_sat_path_matches_truth_table(pair):
    f, g = pair
    assert equivalent(f, g, max_table_variables=0) is reference_equivalent(f, g)


@pytest.mark.parametrize("k", range(0, 9))
def test_truth_table_enumerates_all_assignments(k):
    n = 1 << k
    table = _truth_table(k)
    assert table.shape == (k, (n + 63) // 64) and table.dtype == np.uint64
    for j in range(k):
        got = [bool((int(table[j, i // 64]) >> (i % 64)) & 1) for i in range(n)]
        assert got == [bool((i >> j) & 1) for i in range(n)]
        if n % 64:
            assert int(table[j, -1]) >> (n % 64) == 0  # tail bits zero
    rows = {tuple((i >> j) & 1 for j in range(k)) for i in range(n)}
    assert rows == set(itertools.product([0, 1], repeat=k))


def big_cases():
    """Formulas over more than 20 variables whose equivalence is known by construction."""
    x = [Literal(f"x{i}") for i in range(24)]
    chain = disjunction(*(x[i] & x[i + 1] for i in range(23)))
    yield chain, Not(And(*(Not(x[i] & x[i + 1]) for i in range(23)))), True  # De Morgan
    yield chain, chain | (x[0] & x[5]), False
    yield chain, chain | (x[0] & x[1] & x[7]), True  # absorbed
    distributed = And(x[0], Or(*x[1:22]))
    yield distributed, Or(*(x[0] & x[i] for i in range(1, 22))), True
    yield distributed, Or(*(x[0] & x[i] for i in range(1, 21))), False


@pytest.mark.parametrize("f, g, expected", list(big_cases()))
def test_equivalent_beyond_truth_table(f, g, expected):
    assert len(f.attributes | g.attributes) > 20
    assert equivalent(f, g) is expected


def sympy_friendly_big_cases():
    """Cases over > 20 variables small enough for SymPy's own CNF conversion of Xor(f, g)."""
    x = [Literal(f"x{i}") for i in range(23)]
    yield And(*x[:22]), Not(Or(*(~v for v in x[:22]))), True
    yield Or(*x[:22]), Or(*x[:21]), False
    two = (And(*x[:10]) | And(*x[10:22]))
    yield two, Not(Not(And(*x[:10])) & Not(And(*x[10:22]))), True
    yield two, two | (x[0] & x[22]), False
    yield two, two | And(*x[:11]), True


@pytest.mark.parametrize("f, g, expected", list(sympy_friendly_big_cases()))
def test_equivalent_beyond_truth_table_matches_sympy_satisfiable(f, g, expected):
    assert len(f.attributes | g.attributes) > 20
    assert (satisfiable(sympy.Xor(f.to_sympy(), g.to_sympy())) is False) is expected
    assert equivalent(f, g) is expected


def test_equivalent_examples_and_constants():
    a, b = Literal("a"), Literal("b")
    assert equivalent(TRUE, a | ~a) and equivalent(FALSE, a & ~a)
    assert not equivalent(TRUE, FALSE) and equivalent(TRUE, TRUE)
    assert equivalent(~(a | b), ~a & ~b)
    assert not equivalent(Literal(0), Literal("x0"))  # different attributes
    assert equivalent(a, a & (a | b))
    with pytest.raises(TypeError, match="Formula"):
        equivalent(a, "a")
    with pytest.raises(ValueError, match="max_table_variables"):
        equivalent(a, b, max_table_variables=-1)


@SETTINGS
@given(formulas(["p", "q", "r"]), formulas(["p", "q", "r"]), st.integers(1, 30),
       st.integers(0, 2**32 - 1))
def test_agreement_matches_rowwise_reference(f, g, n, seed):
    X = np.random.default_rng(seed).random((n, 3)) < 0.5
    rows = [dict(zip("pqr", r)) for r in X]
    expected = sum(value(f, r) == value(g, r) for r in rows) / n
    assert agreement(f, g, X, ["p", "q", "r"]) == pytest.approx(expected)
    assert agreement(f, g, pd.DataFrame(X, columns=list("pqr"))) == pytest.approx(expected)


def test_agreement_bad_inputs():
    a = Literal("a")
    with pytest.raises(ValueError, match="at least one row"):
        agreement(a, ~a, np.zeros((0, 1), dtype=bool), ["a"])
    with pytest.raises(ValueError, match="unknown attribute"):
        agreement(a, Literal("b"), np.zeros((3, 1), dtype=bool), ["a"])
    with pytest.raises(TypeError, match="Formula"):
        agreement(a, None, np.zeros((3, 1), dtype=bool), ["a"])
