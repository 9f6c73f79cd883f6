"""Formal concepts of a context and the Hasse diagram of their lattice.

A formal concept is a pair (A, B) of an extent A (objects) and an intent B (attributes) with
A' = B and B' = A. :func:`enumerate_concepts` lists all of them with Close-by-One (Kuznetsov):
a depth-first search over attributes in which each concept is generated exactly once thanks to
a canonicity test, so the work is polynomial per concept (no enumeration of attribute subsets).
For each concept all its candidate children are closed at once with one vectorized subset test
over the packed attribute extents.

:func:`concept_lattice` builds the Hasse diagram with Lindig's neighbour criterion: the lower
covers of (A, B) are among the concepts ((B + m)', (B + m)'') for attributes m not in B, and such
a candidate with intent D is a cover exactly when every attribute of D \\ B generates it. This
needs ``m`` closures per concept, again vectorized, and no pairwise comparison of all concepts.

These functions are meant for teaching and inspection: the number of concepts can grow
exponentially with the number of attributes, hence the ``limit`` parameter.

Examples
--------
>>> from logicrules.fca.context import FormalContext
>>> K = FormalContext([[1, 1, 0], [1, 0, 1]], attributes=["a", "b", "c"])
>>> [(c.extent, c.intent) for c in enumerate_concepts(K)]
[((0, 1), (0,)), ((0,), (0, 1)), ((1,), (0, 2)), ((), (0, 1, 2))]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple, Protocol

import networkx as nx
import numpy as np

from logicrules.fca import bitset

__all__ = ["Concept", "enumerate_concepts", "concept_lattice"]


class PackedContext(Protocol):
    """What the concept functions read of a context (a :class:`~logicrules.fca.context.FormalContext`).

    Declared here rather than imported, so that this module does not depend on the context
    module (which depends on this one for its ``concepts`` and ``lattice`` methods).
    """

    @property
    def bits(self) -> np.ndarray: ...

    @property
    def n_objects(self) -> int: ...

    @property
    def objects(self) -> Sequence[Hashable]: ...

    @property
    def attributes(self) -> Sequence[str]: ...


# Upper bound on the words of the temporary (candidates x attributes x W) array of one
# vectorized closure step (2**21 words = 16 MiB); larger steps are split into chunks.
_CHUNK_WORDS = 1 << 21
# Number of (concept, attribute) pairs closed at once when building the Hasse diagram.
_PAIRS_PER_BATCH = 1 << 15


class Concept(NamedTuple):
    """A formal concept: sorted object positions (extent) and attribute positions (intent).

    Examples
    --------
    >>> Concept(extent=(0, 2), intent=(1,))
    Concept(extent=(0, 2), intent=(1,))
    """

    extent: tuple[int, ...]
    intent: tuple[int, ...]


def enumerate_concepts(context: PackedContext, limit: int | None = 100_000) -> list[Concept]:
    """All formal concepts of a context, by Close-by-One.

    Parameters
    ----------
    context : FormalContext
    limit : int or None, default 100_000
        Maximum number of concepts to produce; ``None`` for no limit.

    Returns
    -------
    list of Concept
        In the order Close-by-One generates them, starting with the top concept (all objects,
        their common attributes): the children of a concept in increasing order of the
        attribute that generated them, then depth-first. The order is deterministic.

    Raises
    ------
    ValueError
        If the context has more than ``limit`` concepts (the message says how to proceed).

    Examples
    --------
    >>> from logicrules.fca.context import FormalContext
    >>> len(enumerate_concepts(FormalContext([[1, 0, 0], [0, 1, 0], [0, 0, 1]])))
    5
    """
    limit = _check_limit(limit)
    extents, intents = _close_by_one(context.bits, context.n_objects, limit)
    return _as_concepts(extents, intents, context.n_objects)


def concept_lattice(context: PackedContext, limit: int | None = 100_000) -> nx.DiGraph:
    """Hasse diagram of the concept lattice as a directed graph.

    Parameters
    ----------
    context : FormalContext
    limit : int or None, default 100_000
        Maximum number of concepts; see :func:`enumerate_concepts`.

    Returns
    -------
    networkx.DiGraph
        Node ``i`` is the ``i``-th concept of :func:`enumerate_concepts` (node 0 is the top),
        with attributes ``extent``, ``intent`` (tuples of positions), ``extent_names`` (object
        labels) and ``intent_names`` (attribute names). An edge ``u -> v`` means ``v`` is an
        upper cover of ``u``: ``extent(u)`` is strictly inside ``extent(v)`` with no concept in
        between.

    Raises
    ------
    ValueError
        If the context has more than ``limit`` concepts.

    Examples
    --------
    >>> from logicrules.fca.context import FormalContext
    >>> G = concept_lattice(FormalContext([[1, 1], [1, 0]], attributes=["x", "y"]))
    >>> sorted((G.nodes[u]["intent_names"], G.nodes[v]["intent_names"]) for u, v in G.edges)
    [(('x', 'y'), ('x',))]
    """
    limit = _check_limit(limit)
    bits, n = context.bits, context.n_objects
    extents, intents = _close_by_one(bits, n, limit)
    concepts = _as_concepts(extents, intents, n)
    graph = nx.DiGraph()
    for i, concept in enumerate(concepts):
        graph.add_node(i, extent=concept.extent, intent=concept.intent,
                       extent_names=tuple(context.objects[g] for g in concept.extent),
                       intent_names=tuple(context.attributes[j] for j in concept.intent))
    lower, upper = _cover_edges(bits, extents, intents)
    graph.add_edges_from(zip(lower.tolist(), upper.tolist()))
    return graph


def _close_by_one(bits: np.ndarray, n: int, limit: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Extents (k, W) and bool intents (k, m) of all concepts, depth-first Close-by-One."""
    m = bits.shape[0]
    top_extent = bitset.full(n)
    extents = [top_extent]
    intents = [_intents(bits, top_extent[None, :])[0]]
    stack = [(0, 0)]  # (concept id, first attribute that may be added)
    positions = np.arange(m)
    while stack:
        parent, start = stack.pop()
        extent, intent = extents[parent], intents[parent]
        candidates = np.flatnonzero(~intent[start:]) + start
        if candidates.size == 0:
            continue
        child_extents = extent & bits[candidates]
        child_intents = _intents(bits, child_extents)
        new = child_intents & ~intent
        # canonical iff the closure adds no attribute before the one that generated it
        canonical = ~np.any(new & (positions < candidates[:, None]), axis=1)
        children = []
        for r in np.flatnonzero(canonical):
            if limit is not None and len(extents) >= limit:
                raise ValueError(f"the context has more than limit={limit} formal concepts; "
                                 f"pass a larger limit (or limit=None) to enumerate them all")
            children.append((len(extents), int(candidates[r]) + 1))
            extents.append(child_extents[r])
            intents.append(child_intents[r])
        stack.extend(reversed(children))
    return np.stack(extents), np.stack(intents)


def _cover_edges(bits: np.ndarray, extents: np.ndarray, intents: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Hasse diagram edges (lower ids, upper ids) by Lindig's criterion, batched over concepts.

    For every concept i and attribute j not in its intent B_i, the intent D of (B_i + j)'' is
    computed; (D', D) is a lower cover of concept i iff the pair (i, D) is generated by exactly
    |D \\ B_i| attributes. Intents are then mapped to concept ids by one ``np.unique``.
    """
    n_concepts, m = intents.shape
    if m == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    uppers, lowers = [], []
    step = max(1, _PAIRS_PER_BATCH // m)
    for lo in range(0, n_concepts, step):
        outside = ~intents[lo:lo + step]
        owner, candidate = np.nonzero(outside)
        if owner.size == 0:
            continue
        generated = _intents(bits, extents[lo + owner] & bits[candidate])
        added = np.count_nonzero(generated & outside[owner], axis=1)
        keys = np.concatenate([owner.astype("<i8")[:, None].view(np.uint8),
                               np.packbits(generated, axis=1)], axis=1)
        _, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
        first = np.sort(first[counts == added[first]])
        uppers.append(lo + owner[first])
        lowers.append(generated[first])
    if not uppers:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lower_intents = np.concatenate(lowers)
    all_keys = np.packbits(np.concatenate([intents, lower_intents]), axis=1)
    _, inverse = np.unique(all_keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    concept_of = np.empty(inverse.max() + 1, dtype=np.int64)
    concept_of[inverse[:n_concepts]] = np.arange(n_concepts)
    return concept_of[inverse[n_concepts:]], np.concatenate(uppers).astype(np.int64)


def _intents(bits: np.ndarray, extents: np.ndarray) -> np.ndarray:
    """Bool (k, m): attribute j is shared by all objects of extent i (chunked subset test)."""
    k, m = extents.shape[0], bits.shape[0]
    out = np.empty((k, m), dtype=bool)
    step = max(1, _CHUNK_WORDS // max(1, m * bits.shape[1]))
    for lo in range(0, k, step):
        chunk = extents[lo:lo + step]
        out[lo:lo + step] = bitset.is_subset(chunk[:, None, :], bits[None, :, :])
    return out


def _as_concepts(extents: np.ndarray, intents: np.ndarray, n: int) -> list[Concept]:
    members = bitset.unpack(extents, n)
    return [Concept(tuple(np.flatnonzero(a).tolist()), tuple(np.flatnonzero(b).tolist()))
            for a, b in zip(members, intents)]


def _check_limit(limit: int | None) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (int, np.integer)):
        raise TypeError(f"limit must be a positive int or None, got {type(limit).__name__}")
    if limit < 1:
        raise ValueError(f"limit must be >= 1 (there is always at least one concept), got {limit}")
    return int(limit)
