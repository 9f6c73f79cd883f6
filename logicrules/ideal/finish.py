"""The fitted ideal rule's training statistics, counted on its types instead of its rows.

``get_rules()`` (support, precision and coverage of every term) and the cells behind
``predict_proba`` (:mod:`logicrules.probability`) count the training rows on which the rule and
its terms hold. Both depend on a row only through its class and its type (truth assignment) over
the attributes the rule reads, so they are counted on one row per realized (type, class),
standing for its rows (:meth:`~logicrules.fca.counts.Counts.type_histogram`), instead of on every
training row: the same numbers, with buffers sized by the realized types (at most
``n_classes 2**k`` of them, and never more than twice the rows) instead of by the rows.

The type histograms themselves are counted in blocks of rows (:class:`ContextCounts`), whose
size :func:`counting_rows` takes from the fit's memory budget. :class:`FinishSteps` stores the
fitted rule's attributes (``rules_``, the cells of ``predict_proba``) from these rows, as methods
of :class:`~logicrules.ideal.method.IdealDNFClassifier`.

Examples
--------
>>> import numpy as np
>>> from logicrules.fca.context import FormalContext
>>> K = FormalContext(np.array([[1, 0, 1], [1, 0, 0], [1, 1, 1], [0, 0, 1]], dtype=bool))
>>> rows = type_rows(K, np.array([1, 1, 0, 1]), 2, [0, 1])   # the types of a0, a1
>>> rows.context.to_dense().astype(int).tolist(), rows.classes.tolist(), rows.counts.tolist()
([[1, 1, 0], [0, 0, 0], [1, 0, 0]], [0, 1, 1], [1, 1, 2])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import pandas as pd

from logicrules import presentation
from logicrules.conditions import with_conditions
from logicrules.fca import bitset
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import MAX_TYPE_FEATURES, ContextCounts
from logicrules.formula import Formula
from logicrules.memory import MemoryBudget
from logicrules.simplify import simplify_on_domain

__all__ = ["TypeRows", "counting_rows", "rule_columns", "type_rows", "type_rows_bytes"]

#: Bytes per row of one block of a type histogram: the type codes and their temporaries (int64),
#: the transposed words, the labels, and a sort's keys and indices when the bins are sparse.
HISTOGRAM_ROW_BYTES = 96
#: Bytes per (type, class) row of the rule's statistics, besides one byte per literal and term
#: (see :func:`type_rows_bytes`): the type code, counts, weights, class and cell indices.
_TYPE_ROW_BYTES = 64
#: Most rows per counting block.
_MAX_COUNTING_ROWS = 1 << 18


def counting_rows(budget: MemoryBudget) -> int:
    """Rows per block of the fit's type histograms and literal counts: as many as a quarter of
    what is left of ``budget`` holds, a multiple of 64 between 64 and 262144 (the blocks of
    :class:`~logicrules.fca.counts.ContextCounts`; larger ones are no faster)."""
    room = max(budget.limit - budget.held, 0) / 4
    return int(min(max(int(room // HISTOGRAM_ROW_BYTES) // 64 * 64, 64), _MAX_COUNTING_ROWS))


def rule_columns(formulas: list[Formula], names: list[str]) -> list[int] | None:
    """Positions in ``names`` of the attributes the formulas read (in ``names`` order); None
    when one is not in ``names`` (the caller's own check then reports it)."""
    index = {name: j for j, name in enumerate(names)}
    used = set().union(*(f.attributes for f in formulas)) if formulas else set()
    if not used <= set(index):
        return None
    return sorted(index[a] for a in used)


def type_rows_bytes(n_types: int, n_attributes: int, formula_size: int) -> float:
    """Bytes the rule's statistics take on ``n_types`` (type, class) rows: their packed
    attributes, and per row a few numbers plus about 24 bytes per literal of the rule (its
    literal and term truth values, the cells' memberships and scores)."""
    return n_types * (n_attributes / 8 + _TYPE_ROW_BYTES + 24 * max(formula_size, 1))


@dataclass(frozen=True, eq=False)
class TypeRows:
    """One row per realized (type, class) of some attributes, standing for its training rows.

    Attributes
    ----------
    context : FormalContext
        The rows over all attributes of the original context (those outside the type's
        columns are false: nothing that reads only the type's columns sees them).
    classes : ndarray of intp
        The class index of every row.
    counts : ndarray of int64
        Training rows each row stands for.
    weights : ndarray of float64 or None
        Their summed weights (None when unweighted).
    """

    context: FormalContext
    classes: np.ndarray
    counts: np.ndarray
    weights: np.ndarray | None


def type_rows(context: FormalContext, labels: np.ndarray, n_classes: int, columns: list[int],
              weights: np.ndarray | None = None, block_rows: int = _MAX_COUNTING_ROWS) -> TypeRows:
    """The realized (type, class) rows of ``columns`` (at most 62) of a packed context.

    Parameters
    ----------
    context : FormalContext
    labels : ndarray of int or bool, shape (n_objects,)
        Class index of every row.
    n_classes : int
    columns : list of int
        Attribute positions; every other attribute is false on the returned rows.
    weights : ndarray of float, shape (n_objects,), optional
        Row weights, summed per (type, class) into :attr:`TypeRows.weights`.
    block_rows : int, default 262144
        Rows counted at once (:class:`~logicrules.fca.counts.ContextCounts`).

    Returns
    -------
    TypeRows
    """
    if len(columns) > MAX_TYPE_FEATURES:
        raise ValueError(f"type rows hold at most {MAX_TYPE_FEATURES} attributes, got {len(columns)}")
    histogram = ContextCounts(context, labels, n_classes=n_classes, block_rows=block_rows).type_histogram(columns)
    classes, types = np.nonzero(histogram.counts)
    codes = histogram.keys[types]
    summed = None
    if weights is not None:  # the same cells, weighted (a cell of weight 0 only is not a key there)
        weighted = ContextCounts(context, labels, weights=weights, n_classes=n_classes,
                                 block_rows=block_rows).type_histogram(columns)
        at = np.minimum(np.searchsorted(weighted.keys, codes), max(weighted.keys.size - 1, 0))
        found = weighted.keys[at] == codes if weighted.keys.size else np.zeros(codes.size, dtype=bool)
        summed = np.where(found, weighted.counts[classes, at] if weighted.keys.size else 0.0, 0.0)
    bits = np.zeros((context.n_attributes, bitset.n_words(codes.size)), dtype=np.uint64)
    for j, column in enumerate(columns):
        bits[column] = bitset.pack(((codes >> j) & 1).astype(bool))
    rows = FormalContext.from_bits(bits, int(codes.size), list(context.attributes))
    return TypeRows(rows, classes.astype(np.intp), histogram.counts[classes, types].astype(np.int64), summed)


class FinishSteps:
    """The end of a fit of :class:`~logicrules.ideal.method.IdealDNFClassifier`: the fitted
    rule's attributes counted on its realized (type, class) rows (the estimator's
    ``memory_limit``, ``classes_`` and fit budget ``_budget`` are read from ``self``; the
    methods it overrides are those of :class:`~logicrules.base.RuleClassifier`)."""

    def _finish(self, names: list[str], Xb: FormalContext, y: np.ndarray, w: np.ndarray | None) -> None:
        """The fitted rule's attributes: ``_finish_fit`` for two classes; with more, every
        class's formula simplified on the binarizer's domain (raw forms in ``raw_formula_``)."""
        if not self._is_multiclass():
            self._finish_fit(self.formula_, names, Xb, y, w)
            return
        self.__dict__.pop("estimators_", None)  # of an earlier one-vs-rest fit
        self.attribute_names_ = list(names)
        conditions = self._conditions()
        self.raw_formula_ = {label: with_conditions(f, conditions) if conditions else f
                             for label, f in self.formula_.items()}
        self.formula_ = {label: simplify_on_domain(f, order=self.attribute_names_)
                         for label, f in self.raw_formula_.items()}
        rows = self._type_rows(list(self.formula_.values()), names, Xb, y, len(self.classes_))
        if rows is None:
            self.rules_ = self._class_rules(Xb, self.classes_[y])
        else:
            self.rules_ = self._class_rules(rows.context, self.classes_[rows.classes], rows.counts)
        self.__dict__.pop("_budget", None)  # the fit's memory budget ends with the fit

    def _finish_fit(self, formula: Formula, names: list[str], Xb, y: np.ndarray, weights: np.ndarray | None = None,
                    conditions: dict | None = None, row_counts: np.ndarray | None = None) -> None:
        """:meth:`RuleClassifier._finish_fit` counted on the realized (type, class) rows of the
        rule's attributes (:mod:`logicrules.ideal.finish`) instead of on every training row."""
        if isinstance(Xb, FormalContext) and row_counts is None:
            rows = self._type_rows([formula], names, Xb, y, 2, weights)
            if rows is not None:
                super()._finish_fit(formula, names, rows.context, rows.classes.astype(bool), rows.weights,
                                    conditions, rows.counts)
                return
        super()._finish_fit(formula, names, Xb, y, weights, conditions, row_counts)

    def _type_rows(self, formulas: list[Formula], names: list[str], context, y: np.ndarray, n_classes: int,
                   weights: np.ndarray | None = None) -> TypeRows | None:
        """The (type, class) rows of the formulas' attributes in a packed context, within the
        fit's memory budget; None for dense rows or more than 62 attributes (the statistics are
        then counted on every row, whose buffers are checked against the budget here)."""
        if not isinstance(context, FormalContext):
            return None
        budget = getattr(self, "_budget", None) or MemoryBudget(self.memory_limit)
        columns = rule_columns(formulas, names)
        size = max((f.size for f in formulas), default=1)
        if columns is None or len(columns) > MAX_TYPE_FEATURES:
            budget.require(type_rows_bytes(context.n_objects, 0, size),
                           f"the rule's statistics on every training row ({context.n_objects} rows)",
                           "use a smaller max_features")
            return None
        block = counting_rows(budget)
        n_types = min(n_classes * context.n_objects, n_classes << len(columns))
        budget.require(block * HISTOGRAM_ROW_BYTES + type_rows_bytes(n_types, context.n_attributes, size),
                       f"the rule's statistics on its types ({len(columns)} attributes)", "use a smaller max_features")
        return type_rows(context, y, n_classes, columns, weights, block)

    def _class_rules(self, Xb, y: np.ndarray, row_counts: np.ndarray | None = None) -> pd.DataFrame:
        """:meth:`get_rules` of a native multiclass model on binarized rows with labels ``y``
        (each standing for ``row_counts`` rows)."""
        return self._per_class(lambda label: presentation.rules_frame(self.formula_[label], Xb,
                                                                      self.attribute_names_, y == label,
                                                                      row_counts=row_counts))
