"""Shared scikit-learn machinery of every rule learner: validation, binarization, presentation.

A learner only has to turn a boolean matrix and a boolean target into a :class:`Formula` over
the binarized attribute names (:meth:`RuleClassifier._fit_formula`). Everything a user touches
around that (two-class targets with any labels, pandas column names, the binarizer, ``predict``,
``to_sympy``, ``get_rules``, ``explain``) lives here once, so the three learners behave alike.
"""

from __future__ import annotations

import inspect
from abc import abstractmethod
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_array, column_or_1d, has_fit_parameter, validate_data

from logicrules import presentation, probability
from logicrules.conditions import with_conditions
from logicrules.distributed import check_not_dask, is_dask_collection
from logicrules.fca import bitset
from logicrules.fca.context import FormalContext
from logicrules.formula import Formula, Literal
from logicrules.memory import MemoryBudget
from logicrules.progress import progress_bar
from logicrules.rule_prediction import _RulePrediction
from logicrules.rule_presentation import _RulePresentation
from logicrules.simplify import simplify_on_domain
from logicrules.validation import pack_boolean_rows

__all__ = ["BINARIZERS", "RuleClassifier", "make_binarizer"]

#: Least largest ``sample_weight`` and largest total weight a fit accepts.
_WEIGHT_BOUNDS = (1e-100, 1e100)
#: Names accepted for the ``binarizer`` parameter of every learner.
BINARIZERS = ("median", "quantile", "threshold", "passthrough")
#: Declared constraint of every learner's ``binarizer`` parameter (see ``_parameter_constraints``).
BINARIZER_CONSTRAINT = [StrOptions(set(BINARIZERS)), HasMethods(["fit", "transform", "get_feature_names_out"]),
                        None]


def make_binarizer(spec: Any, categorical: Any = None):
    """Resolve a ``binarizer`` parameter into an unfitted transformer, or None for passthrough.

    Parameters
    ----------
    spec : str or transformer
        ``"median"`` (:class:`MedianBinarizer` with ``missing="false"``), ``"quantile"``
        (:class:`QuantileBinarizer`), ``"threshold"`` (:class:`ThresholdBinarizer`, all-values
        scaling), ``"passthrough"`` (X is already 0/1 and is used as is), or a transformer with
        ``fit``, ``transform`` and ``get_feature_names_out`` (cloned, never fitted in place).
    categorical : list of str or int, optional
        Columns one-hot encoded whatever their dtype (the binarizers' ``categorical``); set on
        the resolved binarizer, which must have that parameter.

    Examples
    --------
    >>> make_binarizer("quantile")
    QuantileBinarizer()
    """
    binarizer = _resolve_binarizer(spec)
    if categorical is None:
        return binarizer
    if binarizer is None:
        raise ValueError("categorical names columns to one-hot encode, but binarizer='passthrough' "
                         "uses X as it is; choose a binarizer or leave categorical=None")
    if "categorical" not in binarizer.get_params(deep=False):
        raise ValueError(f"categorical is set, but the binarizer {type(binarizer).__name__} has no "
                         "categorical parameter; set the columns on the binarizer itself")
    return binarizer.set_params(categorical=list(categorical))


def _resolve_binarizer(spec: Any):
    if spec is None or spec == "passthrough":
        return None
    if isinstance(spec, str):
        from logicrules.fca import scaling

        if spec == "median":
            return scaling.MedianBinarizer(missing="false")
        if spec == "quantile":
            return scaling.QuantileBinarizer()
        if spec == "threshold":
            return scaling.ThresholdBinarizer()
        raise ValueError(f"unknown binarizer {spec!r}; use one of {', '.join(BINARIZERS)} or a transformer")
    if not all(hasattr(spec, attr) for attr in ("fit", "transform", "get_feature_names_out")):
        raise TypeError(
            "binarizer must be one of "
            f"{', '.join(BINARIZERS)} or a transformer with fit, transform and "
            f"get_feature_names_out; got {type(spec).__name__}"
        )
    return clone(spec)


class RuleClassifier(_RulePrediction, _RulePresentation, ClassifierMixin, BaseEstimator):
    """Base class of rule classifiers: a Boolean formula over binarized attributes.

    Subclasses store their parameters in a keyword-only ``__init__`` (among them ``binarizer``
    and ``pos_label``), declare them in ``_parameter_constraints`` (scikit-learn's declarative
    constraints, checked when ``fit`` starts) and implement :meth:`_fit_formula`. The positive
    class, the one the rule describes, is ``pos_label`` or, when that is None, ``classes_[1]``
    (the larger label, e.g. 1 for 0/1 targets and True for booleans); a row is predicted
    positive when the formula holds on its binarized attributes.

    ``predict_proba`` and ``decision_function`` come from the rule's own training counts (see
    :mod:`logicrules.probability`): a row on which a DNF rule fires gets the smoothed precision
    ``(positives + 1) / (rows + 2)`` of its most precise firing term, a row on which it does not
    fire the smoothed positive rate of the rows where no term fires (for a CNF rule the roles are
    swapped: the failing clause of lowest precision, or the rows where every clause holds).
    Estimates that disagree with the rule's decision are moved just past 1/2 on its side, so the
    most probable class is always the predicted one; ``decision_function`` is the log-odds of
    ``classes_[1]``. The estimates are training frequencies: calibrate them on held-out data
    (``CalibratedClassifierCV``) when probabilities matter.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    pos_label_ : object
        The class the rule describes (predicted where the formula holds); two classes only.
    estimators_ : dict of label -> RuleClassifier
        With more than two classes: the rule of each class against the others (a fitted copy
        of this learner on the binarized rows); ``formula_`` and ``raw_formula_`` are then the
        dicts of their formulas, each class's rule simplified on the binarizer's domain as a
        binary rule is (its literals carry the binarizer's conditions).
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names (only when fitted on a DataFrame with string column names).
    binarizer_ : transformer or None
        The fitted binarizer (None with ``binarizer="passthrough"``).
    attribute_names_ : list of str
        Names of the binarized attributes the formula speaks of.
    raw_formula_ : Formula
        The rule as the learner built it, its literals carrying their binarizer conditions.
    formula_ : Formula
        The rule simplified on the binarizer's domain
        (:func:`~logicrules.simplify.simplify_on_domain`): thresholds on one column merged,
        one-hot exclusivity used, implied and contradictory literals removed, a minimal DNF
        when shorter. It agrees with ``raw_formula_`` on every row the binarizer can produce,
        missing values included; ``predict`` uses it.
    rules_ : DataFrame
        :meth:`get_rules` on the training data.
    cell_counts_ : ndarray of shape (n_cells + 1, 2)
        Training rows (weighted) of the negative and of the positive class in every cell of the
        rule (its terms or clauses, then the rest cell); ``predict_proba`` reads them.
    cell_sides_ : ndarray of bool, shape (n_cells + 1,)
        Whether each cell is on the positive side of the rule.

    Examples
    --------
    A learner only turns a boolean matrix into a formula over the attribute names:

    >>> import numpy as np
    >>> from logicrules.formula import Literal
    >>> class FirstColumn(RuleClassifier):
    ...     def __init__(self, *, binarizer="passthrough"):
    ...         self.binarizer = binarizer
    ...     def _fit_formula(self, Xb, y, names):
    ...         return Literal(names[0])
    >>> model = FirstColumn().fit(np.array([[1, 0], [0, 1]]), ["yes", "no"])
    >>> print(model.formula_, model.predict(np.array([[1, 1]])))
    x0 ['yes']
    """

    _binarizer_default = "quantile"
    _parameter_constraints: dict = {
        "binarizer": BINARIZER_CONSTRAINT,
        "pos_label": "no_validation",  # any label: checked against classes_ in fit
        "categorical": [list, tuple, np.ndarray, None],
    }

    # ----------------------------------------------------------------- fitting
    @abstractmethod
    def _fit_formula(self, Xb: np.ndarray, y: np.ndarray, names: list[str]) -> Formula:
        """Learn a formula over ``names`` from boolean ``Xb`` (n, m) and boolean ``y`` (n,)."""

    def _fit_packed(self, context: FormalContext, y: np.ndarray,
                    weights: np.ndarray | None = None) -> Formula:
        """Learn a formula from the binarized training data as a packed context.

        The data path of ``fit`` hands every learner a :class:`FormalContext` (one bit per row
        and attribute); a learner that reads counts (:mod:`logicrules.fca.counts`) or packed
        bits overrides this. The default unpacks it for :meth:`_fit_formula`, after checking
        that the dense copy fits ``memory_limit``.
        """
        self._budget.require(context.n_objects * context.n_attributes,
                             f"the dense boolean copy of the binarized data that "
                             f"{type(self).__name__} learns from "
                             f"({context.n_objects} rows x {context.n_attributes} attributes)",
                             "use fewer rows or a binarizer with fewer attributes")
        return self._fit_weighted(context.to_dense(), y, list(context.attributes), weights)

    @_fit_context(prefer_skip_nested_validation=False)  # a user's binarizer is validated too
    def fit(self, X, y, sample_weight=None):
        """Binarize X, learn the rule and return self.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Raw features (numeric, categorical, missing values as NaN) for a binarizer, or a 0/1
            matrix with ``binarizer="passthrough"``.
        y : array-like of shape (n_samples,)
            Target with two or more distinct labels. With more than two, one rule is learned
            per class (that class against all others, each by a copy of this learner on the
            binarized rows, kept in ``estimators_``): ``formula_`` is then a dict class ->
            formula, and ``predict`` the most probable class (see :meth:`predict`).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights: every count the learner makes (and the binarizer's
            thresholds) is weighted, so integer weights act as repeating rows; rows of weight 0
            are left out. The weights must sum to at most 1e100 and the largest be at least
            1e-100 (weighted counts are squared and logged).

        Returns
        -------
        self
        """
        if is_dask_collection(X):
            return self._fit_dask(X, y, sample_weight)
        X, target, weights = self._validate_training_data(X, y, sample_weight)
        self._budget = MemoryBudget(getattr(self, "memory_limit", None))
        context = self._fit_binarizer(X, weights)
        if self._is_multiclass():
            self._fit_multiclass(context, target, weights)
            return self
        formula = self._fit_packed(context, target, weights)
        self._finish_fit(formula, list(context.attributes), context, target, weights)
        return self

    def _fit_dask(self, X, y, sample_weight=None):
        """``fit`` on a dask collection X (a learner that fits from dask partitions overrides
        this, see :mod:`logicrules.dask_fit`); by default a TypeError saying what to do."""
        check_not_dask(X=X, y=y, sample_weight=sample_weight)

    def _is_multiclass(self) -> bool:
        return len(self.classes_) > 2

    def _fit_multiclass(self, context: FormalContext, target: np.ndarray, weights: np.ndarray | None) -> None:
        """More than two classes (``target`` the class indices): one rule per class by default; a
        learner with a native multiclass form overrides this."""
        self._fit_one_vs_rest(context, target, weights)

    def _fit_one_vs_rest(self, context: FormalContext, target: np.ndarray,
                         weights: np.ndarray | None) -> None:
        """One rule per class, each learned for that class against all others (its own fitted
        copy of this learner on the binarized rows, in ``estimators_``)."""
        names = [str(a) for a in context.attributes]
        frame = pd.DataFrame(context.to_dense(), columns=names)
        own = self.get_params(deep=False)
        params = {k: v for k, v in (("binarizer", "passthrough"), ("pos_label", True), ("categorical", None),
                                    ("verbose", 0)) if k in own}
        class_weight = own.get("class_weight")
        if isinstance(class_weight, dict):  # costs per class become row weights of the per-class rules
            unknown = set(class_weight) - set(self.classes_.tolist())
            if unknown:
                raise ValueError(f"class_weight has labels not in y: {sorted(map(str, unknown))}; "
                                 f"the classes are {self.classes_.tolist()}")
            costs = np.array([float(class_weight.get(c, 1.0)) for c in self.classes_.tolist()])
            weights = costs[target] if weights is None else weights * costs[target]
            params["class_weight"] = None
        fit_weight = {} if weights is None else {"sample_weight": weights}
        conditions = self._conditions()
        self.estimators_ = {}
        with progress_bar(len(self.classes_), "one rule per class", getattr(self, "verbose", 0)) as bar:
            for k, label in enumerate(self.classes_.tolist()):
                sub = clone(self).set_params(**params)
                sub.fit(frame, target == k, **fit_weight)
                if conditions:  # the class's rule simplified on the binarizer's domain, as a binary rule
                    sub._finish_fit(sub.raw_formula_, names, context, target == k, weights, conditions)
                self.estimators_[label] = sub
                bar.update()
        self.__dict__.pop("_budget", None)  # the fit's memory budget ends with the fit
        self.attribute_names_ = list(names)
        self.raw_formula_ = {label: sub.raw_formula_ for label, sub in self.estimators_.items()}
        self.formula_ = {label: sub.formula_ for label, sub in self.estimators_.items()}
        self.rules_ = self._per_class(lambda label: self.estimators_[label].rules_)

    def _per_class(self, frame_of) -> pd.DataFrame:
        """Concatenate the frames ``frame_of(label)`` of every class's rule, with a ``class`` column."""
        frames = []
        for label in self.formula_:
            frame = frame_of(label).copy()
            frame.insert(0, "class", [label] * len(frame))
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def _fit_weighted(self, Xb: np.ndarray, y: np.ndarray, names: list[str],
                      weights: np.ndarray | None) -> Formula:
        """:meth:`_fit_formula`, passing ``sample_weight`` only when there are weights."""
        if weights is None:
            return self._fit_formula(Xb, y, names)
        if "sample_weight" not in inspect.signature(self._fit_formula).parameters:
            raise TypeError(f"{type(self).__name__} does not support sample_weight")
        return self._fit_formula(Xb, y, names, sample_weight=weights)

    def _resolve_pos_label(self) -> Any:
        """``pos_label_`` from the ``pos_label`` parameter (None: ``classes_[1]``)."""
        pos_label = getattr(self, "pos_label", None)
        if pos_label is None:
            return self.classes_[-1]
        matches = [j for j, c in enumerate(self.classes_.tolist()) if c == pos_label]
        if not matches:
            raise ValueError(f"pos_label={pos_label!r} is not a class of y; the classes are "
                             f"{self.classes_.tolist()}")
        return self.classes_[matches[0]]

    def _binary_labels(self) -> np.ndarray:
        """``[negative class, positive class]``: the label predicted where the rule fails / holds."""
        negative = self.classes_[0] if self.classes_[1] == self.pos_label_ else self.classes_[1]
        return np.array([negative, self.pos_label_], dtype=self.classes_.dtype)

    def _validate_training_data(self, X, y, sample_weight=None) -> tuple[Any, np.ndarray, np.ndarray | None]:
        """Check X, y and the weights, set ``classes_``, ``n_features_in_``, ``feature_names_in_``.

        Returns X (a DataFrame stays a DataFrame, anything else becomes a 2-D array), the
        target (for two classes the boolean ``y == pos_label_``, for more the class index of
        every row) and the float weights (None without weights); rows of weight 0 are removed
        from all three.
        """
        check_not_dask(X=X, y=y, sample_weight=sample_weight)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        _check_no_missing_labels(y)
        X = self._check_X(X, reset=True)
        y = column_or_1d(check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=False), warn=True)
        if len(y) != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)} entries")
        check_classification_targets(y)
        weights = None
        if sample_weight is not None:
            weights = _check_sample_weight(sample_weight, np.empty((len(y), 0)), ensure_non_negative=True)
            if weights.sum() > _WEIGHT_BOUNDS[1] or 0 < weights.max() < _WEIGHT_BOUNDS[0]:
                # weighted counts are multiplied, squared and logged: they must stay normal floats
                raise ValueError(f"sample_weight must sum to at most {_WEIGHT_BOUNDS[1]:.0e} with a largest "
                                 f"weight of at least {_WEIGHT_BOUNDS[0]:.0e} (got sum {weights.sum():.3g}, "
                                 f"largest {weights.max():.3g}); multiply or divide the weights by a constant")
            if not (weights > 0).all():
                keep = np.flatnonzero(weights > 0)
                X = X.iloc[keep] if hasattr(X, "iloc") else X[keep]
                y, weights = y[keep], weights[keep]
        self.classes_ = np.unique(y)
        if len(self.classes_) == 1:
            raise ValueError(
                f"y contains one class only ({self.classes_[0]}); {type(self).__name__} needs "
                "at least two classes to learn a rule"
            )
        if len(self.classes_) > 2:
            if getattr(self, "pos_label", None) is not None:
                raise ValueError(f"pos_label={self.pos_label!r} names the class of a two-class rule, but y "
                                 f"has {len(self.classes_)} classes (one rule per class is learned); "
                                 "leave pos_label=None, or binarize y yourself (y == label)")
            return X, np.searchsorted(self.classes_, y), weights
        self.pos_label_ = self._resolve_pos_label()
        return X, np.asarray(y == self.pos_label_), weights

    def _check_X(self, X, *, reset: bool):
        """Validate X's shape and column names without destroying categorical columns."""
        if hasattr(X, "iloc"):
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got a {type(X).__name__} with {X.ndim} dimension(s)")
            validate_data(self, X, reset=reset, skip_check_array=True)
            if X.shape[0] == 0:
                raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
            return X
        X = check_array(X, dtype=None, ensure_all_finite="allow-nan", ensure_min_samples=1)
        validate_data(self, X, reset=reset, skip_check_array=True)
        return X

    def _fit_binarizer(self, X, weights: np.ndarray | None = None) -> FormalContext:
        """Fit ``binarizer_`` on X (weighted when it accepts ``sample_weight``) and return the
        binarized data as a packed context.

        The data is binarized chunk by chunk straight into packed bits, so beyond the raw input
        the fit holds about one bit per row and attribute plus one chunk of booleans. The
        learner's ``memory_limit`` (when it has one) is set up here as ``self._budget``.
        """
        if getattr(self, "_budget", None) is None:
            self._budget = MemoryBudget(getattr(self, "memory_limit", None))
        binarizer = getattr(self, "binarizer", self._binarizer_default)
        self.binarizer_ = make_binarizer(binarizer, categorical=getattr(self, "categorical", None))
        n, n_columns = X.shape
        if self.binarizer_ is None:
            names = self._input_names()
            self._budget.require(n * n_columns / 8, "the packed 0/1 input", "use fewer rows or columns")
            rows = self._budget.rows_per_chunk(9 * n_columns, fixed=n * n_columns / 8)
            self._budget.hold(n * n_columns / 8)
            return pack_boolean_rows(X, names, rows)
        # the binarizer's fit works one column at a time (copies, a sort or a selection, row
        # keys: about 64 bytes per row) and marks missing values (one byte per cell)
        self._budget.require(n * (64 + n_columns), f"fitting {type(self.binarizer_).__name__} "
                             f"({n} rows x {n_columns} columns)", "use fewer rows")
        if weights is not None and has_fit_parameter(self.binarizer_, "sample_weight"):
            self.binarizer_.fit(X, sample_weight=weights)
        else:
            self.binarizer_.fit(X)
        return self._binarize_context(X)

    def _binarize_context(self, X) -> FormalContext:
        """X binarized by the fitted ``binarizer_`` into a packed context, chunk by chunk (the
        packed bits are held in the fit's memory budget)."""
        n, n_columns = X.shape
        if not hasattr(self.binarizer_, "transform_packed"):  # a user's transformer: dense output
            Xb = np.asarray(self.binarizer_.transform(X), dtype=bool)
            names = [str(name) for name in self.binarizer_.get_feature_names_out()]
            return FormalContext.from_bits(bitset.pack_columns(Xb), n, names)
        m = len(self.binarizer_.conditions_)
        packed = n * m / 8
        self._budget.require(packed, f"the binarized data ({n} rows x {m} attributes, one bit each)",
                             "use fewer rows or a binarizer with fewer attributes")
        # per chunk row: its booleans, the raw values and pandas' temporaries
        rows = self._budget.rows_per_chunk(2 * m + 32 * n_columns, fixed=packed)
        self._budget.hold(packed)
        return self.binarizer_.transform_context(X, chunk_rows=rows)

    def _conditions(self) -> dict[str, Any]:
        """Attribute name -> Condition of the fitted binarizer (empty for passthrough)."""
        conditions = getattr(self.binarizer_, "conditions_", None) if self.binarizer_ is not None else None
        return {c.name: c for c in conditions or ()}

    def _input_names(self) -> list[str]:
        """Input column names: ``feature_names_in_``, or ``x0, x1, ...`` for arrays."""
        if hasattr(self, "feature_names_in_"):
            return [str(c) for c in self.feature_names_in_]
        return [f"x{j}" for j in range(self.n_features_in_)]

    def _finish_fit(self, formula: Formula, names: list[str], Xb: np.ndarray | FormalContext,
                    y: np.ndarray, weights: np.ndarray | None = None,
                    conditions: dict[str, Any] | None = None,
                    row_counts: np.ndarray | None = None) -> None:
        """Store the learned formula and its training statistics (``Xb`` dense or packed).

        ``conditions``: attribute name -> Condition of the literals (the fitted binarizer's when
        None); a per-class rule of a multiclass model gets its model's. ``row_counts``: how many
        identical training rows each row of ``Xb`` stands for (default one each); the cell
        counts are then weighted by ``weights`` when given (the summed weights of those rows),
        else by ``row_counts``.
        """
        if not isinstance(formula, Formula):
            raise TypeError(f"_fit_formula must return a Formula, got {type(formula).__name__}")
        unknown = {a for a in formula.attributes if a not in set(names)}
        if unknown:
            raise ValueError(f"the learned formula uses attributes unknown to the binarizer: {sorted(map(str, unknown))}")
        self.__dict__.pop("_budget", None)  # the fit's memory budget ends with the fit
        self.attribute_names_ = list(names)
        conditions = self._conditions() if conditions is None else conditions
        self.raw_formula_ = with_conditions(formula, conditions) if conditions else formula
        self.formula_ = simplify_on_domain(self.raw_formula_, order=self.attribute_names_)
        self.rules_ = self._rules_frame(Xb, y, row_counts)
        masks, sides, rest_side = self._cells(Xb)
        y_index = y.astype(np.intp)
        if row_counts is not None and weights is None:
            weights = np.asarray(row_counts, dtype=np.float64)
        counts = probability.cell_counts(masks, y_index, 2, weights)
        # the rest cell holds the rows matched by no cell on the side the rule predicts for them
        cells = probability.assign_cells(masks, sides, self._evaluate(Xb),
                                         probability.smoothed_frequencies(counts)[:, 1])
        rest = probability.cell_counts((cells == masks.shape[1])[:, None], y_index, 2, weights)
        self.cell_counts_ = np.vstack([counts, rest])
        self.cell_sides_ = np.append(sides, rest_side)

    def _cells(self, Xb: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
        """The rule's cells on binarized rows: membership (n, cells), their sides, the rest's side.

        DNF: one cell per term (positive side), the rest (no term fires) negative. CNF: one cell
        per clause, holding the rows on which it fails (negative side), the rest positive. A
        checklist (at least m of n literals): one cell where it holds, the rest negative.
        """
        kind, terms = self._terms()
        if kind == "checklist":  # one cell: the rows where at least m items hold
            masks = (self._literal_matrix(Xb, terms[0]).sum(axis=1) >= self.formula_.m)[:, None]
            return masks, np.ones(1, dtype=bool), False
        if not terms:
            return np.zeros((presentation.n_rows(Xb), 0), dtype=bool), np.zeros(0, dtype=bool), kind != "dnf"
        masks = np.column_stack([
            self._literal_matrix(Xb, term).all(axis=1) if kind == "dnf"
            else ~self._literal_matrix(Xb, term).any(axis=1)
            for term in terms])
        return masks, np.full(len(terms), kind == "dnf"), kind != "dnf"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags


def _check_no_missing_labels(y: Any) -> None:
    """Missing labels (None, NaN, pd.NA) fail here, before numpy sorts or stringifies them."""
    array = np.asarray(y) if isinstance(y, np.ndarray) else None
    if array is not None and array.dtype.kind in "biu":  # no missing value possible
        return
    if array is not None and array.dtype.kind == "f":
        missing = np.flatnonzero(np.isnan(array).reshape(-1))
    else:
        missing = np.flatnonzero(pd.isna(np.asarray(y, dtype=object)).reshape(-1))
    if missing.size:
        raise ValueError(f"y contains {missing.size} missing value(s) (None/NaN), e.g. at position(s) "
                         f"{missing[:5].tolist()}; remove those rows or give them a class")
