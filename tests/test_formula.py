"""Tests of logicrules.formula against slow references written from the definitions."""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logicrules.equivalence import equivalent
from logicrules.formula import (FALSE, TRUE, And, Formula, Literal, Not, Or, conjunction,
                                disjunction, from_sympy)

NAMES = [f"a{i}" for i in range(6)]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def formulas(attributes):
    """Random formulas over the given attribute keys, built with every constructor."""
    leaves = st.one_of(
        st.builds(Literal, st.sampled_from(attributes), st.booleans()),
        st.sampled_from([TRUE, FALSE]),
    )

    def extend(children):
        return st.one_of(
            children.map(Not),
            children.map(lambda f: ~f),
            st.lists(children, min_size=2, max_size=3).map(lambda ops: And(*ops)),
            st.lists(children, min_size=2, max_size=3).map(lambda ops: Or(*ops)),
            st.lists(children, max_size=3).map(lambda ops: conjunction(*ops)),
            st.lists(children, max_size=3).map(lambda ops: disjunction(*ops)),
        )

    return st.recursive(leaves, extend, max_leaves=10)


named_formulas = formulas(NAMES)
int_formulas = formulas(list(range(6)))


# --- slow references ------------------------------------------------------------------------

def reference_value(f, row):
    """Truth value of ``f`` under ``row`` (a dict attribute -> bool), by plain recursion."""
    if f is TRUE:
        return True
    if f is FALSE:
        return False
    if isinstance(f, Literal):
        return row[f.attribute] != f.negated
    if isinstance(f, Not):
        return not reference_value(f.operand, row)
    if isinstance(f, And):
        return all(reference_value(op, row) for op in f.operands)
    assert isinstance(f, Or)
    return any(reference_value(op, row) for op in f.operands)


def reference_pack(X):
    """Columns of a bool matrix as uint64 bitsets, bit by bit."""
    n, m = X.shape
    out = np.zeros((m, (n + 63) // 64), dtype=np.uint64)
    for j in range(m):
        for i in range(n):
            if X[i, j]:
                out[j, i // 64] |= np.uint64(1) << np.uint64(i % 64)
    return out


def reference_unpack(words, n):
    return np.array([bool((int(words[i // 64]) >> (i % 64)) & 1) for i in range(n)], dtype=bool)


def random_data(seed, n, m=6):
    return np.random.default_rng(seed).random((n, m)) < 0.5


class FakeContext:
    """Duck-typed stand-in for logicrules.fca.context.FormalContext."""

    def __init__(self, X, attributes):
        self.bits = reference_pack(X)
        self.n_objects = X.shape[0]
        self.attributes = tuple(attributes)

    def to_dense(self):  # part of the duck type; evaluate() uses the bits
        raise AssertionError("evaluate should use the packed bits")


# --- evaluation -----------------------------------------------------------------------------

@SETTINGS
@given(named_formulas, st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_evaluate_matches_slow_reference(f, seed, n):
    X = random_data(seed, n)
    expected = np.array([reference_value(f, dict(zip(NAMES, row))) for row in X], dtype=bool)
    got = f.evaluate(X, feature_names=NAMES)
    assert got.dtype == bool and got.shape == (n,)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(f.evaluate(pd.DataFrame(X, columns=NAMES)), expected)
    np.testing.assert_array_equal(f.evaluate(X.astype(np.int8), NAMES), expected)
    np.testing.assert_array_equal(f.evaluate(FakeContext(X, NAMES)), expected)


@SETTINGS
@given(int_formulas, st.integers(0, 2**32 - 1))
def test_evaluate_matches_sympy_lambdify(f, seed):
    X = random_data(seed, 50)
    symbols = [sympy.Symbol(f"x{i}") for i in range(6)]
    func = sympy.lambdify(symbols, f.to_sympy(), "numpy")
    expected = np.broadcast_to(np.asarray(func(*X.T), dtype=bool), (50,))
    np.testing.assert_array_equal(f.evaluate(X), expected)


@settings(max_examples=25, deadline=None)
@given(formulas(["age > 54.5", "sex == male", "x is missing", "chol <= 240", "a AND b", "x0"]),
       st.integers(0, 2**32 - 1))
def test_evaluate_matches_sympy_subs_with_operator_names(f, seed):
    names = ["age > 54.5", "sex == male", "x is missing", "chol <= 240", "a AND b", "x0"]
    X = random_data(seed, 8)
    expr = f.to_sympy()
    for i, row in enumerate(X):
        value = expr.subs({sympy.Symbol(name): bool(v) for name, v in zip(names, row)})
        assert bool(value) == f.evaluate(X, names)[i]


@SETTINGS
@given(named_formulas, st.integers(0, 2**32 - 1), st.sampled_from([1, 63, 64, 65, 128, 130]))
def test_evaluate_bits_matches_evaluate(f, seed, n):
    X = random_data(seed, n)
    bits = reference_pack(X)
    words = f.evaluate_bits(bits, n, NAMES)
    assert words.dtype == np.uint64 and words.shape == ((n + 63) // 64,)
    np.testing.assert_array_equal(reference_unpack(words, n), f.evaluate(X, NAMES))
    tail = int(words[-1]) >> (n % 64) if n % 64 else 0
    assert tail == 0, "bits beyond n_objects must stay zero"
    np.testing.assert_array_equal(bits, reference_pack(X))  # input not modified


@pytest.mark.parametrize("n", [0, 63, 64, 65])
def test_negation_and_true_remask_the_tail(n):
    bits = np.zeros((1, (n + 63) // 64), dtype=np.uint64)
    for f in (~Literal(0), TRUE, Not(Literal(0)), Literal(0) | ~Literal(0)):
        words = f.evaluate_bits(bits, n)
        assert sum(bin(int(w)).count("1") for w in words) == n


def test_evaluate_dataframe_kinds_and_positions():
    df = pd.DataFrame({
        "b": [True, False, True, False],
        "i": [1, 0, 0, 1],
        "nb": pd.array([True, True, False, False], dtype="boolean"),
        "o": np.array([1, 0, True, False], dtype=object),
        "text": ["u", "v", "w", "x"],  # not read, so not checked
    })
    f = Literal("b") & ~Literal("i") | Literal("nb") & Literal("o")
    np.testing.assert_array_equal(f.evaluate(df), [True, False, True, False])
    np.testing.assert_array_equal((Literal(0) & Literal(1)).evaluate(df),
                                  [True, False, False, False])
    renamed = df.iloc[:, :4]
    np.testing.assert_array_equal(Literal("z").evaluate(renamed, ["w", "x", "y", "z"]),
                                  [True, False, True, False])


def test_evaluate_does_not_alias_or_mutate_input():
    X = np.array([[True, False], [False, True]])
    before = X.copy()
    out = Literal(0).evaluate(X)
    out[:] = False
    np.testing.assert_array_equal(X, before)


def test_evaluate_on_real_formal_context():
    context_module = pytest.importorskip("logicrules.fca.context")
    X = random_data(3, 70, 3)
    ctx = context_module.FormalContext(X, attributes=["p", "q", "r"])
    f = (Literal("p") & ~Literal("q")) | Literal(2)
    expected = np.array([reference_value(f, {"p": r[0], "q": r[1], 2: r[2]}) for r in X])
    np.testing.assert_array_equal(f.evaluate(ctx), expected)


# --- SymPy, normal forms, simplification ----------------------------------------------------

@SETTINGS
@given(named_formulas)
def test_sympy_round_trip_is_equivalent(f):
    g = from_sympy(f.to_sympy())
    assert equivalent(f, g)


@SETTINGS
@given(int_formulas)
def test_sympy_round_trip_restores_int_attributes(f):
    g = from_sympy(f.to_sympy(), {f"x{i}": i for i in range(6)})
    assert g.attributes <= frozenset(range(6))
    assert equivalent(f, g)


def test_to_sympy_uses_symbols_not_parsing():
    f = Literal("age > 54.5") & ~Literal("sex == male")
    expr = f.to_sympy()
    assert expr.free_symbols == {sympy.Symbol("age > 54.5"), sympy.Symbol("sex == male")}
    assert (Literal(0) | Literal(1)).to_sympy(["fever", "cough"]) == sympy.Or(
        sympy.Symbol("fever"), sympy.Symbol("cough"))
    assert TRUE.to_sympy() is sympy.true and FALSE.to_sympy() is sympy.false


def test_from_sympy_rewrites_other_connectives_and_constants():
    a, b = sympy.symbols("a b")
    xor = (Literal("a") & ~Literal("b")) | (~Literal("a") & Literal("b"))
    assert equivalent(from_sympy(sympy.Xor(a, b)), xor)
    assert equivalent(from_sympy(sympy.Implies(a, b)), ~Literal("a") | Literal("b"))
    assert from_sympy(sympy.true) is TRUE and from_sympy(False) is FALSE
    assert from_sympy(~a) == Literal("a", negated=True)
    assert from_sympy(sympy.Or(b, a)) == from_sympy(sympy.Or(a, b))  # deterministic order


def is_nnf(f):
    if isinstance(f, Not):
        return False
    return all(is_nnf(op) for op in getattr(f, "operands", ()))


@SETTINGS
@given(named_formulas)
def test_to_nnf_and_to_dnf_are_equivalent(f):
    nnf = f.to_nnf()
    assert is_nnf(nnf) and equivalent(f, nnf)
    dnf = f.to_dnf()
    assert equivalent(f, dnf)
    terms = dnf.conjunctions()
    rebuilt = disjunction(*(conjunction(*t) for t in terms))
    assert rebuilt == dnf
    for term in terms:  # no contradictions, no repeated attributes
        assert len({lit.attribute for lit in term}) == len(term)


@settings(max_examples=30, deadline=None)
@given(named_formulas)
def test_simplify_is_equivalent_and_no_larger_than_dnf(f):
    g, status = f.simplify(return_status=True)
    assert status is True
    assert equivalent(f, g)
    g.conjunctions()  # a DNF
    assert g.size <= f.to_dnf().size


def test_simplify_examples_and_limit():
    a, b, c = Literal("a"), Literal("b"), Literal("c")
    assert ((a & b) | (a & ~b)).simplify() == a
    assert (a | ~a).simplify() is TRUE and (a | ~a | b).simplify() is TRUE
    assert (a & ~a).simplify() is FALSE
    ints = disjunction(*(Literal(i) & ~Literal(i + 1) for i in range(3)))
    assert equivalent(ints.simplify(), ints)
    assert all(isinstance(x, int) for x in ints.simplify().attributes)
    big = disjunction(*(Literal(f"v{i}") for i in range(12)))
    assert big.simplify() is big
    assert big.simplify(return_status=True) == (big, False)
    assert (a & (b | c)).simplify(max_variables=2, return_status=True) == (a & (b | c), False)


def test_conjunctions_of_constants_literals_and_terms():
    a, b, c = Literal("a"), Literal("b"), Literal("c")
    assert TRUE.conjunctions() == [[]]
    assert FALSE.conjunctions() == []
    assert a.conjunctions() == [[a]]
    assert Not(a).conjunctions() == [[~a]]
    assert (a & ~b).conjunctions() == [[a, ~b]]
    assert ((a & b) | c).conjunctions() == [[a, b], [c]]
    with pytest.raises(TypeError, match="not in DNF"):
        (a & (b | c)).conjunctions()
    with pytest.raises(TypeError, match="not in DNF"):
        Not(a & b).conjunctions()
    with pytest.raises(TypeError, match="not in DNF"):
        Or(a, TRUE).conjunctions()


def test_to_dnf_examples_and_guard():
    a, b, c = Literal("a"), Literal("b"), Literal("c")
    assert str((a & (b | ~c)).to_dnf()) == "(a AND b) OR (a AND NOT c)"
    assert (a & ~a).to_dnf() is FALSE
    assert (a | ~a | b).to_dnf() == Or(a, ~a, b)
    assert ((a | b) & (a | b)).to_dnf() == Or(a, a & b, b)  # {b, a} duplicates {a, b}
    blowup = conjunction(*(Literal(f"p{i}") | Literal(f"q{i}") for i in range(10)))
    assert len(blowup.to_dnf(max_terms=1024).conjunctions()) == 1024
    with pytest.raises(ValueError, match="max_terms=1023"):
        blowup.to_dnf(max_terms=1023)


# --- structure, printing, identity ----------------------------------------------------------

def test_printing_examples():
    age, smoker, chol = Literal("age > 54.5"), Literal("smoker"), Literal("chol > 240")
    assert str((age & ~smoker) | chol) == "(age > 54.5 AND NOT smoker) OR chol > 240"
    assert str(Literal("a > 1") & Not(Literal("b") | Literal("c"))) == "a > 1 AND NOT (b OR c)"
    assert str(Or(And(Literal("a"), Literal("b")), Not(Literal("c")))) == "(a AND b) OR NOT c"
    assert str(And(Or(Literal(0), Literal(1)), Literal(2))) == "(x0 OR x1) AND x2"
    assert (Literal(0) & ~Literal(1)).to_string(["fever", "cough"]) == "fever AND NOT cough"
    assert str(Not(Not(Literal("a")))) == "NOT NOT a"
    assert str(TRUE) == "TRUE" and str(FALSE) == "FALSE"
    assert str(Or(TRUE, Literal("a"))) == "TRUE OR a"
    with pytest.raises(ValueError, match="out of range"):
        Literal(3).to_string(["a", "b"])


def test_repr_is_unambiguous_and_evaluable():
    f = Or(And(Literal("age > 54.5", negated=True), Literal(3)), Not(Literal("b")), TRUE)
    assert repr(Literal("age > 54.5", negated=True)) == "Literal('age > 54.5', negated=True)"
    assert repr(Literal(3)) == "Literal(3)"
    namespace = {"Literal": Literal, "And": And, "Or": Or, "Not": Not, "TRUE": TRUE, "FALSE": FALSE}
    assert eval(repr(f), namespace) == f
    assert repr(Literal("3")) != repr(Literal(3)) and Literal("3") != Literal(3)


@SETTINGS
@given(named_formulas)
def test_pickle_copy_hash_equality(f):
    for g in (pickle.loads(pickle.dumps(f)), copy.copy(f), copy.deepcopy(f)):
        assert g == f and hash(g) == hash(f) and str(g) == str(f)
    assert pickle.loads(pickle.dumps(TRUE)) is TRUE and pickle.loads(pickle.dumps(FALSE)) is FALSE


def test_size_attributes_and_structural_equality():
    a, b, c = Literal("a"), Literal("b"), Literal(2)
    f = Or(And(a, ~b), Not(c), TRUE, a)
    assert f.size == 4 and f.attributes == frozenset({"a", "b", 2})
    assert TRUE.size == 0 and TRUE.attributes == frozenset()
    assert And(a, b) != And(b, a) and And(a, b) != Or(a, b)
    assert And(And(a, b), c) == And(a, b, c) == And(a, And(b, c))
    assert len({And(a, b), And(a, b), Or(a, b)}) == 2
    assert Literal(np.int64(2)) == c and Literal(np.str_("a")) == a


def test_immutability():
    f = Literal("a") & Literal("b")
    with pytest.raises(AttributeError, match="immutable"):
        f.operands = ()
    with pytest.raises(AttributeError, match="immutable"):
        Literal("a").negated = True
    with pytest.raises(AttributeError):
        Literal("a").extra = 1  # no __dict__
    assert not hasattr(Literal("a"), "__dict__")


def test_operators_and_helpers():
    a, b, c = Literal("a"), Literal("b"), Literal("c")
    assert a & b == And(a, b) and a | b == Or(a, b)
    assert ~a == Literal("a", negated=True) and ~~a == a
    assert ~(a & b) == Not(And(a, b)) and ~~(a & b) == And(a, b)
    assert ~TRUE is FALSE and ~FALSE is TRUE
    assert (a & b) & c == And(a, b, c) and a | (b | c) == Or(a, b, c)
    assert conjunction() is TRUE and disjunction() is FALSE
    assert conjunction(a) is a and disjunction(a) is a
    assert conjunction(a, TRUE, b) == And(a, b) and conjunction(a, FALSE, b) is FALSE
    assert disjunction(a, FALSE, b) == Or(a, b) and disjunction(a, TRUE) is TRUE
    assert conjunction(a, And(b, c)) == And(a, b, c) and conjunction(a, a) == And(a, a)
    assert isinstance(a, Formula)
    with pytest.raises(TypeError):
        a & True
    with pytest.raises(TypeError, match="Formula"):
        conjunction(a, "b")


# --- bad inputs -----------------------------------------------------------------------------

def test_bad_constructor_inputs():
    with pytest.raises(TypeError, match="not a bool"):
        Literal(True)
    with pytest.raises(ValueError, match=">= 0"):
        Literal(-1)
    with pytest.raises(TypeError, match="str or an int"):
        Literal(1.5)
    with pytest.raises(TypeError, match="negated must be a bool"):
        Literal("a", 1)
    with pytest.raises(ValueError, match="at least 2 operands"):
        And(Literal("a"))
    with pytest.raises(ValueError, match="use disjunction"):
        Or()
    with pytest.raises(TypeError, match="Formula objects"):
        And(Literal("a"), 1)
    with pytest.raises(TypeError, match="Formula operand"):
        Not("a")


def test_bad_evaluate_inputs():
    f = Literal("a") & Literal("b")
    X = np.array([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="2-D"):
        f.evaluate(np.array([1, 0]), ["a", "b"])
    with pytest.raises(ValueError, match="not boolean.*value 2"):
        f.evaluate(np.array([[1, 2], [0, 1]]), ["a", "b"])
    with pytest.raises(ValueError, match="not boolean"):
        f.evaluate(np.array([[1.0, np.nan], [0, 1]]), ["a", "b"])
    with pytest.raises(ValueError, match="not boolean"):
        f.evaluate(np.array([["x", "y"], ["z", "w"]]), ["a", "b"])
    with pytest.raises(ValueError, match="not boolean"):
        f.evaluate(pd.DataFrame({"a": [1, 0], "b": ["yes", "no"]}))
    with pytest.raises(ValueError, match="not boolean"):
        f.evaluate(pd.DataFrame({"a": [1, 0], "b": pd.array([True, None], dtype="boolean")}))
    with pytest.raises(ValueError, match="column 'b' is not boolean: it holds non-numeric"):
        f.evaluate(np.array([[1, "x"], [0, 1]], dtype=object), ["a", "b"])
    with pytest.raises(ValueError, match=r"\['b'\] are not boolean: they hold missing values"):
        f.evaluate(pd.DataFrame({"a": [1.0, 0.0], "b": [np.nan, 1.0], "c": [np.nan, 0]}))
    with pytest.raises(ValueError, match="column 'b' is not boolean: it holds the value 0.5"):
        f.evaluate(pd.DataFrame({"a": [1.0, 0.0], "b": [0.5, 1.0]}))
    with pytest.raises(ValueError, match="unknown attribute.*'c'"):
        (f & Literal("c")).evaluate(X, ["a", "b"])
    with pytest.raises(ValueError, match="unknown attribute.*'zz'"):
        Literal("zz").evaluate(pd.DataFrame(X, columns=["a", "b"]))
    with pytest.raises(ValueError, match="pass feature_names"):
        f.evaluate(X)
    with pytest.raises(ValueError, match="3 feature names for 2 columns"):
        f.evaluate(X, ["a", "b", "c"])
    with pytest.raises(ValueError, match="out of range"):
        Literal(5).evaluate(X)
    with pytest.raises(ValueError, match="ambiguous"):
        Literal("a").evaluate(X, ["a", "a"])


def test_bad_evaluate_bits_inputs():
    bits = np.zeros((2, 2), dtype=np.uint64)
    f = Literal(0) | Literal(1)
    with pytest.raises(ValueError, match="2-D"):
        f.evaluate_bits(bits[0], 100)
    with pytest.raises(ValueError, match="uint64"):
        f.evaluate_bits(bits.astype(np.int64), 100)
    with pytest.raises(ValueError, match="need"):
        f.evaluate_bits(bits, 64)
    with pytest.raises(ValueError, match="non-negative int"):
        f.evaluate_bits(bits, -1)
    tail = bits.copy()
    tail[1, 1] = np.uint64(1) << np.uint64(40)
    with pytest.raises(ValueError, match="tail bits"):
        f.evaluate_bits(tail, 100)
    with pytest.raises(ValueError, match="unknown attribute"):
        Literal("q").evaluate_bits(bits, 100, ["a", "b"])


def test_bad_sympy_and_simplify_inputs():
    with pytest.raises(ValueError, match="symbol name 'x0'"):
        (Literal("x0") & Literal(0)).to_sympy()
    with pytest.raises(TypeError, match="cannot convert"):
        from_sympy(sympy.Symbol("x") > 1)
    with pytest.raises(ValueError, match="max_variables"):
        Literal("a").simplify(max_variables=-1)
    with pytest.raises(ValueError, match="max_terms"):
        Literal("a").to_dnf(max_terms=1.5)
