"""How a fitted rule classifier shows its rule: SymPy, the table of terms, per-row explanations, text."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from logicrules import presentation
from logicrules.fca.context import FormalContext
from logicrules.formula import Literal


class _RulePresentation:
    """The presentation side of :class:`~logicrules.base.RuleClassifier`: the learned rule as SymPy, as
    a table of terms (``get_rules``), as per-row explanations (``explain``) and as text."""

    # ------------------------------------------------------------ presentation
    def to_sympy(self):
        """The learned formula as a SymPy Boolean expression (symbols named after attributes);
        a dict class -> expression with more than two classes."""
        check_is_fitted(self, "formula_")
        if isinstance(self.formula_, dict):
            return {label: formula.to_sympy() for label, formula in self.formula_.items()}
        return self.formula_.to_sympy()

    def _terms(self) -> tuple[str, list[list[Literal]]]:
        """The formula as ``("dnf", terms)``, ``("cnf", clauses)`` or ``("checklist", [items])``."""
        return presentation.rule_parts(self.formula_)

    def _literal_matrix(self, Xb: np.ndarray, literals: list[Literal]) -> np.ndarray:
        """Truth values (n, len(literals)) of literals over the binarized attributes."""
        return presentation.literal_matrix(Xb, self.attribute_names_, literals)

    def _rules_frame(self, Xb: np.ndarray | FormalContext, y: np.ndarray,
                     row_counts: np.ndarray | None = None) -> pd.DataFrame:
        return presentation.rules_frame(self.formula_, Xb, self.attribute_names_, y, self._evaluate(Xb),
                                        row_counts=row_counts)

    def get_rules(self, X=None, y=None) -> pd.DataFrame:
        """The rule term by term (clause by clause, or as one checklist), then as a whole.

        Parameters
        ----------
        X, y : optional
            Data on which to count; the training data when omitted.

        Returns
        -------
        DataFrame
            One row per term of a DNF, clause of a CNF, or the checklist (``at least m of:
            ...``), then a last row for the whole rule. Columns ``rule`` (text), ``part``
            (``"term"``, ``"clause"``, ``"checklist"`` or ``"rule"``), ``size`` (literals),
            ``support`` (rows where it holds), ``precision`` (fraction of those in the
            positive class; NaN without support) and ``coverage`` (support / rows).
        """
        check_is_fitted(self, "formula_")
        if X is None:
            return self.rules_.copy()
        if y is None:
            raise ValueError("get_rules(X, y) needs y together with X")
        y = np.asarray(y)
        if self._is_multiclass():  # one block per class, counted for that class against the rest
            frame = self._binarized_frame(X)
            return self._per_class(lambda label: self.estimators_[label].get_rules(frame, y == label))
        return self._rules_frame(self.binarize(X), y == self.pos_label_)

    def _binarized_frame(self, X) -> pd.DataFrame:
        """X binarized, as the DataFrame the per-class rules of a multiclass model read."""
        return pd.DataFrame(self.binarize(X), columns=list(self.attribute_names_))

    def explain(self, X) -> list[str]:
        """Say per row why the rule predicts what it does.

        For a DNF rule, a positive row gets the term that fires on it and a negative row one
        false literal of every term (a literal false in several terms is named once). For a CNF
        rule, a negative row gets the clause that fails and a positive row one true literal of
        every clause. For a checklist, the items that hold and how many are needed. A literal
        that a missing value decides says so (``age > 55 is false (age is missing)``). With
        more than two classes, each row is explained by the rule of its predicted class.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        list of str
            One explanation per row, starting with the predicted label.
        """
        check_is_fitted(self, "formula_")
        if self._is_multiclass():
            frame = self._binarized_frame(X)
            predicted = self.classes_[self._proba(frame.to_numpy()).argmax(axis=1)]
            texts = [""] * len(frame)
            for label, sub in self.estimators_.items():
                rows = np.flatnonzero(predicted == label)
                if rows.size:
                    fires = sub._evaluate(frame.to_numpy()[rows])
                    for i, text, fired in zip(rows, sub.explain(frame.iloc[rows]), fires):
                        reason = text.split(": ", 1)[1]
                        # a class whose rule does not fire wins only where no rule fires
                        texts[i] = f"{label}: {reason}" if fired else f"{label}: no rule fires ({reason})"
            return texts
        X = self._check_X(X, reset=False)
        Xb = self.binarize(X)
        return presentation.explanations(self.formula_, Xb, self.attribute_names_, self._evaluate(Xb),
                                         self._binary_labels(), self._missing(X))

    def _missing(self, X) -> dict[str, np.ndarray]:
        """Which rows of checked X have a missing value, for each column a condition reads."""
        frame = X if hasattr(X, "iloc") else pd.DataFrame(X, columns=self._input_names(), copy=False)
        columns = {c.column for c in self._conditions().values()}
        return {str(c): frame[c].isna().to_numpy() for c in frame.columns if str(c) in columns}

    def __str__(self) -> str:
        if hasattr(self, "formula_") and isinstance(self.formula_, dict):
            return "\n".join([f"{type(self).__name__}, one rule per class:"]
                             + [f"  IF {formula} THEN {label}" for label, formula in self.formula_.items()])
        if hasattr(self, "formula_"):
            negative, positive = self._binary_labels()
            head = f"{type(self).__name__}: IF {self.formula_} THEN {positive} ELSE {negative}"
            return f"{head}\n{presentation.rules_table(self.rules_)}"
        return repr(self)
