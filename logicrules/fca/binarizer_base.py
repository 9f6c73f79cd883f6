"""The fit side shared by the binarizers: validation, column kinds, candidate conditions, selection.

Subclasses (:mod:`logicrules.fca.scaling`) decide the thresholds of a numeric column; the
transform side is :class:`~logicrules.fca.binarizer_transform._BinarizerTransform`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import _check_sample_weight, validate_data

from logicrules.fca.signatures import exact_duplicates, row_keys, signatures
from logicrules.fca.binarizer_transform import _BinarizerTransform
from logicrules.fca.columns import _column_kind, _column_to_float, _empty_message, _sorted_categories
from logicrules.fca.condition import MISSING_POLICIES, Condition, _format_category, format_value


class _BaseBinarizer(_BinarizerTransform, BaseEstimator):
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
