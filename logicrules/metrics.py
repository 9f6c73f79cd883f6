"""Objectives over confusion counts, vectorized over whole arrays of candidates.

Every learner scores candidate formulas from their confusion counts ``(tp, fp, fn, tn)`` only,
so one objective function serves a single rule, a GEMM block of millions of candidates, or
partial counts summed across chunks. Scores are float64, higher is better, and undefined ratios
(a zero denominator) score 0 so that degenerate candidates never win by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["OBJECTIVES", "Objective", "get_objective"]

CountFunction = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Elementwise ``numerator / denominator`` with 0 where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def f1(tp, fp, fn, tn):
    """F1 score ``2 tp / (2 tp + fp + fn)``; ranks exactly as :func:`jaccard` does."""
    tp = np.asarray(tp, dtype=np.float64)
    return _ratio(2 * tp, 2 * tp + fp + fn)


def jaccard(tp, fp, fn, tn):
    """Jaccard score ``tp / (tp + fp + fn)``; ``f1 = 2 J / (1 + J)``."""
    return _ratio(tp, np.asarray(tp, dtype=np.float64) + fp + fn)


def accuracy(tp, fp, fn, tn):
    """Fraction of rows classified correctly."""
    tp = np.asarray(tp, dtype=np.float64)
    return _ratio(tp + tn, tp + fp + fn + tn)


def precision(tp, fp, fn, tn):
    """Positive predictive value ``tp / (tp + fp)``."""
    return _ratio(tp, np.asarray(tp, dtype=np.float64) + fp)


def recall(tp, fp, fn, tn):
    """True positive rate ``tp / (tp + fn)``."""
    return _ratio(tp, np.asarray(tp, dtype=np.float64) + fn)


def balanced_accuracy(tp, fp, fn, tn):
    """Mean of the true positive and true negative rates (a missing class counts its rate as 0)."""
    tp = np.asarray(tp, dtype=np.float64)
    tn = np.asarray(tn, dtype=np.float64)
    return (_ratio(tp, tp + fn) + _ratio(tn, tn + fp)) / 2


def mcc(tp, fp, fn, tn):
    """Matthews correlation coefficient (0 when any marginal is empty, as scikit-learn does)."""
    tp, fp, fn, tn = (np.asarray(a, dtype=np.float64) for a in (tp, fp, fn, tn))
    denominator = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return _ratio(tp * tn - fp * fn, denominator)


def wracc(tp, fp, fn, tn):
    """Weighted relative accuracy ``coverage * (precision - prior)`` of subgroup discovery."""
    tp, fp, fn, tn = (np.asarray(a, dtype=np.float64) for a in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    covered = tp + fp
    return _ratio(covered, n) * (_ratio(tp, covered) - _ratio(tp + fn, n))


@dataclass(frozen=True)
class Objective:
    """A named score of confusion counts, callable on arrays.

    Parameters
    ----------
    name : str
        Name used in reports.
    function : callable
        ``function(tp, fp, fn, tn) -> float array``; higher is better.
    fractional : bool
        True when the score is a ratio ``(a tp + b) / (c tp + d fp + e)`` that can be maximized by
        parametric (Dinkelbach) linearization: f1, jaccard and precision.
    min_support : int
        Candidates covering fewer rows (``tp + fp < min_support``) score ``-inf``.

    Examples
    --------
    >>> import numpy as np
    >>> get_objective("f1")(np.array([3]), np.array([1]), np.array([1]), np.array([5]))
    array([0.75])
    """

    name: str
    function: CountFunction = field(repr=False)
    fractional: bool = False
    min_support: int = 0

    def __call__(self, tp, fp, fn, tn) -> np.ndarray:
        scores = np.asarray(self.function(tp, fp, fn, tn), dtype=np.float64)
        if self.min_support > 0:
            support = np.asarray(tp) + np.asarray(fp)
            scores = np.where(support < self.min_support, -np.inf, scores)
        return scores


OBJECTIVES: dict[str, Objective] = {
    "f1": Objective("f1", f1, fractional=True),
    "jaccard": Objective("jaccard", jaccard, fractional=True),
    "precision": Objective("precision", precision, fractional=True),
    "accuracy": Objective("accuracy", accuracy),
    "balanced_accuracy": Objective("balanced_accuracy", balanced_accuracy),
    "recall": Objective("recall", recall),
    "mcc": Objective("mcc", mcc),
    "wracc": Objective("wracc", wracc),
}


def get_objective(
    objective: str | Objective | CountFunction, *, min_support: int | None = None
) -> Objective:
    """Resolve an objective by name, or wrap a callable ``f(tp, fp, fn, tn)``.

    Parameters
    ----------
    objective : str, Objective or callable
        One of ``OBJECTIVES`` (``"f1"``, ``"accuracy"``, ``"balanced_accuracy"``, ``"jaccard"``,
        ``"precision"``, ``"recall"``, ``"mcc"``, ``"wracc"``), an :class:`Objective`, or a callable
        on count arrays returning scores (higher is better).
    min_support : int, optional
        Minimum number of covered rows (``tp + fp``); smaller candidates score ``-inf``. Useful
        with precision, which a single covered positive row would otherwise maximize. When
        omitted, an :class:`Objective` keeps its own and a name or callable gets 0.

    Returns
    -------
    Objective

    Examples
    --------
    >>> get_objective("precision", min_support=10).min_support
    10
    """
    if min_support is not None and (not isinstance(min_support, (int, np.integer)) or min_support < 0):
        raise ValueError(f"min_support must be a non-negative integer, got {min_support!r}")
    if isinstance(objective, Objective):
        base = objective
    elif isinstance(objective, str):
        try:
            base = OBJECTIVES[objective]
        except KeyError:
            known = ", ".join(sorted(OBJECTIVES))
            raise ValueError(f"unknown objective {objective!r}; known objectives: {known}") from None
    elif callable(objective):
        name = getattr(objective, "__name__", type(objective).__name__)
        base = Objective(name, objective)
    else:
        raise TypeError(f"objective must be a name or a callable, got {type(objective).__name__}")
    if min_support is None or min_support == base.min_support:
        return base
    return Objective(base.name, base.function, base.fractional, int(min_support))
