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

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal, localcontext
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from logicrules.validation import Interval
from logicrules.fca import bitset
from logicrules.fca.signatures import exact_duplicates, row_keys, signatures

__all__ = [
    "Condition",
    "MedianBinarizer",
    "QuantileBinarizer",
    "ThresholdBinarizer",
    "format_value",
]

#: Operators a :class:`Condition` may use.
OPERATORS = (">", "<=", ">=", "<", "==", "!=", "is missing", "is true")
#: Rows binarized at once by :meth:`transform_packed` unless told otherwise.
DEFAULT_CHUNK_ROWS = 1 << 16
#: Values of the ``missing`` parameter.
MISSING_POLICIES = ("error", "false", "indicator")

_COMPARE = {
    ">": np.greater,
    "<=": np.less_equal,
    ">=": np.greater_equal,
    "<": np.less,
}
# Strings that would read like a number, a bool or a missing value when printed bare.
_RESERVED_WORDS = frozenset({"", "True", "False", "None", "nan", "NaN", "<NA>", "NA", "NaT"})


def format_value(value: Any) -> str:
    """Print a threshold or category value compactly and faithfully.

    Floats get the shortest decimal that reads back to exactly the same float (Python's
    ``repr``), without a trailing ``.0`` for whole numbers; so ``float(format_value(t)) == t``
    for every finite float and two different thresholds never print alike.

    Parameters
    ----------
    value : float, int, bool, str or other
        The value to print.

    Returns
    -------
    str
        ``54.5``, ``0.26``, ``3`` (not ``3.0``), ``1e-05``, ``True``; strings are returned as is.

    Examples
    --------
    >>> format_value(54.5), format_value(3.0), format_value(1e-05), format_value("male")
    ('54.5', '3', '1e-05', 'male')
    """
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (Integral, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    return str(value)


def _format_category(value: Any) -> str:
    """Print a category value; quote strings that would otherwise read as another value."""
    if isinstance(value, str):
        if value in _RESERVED_WORDS or value != value.strip() or _parses_as_float(value):
            return repr(value)
        return value
    return format_value(value)


def _parses_as_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Condition:
    """One binary attribute made from one input column, e.g. ``age > 54.5``.

    Parameters
    ----------
    column : str
        Name of the input column.
    op : str
        One of ``">"``, ``"<="``, ``">="``, ``"<"`` (numeric thresholds), ``"=="``, ``"!="``
        (categories), ``"is missing"`` (missing-value indicator), ``"is true"`` (a 0/1 or bool
        column: true when the value equals 1 / True).
    value : float, str or None
        The threshold (float) or the category (as found in the data, usually a str); None for
        ``"is missing"`` and ``"is true"``.
    missing : {"error", "false", "indicator"}, default "false"
        The missing-value policy of the binarizer that made the condition: under ``"error"`` a
        missing value never reaches it (transform raises); under ``"false"`` and
        ``"indicator"`` a missing value may occur and makes the condition false (so its
        negation true).

    Notes
    -----
    Under every operator except ``"is missing"`` a missing value makes the condition false.
    ``"x != v"`` is true for a category never seen at fit (it differs from ``v``). A value
    equals a category when it is equal, or, failing that, when both read the same (``1``,
    ``1.0`` and ``"1"``; see :meth:`MedianBinarizer.transform`).
    The policy does not change the name; :mod:`logicrules.conditions` uses it to print
    negations honestly (``x > 2.5 or missing``) and to know which rows a binarizer can produce.

    Examples
    --------
    >>> Condition("age", ">", 54.5).name
    'age > 54.5'
    >>> Condition("sex", "==", "male").name, Condition("x", "is missing").name
    ('sex == male', 'x is missing')
    >>> Condition("smoker", "is true").name
    'smoker'
    """

    column: str
    op: str
    value: Any = None
    missing: str = "false"

    def __post_init__(self) -> None:
        if self.missing not in MISSING_POLICIES:
            raise ValueError(f"missing must be one of {MISSING_POLICIES}, got {self.missing!r}")
        if self.op not in OPERATORS:
            raise ValueError(f"unknown operator {self.op!r}; use one of {OPERATORS}")
        if self.op in ("is missing", "is true") and self.value is not None:
            raise ValueError(f"operator {self.op!r} takes no value, got {self.value!r}")
        if self.op in _COMPARE and not isinstance(self.value, (float, int, np.number)):
            raise TypeError(f"operator {self.op!r} needs a numeric threshold, got {self.value!r}")

    @property
    def name(self) -> str:
        """Readable name: ``age > 54.5``, ``sex == male``, ``x is missing``, ``smoker``."""
        if self.op == "is true":
            return self.column
        if self.op == "is missing":
            return f"{self.column} is missing"
        if self.op in ("==", "!="):
            return f"{self.column} {self.op} {_format_category(self.value)}"
        return f"{self.column} {self.op} {format_value(self.value)}"

    def __str__(self) -> str:
        return self.name


def _short_threshold(lo: float, hi: float, *, near_low: bool) -> float:
    """A threshold with few digits that splits like any t in [lo, hi) (lo < t < hi when possible).

    ``near_low=False`` (a gap between two distinct values): the shortest decimal within the
    middle half of the open gap (lo, hi), nearest to its midpoint. ``near_low=True`` (a median):
    the shortest decimal in [lo, lo + (hi - lo) / 100], i.e. lo itself up to float noise
    (``0.39999999999999997`` becomes ``0.4``). Falls back to ``lo``, always a valid split for
    ``x <= t`` / ``x > t``, when no float lies in the window.
    """
    if near_low:
        # nearest first: the float nearest a short decimal may lie just below that decimal
        target, window, roundings = lo, hi / 100 - lo / 100, (ROUND_HALF_EVEN, ROUND_CEILING)
    else:
        target, window, roundings = lo / 2 + hi / 2, hi / 4 - lo / 4, (ROUND_HALF_EVEN,)
    if window <= 0:
        return lo
    exact = Decimal(target)
    start = -math.floor(math.log10(max(abs(lo), abs(hi)))) - 1  # coarsest: one digit
    with localcontext() as ctx:
        ctx.prec = 800
        for digits in range(start, start + 40):
            for rounding in roundings:
                candidate = float(exact.quantize(Decimal(1).scaleb(-digits), rounding=rounding))
                inside = lo <= candidate if near_low else lo < candidate
                if inside and candidate < hi and abs(candidate - target) <= window:
                    return candidate
    return lo


def _median(values: np.ndarray) -> float:
    """``np.median`` of finite values, without overflow near the float limits (1e308)."""
    with np.errstate(over="ignore"):
        median = float(np.median(values))
    if math.isfinite(median):
        return median
    middle = np.partition(values, [(values.size - 1) // 2, values.size // 2])
    lo, hi = float(middle[(values.size - 1) // 2]), float(middle[values.size // 2])
    return lo / 2 + hi / 2


# --------------------------------------------------------------------------------------------
# Weighted order statistics (integer weights: those of the data with repeated rows)


def _weighted_sorted(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct sorted values and the cumulative weight up to each of them."""
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, np.cumsum(np.bincount(inverse.reshape(-1), weights=weights, minlength=distinct.size))


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """``np.median`` of the values, each repeated ``weight`` times (any weights > 0).

    The mean of the lower median (first value whose cumulative weight reaches half the total)
    and the upper median (first value whose cumulative weight passes it), as ``np.median``
    averages the two middle elements of an even number of values.

    Examples
    --------
    >>> _weighted_median(np.array([1.0, 2.0, 5.0]), np.array([1.0, 1.0, 2.0]))
    3.5
    """
    distinct, cum = _weighted_sorted(values, weights)
    half = cum[-1] / 2
    lower = distinct[min(np.searchsorted(cum, half, side="left"), distinct.size - 1)]
    upper = distinct[min(np.searchsorted(cum, half, side="right"), distinct.size - 1)]
    return _median(np.array([lower, upper]))


def _weighted_quantiles(values: np.ndarray, weights: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``np.quantile(..., method="linear")`` of the values each repeated ``weight`` times.

    Element ``i`` of the repeated sorted sample is the first value whose cumulative weight
    exceeds ``i``; the quantile at level ``q`` interpolates linearly at position
    ``(total - 1) q`` as NumPy does.

    Examples
    --------
    >>> _weighted_quantiles(np.array([1.0, 2.0, 5.0]), np.array([1.0, 1.0, 2.0]), np.array([0.5]))
    array([3.5])
    """
    distinct, cum = _weighted_sorted(values, weights)
    position = (cum[-1] - 1) * np.asarray(levels, dtype=np.float64)
    below = np.floor(position)

    def at(i):
        return distinct[np.minimum(np.searchsorted(cum, i, side="right"), distinct.size - 1)]

    a, b, t = at(below), at(below + 1), position - below
    diff = b - a  # NumPy's _lerp: exact at both ends
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


# --------------------------------------------------------------------------------------------
# Input handling


def _distinct_sorted(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (one sort, like ``np.unique``)."""
    ordered = np.sort(values)
    if ordered.size == 0:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


def _empty_message(kind: str, shape: tuple[int, int], name: str) -> str:
    return (
        f"Found array with 0 {kind}(s) (shape={shape}) while a minimum of 1 is required by {name}."
    )


def _column_to_float(series: pd.Series, column: str) -> np.ndarray:
    """Float values of a numeric, bool or number-holding object column (missing -> NaN)."""
    if pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_numeric_dtype(series.dtype):
        if pd.api.types.is_complex_dtype(series.dtype):
            raise ValueError(f"Complex data not supported (column {column!r})")
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    try:
        return np.asarray(series.to_numpy(dtype=object, na_value=np.nan), dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"column {column!r} was numeric when the binarizer was fitted, "
            f"but now holds non-numeric values (dtype {series.dtype})"
        ) from None


def _column_kind(series: pd.Series, column: str) -> str:
    """'binary', 'numeric' or 'categorical' from the dtype (before looking at 0/1 values)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pd.api.types.is_bool_dtype(dtype):
        return "binary"
    if pd.api.types.is_complex_dtype(dtype):
        raise ValueError(f"Complex data not supported (column {column!r})")
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    if pd.api.types.is_string_dtype(dtype) and dtype != object:
        return "categorical"
    if dtype == object:
        inferred = pd.api.types.infer_dtype(series, skipna=True)
        if inferred == "boolean":
            return "binary"
        if inferred in ("integer", "floating", "mixed-integer-float", "decimal", "empty"):
            return "numeric"
        if inferred == "complex":
            raise ValueError(f"Complex data not supported (column {column!r})")
        return "categorical"
    raise TypeError(
        f"column {column!r} has dtype {dtype}, which the binarizers do not support; "
        "convert it to numbers, bools, strings or a category first"
    )


def _sorted_categories(series: pd.Series, column: str) -> list[Any]:
    """Observed non-missing categories in a stable sorted order."""
    present = series[~series.isna()]
    if isinstance(series.dtype, pd.CategoricalDtype):
        observed = set(present.cat.codes.to_numpy().tolist())
        categories = series.cat.categories.tolist()
        return [cat for code, cat in enumerate(categories) if code in observed]
    try:
        values = pd.unique(present.astype(object).to_numpy())
    except TypeError as error:
        raise TypeError(
            f"column {column!r}: categorical values must be hashable (strings, numbers, bools): "
            f"{error}"
        ) from None
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, str(v)))


def _category_text(value: Any) -> str:
    """How a category reads, whatever its type: 1, 1.0, "1" and " 1 " all read "1".

    It depends on ``str(value)`` alone (``_category_text(v) == _category_text(str(v))``).
    """
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (Integral, np.integer, float, np.floating)):
        return format_value(value)
    text = str(value).strip()
    for parse in (int, float):
        try:
            return format_value(parse(text))
        except (ValueError, OverflowError):
            continue
    return text


def _category_codes(series: pd.Series, categories: pd.Index, missing: np.ndarray) -> np.ndarray:
    """Position in ``categories`` of every value of ``series`` (-1: missing or unseen).

    A value is first matched exactly; a value with no exact match is matched by its text
    (:func:`_category_text`) to the one category that reads the same, so a column read as
    strings at fit ("1", "2", "?") and as numbers at transform (1, 2) keeps its categories.
    Texts that several fitted categories share (``"1"`` and ``1`` both seen at fit) match
    nothing beyond their exact values.
    """
    values = pd.Index(series.astype(object).tolist(), dtype=object, tupleize_cols=False)
    codes = categories.get_indexer(values)
    unmatched = (codes < 0) & ~missing
    if unmatched.any():
        texts = pd.Series([_category_text(c) for c in categories], dtype=object)
        unique = texts[~texts.duplicated(keep=False)]
        by_text = dict(zip(unique.tolist(), unique.index.tolist()))
        raw = values[unmatched].astype(str)  # a value reads as its str() reads
        distinct = pd.Index(raw.unique())
        found = np.array([by_text.get(_category_text(text), -1) for text in distinct], dtype=codes.dtype)
        codes[unmatched] = found[distinct.get_indexer(raw)]
    return codes


# --------------------------------------------------------------------------------------------
# The shared transformer


class _BaseBinarizer(TransformerMixin, BaseEstimator):
    """Fit/transform machinery shared by the binarizers.

    Subclasses decide the thresholds of a numeric column (:meth:`_threshold_conditions`),
    whether categories get negations, and whether attributes with identical extents are merged
    (``_merge_duplicates``) or constant ones kept; evaluation of the conditions, validation,
    missing values and bookkeeping live here.
    """

    # Whether 0/1 and bool columns become a single "is true" attribute (else: numeric scaling).
    _binary_as_single = True
    # Whether attributes whose extent on the fitting data repeats an earlier one are left out.
    _merge_duplicates = False

    def _drop_constant(self) -> bool:
        return True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = getattr(self, "missing", "error") != "error"
        tags.input_tags.string = True
        tags.transformer_tags.preserves_dtype = []
        return tags

    # ---- parameters and input -------------------------------------------------------------

    _parameter_constraints: dict = {
        "missing": [StrOptions(set(MISSING_POLICIES))],
        "categorical": [list, tuple, np.ndarray, None],
    }

    def _categorical_columns(self, columns: list[str]) -> set[str]:
        """The column names that ``categorical`` (names or positions) declares categorical."""
        spec = getattr(self, "categorical", None)
        if spec is None:
            return set()
        chosen = set()
        for entry in list(spec):
            if isinstance(entry, (Integral, np.integer)) and not isinstance(entry, (bool, np.bool_)):
                if not 0 <= int(entry) < len(columns):
                    raise ValueError(f"categorical: column position {int(entry)} is out of range "
                                     f"(X has {len(columns)} columns)")
                chosen.add(columns[int(entry)])
            elif isinstance(entry, str):
                if entry not in columns:
                    raise ValueError(f"categorical: {entry!r} is not a column of X; the columns are "
                                     f"{columns[:10]}{' ...' if len(columns) > 10 else ''}")
                chosen.add(entry)
            else:
                raise TypeError(f"categorical must list column names or positions, got {entry!r}")
        return chosen

    def _as_frame(self, X: Any, *, reset: bool) -> pd.DataFrame:
        """Validate X and return it as a DataFrame whose columns carry the fitted names."""
        name = type(self).__name__
        if sparse.issparse(X):
            raise TypeError(
                f"{name} does not accept sparse input; convert it with X.toarray() first"
            )
        if isinstance(X, pd.Series):
            raise ValueError(
                "Expected a 2D table, got a pandas Series. Reshape your data either using "
                "series.to_frame() if it is a single feature or a one-row DataFrame if it is a "
                "single sample."
            )
        if isinstance(X, pd.DataFrame):
            data = X
            if data.columns.has_duplicates:
                dup = sorted({str(c) for c in data.columns[data.columns.duplicated()]})
                raise ValueError(f"X has duplicated column names: {dup}")
        else:
            array = np.asarray(X)
            if array.ndim != 2:
                raise ValueError(
                    f"Expected 2D array, got {array.ndim}D array instead:\narray={array!r}.\n"
                    "Reshape your data either using array.reshape(-1, 1) if your data has a "
                    "single feature or array.reshape(1, -1) if it contains a single sample."
                )
            if np.iscomplexobj(array):
                raise ValueError("Complex data not supported")
            if array.dtype.kind in "US":
                array = array.astype(object)
            data = pd.DataFrame(array, columns=[f"x{i}" for i in range(array.shape[1])], copy=False)
            X = array
        shape = (int(data.shape[0]), int(data.shape[1]))
        if shape[0] == 0:
            raise ValueError(_empty_message("sample", shape, name))
        if shape[1] == 0:
            raise ValueError(_empty_message("feature", shape, name))
        validate_data(self, X, reset=reset, skip_check_array=True)
        if reset:
            return data.set_axis([str(c) for c in data.columns], axis=1)
        return data.set_axis(list(self.column_kinds_), axis=1)

    def _check_missing(self, data: pd.DataFrame, missing: np.ndarray) -> None:
        if self.missing == "error" and missing.any():
            self._missing_error([c for c, has in zip(data.columns, missing.any(axis=0)) if has])

    @staticmethod
    def _missing_error(columns: list[Any]) -> None:
        raise ValueError(
            f"Input contains NaN (missing values) in column(s) {[str(c) for c in columns]}; use "
            f"missing='false' or missing='indicator' to accept them"
        )

    @staticmethod
    def _check_finite(values: np.ndarray, column: str) -> None:
        if np.isinf(values).any():
            raise ValueError(f"Input contains infinity in column {column!r}")

    # ---- fit --------------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> _BaseBinarizer:
        """Learn the attributes from X (y is ignored).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Training data; DataFrame column names are kept, arrays get ``x0``, ``x1``, ...
        y : ignored
            Accepted for pipeline compatibility.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights: thresholds are placed at weighted medians / quantiles,
            and rows of weight 0 are ignored (as if absent).

        Returns
        -------
        self
        """
        data = self._as_frame(X, reset=True)
        weights = None
        if sample_weight is not None:
            weights = _check_sample_weight(sample_weight, data, ensure_non_negative=True)
        if self._fits_by_column_stats(data, weights):
            return self._fit_by_column_stats(X if isinstance(X, np.ndarray) else data, data, weights)
        if weights is not None:
            data, weights = data[weights > 0], weights[weights > 0]
            if (weights == 1.0).all():  # 0/1 weights select rows: the unweighted fit of those rows
                weights = None
        missing = data.isna().to_numpy()
        self._check_missing(data, missing)
        declared = self._categorical_columns(list(data.columns))

        kinds: dict[str, str] = {}
        categories: dict[str, list[Any]] = {}
        candidates: list[Condition] = []
        reasons: dict[str, str] = {}
        for j, column in enumerate(data.columns):
            series = data.iloc[:, j]
            kind = "categorical" if column in declared else _column_kind(series, column)
            if kind == "categorical":
                categories[column] = _sorted_categories(series, column)
                conditions, reason = self._categorical_conditions(column, categories[column])
            else:
                values = _column_to_float(series, column)
                self._check_finite(values, column)
                present = values[~np.isnan(values)]
                if kind == "numeric" and present.size and np.isin(present, (0.0, 1.0)).all():
                    kind = "binary"
                if kind == "binary" and not self._binary_as_single:
                    kind = "numeric"
                present_weights = None if weights is None else weights[~np.isnan(values)]
                conditions, reason = self._numeric_conditions(column, kind, present, present_weights)
            if self.missing == "indicator" and missing[:, j].any():
                conditions.append(Condition(column, "is missing"))
            kinds[column] = kind
            candidates.extend(conditions)
            if reason is not None:
                reasons[column] = reason
        self.column_kinds_ = kinds
        keep, redundant = self._select(data, candidates)
        return self._store(list(data.columns), candidates, keep, redundant, categories, reasons)

    def _store(self, columns: list[str], candidates: list[Condition], keep: np.ndarray,
               redundant: dict[str, str], categories: dict[str, list[Any]],
               reasons: dict[str, str]) -> _BaseBinarizer:
        """Set the fitted attributes from the kept candidates (the end of :meth:`fit`)."""
        self.redundant_ = redundant
        self.conditions_ = [replace(c, missing=self.missing) for c, k in zip(candidates, keep) if k]
        self.categories_ = categories
        self.dropped_ = self._dropped_columns(columns, candidates, keep, reasons)
        names = [c.name for c in self.conditions_]
        if len(set(names)) != len(names):
            clashes = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(
                f"attribute names {clashes} are produced by more than one column; "
                "rename the input columns so that the names stay unique"
            )
        return self

    def _categorical_conditions(
        self, column: str, categories: list[Any]
    ) -> tuple[list[Condition], str | None]:
        if not categories:
            return [], "all values missing"
        conditions = []
        for value in categories:
            conditions.append(Condition(column, "==", value))
            if self._negations():
                conditions.append(Condition(column, "!=", value))
        reason = None
        if len(categories) == 1:
            reason = f"constant: the only category is {_format_category(categories[0])}"
        return conditions, reason

    def _negations(self) -> bool:
        return False

    def _numeric_conditions(
        self, column: str, kind: str, present: np.ndarray, weights: np.ndarray | None = None
    ) -> tuple[list[Condition], str | None]:
        if present.size == 0:
            return [], "all values missing"
        return self._range_conditions(column, kind, present.min(), present.max(),
                                      lambda: self._threshold_conditions(column, present, weights))

    @staticmethod
    def _range_conditions(column: str, kind: str, low: float, high: float, thresholds
                          ) -> tuple[list[Condition], str | None]:
        """A present column's attributes from its range; ``thresholds()`` gives the numeric ones."""
        if low == high:
            reason = f"constant: the only value is {format_value(low)}"
            if kind == "binary":
                return [Condition(column, "is true")], reason
            return thresholds()[0], reason
        if kind == "binary":
            return [Condition(column, "is true")], None
        return thresholds()

    def _threshold_conditions(
        self, column: str, present: np.ndarray, weights: np.ndarray | None = None,
    ) -> tuple[list[Condition], str | None]:
        """Threshold attributes of a numeric column from its non-missing values (``weights``:
        theirs), and why there are none if so."""
        raise NotImplementedError(f"{type(self).__name__} defines no numeric thresholds")

    def _select(self, data: pd.DataFrame, conditions: list[Condition]) -> tuple[np.ndarray, dict[str, str]]:
        """Which candidate attributes to keep, and why each other one is left out.

        Sizes (for constant attributes) and, when duplicates are merged, extent signatures
        come from one sort per column (:mod:`logicrules.fca.signatures`); only candidates
        whose signatures coincide are compared row by row, so no rows x candidates matrix is
        ever built.
        """
        n = data.shape[0]
        keys = row_keys(n) if self._merge_duplicates else None
        counts, hashes = signatures(lambda column: self._column_values(data, column), conditions, keys)
        keep, redundant = self._drop_constants(conditions, counts, n)
        candidates = np.flatnonzero(keep)
        if self._merge_duplicates and candidates.size:
            pairs = np.stack([counts[candidates].astype(np.uint64), hashes[candidates]], axis=1)
            _, group, size = np.unique(pairs, axis=0, return_inverse=True, return_counts=True)
            group = group.reshape(-1)
            shared = size[group] > 1
            members = candidates[shared]
            if members.size:
                def evaluate(start: int, stop: int, columns: list[int]) -> np.ndarray:
                    return self._evaluate(data.iloc[start:stop], [conditions[j] for j in columns])

                duplicates = exact_duplicates(conditions, members, group[shared],
                                              lambda column: self._column_values(data, column),
                                              evaluate, n, counts)
                for j, kept in sorted(duplicates.items()):
                    keep[j] = False
                    redundant[conditions[j].name] = (
                        f"same extent on the fitting data as {conditions[kept].name!r}"
                    )
        return keep, redundant

    def _drop_constants(self, conditions: list[Condition], counts: np.ndarray, n: int
                        ) -> tuple[np.ndarray, dict[str, str]]:
        """Keep mask and reasons when constant attributes (``counts`` of 0 or ``n`` rows) go."""
        keep = np.ones(len(conditions), dtype=bool)
        redundant: dict[str, str] = {}
        if self._drop_constant():
            constant = (counts == 0) | (counts == n)
            keep &= ~constant
            for j in np.flatnonzero(constant):
                side = "true" if counts[j] == n else "false"
                redundant[conditions[j].name] = f"constant: {side} on every row of the fitting data"
        return keep, redundant

    # ---- fit from chunked column statistics (numeric tables, medians) ----------------------

    #: Whether the thresholds are medians, so that a numeric table can be fitted from one
    #: chunked pass of column statistics (:mod:`logicrules.fca.column_stats`).
    _median_thresholds = False

    def _fits_by_column_stats(self, data: pd.DataFrame, weights: np.ndarray | None) -> bool:
        """Whether :meth:`fit` can read the table in row chunks: median thresholds, every column
        a plain numeric (not bool) numpy dtype and none declared categorical, weights absent or
        0/1 (they select rows)."""
        if not self._median_thresholds or getattr(self, "categorical", None):
            return False
        if weights is not None and not np.isin(weights, (0.0, 1.0)).all():
            return False
        return all(isinstance(d, np.dtype) and d.kind in "iuf" for d in data.dtypes)

    def _fit_by_column_stats(self, source: Any, data: pd.DataFrame, weights: np.ndarray | None
                             ) -> _BaseBinarizer:
        """:meth:`fit` from :func:`column_stats` (the same attributes, reasons and errors)."""
        from logicrules.fca.column_stats import column_stats

        rows = None if weights is None else weights > 0
        stats = column_stats(source, rows)
        columns = list(data.columns)
        if self.missing == "error" and stats.n_missing.any():
            self._missing_error([c for c, m in zip(columns, stats.n_missing) if m])
        kinds: dict[str, str] = {}
        candidates: list[Condition] = []
        counts: list[int] = []
        reasons: dict[str, str] = {}
        for j, column in enumerate(columns):
            if stats.n_inf[j]:
                raise ValueError(f"Input contains infinity in column {column!r}")
            present = int(stats.n_present[j])
            binary = present and stats.n_ones[j] + stats.n_zeros[j] == present and self._binary_as_single
            kind = "binary" if binary else "numeric"
            if present == 0:
                conditions, reason = [], "all values missing"
            else:
                above = None if np.isnan(stats.above[j]) else float(stats.above[j])
                conditions, reason = self._range_conditions(
                    column, kind, stats.low[j], stats.high[j],
                    lambda: self._median_conditions(column, float(stats.median[j]), above))
            if self.missing == "indicator" and stats.n_missing[j]:
                conditions.append(Condition(column, "is missing"))
            sizes = {">": stats.n_above[j], ">=": stats.n_at_least[j], "is true": stats.n_ones[j],
                     "is missing": stats.n_missing[j]}
            counts.extend(int(sizes[c.op]) for c in conditions)
            kinds[column] = kind
            candidates.extend(conditions)
            if reason is not None:
                reasons[column] = reason
        self.column_kinds_ = kinds
        keep, redundant = self._drop_constants(candidates, np.asarray(counts, dtype=np.int64), stats.n_rows)
        return self._store(columns, candidates, keep, redundant, {}, reasons)

    def _column_values(self, data: pd.DataFrame, column: str) -> tuple[str, np.ndarray, Any]:
        """What :func:`signatures` reads of a column: kind, missing mask, values."""
        series = data[column]
        kind = self.column_kinds_[column]
        missing = series.isna().to_numpy()
        if kind == "categorical":
            return kind, missing, series
        if missing.all():
            return kind, missing, np.full(len(series), np.nan)
        return kind, missing, _column_to_float(series, column)

    def _dropped_columns(
        self,
        columns: Sequence[str],
        conditions: list[Condition],
        keep: np.ndarray,
        reasons: dict[str, str],
    ) -> dict[str, str]:
        kept_columns = {c.column for c, k in zip(conditions, keep) if k}
        generic = "every attribute is constant on the fitting data"
        if self._merge_duplicates:
            generic += " or has the extent of an earlier attribute"
        return {
            column: reasons.get(column, generic) for column in columns if column not in kept_columns
        }

    # ---- transform --------------------------------------------------------------------------

    def _evaluate(self, data: pd.DataFrame, conditions: list[Condition]) -> np.ndarray:
        """Boolean matrix (n, len(conditions)): one whole-column comparison per column and op."""
        out = np.zeros((data.shape[0], len(conditions)), dtype=bool)
        by_column: dict[str, dict[str, tuple[list[Any], list[int]]]] = {}
        for position, condition in enumerate(conditions):
            values, positions = by_column.setdefault(condition.column, {}).setdefault(
                condition.op, ([], [])
            )
            values.append(condition.value)
            positions.append(position)
        for column, ops in by_column.items():
            series = data[column]
            kind = self.column_kinds_[column]
            missing = series.isna().to_numpy()
            if kind == "categorical":
                seen = [v for op in ("==", "!=") if op in ops for v in ops[op][0]]
                categories = pd.Index(list(dict.fromkeys(seen)), dtype=object, tupleize_cols=False)
                codes = _category_codes(series, categories, missing)
            elif set(ops) != {"is missing"}:  # an all-missing column may only have an indicator
                numbers = _column_to_float(series, column)
                self._check_finite(numbers, column)
            for op, (values, positions) in ops.items():
                if op == "is missing":
                    block = missing[:, None]
                elif op == "is true":
                    block = (numbers == 1.0)[:, None]
                elif op in _COMPARE:
                    block = _COMPARE[op](numbers[:, None], np.asarray(values, dtype=np.float64))
                else:
                    wanted = categories.get_indexer(
                        pd.Index(values, dtype=object, tupleize_cols=False)
                    )
                    block = codes[:, None] == wanted[None, :]
                    if op == "!=":
                        block = ~block & ~missing[:, None]
                out[:, positions] = block
        return out

    def _transform_array(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "conditions_")
        data = self._as_frame(X, reset=False)
        self._check_missing(data, data.isna().to_numpy())
        return self._evaluate(data, self.conditions_)

    def transform(self, X: Any) -> np.ndarray:
        """Evaluate every fitted attribute on X.

        Missing values make every attribute of their column false (``x is missing`` is true);
        under ``missing="indicator"`` a column that had no missing value at fit has no
        ``is missing`` attribute, so a missing value there only makes its attributes false.
        A category unseen at fit makes every ``x == v`` false and every ``x != v`` true.
        Categories are matched by value, and a value with no exact match by how it reads:
        ``1``, ``1.0`` and ``"1"`` are the same category, so a column read as strings at fit
        (a CSV column holding ``"?"``) and as numbers at transform keeps its meaning.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Same columns as at fit (by name and order for a DataFrame fitted on a DataFrame).

        Returns
        -------
        ndarray of bool, shape (n_samples, n_attributes)
            Column j is attribute ``conditions_[j]``.
        """
        return self._transform_array(X)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the output attributes, ``[c.name for c in conditions_]``.

        Parameters
        ----------
        input_features : array-like of str, optional
            If given, must equal the input column names seen at fit.

        Returns
        -------
        ndarray of str (object dtype)
        """
        check_is_fitted(self, "conditions_")
        if input_features is not None:
            expected = list(self.column_kinds_)
            given = [str(f) for f in input_features]
            fitted = getattr(self, "feature_names_in_", None)
            if given != expected and (fitted is None or given != list(fitted)):
                raise ValueError(
                    f"input_features {given} do not match the columns seen at fit {expected}"
                )
        return np.asarray([c.name for c in self.conditions_], dtype=object)

    def transform_packed(self, X: Any, chunk_rows: int | None = None) -> np.ndarray:
        """Evaluate every fitted attribute on X into packed bits, chunk by chunk.

        Only one chunk of rows is ever held as booleans (``chunk_rows x n_attributes`` bytes);
        the result takes one bit per row and attribute.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        chunk_rows : int, optional
            Rows evaluated at once (rounded up to a multiple of 64); default 65536.

        Returns
        -------
        ndarray of uint64, shape (n_attributes, ceil(n_samples / 64))
            Row ``j`` is the extent of ``conditions_[j]`` (layout of :mod:`logicrules.fca.bitset`).

        Examples
        --------
        >>> b = MedianBinarizer().fit(pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
        >>> b.transform_packed(pd.DataFrame({"x": [0.0, 5.0, 9.0]})).tolist()
        [[6]]
        """
        check_is_fitted(self, "conditions_")
        data = self._as_frame(X, reset=False)
        n = data.shape[0]
        rows = _chunk_rows(chunk_rows)
        out = np.zeros((len(self.conditions_), bitset.n_words(n)), dtype=np.uint64)
        numeric = self._numeric_evaluation(data)
        source = X if isinstance(X, np.ndarray) else data
        for start in range(0, n, rows):
            if numeric is None:
                chunk = data.iloc[start:start + rows]
                self._check_missing(chunk, chunk.isna().to_numpy())
                bits = bitset.pack_columns(self._evaluate(chunk, self.conditions_))
            else:
                bits = bitset.pack(self._evaluate_numeric(source, slice(start, start + rows), numeric))
            out[:, start // 64:start // 64 + bits.shape[1]] = bits
        return out

    def _numeric_evaluation(self, data: pd.DataFrame):
        """For a table of plain numeric columns whose attributes are all comparisons, ``is
        true`` or ``is missing``: the column position of every attribute; else None."""
        if not all(isinstance(d, np.dtype) and d.kind in "iuf" for d in data.dtypes):
            return None
        if any(c.op in ("==", "!=") for c in self.conditions_):
            return None
        index = {column: j for j, column in enumerate(self.column_kinds_)}
        positions = np.array([index[c.column] for c in self.conditions_], dtype=np.intp)
        return positions

    def _evaluate_numeric(self, source: Any, rows: slice, positions: np.ndarray) -> np.ndarray:
        """:meth:`_evaluate` (with its checks) of a chunk of a numeric table, all attributes at
        once and transposed: bool (n_attributes, rows).

        The comparisons run on the chunk as it is laid out (rows x columns) and only their
        booleans are transposed (one byte per cell, not eight). The missing and infinite values
        are looked for only when the chunk's sum is not finite (overflow included)."""
        from logicrules.fca.column_stats import _read

        values = _read(source, rows)  # (rows, columns)
        columns = list(self.column_kinds_)
        ops = [c.op for c in self.conditions_]
        with np.errstate(over="ignore", invalid="ignore"):
            clean = bool(np.isfinite(values.sum()))
        if not clean:
            missing = np.isnan(values)
            if self.missing == "error" and missing.any():
                self._missing_error([columns[j] for j in np.flatnonzero(missing.any(axis=0))])
            compared = np.unique(positions[[op != "is missing" for op in ops]])
            infinite = np.isinf(values[:, compared]).any(axis=0)
            if infinite.any():
                raise ValueError(f"Input contains infinity in column {columns[compared[infinite][0]]!r}")
        out = np.empty((values.shape[0], len(ops)), dtype=bool)
        by_op: dict[str, list[int]] = {}
        for j, op in enumerate(ops):
            by_op.setdefault(op, []).append(j)
        for op, members in by_op.items():
            whole = len(members) == len(ops)  # one operator for all: write straight into out
            target = out if whole else np.empty((values.shape[0], len(members)), dtype=bool)
            same = len(members) == values.shape[1] and np.array_equal(positions[members], np.arange(values.shape[1]))
            cells = values if same else values[:, positions[members]]  # one attribute per column: no copy
            if op == "is missing":
                np.isnan(cells, out=target)
            elif op == "is true":
                np.equal(cells, 1.0, out=target)
            else:
                thresholds = np.array([self.conditions_[j].value for j in members], dtype=np.float64)
                _COMPARE[op](cells, thresholds, out=target)
            if not whole:
                out[:, members] = target
        return np.ascontiguousarray(out.T)

    def transform_context(self, X: Any, chunk_rows: int | None = None):
        """Binarize X into a :class:`~logicrules.fca.context.FormalContext`, chunk by chunk.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        chunk_rows : int, optional
            See :meth:`transform_packed`: no dense boolean copy of X's binarization is made.

        Returns
        -------
        FormalContext
            Objects are the rows (the DataFrame index when X is a DataFrame), attributes the
            output names of this binarizer.

        Examples
        --------
        >>> b = MedianBinarizer().fit(pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
        >>> b.transform_context(pd.DataFrame({"x": [0.0, 5.0]}))
        FormalContext(n_objects=2, n_attributes=1, attributes=['x > 2'])
        """
        from logicrules.fca.context import FormalContext

        bits = self.transform_packed(X, chunk_rows=chunk_rows)
        names = [c.name for c in self.conditions_]
        n = len(X) if hasattr(X, "__len__") else np.asarray(X).shape[0]
        objects = X.index if isinstance(X, pd.DataFrame) else None
        return FormalContext.from_bits(bits, n, attributes=names, objects=objects)


def _chunk_rows(chunk_rows: int | None) -> int:
    """Rows per chunk: a positive multiple of 64 (default 65536)."""
    if chunk_rows is None:
        return DEFAULT_CHUNK_ROWS
    if isinstance(chunk_rows, (bool, np.bool_)) or not isinstance(chunk_rows, (Integral, np.integer)) \
            or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    return -(-int(chunk_rows) // 64) * 64


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
