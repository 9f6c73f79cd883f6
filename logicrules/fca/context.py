"""Formal context K = (G, M, I) stored as one packed bitset (extent) per attribute.

The context is the shared model of all learners: objects are rows, binary attributes are columns,
and each attribute's extent is a row of ``uint64`` words (see :mod:`logicrules.fca.bitset`), so
the extent of a conjunction of attributes is one AND-reduce over a few rows and the intent of a
set of objects is one vectorized subset test against all attribute rows.

Empty data is allowed: a context may have zero objects and/or zero attributes. The prime
operators then follow the same definitions (e.g. with no objects every extent is empty and the
intent of the empty object set is all attributes), and there is exactly one formal concept.

Examples
--------
>>> import numpy as np
>>> from logicrules.fca.context import FormalContext
>>> K = FormalContext(np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1]]), attributes=["a", "b", "c"])
>>> K.extent(["b"]).tolist(), K.intent([0, 2]).tolist(), K.closure(["c"]).tolist()
([0, 2], [0, 1], [0, 2])
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from logicrules.fca import bitset
from logicrules.fca.concepts import Concept, concept_lattice, enumerate_concepts

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["FormalContext"]

_REPR_NAMES = 6


class FormalContext:
    """A formal context: objects x binary attributes, attributes stored as packed bitsets.

    Parameters
    ----------
    incidence : ndarray of shape (n, m) or DataFrame
        Incidence relation: ``incidence[g, j]`` is true when object ``g`` has attribute ``j``.
        Values must be bool or the numbers 0/1 (NaN, 2, strings, ... are rejected with a
        ValueError naming them). A DataFrame may mix bool and 0/1 numeric columns.
    attributes : sequence of str, optional
        Attribute names (converted with ``str``, must be unique). Defaults to the DataFrame's
        column labels, or ``"a0" .. "a{m-1}"``.
    objects : sequence, optional
        Object labels (kept as given). Defaults to the DataFrame's index, or ``range(n)``.

    Attributes
    ----------
    bits : ndarray of uint64, shape (m, W)
        Read-only; row ``j`` is the extent of attribute ``j`` (tail bits zero).
    n_objects, n_attributes : int
    attributes : tuple of str
    objects : tuple

    Notes
    -----
    Attributes are addressed by name (``str``) or position (``int``), objects by position
    (``int``); both also accept a boolean mask of the right length. Contexts with zero objects
    and/or zero attributes are valid.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fly": [True, False, True], "swim": [False, True, True]},
    ...                   index=["sparrow", "fish", "duck"])
    >>> K = FormalContext(df)
    >>> K
    FormalContext(n_objects=3, n_attributes=2, attributes=['fly', 'swim'])
    >>> [K.objects[g] for g in K.extent(["fly", "swim"])]
    ['duck']
    >>> len(K.concepts())
    4
    """

    def __init__(self, incidence: ArrayLike | pd.DataFrame,
                 attributes: Sequence[str] | None = None,
                 objects: Sequence[Hashable] | None = None) -> None:
        if isinstance(incidence, pd.DataFrame):
            dense = _validate_incidence(incidence.to_numpy(dtype=object)
                                        if _needs_object(incidence) else incidence.to_numpy())
            default_attributes: Sequence[Any] = list(incidence.columns)
            default_objects: Sequence[Hashable] = incidence.index
        else:
            if isinstance(incidence, pd.Series):
                raise ValueError("incidence must be 2-D (objects x attributes), got a Series; "
                                 "use series.to_frame()")
            dense = _validate_incidence(np.asarray(incidence))
            default_attributes = [f"a{j}" for j in range(dense.shape[1])]
            default_objects = range(dense.shape[0])
        n, m = dense.shape
        self._setup(bitset.pack_columns(dense), n,
                    default_attributes if attributes is None else attributes,
                    default_objects if objects is None else objects)

    @classmethod
    def from_bits(cls, bits: np.ndarray, n_objects: int, attributes: Sequence[str] | None = None,
                  objects: Sequence[Hashable] | None = None) -> FormalContext:
        """A context from already packed attribute extents (no dense matrix is ever made).

        Parameters
        ----------
        bits : ndarray of uint64, shape (m, W)
            Row ``j`` is attribute ``j``'s extent (layout of :mod:`logicrules.fca.bitset`,
            ``W = n_words(n_objects)``, tail bits zero). Used as is (made read-only), not copied.
        n_objects : int
        attributes : sequence of str, optional
            Defaults to ``"a0" .. "a{m-1}"``.
        objects : sequence, optional
            Object labels, default ``range(n_objects)``.

        Returns
        -------
        FormalContext

        Raises
        ------
        ValueError
            For a wrong dtype or width, or set bits past ``n_objects``.

        Examples
        --------
        >>> K = FormalContext.from_bits(np.array([[5], [2]], dtype=np.uint64), 3, ["x", "y"])
        >>> K.to_dense().tolist()
        [[True, False], [False, True], [True, False]]
        """
        bits = np.asarray(bits)
        if bits.dtype != np.uint64 or bits.ndim != 2:
            raise ValueError(f"bits must be a 2-D uint64 array (m, W), got {bits.dtype} of shape {bits.shape}")
        n = bitset._check_n(n_objects)
        if bits.shape[1] != bitset.n_words(n):
            raise ValueError(f"bits has {bits.shape[1]} words per attribute; {n} objects need "
                             f"{bitset.n_words(n)}")
        if bits.shape[1] and (bits[:, -1] & ~bitset.tail_mask(n)[-1]).any():
            raise ValueError(f"bits has set bits past the last object ({n}); the tail must be zero")
        context = cls.__new__(cls)
        m = bits.shape[0]
        context._setup(bits, n, [f"a{j}" for j in range(m)] if attributes is None else attributes,
                       range(n) if objects is None else objects)
        return context

    def _setup(self, bits: np.ndarray, n: int, attributes: Sequence[Any],
               objects: Sequence[Hashable]) -> None:
        m = bits.shape[0]
        self._attributes = _names(attributes, m)
        self._object_labels = _labels(objects, n)
        self._objects: tuple[Hashable, ...] | None = None
        self._index = {name: j for j, name in enumerate(self._attributes)}
        self._n_objects = n
        if bits.flags.writeable:
            bits = bits.view()
            bits.flags.writeable = False
        self._bits = bits

    @property
    def bits(self) -> np.ndarray:
        """Attribute extents, uint64 of shape (m, W), read-only."""
        return self._bits

    @property
    def n_objects(self) -> int:
        """Number of objects ``n``."""
        return self._n_objects

    @property
    def n_attributes(self) -> int:
        """Number of attributes ``m``."""
        return len(self._attributes)

    @property
    def attributes(self) -> tuple[str, ...]:
        """Attribute names, in column order."""
        return self._attributes

    @property
    def objects(self) -> tuple[Hashable, ...]:
        """Object labels, in row order (made a tuple on first use)."""
        if self._objects is None:
            self._objects = tuple(self._object_labels)
        return self._objects

    def attribute_indices(self, attrs: Any) -> np.ndarray:
        """Positions of attributes given by name and/or position.

        Parameters
        ----------
        attrs : str, int, iterable of str/int, or bool mask of length m
            A single name or position, or several; order is kept, no deduplication.

        Returns
        -------
        ndarray of int64

        Raises
        ------
        ValueError
            For unknown names or positions out of range (all are named in the message).

        Examples
        --------
        >>> K = FormalContext([[1, 0]], attributes=["x", "y"])
        >>> K.attribute_indices(["y", 0]).tolist()
        [1, 0]
        """
        return self._resolve(attrs, "attribute", self.n_attributes, self._index)

    def object_indices(self, objects: Any) -> np.ndarray:
        """Positions of objects given by position or as a boolean mask of length n.

        Examples
        --------
        >>> K = FormalContext([[1], [0], [1]])
        >>> K.object_indices([True, False, True]).tolist()
        [0, 2]
        """
        return self._resolve(objects, "object", self.n_objects, None)

    def extent_bits(self, attributes: Any = ()) -> np.ndarray:
        """Extent of a set of attributes as a bitset: an AND-reduce over their rows.

        Parameters
        ----------
        attributes : names, positions or bool mask (see :meth:`attribute_indices`)
            The empty set gives all objects (FCA convention).

        Returns
        -------
        ndarray of uint64, shape (W,)

        Examples
        --------
        >>> K = FormalContext([[1, 1], [1, 0], [0, 1]])
        >>> K.extent_bits([0, 1])
        array([1], dtype=uint64)
        """
        index = self.attribute_indices(attributes)
        if index.size == 0:
            return bitset.full(self.n_objects)
        return np.bitwise_and.reduce(self._bits[index], axis=0)

    def extent(self, attributes: Any = ()) -> np.ndarray:
        """Objects having all given attributes (the prime operator B -> B').

        Parameters
        ----------
        attributes : names, positions or bool mask (see :meth:`attribute_indices`)
            The empty set gives all objects.

        Returns
        -------
        ndarray of int64
            Sorted object positions.

        Examples
        --------
        >>> K = FormalContext([[1, 1], [1, 0], [0, 1]], attributes=["p", "q"])
        >>> K.extent(["p"]).tolist(), K.extent().tolist()
        ([0, 1], [0, 1, 2])
        """
        return _positions(self.extent_bits(attributes), self.n_objects)

    def intent(self, objects: Any = ()) -> np.ndarray:
        """Attributes shared by all given objects (the prime operator A -> A').

        Parameters
        ----------
        objects : positions or bool mask (see :meth:`object_indices`)
            The empty set gives all attributes (FCA convention).

        Returns
        -------
        ndarray of int64
            Sorted attribute positions.

        Examples
        --------
        >>> K = FormalContext([[1, 1], [1, 0], [0, 1]])
        >>> K.intent([0, 1]).tolist(), K.intent().tolist()
        ([0], [0, 1])
        """
        mask = np.zeros(self.n_objects, dtype=bool)
        mask[self.object_indices(objects)] = True
        return self._intent_of(bitset.pack(mask))

    def closure(self, attributes: Any) -> np.ndarray:
        """Closure B'' of a set of attributes: all attributes implied by it in this context.

        Returns
        -------
        ndarray of int64
            Sorted attribute positions; contains the given ones.

        Examples
        --------
        >>> K = FormalContext([[1, 1, 0], [1, 0, 1], [1, 1, 1]])
        >>> K.closure([1]).tolist()
        [0, 1]
        """
        return self._intent_of(self.extent_bits(attributes))

    def to_dense(self) -> np.ndarray:
        """The incidence matrix, bool of shape (n, m) (a new array).

        Examples
        --------
        >>> FormalContext([[1, 0], [0, 1]]).to_dense()
        array([[ True, False],
               [False,  True]])
        """
        return np.ascontiguousarray(bitset.unpack(self._bits, self.n_objects).T)

    def to_frame(self) -> pd.DataFrame:
        """The incidence matrix as a bool DataFrame (objects as index, attributes as columns).

        Examples
        --------
        >>> FormalContext([[1, 0]], attributes=["x", "y"], objects=["o"]).to_frame()
              x      y
        o  True  False
        """
        return pd.DataFrame(self.to_dense(), index=pd.Index(list(self.objects)),
                            columns=pd.Index(list(self._attributes), dtype=object))

    def concepts(self, limit: int | None = 100_000) -> list[Concept]:
        """All formal concepts (Close-by-One); see :func:`logicrules.fca.concepts.enumerate_concepts`.

        Raises
        ------
        ValueError
            If the context has more than ``limit`` concepts.

        Examples
        --------
        >>> for c in FormalContext([[1, 0], [0, 1]]).concepts():
        ...     print(c)
        Concept(extent=(0, 1), intent=())
        Concept(extent=(0,), intent=(0,))
        Concept(extent=(1,), intent=(1,))
        Concept(extent=(), intent=(0, 1))
        """
        return enumerate_concepts(self, limit=limit)

    def lattice(self, limit: int | None = 100_000) -> nx.DiGraph:
        """Hasse diagram of the concept lattice; see :func:`logicrules.fca.concepts.concept_lattice`.

        Examples
        --------
        >>> G = FormalContext([[1, 0], [0, 1]]).lattice()
        >>> G.number_of_nodes(), G.number_of_edges()
        (4, 4)
        """
        return concept_lattice(self, limit=limit)

    def __repr__(self) -> str:
        names = list(self._attributes[:_REPR_NAMES])
        more = f" + {self.n_attributes - _REPR_NAMES} more" if self.n_attributes > _REPR_NAMES else ""
        return (f"FormalContext(n_objects={self.n_objects}, n_attributes={self.n_attributes}, "
                f"attributes={names!r}{more})")

    def _intent_of(self, mask: np.ndarray) -> np.ndarray:
        """Sorted positions of the attributes whose extent contains the bitset ``mask``."""
        return np.flatnonzero(bitset.is_subset(mask, self._bits)).astype(np.int64)

    def _resolve(self, items: Any, kind: str, size: int, names: dict[str, int] | None) -> np.ndarray:
        if isinstance(items, (str, int, np.integer)) and not isinstance(items, (bool, np.bool_)):
            items = [items]
        if isinstance(items, (pd.Series, pd.Index)):
            items = items.to_numpy()
        if isinstance(items, np.ndarray):
            if items.ndim != 1:
                raise ValueError(f"{kind}s must be a 1-D sequence, got an array of shape {items.shape}")
            if items.dtype == bool:
                if items.size != size:
                    raise ValueError(f"a boolean {kind} mask must have length {size}, got {items.size}")
                return np.flatnonzero(items).astype(np.int64)
            if items.dtype.kind in "iu":
                return _check_range(items.astype(np.int64), kind, size)
            items = items.tolist()
        if not isinstance(items, Iterable):
            raise TypeError(f"{kind}s must be given as a name, a position or an iterable of them, "
                            f"got {type(items).__name__}")
        items = list(items)
        if items and all(isinstance(x, (bool, np.bool_)) for x in items):
            return self._resolve(np.asarray(items, dtype=bool), kind, size, names)
        positions: list[int] = []
        unknown: list[Any] = []
        for x in items:
            if isinstance(x, (bool, np.bool_)):
                raise TypeError(f"mixed booleans and {kind} keys: {items!r}")
            if isinstance(x, (int, np.integer)):
                positions.append(int(x))
            elif names is not None and isinstance(x, str):
                if x in names:
                    positions.append(names[x])
                else:
                    unknown.append(x)
            else:
                expected = "names (str) or positions (int)" if names is not None else "positions (int)"
                raise TypeError(f"{kind}s must be {expected}, got {x!r} of type {type(x).__name__}")
        if unknown:
            raise ValueError(f"unknown {kind} name(s): {unknown!r}")
        return _check_range(np.asarray(positions, dtype=np.int64), kind, size)


def _check_range(index: np.ndarray, kind: str, size: int) -> np.ndarray:
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise ValueError(f"{kind} position(s) out of range [0, {size}): {bad.tolist()}")
    return index


def _positions(words: np.ndarray, n: int) -> np.ndarray:
    return np.flatnonzero(bitset.unpack(words, n)).astype(np.int64)


def _needs_object(df: pd.DataFrame) -> bool:
    """Whether a DataFrame has columns (nullable / extension dtypes) best validated as objects."""
    return any(not isinstance(dtype, np.dtype) for dtype in df.dtypes)


def _validate_incidence(values: np.ndarray) -> np.ndarray:
    """Bool (n, m) copy of an incidence matrix; ValueError naming any non-0/1 entry."""
    if values.ndim != 2:
        raise ValueError(f"incidence must be 2-D (objects x attributes), got shape {values.shape}")
    kind = values.dtype.kind
    if kind == "b":
        return values.astype(bool, copy=True)
    if kind in "iuf":
        if kind == "f" and np.isnan(values).any():
            raise ValueError("incidence contains NaN: missing values must be resolved before "
                             "building a formal context (e.g. a binarizer with missing='false')")
        valid = (values == 0) | (values == 1)
        if not valid.all():
            bad = np.unique(values[~valid])[:5].tolist()
            raise ValueError(f"incidence must contain only 0/1 or True/False, found {bad}")
        return values.astype(bool)
    if kind == "O":
        flat = values.ravel()
        missing = pd.isna(flat)
        if missing.any():
            raise ValueError("incidence contains missing values (NaN/None/NA): missing values must "
                             "be resolved before building a formal context")
        ok = np.fromiter((_is_zero_one(v) for v in flat), dtype=bool, count=flat.size)
        if not ok.all():
            bad = [flat[i] for i in np.flatnonzero(~ok)[:5]]
            raise ValueError(f"incidence must contain only 0/1 or True/False, found {bad!r}")
        return flat.astype(bool).reshape(values.shape)
    raise ValueError(f"incidence must contain only 0/1 or True/False, got dtype {values.dtype}")


def _is_zero_one(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return True
    if isinstance(v, (int, float, np.integer, np.floating)):
        return v == 0 or v == 1
    return False


def _names(names: Sequence[Any], m: int) -> tuple[str, ...]:
    if isinstance(names, str):
        raise TypeError("attributes must be a sequence of names, got a single str")
    names = tuple(str(x) for x in names)
    if len(names) != m:
        raise ValueError(f"got {len(names)} attribute names for {m} attributes (columns)")
    seen: set[str] = set()
    duplicates = sorted({x for x in names if x in seen or seen.add(x)})
    if duplicates:
        raise ValueError(f"duplicate attribute names: {duplicates!r}")
    return names


def _labels(objects: Sequence[Hashable], n: int) -> Sequence[Hashable]:
    """The object labels as given (a range or an index stays lazy), checked for length."""
    if isinstance(objects, str):
        raise TypeError("objects must be a sequence of labels, got a single str")
    if not isinstance(objects, (range, pd.Index, tuple)):  # immutable ones stay lazy
        objects = tuple(objects)
    if len(objects) != n:
        raise ValueError(f"got {len(objects)} object labels for {n} objects (rows)")
    return objects
