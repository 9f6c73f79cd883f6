"""Packed bitsets against slow references written with Python ints and unpacked booleans."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from logicrules.fca import bitset

EDGE_N = [0, 1, 63, 64, 65, 127, 128, 129]
sizes = st.one_of(st.sampled_from(EDGE_N), st.integers(0, 200))


def bool_arrays(n, k_max=4):
    """Bool arrays of shape (k, n) with k in [0, k_max]."""
    return st.integers(0, k_max).flatmap(lambda k: hnp.arrays(bool, (k, n)))


def ref_pack_row(row):
    """One bitset as Python ints, word by word, from the definition (object i = bit i%64 of word i//64)."""
    n = len(row)
    words = [0] * ((n + 63) // 64)
    for i, b in enumerate(row):
        if b:
            words[i // 64] |= 1 << (i % 64)
    return words


def as_ints(words):
    words = np.asarray(words)
    rows = words.reshape(int(np.prod(words.shape[:-1])), words.shape[-1])
    return [[int(w) for w in row] for row in rows]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=sizes)
def test_pack_unpack_match_reference(data, n):
    X = data.draw(bool_arrays(n))
    words = bitset.pack(X)
    assert words.dtype == np.uint64 and words.shape == (X.shape[0], bitset.n_words(n))
    assert as_ints(words) == [ref_pack_row(row) for row in X]
    np.testing.assert_array_equal(bitset.unpack(words, n), X)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=sizes)
def test_pack_columns_is_pack_of_transpose(data, n):
    m = data.draw(st.integers(0, 20))
    X = data.draw(hnp.arrays(bool, (n, m)))
    if data.draw(st.booleans()):  # a strided view of a wider matrix packs alike
        X = np.repeat(X, 2, axis=1)[:, ::2]
    bits = bitset.pack_columns(X)
    assert bits.shape == (m, bitset.n_words(n))
    assert as_ints(bits) == [ref_pack_row(X[:, j]) for j in range(m)]


def test_pack_vectorizes_over_leading_axes():
    rng = np.random.default_rng(0)
    X = rng.random((2, 3, 70)) < 0.5
    words = bitset.pack(X)
    assert words.shape == (2, 3, 2)
    np.testing.assert_array_equal(words[1, 2], bitset.pack(X[1, 2]))
    np.testing.assert_array_equal(bitset.unpack(words, 70), X)


def test_pack_accepts_zero_one_numbers_and_lists():
    np.testing.assert_array_equal(bitset.pack([1, 0, 1]), bitset.pack(np.array([True, False, True])))
    np.testing.assert_array_equal(bitset.pack(np.array([0.0, 1.0])), np.array([2], dtype=np.uint64))


@pytest.mark.parametrize("n", EDGE_N)
def test_tail_full_empty(n):
    assert as_ints(bitset.tail_mask(n)[None]) == [ref_pack_row([True] * n)]
    np.testing.assert_array_equal(bitset.full(n), bitset.pack(np.ones(n, bool)))
    np.testing.assert_array_equal(bitset.empty(n), bitset.pack(np.zeros(n, bool)))
    assert int(bitset.popcount(bitset.full(n))) == n
    assert bitset.n_words(n) == -(-n // 64)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=sizes)
def test_binary_ops_and_not_match_bool_ops(data, n):
    k = data.draw(st.integers(0, 4))
    A = data.draw(hnp.arrays(bool, (k, n)))
    B = data.draw(hnp.arrays(bool, (k, n)))
    a, b = bitset.pack(A), bitset.pack(B)
    for got, want in [(bitset.and_(a, b), A & B), (bitset.or_(a, b), A | B),
                      (bitset.xor(a, b), A ^ B), (bitset.andnot(a, b), A & ~B),
                      (bitset.not_(a, n), ~A)]:
        np.testing.assert_array_equal(got, bitset.pack(want))  # equal words => tail bits zero
        np.testing.assert_array_equal(bitset.unpack(got, n), want)
    # tail bits after a complement stay zero, also when not_ is applied twice
    if n % 64 and k:
        tail = ~bitset.tail_mask(n)[-1]
        assert not np.any(bitset.not_(a, n)[:, -1] & tail)
    np.testing.assert_array_equal(bitset.not_(bitset.not_(a, n), n), a)
    np.testing.assert_array_equal(bitset.is_subset(a, b), ~np.any(A & ~B, axis=-1))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=sizes)
def test_popcount_count_and_confusion_match_numpy_sums(data, n):
    A = data.draw(bool_arrays(n, 5))
    t = data.draw(hnp.arrays(bool, (n,)))
    a, target = bitset.pack(A), bitset.pack(t)
    np.testing.assert_array_equal(bitset.popcount(a), A.sum(axis=1))
    assert bitset.popcount(a).dtype == np.int64
    np.testing.assert_array_equal(bitset.count_and(a, target), (A & t).sum(axis=1))
    tp, fp, fn, tn = bitset.confusion(a, target, n)
    np.testing.assert_array_equal(tp, (A & t).sum(axis=1))
    np.testing.assert_array_equal(fp, (A & ~t).sum(axis=1))
    np.testing.assert_array_equal(fn, (~A & t).sum(axis=1))
    np.testing.assert_array_equal(tn, (~A & ~t).sum(axis=1))
    for c in (tp, fp, fn, tn):
        assert c.dtype == np.int64 and c.shape == (A.shape[0],)


def ref_unique(rows):
    """Dict-based dedup keeping first occurrences."""
    first, inverse = {}, []
    for i, row in enumerate(rows):
        key = tuple(int(w) for w in row)
        first.setdefault(key, (len(first), i))
        inverse.append(first[key][0])
    keys = list(first)
    return keys, [first[k][1] for k in keys], inverse


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.sampled_from([0, 1, 3, 63, 64, 65, 129]))
def test_unique_extents_matches_dict_reference(data, n):
    k = data.draw(st.integers(0, 12))
    # few distinct rows, so that duplicates are common
    pool = data.draw(hnp.arrays(bool, (3, n)))
    picks = data.draw(st.lists(st.integers(0, 2), min_size=k, max_size=k))
    X = pool[picks].reshape(k, n)
    words = bitset.pack(X)
    unique, first, inverse = bitset.unique_extents(words)
    keys, ref_first, ref_inverse = ref_unique(words)
    assert as_ints(unique) == [list(key) for key in keys] or (len(keys) == 0 and unique.shape[0] == 0)
    assert first.tolist() == ref_first and inverse.tolist() == ref_inverse
    assert first.dtype == np.int64 and inverse.dtype == np.int64
    np.testing.assert_array_equal(unique[inverse], words)


def test_unique_extents_on_no_objects_and_no_rows():
    unique, first, inverse = bitset.unique_extents(np.zeros((3, 0), dtype=np.uint64))
    assert unique.shape == (1, 0) and first.tolist() == [0] and inverse.tolist() == [0, 0, 0]
    unique, first, inverse = bitset.unique_extents(np.zeros((0, 2), dtype=np.uint64))
    assert unique.shape == (0, 2) and first.size == 0 and inverse.size == 0


def test_bad_inputs_give_clear_errors():
    with pytest.raises(ValueError, match="only 0/1"):
        bitset.pack([0, 2, 1])
    with pytest.raises(ValueError, match=r"only 0/1.*nan"):
        bitset.pack([0.0, np.nan])
    with pytest.raises(TypeError, match="boolean"):
        bitset.pack(["a", "b"])
    with pytest.raises(ValueError, match="scalar"):
        bitset.pack(True)
    with pytest.raises(ValueError, match="2-D"):
        bitset.pack_columns([True, False])
    with pytest.raises(TypeError, match="uint64"):
        bitset.popcount(np.array([1, 2], dtype=np.int64))
    with pytest.raises(TypeError, match="uint64"):
        bitset.and_(np.array([1], dtype=np.uint64), np.array([1], dtype=np.int32))
    with pytest.raises(ValueError, match="needs 2 words"):
        bitset.unpack(np.zeros(1, dtype=np.uint64), 65)
    with pytest.raises(ValueError, match="needs 1 words"):
        bitset.not_(np.zeros(2, dtype=np.uint64), 64)
    with pytest.raises(ValueError, match=">= 0"):
        bitset.n_words(-1)
    with pytest.raises(TypeError, match="must be an int"):
        bitset.tail_mask(3.0)
    with pytest.raises(ValueError, match="target must be one bitset"):
        bitset.confusion(np.zeros((2, 1), np.uint64), np.zeros((2, 1), np.uint64), 5)
    with pytest.raises(ValueError, match="2-D"):
        bitset.unique_extents(np.zeros(3, dtype=np.uint64))
