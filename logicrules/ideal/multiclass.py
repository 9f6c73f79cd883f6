"""The empirical ideal classifier of more than two classes: each type predicts its majority class.

Over selected boolean features, a row's *type* is its truth assignment. With K classes the
natural form of the empirical ideal classifier counts the (weighted) training rows of every
class in every realized type and predicts the class with the most of them: no classifier over
the same features has fewer training errors. Ties among the largest counts, and types never seen
in training, go to the class ranked first by :func:`class_priority` among the tied ones (the
training majority): the rule depends on the labels only through which rows share one, so
renaming or permuting the labels permutes the predictions.

The classifier is one DNF per class, the disjunction of the types that predict it (for the
class that unseen types go to, the negation of the disjunction of all other predicted types):
the classes' formulas partition the domain, exactly one holds on every row.

Examples
--------
>>> import numpy as np
>>> from logicrules.fca.context import FormalContext
>>> from logicrules.fca.counts import ContextCounts
>>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1]], dtype=bool)
>>> labels = np.array([0, 1, 2, 2, 1])
>>> priority = class_priority(labels, 3)
>>> priority.tolist()
[1, 2, 0]
>>> table = ClassTypeTable.from_histogram(ContextCounts(FormalContext(X), labels, n_classes=3)
...                                       .type_histogram([0, 1]), ("a", "b"), priority)
>>> table.predicted.tolist()  # types by code (a + 2 b); "a AND b" ties 1 and 2: 1 ranks first
[0, 2, 1, 1]
>>> {k: str(f) for k, f in table.to_formulas().items()}
{0: 'NOT a AND NOT b', 1: 'NOT ((NOT a AND NOT b) OR (a AND NOT b))', 2: 'a AND NOT b'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from logicrules import probability
from logicrules.formula import Formula
from logicrules.ideal.algorithm import TypeTable, _TypeKeys

__all__ = ["ClassTypeTable", "class_priority", "majority_class"]


def class_priority(labels: np.ndarray, n_classes: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Class indices from the training majority down: the order in which ties are broken.

    Classes are ranked by their (weighted) number of training rows, largest first; classes with
    equal counts by the position of their first training row. Both depend only on which rows
    share a label, so the ranking is label-invariant; classes without rows come last.

    Parameters
    ----------
    labels : ndarray of int, shape (n,)
        Class index of every training row, in ``0 .. n_classes - 1``.
    n_classes : int
    weights : ndarray of float, shape (n,), optional
        Row weights (rows of weight 0 must have been removed: they would count as first rows).

    Returns
    -------
    ndarray of intp, shape (n_classes,)

    Examples
    --------
    >>> class_priority(np.array([2, 0, 0, 2, 1]), 3).tolist()
    [2, 0, 1]
    """
    labels = np.asarray(labels, dtype=np.intp)
    totals = np.bincount(labels, weights=weights, minlength=n_classes)
    first = np.full(n_classes, len(labels), dtype=np.intp)
    present, position = np.unique(labels, return_index=True)
    first[present] = position
    return np.lexsort((first, -totals)).astype(np.intp)


def majority_class(counts: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """The class with the largest count in every column, ties to the class earliest in ``priority``.

    A column without rows (all counts 0) is a tie among all classes: it gets ``priority[0]``.

    Parameters
    ----------
    counts : ndarray, shape (K, u)
        Rows (or weights) of each class in each cell.
    priority : ndarray of int, shape (K,)
        A permutation of the classes (:func:`class_priority`).

    Returns
    -------
    ndarray of intp, shape (u,)

    Examples
    --------
    >>> majority_class(np.array([[2, 1, 0], [2, 0, 0], [0, 3, 0]]), np.array([1, 0, 2])).tolist()
    [1, 2, 1]
    """
    priority = np.asarray(priority, dtype=np.intp)
    return priority[np.argmax(np.asarray(counts)[priority], axis=0)]


@dataclass(frozen=True, eq=False)
class ClassTypeTable(_TypeKeys):
    """The realized types of some boolean features with their per-class counts.

    The multiclass counterpart of :class:`~logicrules.ideal.algorithm.TypeTable` (with which it
    shares the lookup of types by key): one column per type realized in training, sorted by type
    code (bit ``j`` is ``features[j]``); a type predicts :func:`majority_class` of its counts, an
    unseen type ``priority[0]``.

    Attributes
    ----------
    features : tuple
        The attributes, in bit order.
    keys : ndarray of int64, shape (u,)
        Sorted type codes.
    counts : ndarray, shape (K, u)
        Training rows (int64) or weights (float64) of each class in each type.
    priority : ndarray of int, shape (K,)
        The tie-break order of the classes (:func:`class_priority`).
    """

    features: tuple[Any, ...]
    keys: np.ndarray
    counts: np.ndarray
    priority: np.ndarray

    @classmethod
    def from_histogram(cls, histogram: Any, features: tuple[Any, ...], priority: np.ndarray) -> ClassTypeTable:
        """The table of a type histogram (:meth:`~logicrules.fca.counts.Counts.type_histogram`)
        whose columns are ``features``."""
        return cls(tuple(features), np.asarray(histogram.keys, dtype=np.int64), np.asarray(histogram.counts),
                   np.asarray(priority, dtype=np.intp))

    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return len(self.priority)

    @property
    def patterns(self) -> np.ndarray:
        """Truth assignment of each type, bool (u, k)."""
        bits = np.arange(self.n_features, dtype=np.int64)
        return ((self.keys[:, None] >> bits) & 1).astype(bool)

    @property
    def predicted(self) -> np.ndarray:
        """The class index each realized type predicts."""
        return majority_class(self.counts, self.priority)

    @property
    def unseen(self) -> int:
        """The class index predicted for a type never seen in training."""
        return int(self.priority[0])

    @property
    def training_errors(self) -> int | float:
        """Training rows (weight) of another class than their type's prediction: the least
        possible over these features."""
        return self.n_rows - self.counts[self.predicted, np.arange(self.n_types)].sum().item()

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The predicted class index of rows restricted to :attr:`features`."""
        return np.append(self.predicted, self.unseen)[self.lookup(X)]

    def frequencies(self) -> np.ndarray:
        """Smoothed class frequencies ``(c_k + 1) / (c + K)`` of each type, then of all training
        rows (the row of unseen types): shape (u + 1, K)."""
        counts = np.vstack([self.counts.T, self.counts.sum(axis=1)])
        return probability.smoothed_frequencies(counts)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Smoothed class frequencies of each row's type, made to agree with :meth:`predict`
        (an exact tie or an unseen type: the predicted class is moved just past the others)."""
        index = self.lookup(X)
        return probability.consistent(self.frequencies()[index], np.append(self.predicted, self.unseen)[index])

    def class_table(self, k: int) -> TypeTable:
        """The two-class table of "the type predicts class ``k``" (every type counted once): its
        ``to_formula``, ``positive_codes`` and :func:`~logicrules.ideal.method.compact_dnf` give
        class ``k``'s DNF."""
        ones = np.ones(self.n_types, dtype=np.int64)
        return TypeTable(features=self.features, patterns=self.patterns, counts=ones,
                         positives=(self.predicted == k).astype(np.int64), tie="negative", keys=self.keys,
                         unseen=self.unseen == k)

    def to_formulas(self) -> dict[int, Formula]:
        """Class index -> the disjunction of the types predicting it (for the class of unseen
        types, the negation of the disjunction of the other types); they partition the domain."""
        return {k: self.class_table(k).to_formula() for k in range(self.n_classes)}

    def to_frame(self, classes: Any = None) -> pd.DataFrame:
        """One row per realized type: ``type``, ``count``, the count of each class (columns
        named after ``classes``, default the class indices) and the ``predicted`` class."""
        labels = list(range(self.n_classes)) if classes is None else list(classes)
        frame = pd.DataFrame({"type": [str(f) for f in self._type_formulas(self.patterns)],
                              "count": self.counts.sum(axis=0)})
        for label, row in zip(labels, self.counts):
            frame[str(label)] = row
        frame["predicted"] = [labels[k] for k in self.predicted]
        return frame
