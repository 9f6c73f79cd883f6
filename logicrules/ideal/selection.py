"""Steps 2-6 of the ideal method: the validation split and the choice of the attributes.

The training data is split into a training part and a validation part (``split``,
``protocol``); for ``l = 1 .. max_features`` the attributes are ranked on the training part
(``selection``, ``scorers``), the empirical ideal DNF of each candidate is scored on the
validation part (pruned to ``max_rule_size`` when it prints longer), and
:func:`select_n_features` takes the smallest ``l`` within ``tolerance`` of the best.
:class:`SelectionSteps` holds these steps as methods of
:class:`~logicrules.ideal.method.IdealDNFClassifier`, which reads the same counts in memory and
from dask partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ContextCounts, Counts, TypeHistogram
from logicrules.ideal.algorithm import TypeTable
from logicrules.ideal.bounded import MAX_BOUNDED_FEATURES, validated_bounded_dnf
from logicrules.ideal.finish import HISTOGRAM_ROW_BYTES, counting_rows
from logicrules.ideal.multiclass import class_priority
from logicrules.ideal.paths import (_filter_path, _n_classes, _printed_size, _table_formulas, _TrainingTables,
                                    _wrapper_path)
from logicrules.ideal.scoring import SCORERS
from logicrules.ideal.split import validation_mask, value_validation_mask
from logicrules.ideal.wrapper_counts import wrapper_path_from_counts
from logicrules.progress import progress_bar

__all__ = ["select_n_features"]


def select_n_features(accuracies: Sequence[float], tolerance: float) -> int:
    """Step 6's rule: the smallest ``l`` whose accuracy is within ``tolerance`` of the best.

    Parameters
    ----------
    accuracies : sequence of float
        Validation accuracy for ``l = 1, 2, ...`` (entry ``i`` is ``l = i + 1``).
    tolerance : float
        Allowed loss, as a fraction (0.01 = one percentage point). Comparisons allow 1e-12 of
        rounding, so an accuracy exactly ``tolerance`` below the best still qualifies.

    Returns
    -------
    int
        The chosen number of features ``l`` (1-based).

    Examples
    --------
    >>> select_n_features([0.70, 0.795, 0.80, 0.78], tolerance=0.01)
    2
    """
    acc = np.asarray(accuracies, dtype=np.float64)
    if acc.ndim != 1 or acc.size == 0:
        raise ValueError("accuracies must be a non-empty 1-D sequence")
    if np.isnan(acc).any():
        raise ValueError("accuracies contain NaN")
    return int(np.flatnonzero(acc >= acc.max() - tolerance - 1e-12)[0]) + 1


def _part(w: np.ndarray | None, index: np.ndarray) -> np.ndarray | None:
    return None if w is None else w[index]


class SelectionSteps:
    """Steps 2-6 as methods of :class:`~logicrules.ideal.method.IdealDNFClassifier`: its
    parameters (``selection``, ``scorers``, ``validation_size``, ...) and fit state (the memory
    budget ``_budget``, ``binarizer_``, ``classes_``) are read from ``self``."""

    def _scorers(self) -> tuple[str, ...]:
        """The scorer names (one name or a sequence), each checked against ``SCORERS``."""
        scorers = (self.scorers,) if isinstance(self.scorers, str) else tuple(self.scorers)
        if self.selection == "filter":
            if not scorers:
                raise ValueError("scorers must name at least one scorer")
            unknown = [s for s in scorers if s not in SCORERS]
            if unknown:
                raise ValueError(f"unknown scorer(s) {unknown} in scorers; use {', '.join(SCORERS)}")
        return scorers

    def _check_protocol(self, sample_weight) -> None:
        if self.protocol != "paper":
            return
        if self.split != "rows":
            raise ValueError(f"split={self.split!r} has no effect with protocol='paper' (the validation "
                             "rows are the last ones, as in the authors' code); leave split='rows'")
        if self.tie != "majority":
            raise ValueError(f"tie={self.tie!r} has no effect with protocol='paper' (ties and unseen "
                             "types go to the negative class, as in the authors' code); leave tie at "
                             "its default")
        if sample_weight is not None:
            raise ValueError("protocol='paper' does not accept sample_weight (scikit-learn's mutual "
                             "information estimator has no weights); use protocol='default'")

    def _tie_rule(self, y: np.ndarray, w: np.ndarray | None = None) -> tuple[str, bool] | np.ndarray:
        """``(tie, unseen)`` of the type tables: how ties and unseen types are predicted; with
        more than two classes the class priority (:func:`~logicrules.ideal.multiclass.class_priority`)."""
        if self._is_multiclass():
            if self.protocol == "paper":
                raise ValueError("protocol='paper' reproduces the authors' two-class code; with "
                                 f"{len(self.classes_)} classes use multiclass='ovr' (one rule per class)")
            if self.tie != "majority":
                raise ValueError(f"tie={self.tie!r} names the positive class of a two-class rule; with "
                                 f"{len(self.classes_)} classes ties and unseen types go to the training "
                                 "majority among the tied classes (leave tie='majority'), or use "
                                 "multiclass='ovr' to apply tie to each class's rule")
            return class_priority(y, len(self.classes_), w)
        if self.protocol == "paper":
            return "negative", False
        if self.tie != "majority":
            return self.tie, False
        w = np.ones(len(y)) if w is None else w
        n_pos, n = float(w[y].sum()), float(w.sum())
        positive = 2 * n_pos > n or (2 * n_pos == n and bool(y[0]))
        return ("positive" if positive else "negative"), positive

    def _split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Training and validation rows, stratified by class on a label-invariant coding (the
        class of the first row is 0), so that swapping the labels keeps the split; with
        ``protocol="paper"`` the validation rows are the last ``ceil(validation_size n)``.

        The rows of scikit-learn's ``train_test_split`` with the same ``random_state``
        (:func:`~logicrules.ideal.split.validation_mask`), drawn without its per-row Python work."""
        if self.protocol == "paper":
            index = np.arange(len(y))
            n_valid = int(np.ceil(self.validation_size * len(y)))
            return index[:len(y) - n_valid], index[len(y) - n_valid:]
        valid = validation_mask(y, self.validation_size, self.random_state)
        return np.flatnonzero(~valid), np.flatnonzero(valid)

    def _validation_mask(self, y: np.ndarray, rows: Any) -> np.ndarray:
        """:meth:`_split` as a mask of the validation rows; with ``split="values"`` decided by the
        values of ``rows`` (the table or context being fitted,
        :func:`~logicrules.ideal.split.value_validation_mask`)."""
        self._budget.require((17 + (24 if self.split == "values" else 0)) * len(y),
                             f"the validation split of {len(y)} rows", "use fewer rows")
        valid = value_validation_mask(rows, self.validation_size, self.random_state) \
            if self.split == "values" else np.zeros(len(y), dtype=bool)
        if not valid.any():  # split="rows", or every row has the same values
            valid[self._split(y)[1]] = True
        self._budget.hold(valid.nbytes)  # until the fit ends
        return valid

    def _check_attributes(self, names: list[str]) -> None:
        if not names:
            dropped = getattr(self.binarizer_, "dropped_", {}) if self.binarizer_ is not None else {}
            detail = f" (dropped columns: {dropped})" if dropped else ""
            raise ValueError(f"the binarizer produced no attributes to select from{detail}; "
                             "check for constant or all-missing columns")

    def _search(self, context: FormalContext, y: np.ndarray, valid: np.ndarray, names: list[str],
                scorers: tuple[str, ...], rule: tuple[str, bool] | np.ndarray,
                w: np.ndarray | None = None) -> list[str]:
        """Steps 3-6: the path over l, and the chosen feature names (stage binarization).

        ``context`` holds every row; the training and validation parts are told apart by the
        class index ``y + K valid`` (K classes), so one counting pass gives both parts' counts."""
        n_max = min(int(self.max_features), context.n_attributes)
        n_classes = _n_classes(rule)
        # dask partitions come as their counts, with the classes y + 2 valid already
        counts = context if isinstance(context, Counts) else \
            ContextCounts(context, y.astype(np.intp) + n_classes * valid, weights=w, n_classes=2 * n_classes,
                          block_rows=self._counting_rows())
        tables = _TrainingTables(counts, rule)
        with progress_bar(n_max, "features l", self.verbose) as bar:
            if self.selection == "wrapper" and isinstance(context, Counts):  # dask: a counting pass per step
                rows = wrapper_path_from_counts(counts, tables, n_max, rule, bar)
            elif self.selection == "wrapper":  # scores every candidate per row: works on dense rows
                self._budget.require(context.n_objects * context.n_attributes,
                                     "the wrapper selection's dense copy of the binarized data",
                                     "use selection='filter'")
                dense = context.to_dense()
                rows = _wrapper_path(dense[~valid], y[~valid], dense[valid], y[valid], n_max, rule,
                                     _part(w, ~valid), _part(w, valid), bar)
                del dense
            else:
                rows = _filter_path(counts, tables, context, valid, n_max, scorers,
                                    sklearn_mutual_info=self.protocol == "paper", progress=bar)
        candidates = pd.DataFrame(
            [{"n_features": l, "scorer": s, "features": tuple(names[j] for j in cols),
              "validation_accuracy": va, "training_accuracy": ta, "n_types": nt}
             for l, s, cols, va, ta, nt in rows])
        admissible = candidates
        if self._rule_bound() is not None:  # each candidate's printed rule, pruned when too long
            bounded = {}
            for _, _, cols, *_ in rows:
                if cols not in bounded:
                    bounded[cols] = self._bounded_candidate(tables, cols, names)
            bounded = pd.DataFrame([bounded[cols] for _, _, cols, *_ in rows])
            candidates.update(bounded[["validation_accuracy", "training_accuracy"]])
            candidates[["rule_size", "pruned", "pruned_literals"]] = bounded[["rule_size", "pruned",
                                                                              "pruned_literals"]]
            admissible = candidates[candidates["rule_size"] <= self._rule_bound()]
        best = admissible.loc[admissible.groupby("n_features", sort=True)["validation_accuracy"].idxmax()]
        self.candidates_ = candidates
        self.path_ = best.reset_index(drop=True)
        return self._select(self.path_)

    def _counting_rows(self) -> int:
        """Rows per block of the fit's counting passes, within ``memory_limit`` (checked)."""
        rows = counting_rows(self._budget)
        self._budget.require(rows * HISTOGRAM_ROW_BYTES, f"counting blocks of {rows} rows", "use fewer rows")
        return rows

    def _rule_bound(self) -> int | None:
        """``max_rule_size``, except under the paper's protocol (which bounds nothing)."""
        return None if self.protocol == "paper" else self.max_rule_size

    def _select(self, path: pd.DataFrame) -> list[str]:
        """Step 6's choice among the rows of (part of) the path: its feature names."""
        position = select_n_features(path["validation_accuracy"].to_numpy(), self.tolerance) - 1
        chosen = path.iloc[position]
        self.n_selected_ = int(chosen["n_features"])
        self.validation_accuracy_ = float(chosen["validation_accuracy"])
        return list(chosen["features"])

    def _bounded_candidate(self, tables: _TrainingTables, cols: tuple[int, ...], names: list[str]) -> dict:
        """The printed size of a candidate's ideal DNF and, when it exceeds ``max_rule_size``
        (and the columns are few enough), the validated bounded DNF's accuracies and size
        (:func:`~logicrules.ideal.bounded.validated_bounded_dnf`); NaN accuracies: unchanged."""
        features = tuple(names[j] for j in cols)
        table = replace(tables[cols], features=features)
        size = _printed_size(_table_formulas(table), self._conditions(), names)
        out = {"validation_accuracy": np.nan, "training_accuracy": np.nan, "rule_size": size, "pruned": False,
               "pruned_literals": np.nan}
        if size > self._rule_bound() and len(cols) <= MAX_BOUNDED_FEATURES and isinstance(table, TypeTable):
            histogram = TypeHistogram(cols, table.keys.astype(np.int64),
                                      np.vstack([table.negatives, table.positives]))
            pruned, accuracy = validated_bounded_dnf(histogram, tables.validation(cols), self._rule_bound(),
                                                     features=features)
            out.update(validation_accuracy=accuracy, training_accuracy=pruned.training_accuracy,
                       rule_size=_printed_size([pruned.formula], self._conditions(), names), pruned=True,
                       pruned_literals=pruned.n_literals)
        return out

    def _shorter(self, names: list[str]) -> list[str] | None:
        """With ``max_rule_size``, when the final rule prints longer: the choice among the
        smaller ``l`` (feature names of the stage binarization); else None."""
        if self._rule_bound() is None or self.n_selected_ <= 1:
            return None
        formulas = self.formula_.values() if isinstance(self.formula_, dict) else [self.formula_]
        if _printed_size(formulas, self._conditions(), names) <= self._rule_bound():
            return None
        smaller = self.path_[self.path_["n_features"] < self.n_selected_]
        return self._select(smaller) if len(smaller) else None
