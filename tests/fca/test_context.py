"""FormalContext: prime operators against set-based definitions, input validation, empty data."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca import bitset
from logicrules.fca.context import FormalContext


@st.composite
def incidences(draw, max_m=8):
    n = draw(st.one_of(st.sampled_from([0, 1, 63, 64, 65, 129]), st.integers(0, 20)))
    m = draw(st.integers(0, max_m))
    density = draw(st.sampled_from([0.2, 0.5, 0.8]))
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).random((n, m)) < density


def ref_extent(X, B):
    """Objects having every attribute of B (set-based)."""
    return sorted(g for g in range(X.shape[0]) if all(X[g, j] for j in B))


def ref_intent(X, A):
    """Attributes shared by every object of A (set-based)."""
    return sorted(j for j in range(X.shape[1]) if all(X[g, j] for g in A))


@settings(max_examples=60, deadline=None)
@given(X=incidences(), data=st.data())
def test_prime_operators_match_set_definitions(X, data):
    n, m = X.shape
    K = FormalContext(X)
    assert (K.n_objects, K.n_attributes) == (n, m)
    assert K.attributes == tuple(f"a{j}" for j in range(m)) and K.objects == tuple(range(n))
    B = data.draw(st.lists(st.integers(0, m - 1), max_size=4)) if m else []
    A = data.draw(st.lists(st.integers(0, n - 1), max_size=4)) if n else []
    ext = K.extent(B)
    assert ext.dtype == np.int64 and ext.tolist() == ref_extent(X, B)
    assert K.extent([K.attributes[j] for j in B]).tolist() == ref_extent(X, B)
    np.testing.assert_array_equal(K.extent_bits(B), bitset.pack(np.isin(np.arange(n), ref_extent(X, B))))
    it = K.intent(A)
    assert it.dtype == np.int64 and it.tolist() == ref_intent(X, A)
    assert K.closure(B).tolist() == ref_intent(X, ref_extent(X, B))
    mask = np.zeros(m, bool)
    mask[B] = True
    assert K.extent(mask).tolist() == ref_extent(X, B)
    omask = np.zeros(n, bool)
    omask[A] = True
    assert K.intent(omask).tolist() == ref_intent(X, A)
    np.testing.assert_array_equal(K.to_dense(), X)
    np.testing.assert_array_equal(K.bits, bitset.pack_columns(X))


def test_empty_sets_follow_fca_convention():
    X = np.array([[1, 0, 1], [0, 0, 1]], dtype=bool)
    K = FormalContext(X)
    assert K.extent().tolist() == [0, 1] and K.extent([]).tolist() == [0, 1]
    assert K.intent().tolist() == [0, 1, 2] and K.intent([]).tolist() == [0, 1, 2]
    assert K.closure([]).tolist() == [2]
    assert K.extent([1]).tolist() == [] and K.intent([0, 1]).tolist() == [2]


@pytest.mark.parametrize("shape", [(0, 3), (4, 0), (0, 0)])
def test_empty_data_is_a_valid_context(shape):
    n, m = shape
    K = FormalContext(np.zeros(shape, dtype=bool))
    assert (K.n_objects, K.n_attributes) == shape and K.bits.shape == (m, bitset.n_words(n))
    assert K.extent().tolist() == list(range(n))
    assert K.intent().tolist() == list(range(m))
    assert K.to_dense().shape == shape and K.to_frame().shape == shape
    concepts = K.concepts()
    assert len(concepts) == 1
    assert concepts[0].extent == tuple(range(n)) and concepts[0].intent == tuple(range(m))
    assert K.lattice().number_of_nodes() == 1
    df = FormalContext(pd.DataFrame(np.zeros(shape, dtype=bool)))
    assert (df.n_objects, df.n_attributes) == shape


def test_dataframe_input_keeps_names_and_labels():
    df = pd.DataFrame({"fly": [True, False, True], "swim": [0, 1, 1], 3: [1.0, 1.0, 0.0]},
                      index=["sparrow", "fish", "duck"])
    before = df.copy()
    K = FormalContext(df)
    assert K.attributes == ("fly", "swim", "3") and K.objects == ("sparrow", "fish", "duck")
    assert K.extent(["fly", "swim"]).tolist() == [2]
    assert K.extent(["3"]).tolist() == [0, 1]
    assert [K.objects[g] for g in K.extent(["swim"])] == ["fish", "duck"]
    pd.testing.assert_frame_equal(df, before)  # input not mutated
    frame = K.to_frame()
    assert list(frame.columns) == ["fly", "swim", "3"] and list(frame.index) == list(df.index)
    assert frame.dtypes.eq(bool).all()
    np.testing.assert_array_equal(frame.to_numpy(), df.to_numpy(dtype=float).astype(bool))


def test_dataframe_with_nullable_and_object_columns():
    df = pd.DataFrame({"a": pd.array([True, False], dtype="boolean"),
                       "b": pd.Series([1, 0], dtype=object)})
    assert FormalContext(df).extent(["a", "b"]).tolist() == [0]
    with pytest.raises(ValueError, match="missing values"):
        FormalContext(pd.DataFrame({"a": pd.array([True, None], dtype="boolean")}))
    with pytest.raises(ValueError, match="only 0/1.*'yes'"):
        FormalContext(pd.DataFrame({"a": ["yes", "no"]}))


def test_explicit_names_override_defaults():
    df = pd.DataFrame([[1, 0]], columns=["x", "y"], index=["r"])
    K = FormalContext(df, attributes=["p", "q"], objects=["o"])
    assert K.attributes == ("p", "q") and K.objects == ("o",)


def test_attribute_indices_mixed_and_single():
    K = FormalContext(np.eye(3, dtype=bool), attributes=["x", "y", "z"])
    assert K.attribute_indices(["z", 0, np.int64(1)]).tolist() == [2, 0, 1]
    assert K.attribute_indices("y").tolist() == [1]
    assert K.attribute_indices(2).tolist() == [2]
    assert K.attribute_indices(np.array([2, 0])).tolist() == [2, 0]
    assert K.attribute_indices(pd.Index(["x"])).tolist() == [0]
    assert K.object_indices([True, False, True]).tolist() == [0, 2]
    assert K.extent("x").tolist() == [0]


def test_bits_are_read_only_and_repr():
    K = FormalContext(np.ones((70, 8), dtype=bool))
    assert not K.bits.flags.writeable
    with pytest.raises(ValueError):
        K.bits[0, 0] = 0
    assert repr(K) == ("FormalContext(n_objects=70, n_attributes=8, "
                       "attributes=['a0', 'a1', 'a2', 'a3', 'a4', 'a5'] + 2 more)")
    assert not np.any(K.bits[:, -1] & ~bitset.tail_mask(70)[-1])


def test_input_array_not_mutated_or_shared():
    X = np.array([[1, 0], [1, 1]], dtype=bool)
    K = FormalContext(X)
    X[0, 1] = True
    assert K.extent([1]).tolist() == [1]


@pytest.mark.parametrize("bad, match", [
    (np.zeros(3, dtype=bool), "must be 2-D"),
    (np.zeros((2, 2, 2), dtype=bool), "must be 2-D"),
    (pd.Series([True, False]), "got a Series"),
    (np.array([[0.0, np.nan]]), "contains NaN"),
    (np.array([[0, 2]]), r"only 0/1 or True/False, found \[2\]"),
    (np.array([[0.5, 1.0]]), r"only 0/1.*0\.5"),
    (np.array([["a", "b"]]), "only 0/1 or True/False, got dtype"),
    (np.array([[1, None]], dtype=object), "missing values"),
    (np.array([[1, "x"]], dtype=object), r"only 0/1.*'x'"),
])
def test_bad_incidence_gives_clear_error(bad, match):
    with pytest.raises(ValueError, match=match):
        FormalContext(bad)


def test_bad_names_give_clear_errors():
    X = np.zeros((2, 3), dtype=bool)
    with pytest.raises(ValueError, match=r"duplicate attribute names: \['a'\]"):
        FormalContext(X, attributes=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"duplicate attribute names: \['1'\]"):
        FormalContext(pd.DataFrame([[1, 0]], columns=[1, "1"]))
    with pytest.raises(ValueError, match="got 2 attribute names for 3 attributes"):
        FormalContext(X, attributes=["a", "b"])
    with pytest.raises(ValueError, match="got 3 object labels for 2 objects"):
        FormalContext(X, objects=["x", "y", "z"])
    with pytest.raises(TypeError, match="single str"):
        FormalContext(X, attributes="abc")


def test_unknown_attributes_and_objects_give_clear_errors():
    K = FormalContext(np.zeros((2, 3), dtype=bool), attributes=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"unknown attribute name\(s\): \['zz', 'yy'\]"):
        K.extent(["a", "zz", "yy"])
    with pytest.raises(ValueError, match=r"attribute position\(s\) out of range \[0, 3\): \[3, -1\]"):
        K.extent([3, -1])
    with pytest.raises(ValueError, match=r"object position\(s\) out of range \[0, 2\): \[5\]"):
        K.intent([5])
    with pytest.raises(TypeError, match="objects must be positions"):
        K.intent(["x"])
    with pytest.raises(ValueError, match="boolean attribute mask must have length 3"):
        K.extent([True, False])
    with pytest.raises(TypeError, match="attributes must be given as"):
        K.extent(1.5)
    with pytest.raises(TypeError, match="mixed booleans"):
        K.extent([True, 1])
