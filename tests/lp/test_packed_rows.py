"""Passes over packed rows against the dense products they replace."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.lp.packed_rows import packed_group_sums, packed_scores, packed_scores_columns


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.integers(1, 30))
def test_packed_passes_equal_the_dense_products(seed, n_rows, n):
    rng = np.random.default_rng(seed)
    A = rng.random((n_rows, n)) < rng.uniform(0.05, 0.95)
    packed = np.packbits(A, axis=1, bitorder="little")
    w = rng.random(n) * (rng.random(n) < 0.7)
    np.testing.assert_allclose(packed_scores(packed, w), A.astype(float) @ w, rtol=1e-12, atol=1e-12)
    W = rng.random((n, int(rng.integers(0, 6))))
    many = packed_scores_columns(packed, W)
    assert many.shape == (n_rows, W.shape[1])
    np.testing.assert_allclose(many, A.astype(float) @ W, rtol=1e-12, atol=1e-12)
    for j in range(W.shape[1]):   # each column bit for bit the one-w pass
        np.testing.assert_array_equal(many[:, j], packed_scores(packed, W[:, j]))
    index = rng.permutation(n_rows)[: rng.integers(0, n_rows + 1)]
    k = int(rng.integers(1, 5))
    group = rng.integers(0, k, size=index.size)
    coef = rng.uniform(0.1, 3.0, size=index.size)
    expected = np.zeros((k, n))
    for i, g, c in zip(index, group, coef):
        expected[g] += c * A[i]
    np.testing.assert_allclose(packed_group_sums(packed, index, group, coef, k, n), expected, rtol=1e-12,
                               atol=1e-12)
