"""Steps 3-5 of the ideal classifier method: the path of candidate selections over ``l``.

For ``l = 1 .. max_features`` a candidate is a set of booleanized attributes (the top ``l`` of a
univariate ranking, :func:`_filter_path`, or greedy forward selection by the validation accuracy
of the ideal DNF itself, :func:`_wrapper_path`); each gets the type table of the training part
and its validation accuracy. Everything is read through counts of one packed context of both
parts (:class:`_TrainingTables`), except the wrapper's scores, which need the rows.

A *rule* says how ties and unseen types are predicted: ``(tie, unseen)`` for two classes, or
the class priority (:func:`~logicrules.ideal.multiclass.class_priority`) for more.
"""

from __future__ import annotations

import numpy as np

from logicrules.conditions import with_conditions
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ContextCounts, TypeHistogram
from logicrules.formula import Formula
from logicrules.ideal.algorithm import TypeTable, _type_table, table_from_histogram
from logicrules.ideal.multiclass import ClassTypeTable, majority_class
from logicrules.ideal.scoring import SCORERS, BooleanCounts, ClassCounts, rank_features
from logicrules.simplify import simplify_on_domain

__all__: list[str] = []

#: Most candidate cells (candidates x rows or x type bins) scored at once by the wrapper.
_WRAPPER_CELLS = 1 << 22
#: Seed of scikit-learn's mutual information estimator in the authors' code.
PAPER_MI_SEED = 42


def _n_classes(rule: tuple[str, bool] | np.ndarray) -> int:
    """Classes of a tie rule: two for ``(tie, unseen)``, else the length of the class priority."""
    return 2 if isinstance(rule, tuple) else len(rule)


def _table(histogram: TypeHistogram, features: tuple, rule: tuple[str, bool] | np.ndarray
           ) -> TypeTable | ClassTypeTable:
    """The type table of a histogram under a tie rule (two classes, or the class priority)."""
    if isinstance(rule, tuple):
        return table_from_histogram(histogram, features, *rule)
    return ClassTypeTable.from_histogram(histogram, features, rule)


def _dense_table(B: np.ndarray, y: np.ndarray, features: tuple, rule: tuple[str, bool] | np.ndarray,
                 w: np.ndarray | None = None) -> TypeTable | ClassTypeTable:
    """:func:`_table` of the types of all columns of a dense bool matrix."""
    if isinstance(rule, tuple):
        return _type_table(np.ascontiguousarray(B), y, features, *rule, w)
    counts = ContextCounts(FormalContext(np.ascontiguousarray(B)), y, weights=w, n_classes=len(rule))
    return _table(counts.type_histogram(list(range(B.shape[1]))), features, rule)


def _decide(hist: np.ndarray, rule: tuple[str, bool] | np.ndarray) -> np.ndarray:
    """Predicted class of every column of per-class counts (K, cells) (bool for two classes)."""
    if not isinstance(rule, tuple):
        return majority_class(hist, rule)
    tie, unseen = rule
    neg, pos = hist
    predicted = 2 * pos >= neg + pos if tie == "positive" else 2 * pos > neg + pos
    return np.where((neg + pos) > 0, predicted, bool(unseen))


def _table_formulas(table: TypeTable | ClassTypeTable) -> list[Formula]:
    """The ideal DNF of a table: one formula, or one per class."""
    return [table.to_formula()] if isinstance(table, TypeTable) else list(table.to_formulas().values())


def _printed_size(formulas, conditions: dict, names: list[str]) -> int:
    """Literals of the longest of the formulas (one, or one per class) as printed: with their
    conditions, simplified on the domain."""
    return max(simplify_on_domain(with_conditions(f, conditions), order=names).size for f in formulas)


def _accuracies(table: TypeTable, Bv: np.ndarray, yv: np.ndarray,
                wv: np.ndarray | None) -> tuple[float, float]:
    validation = float(np.average(table.predict(Bv) == yv, weights=wv)) if len(yv) else float("nan")
    training = 1.0 - table.training_errors / table.n_rows
    return validation, training


def _histogram_accuracy(table: TypeTable | ClassTypeTable, histogram: TypeHistogram) -> float:
    """Accuracy (weighted, when the histogram is) of the table's classifier on the rows that
    ``histogram`` (same columns) counts."""
    total = histogram.counts.sum()
    if total == 0:
        return float("nan")
    predicted = table.predict(histogram.patterns)
    return float(sum(row[predicted == k].sum() for k, row in enumerate(histogram.counts)) / total)


class _TrainingTables:
    """Type tables of column selections on the training part, computed once each.

    ``counts`` has 2K classes, ``y + K valid``: classes 0 .. K-1 are the training part, K .. 2K-1
    the validation part. :meth:`histograms` gives both parts' histograms from one counting pass.
    """

    def __init__(self, counts: ContextCounts, rule: tuple[str, bool] | np.ndarray) -> None:
        self.counts, self.rule = counts, rule
        self._tables: dict[tuple[int, ...], TypeTable | ClassTypeTable] = {}
        self._validation: dict[tuple[int, ...], TypeHistogram] = {}

    def histograms(self, cols: tuple[int, ...]) -> tuple[TypeHistogram, TypeHistogram]:
        """Training and validation type histograms of ``cols`` (each its realized types only)."""
        both = self.counts.type_histogram(list(cols))
        parts = []
        k = _n_classes(self.rule)
        for classes in (slice(0, k), slice(k, 2 * k)):
            part = both.counts[classes]
            seen = part.any(axis=0)
            parts.append(TypeHistogram(both.columns, both.keys[seen], part[:, seen]))
        return parts[0], parts[1]

    def __getitem__(self, cols: tuple[int, ...]) -> TypeTable | ClassTypeTable:
        if cols not in self._tables:
            train, self._validation[cols] = self.histograms(cols)
            self._tables[cols] = _table(train, cols, self.rule)
        return self._tables[cols]

    def validation(self, cols: tuple[int, ...]) -> TypeHistogram:
        """The validation histogram of ``cols`` (counted with the table)."""
        self[cols]
        return self._validation[cols]


def _filter_path(counts: ContextCounts, tables: _TrainingTables, context: FormalContext, valid: np.ndarray,
                 n_max: int, scorers: tuple[str, ...], sklearn_mutual_info: bool = False,
                 progress=None) -> list[tuple]:
    """Steps 3-5 with univariate rankings: (l, scorer, columns, val acc, train acc, n types).

    Everything is read through counts of the one context of both parts (classes ``y + 2
    valid``): literal counts of the training part for the rankings, type histograms for the
    tables and their validation accuracy. ``sklearn_mutual_info``: rank by scikit-learn's
    ``mutual_info_classif`` with ``discrete_features="auto"`` and the authors' seed on the
    dense training part, as their code does.
    """
    rule = tables.rule
    n_classes = _n_classes(rule)
    literal, totals = counts.literal_counts()[:n_classes], counts.class_totals()[:n_classes]
    if n_classes == 2:
        booleans = BooleanCounts(n=totals.sum().item(), n_pos=totals[1].item(), true=literal.sum(axis=0),
                                 true_pos=literal[1])
    else:  # classes in the priority order: the scores' sums run alike under any labelling
        booleans = ClassCounts(n=totals.sum().item(), totals=totals[rule], true=literal[rule].sum(axis=0),
                               true_per_class=literal[rule])
    orders = {}
    for name in scorers:
        if name == "mutual_info" and sklearn_mutual_info:
            from sklearn.feature_selection import mutual_info_classif

            train = context.to_dense()[~valid].astype(np.float64)
            scores = mutual_info_classif(train, counts.labels[~valid] == 1, discrete_features="auto",
                                         random_state=PAPER_MI_SEED)
        else:
            scores = SCORERS[name](booleans)
        orders[name] = rank_features(scores)
    if hasattr(counts, "prefetch_type_histograms"):  # dask: every candidate's histograms in one pass
        sets = {tuple(int(c) for c in orders[name][:l]) for l in range(1, n_max + 1) for name in scorers}
        counts.prefetch_type_histograms(sorted(sets))
    rows = []
    for l in range(1, n_max + 1):
        for name in scorers:
            cols = tuple(int(c) for c in orders[name][:l])
            table = tables[cols]
            accuracy = _histogram_accuracy(table, tables.validation(cols))
            rows.append((l, name, cols, accuracy, 1.0 - table.training_errors / table.n_rows, table.n_types))
        if progress is not None:
            progress.update()
    return rows


def _wrapper_path(Bt, yt, Bv, yv, n_max: int, rule: tuple[str, bool], wt=None, wv=None, progress=None) -> list[tuple]:
    """Greedy forward selection maximizing the validation accuracy of the ideal DNF.

    The rows of both parts carry a compressed id of their current type. Adding candidate ``j``
    splits type ``t`` into ``2t`` and ``2t + 1``; one ``bincount`` over (candidate, new type,
    label) counts every candidate's types at once, and a gather scores all of them on the
    validation rows.
    """
    n_t, m = Bt.shape
    ids = np.zeros(n_t + len(yv), dtype=np.int64)  # current type id of train then validation rows
    B_all = np.vstack([Bt, Bv])
    chosen: list[int] = []
    rows = []
    for l in range(1, n_max + 1):
        n_ids = int(ids.max()) + 1 if len(ids) else 1
        remaining = np.setdiff1d(np.arange(m, dtype=np.intp), chosen)
        val_acc, train_acc = _score_candidates(ids, B_all, n_t, yt, yv, remaining, n_ids, rule, wt, wv)
        order = np.lexsort((remaining, -train_acc, -val_acc))
        best = int(remaining[order[0]])
        chosen.append(best)
        ids = np.unique(ids * 2 + B_all[:, best], return_inverse=True)[1].reshape(-1)
        table = _dense_table(Bt[:, chosen], yt, tuple(chosen), rule, wt)
        v, t = _accuracies(table, np.ascontiguousarray(Bv[:, chosen]), yv, wv)
        rows.append((l, "wrapper", tuple(chosen), v, t, table.n_types))
        if progress is not None:
            progress.update()
    return rows


def _score_candidates(ids, B_all, n_t, yt, yv, candidates, n_ids, rule, wt=None, wv=None):
    """Validation and training accuracy of the ideal DNF after adding each candidate.

    ``rule`` is ``(tie, unseen)``: the prediction of tied types and of types without rows (or
    the class priority of more than two classes, :func:`_decide`); ``wt``, ``wv``: row weights
    of the two parts (None: 1).
    """
    n_classes = _n_classes(rule)
    n_all = B_all.shape[0]
    n_bins = 2 * n_ids
    per_chunk = max(1, _WRAPPER_CELLS // max(n_all, n_classes * n_bins))
    val_acc = np.empty(len(candidates))
    train_acc = np.empty(len(candidates))
    ids_t, ids_v = ids[:n_t], ids[n_t:]
    for start in range(0, len(candidates), per_chunk):
        cand = candidates[start:start + per_chunk]
        c = len(cand)
        offset = (np.arange(c, dtype=np.int64) * n_bins)[None, :]
        new_t = offset + 2 * ids_t[:, None] + B_all[:n_t][:, cand]
        weights = None if wt is None else np.broadcast_to(wt[:, None], new_t.shape).ravel()
        hist = np.bincount((n_classes * new_t + yt[:, None]).ravel(), weights=weights,
                           minlength=n_classes * c * n_bins).reshape(-1, n_classes).T
        predicted = _decide(hist, rule)
        errors = sum(np.where(predicted == k, 0, row) for k, row in enumerate(hist)).reshape(c, n_bins).sum(axis=1)
        train_acc[start:start + c] = 1.0 - errors / max(n_t if wt is None else float(wt.sum()), 1e-300)
        if len(yv):
            new_v = offset + 2 * ids_v[:, None] + B_all[n_t:][:, cand]
            val_acc[start:start + c] = np.average(predicted[new_v] == yv[:, None], axis=0, weights=wv)
        else:
            val_acc[start:start + c] = np.nan
    return val_acc, train_acc
