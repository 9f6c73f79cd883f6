"""Algorithm 1 (empirical ideal DNF) against a dictionary-based oracle written from the definition."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.formula import FALSE, TRUE, Literal
from logicrules.ideal import algorithm
from logicrules.ideal.algorithm import TypeTable, empirical_ideal_dnf, type_codes, type_table


def oracle_types(X, y):
    """type (tuple of bools) -> [rows, positive rows], by scanning rows one at a time."""
    table = {}
    for row, label in zip(np.asarray(X, dtype=bool).tolist(), np.asarray(y, dtype=bool).tolist()):
        counts = table.setdefault(tuple(row), [0, 0])
        counts[0] += 1
        counts[1] += int(label)
    return table


def oracle_predict(X_train, y_train, X_test, tie):
    """The empirical ideal classifier by definition: majority label of the row's training type."""
    table = oracle_types(X_train, y_train)
    out = []
    for row in np.asarray(X_test, dtype=bool).tolist():
        c, c1 = table.get(tuple(row), (0, 0))
        out.append(c > 0 and (2 * c1 >= c if tie == "positive" else 2 * c1 > c))
    return np.array(out, dtype=bool)


def table_as_dict(t: TypeTable):
    return {tuple(p): [int(c), int(q)] for p, c, q in zip(t.patterns.tolist(), t.counts, t.positives)}


@st.composite
def boolean_data(draw, max_features=12):
    n = draw(st.integers(0, 60))
    k = draw(st.integers(0, max_features))
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.1, 0.5, 0.9]))
    rng = np.random.default_rng(seed)
    # few distinct rows so that types repeat and ties c1 / c = 1/2 are frequent
    pool = rng.random((max(1, draw(st.integers(1, 6))), k)) < density
    X = pool[rng.integers(0, len(pool), n)] if n else np.zeros((0, k), dtype=bool)
    y = rng.random(n) < draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    return X, y


@settings(max_examples=150, deadline=None)
@given(boolean_data(), st.sampled_from(["positive", "negative"]))
def test_type_table_and_predictions_match_oracle(data, tie):
    X, y = data
    table = type_table(X, y, tie=tie)
    assert table_as_dict(table) == oracle_types(X, y)
    assert np.all(np.diff(table.keys) > 0)  # sorted, unique
    formula = empirical_ideal_dnf(X, y, tie=tie)
    # on every possible row (seen and unseen types) the formula is the oracle's classifier
    k = X.shape[1]
    if k <= 8:
        everything = np.array(list(itertools.product([False, True], repeat=k)), dtype=bool).reshape(2**k, k)
        expected = oracle_predict(X, y, everything, tie)
        assert np.array_equal(formula.evaluate(everything), expected)
        assert np.array_equal(table.predict(everything), expected)
    if len(y):
        assert np.array_equal(formula.evaluate(X), oracle_predict(X, y, X, tie))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([21, 40, 62, 63, 64, 100, 130]),
       st.integers(1, 300))
def test_many_features_sorting_and_packed_paths_match_oracle(seed, k, n):
    rng = np.random.default_rng(seed)
    pool = rng.random((rng.integers(1, 20), k)) < 0.5
    X = pool[rng.integers(0, len(pool), n)]
    y = rng.random(n) < 0.5
    table = type_table(X, y)
    assert table_as_dict(table) == oracle_types(X, y)
    Z = np.vstack([X[:5], rng.random((5, k)) < 0.5])
    expected = oracle_predict(X, y, Z, "positive")
    assert np.array_equal(table.predict(Z), expected)
    assert np.array_equal(table.lookup(X) >= 0, np.ones(n, dtype=bool))
    assert np.array_equal(table.patterns[table.lookup(X)], X)


def test_dense_and_sorting_paths_agree_on_large_inputs():
    rng = np.random.default_rng(1)
    X = rng.random((200_000, 12)) < 0.3
    y = rng.random(200_000) < 0.5
    t = type_table(X, y)
    codes = X.astype(np.int64) @ (1 << np.arange(12))
    assert np.array_equal(t.keys, np.unique(codes))
    assert np.array_equal(t.counts, np.bincount(codes)[t.keys])
    assert np.array_equal(t.positives, np.bincount(codes[y], minlength=4096)[t.keys])


def test_type_table_counts_every_width_and_layout():
    """The type histogram (the counting interface's) against 2 * code + y, for every dense and
    sparse width, row counts around word sizes, and non-contiguous inputs."""
    rng = np.random.default_rng(3)
    for k in range(0, 25, 3):
        for n in (1, 7, 63, 64, 65, 1000):
            X = rng.random((2 * n, k)) < rng.choice([0.1, 0.5, 0.9])
            y = rng.random(2 * n) < 0.4
            for Xv, yv in ((X[:n], y[:n]), (np.asfortranarray(X[:n]), y[:n]), (X[::2], y[::2])):
                codes = Xv.astype(np.int64) @ (1 << np.arange(k, dtype=np.int64))
                keys, counts = np.unique(codes, return_counts=True)
                t = type_table(Xv, yv)
                assert np.array_equal(t.keys, keys) and np.array_equal(t.counts, counts), (k, n)
                positives = np.array([yv[codes == c].sum() for c in keys])
                assert np.array_equal(t.positives, positives), (k, n)


def test_type_codes_bit_order_and_blocks():
    rng = np.random.default_rng(2)
    for k in (1, 7, 8, 9, 16, 17, 33, 62):
        X = rng.random((70_000, k)) < 0.5
        expected = (X.astype(np.uint64) << np.arange(k, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
        assert np.array_equal(type_codes(X).view(np.uint64), expected)
        Xf = np.asfortranarray(X)
        assert np.array_equal(type_codes(Xf).view(np.uint64), expected)
    with pytest.raises(ValueError, match="at most 62"):
        type_codes(np.zeros((2, 63), dtype=bool))


def test_tie_rules():
    X = np.array([[1], [1], [0], [0], [0]], dtype=bool)
    y = np.array([1, 0, 1, 0, 0])
    assert empirical_ideal_dnf(X, y, tie="positive") == Literal(0)
    assert empirical_ideal_dnf(X, y, tie="negative") is FALSE
    with pytest.raises(ValueError, match="tie"):
        empirical_ideal_dnf(X, y, tie="majority")


def test_unseen_types_are_negative_and_constants():
    X = np.array([[1, 1], [1, 1], [0, 0]], dtype=bool)
    formula = empirical_ideal_dnf(X, [1, 1, 1])
    assert str(formula) == "(NOT x0 AND NOT x1) OR (x0 AND x1)"
    assert formula.evaluate(np.array([[1, 0], [0, 1]], dtype=bool)).tolist() == [False, False]
    assert empirical_ideal_dnf(X, [0, 0, 0]) is FALSE
    # no features: the one empty type is the whole data
    assert empirical_ideal_dnf(X, [1, 1, 0], features=[]) is TRUE
    assert empirical_ideal_dnf(X, [1, 0, 0], features=[]) is FALSE
    assert empirical_ideal_dnf(np.zeros((0, 2), dtype=bool), []) is FALSE


def test_inputs_dataframe_features_and_table_frame():
    X = pd.DataFrame({"a": [1, 1, 0, 0], "b": [True, False, True, False], "c": [0, 0, 0, 1]})
    y = pd.Series([1, 1, 0, 1])
    formula, table = empirical_ideal_dnf(X, y, features=["b", "a"], return_table=True)
    assert table.features == ("b", "a")
    assert formula.attributes == {"a", "b"}
    assert np.array_equal(formula.evaluate(X), oracle_predict(X[["b", "a"]], y, X[["b", "a"]], "positive"))
    frame = table.to_frame()
    assert list(frame.columns) == ["type", "count", "positives", "ratio", "predicted"]
    assert frame["count"].sum() == 4
    assert set(frame["type"]) == {"NOT b AND NOT a", "b AND NOT a", "NOT b AND a", "b AND a"}
    assert table.n_rows == 4 and table.n_types == 4 and table.training_errors == 0
    # positions work on DataFrames too, and the input is not modified
    before = X.copy()
    assert empirical_ideal_dnf(X, y, features=[1, 0]) == formula
    pd.testing.assert_frame_equal(X, before)


def test_formal_context_input():
    fca = pytest.importorskip("logicrules.fca.context")
    context = fca.FormalContext(np.array([[1, 0], [1, 1], [0, 1]], dtype=bool), attributes=["p", "q"])
    formula = empirical_ideal_dnf(context, [1, 1, 0])
    assert formula.attributes == {"p", "q"}
    assert formula.evaluate(context).tolist() == [True, True, False]


def test_bad_inputs_have_clear_errors():
    X = np.array([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="out of range: X has 2 columns"):
        empirical_ideal_dnf(X, [1, 0], features=[0, 5])
    with pytest.raises(ValueError, match="duplicates"):
        empirical_ideal_dnf(X, [1, 0], features=[1, 1])
    with pytest.raises(ValueError, match="no column names"):
        empirical_ideal_dnf(X, [1, 0], features=["a"])
    with pytest.raises(ValueError, match="unknown feature 'z'"):
        empirical_ideal_dnf(pd.DataFrame(X, columns=["a", "b"]), [1, 0], features=["z"])
    with pytest.raises(ValueError, match="boolean"):
        empirical_ideal_dnf(np.array([[1.0, np.nan], [0, 1]]), [1, 0])
    with pytest.raises(ValueError, match="boolean"):
        empirical_ideal_dnf(np.array([[2, 0], [0, 1]]), [1, 0])
    with pytest.raises(ValueError, match="columns with other values"):
        empirical_ideal_dnf(pd.DataFrame({"a": [1, 0], "b": ["x", "y"]}), [1, 0])
    with pytest.raises(ValueError, match="y must be boolean or 0/1"):
        empirical_ideal_dnf(X, ["yes", "no"])
    with pytest.raises(ValueError, match="2 rows but y has 3"):
        empirical_ideal_dnf(X, [1, 0, 1])
    with pytest.raises(ValueError, match="2-D"):
        empirical_ideal_dnf(np.array([1, 0]), [1, 0])


def test_lookup_shape_error():
    table = type_table(np.array([[1, 0]], dtype=bool), [1])
    with pytest.raises(ValueError, match="2 columns"):
        table.lookup(np.zeros((3, 3), dtype=bool))
