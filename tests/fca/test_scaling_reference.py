"""The binarizers' fast fit (one sort per column, signatures) against the former dense fit.

The references below are the former implementation: thresholds from ``np.unique`` of every
column, and attribute selection from the full rows x candidates matrix (sizes by summing it,
duplicates by ``np.unique`` over its packed columns). They are slow (quadratic for the
all-values scaling) and obvious; the fast binarizers must choose exactly the same attributes.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.scaling import (Condition, MedianBinarizer, QuantileBinarizer, ThresholdBinarizer,
                                    _median, _short_threshold, _weighted_median, _weighted_quantiles)


def dense_select(self, data, conditions):
    extents = self._evaluate(data, conditions)
    n = extents.shape[0]
    counts = extents.sum(axis=0)
    constant = (counts == 0) | (counts == n)
    keep = np.ones(len(conditions), dtype=bool)
    redundant = {}
    if self._drop_constant():
        keep &= ~constant
        for j in np.flatnonzero(constant):
            side = "true" if counts[j] == n else "false"
            redundant[conditions[j].name] = f"constant: {side} on every row of the fitting data"
    candidates = np.flatnonzero(keep)
    if self._merge_duplicates and candidates.size:
        packed = np.packbits(extents[:, candidates], axis=0).T
        rows = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1])))[:, 0]
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        for position, j in enumerate(candidates):
            kept = candidates[first[inverse[position]]]
            if kept != j:
                keep[j] = False
                redundant[conditions[j].name] = f"same extent on the fitting data as {conditions[kept].name!r}"
    return keep, redundant


class RefMedian(MedianBinarizer):
    _select = dense_select

    def _threshold_conditions(self, column, present, weights=None):
        distinct = np.unique(present)
        median = _median(present) if weights is None else _weighted_median(present, weights)
        above = distinct[distinct > median]
        if above.size == 0:
            return [Condition(column, ">=", median)], None
        return [Condition(column, ">", _short_threshold(median, float(above[0]), near_low=True))], None


class RefQuantile(QuantileBinarizer):
    _select = dense_select

    def _threshold_conditions(self, column, present, weights=None):
        distinct = np.unique(present)
        if distinct.size <= self.n_thresholds + 1:
            gaps = np.arange(distinct.size - 1)
        else:
            levels = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
            quantiles = (np.quantile(present, levels) if weights is None
                         else _weighted_quantiles(present, weights, levels))
            gaps = np.searchsorted(distinct, quantiles, side="right") - 1
            gaps = np.unique(gaps[gaps < distinct.size - 1])
        out = []
        for gap in gaps:
            t = _short_threshold(float(distinct[gap]), float(distinct[gap + 1]), near_low=False)
            out.append(Condition(column, "<=", t))
            if self.negations:
                out.append(Condition(column, ">", t))
        return out, None


class RefThreshold(ThresholdBinarizer):
    _select = dense_select

    def _threshold_conditions(self, column, present, weights=None):
        out = []
        for value in np.unique(present).tolist():
            out.append(Condition(column, ">=", value))
            out.append(Condition(column, "<", value))
        return out, None


PAIRS = [(MedianBinarizer, RefMedian, {}), (QuantileBinarizer, RefQuantile, {}),
         (QuantileBinarizer, RefQuantile, {"n_thresholds": 3, "negations": False}),
         (ThresholdBinarizer, RefThreshold, {}), (ThresholdBinarizer, RefThreshold, {"drop_constant": True})]


@st.composite
def frames(draw):
    n = draw(st.integers(1, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    columns = {}
    for j in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["int", "float", "cat", "binary", "copy"]))
        if kind == "int":
            values = rng.integers(0, draw(st.integers(1, 8)), n).astype(float)
        elif kind == "float":
            values = np.round(rng.normal(size=n), draw(st.integers(0, 3)))
        elif kind == "binary":
            values = rng.integers(0, 2, n).astype(float)
        elif kind == "cat":
            values = rng.choice(["a", "b", "c"], n).astype(object)
        else:  # a monotone copy of an earlier numeric column: duplicates across columns
            numeric = [c for c in columns.values() if c.dtype != object]
            values = 2 * numeric[0] + 1 if numeric else rng.integers(0, 3, n).astype(float)
        if draw(st.booleans()):
            values = values.copy()
            values[rng.random(n) < 0.2] = None if values.dtype == object else np.nan
        columns[f"c{j}"] = values
    return pd.DataFrame(columns)


@settings(max_examples=50, deadline=None)
@given(frames(), st.sampled_from(range(len(PAIRS))), st.sampled_from(["false", "indicator"]), st.booleans())
def test_fast_fit_equals_dense_reference(X, pair, missing, weighted):
    fast_cls, ref_cls, params = PAIRS[pair]
    weights = np.random.default_rng(len(X)).integers(0, 3, len(X)) if weighted else None
    fast = fast_cls(missing=missing, **params).fit(X, sample_weight=weights)
    ref = ref_cls(missing=missing, **params).fit(X, sample_weight=weights)
    assert fast.conditions_ == ref.conditions_
    assert fast.redundant_ == ref.redundant_
    assert fast.dropped_ == ref.dropped_
    np.testing.assert_array_equal(fast.transform(X), ref.transform(X))


def test_threshold_binarizer_is_not_quadratic():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=20_000), "b": rng.normal(size=20_000)})
    X["c"] = 3 * X["a"]  # the same extents as column a: merged exactly
    binarizer = ThresholdBinarizer(max_values=None).fit(X)
    assert len(binarizer.conditions_) == 4 * 20_000 - 2  # the constant x < min and x >= min of b merged into a's
    assert all(c.column != "c" for c in binarizer.conditions_)


def test_threshold_binarizer_refuses_too_many_values():
    X = pd.DataFrame({"wide": np.arange(5000.0)})
    with pytest.raises(ValueError, match="column 'wide' has 5000 distinct values.*max_values=2000"):
        ThresholdBinarizer().fit(X)
    with pytest.raises(ValueError, match="max_values"):
        ThresholdBinarizer(max_values=0).fit(X)


@settings(max_examples=25, deadline=None)
@given(frames(), st.sampled_from(range(len(PAIRS))), st.integers(1, 130))
def test_packed_transform_in_chunks_equals_dense_transform(X, pair, chunk_rows):
    from logicrules.fca import bitset

    fast_cls, _, params = PAIRS[pair]
    binarizer = fast_cls(missing="indicator", **params).fit(X)
    dense = binarizer.transform(X)
    np.testing.assert_array_equal(binarizer.transform_packed(X, chunk_rows=chunk_rows),
                                  bitset.pack_columns(dense))
    context = binarizer.transform_context(X, chunk_rows=chunk_rows)
    np.testing.assert_array_equal(context.to_dense(), dense)
    assert context.objects == tuple(X.index)


@settings(max_examples=25, deadline=None)
@given(frames(), st.sampled_from([3, 4]))
def test_duplicate_merging_is_exact_when_signatures_collide(X, pair):
    # all row keys zero: every signature collides, only sizes tell candidates apart, so the
    # exact comparison alone must find the duplicates
    import logicrules.fca.binarizer_base as binarizer_base

    fast_cls, ref_cls, params = PAIRS[pair]
    original = binarizer_base.row_keys
    binarizer_base.row_keys = lambda n: np.zeros(n, dtype=np.uint64)
    try:
        fast = fast_cls(**params).fit(X)
    finally:
        binarizer_base.row_keys = original
    ref = ref_cls(**params).fit(X)
    assert fast.conditions_ == ref.conditions_
    assert fast.redundant_ == ref.redundant_
