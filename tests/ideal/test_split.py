"""The ideal method's validation mask draws the rows of scikit-learn's train_test_split."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from logicrules.ideal.split import validation_mask


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
