"""Category codes from a column's distinct values equal a row-by-row reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.columns import _category_codes, _category_text, _distinct_values, _sorted_categories
from logicrules.fca.signatures import _category_signatures

TEXTS = ["a", "b", "1", " 1 ", "1.0", "2", "?", "True"]
FITTED = ["a", "b", "1", 1, 1.0, 2, "2.0", True, "?", "zz", 3.5]


def _reference_codes(series: pd.Series, categories: list) -> np.ndarray:
    """Row by row: the exact match, else the one fitted category whose text reads the same."""
    lookup: dict = {}
    for j, category in enumerate(categories):
        lookup.setdefault(category, j)
    texts = [_category_text(c) for c in categories]
    by_text = {t: j for j, t in enumerate(texts) if texts.count(t) == 1}
    codes = []
    for value in series.astype(object).tolist():
        if pd.isna(value):
            codes.append(-1)
        elif value in lookup:
            codes.append(lookup[value])
        else:
            codes.append(by_text.get(_category_text(str(value)), -1))
    return np.array(codes)


@st.composite
def columns(draw):
    values = draw(st.lists(st.sampled_from(TEXTS + [None, np.nan]), min_size=0, max_size=40))
    kind = draw(st.sampled_from(["object", "string", "category", "category-extra", "mixed"]))
    if kind == "object":
        return pd.Series(values, dtype=object)
    if kind == "string":
        return pd.Series(values, dtype="string")
    if kind == "mixed":  # numbers and bools beside strings: compared row by row
        extra = draw(st.lists(st.sampled_from([1, 1.0, True, 2, 0]), min_size=1, max_size=5))
        return pd.Series(values + extra, dtype=object)
    series = pd.Series(values, dtype="category")
    if kind == "category-extra":  # unused categories, in an order of their own
        series = series.cat.add_categories(["unused", "zz"]).cat.reorder_categories(
            ["zz", *series.cat.categories, "unused"]
        )
    return series


@settings(max_examples=300, deadline=None)
@given(columns(), st.lists(st.sampled_from(FITTED), min_size=0, max_size=8))
def test_category_codes_equal_the_row_by_row_reference(series, fitted):
    categories = list(dict.fromkeys(fitted))
    index = pd.Index(categories, dtype=object, tupleize_cols=False)
    before = series.copy()
    codes, missing = _category_codes(series, index)
    np.testing.assert_array_equal(codes, _reference_codes(series, categories))
    np.testing.assert_array_equal(missing, series.isna().to_numpy())
    pd.testing.assert_series_equal(series, before)


def _reference_categories(series: pd.Series) -> list:
    """Observed values, row by row: a category dtype's order, else sorted (by type, text if mixed)."""
    present = [v.item() if isinstance(v, np.generic) else v
               for v in series.astype(object).tolist() if not pd.isna(v)]
    if isinstance(series.dtype, pd.CategoricalDtype):
        return [c for c in series.cat.categories.tolist() if c in set(present)]
    distinct = list(dict.fromkeys(present))
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=lambda v: (type(v).__name__, str(v)))


@settings(max_examples=300, deadline=None)
@given(columns())
def test_sorted_categories_equal_the_row_by_row_reference(series):
    found = _sorted_categories(series, "c")
    expected = _reference_categories(series)
    assert found == expected
    assert [type(v) for v in found] == [type(v) for v in expected]


def test_sorted_categories_are_python_values():
    series = pd.Series([np.str_("b"), np.str_("a"), np.str_("b")], dtype=object)
    assert _distinct_values(series) is not None
    assert all(type(v) is str for v in _sorted_categories(series, "c"))
    numbers = pd.Series([3, 1, 3], dtype="category")
    assert [type(v) for v in _sorted_categories(numbers, "c")] == [int, int]


@settings(max_examples=200, deadline=None)
@given(columns(), st.lists(st.sampled_from(FITTED), min_size=1, max_size=6))
def test_category_signatures_count_the_exact_matches(series, fitted):
    categories = list(dict.fromkeys(fitted))
    ops = {"==": (categories, list(range(len(categories)))),
           "!=": (categories, list(range(len(categories), 2 * len(categories))))}
    missing = series.isna().to_numpy()
    n = len(series)
    keys = np.random.default_rng(0).integers(0, 2**63, size=n, dtype=np.uint64)
    counts = np.zeros(2 * len(categories), dtype=np.int64)
    hashes = np.zeros(2 * len(categories), dtype=np.uint64)
    _category_signatures(series, missing, ops, keys, counts, hashes)
    rows = series.astype(object).tolist()
    for j, category in enumerate(categories):
        equal = np.array([not pd.isna(v) and v == category and hash(v) == hash(category)
                          for v in rows], dtype=bool)
        differ = ~equal & ~missing
        assert counts[j] == equal.sum() and counts[len(categories) + j] == differ.sum()
        assert hashes[j] == np.bitwise_xor.reduce(keys[equal], initial=np.uint64(0))
        assert hashes[len(categories) + j] == np.bitwise_xor.reduce(keys[differ], initial=np.uint64(0))


@pytest.mark.parametrize("series, plain", [
    (pd.Series(["a", None, "b", "a"], dtype=object), True),
    (pd.Series(["a", None, "b"], dtype="string"), True),
    (pd.Series(["a", "b", "a"], dtype="category"), True),
    (pd.Series(["1", 1, True], dtype=object), False),
    (pd.Series([None, np.nan], dtype=object), False),
])
def test_distinct_values_only_where_equality_is_plain(series, plain):
    distinct = _distinct_values(series)
    assert (distinct is not None) == plain
    if plain:
        rows, values = distinct
        expected = [None if pd.isna(v) else v for v in series.astype(object)]
        assert [None if r < 0 else values[r] for r in rows] == expected
