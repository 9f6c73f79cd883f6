"""The ideal method's validation split as a row mask, in whole-array operations.

scikit-learn's ``train_test_split`` draws the validation rows with a few permutations, but then
moves every chosen row index through a Python list (seconds per million rows) and returns index
arrays that copy X. :func:`validation_mask` makes the same draws from the same random state (its
stratified and plain shuffle splits, step by step) and returns a boolean mask, so the learner
can count the two parts of one binarized context without copying a row.

:func:`value_validation_mask` is the order-free alternative (``split="values"``): a row's side
depends on its values and the seed only, so identical rows share a side, the split of a shuffled
or repeated table is the same, and integer weights act exactly as repeated rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.extmath import _approximate_mode

from logicrules.fca.context import FormalContext

__all__ = ["appearance_codes", "row_hashes", "split_seed", "validation_mask", "value_validation_mask"]


def appearance_codes(y: np.ndarray) -> np.ndarray:
    """Each row's class numbered by first appearance (the class of the first row is 0).

    A label-invariant coding of the target: renaming or permuting the labels keeps it.

    Examples
    --------
    >>> appearance_codes(np.array(["b", "a", "b", "c"])).tolist()
    [0, 1, 0, 2]
    """
    fast = _small_integer_appearance_codes(y)
    if fast is not None:
        return fast
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse.reshape(-1)]


#: Widest range of integer labels coded without sorting (one pass per label value).
_SMALL_RANGE = 64


def _small_integer_appearance_codes(y: np.ndarray) -> np.ndarray | None:
    """:func:`appearance_codes` of bool labels, or of integers in a small range, without the
    sort of ``np.unique`` (a few passes over the labels); None for other labels."""
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0 or y.dtype.kind not in "biu":
        return None
    if y.dtype.kind == "b":
        return (y != y[0]).astype(np.intp)
    low, high = int(y.min()), int(y.max())
    if high - low >= _SMALL_RANGE:
        return None
    shifted = (y - low).astype(np.intp)
    present = np.flatnonzero(np.bincount(shifted, minlength=high - low + 1))
    first = np.array([np.argmax(shifted == v) for v in present])
    code = np.zeros(high - low + 1, dtype=np.intp)
    code[present] = np.argsort(np.argsort(first))
    return code[shifted]


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


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _mix64(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer on every entry (uint64, wrapping): a bijection that spreads bits."""
    with np.errstate(over="ignore"):
        h = h + _MIX[0]
        h = (h ^ (h >> np.uint64(30))) * _MIX[1]
        h = (h ^ (h >> np.uint64(27))) * _MIX[2]
    return h ^ (h >> np.uint64(31))


def row_hashes(X: Any) -> np.ndarray:
    """A 64-bit hash of every row's values: equal rows hash equal, whatever their position.

    Parameters
    ----------
    X : DataFrame, array-like of shape (n, d), or FormalContext
        A table (pandas' :func:`~pandas.util.hash_pandas_object` of its values, column by column;
        missing values hash alike) or packed 0/1 rows (a sum of one random 64-bit word per true
        attribute, read one attribute at a time without unpacking the context).

    Returns
    -------
    ndarray of uint64, shape (n,)

    Examples
    --------
    >>> h = row_hashes(np.array([[1.0, 2.0], [3.0, np.nan], [1.0, 2.0]]))
    >>> bool(h[0] == h[2]), bool(h[0] == h[1])
    (True, False)
    """
    if isinstance(X, FormalContext):
        words = _mix64(np.arange(1, X.n_attributes + 1, dtype=np.uint64))
        h = np.zeros(X.n_objects, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for j, extent in enumerate(X.bits):  # one pass per attribute, n bytes at a time
                bits = np.unpackbits(extent.view(np.uint8), count=X.n_objects, bitorder="little")
                h += words[j] * bits.astype(np.uint64)
        return h
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X), copy=False)
    return pd.util.hash_pandas_object(frame, index=False).to_numpy(dtype=np.uint64)


def split_seed(random_state: Any) -> int:
    """The seed of the splits drawn without a RandomState stream (the dask validation split,
    ``split="values"``, dask folds): ``random_state`` itself when an int, else drawn
    from it (a RandomState or Generator) or from fresh entropy (None).

    Examples
    --------
    >>> split_seed(7)
    7
    """
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    return int(np.random.SeedSequence().entropy % (2**31 - 1))


def value_validation_mask(X: Any, validation_size: float, random_state: Any = None) -> np.ndarray:
    """Validation rows decided by each row's values: row ``i`` is a validation row when its mixed
    hash, as a fraction of 2**64, is below ``validation_size``.

    Independent of row order and of repetition: identical rows (same values, any label) fall on
    the same side, so a duplicated row never serves both to fit and to validate, and a table with
    integer row weights is split as the table with the rows repeated. Each row is a validation
    row with probability ``validation_size``, independently of the others across distinct
    values, so the validation fraction is that on average, not exactly, and the split is not
    stratified by class. Both sides are kept non-empty: when every row falls on one side, the
    rows of the distinct value with the lowest (all training) or highest (all validation) hash
    move to the other; a table of one distinct row stays all training (``valid`` all False).

    Parameters
    ----------
    X : DataFrame, array-like or FormalContext
        The rows (see :func:`row_hashes`).
    validation_size : float in (0, 1)
    random_state : int, RandomState, Generator or None
        The seed (:func:`split_seed`): an int is used as is.

    Returns
    -------
    ndarray of bool, shape (n,)
        True on the validation rows.

    Examples
    --------
    >>> X = np.array([[0, 1], [1, 1], [0, 1], [1, 0]] * 3)
    >>> valid = value_validation_mask(X, 0.5, random_state=0)
    >>> bool((valid[:4] == valid[4:8]).all() and (valid[:4] == valid[8:]).all())
    True
    """
    if not 0 < validation_size < 1:
        raise ValueError(f"validation_size must be in (0, 1), got {validation_size!r}")
    seed = _mix64(np.array([split_seed(random_state)], dtype=np.uint64))[0]
    with np.errstate(over="ignore"):
        u = _mix64(row_hashes(X) ^ seed) >> np.uint64(11)  # 53 bits: exact as float64
    valid = u.astype(np.float64) < validation_size * float(1 << 53)
    if len(u) and not valid.any():
        valid = u == u.min()
    if valid.all():
        valid = u != u.max()
    return valid
