"""One block of rows as the counting kernels read it: packed attribute bits, class labels, weights."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from logicrules.fca import bitset


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

    def __sizeof__(self) -> int:
        """Bytes held (its arrays): what dask's memory accounting and transfer costs read."""
        arrays = (self.bits, self.labels, self.weights, self.packed_classes)
        return object.__sizeof__(self) + sum(a.nbytes for a in arrays if a is not None)

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
