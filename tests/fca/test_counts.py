"""The counting interface: in-memory and chunked counts against obvious dense references."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca import bitset
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import (ChunkedCounts, ContextCounts, RowBlock, RowMultiset,
                                   packed_rows_from_bits, type_codes_from_bits)


# ------------------------------------------------------------------ references (slow, obvious)
def ref_literal(X, labels, w, K):
    return np.array([[sum(w[i] for i in range(len(X)) if labels[i] == c and X[i, j])
                      for j in range(X.shape[1])] for c in range(K)])


def ref_gram(X, labels, w, K):
    m = X.shape[1]
    out = np.zeros((K, m, m))
    for i in range(len(X)):
        out[labels[i]] += w[i] * np.outer(X[i], X[i])
    return out


def ref_types(X, labels, w, K, columns):
    table = {}
    for i in range(len(X)):
        code = sum(int(X[i, c]) << j for j, c in enumerate(columns))
        table.setdefault(code, np.zeros(K))[labels[i]] += w[i]
    keys = sorted(k for k in table if table[k].any())
    return keys, np.array([table[k] for k in keys]).T.reshape(K, len(keys))


def ref_cells(X, labels, w, K, combos):
    t, r = combos.shape
    out = np.zeros((K, t, 1 << r))
    for i in range(len(X)):
        for a in range(t):
            cell = sum(int(X[i, combos[a, j]]) << j for j in range(r))
            out[labels[i], a, cell] += w[i]
    return out


def ref_rows(X, labels, w, cls):
    table = {}
    for i in range(len(X)):
        if labels[i] == cls:
            key = tuple(bool(v) for v in X[i])
            table[key] = table.get(key, 0) + w[i]
    return {key: value for key, value in table.items() if value}


@st.composite
def datasets(draw):
    n = draw(st.integers(0, 150))
    m = draw(st.integers(1, 9))
    K = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.random((n, m)) < draw(st.sampled_from([0.2, 0.5, 0.8]))
    labels = rng.integers(0, K, n)
    weighted = draw(st.booleans())
    # dyadic weights: every summation order gives the same float, so results must be identical
    weights = rng.integers(0, 9, n) / 4.0 if weighted else None
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    return X, labels, weights, K, cuts


def _both(X, labels, weights, K, cuts):
    names = [f"c{j}" for j in range(X.shape[1])]
    memory = ContextCounts(FormalContext(X, attributes=names), labels, weights, n_classes=K, block_rows=64)
    bounds = [0, *cuts, len(X)]
    pieces = [(X[a:b], labels[a:b]) if weights is None else (X[a:b], labels[a:b], weights[a:b])
              for a, b in zip(bounds[:-1], bounds[1:])]
    chunked = ChunkedCounts(pieces, attributes=names, n_classes=K, weighted=weights is not None)
    return memory, chunked


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_chunked_equals_in_memory_equals_reference(data):
    X, labels, weights, K, cuts = data
    w = np.ones(len(X)) if weights is None else weights
    memory, chunked = _both(X, labels, weights, K, cuts)
    dtype = np.int64 if weights is None else np.float64
    lit = ref_literal(X, labels, w, K).reshape(K, X.shape[1])
    gram = ref_gram(X, labels, w, K)
    rng = np.random.default_rng(len(X))
    columns = list(rng.permutation(X.shape[1])[:rng.integers(0, X.shape[1] + 1)])
    keys, types = ref_types(X, labels, w, K, columns)
    r = min(3, X.shape[1])
    combos = np.array([rng.permutation(X.shape[1])[:r] for _ in range(4)])
    cells = ref_cells(X, labels, w, K, combos)
    for counts in (memory, chunked):
        assert counts.literal_counts().dtype == dtype
        np.testing.assert_array_equal(counts.class_totals(), np.bincount(labels, weights=w, minlength=K))
        np.testing.assert_array_equal(counts.literal_counts(), lit)
        np.testing.assert_array_equal(counts.gram(), gram)
        hist = counts.type_histogram(columns)
        assert hist.keys.tolist() == keys
        np.testing.assert_array_equal(hist.counts, types)
        np.testing.assert_array_equal(counts.cell_counts(combos), cells)
        for cls in range(K):
            rows = counts.class_rows(cls)
            got = {tuple(row.tolist()): weight for row, weight in zip(rows.to_dense(), rows.weights)}
            assert got == ref_rows(X, labels, w, cls)
    # identical (same order, same dtype) between the two implementations
    a, b = memory.class_rows(K - 1), chunked.class_rows(K - 1)
    np.testing.assert_array_equal(a.packed, b.packed)
    np.testing.assert_array_equal(a.weights, b.weights)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 300), st.integers(0, 62), st.integers(0, 2**32 - 1), st.booleans())
def test_type_codes_from_bits(n, k, seed, with_low):
    rng = np.random.default_rng(seed)
    X = rng.random((n, k)) < 0.5
    low = rng.random(n) < 0.5
    if with_low and k == 62:
        k, X = 61, X[:, :61]
    expected = np.zeros(n, dtype=np.int64)
    for j in range(k):
        expected |= X[:, j].astype(np.int64) << (j + int(with_low))
    if with_low:
        expected |= low
    got = type_codes_from_bits(bitset.pack(X.T), n, low=bitset.pack(low) if with_low else None)
    np.testing.assert_array_equal(got, expected)


def test_large_type_histogram_is_sparse_and_exact():
    rng = np.random.default_rng(0)
    X = rng.random((500, 30)) < 0.5
    y = rng.integers(0, 2, 500)
    counts = ContextCounts(FormalContext(X), y)
    hist = counts.type_histogram(list(range(30)))
    keys, types = ref_types(X, y, np.ones(500), 2, list(range(30)))
    assert hist.keys.tolist() == keys
    np.testing.assert_array_equal(hist.counts, types)
    chunked = ChunkedCounts(lambda: ((X[i:i + 77], y[i:i + 77]) for i in range(0, 500, 77)), attributes=30)
    np.testing.assert_array_equal(chunked.type_histogram(list(range(30))).counts, types)


def test_chunks_may_be_contexts_or_blocks():
    X = np.array([[1, 0], [0, 1], [1, 1]], dtype=bool)
    y = np.array([0, 1, 1])
    chunks = [(FormalContext(X[:2]), y[:2]), RowBlock.from_dense(X[2:], y[2:])]
    assert ChunkedCounts(chunks, attributes=2).literal_counts().tolist() == [[1, 0], [1, 2]]


def test_bad_input_is_named():
    X = np.zeros((3, 2), dtype=bool)
    with pytest.raises(TypeError, match="one-shot iterator"):
        ChunkedCounts(((X, [0, 0, 1]) for _ in range(1)), attributes=2)
    with pytest.raises(ValueError, match="labels must lie in 0 .. 1"):
        ContextCounts(FormalContext(X), [0, 2, 1], n_classes=2)
    with pytest.raises(ValueError, match="weights must be finite and >= 0"):
        ContextCounts(FormalContext(X), [0, 1, 1], weights=[1, -1, 0])
    with pytest.raises(ValueError, match="chunk 1 has 3 attributes, expected 2"):
        ChunkedCounts([(X, [0, 0, 1]), (np.zeros((1, 3)), [0])], attributes=2).literal_counts()
    with pytest.raises(ValueError, match="unknown attribute 'z'"):
        ContextCounts(FormalContext(X), [0, 1, 1]).type_histogram(["z"])
    with pytest.raises(ValueError, match="lacks weights"):
        ChunkedCounts([(X, [0, 0, 1])], attributes=2, weighted=True).class_totals()


def test_empty_counts():
    counts = ChunkedCounts([], attributes=["a", "b"])
    assert counts.literal_counts().tolist() == [[0, 0], [0, 0]]
    assert counts.type_histogram(["a"]).counts.shape == (2, 0)
    assert counts.class_rows(1).n_rows == 0
    assert counts.n_rows == 0


def test_row_multiset_merges_across_partials():
    a = RowMultiset.from_dense(np.array([[1, 0], [0, 1]], dtype=bool))
    b = RowMultiset.from_dense(np.array([[1, 0]], dtype=bool), weights=np.array([3]))
    total = a + b
    assert total.to_dense().tolist() == [[True, False], [False, True]]
    assert total.weights.tolist() == [4, 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 200), st.integers(0, 40))
def test_packed_rows_from_bits_is_packbits_of_the_rows(seed, n, m):
    X = np.random.default_rng(seed).random((n, m)) < 0.5
    got = packed_rows_from_bits(bitset.pack_columns(X), n)
    np.testing.assert_array_equal(got, np.packbits(X, axis=1, bitorder="little").reshape(n, -(-m // 8)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 400), st.integers(0, 62), st.integers(1, 3), st.booleans(), st.sampled_from([64, 128, 1 << 18]),
       st.integers(0, 2**32 - 1))
def test_type_histogram_of_many_columns_equals_the_reference(n, k, K, weighted, block_rows, seed):
    """Every code width (8, 16 and more bits, dense and sorted bins), blocks that end inside a
    word, rows of weight zero, against the row-by-row reference."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 62)) < rng.choice([0.1, 0.5, 0.9])
    labels = rng.integers(0, K, n)
    weights = rng.integers(0, 5, n) / 4.0 if weighted else None
    columns = list(rng.permutation(62)[:k])
    counts = ContextCounts(FormalContext(X), labels, weights, n_classes=K, block_rows=block_rows)
    hist = counts.type_histogram(columns)
    keys, types = ref_types(X, labels, np.ones(n) if weights is None else weights, K, columns)
    assert hist.keys.tolist() == keys
    np.testing.assert_array_equal(hist.counts, types)
