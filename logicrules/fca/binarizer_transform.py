"""The transform side of every binarizer: evaluate the fitted conditions, densely or packed in chunks.

:class:`_BinarizerTransform` holds ``transform``, ``transform_packed``, ``transform_context`` and
``get_feature_names_out`` of :class:`~logicrules.fca.binarizer_base._BaseBinarizer`; the fit
side (choosing the conditions) lives there.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from logicrules.fca import bitset
from logicrules.fca.columns import _category_codes, _column_to_float
from logicrules.fca.condition import _COMPARE, Condition

#: Rows binarized at once by :meth:`transform_packed` unless told otherwise.
DEFAULT_CHUNK_ROWS = 1 << 16


def _chunk_rows(chunk_rows: int | None) -> int:
    """Rows per chunk: a positive multiple of 64 (default 65536)."""
    if chunk_rows is None:
        return DEFAULT_CHUNK_ROWS
    if isinstance(chunk_rows, (bool, np.bool_)) or not isinstance(chunk_rows, (Integral, np.integer)) \
            or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    return -(-int(chunk_rows) // 64) * 64


class _BinarizerTransform(TransformerMixin):
    """Transform side of :class:`~logicrules.fca.binarizer_base._BaseBinarizer`: the fitted
    ``conditions_`` evaluated on new data, as a dense boolean matrix, packed bits in chunks, or a
    :class:`~logicrules.fca.context.FormalContext`."""

    def _evaluate(self, data: pd.DataFrame, conditions: list[Condition],
                  check_missing: bool = False) -> np.ndarray:
        """Boolean matrix (n, len(conditions)): one whole-column comparison per column and op.

        With ``check_missing``, a missing value in any column is refused first under
        ``missing="error"``. A categorical column is read once: its category codes give its
        missing rows too."""
        out = np.zeros((data.shape[0], len(conditions)), dtype=bool)
        by_column: dict[str, dict[str, tuple[list[Any], list[int]]]] = {}
        for position, condition in enumerate(conditions):
            values, positions = by_column.setdefault(condition.column, {}).setdefault(
                condition.op, ([], [])
            )
            values.append(condition.value)
            positions.append(position)
        read: dict[Any, tuple[np.ndarray, Any]] = {}  # column -> (missing, codes or numbers)
        for column in data.columns if check_missing else by_column:
            series = data[column]
            ops = by_column.get(column, {})
            if self.column_kinds_[column] == "categorical" and ops:
                seen = [v for op in ("==", "!=") if op in ops for v in ops[op][0]]
                categories = pd.Index(list(dict.fromkeys(seen)), dtype=object, tupleize_cols=False)
                codes, missing = _category_codes(series, categories)
                read[column] = missing, (categories, codes)
            else:
                read[column] = series.isna().to_numpy(), None
        if check_missing and self.missing == "error":
            self._check_missing(data, np.column_stack([read[c][0] for c in data.columns]))
        for column, ops in by_column.items():
            missing, coded = read[column]
            if coded is None and set(ops) != {"is missing"}:  # an all-missing column may only have an indicator
                numbers = _column_to_float(data[column], column)
                self._check_finite(numbers, column)
            for op, (values, positions) in ops.items():
                if op == "is missing":
                    block = missing[:, None]
                elif op == "is true":
                    block = (numbers == 1.0)[:, None]
                elif op in _COMPARE:
                    block = _COMPARE[op](numbers[:, None], np.asarray(values, dtype=np.float64))
                else:
                    categories, codes = coded
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
        return self._evaluate(data, self.conditions_, check_missing=True)

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
        >>> from logicrules.fca.scaling import MedianBinarizer
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
                bits = bitset.pack_columns(self._evaluate(chunk, self.conditions_, check_missing=True))
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
        >>> from logicrules.fca.scaling import MedianBinarizer
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
