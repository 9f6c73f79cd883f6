"""The ideal method's validation split as a row mask, in whole-array operations.

scikit-learn's ``train_test_split`` draws the validation rows with a few permutations, but then
moves every chosen row index through a Python list (seconds per million rows) and returns index
arrays that copy X. :func:`validation_mask` makes the same draws from the same random state (its
stratified and plain shuffle splits, step by step) and returns a boolean mask, so the learner
can count the two parts of one binarized context without copying a row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.extmath import _approximate_mode

__all__ = ["appearance_codes", "validation_mask"]


def appearance_codes(y: np.ndarray) -> np.ndarray:
    """Each row's class numbered by first appearance (the class of the first row is 0).

    A label-invariant coding of the target: renaming or permuting the labels keeps it.

    Examples
    --------
    >>> appearance_codes(np.array(["b", "a", "b", "c"])).tolist()
    [0, 1, 0, 2]
    """
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse.reshape(-1)]


def validation_mask(y: np.ndarray, validation_size: float, random_state: Any = None) -> np.ndarray:
    """Rows of ``train_test_split(test_size=validation_size, random_state=...)``, as a mask.

    Stratified by the classes numbered by first appearance (:func:`appearance_codes`; for two
    classes ``y != y[0]``) when each class has at least two rows (a plain shuffle split
    otherwise, or when the stratified split is impossible, as the ideal method always did).

    Parameters
    ----------
    y : ndarray of shape (n,)
        Class of every row (bool, or any labels).
    validation_size : float in (0, 1)
    random_state : int, RandomState or None

    Returns
    -------
    ndarray of bool, shape (n,)
        True on the validation rows.

    Examples
    --------
    >>> y = np.array([0, 1] * 5, dtype=bool)
    >>> np.flatnonzero(validation_mask(y, 0.3, random_state=0)).tolist()
    [0, 5, 6]
    """
    n = len(y)
    n_valid = int(np.ceil(validation_size * n))
    n_train = n - n_valid
    codes = appearance_codes(y)
    counts = np.bincount(codes)
    stratify = codes if len(counts) >= 2 and counts.min() >= 2 else None
    if n_train < len(counts) or n_valid < len(counts):  # too few rows for one of each class in both parts
        stratify = None
    if n_train == 0:  # scikit-learn raises its own error
        train_test_split(np.arange(n), test_size=validation_size, random_state=random_state)
    rng = check_random_state(random_state)
    valid = np.zeros(n, dtype=bool)
    if stratify is None:  # ShuffleSplit: the first n_valid of one permutation
        valid[rng.permutation(n)[:n_valid]] = True
        return valid
    members = [np.flatnonzero(stratify == k) for k in range(len(counts))]  # a stable sort by class
    n_i = _approximate_mode(counts, n_train, rng)
    _approximate_mode(counts - n_i, n_valid, rng)  # the draw scikit-learn makes (all the rest)
    for rows, count, n_keep in zip(members, counts, n_i):
        valid[rows[rng.permutation(count)[n_keep:]]] = True
    return valid
