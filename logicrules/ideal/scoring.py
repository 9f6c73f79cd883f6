"""Univariate feature scores for boolean features and a class target, from contingency counts.

The ideal classifier method ranks booleanized attributes with scikit-learn's ``SelectKBest`` and
its three scorers: the ANOVA F-test (``f_classif``), the chi-squared statistic (``chi2``) and the
plug-in mutual information (``mutual_info_classif(discrete_features=True)``). On 0/1 data each of
them is a function of four numbers per feature: the row count ``n``, the positives ``n_pos``, the
rows where the feature is true ``s`` and the positive rows where it is true ``s_pos``. Those come
from one counting pass (``s_pos`` is the product ``X.T @ y``), so all three scores cost
O(n m) once instead of three generic estimators (scikit-learn's mutual information loops over
features in Python).

The formulas below replay scikit-learn's floating-point operations in the same order on the
same (exactly representable) integer sums in float64, so the three scores equal scikit-learn's
bit for bit on a float64 0/1 matrix (tested), including ``nan`` for a constant feature and
``inf`` for a perfectly separating one, and rankings by :func:`rank_features` select the same
columns as ``SelectKBest``. A target of more than two classes is scored from the per-class counts
:class:`ClassCounts` by the same operations over all its classes (scikit-learn's multiclass
formulas; equal to its scores to rounding). (Given a *bool* matrix, scikit-learn's ``f_classif`` converts it to
float32 and its F values are then off by about 1e-7 relative; the float64 values here are the
exact ones.)

Examples
--------
>>> import numpy as np
>>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=bool)
>>> y = np.array([1, 1, 0, 0])
>>> f_classif_boolean(X, y)[0]
array([inf,  0.])
>>> rank_features(mutual_info_boolean(X, y)).tolist()
[0, 1]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from logicrules.validation import as_boolean_matrix

__all__ = [
    "BooleanCounts",
    "ClassCounts",
    "SCORERS",
    "boolean_counts",
    "chi2_boolean",
    "f_classif_boolean",
    "get_scorer",
    "mutual_info_boolean",
    "rank_features",
]


@dataclass(frozen=True)
class BooleanCounts:
    """The contingency counts of m boolean features against a binary target.

    Attributes
    ----------
    n : int or float
        Number of rows (their total weight, when weighted).
    n_pos : int or float
        Number of positive rows.
    true : ndarray of int64 or float64, shape (m,)
        Rows where each feature is true.
    true_pos : ndarray of int64 or float64, shape (m,)
        Positive rows where each feature is true (``X.T @ y``).
    """

    n: int
    n_pos: int
    true: np.ndarray
    true_pos: np.ndarray

    @property
    def n_neg(self) -> int:
        """Number of negative rows."""
        return self.n - self.n_pos

    @property
    def true_neg(self) -> np.ndarray:
        """Negative rows where each feature is true."""
        return self.true - self.true_pos


@dataclass(frozen=True)
class ClassCounts:
    """The contingency counts of m boolean features against a target of K classes.

    The scorers read these (a :class:`BooleanCounts` is the two-class case, negative class
    first); the classes without rows are left out, as scikit-learn never sees them.

    Attributes
    ----------
    n : int or float
        Number of rows (their total weight, when weighted).
    totals : ndarray, shape (K,)
        Rows of each class.
    true : ndarray, shape (m,)
        Rows where each feature is true.
    true_per_class : ndarray, shape (K, m)
        Rows of each class where each feature is true.

    Examples
    --------
    >>> c = ClassCounts.of(boolean_counts([[1, 0], [1, 1], [0, 1]], [1, 1, 0]))
    >>> c.totals.tolist(), c.true_per_class.tolist()
    ([1, 2], [[0, 1], [2, 1]])
    """

    n: int | float
    totals: np.ndarray
    true: np.ndarray
    true_per_class: np.ndarray

    @classmethod
    def of(cls, counts: BooleanCounts | ClassCounts) -> ClassCounts:
        """The per-class form of ``counts`` (itself when it is one), without empty classes."""
        if isinstance(counts, BooleanCounts):
            counts = cls(counts.n, np.array([counts.n_neg, counts.n_pos]), counts.true,
                         np.vstack([counts.true_neg, counts.true_pos]))
        present = np.asarray(counts.totals) > 0
        if present.all() or not present.any():
            return counts
        return cls(counts.n, np.asarray(counts.totals)[present], counts.true,
                   np.asarray(counts.true_per_class)[present])


def _as_binary_target(y: ArrayLike, n: int) -> np.ndarray:
    """y as a bool array (positive = the larger of the two labels)."""
    y = np.asarray(y)
    if y.ndim != 1:
        y = np.ravel(y) if y.ndim == 2 and 1 in y.shape else y
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} entries")
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(
            f"boolean feature scores need exactly two classes in y, got {len(classes)}: "
            f"{classes[:10].tolist()}"
        )
    return y == classes[1]


def boolean_counts(X: ArrayLike, y: ArrayLike) -> BooleanCounts:
    """Count, per boolean feature, the rows where it is true overall and among positives.

    Parameters
    ----------
    X : array-like of shape (n, m)
        Boolean or 0/1 matrix.
    y : array-like of shape (n,)
        Target with exactly two labels; the larger label is the positive class (the scores are
        symmetric in the two classes, so this choice does not change them).

    Returns
    -------
    BooleanCounts

    Examples
    --------
    >>> c = boolean_counts([[1, 0], [1, 1], [0, 1]], [1, 1, 0])
    >>> c.true.tolist(), c.true_pos.tolist()
    ([2, 2], [2, 1])
    """
    Xb = as_boolean_matrix(X)
    yb = _as_binary_target(y, Xb.shape[0])
    true = np.count_nonzero(Xb, axis=0).astype(np.int64)
    true_pos = np.count_nonzero(Xb[yb], axis=0).astype(np.int64)
    return BooleanCounts(n=int(Xb.shape[0]), n_pos=int(yb.sum()), true=true, true_pos=true_pos)


def f_from_counts(counts: BooleanCounts | ClassCounts) -> tuple[np.ndarray, np.ndarray]:
    """ANOVA F statistic and p-value per feature (scikit-learn's ``f_oneway`` on 0/1 data).

    The operations are those of ``sklearn.feature_selection.f_oneway`` over the K classes in
    order (the negative class first): ``sstot = S - S**2 / n``,
    ``ssbn = sum_k s_k**2 / n_k - S**2 / n``, ``F = (ssbn / (K - 1)) / ((sstot - ssbn) / (n - K))``.
    """
    counts = ClassCounts.of(counts)
    n, k_classes = counts.n, len(counts.totals)
    n_per_class = np.asarray(counts.totals)
    sums = [np.asarray(row, dtype=np.float64) for row in counts.true_per_class]
    with np.errstate(divide="ignore", invalid="ignore"):
        ss_alldata = sum(sums)  # x**2 == x for 0/1 features
        square_of_sums_alldata = sum(sums) ** 2
        sstot = ss_alldata - square_of_sums_alldata / float(n)
        ssbn = 0.0
        for k in range(k_classes):
            ssbn = ssbn + sums[k] ** 2 / n_per_class[k]
        ssbn = ssbn - square_of_sums_alldata / float(n)
        sswn = sstot - ssbn
        msb = ssbn / float(k_classes - 1)
        msw = sswn / float(n - k_classes)
        f = np.asarray(msb / msw, dtype=np.float64).ravel()
    return f, special.fdtrc(k_classes - 1, n - k_classes, f)


def chi2_from_counts(counts: BooleanCounts | ClassCounts) -> tuple[np.ndarray, np.ndarray]:
    """Chi-squared statistic and p-value per feature (scikit-learn's ``chi2`` on 0/1 data).

    As in scikit-learn, only the cells where the feature is true are compared:
    ``sum_c (observed_c - expected_c)**2 / expected_c`` with ``expected_c = P(c) * S``, with
    K - 1 degrees of freedom.
    """
    counts = ClassCounts.of(counts)
    observed = np.asarray(counts.true_per_class, dtype=np.float64)
    class_prob = np.asarray(counts.totals, dtype=np.float64) / counts.n
    expected = np.outer(class_prob, np.asarray(counts.true, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        chisq = ((observed - expected) ** 2 / expected).sum(axis=0)
    return chisq, special.chdtrc(len(observed) - 1, chisq)


def mutual_info_from_counts(counts: BooleanCounts | ClassCounts) -> np.ndarray:
    """Plug-in mutual information (nats) per feature, scikit-learn's ``mutual_info_score``.

    ``I(x; y) = sum_{a, b} p(a, b) log(p(a, b) / (p(a) p(b)))`` over the non-empty cells of the
    2 x K table, with scikit-learn's arrangement of the logarithms, its rounding of terms below
    machine epsilon to 0, a constant feature (or target) scoring 0, and clipping at 0.
    """
    counts = ClassCounts.of(counts)
    n, true = counts.n, counts.true
    totals, true_per_class = np.asarray(counts.totals), np.asarray(counts.true_per_class)
    k_classes = len(totals)
    # Cells in scikit-learn's order: (x=0, y=0), (x=0, y=1), ..., (x=1, y=0), (x=1, y=1), ...
    cells = np.concatenate([totals[:, None] - true_per_class, true_per_class])
    row_totals = np.stack([n - true] * k_classes + [true] * k_classes)
    col_totals = np.concatenate([totals, totals])[:, None]
    present = cells > 0
    safe_cells = np.where(present, cells, 1)
    outer = (row_totals * col_totals).astype(np.float64)  # exact below 2**53, weighted or not
    outer = np.where(present, outer, 1)
    contingency_nm = safe_cells / float(n)
    log_outer = -np.log(outer) + math.log(n) + math.log(n)
    terms = contingency_nm * (np.log(safe_cells) - math.log(n)) + contingency_nm * log_outer
    terms = np.where(present & (np.abs(terms) >= np.finfo(np.float64).eps), terms, 0.0)
    mi = terms[0]
    for term in terms[1:]:  # left to right, as scikit-learn sums its few nonzero cells
        mi = mi + term
    constant = (true == 0) | (true == n) | (k_classes < 2)
    return np.where(constant, 0.0, np.clip(mi, 0.0, None))


def f_classif_boolean(X: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """ANOVA F-test of boolean features against a binary target, equal to ``f_classif``.

    A ``SelectKBest`` score function: ``SelectKBest(f_classif_boolean, k=3)``.

    Parameters
    ----------
    X : array-like of shape (n, m)
        Boolean or 0/1 matrix.
    y : array-like of shape (n,)
        Target with two labels.

    Returns
    -------
    f : ndarray of float64, shape (m,)
        F statistics (``nan`` for a constant feature, ``inf`` for a separating one).
    pvalues : ndarray of float64, shape (m,)

    Examples
    --------
    >>> f, p = f_classif_boolean([[1], [1], [0], [1]], [1, 1, 0, 0])
    >>> round(float(f[0]), 6)
    1.0
    """
    return f_from_counts(boolean_counts(X, y))


def chi2_boolean(X: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Chi-squared statistic of boolean features against a binary target, equal to ``chi2``.

    A ``SelectKBest`` score function. Like scikit-learn's ``chi2`` it compares observed and
    expected counts of the rows where the feature is true only (``nan`` for an all-false
    feature).

    Examples
    --------
    >>> chi, p = chi2_boolean([[1], [1], [0], [0]], [1, 1, 0, 0])
    >>> float(chi[0])
    2.0
    """
    return chi2_from_counts(boolean_counts(X, y))


def mutual_info_boolean(X: ArrayLike, y: ArrayLike) -> np.ndarray:
    """Plug-in mutual information (nats) of boolean features and a binary target.

    Equal (to rounding) to ``mutual_info_classif(X, y, discrete_features=True)``, which for
    discrete features is the plug-in estimate ``mutual_info_score`` per column, without its
    per-feature Python loop. A ``SelectKBest`` score function.

    Examples
    --------
    >>> round(float(mutual_info_boolean([[1], [1], [0], [0]], [1, 1, 0, 0])[0]), 6)
    0.693147
    """
    return mutual_info_from_counts(boolean_counts(X, y))


#: The three scorers of the ideal classifier method, by name: functions of
#: :class:`BooleanCounts` (two classes) or :class:`ClassCounts` returning one score per feature
#: (higher is better).
SCORERS: dict[str, Callable[[BooleanCounts | ClassCounts], np.ndarray]] = {
    "f_classif": lambda counts: f_from_counts(counts)[0],
    "mutual_info": mutual_info_from_counts,
    "chi2": lambda counts: chi2_from_counts(counts)[0],
}


def get_scorer(name: str) -> Callable[[BooleanCounts], np.ndarray]:
    """The count-based scorer called ``name`` (``"f_classif"``, ``"mutual_info"``, ``"chi2"``).

    Examples
    --------
    >>> c = boolean_counts([[1], [1], [0], [0]], [1, 1, 0, 0])
    >>> float(get_scorer("chi2")(c)[0])
    2.0
    """
    if name not in SCORERS:
        raise ValueError(f"unknown scorer {name!r}; use one of {', '.join(SCORERS)}")
    return SCORERS[name]


def rank_features(scores: ArrayLike) -> np.ndarray:
    """Feature indices from best to worst, exactly as ``SelectKBest`` chooses them.

    ``SelectKBest(k)`` keeps ``argsort(scores, kind="mergesort")[-k:]`` after replacing ``nan``
    by the smallest float, so among equal scores the later column wins. The first ``k`` entries
    of the returned order are that set for every ``k`` (the selections are nested).

    Examples
    --------
    >>> rank_features([0.5, np.nan, 2.0, 0.5]).tolist()
    [2, 3, 0, 1]
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must be 1-D, got shape {scores.shape}")
    cleaned = np.where(np.isnan(scores), np.finfo(np.float64).min, scores)
    return np.argsort(cleaned, kind="mergesort")[::-1].copy()
