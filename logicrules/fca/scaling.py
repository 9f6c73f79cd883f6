"""Binarizers: turn a table of numbers and categories into named binary attributes.

Every learner of the library works on a formal context, a boolean matrix whose columns are
*attributes* such as ``age > 54.5`` or ``sex == male``. The three transformers here produce such
attributes from raw tabular data, following the scalings of the source papers:

- :class:`MedianBinarizer`: the ideal classifier method's rule, ``x > median`` per numeric
  column and one-hot ``x == v`` per category.
- :class:`QuantileBinarizer`: ``x <= t`` and ``x > t`` at quantile thresholds, ``x == v`` and
  ``x != v`` per category (the usual feature space of rule-set learners).
- :class:`ThresholdBinarizer`: all-values scaling, ``x >= v`` and ``x < v`` for every observed
  value ``v``, attributes with identical extents merged (the Myocard experiment of the
  premise-search paper).

Each output attribute is described by a :class:`Condition`, whose ``name`` is the attribute
name. Names are faithful: a threshold is printed with the shortest decimal that reads back to
exactly the float used (:func:`format_value`), and the thresholds the binarizers choose
themselves are the shortest decimals that split the fitting data the same way, so names stay
short (``age > 54.5``) without lying about the split.

Column kinds (decided at ``fit``): a bool column (numpy or pandas nullable ``boolean``), or a
numeric column whose non-missing values lie in {0, 1}, is *binary*; a string, object or category
column is *categorical* (an object column holding only numbers or only bools counts as numeric or
binary); every other numeric column is *numeric*. The ``categorical`` parameter overrides this
inference: the columns it names (by name, or by position) are categorical whatever their dtype,
so an integer code such as a chest-pain type 0-3 becomes one-hot ``cp == 0``, ..., ``cp == 3``
instead of being cut at a threshold. Missing values (NaN, None, ``pd.NA``) follow the
``missing`` parameter.

Weighted fitting: ``fit(X, sample_weight=w)`` places the median and quantile thresholds at the
weighted median and quantiles (rows of weight 0 are left out entirely), so that integer weights
give the attributes of the data with every row repeated that many times.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from logicrules.validation import Interval
from logicrules.fca.binarizer_base import _BaseBinarizer
from logicrules.fca.binarizer_transform import DEFAULT_CHUNK_ROWS  # noqa: F401
from logicrules.fca.condition import MISSING_POLICIES, OPERATORS, Condition, format_value  # noqa: F401
from logicrules.fca.thresholds import (_distinct_sorted, _median, _short_threshold, _weighted_median,
                                       _weighted_quantiles)

__all__ = [
    "Condition",
    "MedianBinarizer",
    "QuantileBinarizer",
    "ThresholdBinarizer",
    "format_value",
]

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    conditions_ : list of Condition
        One per output attribute, in output order (input column order; within a column the
        value attributes, then ``x is missing``).
    column_kinds_ : dict of str to str
        Input column name -> ``"binary"``, ``"numeric"`` or ``"categorical"``.
    categories_ : dict of str to list
        Categorical input column -> its categories seen at fit, sorted.
    dropped_ : dict of str to str
        Input column -> why it yields no attribute (constant, all values missing, ...).
    redundant_ : dict of str to str
        Candidate attribute name -> why it was left out (constant on the fitting data, or the
        same extent as an earlier attribute).
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names; only set when X was a DataFrame with string column names.
"""


class MedianBinarizer(_BaseBinarizer):
    """Binarize at the median: the booleanization of the ideal classifier method.

    A numeric column gives one attribute ``x > t`` where ``t`` is the median of the fitting
    data (missing values ignored), cleaned of float noise: the shortest decimal in
    ``[median, median + (next larger value - median) / 100]``, so ``t`` splits the fitting data
    exactly like the median (an average of 0.1 and 0.7 prints as 0.4, not
    0.39999999999999997). A binary (0/1 or bool)
    column gives one attribute named after the column; a categorical column gives one-hot
    ``x == v`` for every observed category. A column whose median equals its maximum (a skewed
    or two-valued column such as a 1/2 code with mostly 2s) would give an always-false
    ``x > median``; it gets ``x >= median`` instead, the same median cut with the ties on the
    other side. A column with one value only is dropped and the reason recorded in ``dropped_``.

    Parameters
    ----------
    missing : {"error", "false", "indicator"}, default="error"
        ``"error"``: a missing value raises ValueError (at fit and transform) naming the
        columns; ``"false"``: a missing value makes every attribute of its column false;
        ``"indicator"``: as ``"false"``, plus an ``x is missing`` attribute for each column that
        had missing values at fit.
    categorical : list of str or int, optional
        Columns (names, or positions) made one-hot ``x == v`` whatever their dtype (e.g.
        integer-coded categories); the others follow the dtype inference (module notes).
    {attributes}
    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [40, 50, 60, 70], "sex": ["male", "female", "male", "male"]})
    >>> MedianBinarizer().fit(X).get_feature_names_out().tolist()
    ['age > 55', 'sex == female', 'sex == male']
    """

    _median_thresholds = True

    def __init__(self, *, missing: str = "error", categorical: Any = None) -> None:
        self.missing = missing
        self.categorical = categorical

    def _threshold_conditions(
        self, column: str, present: np.ndarray, weights: np.ndarray | None = None,
    ) -> tuple[list[Condition], str | None]:
        # a selection (O(n)), no sort
        median = _median(present) if weights is None else _weighted_median(present, weights)
        above = present[present > median]
        return self._median_conditions(column, median, float(above.min()) if above.size else None)

    @staticmethod
    def _median_conditions(column: str, median: float, above: float | None
                           ) -> tuple[list[Condition], str | None]:
        """The attribute of a median cut, ``above`` the smallest value above the median."""
        if above is None:  # median = maximum: lower values, or missing ones, make it false
            return [Condition(column, ">=", median)], None
        return [Condition(column, ">", _short_threshold(median, above, near_low=True))], None


MedianBinarizer.__doc__ = MedianBinarizer.__doc__.replace("{attributes}", _ATTRIBUTES_DOC)


class QuantileBinarizer(_BaseBinarizer):
    """Binarize at quantile thresholds, with optional negations.

    A numeric column gives ``x <= t`` and (with ``negations``) ``x > t`` for up to
    ``n_thresholds`` thresholds. With at most ``n_thresholds + 1`` distinct values, a threshold
    is placed between every two consecutive distinct values; otherwise at the quantiles
    ``1/(n+1), ..., n/(n+1)`` of the fitting data, each moved to the gap between the two distinct
    values around it (so no fitting value lies on a threshold) and duplicates removed. Each
    threshold is the shortest decimal within the middle half of its gap, nearest to the gap's
    midpoint (``54.5`` between 54 and 55, ``0.26`` between 0.2513 and 0.2687, ``50`` between
    40 and 54), so names are short and the printed number is exactly the threshold used. A
    categorical column gives ``x == v`` and (with ``negations``) ``x != v`` for every observed
    category; a binary column one attribute named after the column.

    Parameters
    ----------
    n_thresholds : int, default=9
        Maximum number of thresholds per numeric column.
    negations : bool, default=True
        Also emit ``x > t`` and ``x != v``. Note that under ``missing="false"`` a missing value
        makes both ``x <= t`` and ``x > t`` (both ``x == v`` and ``x != v``) false.
    missing : {"error", "false", "indicator"}, default="false"
        See :class:`MedianBinarizer`.
    categorical : list of str or int, optional
        Columns (names, or positions) made one-hot ``x == v`` whatever their dtype (e.g.
        integer-coded categories); the others follow the dtype inference (module notes).
    {attributes}
    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [40, 50, 60], "sex": ["male", "female", "male"]})
    >>> names = QuantileBinarizer().fit(X).get_feature_names_out().tolist()
    >>> names[:4]
    ['age <= 45', 'age > 45', 'age <= 55', 'age > 55']
    >>> names[4:]
    ['sex == female', 'sex != female', 'sex == male', 'sex != male']
    """

    _parameter_constraints: dict = {
        **_BaseBinarizer._parameter_constraints,
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "negations": ["boolean"],
    }

    def __init__(
        self, *, n_thresholds: int = 9, negations: bool = True, missing: str = "false",
        categorical: Any = None,
    ) -> None:
        self.n_thresholds = n_thresholds
        self.negations = negations
        self.missing = missing
        self.categorical = categorical

    def _negations(self) -> bool:
        return bool(self.negations)

    def _threshold_conditions(
        self, column: str, present: np.ndarray, weights: np.ndarray | None = None,
    ) -> tuple[list[Condition], str | None]:
        distinct = _distinct_sorted(present)
        if distinct.size <= self.n_thresholds + 1:
            gaps = np.arange(distinct.size - 1)
        else:
            levels = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
            quantiles = (np.quantile(present, levels) if weights is None
                         else _weighted_quantiles(present, weights, levels))
            gaps = np.searchsorted(distinct, quantiles, side="right") - 1
            gaps = np.unique(gaps[gaps < distinct.size - 1])
        pairs = [(float(distinct[gap]), float(distinct[gap + 1])) for gap in gaps]
        return self._gap_conditions(column, pairs), None

    def _gap_conditions(self, column: str, gaps: list[tuple[float, float]]) -> list[Condition]:
        """``x <= t`` (and ``x > t``) for a short ``t`` in each gap ``(lo, hi)`` between two
        consecutive distinct values."""
        conditions = []
        for lo, hi in gaps:
            threshold = _short_threshold(lo, hi, near_low=False)
            conditions.append(Condition(column, "<=", threshold))
            if self.negations:
                conditions.append(Condition(column, ">", threshold))
        return conditions


QuantileBinarizer.__doc__ = QuantileBinarizer.__doc__.replace("{attributes}", _ATTRIBUTES_DOC)


class ThresholdBinarizer(_BaseBinarizer):
    """All-values scaling: ``x >= v`` and ``x < v`` for every observed value ``v``.

    This is the scaling of the Myocard experiment in the premise-search paper. Every numeric
    column, 0/1 and bool columns included (as 0/1: ``x >= 1`` and ``x < 1``, which under
    missing values are not complements of each other), gives ``x >= v`` and ``x < v`` for each
    distinct non-missing value ``v`` of the fitting data, in increasing ``v``; a categorical
    column gives ``x == v`` and ``x != v`` per category. Then attributes whose extents on the
    fitting data are identical are merged, keeping the first in output order (the kept name is
    recorded in ``redundant_`` for every merged one); duplicates are merged across columns too.

    Constant attributes (``x < min`` is always false; ``x >= min`` is always true when the
    column has no missing value) are, by default, merged like any duplicate, so the output keeps
    one always-false and one always-true attribute when the data has them. This reproduces the
    attribute count of the paper: on Myocard (111 input columns, missing values false in both
    ``>=`` and ``<``), 1752 candidate attributes give 1587 distinct extents, the empty and the full
    extent included. With ``drop_constant=True`` those are removed too (1585 on Myocard).

    Parameters
    ----------
    missing : {"error", "false", "indicator"}, default="false"
        See :class:`MedianBinarizer`. Under ``"false"`` (the paper's choice) a missing value
        makes both ``x >= v`` and ``x < v`` false.
    drop_constant : bool, default=False
        Remove attributes constant on the fitting data instead of keeping one representative of
        each constant extent.
    categorical : list of str or int, optional
        Columns (names, or positions) made one-hot ``x == v`` whatever their dtype (e.g.
        integer-coded categories); the others follow the dtype inference (module notes).
    max_values : int or None, default=2000
        Most distinct values a numeric column may have (it yields two attributes per value).
        A column with more is refused at ``fit`` with a ValueError naming it, before anything
        of its size is allocated; ``None`` lifts the cap. Fitting costs one sort per column
        (O(n log n)) whatever the number of values; the binarized output holds
        ``2 x values`` attributes per column, one bit per row each.
    {attributes}
    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [40.0, 50.0, None], "sex": ["m", "f", "m"]})
    >>> ThresholdBinarizer(drop_constant=True).fit(X).get_feature_names_out().tolist()
    ['age >= 40', 'age >= 50', 'age < 50', 'sex != f']
    """

    _binary_as_single = False
    _merge_duplicates = True

    _parameter_constraints: dict = {
        **_BaseBinarizer._parameter_constraints,
        "drop_constant": ["boolean"],
        "max_values": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, *, missing: str = "false", drop_constant: bool = False,
                 categorical: Any = None, max_values: int | None = 2000) -> None:
        self.missing = missing
        self.drop_constant = drop_constant
        self.categorical = categorical
        self.max_values = max_values

    def _drop_constant(self) -> bool:
        return bool(self.drop_constant)

    def _negations(self) -> bool:
        return True

    def _threshold_conditions(
        self, column: str, present: np.ndarray, weights: np.ndarray | None = None,
    ) -> tuple[list[Condition], str | None]:
        distinct = _distinct_sorted(present)
        if self.max_values is not None and distinct.size > self.max_values:
            raise ValueError(
                f"column {column!r} has {distinct.size} distinct values; the all-values scaling "
                f"would make {2 * distinct.size} attributes of it (limit max_values="
                f"{self.max_values}); pass max_values=None to allow it, round the column, or use "
                "QuantileBinarizer for a few thresholds per column"
            )
        conditions = []
        for value in distinct.tolist():
            conditions.append(Condition(column, ">=", value))
            conditions.append(Condition(column, "<", value))
        return conditions, None


ThresholdBinarizer.__doc__ = ThresholdBinarizer.__doc__.replace("{attributes}", _ATTRIBUTES_DOC)
