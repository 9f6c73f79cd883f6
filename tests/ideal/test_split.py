"""The ideal method's validation mask draws the rows of scikit-learn's train_test_split."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import train_test_split

from logicrules.ideal.split import _small_integer_appearance_codes, appearance_codes, validation_mask


def reference(y: np.ndarray, size: float, seed: int) -> np.ndarray:
    """The ideal method's split as it was written: train_test_split, stratified when it can be."""
    index = np.arange(len(y))
    stratify = (y != y[0]) if min(y.sum(), (~y).sum()) >= 2 else None
    try:
        _, valid = train_test_split(index, test_size=size, random_state=seed, stratify=stratify)
    except ValueError:
        _, valid = train_test_split(index, test_size=size, random_state=seed)
    return np.sort(valid)


def test_validation_mask_equals_train_test_split_on_random_targets():
    rng = np.random.default_rng(0)
    for _ in range(600):
        n = int(rng.integers(2, 80))
        y = rng.random(n) < rng.random()
        size, seed = float(rng.uniform(0.05, 0.95)), int(rng.integers(0, 1000))
        if int(np.ceil(size * n)) == n:  # no training row: both refuse
            with pytest.raises(ValueError, match="train set will be empty"):
                reference(y, size, seed)
            with pytest.raises(ValueError, match="train set will be empty"):
                validation_mask(y, size, seed)
            continue
        assert np.array_equal(np.flatnonzero(validation_mask(y, size, seed)), reference(y, size, seed))
    y = rng.random(100_000) < 0.3
    assert np.array_equal(np.flatnonzero(validation_mask(y, 0.3, 7)), reference(y, 0.3, 7))


def test_validation_mask_accepts_a_random_state_and_refuses_one_row():
    y = np.array([0, 1] * 20, dtype=bool)
    a = validation_mask(y, 0.3, np.random.RandomState(3))
    assert np.array_equal(a, validation_mask(y, 0.3, 3))
    with pytest.raises(ValueError, match="train set will be empty"):
        validation_mask(np.array([True]), 0.3, 0)


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.integers(-3, 70), min_size=1, max_size=40), kind=st.sampled_from(["int", "uint8", "bool"]))
def test_appearance_codes_without_sorting_equal_those_of_np_unique(labels, kind):
    y = np.array(labels)
    y = {"int": y, "uint8": (y + 3).astype(np.uint8), "bool": y % 2 == 0}[kind]
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    expected = np.argsort(np.argsort(first))[inverse.reshape(-1)]
    fast = _small_integer_appearance_codes(y)
    if fast is None:  # a range too wide for the pass per label
        assert y.dtype != bool and int(y.max()) - int(y.min()) >= 64
    else:
        assert fast.dtype == expected.dtype and np.array_equal(fast, expected)
    assert np.array_equal(appearance_codes(y), expected)
