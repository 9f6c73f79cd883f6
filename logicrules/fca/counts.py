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
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from logicrules.fca import bitset
from logicrules.fca.count_kernels import (_cell_counts, _class_rows, _class_totals, _gram, _literal_counts,
                                          _type_histogram)
from logicrules.fca.partial_counts import RowMultiset, TypeHistogram
from logicrules.fca.row_block import RowBlock, _check_rows
from logicrules.fca.row_codes import MAX_TYPE_FEATURES, packed_rows_from_bits, type_codes_from_bits  # noqa: F401

__all__ = ["ChunkedCounts", "ContextCounts", "Counts", "RowBlock", "RowMultiset", "TypeHistogram",
           "type_codes_from_bits", "MAX_TYPE_FEATURES"]

#: Rows per block of :class:`ContextCounts` (a multiple of 64, so blocks are whole words).
_BLOCK_ROWS = 1 << 18


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
