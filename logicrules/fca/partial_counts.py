"""Partial counts that are summed over row blocks: type histograms and multisets of distinct rows.

Each value here is what one kernel of :class:`~logicrules.fca.counts.Counts` returns for one
block; ``+`` merges two of them, so the same code sums chunks, whole arrays or partitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
