"""Reading one input column for binarization: its kind, its values as floats, its categories."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from logicrules.fca.condition import format_value


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


def _python_scalars(values: Any) -> list[Any]:
    """The values as Python objects (a NumPy scalar becomes its Python value)."""
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def _sorted_categories(series: pd.Series, column: str) -> list[Any]:
    """Observed non-missing categories in a stable sorted order (a category dtype's own order)."""
    distinct = _distinct_values(series)
    if distinct is not None:
        rows, values = distinct
        if isinstance(series.dtype, pd.CategoricalDtype):
            return _python_scalars(values[np.unique(rows[rows >= 0])])
        return sorted(_python_scalars(values))  # strings alone
    present = series[~series.isna()]
    try:
        values = pd.unique(present.astype(object).to_numpy())
    except TypeError as error:
        raise TypeError(
            f"column {column!r}: categorical values must be hashable (strings, numbers, bools): "
            f"{error}"
        ) from None
    values = _python_scalars(values)
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


def _distinct_values(series: pd.Series) -> tuple[np.ndarray, pd.Index] | None:
    """Each row's position among the column's distinct values (-1: missing), and those values.

    Only where equality between values is plain: a category column, a string dtype, or an
    object column holding strings alone. Elsewhere (``None``) hash-equal values of different
    types (``1``, ``1.0``, ``True``) would merge, so such columns are compared row by row.
    Matching the few distinct values instead of every row is what makes wide categorical
    tables cheap to binarize.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy().astype(np.intp)
        return codes, pd.Index(series.cat.categories.astype(object), dtype=object, tupleize_cols=False)
    plain = pd.api.types.is_string_dtype(dtype) and dtype != object
    if not plain and not (dtype == object and pd.api.types.infer_dtype(series, skipna=True) == "string"):
        return None
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    return codes.astype(np.intp, copy=False), pd.Index(np.asarray(uniques, dtype=object), dtype=object,
                                                        tupleize_cols=False)


def _category_codes(series: pd.Series, categories: pd.Index,
                    by_text: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Position in ``categories`` of every value of ``series`` (-1: missing or unseen), and the
    missing rows.

    A value is first matched exactly; with ``by_text``, a value with no exact match is matched
    by its text (:func:`_category_text`) to the one category that reads the same, so a column
    read as strings at fit ("1", "2", "?") and as numbers at transform (1, 2) keeps its
    categories. Texts that several fitted categories share (``"1"`` and ``1`` both seen at fit)
    match nothing beyond their exact values.
    """
    distinct = _distinct_values(series)
    if distinct is not None:
        rows, values = distinct
        per_value = _matched_codes(values, categories, np.zeros(len(values), dtype=bool), by_text)
        return np.append(per_value, -1)[rows], rows < 0  # row -1 (missing) -> -1
    missing = series.isna().to_numpy()
    values = pd.Index(series.astype(object).tolist(), dtype=object, tupleize_cols=False)
    return _matched_codes(values, categories, missing, by_text), missing


def _matched_codes(values: pd.Index, categories: pd.Index, missing: np.ndarray, by_text: bool) -> np.ndarray:
    """Positions of ``values`` in ``categories``: exact match first, then (``by_text``) by text."""
    codes = categories.get_indexer(values)
    unmatched = (codes < 0) & ~missing
    if by_text and unmatched.any():
        texts = pd.Series([_category_text(c) for c in categories], dtype=object)
        unique = texts[~texts.duplicated(keep=False)]
        by_text = dict(zip(unique.tolist(), unique.index.tolist()))
        raw = values[unmatched].astype(str)  # a value reads as its str() reads
        distinct = pd.Index(raw.unique())
        found = np.array([by_text.get(_category_text(text), -1) for text in distinct], dtype=codes.dtype)
        codes[unmatched] = found[distinct.get_indexer(raw)]
    return codes
