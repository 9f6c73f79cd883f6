"""How a fitted rule classifier predicts: binarize, evaluate the rule, labels, probabilities, scores."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from logicrules import probability
from logicrules.distributed import is_dask_collection, lazy_score, map_rows
from logicrules.validation import as_boolean_matrix


class _RulePrediction:
    """The prediction side of :class:`~logicrules.base.RuleClassifier`: binarize new data with the
    fitted binarizer, evaluate the rule, and turn it into labels, probabilities and scores."""

    # -------------------------------------------------------------- prediction
    def binarize(self, X) -> np.ndarray:
        """Binarize X with the fitted binarizer: a bool matrix over ``attribute_names_``."""
        check_is_fitted(self, "formula_")
        X = self._check_X(X, reset=False)
        if self.binarizer_ is None:
            return as_boolean_matrix(X, labels=self._input_names())
        return np.asarray(self.binarizer_.transform(X), dtype=bool)

    def _evaluate(self, Xb: np.ndarray) -> np.ndarray:
        return self.formula_.evaluate(Xb, feature_names=self.attribute_names_)

    def predict(self, X) -> np.ndarray:
        """Predict ``pos_label_`` where the formula holds and the other class elsewhere.

        With more than two classes, the class of highest :meth:`predict_proba`: the class whose
        rule fires with the highest smoothed precision; when no rule fires, the class whose rule
        leaves the highest positive rate among the rows where it does not fire. Exact ties go
        to the class listed first in ``classes_``.
        """
        check_is_fitted(self, "formula_")
        if is_dask_collection(X):
            return map_rows(self.predict, X, None, np.asarray(self.classes_).dtype)
        Xb = self.binarize(X)
        if self._is_multiclass():
            return self.classes_[self._proba(Xb).argmax(axis=1)]
        return self._binary_labels()[self._evaluate(Xb).astype(np.intp)]

    def _proba(self, Xb: np.ndarray) -> np.ndarray:
        """``predict_proba`` on binarized rows (a pure function of them and fitted counts)."""
        if self._is_multiclass():
            scores = np.column_stack([sub._proba(Xb)[:, 1] for sub in self.estimators_.values()])
            return scores / scores.sum(axis=1, keepdims=True)
        predicted = self._evaluate(Xb)
        masks, _, _ = self._cells(Xb)
        frequencies = probability.smoothed_frequencies(self.cell_counts_)
        cells = probability.assign_cells(masks, self.cell_sides_[:-1], predicted, frequencies[:-1, 1])
        return self._binary_proba(frequencies[cells, 1], predicted)

    def _binary_proba(self, positive: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """Columns in ``classes_`` order from the positive class's estimate, made consistent
        with the rule's decision ``predicted``."""
        pos_column = int(self.classes_[1] == self.pos_label_)
        P = np.empty((len(positive), 2))
        P[:, pos_column] = positive
        P[:, 1 - pos_column] = 1.0 - positive
        return probability.consistent(P, np.where(predicted, pos_column, 1 - pos_column))

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities from the rule's training counts (see the class notes).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; rows sum to 1 and their most probable class is
            the one ``predict`` returns.
        """
        check_is_fitted(self, "formula_")
        if is_dask_collection(X):
            return map_rows(self.predict_proba, X, len(self.classes_), np.float64,
                            columns=[str(c) for c in self.classes_])
        return self._proba(self.binarize(X))

    def decision_function(self, X) -> np.ndarray:
        """Log-odds of ``classes_[1]`` (positive exactly where it is predicted).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            ``log(p1 / p0)`` of :meth:`predict_proba` (log-probabilities, shape
            (n_samples, n_classes), for more than two classes).
        """
        if is_dask_collection(X):
            check_is_fitted(self, "formula_")
            n_outputs = None if len(self.classes_) == 2 else len(self.classes_)
            return map_rows(self.decision_function, X, n_outputs, np.float64)
        return probability.log_odds(self.predict_proba(X))

    def score(self, X, y, sample_weight=None):
        """Accuracy of :meth:`predict` on X against y (weighted by ``sample_weight``).

        Parameters
        ----------
        X : DataFrame, array-like, dask DataFrame or dask Array
        y : array-like, or a dask Series / Array partitioned like X
        sample_weight : array-like, optional

        Returns
        -------
        float, or a lazy dask scalar when X is a dask collection (``.compute()`` it)
        """
        if is_dask_collection(X):
            return lazy_score(self.predict(X), y, sample_weight)
        return super().score(X, y, sample_weight=sample_weight)
