"""Class probabilities of a rule, from the rule's own training counts.

A rule splits the rows into *cells*, each with a predicted side: the terms of a DNF (positive
side), the clauses of a CNF (a row on which a clause fails is on the negative side), the number
of true literals of an m-of-n checklist, the types of the ideal classifier. Every cell keeps the
(weighted) numbers of training rows of each class falling into it, and a row's probability is
the smoothed class frequency of *its* cell:

- a row is matched to the most confident cell that agrees with the rule's decision on it (for a
  DNF rule that fires: the firing term of highest smoothed precision; for a row on which a CNF
  rule fails: the failing clause of lowest precision) or, when no cell on that side matches, to
  the *rest* cell (for a DNF: rows where no term fires; for a CNF: rows where every clause holds);
- frequencies are smoothed additively, ``(w_c + 1) / (w + K)`` for ``K`` classes (Laplace's rule,
  in units of sample weight), which keeps their order and so never contradicts a majority, and
  never reaches 0 or 1 (``decision_function``, the log-odds, stays finite);
- probabilities are made *consistent with predict*: where the estimate disagrees with the rule's
  decision (a firing term that was mostly negative in training, which an F1 objective may choose,
  or an exact tie), the predicted class is nudged just above the largest other probability
  (:data:`NUDGE`) before normalizing, so ``argmax(predict_proba) == predict`` always holds.

Everything here is a function of the binarized rows and of small count tables fitted once, so it
maps over row blocks (or dask partitions) unchanged.

Examples
--------
>>> import numpy as np
>>> counts = np.array([[1.0, 3.0], [6.0, 2.0]])      # [negative, positive] weight per cell
>>> smoothed_frequencies(counts).round(3).tolist()
[[0.333, 0.667], [0.7, 0.3]]
>>> consistent(np.array([[0.7, 0.3]]), np.array([1]))[0].round(6).tolist()
[0.5, 0.5]
"""

from __future__ import annotations

import numpy as np

__all__ = ["NUDGE", "SMOOTHING", "assign_cells", "cell_counts", "consistent", "log_odds",
           "smoothed_frequencies"]

#: Pseudo-weight added to every class of a cell before taking frequencies (Laplace's rule).
SMOOTHING = 1.0
#: Margin by which the predicted class is raised above the others where the estimate disagrees
#: with the rule's decision (before normalization).
NUDGE = 1e-9


def cell_counts(masks: np.ndarray, y_index: np.ndarray, n_classes: int,
                sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Weighted class counts of every cell: a (cells, classes) float array.

    Parameters
    ----------
    masks : ndarray of bool, shape (n, cells)
        Membership of each row in each cell (cells may overlap).
    y_index : ndarray of int, shape (n,)
        Class index of each row.
    n_classes : int
    sample_weight : ndarray of float, shape (n,), optional

    Returns
    -------
    ndarray of float64, shape (cells, n_classes)

    Examples
    --------
    >>> cell_counts(np.array([[1, 0], [1, 1], [0, 1]], dtype=bool), np.array([0, 1, 1]), 2).tolist()
    [[1.0, 1.0], [0.0, 2.0]]
    """
    masks = np.asarray(masks, dtype=bool)
    y_index = np.asarray(y_index, dtype=np.intp)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    out = np.zeros((masks.shape[1], n_classes))
    for cell in range(masks.shape[1]):  # one bincount per cell: no float copy of the masks
        rows = masks[:, cell]
        out[cell] = np.bincount(y_index[rows], weights=None if weight is None else weight[rows],
                                minlength=n_classes)
    return out


def smoothed_frequencies(counts: np.ndarray) -> np.ndarray:
    """Row-wise ``(counts + SMOOTHING) / (row total + K SMOOTHING)`` of a (cells, K) count array."""
    counts = np.asarray(counts, dtype=np.float64)
    return (counts + SMOOTHING) / (counts.sum(axis=1, keepdims=True) + SMOOTHING * counts.shape[1])


def assign_cells(masks: np.ndarray, sides: np.ndarray, predicted: np.ndarray,
                 confidence: np.ndarray) -> np.ndarray:
    """The cell of every row: the most confident matching cell on the predicted side, else rest.

    Parameters
    ----------
    masks : ndarray of bool, shape (n, cells)
        Membership of the rows in the cells (the rest cell excluded).
    sides : ndarray of bool, shape (cells,)
        Predicted side of each cell (True: the positive class).
    predicted : ndarray of bool, shape (n,)
        The rule's decision on each row.
    confidence : ndarray of float, shape (cells,)
        Smoothed frequency of the positive class in each cell.

    Returns
    -------
    ndarray of intp, shape (n,)
        Index of the chosen cell, ``cells`` (one past the last) for the rest cell. Among equally
        confident cells the first wins.

    Examples
    --------
    >>> masks = np.array([[1, 1], [0, 0]], dtype=bool)
    >>> assign_cells(masks, np.array([True, True]), np.array([True, False]), np.array([0.6, 0.8])).tolist()
    [1, 2]
    """
    masks = np.asarray(masks, dtype=bool)
    n, c = masks.shape
    if c == 0:
        return np.zeros(n, dtype=np.intp)
    sides = np.asarray(sides, dtype=bool)
    predicted = np.asarray(predicted, dtype=bool)
    agree = masks & (sides[None, :] == predicted[:, None])
    score = np.where(sides, confidence, -np.asarray(confidence, dtype=np.float64))
    best = np.argmax(np.where(agree, score[None, :], -np.inf), axis=1)
    return np.where(agree.any(axis=1), best, c).astype(np.intp)


def consistent(P: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Probabilities whose argmax is ``predicted``: nudge the predicted class where it is not.

    Parameters
    ----------
    P : ndarray of float, shape (n, K)
        Probability estimates, rows summing to 1 (not modified).
    predicted : ndarray of int, shape (n,)
        Column of the predicted class of each row.

    Returns
    -------
    ndarray of float64, shape (n, K)
        ``P`` where its first argmax already is the prediction; elsewhere the predicted class is
        raised to the row's largest probability plus :data:`NUDGE` and the row renormalized.
    """
    P = np.array(P, dtype=np.float64)
    predicted = np.asarray(predicted, dtype=np.intp)
    rows = np.flatnonzero(P.argmax(axis=1) != predicted)
    if rows.size:
        P[rows, predicted[rows]] = P[rows].max(axis=1) + NUDGE
        P[rows] /= P[rows].sum(axis=1, keepdims=True)
    return P


def log_odds(P: np.ndarray) -> np.ndarray:
    """``decision_function`` from probabilities: log-odds of ``classes_[1]`` for two classes
    (positive exactly where it is predicted), the log-probabilities for more."""
    P = np.asarray(P, dtype=np.float64)
    if P.shape[1] == 2:
        return np.log(P[:, 1]) - np.log(P[:, 0])
    return np.log(P)
