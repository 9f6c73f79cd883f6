"""The premise space P_k of the optimal short premise search, as truth tables over few variables.

``P_1 = {m, not m}`` (or ``M`` alone without negations) and ``P_k = {p AND q, p OR q : p in P_i,
q in P_{k-i}}`` (DESIGN.md section 2). A premise of size 2 or 3 over *distinct* attributes is a
read-once formula, and its extent is a union of cells of the truth table of its attributes, so
it is described exactly by a bit mask over the 4 (pairs) or 8 (triples) cells. Premises of size
<= 3 that repeat an attribute are functions of at most two attributes, and every such function of
formula size <= 3 already has a premise of size <= 2 (only XOR/XNOR need 4 leaves; without
negations only the monotone ``a, b, a AND b, a OR b`` occur), so masks over distinct attributes
plus the constants ``a AND NOT a`` / ``a OR NOT a`` cover every extent of ``P_1 .. P_3``.

This module enumerates those shapes once (cell masks and a builder of the syntactic formula for
each mask). The attributes of a search are prepared (merged, packed by class) in
:mod:`~logicrules.fca.premise.preparation`, whose names this module re-exports.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from logicrules.fca.premise.preparation import PackedColumns, PreparedAttributes, prepare_attributes
from logicrules.formula import And, Formula, Or

__all__ = [
    "PackedColumns",
    "PreparedAttributes",
    "Shape",
    "count_premises",
    "pair_shapes",
    "prepare_attributes",
    "quadruple_shapes",
    "repeat_shapes",
    "shape_matrix",
    "shape_size",
    "triple_shapes",
]

LiteralBuilder = Callable[[int, bool], Formula]


@dataclass(frozen=True)
class Shape:
    """A premise shape over ``k`` variables: its cell mask and how to write it.

    ``mask`` bit ``j`` is set when the premise holds on cell ``j`` of the truth table, cell
    ``j = sum_i v_i 2^(k-1-i)`` for variable values ``v_0 .. v_{k-1}`` (first variable = most
    significant bit). ``tree`` is ``("lit", i, negated)`` or ``(op, left, right)`` with ``op`` in
    {"and", "or"}.
    """

    mask: int
    tree: tuple

    def build(self, literal: LiteralBuilder, variables: Sequence[int]) -> Formula:
        """The formula of this shape over ``variables`` (indices passed to ``literal``)."""
        return _build(self.tree, literal, variables)


def _build(tree: tuple, literal: LiteralBuilder, variables: Sequence[int]) -> Formula:
    if tree[0] == "lit":
        return literal(int(variables[tree[1]]), bool(tree[2]))
    left = _build(tree[1], literal, variables)
    right = _build(tree[2], literal, variables)
    return And(left, right) if tree[0] == "and" else Or(left, right)


def _truth(tree: tuple, values: tuple[int, ...]) -> bool:
    if tree[0] == "lit":
        return bool(values[tree[1]]) != bool(tree[2])
    left = _truth(tree[1], values)
    right = _truth(tree[2], values)
    return (left and right) if tree[0] == "and" else (left or right)


def _mask(tree: tuple, k: int) -> int:
    mask = 0
    for j, values in enumerate(itertools.product((0, 1), repeat=k)):
        if _truth(tree, values):
            mask |= 1 << j
    return mask


def _unique_shapes(trees: list[tuple], k: int) -> tuple[Shape, ...]:
    shapes: dict[int, Shape] = {}
    for tree in trees:
        mask = _mask(tree, k)
        shapes.setdefault(mask, Shape(mask, tree))
    return tuple(shapes.values())


CONNECTIVES = ("and", "or")


@lru_cache(maxsize=None)
def pair_shapes(negations: bool, connectives: tuple[str, ...] = CONNECTIVES) -> tuple[Shape, ...]:
    """Distinct premises ``l0 AND l1``, ``l0 OR l1`` over two distinct variables (8 or 2).

    ``connectives`` restricts the operators (``("and",)``: conjunctions only), here and in the
    other shape lists.
    """
    polarities = (False, True) if negations else (False,)
    trees = [
        (op, ("lit", 0, p0), ("lit", 1, p1))
        for op in connectives for p0 in polarities for p1 in polarities
    ]
    return _unique_shapes(trees, 2)


@lru_cache(maxsize=None)
def triple_shapes(negations: bool, connectives: tuple[str, ...] = CONNECTIVES) -> tuple[Shape, ...]:
    """Distinct read-once premises of 3 literals over three distinct variables (64 or 8).

    They are ``x o1 (y o2 z)`` for every choice of the lone variable ``x``, operators and
    polarities: AND-AND and OR-OR (one and seven cells), ``x AND (y OR z)`` and
    ``x OR (y AND z)``.
    """
    polarities = (False, True) if negations else (False,)
    trees = []
    for x, y, z in ((0, 1, 2), (1, 0, 2), (2, 0, 1)):
        for o1, o2 in itertools.product(connectives, repeat=2):
            for px, py, pz in itertools.product(polarities, repeat=3):
                trees.append((o1, ("lit", x, px), (o2, ("lit", y, py), ("lit", z, pz))))
    return _unique_shapes(trees, 3)


def shape_size(tree: tuple) -> int:
    """Number of literals (leaves) of a shape's tree."""
    return 1 if tree[0] == "lit" else shape_size(tree[1]) + shape_size(tree[2])


@lru_cache(maxsize=None)
def quadruple_shapes(negations: bool, connectives: tuple[str, ...] = CONNECTIVES) -> tuple[Shape, ...]:
    """Distinct read-once premises of 4 literals over four distinct variables.

    A premise of size 4 over four distinct attributes is ``x o (y o (z o w))`` (``P_1 o P_3``)
    or ``(x o y) o (z o w)`` (``P_2 o P_2``); masks are over the 16 cells ``8 va + 4 vb + 2 vc +
    vd``. 52 functions without negations, 832 with (every polarity of every variable).
    """
    polarities = (False, True) if negations else (False,)
    trees = []
    ops = connectives
    for x in range(4):
        rest = [i for i in range(4) if i != x]
        for s in triple_shapes(negations, connectives):
            sub = _relabel(s.tree, rest)
            for o in ops:
                for px in polarities:
                    trees.append((o, ("lit", x, px), sub))
    for (x, y), (z, w) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        for left in pair_shapes(negations, connectives):
            for right in pair_shapes(negations, connectives):
                for o in ops:
                    trees.append((o, _relabel(left.tree, (x, y)), _relabel(right.tree, (z, w))))
    return _unique_shapes(trees, 4)


def _relabel(tree: tuple, variables: Sequence[int]) -> tuple:
    if tree[0] == "lit":
        return ("lit", int(variables[tree[1]]), tree[2])
    return (tree[0], _relabel(tree[1], variables), _relabel(tree[2], variables))


@lru_cache(maxsize=None)
def repeat_shapes(k: int, negations: bool, max_size: int = 4, connectives: tuple[str, ...] = CONNECTIVES
                  ) -> tuple[Shape, ...]:
    """Every distinct function of ``k`` variables that a premise of size <= ``max_size`` computes.

    The premises may repeat variables (e.g. ``(a AND b) OR (NOT a AND c)``, XOR over two
    variables), so these are the premises of size 4 over at most three distinct attributes. Built
    by the definition (``P_j = P_i o P_(j-i)``) over the ``2^k``-cell truth tables, keeping the
    smallest premise per mask (a premise's extent depends only on its operands' extents, so one
    premise per mask and size suffices). Constants (``a AND NOT a``) are included when they occur.
    Sorted by size. Combining only the smallest premise of each function is enough: a function
    reached at size ``i`` by a larger premise is reached by its smallest one too, and any
    combination with it then lands at a size already enumerated.
    """
    polarities = (False, True) if negations else (False,)
    levels: list[dict[int, tuple]] = [{}]
    seen: dict[int, tuple] = {}
    first = {}
    for i in range(k):
        for neg in polarities:
            tree = ("lit", i, neg)
            first.setdefault(_mask(tree, k), tree)
    levels.append(first)
    seen.update(first)
    for size in range(2, max_size + 1):
        new: dict[int, tuple] = {}
        for i in range(1, size // 2 + 1):
            for m1, t1 in levels[i].items():
                for m2, t2 in levels[size - i].items():
                    for mask, tree in ((m1 & m2, ("and", t1, t2)), (m1 | m2, ("or", t1, t2))):
                        if tree[0] in connectives and mask not in seen and mask not in new:
                            new[mask] = tree
        levels.append(new)
        seen.update(new)
    return tuple(Shape(mask, tree) for mask, tree in sorted(seen.items(), key=lambda kv: shape_size(kv[1])))


def shape_matrix(shapes: Sequence[Shape], k: int) -> np.ndarray:
    """0/1 int64 matrix (len(shapes), 2**k): row ``f`` marks the cells where shape ``f`` holds."""
    cells = np.arange(2**k)
    return np.array([(s.mask >> cells) & 1 for s in shapes], dtype=np.int64).reshape(len(shapes), 2**k)


def count_premises(n_literals: int, max_size: int) -> list[int]:
    """Number of syntactic premises of each size 1..max_size, as the definition builds them.

    ``|P_1|`` is the number of literals; ``|P_k| = sum_{i=1}^{floor(k/2)} 2 |P_i| |P_{k-i}|``
    (two operators, ``p`` from ``P_i`` and ``q`` from ``P_{k-i}``), the iteration count of a naive
    enumeration (the paper's "# premises").

    Examples
    --------
    >>> count_premises(10, 3)
    [10, 200, 4000]
    """
    counts = [0, int(n_literals)]
    for k in range(2, max_size + 1):
        counts.append(sum(2 * counts[i] * counts[k - i] for i in range(1, k // 2 + 1)))
    return counts[1:]


def _quadruple_index_tables() -> tuple[np.ndarray, np.ndarray]:
    """Cell index tables of :func:`~logicrules.fca.premise.closed_forms.best_read_once4`.

    ``half[x, v]``: the 8 cells (``k = 8 va + 4 vb + 2 vc + vd``) with variable ``x`` equal to
    ``v``, in increasing order; ``pair[p, i, j]``: for the pairings ``{ab|cd}, {ac|bd},
    {ad|bc}``, the cell whose first pair has cell ``i`` and second pair cell ``j``.
    """
    half = np.zeros((4, 2, 8), np.int64)
    for x in range(4):
        for val in range(2):
            half[x, val] = [k for k in range(16) if ((k >> (3 - x)) & 1) == val]
    pair = np.zeros((3, 4, 4), np.int64)
    for q, (x, y, z, w) in enumerate(((0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2))):
        for k in range(16):
            vals = [(k >> (3 - i)) & 1 for i in range(4)]
            pair[q, 2 * vals[x] + vals[y], 2 * vals[z] + vals[w]] = k
    return half, pair
