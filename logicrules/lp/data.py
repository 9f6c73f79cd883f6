"""The LP learner's view of the training data, read through the counting interface.

The group-testing LP of an OR-clause (:mod:`logicrules.lp.model`) needs the rows of one class
as constraints and the other class only through per-literal (weighted) counts, the column costs.
Both come from a :class:`~logicrules.fca.counts.Counts` (packed bits in memory, chunks, or
partitions): :meth:`~logicrules.fca.counts.Counts.class_rows` gives the distinct rows of a class
with their summed weights, :meth:`~logicrules.fca.counts.Counts.literal_counts` the counts. No
dense n x m copy of the data is made: the constraint rows are the distinct rows of one class,
one byte per cell.

Rows come out in **bit order**: sorted lexicographically by their cells (row ``r`` before row
``s`` when at the first cell where they differ ``r`` has 0), which is the order the estimator
has always given the LP (its identical rows merged by sorting their packed bits), so the solvers
see the same program whatever the storage.

Examples
--------
>>> from logicrules.fca.context import FormalContext
>>> from logicrules.fca.counts import ContextCounts
>>> counts = ContextCounts(FormalContext([[1, 0], [0, 1], [1, 0]]), [1, 1, 0])
>>> rows, weights = class_rows_in_bit_order(counts, 1)
>>> rows.astype(int).tolist(), weights.tolist()
([[0, 1], [1, 0]], [1.0, 1.0])
"""

from __future__ import annotations

import numpy as np

from logicrules.fca.counts import Counts, RowMultiset
from logicrules.lp.model import GroupTestingProblem, _problem

__all__ = ["class_rows_in_bit_order", "clause_problem", "merged_data", "distinct_rows_bytes"]

#: Byte with its bits in reverse order (little-endian packed bytes -> big-endian ones).
_REVERSED = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint8)


def _bit_order(rows: RowMultiset) -> np.ndarray:
    """Permutation sorting the distinct rows of a multiset into bit order."""
    if rows.n_rows <= 1:
        return np.arange(rows.n_rows)
    keys = np.ascontiguousarray(_REVERSED[rows.packed])  # big-endian bytes: memcmp order = bit order
    return np.argsort(keys.view(np.dtype((np.void, keys.shape[1]))).ravel(), kind="stable")


def distinct_rows_bytes(n_rows: float, n_attributes: int) -> float:
    """Bytes the LP needs for up to ``n_rows`` distinct rows of ``n_attributes`` literals: the rows
    (one byte per cell) and their packed form, the copy of the reduced LP's working columns (at most
    64 at first), and some 25 float or index vectors over the rows while they are merged and the
    LP is screened and solved (duals, slacks, coverage, sort orders). The solver's own model is
    estimated separately (:func:`~logicrules.lp.solvers.model_bytes`)."""
    return float(n_rows) * (n_attributes * 1.125 + min(n_attributes, 64) + 200)


def class_rows_in_bit_order(counts: Counts, cls: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of class ``cls`` as bool (u, m) in bit order, with their float weights."""
    rows = counts.class_rows(cls)
    order = _bit_order(rows)
    dense = np.unpackbits(rows.packed[order], axis=1, count=rows.n_attributes, bitorder="little").view(bool)
    return dense, rows.weights[order].astype(np.float64)


def merged_data(counts: Counts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All distinct (row, label) pairs of a two-class count: rows, labels and summed weights.

    The negative class (0) comes first, then the positive class, each in bit order.
    """
    neg, neg_weight = class_rows_in_bit_order(counts, 0)
    pos, pos_weight = class_rows_in_bit_order(counts, 1)
    y = np.concatenate([np.zeros(neg.shape[0], dtype=bool), np.ones(pos.shape[0], dtype=bool)])
    return np.concatenate([neg, pos]), y, np.concatenate([neg_weight, pos_weight])


def clause_problem(counts: Counts, lam: float, weights=None, *, complement: bool = False) -> GroupTestingProblem:
    """The LP (19) of an OR-clause over the literals of a two-class count.

    Parameters
    ----------
    counts : Counts
        Two classes; class 1 is the one the clause should fire on.
    lam : float
        Cost of one literal, in units of one (weighted) error.
    weights : None or pair of float
        ``(c_pos, c_neg)`` error costs, as in :func:`~logicrules.lp.model.build_problem`.
    complement : bool, default False
        The De Morgan problem of a conjunction: the OR-clause over the complemented literals
        that should fire on class 0 (its constraint rows are the complemented rows of class 0,
        its column costs the complemented counts of class 1). ``weights`` then price that
        problem's classes: ``(cost of class 0, cost of class 1)``.

    Returns
    -------
    GroupTestingProblem
        Constraint rows: the distinct rows of the firing class in bit order, with their
        summed weights as row weights.

    Examples
    --------
    >>> from logicrules.fca.context import FormalContext
    >>> from logicrules.fca.counts import ContextCounts
    >>> counts = ContextCounts(FormalContext([[1, 0], [1, 1], [0, 1]]), [1, 1, 0])
    >>> P = clause_problem(counts, lam=0.5)
    >>> P.A_pos.astype(int).tolist(), P.costs.tolist(), P.row_weights.tolist()
    ([[1, 0], [1, 1]], [0.5, 1.5], [1.0, 1.0])
    """
    if counts.n_classes != 2:
        raise ValueError(f"the LP of a clause needs a two-class count, got {counts.n_classes} classes")
    firing, other = (0, 1) if complement else (1, 0)
    rows, row_weights = class_rows_in_bit_order(counts, firing)
    neg_counts = counts.literal_counts()[other].astype(np.float64)
    if complement:
        np.logical_not(rows, out=rows)
        neg_counts = float(counts.class_totals()[other]) - neg_counts
    return _problem(rows, neg_counts, lam, weights, row_weights)
