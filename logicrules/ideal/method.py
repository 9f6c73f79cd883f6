"""The ideal classifier method: feature selection around the empirical ideal DNF.

The paper's seven steps (DESIGN.md section 2):

1. take the training data;
2. hold out ``validation_size`` (30%) of it for validation and booleanize with a binarizer fitted
   on the remaining *training part* (the median binarizer: numeric ``x > median``, categorical
   one-hot);
3. for ``l = 1 .. max_features`` (10):
4. rank the booleanized attributes of the training part with each scorer (F-test, mutual
   information, chi-squared; ``SelectKBest`` semantics) and take the top ``l``;
5. compute the empirical ideal DNF (Algorithm 1) of each selection on the training part, score it
   on the validation part, keep the best scorer for this ``l``;
6. choose the smallest ``l`` whose validation accuracy is within ``tolerance`` (one percentage
   point) of the best; re-booleanize with a binarizer fitted on *all* training data and recompute
   the empirical ideal DNF of those features on all training data;
7. simplify it into a minimal DNF with SymPy (``simplify_logic``).

Beyond the paper: ``selection="wrapper"`` replaces the three univariate rankings by greedy forward
selection that adds, at each ``l``, the attribute maximizing the validation accuracy of the ideal
DNF itself (all candidates scored at once from one histogram); ``binarizer="quantile"`` replaces
the rough median cut (the paper names the discretization as what holds it back).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import _fit_context
from sklearn.utils._param_validation import RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from logicrules import presentation, probability
from logicrules.base import RuleClassifier, make_binarizer
from logicrules.conditions import with_conditions
from logicrules.distributed import is_dask_collection
from logicrules.fca.bitset import pack_columns
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import MAX_TYPE_FEATURES, ContextCounts, Counts, TypeHistogram
from logicrules.formula import Formula, Literal, conjunction, disjunction
from logicrules.ideal.algorithm import TypeTable
from logicrules.ideal.bounded import MAX_BOUNDED_FEATURES, bounded_dnf, validated_bounded_dnf
from logicrules.ideal.finish import HISTOGRAM_ROW_BYTES, TypeRows, counting_rows, rule_columns, type_rows, type_rows_bytes
from logicrules.ideal.multiclass import class_priority
from logicrules.ideal.paths import (PAPER_MI_SEED, _filter_path, _n_classes, _printed_size, _score_candidates,  # noqa: F401
                                    _table, _table_formulas, _TrainingTables, _wrapper_path)
from logicrules.ideal.scoring import SCORERS
from logicrules.ideal.split import validation_mask, value_validation_mask
from logicrules.memory import MemoryBudget
from logicrules.progress import progress_bar
from logicrules.simplify import prime_implicants, simplify_on_domain
from logicrules.validation import Interval

__all__ = ["IdealDNFClassifier", "compact_dnf", "select_n_features"]

#: Most attributes for which the final DNF is shortened by :func:`compact_dnf` (about 0.05 s at
#: 10 attributes, seconds at 12, minutes at 14 for a random function); above, the DNF is kept.
_COMPACT_MAX_VARIABLES = 12
#: Values of the ``tie`` parameter.
TIE_RULES = ("majority", "positive", "negative")
#: Values of the ``protocol`` parameter.
PROTOCOLS = ("default", "paper")
#: Values of the ``split`` parameter.
SPLITS = ("rows", "values")
#: Values of the ``multiclass`` parameter.
MULTICLASS = ("native", "ovr")


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


def _nbytes(X) -> int:
    """Bytes of a table's values (an array's buffer, a DataFrame's columns)."""
    if hasattr(X, "memory_usage"):
        return int(X.memory_usage(index=False, deep=False).sum())
    return int(np.asarray(X).nbytes)


def _rows(X, index: np.ndarray):
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


class IdealDNFClassifier(RuleClassifier):
    """The ideal classifier method: a short DNF that is the best formula over few attributes.

    Selects ``l`` booleanized attributes on a validation split (the paper's steps, module
    docstring) and predicts with the *empirical ideal classifier* over them: the disjunction of
    the attribute-value combinations (types) in which the positive class is the training
    majority. No other formula over the same attributes has fewer training errors. The final
    formula is simplified into a minimal DNF.

    Parameters
    ----------
    binarizer : {"median", "quantile", "threshold", "passthrough"} or transformer, default "median"
        ``"median"`` is the paper's booleanization (:class:`MedianBinarizer` with
        ``missing="false"``: a missing value makes all attributes of its column false, so rows
        with missing values need not be dropped); ``"quantile"`` (:class:`QuantileBinarizer`)
        is the finer alternative; ``"passthrough"`` (or None) uses a 0/1 X as is.
    selection : {"filter", "wrapper"}, default "filter"
        ``"filter"``: the paper's univariate rankings (``scorers``). ``"wrapper"``: greedy
        forward selection maximizing the validation accuracy of the ideal DNF (ties by training
        accuracy, then column order).
    scorers : tuple of str, default ("f_classif", "mutual_info", "chi2")
        Rankings tried at every ``l`` with ``selection="filter"`` (count-based equivalents of
        scikit-learn's ``f_classif``, ``mutual_info_classif`` and ``chi2``). Ties in validation
        accuracy go to the scorer listed first.
    max_features : int, default 10
        Largest ``l`` tried (capped at the number of booleanized attributes).
    validation_size : float in (0, 1), default 0.3
        Fraction of the training data held out to choose ``l`` (see ``split``).
    split : {"rows", "values"}, default "rows"
        How the validation rows are drawn. ``"rows"``: the rows of scikit-learn's
        ``train_test_split(test_size=validation_size, random_state=random_state)``, stratified by
        class when each class has at least two rows (a plain random split otherwise); it depends
        on the order of the rows, and repeated rows may fall on both sides. ``"values"``: each row
        is a validation row when a seeded hash of its values falls below ``validation_size``
        (:func:`~logicrules.ideal.split.value_validation_mask`): identical rows share a side, the
        split does not depend on row order, and integer ``sample_weight`` equals repeating the
        rows exactly (``"rows"`` splits the given rows, so it cannot); the validation fraction is
        ``validation_size`` on average, not stratified (when all rows have the same values,
        ``"rows"`` is used); on data with very few distinct rows a side may lack some of them
        (use ``"rows"`` there). Not available with ``protocol="paper"``
        nor on dask input.
    tolerance : float, default 0.01
        Step 6: choose the smallest ``l`` within this validation accuracy of the best.
    multiclass : {"native", "ovr"}, default "native"
        With more than two classes: ``"native"`` is the empirical ideal classifier of K classes
        (:mod:`logicrules.ideal.multiclass`): the attributes are ranked and the number of them
        chosen against the class target itself (multiclass F-test, mutual information,
        chi-squared; multiclass validation accuracy), every type of the selected attributes
        predicts its (weighted) majority class, and ties and unseen types go to the tied class
        with the most training rows (equal counts: the class of the earlier first row), so that
        permuting the labels permutes the predictions; ``formula_`` is one DNF per class, the
        types predicting it, and the formulas partition the domain. ``"ovr"``: one ideal DNF
        per class against all the others, each with its own attributes (``estimators_``, see
        :class:`~logicrules.base.RuleClassifier`). Two classes: no effect.
    tie : {"majority", "positive", "negative"}, default "majority"
        Prediction of a type with exactly as many rows of both classes, and of a type never
        seen in training (two classes, or each class's rule with ``multiclass="ovr"``; a native
        multiclass fit breaks ties by the training majority and needs the default). ``"majority"``: both go to the training majority class (the class of
        the first training row when the classes are exactly balanced), which keeps the method
        label-invariant: swapping the two labels swaps the predictions. ``"positive"``: ties
        are positive and unseen types negative (the paper's text: the DNF of the types with
        ``c1 / c >= 1/2``). ``"negative"``: both negative (the paper's code).
    pos_label : label, optional
        The class the formula describes (predicted where it holds); ``classes_[1]`` when None.
    categorical : list of str or int, optional
        Input columns (names or positions) the binarizer one-hot encodes whatever their dtype,
        e.g. integer-coded categories (see :mod:`logicrules.fca.scaling`).
    protocol : {"default", "paper"}, default "default"
        ``"paper"`` reproduces the authors' published code: the validation part is the last
        ``validation_size`` of the training rows in their given order (shuffle the data
        beforehand, as they do), not a stratified random split; the ``"mutual_info"`` scorer is
        scikit-learn's ``mutual_info_classif(discrete_features="auto", random_state=42)`` on the
        booleanized features (its nearest-neighbour estimator, which treats them as
        continuous), not the plug-in count estimate; ties and unseen types go to the negative
        class (``tie`` must be left at its default). It does not accept ``sample_weight``, and
        with more than two classes it needs ``multiclass="ovr"`` (the authors' code has two).
    verbose : int, default 0
        0: silent. 1 or more: progress over l = 1 .. max_features on stderr (a tqdm bar when tqdm is installed,
        else one line per step; see :mod:`logicrules.progress`).
    simplify_max_variables : int, default 8
        Step 7 (SymPy's exact minimal DNF) runs when the formula has at most this many
        attributes; its cost grows exponentially (about 2 s for a random function of 8
        variables, minutes for 10). Above the limit (the paper simplified up to 10) the DNF is
        shortened by :func:`compact_dnf` instead: all prime implicants, then essential primes
        and a greedy cover (equivalent, short, not always minimal); above 12 attributes the
        ideal DNF is kept as it is.
    max_rule_size : int or None, default 20
        Bound on the printed rule: the number of literals of its domain-simplified form (what
        ``formula_`` prints, :func:`~logicrules.simplify.simplify_on_domain`). A candidate
        ``(l, scorer)`` whose ideal DNF on the training part prints longer is *pruned*: its rule
        becomes the most accurate DNF (or negated DNF) within the bound on the training part's
        type counts, the bound's optimum or a shorter form of it chosen by validation
        accuracy (:func:`~logicrules.ideal.bounded.validated_bounded_dnf`), and it competes in
        step 6 with that rule's validation accuracy. The final rule (all training data) is
        pruned the same way within the literals of the validated one
        (:func:`~logicrules.ideal.bounded.bounded_dnf`). Pruning searches at most 12
        attributes; above, a longer candidate is left out of step 6, and when the final rule
        prints longer the choice is made again among the smaller ``l``. None: no bound (the
        paper's method; ``protocol="paper"`` applies none either). With more than two classes it
        bounds every class's rule; pruning is for two classes, so a native multiclass candidate
        whose longest class rule prints longer is left out.
    random_state : int, RandomState or None, default None
        Seed of the validation split.
    memory_limit : int, float, str or None, default 2 GiB
        Bytes (or "512MB", "2GB") that ``fit`` may allocate beyond the input X, y and weights
        (which are never copied: a numeric table is read in chunks of rows). Each of these is
        estimated before it is allocated, together with what is still held: the validation
        mask; the binarizer's fits (on the training part, then on all rows); the packed
        binarized data (one bit per row and attribute, binarized chunk by chunk so that one
        chunk of booleans exists at a time); the blocks of rows of every counting pass (type
        histograms, literal counts: their size is taken from the limit); the wrapper
        selection's dense copy; and the final rule's statistics (``rules_``,
        ``cell_counts_``), counted on its realized types, or on every row beyond 62
        attributes. Not counted: Python objects whose number does not grow with the rows
        (formulas, one small array per candidate). What cannot fit raises
        :class:`~logicrules.memory.MemoryLimitError` before the allocation, naming what needs
        the memory and how to reduce it.

    Attributes
    ----------
    path_ : DataFrame
        One row per ``l``: ``n_features``, the best ``scorer``, its ``features`` (tuple of
        attribute names of the validation-stage binarization), ``validation_accuracy``,
        ``training_accuracy``, ``n_types`` and, with ``max_rule_size``, ``rule_size`` (literals
        of the printed rule, the longest class rule with more classes, on the training part), ``pruned`` (whether that rule is the bounded
        DNF, whose accuracies the row then holds) and ``pruned_literals`` (its literals before
        the domain simplification); only the pairs within ``max_rule_size`` are considered,
        and an ``l`` without one is left out. Plot ``validation_accuracy`` against
        ``n_features`` for the accuracy curve.
    candidates_ : DataFrame
        The same for every (``l``, scorer) pair tried.
    n_selected_ : int
        The chosen ``l``.
    selected_features_ : list of str
        The chosen attributes in the final binarization (fitted on all training data).
    type_table_ : TypeTable or ClassTypeTable
        Types of the selected attributes on all training data (type, count, positives, ratio;
        the per-class counts of a native multiclass fit).
    ideal_formula_ : Formula
        The empirical ideal classifier before simplification: one full conjunction per
        positive type or, when unseen types are predicted positive (``tie="majority"`` with a
        positive majority), the negation of the disjunction of the negative types. Its
        literals carry their binarizer conditions, as those of ``formula_`` do. A native
        multiclass fit: a dict class -> the disjunction of the types predicting it.
    formula_ : Formula or dict
        The simplified DNF (see ``simplify_max_variables``), logically equivalent to
        ``ideal_formula_`` unless ``max_rule_size`` pruned it (``path_``'s ``pruned`` for
        ``n_selected_``); ``predict`` uses it. With more than two classes a dict class -> DNF
        (``raw_formula_`` the same before the domain simplification).
    class_prior_ : float or ndarray
        Fraction of positive training rows (of each class, in ``classes_`` order, for a native
        multiclass fit).
    validation_accuracy_ : float
        Validation accuracy of the chosen ``l``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 10, size=(400, 5)), columns=list("abcde"))
    >>> y = ((X.a > 5) & (X.c > 5)).astype(int)
    >>> model = IdealDNFClassifier(random_state=0).fit(X, y)
    >>> print(model.formula_)
    a > 5 AND c > 5
    >>> model.path_[["n_features", "scorer", "validation_accuracy"]].head(2)
       n_features     scorer  validation_accuracy
    0           1  f_classif             0.850000
    1           2  f_classif             0.958333
    """

    _binarizer_default = "median"
    _parameter_constraints: dict = {
        **RuleClassifier._parameter_constraints,
        "selection": [StrOptions({"filter", "wrapper"})],
        "scorers": [StrOptions(set(SCORERS)), list, tuple],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "validation_size": [Interval(RealNotInt, 0, 1, closed="neither")],
        "split": [StrOptions(set(SPLITS))],
        "tolerance": [Interval(Real, 0, None, closed="left")],
        "tie": [StrOptions(set(TIE_RULES))],
        "simplify_max_variables": [Interval(Integral, 0, None, closed="left")],
        "max_rule_size": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "memory_limit": [Interval(Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0, None, closed="neither"), str, None],
        "protocol": [StrOptions(set(PROTOCOLS))],
        "multiclass": [StrOptions(set(MULTICLASS))],
        "verbose": ["verbose"],
    }

    def __init__(self, *, binarizer="median", selection="filter",
                 scorers=("f_classif", "mutual_info", "chi2"), max_features=10,
                 validation_size=0.3, split="rows", tolerance=0.01, tie="majority", simplify_max_variables=8,
                 max_rule_size=20, random_state=None, pos_label=None, categorical=None,
                 memory_limit=None, protocol="default", multiclass="native", verbose=0):
        self.binarizer = binarizer
        self.selection = selection
        self.scorers = scorers
        self.max_features = max_features
        self.validation_size = validation_size
        self.split = split
        self.tolerance = tolerance
        self.tie = tie
        self.simplify_max_variables = simplify_max_variables
        self.max_rule_size = max_rule_size
        self.random_state = random_state
        self.pos_label = pos_label
        self.categorical = categorical
        self.memory_limit = memory_limit
        self.protocol = protocol
        self.multiclass = multiclass
        self.verbose = verbose

    # ------------------------------------------------------------------ parameters
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

    # --------------------------------------------------------------------- fitting
    @_fit_context(prefer_skip_nested_validation=False)  # a user's binarizer is validated too
    def fit(self, X, y, sample_weight=None):
        """Run the seven steps of the ideal classifier method and return self.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Raw features (numeric, categorical, NaN for missing), or 0/1 with
            ``binarizer="passthrough"``.
        y : array-like of shape (n_samples,)
            Target: two labels, or more (then the native K-class ideal classifier, or with
            ``multiclass="ovr"`` one ideal DNF per class against all others).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights: the binarizer's medians, the scorers' counts, the type
            histograms and the validation accuracies are weighted (integer weights count as
            repeated rows exactly with ``split="values"``; ``split="rows"`` draws the validation
            split over the given rows, so it differs from the split of the repeated data).

        Returns
        -------
        self
        """
        self._check_protocol(sample_weight)
        if is_dask_collection(X):  # every step from counts over the partitions
            if self.split != "rows":
                raise ValueError(f"split={self.split!r} is not available on dask input (a dask fit draws "
                                 "its own per-partition split, see logicrules.ideal.dask_fit); use "
                                 "split='rows'")
            from logicrules.ideal.dask_fit import fit_ideal_from_dask

            return fit_ideal_from_dask(self, X, y, sample_weight)
        if self.binarizer is None or (isinstance(self.binarizer, str) and self.binarizer == "passthrough"):
            # fixed boolean data: nothing to re-binarize (_fit_formula)
            return super().fit(X, y, sample_weight=sample_weight)
        scorers = self._scorers()
        X, y_bool, w = self._validate_training_data(X, y, sample_weight)  # class indices for K > 2
        self._budget = MemoryBudget(self.memory_limit)
        if self._is_multiclass() and self.multiclass == "ovr":  # one ideal DNF per class against the rest
            self._fit_one_vs_rest(self._fit_binarizer(X, w), y_bool, w)
            return self
        rule = self._tie_rule(y_bool, w)
        valid = self._validation_mask(y_bool, X)
        context = self._fit_stage(X, valid, w)  # step 2: every row, binarized as the training part
        stage_names = list(context.attributes)
        self._check_attributes(stage_names)
        stage_binarizer = self.binarizer_
        stage_features = self._search(context, y_bool, valid, stage_names, scorers, rule, w)
        self._budget.release(context.n_objects * context.n_attributes / 8)  # held by _binarize_context
        del context
        Xb = self._fit_binarizer(X, w)  # step 6: re-booleanize on all training data
        names = list(Xb.attributes)
        self._check_attributes(names)
        while stage_features is not None:
            features = _map_features(stage_binarizer, self.binarizer_, stage_features, names)
            self._fit_table(Xb, y_bool, names, features, rule, w)
            stage_features = self._shorter(names)
        self._finish(names, Xb, y_bool, w)
        return self

    def _fit_stage(self, X, valid: np.ndarray, w: np.ndarray | None) -> FormalContext:
        """Fit ``binarizer_`` on the training part (the rows outside ``valid``) and binarize
        every row with it, straight into one packed context.

        The training part is selected by weights 0 / 1 (the built-in binarizers leave rows of
        weight 0 out; the median binarizer reads a numeric table in row chunks, so no row is
        copied); a binarizer without ``sample_weight`` is fitted on a copy of the training rows.
        """
        binarizer = make_binarizer(self.binarizer, categorical=self.categorical)
        train_w = np.where(valid, 0.0, 1.0 if w is None else w)
        n, n_columns = X.shape
        weighted = has_fit_parameter(binarizer, "sample_weight")
        frame = X if hasattr(X, "dtypes") else pd.DataFrame(X, copy=False)
        chunked = weighted and hasattr(binarizer, "_fits_by_column_stats") \
            and binarizer._fits_by_column_stats(frame, train_w)
        if chunked:  # row positions, the values in the median brackets, chunk temporaries
            need = 8 * n + n * n_columns / 4 + 48 * n_columns * (1 << 16)
        else:  # a copy of the training rows, then a fit one column at a time (64 bytes per row)
            need = _nbytes(X) * float((~valid).mean()) + n * (64 + n_columns)
        self._budget.require(need,
                             f"fitting {type(binarizer).__name__} on the training part ({n} rows x "
                             f"{n_columns} columns{'' if chunked else ', copied'})", "use fewer rows")
        if weighted:
            binarizer.fit(X, sample_weight=train_w)
        else:
            binarizer.fit(_rows(X, np.flatnonzero(~valid)))
        self.binarizer_ = binarizer
        return self._binarize_context(X)

    def _fit_formula(self, Xb: np.ndarray, y: np.ndarray, names: list[str],
                     sample_weight: np.ndarray | None = None) -> Formula:
        """Steps 2-7 on already boolean data (``binarizer="passthrough"``): no re-binarization."""
        return self._fit_packed(FormalContext.from_bits(pack_columns(Xb), len(y), names), y, sample_weight)

    def _fit_packed(self, context: FormalContext, y: np.ndarray, weights: np.ndarray | None = None) -> Formula:
        """Steps 2-7 on the packed 0/1 input (``binarizer="passthrough"``): both parts are
        counted from the one context, nothing is unpacked."""
        scorers = self._scorers()
        names = list(context.attributes)
        self._check_attributes(names)
        rule = self._tie_rule(y, weights)
        valid = self._validation_mask(y, context)
        features = self._search(context, y, valid, names, scorers, rule, weights)
        while features is not None:
            self._fit_table(context, y, names, features, rule, weights)
            features = self._shorter(names)
        return self.formula_

    def _fit_multiclass(self, context: FormalContext, target: np.ndarray, weights: np.ndarray | None) -> None:
        """More than two classes on passthrough data: the native K-class fit, or one-vs-rest."""
        if self.multiclass == "ovr":
            super()._fit_multiclass(context, target, weights)
            return
        self._fit_packed(context, target, weights)
        self._finish(list(context.attributes), context, target, weights)

    def _is_native(self) -> bool:
        """Whether the fitted model is a native multiclass one (no per-class estimators)."""
        return self._is_multiclass() and not hasattr(self, "estimators_")

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
                from logicrules.ideal.wrapper_counts import wrapper_path_from_counts

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

    def _fit_table(self, Xb: np.ndarray, y: np.ndarray, names: list[str], features: list[str],
                   rule: tuple[str, bool] | np.ndarray, w: np.ndarray | None = None) -> None:
        """Steps 6-7: the ideal DNF of ``features`` on all rows, then its minimal DNF."""
        index = {name: j for j, name in enumerate(names)}
        columns = [index[f] for f in features]
        self.selected_features_ = list(features)
        self._selected_columns = np.array(columns, dtype=np.intp)
        counts = Xb if isinstance(Xb, Counts) else ContextCounts(Xb, y, weights=w, n_classes=_n_classes(rule),
                                                                 block_rows=self._counting_rows())
        histogram = counts.type_histogram(columns)  # dask: Xb holds the counts already
        self.type_table_ = _table(histogram, tuple(features), rule)
        conditions = self._conditions()
        totals = histogram.counts.sum(axis=1)
        if isinstance(self.type_table_, TypeTable):
            self.ideal_formula_ = with_conditions(self.type_table_.to_formula(), conditions)
            self.formula_ = self._minimal_dnf(self.type_table_, self.ideal_formula_)
            self._bound_formula(histogram, names)
            self.class_prior_ = float(np.average(y, weights=w)) if y is not None else float(totals[1] / totals.sum())
            return
        # one DNF per class: the types predicting it
        tables = {label: self.type_table_.class_table(k) for k, label in enumerate(self.classes_.tolist())}
        self.ideal_formula_ = {label: with_conditions(t.to_formula(), conditions) for label, t in tables.items()}
        self.formula_ = {label: self._minimal_dnf(t, self.ideal_formula_[label]) for label, t in tables.items()}
        self.class_prior_ = totals / totals.sum()

    def _bound_formula(self, histogram: TypeHistogram, names: list[str]) -> None:
        """With ``max_rule_size``, a final rule that prints longer becomes the most accurate
        bounded DNF on all training rows, within the literals of the rule validated for this l."""
        bound = self._rule_bound()
        if bound is None or len(self.selected_features_) > MAX_BOUNDED_FEATURES \
                or _printed_size([self.formula_], self._conditions(), names) <= bound:
            return
        chosen = self.path_[self.path_["n_features"] == self.n_selected_].iloc[0]
        if chosen["pruned"]:
            bound = min(bound, int(chosen["pruned_literals"]))
        self.formula_ = bounded_dnf(histogram, bound, features=self.selected_features_).formula

    def _minimal_dnf(self, table: TypeTable, ideal: Formula) -> Formula:
        """Step 7 on the (two-class) table's ideal DNF: see ``simplify_max_variables``."""
        if table.n_features <= self.simplify_max_variables:
            return ideal.simplify(max_variables=int(self.simplify_max_variables))
        if table.n_features <= _COMPACT_MAX_VARIABLES:
            return compact_dnf(table)
        return ideal

    # ------------------------------------------------------------------ prediction
    def _proba(self, Xb: np.ndarray) -> np.ndarray:
        """Smoothed training class frequencies of each row's type (see :meth:`predict_proba`)."""
        if self._is_native():
            return self.type_table_.predict_proba(np.asarray(Xb, dtype=bool)[:, self._selected_columns])
        if self._is_multiclass():
            return super()._proba(Xb)
        table = self.type_table_
        index = table.lookup(Xb[:, self._selected_columns])
        counts = np.column_stack([table.negatives, table.positives]).astype(np.float64)
        prior = [[table.n_rows - table.positives.sum(), table.positives.sum()]]
        frequencies = probability.smoothed_frequencies(np.vstack([counts, prior]))
        return self._binary_proba(frequencies[index, 1], self._evaluate(Xb))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # one median cut per column: on scikit-learn's three-blob check data the best formula
        # over those attributes is 81% accurate, below the 83% that check asks for
        tags.classifier_tags.poor_score = True
        return tags

    def predict_proba(self, X) -> np.ndarray:
        """Smoothed training frequency of the classes in each row's type.

        A row's type is its combination of the selected attributes; its probability of the
        positive class is ``(c1 + 1) / (c + 2)`` over the training rows of that type, and over
        all training rows for a type never seen in training. Where that disagrees with
        ``predict`` (an exact tie, an unseen type predicted by ``tie``) the predicted class is
        moved just past 1/2, so the most probable class is always the predicted one. A native
        multiclass model gives class ``k`` the probability ``(c_k + 1) / (c + K)`` the same
        way (the predicted class moved just past the largest other where they disagree); a
        one-vs-rest model combines its per-class rules (see
        :class:`~logicrules.base.RuleClassifier`).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return super().predict_proba(X)

    def get_rules(self, X=None, y=None) -> pd.DataFrame:
        """The rule term by term, then whole (see :meth:`RuleClassifier.get_rules`); a native
        multiclass model gives one block per class (column ``class``), its DNF counted for that
        class against the others."""
        if X is None or y is None or not self._is_native():
            return super().get_rules(X, y)
        return self._class_rules(self.binarize(X), np.asarray(y))

    def explain(self, X) -> list[str]:
        """Say per row why the rule predicts what it does (see :meth:`RuleClassifier.explain`);
        a native multiclass model names the term of the predicted class's DNF that holds."""
        if not self._is_native():
            return super().explain(X)
        check_is_fitted(self, "formula_")
        X = self._check_X(X, reset=False)
        Xb = self.binarize(X)
        predicted = self._proba(Xb).argmax(axis=1)
        missing = self._missing(X)
        texts = [""] * len(Xb)
        for k, label in enumerate(self.classes_.tolist()):
            rows = np.flatnonzero(predicted == k)
            if rows.size:
                formula = self.formula_[label]
                fires = formula.evaluate(Xb[rows], feature_names=self.attribute_names_)
                for i, text in zip(rows, presentation.explanations(
                        formula, Xb[rows], self.attribute_names_, fires, [label, label],
                        {c: m[rows] for c, m in missing.items()})):
                    texts[i] = text
        return texts


# ------------------------------------------------------------------ re-binarization mapping
def _map_features(stage, final, features: list[str], final_names: list[str]) -> list[str]:
    """Names in the final binarization of the attributes chosen in the validation stage.

    A median (or quantile) threshold moves when the binarizer is refitted on all training data,
    so attributes are matched by their :class:`Condition`: same column and operator, same value
    for categorical / binary conditions, and for thresholds the same direction (``>`` or ``>=``
    versus ``<`` or ``<=``: the median binarizer cuts a column whose median is its maximum as
    ``x >= median``) and the same rank among that column's thresholds (or the nearest threshold
    when their number changed). Without ``conditions_`` names are matched as they are.
    """
    final_set = set(final_names)
    stage_conditions = getattr(stage, "conditions_", None)
    final_conditions = getattr(final, "conditions_", None)
    if stage_conditions is None or final_conditions is None:
        missing = [f for f in features if f not in final_set]
        if missing:
            raise ValueError(f"selected attributes {missing} are not produced by the refitted binarizer")
        return list(features)
    by_name = {c.name: c for c in stage_conditions}
    direction = {">": ">", ">=": ">", "<": "<", "<=": "<"}

    def kind(c):
        return c.column, direction.get(c.op, c.op)

    mapped = []
    for name in features:
        cond = by_name[name]
        same = [c for c in final_conditions if kind(c) == kind(cond)]
        if cond.op in ("==", "!=", "is true", "is missing"):
            match = [c for c in same if c.value == cond.value]
        else:
            stage_same = [c for c in stage_conditions if kind(c) == kind(cond)]
            if len(same) == len(stage_same) and same:
                match = [same[stage_same.index(cond)]]
            else:
                match = sorted(same, key=lambda c: abs(float(c.value) - float(cond.value)))[:1]
        if not match or match[0].name not in final_set:
            warnings.warn(f"attribute {name!r} has no counterpart after refitting the binarizer on all "
                          "training data; it is left out of the final formula", UserWarning, stacklevel=3)
            continue
        if match[0].name not in mapped:
            mapped.append(match[0].name)
    return mapped



# ------------------------------------------------------------------------ DNF for many types
def compact_dnf(table: TypeTable) -> Formula:
    """A short DNF equivalent to the table's ideal DNF, for too many variables for SymPy.

    Prime implicants of the positive types (unseen types as the table predicts them), then the essential primes, then greedily the prime covering most still uncovered
    positive types (ties: fewer literals, then lower code). Exact equivalence is kept; the
    number of terms is within a logarithmic factor of the minimum (greedy set cover).

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.ideal.algorithm import type_table
    >>> X = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 1], [1, 1, 0]], dtype=bool)
    >>> print(compact_dnf(type_table(X, [1, 1, 0, 0])))
    NOT x0 AND x2
    """
    k = table.n_features
    if k > 31:
        raise ValueError(f"compact_dnf handles at most 31 features, got {k}")
    positive = table.positive_codes()
    if len(positive) == 0:
        return disjunction()
    values, masks = prime_implicants(positive, k)
    covers = (positive[None, :] & ~masks[:, None]) == values[:, None]  # (primes, minterms)
    n_literals = k - np.array([int(m).bit_count() for m in masks])
    chosen = list(np.flatnonzero((covers & (covers.sum(axis=0) == 1)).any(axis=1)))
    uncovered = ~covers[chosen].any(axis=0) if chosen else np.ones(len(positive), dtype=bool)
    while uncovered.any():
        gain = covers[:, uncovered].sum(axis=1)
        best = int(np.lexsort((values, n_literals, -gain))[0])
        chosen.append(best)
        uncovered &= ~covers[best]
    literals = [(Literal(f, negated=True), Literal(f)) for f in table.features]
    terms = []
    for p in sorted(chosen, key=lambda i: (n_literals[i], int(values[i]))):
        v, m = int(values[p]), int(masks[p])
        terms.append(conjunction(*(literals[j][(v >> j) & 1] for j in range(k) if not (m >> j) & 1)))
    return disjunction(*terms)
