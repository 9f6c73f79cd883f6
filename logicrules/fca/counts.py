"""Counts over rows: the one thing every learner reads from a binarized dataset.

Every learner of the library needs only sums over rows of a binary matrix ``X`` (n rows, m
attributes) split by class: how many (weighted) rows of each class have an attribute, a pair of
attributes, a type (full truth assignment) of a few chosen attributes, or a cell of a small
contingency table; and, for the LP, the distinct rows of one class with their multiplicities.
All of them are **sums over row blocks**, so they can be computed on the whole data at once, on
chunks read one after the other, or on distributed partitions whose partial counts are summed.

:class:`Counts` is the interface. Each public method is a *kernel* (a pure function of one
:class:`RowBlock`, returning a partial count) reduced with ``+`` over the blocks; the
implementations differ only in where the blocks come from and how the partials are summed:

- :class:`ContextCounts`: one :class:`~logicrules.fca.context.FormalContext` in memory (packed
  ``uint64`` bits), in blocks of words;
- :class:`ChunkedCounts`: an iterable (or a callable returning one) of row chunks, each chunk
  packed and counted in turn, so the whole data never has to be in memory at once.

A third implementation only has to override :meth:`Counts._reduce` (for instance to map the
kernel over distributed partitions and tree-sum the partials).

Rows carry a class index ``labels[i]`` in ``0 .. n_classes - 1`` (for a two-class target,
``y.astype(int)``) and an optional float weight (``sample_weight``). Without weights every
count is an exact ``int64``; with weights counts are ``float64`` sums of weights. Nothing is
ever indexed by a count.

Examples
--------
>>> import numpy as np
>>> from logicrules.fca.context import FormalContext
>>> K = FormalContext([[1, 0], [1, 1], [0, 1]], attributes=["a", "b"])
>>> counts = ContextCounts(K, labels=[1, 1, 0])
>>> counts.literal_counts().tolist()        # per class (rows), per attribute (columns)
[[0, 1], [2, 1]]
>>> counts.gram()[1].tolist()               # X_1^T X_1 on the positive rows
[[2, 1], [1, 1]]
>>> h = counts.type_histogram(["a", "b"])   # type code: bit 0 is a, bit 1 is b
>>> h.keys.tolist(), h.counts.tolist()
([1, 2, 3], [[0, 1, 0], [1, 0, 1]])
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from logicrules.fca import bitset
from logicrules.memory import work_bytes

__all__ = ["ChunkedCounts", "ContextCounts", "Counts", "RowBlock", "RowMultiset", "TypeHistogram",
           "type_codes_from_bits", "MAX_TYPE_FEATURES"]

#: Most columns of a type histogram (type codes are 64-bit integers; bit ``j`` is column ``j``).
MAX_TYPE_FEATURES = 62
#: Most columns counted into a dense histogram of ``2**k`` bins (beyond: sorted sparse keys).
_MAX_DENSE_TYPE_FEATURES = 22
#: Bins a dense type histogram may always have; beyond, at most 4 per row of the block (fewer
#: rows are sorted instead of scanning a mostly empty table).
_MIN_DENSE_BINS = 1 << 12
#: Rows per block of :class:`ContextCounts` (a multiple of 64, so blocks are whole words).
_BLOCK_ROWS = 1 << 18
#: Rows unpacked at once by the weighted and Gram kernels (their float temporaries stay small;
#: fewer under an active memory budget, :func:`logicrules.memory.work_bytes`).
_UNPACK_ROWS = 1 << 15
#: Cells (combinations x rows) coded at once by :meth:`Counts.cell_counts` (fewer under a budget).
_CELL_CODES = 1 << 22
# Hacker's Delight 8x8 bit-matrix transpose on 64-bit words (bit 8 i + j <-> bit 8 j + i).
_T7 = np.uint64(0x00AA00AA00AA00AA)
_T14 = np.uint64(0x0000CCCC0000CCCC)
_T28 = np.uint64(0x00000000F0F0F0F0)
_BIT_STAGES = ((np.uint64(7), _T7), (np.uint64(14), _T14), (np.uint64(28), _T28))
# The same transpose one level up: byte b of word j <-> byte j of word b, across 8 words.
_BYTE_STAGES = ((1, np.uint64(8), np.uint64(0x00FF00FF00FF00FF)), (2, np.uint64(16), np.uint64(0x0000FFFF0000FFFF)),
                (4, np.uint64(32), np.uint64(0x00000000FFFFFFFF)))


# --------------------------------------------------------------------------------- blocks
@dataclass(frozen=True, eq=False)
class RowBlock:
    """A block of rows in packed form: the unit every counting kernel reads.

    Parameters
    ----------
    bits : ndarray of uint64, shape (m, W)
        Row ``j`` is attribute ``j``'s bitset over the block's rows (see
        :mod:`logicrules.fca.bitset`; bits past ``n_rows`` zero).
    n_rows : int
        Rows in the block.
    labels : ndarray of intp, shape (n_rows,)
        Class index of each row, in ``0 .. n_classes - 1``.
    weights : ndarray of float64, shape (n_rows,), or None
        Row weights; None counts every row once (exact integer counts).
    n_classes : int
        Number of classes (rows of every per-class result).
    packed_classes : ndarray of uint64, shape (n_classes, W), optional
        :meth:`class_bits`, when the source has them packed already.

    Examples
    --------
    >>> block = RowBlock.from_dense(np.array([[1, 0], [1, 1]], dtype=bool), [0, 1], n_classes=2)
    >>> block.bits.tolist(), block.n_rows
    ([[3], [2]], 2)
    """

    bits: np.ndarray
    n_rows: int
    labels: np.ndarray
    weights: np.ndarray | None
    n_classes: int
    packed_classes: np.ndarray | None = None

    @classmethod
    def from_dense(cls, X: ArrayLike, labels: ArrayLike, weights: ArrayLike | None = None,
                   n_classes: int = 2) -> RowBlock:
        """Pack a boolean (or 0/1) chunk of rows into a block.

        Parameters
        ----------
        X : array-like of bool, shape (rows, m)
        labels : array-like of int or bool, shape (rows,)
        weights : array-like of float, shape (rows,), optional
        n_classes : int, default 2

        Returns
        -------
        RowBlock
        """
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"a chunk of rows must be 2-D (rows, attributes), got shape {X.shape}")
        bits = bitset.pack_columns(X)
        return cls(bits, int(X.shape[0]), *_check_rows(labels, weights, X.shape[0], n_classes),
                   n_classes=int(n_classes))

    @property
    def n_attributes(self) -> int:
        """Number of attributes m."""
        return int(self.bits.shape[0])

    def class_bits(self) -> np.ndarray:
        """Bitset of each class's rows, uint64 of shape (n_classes, W)."""
        if self.packed_classes is not None:
            return self.packed_classes
        onehot = self.labels[None, :] == np.arange(self.n_classes)[:, None]
        return bitset.pack(onehot)

    def dense(self, start: int = 0, stop: int | None = None, columns: Any = None) -> np.ndarray:
        """Rows ``start:stop`` (multiples of 64 except at the end) as bool (rows, m or len(columns))."""
        stop = self.n_rows if stop is None else stop
        bits = self.bits if columns is None else self.bits[columns]
        words = bits[:, start // 64:-(-stop // 64)]
        return np.ascontiguousarray(bitset.unpack(words, stop - start).T)


def _check_rows(labels: ArrayLike, weights: ArrayLike | None, n: int, n_classes: int
                ) -> tuple[np.ndarray, np.ndarray | None]:
    """Validated class indices (intp) and weights (float64 or None) of ``n`` rows."""
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise ValueError(f"n_classes must be a positive integer, got {n_classes!r}")
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"labels must have shape ({n},) (one class index per row), got {labels.shape}")
    if labels.dtype == bool:
        labels = labels.astype(np.intp)
    elif labels.dtype.kind not in "iu":
        raise TypeError(f"labels must be class indices (int or bool), got dtype {labels.dtype}")
    if n and (labels.min() < 0 or labels.max() >= n_classes):
        bad = labels[(labels < 0) | (labels >= n_classes)][:5].tolist()
        raise ValueError(f"labels must lie in 0 .. {n_classes - 1} (n_classes={n_classes}), found {bad}")
    labels = labels.astype(np.intp, copy=False)
    if weights is None:
        return labels, None
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (n,):
        raise ValueError(f"weights must have shape ({n},) (one per row), got {weights.shape}")
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("weights must be finite and >= 0 (sample_weight)")
    return labels, weights


# --------------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class TypeHistogram:
    """The realized types of some columns, with their per-class (weighted) row counts.

    Attributes
    ----------
    columns : tuple of int
        The attributes, in bit order: bit ``j`` of a type code is ``columns[j]``.
    keys : ndarray of int64, shape (u,)
        Sorted codes of the realized types: those with at least one row (of nonzero weight).
    counts : ndarray, shape (n_classes, u)
        Rows (int64) or weights (float64) of each class and type.

    Examples
    --------
    >>> h = TypeHistogram((0,), np.array([0, 1]), np.array([[2, 0], [1, 3]]))
    >>> h.patterns.tolist(), h.totals.tolist()
    ([[False], [True]], [3, 3])
    """

    columns: tuple[int, ...]
    keys: np.ndarray
    counts: np.ndarray

    @property
    def patterns(self) -> np.ndarray:
        """Truth assignment of each type, bool (u, k)."""
        bits = np.arange(len(self.columns), dtype=np.int64)
        return ((self.keys[:, None] >> bits) & 1).astype(bool)

    @property
    def totals(self) -> np.ndarray:
        """Rows (or weight) of each type over all classes."""
        return self.counts.sum(axis=0)


class _DenseHistogram:
    """Partial type histogram over all ``2**k`` codes: a (n_classes, 2**k) array."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    def __add__(self, other: _DenseHistogram | _SparseHistogram) -> _DenseHistogram:
        if isinstance(other, _SparseHistogram):  # a small block counted sparsely
            table = self.table.astype(np.result_type(self.table, other.table), copy=True)
            table[:, other.keys] += other.table
            return _DenseHistogram(table)
        return _DenseHistogram(self.table + other.table)

    def finish(self, columns: tuple[int, ...]) -> TypeHistogram:
        keys = np.flatnonzero(self.table.any(axis=0)).astype(np.int64)
        return TypeHistogram(columns, keys, self.table[:, keys])


class _SparseHistogram:
    """Partial type histogram over the realized codes only (sorted keys, (n_classes, u) counts)."""

    def __init__(self, keys: np.ndarray, table: np.ndarray) -> None:
        self.keys, self.table = keys, table

    def __add__(self, other: _SparseHistogram | _DenseHistogram) -> _SparseHistogram | _DenseHistogram:
        if isinstance(other, _DenseHistogram):
            return other + self
        keys, inverse = np.unique(np.concatenate([self.keys, other.keys]), return_inverse=True)
        table = np.zeros((self.table.shape[0], keys.size), dtype=np.result_type(self.table, other.table))
        np.add.at(table, (slice(None), inverse), np.concatenate([self.table, other.table], axis=1))
        return _SparseHistogram(keys, table)

    def finish(self, columns: tuple[int, ...]) -> TypeHistogram:
        keep = self.table.any(axis=0)
        return TypeHistogram(columns, self.keys[keep], self.table[:, keep])


@dataclass(frozen=True, eq=False)
class RowMultiset:
    """Distinct rows with their multiplicities (summed weights): the rows the LP works on.

    Attributes
    ----------
    packed : ndarray of uint8, shape (u, ceil(m / 8))
        Each distinct row packed little-endian (``np.packbits(row, bitorder="little")``), sorted
        by these bytes (lexicographically), so every implementation returns the same order.
    weights : ndarray, shape (u,)
        How many rows (int64) or how much weight (float64) each distinct row stands for (rows
        of weight zero are left out).
    n_attributes : int
        Row length m.

    Examples
    --------
    >>> rows = RowMultiset.from_dense(np.array([[1, 0], [1, 0], [0, 1]], dtype=bool))
    >>> rows.to_dense().tolist(), rows.weights.tolist()
    ([[True, False], [False, True]], [2, 1])
    """

    packed: np.ndarray
    weights: np.ndarray
    n_attributes: int

    @classmethod
    def from_dense(cls, rows: np.ndarray, weights: np.ndarray | None = None) -> RowMultiset:
        """Merge the equal rows of a bool matrix (weights default to 1 per row)."""
        rows = np.asarray(rows, dtype=bool)
        n, m = rows.shape
        packed = np.packbits(rows, axis=1, bitorder="little")
        w = np.ones(n, dtype=np.int64) if weights is None else np.asarray(weights)
        return cls._merge(packed, w, m)

    @classmethod
    def _merge(cls, packed: np.ndarray, weights: np.ndarray, m: int) -> RowMultiset:
        if packed.shape[0] == 0:
            return cls(packed.reshape(0, -(-m // 8)), weights[:0], m)
        width = packed.shape[1]
        if width == 0:
            unique, inverse = packed[:1], np.zeros(packed.shape[0], dtype=np.intp)
        else:  # rows as opaque byte strings: sorted by memcmp, several times faster than axis=0
            keys = np.ascontiguousarray(packed).view(np.dtype((np.void, width))).ravel()
            unique, inverse = np.unique(keys, return_inverse=True)
            unique = unique.view(np.uint8).reshape(-1, width)
        summed = np.bincount(inverse.reshape(-1), weights=weights, minlength=unique.shape[0])
        keep = summed != 0  # rows of weight zero stand for nothing
        return cls(unique[keep], summed[keep].astype(weights.dtype, copy=False), m)

    def __add__(self, other: RowMultiset) -> RowMultiset:
        return RowMultiset._merge(np.concatenate([self.packed, other.packed]),
                                  np.concatenate([self.weights, other.weights]), self.n_attributes)

    @property
    def n_rows(self) -> int:
        """Number of distinct rows."""
        return int(self.packed.shape[0])

    def to_dense(self) -> np.ndarray:
        """The distinct rows as bool (u, m)."""
        return np.unpackbits(self.packed, axis=1, count=self.n_attributes, bitorder="little").astype(bool)


# --------------------------------------------------------------------------------- kernels
def type_codes_from_bits(bits: np.ndarray, n: int, low: np.ndarray | None = None) -> np.ndarray:
    """Integer code of every row from packed columns: bit ``j`` of row ``i``'s code is ``bits[j]``.

    Eight columns at a time, the bytes of the columns (eight rows per byte) are stacked into
    64-bit words and transposed as 8x8 bit matrices, which yields one code byte per row in row
    order: no per-row Python work and no unpacking to one byte per cell.

    Parameters
    ----------
    bits : ndarray of uint64, shape (k, W), k <= 62
        Packed columns over ``n`` rows.
    n : int
        Number of rows.
    low : ndarray of uint64, shape (W,), optional
        An extra packed column placed at bit 0 (the others move up by one), e.g. the positive
        class, so that ``code = 2 * type + label``.

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> cols = bitset.pack(np.array([[1, 0, 1], [0, 1, 1]], dtype=bool))
    >>> type_codes_from_bits(cols, 3).tolist()
    [1, 2, 3]
    """
    bits = np.asarray(bits, dtype=np.uint64)
    if low is not None:
        bits = np.concatenate([np.asarray(low, dtype=np.uint64)[None, :], bits])
    k, width = bits.shape
    if k > 63:
        raise ValueError(f"integer type codes hold at most {MAX_TYPE_FEATURES} columns, got {k}")
    codes = np.zeros(width * 64, dtype=np.int64)
    if k == 0:
        return codes[:n]
    raw = np.ascontiguousarray(bits.astype("<u8", copy=False)).view(np.uint8)  # (k, 8 W)
    stacked = np.zeros((raw.shape[1], 8), dtype=np.uint8)
    for group in range(-(-k // 8)):
        cols = raw[8 * group:8 * group + 8]
        stacked[:, :cols.shape[0]] = cols.T
        stacked[:, cols.shape[0]:] = 0
        x = _transpose_8x8(stacked.view("<u8").reshape(-1).astype(np.uint64))
        row_bytes = x.astype("<u8", copy=False).view(np.uint8)  # byte i = group's bits of row i
        if group == 0:
            codes[:] = row_bytes
        else:
            codes |= row_bytes.astype(np.int64) << np.int64(8 * group)
    return codes[:n]


def _transpose_8x8(x: np.ndarray) -> np.ndarray:
    """Transpose every uint64 word as an 8x8 bit matrix (bit ``8 i + j`` <-> bit ``8 j + i``), in place."""
    t = (x ^ (x >> np.uint64(7))) & _T7
    x ^= t ^ (t << np.uint64(7))
    t = (x ^ (x >> np.uint64(14))) & _T14
    x ^= t ^ (t << np.uint64(14))
    t = (x ^ (x >> np.uint64(28))) & _T28
    x ^= t ^ (t << np.uint64(28))
    return x


def packed_rows_from_bits(bits: np.ndarray, n: int) -> np.ndarray:
    """The rows of packed columns, each packed little-endian: ``np.packbits(X, axis=1, bitorder="little")``.

    The columns' bytes (eight rows each) are regrouped eight columns at a time into 64-bit words
    and transposed as 8x8 bit matrices (as in :func:`type_codes_from_bits`), so the rows come out
    packed without unpacking to one byte per cell: whole-array work on ``n m / 8`` bytes.

    Parameters
    ----------
    bits : ndarray of uint64, shape (m, W)
        Packed columns over ``n`` rows.
    n : int
        Number of rows.

    Returns
    -------
    ndarray of uint8, shape (n, ceil(m / 8))

    Examples
    --------
    >>> cols = bitset.pack(np.array([[1, 0, 1], [0, 1, 1]], dtype=bool))
    >>> packed_rows_from_bits(cols, 3).tolist()
    [[1], [2], [3]]
    """
    m, width = bits.shape
    groups = -(-m // 8)
    raw = np.zeros((groups * 8, width * 8), dtype=np.uint8)
    raw[:m] = np.ascontiguousarray(bits.astype("<u8", copy=False)).view(np.uint8)
    # word (b, g): byte c is column 8 g + c over rows 8 b .. 8 b + 7
    words = np.ascontiguousarray(raw.reshape(groups, 8, width * 8).transpose(2, 0, 1)).view("<u8")
    x = _transpose_8x8(words.reshape(-1).astype(np.uint64)).astype("<u8", copy=False)
    # now byte i of word (b, g) is row 8 b + i over columns 8 g .. 8 g + 7
    rows = x.view(np.uint8).reshape(width * 8, groups, 8).transpose(0, 2, 1).reshape(width * 64, groups)
    return rows[:n]


def _weighted_class_matrix(block: RowBlock, start: int, stop: int, dtype) -> np.ndarray:
    """(rows, n_classes) one-hot of the labels times the weights, rows ``start:stop``."""
    labels = block.labels[start:stop]
    onehot = np.zeros((stop - start, block.n_classes), dtype=dtype)
    w = 1 if block.weights is None else block.weights[start:stop]
    onehot[np.arange(stop - start), labels] = w
    return onehot


def _class_totals(block: RowBlock) -> np.ndarray:
    if block.weights is None:
        return np.bincount(block.labels, minlength=block.n_classes).astype(np.int64)
    return np.bincount(block.labels, weights=block.weights, minlength=block.n_classes)


def _unpack_rows(m: int) -> int:
    """Rows of a block unpacked at once: :data:`_UNPACK_ROWS`, fewer when an active memory budget
    leaves less room for their float64 temporaries (about 32 bytes per cell); a multiple of 64."""
    rows = min(_UNPACK_ROWS, work_bytes(_UNPACK_ROWS * 32 * max(m, 1)) // (32 * max(m, 1)))
    return max(64, rows // 64 * 64)


def _literal_counts(block: RowBlock) -> np.ndarray:
    if block.weights is None:
        masks = block.class_bits()
        return bitset.popcount(block.bits[None, :, :] & masks[:, None, :])
    out = np.zeros((block.n_classes, block.n_attributes))
    step = _unpack_rows(block.n_attributes)
    for start in range(0, block.n_rows, step):
        stop = min(block.n_rows, start + step)
        dense = block.dense(start, stop).astype(np.float64)
        out += _weighted_class_matrix(block, start, stop, np.float64).T @ dense
    return out


def _gram(block: RowBlock) -> np.ndarray:
    m, K = block.n_attributes, block.n_classes
    weighted = block.weights is not None
    out = np.zeros((K, m, m), dtype=np.float64 if weighted else np.int64)
    step = _unpack_rows(m)
    for start in range(0, block.n_rows, step):
        stop = min(block.n_rows, start + step)
        # float32 products of 0/1 values are exact while a block's sums stay below 2**24
        dense = block.dense(start, stop).astype(np.float64 if weighted else np.float32)
        labels = block.labels[start:stop]
        for c in range(K):
            rows = dense[labels == c]
            if not rows.shape[0]:
                continue
            if weighted:
                out[c] += (rows * block.weights[start:stop][labels == c, None]).T @ rows
            else:
                out[c] += np.rint(rows.T @ rows).astype(np.int64)
    return out


def _row_bytes(words: np.ndarray) -> np.ndarray:
    """The bytes of every row from groups of 8 packed columns, in a fixed order of the rows.

    ``words`` (g, 8, W) holds g groups of 8 bitsets over ``64 W`` rows; it is overwritten. Byte
    ``b`` of word ``m`` of a column holds rows ``64 m + 8 b .. 64 m + 8 b + 7``. An 8x8 transpose
    of bytes across the 8 words of a group (byte ``b`` of word ``j`` <-> byte ``j`` of word
    ``b``), then one of bits inside every word, leave in byte ``(b, m, i)`` the group's 8 bits of
    row ``64 m + 8 b + i``: returns uint8 (g, 64 W) in that order, the same for every group
    (:func:`_row_order` permutes per-row arrays alike).
    """
    g, _, width = words.shape
    t = np.empty((g, width), dtype=np.uint64)
    for d, shift, mask in _BYTE_STAGES:
        for j in range(8):
            if j & d:
                continue
            a, b = words[:, j], words[:, j + d]
            np.right_shift(a, shift, out=t)
            t ^= b
            t &= mask
            b ^= t
            np.left_shift(t, shift, out=t)
            a ^= t
    flat = words.reshape(-1)
    t, u = np.empty_like(flat), np.empty_like(flat)
    for shift, mask in _BIT_STAGES:
        np.right_shift(flat, shift, out=t)
        t ^= flat
        t &= mask
        flat ^= t
        np.left_shift(t, shift, out=u)
        flat ^= u
    return words.view(np.uint8).reshape(g, -1)


def _row_order(values: np.ndarray, width: int) -> np.ndarray:
    """Per-row values (n <= 64 ``width``, padded with zeros) in the row order of :func:`_row_bytes`."""
    padded = np.zeros(64 * width, dtype=values.dtype)
    padded[:values.size] = values
    return padded.reshape(width, 8, 8).transpose(1, 0, 2).reshape(-1)


def _unordered_type_codes(bits: np.ndarray, columns: np.ndarray, low: np.ndarray | None = None) -> np.ndarray:
    """Type codes of the ``64 W`` rows of packed ``bits`` (m, W) over ``columns`` (bit ``j`` is
    ``columns[j]``; with ``low``, a packed column (W,) placed at bit 0 and the others one up; at
    most 63 bits), in the row order of :func:`_row_bytes`: uint8 up to 8 bits, uint16 up to 16,
    else intp."""
    k = len(columns) + (low is not None)
    width = bits.shape[1]
    if k == 0:
        return np.zeros(64 * width, dtype=np.uint8)
    groups = -(-k // 8)
    words = np.zeros((groups, 8, width), dtype=np.uint64)
    flat = words.reshape(groups * 8, width)
    if low is not None:
        flat[0] = low
    np.take(bits, columns, axis=0, out=flat[k - len(columns):k])
    row_bytes = _row_bytes(words)
    if groups == 1:
        return row_bytes[0]
    if groups == 2:  # the two bytes of every row side by side: its code as a little-endian uint16
        pairs = np.empty((row_bytes.shape[1], 2), dtype=np.uint8)
        pairs[:, 0] = row_bytes[0]
        pairs[:, 1] = row_bytes[1]
        return pairs.view("<u2").reshape(-1)
    codes = row_bytes[groups - 1].astype(np.intp)
    for group in range(groups - 2, -1, -1):
        codes <<= 8
        codes |= row_bytes[group]
    return codes


def _type_histogram(block: RowBlock, columns: np.ndarray):
    k, K = len(columns), block.n_classes
    width = block.bits.shape[1]
    padding = 64 * width - block.n_rows  # rows past the end: every bit zero, code 0, label 0
    if K == 2:  # the positive class as bit 0 of the code
        codes = _unordered_type_codes(block.bits, columns, low=block.class_bits()[1])
    else:
        codes = _unordered_type_codes(block.bits, columns).astype(np.intp) * K
        codes += _row_order(block.labels, width)
    weights = None if block.weights is None else _row_order(block.weights, width)
    size = (1 << k) * K
    if k <= _MAX_DENSE_TYPE_FEATURES and size <= max(_MIN_DENSE_BINS, 4 * block.n_rows):
        if weights is None:
            hist = np.bincount(codes, minlength=size).astype(np.int64, copy=False)
            hist[0] -= padding
        else:
            hist = np.bincount(codes, weights=weights, minlength=size)
        return _DenseHistogram(np.ascontiguousarray(hist.reshape(1 << k, K).T))
    if padding:  # the block's own rows only
        real = _row_order(np.ones(block.n_rows, dtype=bool), width)
        codes = codes[real]
        weights = None if weights is None else weights[real]
    keys, inverse = np.unique(codes, return_inverse=True)
    summed = np.bincount(inverse.reshape(-1), weights=weights, minlength=keys.size)
    if weights is not None:  # rows of weight 0 realize no type, as in the dense histogram
        keep = summed != 0
        keys, summed = keys[keep], summed[keep]
    types, type_index = np.unique(keys // K, return_inverse=True)
    table = np.zeros((K, types.size), dtype=np.float64 if weights is not None else np.int64)
    np.add.at(table, (keys % K, type_index), summed.astype(table.dtype, copy=False))
    return _SparseHistogram(types.astype(np.int64), table)


def _cell_counts(block: RowBlock, combos: np.ndarray) -> np.ndarray:
    t, r = combos.shape
    K, cells = block.n_classes, 1 << r
    weighted = block.weights is not None
    if t == 0 or block.n_rows == 0:
        return np.zeros((K, t, cells), dtype=np.float64 if weighted else np.int64)
    if not weighted:
        return _cell_counts_bits(block, combos)
    out = np.zeros((K, t, cells), dtype=np.float64)
    used, local = np.unique(combos, return_inverse=True)
    local = local.reshape(t, r)
    per = max(1, work_bytes(64 * _CELL_CODES) // (64 * max(block.n_rows, 1)))   # ~64 bytes per code
    dense = block.dense(columns=used).T  # (attributes used, rows)
    shifts = np.arange(r, dtype=np.int64)
    for lo in range(0, t, per):
        part = local[lo:lo + per]
        codes = np.zeros((part.shape[0], block.n_rows), dtype=np.int64)
        for j in range(r):
            codes |= dense[part[:, j]].astype(np.int64) << shifts[j]
        flat = ((np.arange(part.shape[0])[:, None] * cells + codes) * K + block.labels[None, :]).ravel()
        size = part.shape[0] * cells * K
        if weighted:
            hist = np.bincount(flat, weights=np.broadcast_to(block.weights, codes.shape).ravel(),
                               minlength=size)
        else:
            hist = np.bincount(flat, minlength=size)
        out[:, lo:lo + part.shape[0]] = hist.reshape(part.shape[0], cells, K).transpose(2, 0, 1)
    return out


def _cell_counts_bits(block: RowBlock, combos: np.ndarray) -> np.ndarray:
    """Unweighted cell counts by popcounts on the packed bits (no unpacking).

    For every subset ``U`` of a combination's attributes, the rows of each class having all of
    them are the popcount of the AND of their bitsets with the class's; inclusion-exclusion
    (Moebius inversion over the subsets) turns those into the ``2**r`` cells. About ``2**r (1 +
    n_classes)`` word operations per combination and 64 rows.
    """
    t, r = combos.shape
    K, cells = block.n_classes, 1 << r
    words = block.bits.shape[1]
    classes = block.class_bits()
    out = np.zeros((K, t, cells), dtype=np.int64)
    per = max(1, work_bytes(2 * _CELL_CODES) // (cells * max(words, 1) * 16))   # combinations ANDed at once
    lowest = [u & -u for u in range(cells)]
    for lo in range(0, t, per):
        part = combos[lo:lo + per]
        sub = block.bits[part]                                   # (g, r, W)
        ands = np.empty((cells, part.shape[0], words), dtype=np.uint64)
        ands[0] = ~np.uint64(0)
        f = np.empty((K, part.shape[0], cells), dtype=np.int64)
        for u in range(1, cells):
            j = lowest[u].bit_length() - 1
            np.bitwise_and(ands[u ^ lowest[u]], sub[:, j], out=ands[u])
        for c in range(K):
            f[c] = np.bitwise_count(ands[:, :, :] & classes[c]).sum(axis=2, dtype=np.int64).T
        for j in range(r):                                        # Moebius: cell u = sum over U >= u
            bit = 1 << j
            low = [u for u in range(cells) if not u & bit]
            f[:, :, low] -= f[:, :, [u | bit for u in low]]
        out[:, lo:lo + part.shape[0]] = f
    return out


def _class_rows(block: RowBlock, cls: int) -> RowMultiset:
    rows = np.flatnonzero(block.labels == cls)
    m = block.n_attributes
    if rows.size == 0:
        dtype = np.float64 if block.weights is not None else np.int64
        return RowMultiset(np.zeros((0, -(-m // 8)), dtype=np.uint8), np.zeros(0, dtype=dtype), m)
    packed = packed_rows_from_bits(block.bits, block.n_rows)[rows]
    weights = np.ones(rows.size, dtype=np.int64) if block.weights is None else block.weights[rows]
    return RowMultiset._merge(packed, weights, m)


# --------------------------------------------------------------------------------- interface
class Counts(ABC):
    """Per-class counts over the rows of a binarized dataset (the learners' only view of data).

    Subclasses provide the row blocks (:meth:`_blocks`) and the attribute names; every public
    method maps one kernel over the blocks and sums the partial results with ``+``
    (:meth:`_reduce`). With weights, counts are float64 sums of weights; without, exact int64.

    Parameters
    ----------
    attributes : sequence of str
        Attribute names (columns).
    n_classes : int
        Number of classes; labels are ``0 .. n_classes - 1``.
    """

    def __init__(self, attributes: Sequence[str], n_classes: int) -> None:
        self._attributes = tuple(str(a) for a in attributes)
        self._index = {name: j for j, name in enumerate(self._attributes)}
        if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
            raise ValueError(f"n_classes must be a positive integer, got {n_classes!r}")
        self._n_classes = int(n_classes)

    # ---- what an implementation provides ------------------------------------------------
    @abstractmethod
    def _blocks(self) -> Iterator[RowBlock]:
        """The row blocks, each a :class:`RowBlock` with this object's attributes and classes."""

    def _reduce(self, kernel: Callable[[RowBlock], Any]) -> Any:
        """Sum ``kernel(block)`` over all blocks (partials support ``+``); None when no block."""
        return _sum(map(kernel, self._blocks()))

    @property
    @abstractmethod
    def weighted(self) -> bool:
        """Whether rows carry weights (counts are then float64)."""

    # ---- metadata -----------------------------------------------------------------------
    @property
    def attributes(self) -> tuple[str, ...]:
        """Attribute names."""
        return self._attributes

    @property
    def n_attributes(self) -> int:
        """Number of attributes m."""
        return len(self._attributes)

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return self._n_classes

    def _dtype(self):
        return np.float64 if self.weighted else np.int64

    def attribute_indices(self, attributes: Any) -> np.ndarray:
        """Positions of attributes given by name or position (order kept).

        Examples
        --------
        >>> from logicrules.fca.context import FormalContext
        >>> ContextCounts(FormalContext([[1, 0]], attributes=["u", "v"]), [0]).attribute_indices(["v", 0]).tolist()
        [1, 0]
        """
        if isinstance(attributes, (str, int, np.integer)):
            attributes = [attributes]
        out = []
        for a in attributes:
            if isinstance(a, str):
                if a not in self._index:
                    raise ValueError(f"unknown attribute {a!r}")
                out.append(self._index[a])
            elif isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
                if not 0 <= a < self.n_attributes:
                    raise ValueError(f"attribute position {int(a)} out of range [0, {self.n_attributes})")
                out.append(int(a))
            else:
                raise TypeError(f"attributes are names (str) or positions (int), got {a!r}")
        return np.asarray(out, dtype=np.intp)

    # ---- the counts ---------------------------------------------------------------------
    def class_totals(self) -> np.ndarray:
        """Rows (or weight) of each class, shape (n_classes,).

        Examples
        --------
        >>> from logicrules.fca.context import FormalContext
        >>> ContextCounts(FormalContext([[1], [0], [1]]), [0, 1, 1]).class_totals().tolist()
        [1, 2]
        """
        total = self._reduce(_class_totals)
        return np.zeros(self.n_classes, dtype=self._dtype()) if total is None else total

    @property
    def n_rows(self) -> float:
        """Number of rows (the total weight when weighted)."""
        total = self.class_totals().sum()
        return float(total) if self.weighted else int(total)

    def literal_counts(self) -> np.ndarray:
        """Rows (or weight) of each class having each attribute: ``X_c^T w_c``, (n_classes, m).

        The counts of a negated attribute are ``class_totals()[:, None] - literal_counts()``;
        the LP's per-column sums over the negative rows are ``literal_counts()[negative]``.

        Examples
        --------
        >>> from logicrules.fca.context import FormalContext
        >>> ContextCounts(FormalContext([[1, 1], [0, 1]]), [1, 0]).literal_counts().tolist()
        [[0, 1], [1, 1]]
        """
        out = self._reduce(_literal_counts)
        return np.zeros((self.n_classes, self.n_attributes), dtype=self._dtype()) if out is None else out

    def gram(self) -> np.ndarray:
        """Per-class Gram (pair) matrices ``X_c^T W_c X_c``, shape (n_classes, m, m).

        Entry ``[c, i, j]`` counts the rows of class ``c`` having both attributes ``i`` and ``j``
        (the diagonal is :meth:`literal_counts`).

        Examples
        --------
        >>> from logicrules.fca.context import FormalContext
        >>> ContextCounts(FormalContext([[1, 1], [1, 0]]), [1, 1]).gram()[1].tolist()
        [[2, 1], [1, 1]]
        """
        out = self._reduce(_gram)
        m = self.n_attributes
        return np.zeros((self.n_classes, m, m), dtype=self._dtype()) if out is None else out

    def type_histogram(self, columns: Any) -> TypeHistogram:
        """Per-class counts of the realized types (truth assignments) of chosen columns.

        Parameters
        ----------
        columns : sequence of str or int
            The columns, at most 62; column ``columns[j]`` is bit ``j`` of the type code.

        Returns
        -------
        TypeHistogram

        Examples
        --------
        >>> from logicrules.fca.context import FormalContext
        >>> K = FormalContext([[1, 0], [1, 0], [0, 1]], attributes=["a", "b"])
        >>> h = ContextCounts(K, [1, 0, 0]).type_histogram(["a"])
        >>> h.keys.tolist(), h.counts.tolist()
        ([0, 1], [[1, 1], [0, 1]])
        """
        index = self.attribute_indices(columns)
        if index.size > MAX_TYPE_FEATURES:
            raise ValueError(f"a type histogram holds at most {MAX_TYPE_FEATURES} columns, got {index.size}")
        out = self._reduce(functools.partial(_type_histogram, columns=index))
        key = tuple(int(j) for j in index)
        if out is None:
            return TypeHistogram(key, np.zeros(0, dtype=np.int64),
                                 np.zeros((self.n_classes, 0), dtype=self._dtype()))
        return out.finish(key)

    def cell_counts(self, combinations: ArrayLike) -> np.ndarray:
        """Per-class counts of every cell of the contingency table of each attribute combination.

        Parameters
        ----------
        combinations : array-like of int, shape (t, r), r <= 16
            ``t`` combinations of ``r`` attribute positions (e.g. triples, quadruples).

        Returns
        -------
        ndarray, shape (n_classes, t, 2**r)
            ``[c, i, cell]`` counts the rows of class ``c`` on which attribute
            ``combinations[i, j]`` equals bit ``j`` of ``cell``, for every ``j``.

        Examples
        --------
        >>> from logicrules.fca.context import FormalContext
        >>> K = FormalContext([[1, 1, 0], [1, 0, 1], [0, 1, 1]])
        >>> ContextCounts(K, [1, 1, 0]).cell_counts([[0, 1]])[1].tolist()   # cells 00 10 01 11
        [[0, 1, 0, 1]]
        """
        combos = np.asarray(combinations)
        if combos.ndim != 2 or (combos.size and combos.dtype.kind not in "iu"):
            raise ValueError(f"combinations must be a 2-D integer array (t, r), got shape {combos.shape}")
        combos = combos.astype(np.intp)
        t, r = combos.shape
        if r > 16:
            raise ValueError(f"cell counts cover combinations of at most 16 attributes, got {r}")
        if combos.size and (combos.min() < 0 or combos.max() >= self.n_attributes):
            raise ValueError(f"attribute positions must lie in [0, {self.n_attributes})")
        out = self._reduce(functools.partial(_cell_counts, combos=combos))
        return np.zeros((self.n_classes, t, 1 << r), dtype=self._dtype()) if out is None else out

    def class_rows(self, cls: int = 1) -> RowMultiset:
        """The distinct rows of one class, merged, with their multiplicities (summed weights).

        Examples
        --------
        >>> from logicrules.fca.context import FormalContext
        >>> rows = ContextCounts(FormalContext([[1, 0], [1, 0], [0, 1]]), [1, 1, 0]).class_rows(1)
        >>> rows.to_dense().tolist(), rows.weights.tolist()
        ([[True, False]], [2])
        """
        if isinstance(cls, bool) or not isinstance(cls, (int, np.integer)) or not 0 <= cls < self.n_classes:
            raise ValueError(f"cls must be a class index in 0 .. {self.n_classes - 1}, got {cls!r}")
        out = self._reduce(functools.partial(_class_rows, cls=int(cls)))
        if out is None:
            m = self.n_attributes
            return RowMultiset(np.zeros((0, -(-m // 8)), dtype=np.uint8), np.zeros(0, dtype=self._dtype()), m)
        return out


def _sum(partials: Iterable[Any]) -> Any:
    total = None
    for part in partials:
        total = part if total is None else total + part
    return total


class ContextCounts(Counts):
    """Counts over a :class:`~logicrules.fca.context.FormalContext` in memory (packed bits).

    Parameters
    ----------
    context : FormalContext
    labels : array-like of int or bool, shape (n_objects,)
        Class index of each object (bool: False = 0, True = 1).
    weights : array-like of float, shape (n_objects,), optional
        Row weights (``sample_weight``).
    n_classes : int, optional
        Default ``max(labels) + 1``, at least 2.
    block_rows : int, default 262144
        Rows per block (rounded up to a multiple of 64).

    Examples
    --------
    >>> from logicrules.fca.context import FormalContext
    >>> c = ContextCounts(FormalContext([[1], [1], [0]]), [True, False, True], weights=[0.5, 1, 2])
    >>> c.literal_counts().tolist(), c.class_totals().tolist()
    ([[1.0], [0.5]], [1.0, 2.5])
    """

    def __init__(self, context: Any, labels: ArrayLike, weights: ArrayLike | None = None,
                 n_classes: int | None = None, block_rows: int = _BLOCK_ROWS) -> None:
        n = int(context.n_objects)
        labels_arr = np.asarray(labels)
        if n_classes is None:
            n_classes = max(2, int(labels_arr.max()) + 1 if labels_arr.size else 2)
        super().__init__(context.attributes, n_classes)
        self._labels, self._weights = _check_rows(labels_arr, weights, n, self._n_classes)
        self._bits = context.bits
        self._class_bits: np.ndarray | None = None
        self._n = n
        self._block_rows = max(64, -(-int(block_rows) // 64) * 64)

    @property
    def weighted(self) -> bool:
        return self._weights is not None

    @property
    def bits(self) -> np.ndarray:
        """The context's packed attribute extents, uint64 (m, W)."""
        return self._bits

    @property
    def labels(self) -> np.ndarray:
        """Class index of every row."""
        return self._labels

    def _blocks(self) -> Iterator[RowBlock]:
        if self._class_bits is None:  # packed once, read by every pass
            self._class_bits = bitset.pack(self._labels[None, :] == np.arange(self._n_classes)[:, None])
        for start in range(0, self._n, self._block_rows):
            stop = min(self._n, start + self._block_rows)
            w = None if self._weights is None else self._weights[start:stop]
            words = slice(start // 64, -(-stop // 64))
            yield RowBlock(self._bits[:, words], stop - start, self._labels[start:stop], w, self._n_classes,
                           self._class_bits[:, words])


class ChunkedCounts(Counts):
    """Counts over row chunks read one after the other (the data need never be whole in memory).

    Parameters
    ----------
    chunks : callable returning an iterable, or a re-iterable (list, tuple)
        Each item is ``(X, labels)`` or ``(X, labels, weights)`` for a chunk of rows: ``X`` a
        bool / 0-1 array (rows, m), a FormalContext, or already a :class:`RowBlock`. Every
        method makes one pass, so a one-shot iterator (a generator) is refused: pass a function
        that returns a fresh one.
    attributes : sequence of str or int
        The attribute names, or their number m (names ``a0 .. a{m-1}``).
    n_classes : int, default 2
    weighted : bool, default False
        Whether chunks carry weights (all of them must then).

    Examples
    --------
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [1, 1]], dtype=bool)
    >>> y = np.array([1, 1, 0, 0])
    >>> chunks = [(X[:3], y[:3]), (X[3:], y[3:])]
    >>> ChunkedCounts(chunks, attributes=["a", "b"]).literal_counts().tolist()
    [[1, 2], [2, 1]]
    """

    def __init__(self, chunks: Callable[[], Iterable[Any]] | Iterable[Any],
                 attributes: Sequence[str] | int, n_classes: int = 2, weighted: bool = False) -> None:
        if isinstance(chunks, Iterator):
            raise TypeError("chunks must be a callable returning an iterable of chunks, or a list: "
                            "a one-shot iterator (generator) would be used up by the first count")
        if not callable(chunks) and not isinstance(chunks, Iterable):
            raise TypeError(f"chunks must be callable or iterable, got {type(chunks).__name__}")
        if isinstance(attributes, (int, np.integer)) and not isinstance(attributes, bool):
            attributes = [f"a{j}" for j in range(int(attributes))]
        super().__init__(attributes, n_classes)
        self._chunks = chunks
        self._weighted = bool(weighted)

    @property
    def weighted(self) -> bool:
        return self._weighted

    def _blocks(self) -> Iterator[RowBlock]:
        source = self._chunks() if callable(self._chunks) else self._chunks
        for number, chunk in enumerate(source):
            block = self._as_block(chunk, number)
            if block.n_rows:
                yield block

    def _as_block(self, chunk: Any, number: int) -> RowBlock:
        if isinstance(chunk, RowBlock):
            block = chunk
        else:
            if not isinstance(chunk, tuple) or len(chunk) not in (2, 3):
                raise ValueError(f"chunk {number} must be (X, labels) or (X, labels, weights), "
                                 f"got {type(chunk).__name__}")
            X, labels, weights = (*chunk, None) if len(chunk) == 2 else chunk
            if hasattr(X, "bits") and hasattr(X, "n_objects"):
                block = RowBlock(X.bits, int(X.n_objects),
                                 *_check_rows(labels, weights, int(X.n_objects), self._n_classes),
                                 n_classes=self._n_classes)
            else:
                block = RowBlock.from_dense(X, labels, weights, self._n_classes)
        if block.n_attributes != self.n_attributes:
            raise ValueError(f"chunk {number} has {block.n_attributes} attributes, expected {self.n_attributes}")
        if block.n_classes != self._n_classes:
            raise ValueError(f"chunk {number} has n_classes={block.n_classes}, expected {self._n_classes}")
        if (block.weights is not None) != self._weighted:
            raise ValueError(f"chunk {number} {'lacks' if self._weighted else 'has'} weights, but "
                             f"the counts were declared with weighted={self._weighted}")
        return block
