"""Algorithm 1 of the ideal classifier method: the empirical ideal DNF in linear time.

For a set S of selected boolean features, the S-*type* of a row is its full truth assignment on
S. Counting, per realized type, its rows ``c`` and its positive rows ``c1``, the *empirical ideal
classifier* is the disjunction of the realized types with ``c1 / c >= 1/2`` (DESIGN.md section
2). It has the least training 0-1 error of all Boolean formulas over S; types never seen in the
data are negative.

Counting is the type histogram of the counting interface (:mod:`logicrules.fca.counts`, the one
every learner reads): the selected columns are packed into bits, each row's type becomes an
integer code (bit ``j`` of the code is feature ``j`` of S, the class packed in below it) by delta
swaps across the packed words, and the codes are histogrammed by one ``np.bincount`` (dense bins
up to 22 features, sorted keys beyond). Beyond 62 features a type no longer fits a
64-bit code and the rows are packed to bytes (``np.packbits``) and made unique as opaque byte
strings.

Examples
--------
>>> import numpy as np
>>> X = np.array([[1, 0], [1, 0], [1, 1], [0, 1], [0, 0]], dtype=bool)
>>> y = np.array([1, 0, 1, 0, 0])
>>> formula, table = empirical_ideal_dnf(X, y, return_table=True)
>>> print(formula)
(x0 AND NOT x1) OR (x0 AND x1)
>>> table.to_frame()[["type", "count", "positives", "ratio"]]
                type  count  positives  ratio
0  NOT x0 AND NOT x1      1          0    0.0
1      x0 AND NOT x1      2          1    0.5
2      NOT x0 AND x1      1          0    0.0
3          x0 AND x1      1          1    1.0
>>> print(empirical_ideal_dnf(X, y, tie="negative"))
x0 AND x1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from logicrules.fca.bitset import pack_columns
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import ContextCounts
from logicrules.formula import Formula, Literal, conjunction, disjunction
from logicrules.validation import as_boolean_matrix, as_boolean_target

__all__ = ["TIES", "TypeTable", "empirical_ideal_dnf", "table_from_histogram", "type_table"]

#: Tie rules: ``"positive"`` puts a type with ``c1 / c == 1/2`` in the DNF (the paper's text),
#: ``"negative"`` leaves it out (the paper's published code).
TIES = ("positive", "negative")

#: Most features whose types fit a 64-bit code together with the target bit.
MAX_CODE_FEATURES = 62
#: Rows per block: keeps the temporaries of the code computation in cache.
_BLOCK_ROWS = 1 << 16
#: Multiplying a little-endian word of eight 0/1 bytes by this and shifting right by 56 packs
#: byte ``j`` into bit ``j`` (no carries: the partial products land on distinct bits).
_GATHER = np.uint64(0x0102040810204080)


# ------------------------------------------------------------------------------- type codes
def _block_codes(block: np.ndarray, out: np.ndarray, shift: int) -> None:
    """OR the type codes of a bool block (m, k), k <= 62, into ``out`` shifted left by ``shift``.

    Column ``j`` of the block becomes bit ``j + shift``. The block is read as unaligned 64-bit
    words (eight columns each) straight from its bytes.
    """
    m, k = block.shape
    if k == 0:
        return
    width = max(k, 8)
    if block.dtype == bool and block.flags.c_contiguous and k >= 8:
        rows = block
    else:
        rows = np.zeros((m, width), dtype=bool)
        rows[:, :k] = block
    raw = rows.view(np.uint8).reshape(-1)
    word = np.empty(m, dtype=np.uint64)
    for i in range(-(-k // 8)):
        offset = min(8 * i, width - 8)
        bytes8 = np.ndarray((m,), dtype=np.uint64, buffer=raw, offset=offset, strides=(width,))
        np.multiply(bytes8, _GATHER, out=word)
        word >>= np.uint64(56 + 8 * i - offset)
        word <<= np.uint64(8 * i + shift)
        out |= word


def _blocks(n: int, size: int = _BLOCK_ROWS):
    for start in range(0, n, size):
        yield start, min(n, start + size)


def type_codes(X: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """Integer type code of every row of a bool matrix with at most 62 columns.

    Bit ``j`` of the code is column ``j``; with ``y`` the target is bit 0 and column ``j`` bit
    ``j + 1``. Vectorized over blocks of rows.

    Parameters
    ----------
    X : ndarray of bool, shape (n, k), k <= 62
    y : ndarray of bool, shape (n,), optional

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> type_codes(np.array([[1, 0, 1], [0, 1, 1]], dtype=bool)).tolist()
    [5, 6]
    """
    n, k = X.shape
    if k > MAX_CODE_FEATURES:
        raise ValueError(f"integer type codes hold at most {MAX_CODE_FEATURES} features, got {k}")
    shift = 0 if y is None else 1
    codes = np.zeros(n, dtype=np.uint64)
    for start, stop in _blocks(n):
        out = codes[start:stop]
        _block_codes(X[start:stop], out, shift)
        if y is not None:
            out |= y[start:stop]
    return codes.view(np.int64)


def _row_keys(X: np.ndarray) -> np.ndarray:
    """Each row packed to bytes and viewed as one opaque (void) scalar: any number of columns."""
    packed = np.ascontiguousarray(np.packbits(X, axis=1, bitorder="little"))
    return packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)


def _count_types(X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Realized types of bool X (n, k) with their counts and positives.

    Returns ``(keys, patterns, counts, positives)``: keys sorted ascending (int64 codes for
    k <= 62, void byte strings beyond), patterns the bool truth assignments (u, k). With
    ``weights`` (all > 0) the counts are float sums of the weights of the rows. Up to 62
    features this is :meth:`Counts.type_histogram <logicrules.fca.counts.Counts.type_histogram>`
    of the packed columns.
    """
    n, k = X.shape
    if k <= MAX_CODE_FEATURES:
        context = FormalContext.from_bits(pack_columns(X), n, [str(j) for j in range(k)])
        histogram = ContextCounts(context, y, weights=weights, n_classes=2).type_histogram(list(range(k)))
        return histogram.keys, histogram.patterns, histogram.totals, histogram.counts[1].copy()
    keys, first, inverse = np.unique(_row_keys(X), return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    counts = np.bincount(inverse, weights=w, minlength=len(keys))
    positives = np.bincount(inverse, weights=np.where(y, 1.0 if w is None else w, 0.0), minlength=len(keys))
    if w is None:
        counts, positives = counts.astype(np.int64), positives.astype(np.int64)
    return keys, X[first].copy(), counts, positives


# ------------------------------------------------------------------------------- the table
class _TypeKeys:
    """What a table of realized types knows from its ``features``, sorted ``keys`` and
    ``counts`` alone: shared by :class:`TypeTable` and
    :class:`~logicrules.ideal.multiclass.ClassTypeTable`."""

    @property
    def n_features(self) -> int:
        """Number of features k = ``|S|``."""
        return len(self.features)

    @property
    def n_types(self) -> int:
        """Number of realized types."""
        return len(self.keys)

    @property
    def n_rows(self) -> int | float:
        """Number of training rows counted (their total weight when weighted)."""
        return self.counts.sum().item()

    def lookup(self, X: np.ndarray) -> np.ndarray:
        """Index of each row's type in the table, -1 for types never seen in training.

        Parameters
        ----------
        X : ndarray of bool, shape (n, k)
            The rows restricted to :attr:`features`, in that order.
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"expected a matrix with {self.n_features} columns (the table's features), "
                             f"got shape {X.shape}")
        X = X.astype(bool, copy=False)
        keys = type_codes(X) if self.n_features <= MAX_CODE_FEATURES else _row_keys(X)
        if self.n_types == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        index = np.searchsorted(self.keys, keys)
        index = np.minimum(index, self.n_types - 1)
        found = self.keys[index] == keys
        return np.where(found, index, -1).astype(np.int64)

    def _type_formulas(self, patterns: np.ndarray) -> list[Formula]:
        """The full conjunction of every truth assignment (row of ``patterns``)."""
        literals = [(Literal(f, negated=True), Literal(f)) for f in self.features]
        return [conjunction(*(pair[bit] for pair, bit in zip(literals, pattern)))
                for pattern in patterns.tolist()]


@dataclass(frozen=True, eq=False)
class TypeTable(_TypeKeys):
    """The realized types of a set of boolean features, with their label counts.

    One row per type realized in the training data, sorted by type code (bit ``j`` of the code
    is ``features[j]``). This is all the empirical ideal classifier needs and all it knows: a
    type's prediction is its majority label (ties by ``tie``), and the training ratio of a type
    is a calibrated-on-training probability estimate.

    Attributes
    ----------
    features : tuple of (str or int)
        The attributes of S, in bit order: names, or column positions for unnamed arrays.
    patterns : ndarray of bool, shape (n_types, k)
        Truth assignment of each realized type.
    counts : ndarray of int64 (float64 when weighted), shape (n_types,)
        Training rows of each type (``c``).
    positives : ndarray of int64 (float64 when weighted), shape (n_types,)
        Positive training rows of each type (``c1``).
    tie : {"positive", "negative"}
        Whether a type with ``c1 / c == 1/2`` is predicted positive.
    keys : ndarray, shape (n_types,)
        Sorted lookup keys: int64 type codes (k <= 62) or packed rows as void scalars.
    unseen : bool, default False
        Prediction for types never seen in training (False in the paper: they are not in the
        DNF).

    Examples
    --------
    >>> X = np.array([[1, 0], [1, 1], [1, 1], [0, 0]], dtype=bool)
    >>> t = type_table(X, np.array([1, 1, 0, 0]))
    >>> t.counts.tolist(), t.positives.tolist(), t.predicted.tolist()
    ([1, 1, 2], [0, 1, 1], [False, True, True])
    >>> t.lookup(np.array([[1, 1], [0, 1]], dtype=bool)).tolist()
    [2, -1]
    """

    features: tuple[Any, ...]
    patterns: np.ndarray
    counts: np.ndarray
    positives: np.ndarray
    tie: str
    keys: np.ndarray
    unseen: bool = False

    @property
    def negatives(self) -> np.ndarray:
        """Negative training rows of each type."""
        return self.counts - self.positives

    @property
    def ratio(self) -> np.ndarray:
        """Fraction of positives ``c1 / c`` of each type."""
        return self.positives / self.counts

    @property
    def predicted(self) -> np.ndarray:
        """Whether each type is in the empirical ideal DNF (``2 c1 >= c``, or ``>`` for tie negative)."""
        doubled = 2 * self.positives
        return doubled >= self.counts if self.tie == "positive" else doubled > self.counts

    @property
    def training_errors(self) -> int | float:
        """Training rows (weight, when weighted) the empirical ideal classifier gets wrong: the
        least possible over S."""
        return np.where(self.predicted, self.negatives, self.positives).sum().item()

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The empirical ideal classifier on rows restricted to :attr:`features` (unseen types:
        :attr:`unseen`)."""
        index = self.lookup(X)
        predicted = np.append(self.predicted, bool(self.unseen))
        return predicted[index]  # index -1 reads the appended prediction of unseen types

    def predict_proba(self, X: np.ndarray, unseen: float) -> np.ndarray:
        """Training ratio ``c1 / c`` of each row's type, ``unseen`` for types not in the table."""
        index = self.lookup(X)
        return np.append(self.ratio, float(unseen))[index]

    def to_formula(self) -> Formula:
        """The empirical ideal classifier as a formula.

        The disjunction of the predicted types (``FALSE`` if none) or, when unseen types are
        predicted positive, the negation of the disjunction of the negative types.
        """
        if self.unseen:
            return ~disjunction(*self._type_formulas(self.patterns[~self.predicted]))
        return disjunction(*self._type_formulas(self.patterns[self.predicted]))

    def positive_codes(self) -> np.ndarray:
        """Sorted type codes (k <= 62) predicted positive, unseen ones included when
        :attr:`unseen` (all 2^k codes are then enumerated: only for small k)."""
        if self.n_features > MAX_CODE_FEATURES:
            raise ValueError(f"type codes hold at most {MAX_CODE_FEATURES} features")
        if not self.unseen:
            return self.keys[self.predicted].astype(np.int64)
        return np.setdiff1d(np.arange(1 << self.n_features, dtype=np.int64),
                            self.keys[~self.predicted].astype(np.int64))

    def to_frame(self) -> pd.DataFrame:
        """One row per realized type: ``type`` (its conjunction), ``count``, ``positives``,
        ``ratio`` and ``predicted`` (in the DNF)."""
        return pd.DataFrame({
            "type": [str(f) for f in self._type_formulas(self.patterns)],
            "count": self.counts,
            "positives": self.positives,
            "ratio": self.ratio,
            "predicted": self.predicted,
        })


# ------------------------------------------------------------------------------- validation
def _check_tie(tie: str) -> str:
    if tie not in TIES:
        raise ValueError(f"tie must be one of {TIES}, got {tie!r}")
    return tie


def _resolve_features(features: Sequence[Any] | None, names: list[str] | None, m: int) -> list[int]:
    """Column positions of the requested features."""
    if features is None:
        return list(range(m))
    if isinstance(features, (str, bytes)) or not hasattr(features, "__iter__"):
        raise TypeError(f"features must be a sequence of column names or positions, got {features!r}")
    positions = []
    index = {name: j for j, name in enumerate(names)} if names is not None else {}
    for f in features:
        if isinstance(f, (int, np.integer)) and not isinstance(f, (bool, np.bool_)):
            if not 0 <= f < m:
                raise ValueError(f"feature position {int(f)} is out of range: X has {m} columns")
            positions.append(int(f))
        elif isinstance(f, str):
            if names is None:
                raise ValueError(f"feature {f!r} given by name but X has no column names; use positions")
            if f not in index:
                raise ValueError(f"unknown feature {f!r}; X has columns {names[:10]}{' ...' if m > 10 else ''}")
            positions.append(index[f])
        else:
            raise TypeError(f"a feature must be a column name or position, got {f!r}")
    if len(set(positions)) != len(positions):
        raise ValueError(f"features contains duplicates: {list(features)}")
    return positions


def _selected_boolean(X: Any, features: Sequence[Any] | None) -> tuple[np.ndarray, tuple[Any, ...]]:
    """The selected columns of X as a bool matrix, and their literal keys (names or positions)."""
    if hasattr(X, "to_dense") and hasattr(X, "attributes") and hasattr(X, "bits"):  # FormalContext
        names = [str(a) for a in X.attributes]
        positions = _resolve_features(features, names, len(names))
        return np.asarray(X.to_dense(), dtype=bool)[:, positions], tuple(names[j] for j in positions)
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        if len(set(names)) != len(names):
            raise ValueError("X has duplicate column names")
        positions = _resolve_features(features, names, len(names))
        selected = X.iloc[:, positions]
        keys = tuple(names[j] for j in positions)
        if all(dtype == bool for dtype in selected.dtypes):
            return selected.to_numpy(dtype=bool), keys
        return as_boolean_matrix(selected.to_numpy(), labels=keys), keys
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {array.shape}")
    positions = _resolve_features(features, None, array.shape[1])
    keys = tuple(positions)
    selected = array if positions == list(range(array.shape[1])) else array[:, positions]
    return as_boolean_matrix(selected, labels=keys), keys


# ------------------------------------------------------------------------------- public API
def type_table(X: Any, y: ArrayLike, features: Sequence[Any] | None = None,
               tie: str = "positive", unseen: bool = False,
               sample_weight: ArrayLike | None = None) -> TypeTable:
    """Count the realized types of the selected boolean features (Algorithm 1's scan).

    Parameters
    ----------
    X : ndarray (n, m), DataFrame or FormalContext
        Boolean data (bool or 0/1; NaN is rejected).
    y : array-like of shape (n,)
        Binary target, bool or 0/1.
    features : sequence of str or int, optional
        The set S: column names (DataFrame, FormalContext) or positions; all columns when
        omitted. Its order is the bit order of the type codes.
    tie : {"positive", "negative"}, default "positive"
        Prediction of a type with exactly half positives.
    unseen : bool, default False
        Prediction of a type never seen in the data.
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights: the counts become sums of weights (integer weights count as
        repeated rows; rows of weight 0 are left out).

    Returns
    -------
    TypeTable

    Examples
    --------
    >>> X = pd.DataFrame({"a": [1, 1, 0], "b": [0, 1, 1]})
    >>> type_table(X, [1, 1, 0], features=["b"]).to_frame()
        type  count  positives  ratio  predicted
    0  NOT b      1          1    1.0       True
    1      b      2          1    0.5       True
    """
    tie = _check_tie(tie)
    if not isinstance(unseen, (bool, np.bool_)):
        raise TypeError(f"unseen must be True or False, got {unseen!r}")
    Xs, keys = _selected_boolean(X, features)
    yb = as_boolean_target(y, Xs.shape[0])
    weights = None
    if sample_weight is not None:
        from sklearn.utils.validation import _check_sample_weight

        weights = _check_sample_weight(sample_weight, Xs, ensure_non_negative=True)
        Xs, yb, weights = Xs[weights > 0], yb[weights > 0], weights[weights > 0]
    return _type_table(Xs, yb, keys, tie, bool(unseen), weights)


def _type_table(X: np.ndarray, y: np.ndarray, features: tuple[Any, ...], tie: str,
                unseen: bool = False, weights: np.ndarray | None = None) -> TypeTable:
    """:func:`type_table` on a validated bool matrix (its columns are ``features``) and bool y
    (``weights``: positive float row weights, or None)."""
    keys, patterns, counts, positives = _count_types(X, y, weights)
    return TypeTable(features=tuple(features), patterns=patterns, counts=counts,
                     positives=positives, tie=tie, keys=keys, unseen=bool(unseen))


def table_from_histogram(histogram: Any, features: tuple[Any, ...], tie: str,
                         unseen: bool = False) -> TypeTable:
    """The :class:`TypeTable` of a two-class type histogram (:meth:`Counts.type_histogram`).

    Parameters
    ----------
    histogram : TypeHistogram
        Per-class counts of the realized types (class 1 positive): rows, or sums of weights.
    features : tuple
        Names (or positions) of the histogram's columns, in bit order.
    tie, unseen :
        As for :class:`TypeTable`.

    Returns
    -------
    TypeTable

    Examples
    --------
    >>> from logicrules.fca.context import FormalContext
    >>> from logicrules.fca.counts import ContextCounts
    >>> h = ContextCounts(FormalContext([[1], [1], [0]]), [1, 0, 0]).type_histogram([0])
    >>> table_from_histogram(h, ("a",), "positive").positives.tolist()
    [0, 1]
    """
    counts = np.asarray(histogram.counts)  # int64, or float64 sums of weights
    return TypeTable(features=tuple(features), patterns=histogram.patterns,
                     counts=counts.sum(axis=0), positives=counts[1].copy(),
                     tie=tie, keys=np.asarray(histogram.keys, dtype=np.int64), unseen=bool(unseen))


def empirical_ideal_dnf(X: Any, y: ArrayLike, features: Sequence[Any] | None = None,
                        tie: str = "positive", return_table: bool = False,
                        sample_weight: ArrayLike | None = None
                        ) -> Formula | tuple[Formula, TypeTable]:
    """The empirical ideal classifier over the selected features, as a DNF (Algorithm 1).

    The disjunction of the types realized in the data whose fraction of positives is at least
    1/2 (``tie="positive"``, the paper's text) or above 1/2 (``tie="negative"``, the paper's
    published code). No Boolean formula over the same features has fewer training errors. Types
    not realized in the data are negative. Time O(n ``|S|``): one vectorized pass computing integer
    type codes from the packed columns, then a histogram (:meth:`Counts.type_histogram
    <logicrules.fca.counts.Counts.type_histogram>`).

    Parameters
    ----------
    X : ndarray (n, m), DataFrame or FormalContext
        Boolean data (bool or 0/1).
    y : array-like of shape (n,)
        Binary target, bool or 0/1 (for other labels pass ``y == positive_label``).
    features : sequence of str or int, optional
        The selected features S (names or column positions); all columns when omitted.
    tie : {"positive", "negative"}, default "positive"
        Whether a type with exactly half positives belongs to the DNF.
    return_table : bool, default False
        Also return the :class:`TypeTable` (type, count, positives, ratio).
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights (types are then weighted majorities).

    Returns
    -------
    Formula, or (Formula, TypeTable)
        A disjunction of full conjunctions over S (``FALSE`` when no type is positive). Literals
        name DataFrame columns / context attributes, or are column positions for arrays.

    Raises
    ------
    ValueError
        If X is not boolean (values other than 0/1, NaN), y is not binary, a feature is unknown
        or out of range (more features requested than X has), or features repeat.

    Examples
    --------
    >>> X = pd.DataFrame({"fever": [1, 1, 0, 0], "cough": [1, 0, 1, 0]})
    >>> print(empirical_ideal_dnf(X, [1, 1, 0, 0]))
    (fever AND NOT cough) OR (fever AND cough)
    >>> print(empirical_ideal_dnf(X, [1, 1, 0, 0]).simplify())
    fever
    """
    table = type_table(X, y, features=features, tie=tie, sample_weight=sample_weight)
    formula = table.to_formula()
    return (formula, table) if return_table else formula
