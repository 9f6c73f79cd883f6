"""The type-code kernel of the type histograms (delta swaps across words, the class digits in
the low bits) against row-by-row references, on every code width and number of classes."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca import bitset
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ContextCounts
from logicrules.fca.row_codes import _row_order, _unordered_type_codes
from tests.fca.test_counts import ref_types


def reference_codes(X, columns, low):
    """Row ``i``'s code: bit ``j`` is ``low[i, j]``, then ``X[i, columns[j]]`` above them."""
    bits = np.concatenate([low, X[:, columns]], axis=1)
    return [sum(int(v) << j for j, v in enumerate(row)) for row in bits]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 300), st.integers(0, 63), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_codes_are_the_rows_codes_in_the_documented_order(n, k, n_low, seed):
    rng = np.random.default_rng(seed)
    n_low = min(n_low, k)
    X = rng.random((n, 70)) < rng.choice([0.1, 0.5, 0.9])
    low = rng.random((n, n_low)) < 0.5
    columns = rng.permutation(70)[:k - n_low]
    width = bitset.n_words(n)
    codes = _unordered_type_codes(bitset.pack_columns(X), columns,
                                  low=bitset.pack_columns(low) if n_low else None)
    lanes = codes.itemsize
    assert lanes == {0: 1, 1: 1, 2: 2, 3: 4, 4: 4}.get(-(-k // 8), 8)
    expected = _row_order(np.array(reference_codes(X, columns, low), dtype=np.uint64), width, lanes)
    np.testing.assert_array_equal(codes.astype(np.uint64), expected)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 300), st.integers(0, 62), st.integers(1, 6), st.booleans(), st.sampled_from([64, 192, 1 << 18]),
       st.integers(0, 2**32 - 1))
def test_histogram_with_class_digits_equals_the_reference(n, k, K, weighted, block_rows, seed):
    """Any number of classes (their digits below the type bits, not a power of two included;
    more than 63 bits together: the types' own codes), dense and sorted bins, weights."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 62)) < rng.choice([0.1, 0.5, 0.9])
    labels = rng.integers(0, K, n)
    weights = rng.integers(0, 5, n) / 4.0 if weighted else None
    columns = list(rng.permutation(62)[:k])
    hist = ContextCounts(FormalContext(X), labels, weights, n_classes=K, block_rows=block_rows).type_histogram(columns)
    keys, types = ref_types(X, labels, np.ones(n) if weights is None else weights, K, columns)
    assert hist.keys.tolist() == keys
    np.testing.assert_array_equal(hist.counts, types)
    assert hist.counts.dtype == (np.float64 if weighted else np.int64)
