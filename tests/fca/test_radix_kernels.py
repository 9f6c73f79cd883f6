"""The compiled column kernels of the distributed binarizer statistics against numpy references."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from logicrules.fca.dask_radix import float_keys
from logicrules.fca.radix_kernels import bucket_histogram, bucket_rows, column_summary

_SPECIAL = [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 5e-324, -2.5, 3e38]


def _column(draw_values, dtype):
    return np.asarray(draw_values, dtype=dtype)


columns = st.builds(
    _column,
    st.lists(st.one_of(st.sampled_from(_SPECIAL), st.floats(-1e6, 1e6, width=32), st.integers(-3, 3).map(float)),
             max_size=300),
    st.sampled_from([np.float32, np.float64]))


def _weights(values, seed, weighted):
    if not weighted:
        return None
    return np.random.default_rng(seed).random(values.size) * 3


@settings(max_examples=150, deadline=None)
@given(columns, st.integers(0, 9), st.booleans())
def test_column_summary_is_numpys(values, seed, weighted):
    w = _weights(values, seed, weighted)
    missing, infinite, low, high, ones, zeros, counts, sums = column_summary(
        values, np.zeros(0) if w is None else w, w is not None)
    present = values[~np.isnan(values)].astype(np.float64)
    assert missing == values.size - present.size
    assert infinite == bool(np.isinf(present).any())
    assert ones == np.count_nonzero(present == 1) and zeros == np.count_nonzero(present == 0)
    if present.size:  # the same values as numpy's min and max (whose zero's sign, of -0.0 and 0.0, varies)
        assert low == present.min() and high == present.max()
    top = (float_keys(present) >> np.uint64(48)).astype(np.intp)
    np.testing.assert_array_equal(counts, np.bincount(top, minlength=1 << 16))
    if w is None:
        assert sums.size == 0
    else:  # summed in row order, as bincount sums them: equal bit for bit
        np.testing.assert_array_equal(sums, np.bincount(top, weights=w[~np.isnan(values)], minlength=1 << 16))


@settings(max_examples=150, deadline=None)
@given(columns, st.integers(0, 9), st.booleans(), st.sampled_from([1, 3, 16, 32, 48, 63]), st.integers(0, 299))
def test_bucket_rows_and_histogram_are_numpys(values, seed, weighted, bits, pick):
    w = _weights(values, seed, weighted)
    present = np.flatnonzero(~np.isnan(values))
    keys = float_keys(values[present])
    # a bucket holding a value (or an empty one when none is present)
    prefix = int(keys[pick % keys.size] >> np.uint64(64 - bits)) if keys.size else 0
    inside = (keys >> np.uint64(64 - bits)) == np.uint64(prefix)
    rows, above = bucket_rows(values, prefix, bits)
    np.testing.assert_array_equal(rows, present[inside])
    high = (prefix << (64 - bits)) + (1 << (64 - bits)) - 1
    beyond = keys[keys > np.uint64(high)]
    assert int(above) == (int(beyond.min()) if beyond.size else (1 << 64) - 1)
    if bits <= 48:
        digits = ((keys[inside] >> np.uint64(48 - bits)) & np.uint64(0xFFFF)).astype(np.intp)
        counts, sums = bucket_histogram(values, np.zeros(0) if w is None else w, w is not None, prefix, bits)
        np.testing.assert_array_equal(counts, np.bincount(digits, minlength=1 << 16))
        if w is not None:
            np.testing.assert_array_equal(sums, np.bincount(digits, weights=w[present][inside], minlength=1 << 16))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bucket_histogram_of_the_whole_column(dtype):
    values = np.random.default_rng(0).normal(size=5000).astype(dtype)
    values[::7] = np.nan
    keys = float_keys(values[~np.isnan(values)])
    counts, sums = bucket_histogram(values, np.zeros(0), False, 0, 0)
    np.testing.assert_array_equal(counts, np.bincount((keys >> np.uint64(48)).astype(np.intp), minlength=1 << 16))
    assert sums.size == 0
