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
each mask) and prepares the attributes of a search: duplicate extents merged (and, with
negations, complementary extents too), constant attributes set aside, bitsets split by class.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

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


_PACK_BYTES = 4 * 2**20    # default working memory of the packing (a block of bools and its gathered rows)


def _pack(X: np.ndarray, rows: np.ndarray, work_bytes: int = _PACK_BYTES) -> np.ndarray:
    """Pack ``X[rows]`` column-wise into uint64 (m, W), W a multiple of 4 (zero padding).

    Bit ``i`` of column ``j`` is ``X[rows[i], j]``. Rows are gathered, transposed and packed a
    block at a time (a multiple of 64 rows, about ``work_bytes / 2`` bytes of bools each), so
    the working memory stays near ``work_bytes`` whatever the number of rows (and no copy of
    ``X`` is made).
    """
    n, m = len(rows), X.shape[1]
    words = max(4, -(-max(n, 1) // 256) * 4)
    out = np.zeros((m, words * 8), dtype=np.uint8)
    step = max(64, work_bytes // (2 * max(m, 1)) // 64 * 64)
    for start in range(0, n, step):
        block = np.ascontiguousarray(X[rows[start:start + step]].T)
        packed = np.packbits(block, axis=1, bitorder="little")
        out[:, start // 8: start // 8 + packed.shape[1]] = packed
    return out.view(np.uint64)


@dataclass(frozen=True)
class PackedColumns:
    """Binary attributes already packed as bitsets over all rows (a FormalContext's ``bits``).

    :func:`prepare_attributes` reads them a block of words at a time, so the attributes are
    never unpacked whole (weighted packing, which reorders the rows by weight, needs a bool
    array instead).
    """

    bits: np.ndarray     # uint64 (m, W), row i at bit i % 64 of word i // 64
    n: int

    @property
    def shape(self) -> tuple[int, int]:
        return self.n, self.bits.shape[0]

    @property
    def nbytes(self) -> int:
        """No copy of the caller's data is made (0 bytes)."""
        return 0


def _pack_packed(src: np.ndarray, rows: np.ndarray, words: int, work_bytes: int = _PACK_BYTES) -> np.ndarray:
    """The bits ``rows`` (increasing) of packed rows ``src`` (m, W), compacted: uint64 (m, words).

    Bit ``i`` of attribute ``j`` is bit ``rows[i]`` of ``src[j]``. The source words are
    unpacked a block at a time (about ``work_bytes / 3`` bytes of bools), the selected bits
    packed again at the running offset (byte-aligned; the remainder carries over).
    """
    m, w_src = src.shape
    out = np.zeros((m, words * 8), dtype=np.uint8)
    step = max(1, work_bytes // (3 * 64 * max(m, 1)))          # source words per block
    carry = np.zeros((m, 0), dtype=bool)
    byte = 0
    for w0 in range(0, w_src, step):
        lo, hi = 64 * w0, 64 * min(w_src, w0 + step)
        i0, i1 = np.searchsorted(rows, [lo, hi])
        if i0 == i1:
            continue
        block = np.unpackbits(np.ascontiguousarray(src[:, w0:w0 + step], dtype="<u8").view(np.uint8), axis=1,
                              bitorder="little")
        chosen = block[:, rows[i0:i1] - lo]
        del block
        buf = np.concatenate([carry, chosen], axis=1) if carry.shape[1] else chosen
        full = buf.shape[1] // 8 * 8
        out[:, byte:byte + full // 8] = np.packbits(buf[:, :full], axis=1, bitorder="little")
        byte += full // 8
        carry = buf[:, full:]
    if carry.shape[1]:
        out[:, byte:byte + 1] = np.packbits(carry, axis=1, bitorder="little")
    return out.view(np.uint64)


def _weighted_layout(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where the rows of positive ``weight`` go in a weighted bitset: grouped by equal weight.

    Rows are sorted by weight (stably); each group of equal weight starts a new 64-bit word, so
    a weighted count is ``sum_g weight_g * popcount(words of group g)``. Returns ``(order,
    position, seg, wseg, valid)``: the row order, the bit position of each sorted row
    (increasing), the word bounds of the groups (the last one padded to a multiple of 4 words,
    at least 4; it holds the padding), the weight of each group and the words of the positions
    holding a row. With no rows: one empty group of weight 0 over 4 padding words.
    """
    n = len(weight)
    order = np.argsort(weight, kind="stable")
    w = weight[order]
    starts = np.flatnonzero(np.concatenate([[True], w[1:] != w[:-1]])) if n else np.zeros(0, np.int64)
    sizes = np.diff(np.concatenate([starts, [n]])).astype(np.int64)
    seg = np.concatenate([[0], np.cumsum(-(-sizes // 64))]).astype(np.int64)
    words = max(4, -(-int(seg[-1]) // 4) * 4)
    valid = np.zeros(words, np.uint64)
    if not n:
        return order, np.zeros(0, np.int64), np.array([0, words], np.int64), np.zeros(1), valid
    wseg = w[starts].astype(np.float64)
    del w
    position = np.repeat(64 * seg[:-1] - starts, sizes) + np.arange(n)
    full, rem = sizes // 64, sizes % 64
    first_full = np.repeat(seg[:-1] - (np.cumsum(full) - full), full)
    valid[first_full + np.arange(int(full.sum()))] = ~np.uint64(0)
    partial = rem > 0
    valid[seg[:-1][partial] + full[partial]] = (np.uint64(1) << rem[partial].astype(np.uint64)) - np.uint64(1)
    seg[-1] = words
    return order, position, seg, wseg, valid


def _pack_positions(X: np.ndarray, rows: np.ndarray, position: np.ndarray, words: int,
                    work_bytes: int = _PACK_BYTES) -> np.ndarray:
    """Pack ``X[rows[i]]`` at bit ``position[i]`` (increasing) column-wise into uint64 (m, words).

    The bit positions are filled a window at a time (a block of bools of about ``work_bytes /
    3`` bytes and the rows falling in it), so the working memory stays near ``work_bytes``
    whatever the number of rows and of gaps between the positions.
    """
    m = X.shape[1]
    out = np.zeros((m, words * 8), dtype=np.uint8)
    cols = max(1, min(m, work_bytes // (3 * 64 * 64)))                     # attributes per block
    span = max(64, work_bytes // (3 * cols) // 64 * 64)                    # bit positions per window
    for p0 in range(0, words * 64, span):
        r0, r1 = np.searchsorted(position, [p0, p0 + span])
        if r0 == r1:
            continue
        local = position[r0:r1] - p0
        width = -(-(int(local[-1]) + 1) // 64) * 64
        for j0 in range(0, m, cols):
            block = np.zeros((min(cols, m - j0), width), dtype=bool)
            block[:, local] = X[rows[r0:r1], j0:j0 + cols].T
            out[j0:j0 + cols, p0 // 8: p0 // 8 + width // 8] = np.packbits(block, axis=1, bitorder="little")
    return out.view(np.uint64)


@dataclass(frozen=True)
class PreparedAttributes:
    """The attributes of one search, merged and packed.

    Attributes
    ----------
    columns : int64 (r,)
        Original column of each representative (its first occurrence).
    complement : int64 (r,)
        An original column whose extent is the complement of the representative's, or -1; used
        to write ``NOT a`` as that attribute (same size, friendlier text).
    constant : bool (r,)
        Representatives whose extent is empty or all objects (never used inside pairs/triples).
    bits_p, bits_n : uint64 (r, Wp), (r, Wn)
        Extents over the positive and over the negative objects (with weights: the objects of
        positive weight, grouped by weight, see ``seg_p``).
    tp, fp : int64 or float64 (r,)
        Positive and negative counts of each representative (sums of weights when weighted).
    n_pos, n_neg : int or float
        Class sizes (total weights).
    negations : bool
        Whether negated literals belong to ``P_1``.
    seg_p, seg_n : int64 (G + 1,)
        Word bounds of the weight groups of ``bits_p`` / ``bits_n`` (unweighted: one group).
    wseg_p, wseg_n : float64 (G,)
        Weight of a row of each group (unweighted: 1).
    valid_p, valid_n : uint64 (Wp,), (Wn,)
        Bit positions that hold an object (negations are masked with them).
    weighted : bool
        Whether counts are sums of row weights (float64) rather than integer row counts.
    """

    columns: np.ndarray
    complement: np.ndarray
    constant: np.ndarray
    bits_p: np.ndarray
    bits_n: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: int | float
    n_neg: int | float
    negations: bool
    seg_p: np.ndarray
    seg_n: np.ndarray
    wseg_p: np.ndarray
    wseg_n: np.ndarray
    valid_p: np.ndarray
    valid_n: np.ndarray
    weighted: bool = False

    @property
    def n_literals(self) -> int:
        """Number of distinct literal extents of the representatives (both polarities)."""
        return len(self.columns) * (2 if self.negations else 1)

    def count_p(self, bits: np.ndarray) -> np.ndarray:
        """Weighted count of positive objects in packed extents (..., Wp): int64, or float64 weighted."""
        return _weighted_count(bits, self.seg_p, self.wseg_p, self.weighted)

    def count_n(self, bits: np.ndarray) -> np.ndarray:
        """Weighted count of negative objects in packed extents (..., Wn)."""
        return _weighted_count(bits, self.seg_n, self.wseg_n, self.weighted)


_COUNT_BYTES = 8 * 2**20    # popcounts of many extents are taken this many bytes of bits at a time


def _weighted_count(bits: np.ndarray, seg: np.ndarray, wseg: np.ndarray, weighted: bool) -> np.ndarray:
    if bits.ndim >= 2 and bits.nbytes > 2 * _COUNT_BYTES:       # bounded temporaries: blocks of extents
        flat = bits.reshape(-1, bits.shape[-1])
        step = max(1, _COUNT_BYTES // max(flat.shape[1] * 8, 1))
        parts = [_weighted_count(flat[i:i + step], seg, wseg, weighted) for i in range(0, len(flat), step)]
        return np.concatenate(parts).reshape(bits.shape[:-1])
    counts = np.bitwise_count(bits)
    if not weighted:
        return counts.sum(axis=-1, dtype=np.int64)
    if bits.shape[-1] == 0:
        return np.zeros(bits.shape[:-1])
    per_group = np.add.reduceat(counts, seg[:-1], axis=-1, dtype=np.int64)
    return per_group @ wseg


def _valid_words(n: int, words: int) -> np.ndarray:
    """uint64 (words,) with the first n bits set."""
    bits = np.zeros(words * 64, dtype=bool)
    bits[:n] = True
    return np.packbits(bits, bitorder="little").view(np.uint64)


def _merge_columns(bits: list[np.ndarray], valid: list[np.ndarray], negations: bool,
                   work_bytes: int = _PACK_BYTES) -> tuple[np.ndarray, np.ndarray]:
    """Representatives of the columns with distinct extents, and a complementary column of each.

    ``bits`` holds the packed columns over each class, ``valid`` the bit positions holding an
    object; a column's extent is its bits over all classes. Returns ``(reps, complement)``:
    the first column of each class of equal extents (with ``negations``: equal up to
    complement), ordered by first occurrence, and per representative a column whose extent is
    its complement (the first one), or -1.

    Columns are grouped by a hash of their canonical extent computed over blocks of words, and
    columns with equal hashes are compared word by word, so the grouping is exact and its
    working memory is a block (about ``work_bytes``), not a copy of the bitsets.
    """
    m = bits[0].shape[0]
    flip = np.zeros(m, dtype=bool)
    if negations:
        # canonical form of {E, not E}: the member not containing one fixed object (the first)
        for b, v in zip(bits, valid):
            occupied = np.flatnonzero(v)
            if len(occupied):
                w = occupied[0]
                bit = (int(v[w]) & -int(v[w])).bit_length() - 1              # its lowest set bit
                flip = ((b[:, w] >> np.uint64(bit)) & np.uint64(1)).astype(bool)
                break

    def canonical(j: int) -> np.ndarray:
        return np.concatenate([~b[j] & v if flip[j] else b[j] for b, v in zip(bits, valid)])

    rng = np.random.default_rng(0)
    hashes = np.zeros(m, dtype=np.uint64)
    step = max(1, work_bytes // (32 * max(m, 1)))           # words per block: its temporaries ~ work_bytes
    for b, v in zip(bits, valid):
        factors = rng.integers(0, 2**63, size=b.shape[1], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        for w0 in range(0, b.shape[1], step):
            block = b[:, w0:w0 + step]
            block = np.where(flip[:, None], ~block & v[w0:w0 + step], block)
            hashes += (block * factors[w0:w0 + step]).sum(axis=1, dtype=np.uint64)   # modulo 2**64
    reps: list[int] = []
    cls = np.empty(m, dtype=np.int64)
    by_hash: dict[int, list[int]] = {}
    for j in range(m):
        same = by_hash.setdefault(int(hashes[j]), [])
        extent = canonical(j) if same else None
        found = next((c for c in same if np.array_equal(canonical(reps[c]), extent)), -1)
        if found < 0:
            found = len(reps)
            reps.append(j)
            same.append(found)
        cls[j] = found
    reps_array = np.array(reps, dtype=np.int64)
    complement = np.full(len(reps), -1, dtype=np.int64)
    if negations:
        opposite = flip != flip[reps_array][cls]
        # first column of each class with the opposite polarity of its representative
        for j in np.flatnonzero(opposite)[::-1]:
            complement[cls[j]] = j
    return reps_array, complement


def _keep_rows(bits: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``bits[rows]`` for increasing ``rows``, moved in place (no copy of the bitsets): a view."""
    for i, r in enumerate(rows):
        if r != i:
            bits[i] = bits[r]
    return bits[:len(rows)]


def prepare_attributes(X: np.ndarray, y: np.ndarray, negations: bool, sample_weight: np.ndarray | None = None,
                       work_bytes: int = _PACK_BYTES,
                       check: Callable[[float, str, str], None] | None = None) -> PreparedAttributes:
    """Merge attributes with equal extents (and complementary ones with negations) and pack them.

    Parameters
    ----------
    X : bool ndarray (n, m), or PackedColumns
        Read in place, a block of rows (of words) at a time (never copied whole); weighted
        packing needs a bool ndarray.
    y : bool ndarray (n,)
    negations : bool
    sample_weight : float ndarray (n,), optional
        Non-negative row weights: rows of weight 0 are left out (as if absent), the others are
        packed in groups of equal weight and counted as sums of their weights.
    work_bytes : int
        Working memory of the packing, hashing and counting blocks (about this much on top of
        the bitsets and a few integers per row).
    check : callable ``check(nbytes, what, how)``, optional
        Called before the bitsets are allocated with the bytes the preparation will hold (the
        bitsets of both classes, the row indices, ``work_bytes``); it raises to refuse (the
        search's memory limit).

    Returns
    -------
    PreparedAttributes
    """
    n, m = X.shape
    keep = np.ones(n, dtype=bool) if sample_weight is None else sample_weight > 0
    layouts = []            # (rows in bit order, bit positions or None, seg, wseg, valid)
    for rows in (np.flatnonzero(keep & y), np.flatnonzero(keep & ~y)):
        if sample_weight is None:
            words = max(4, -(-max(len(rows), 1) // 256) * 4)
            layouts.append((rows, None, np.array([0, words], np.int64), np.ones(1), _valid_words(len(rows), words)))
        else:
            order, position, seg, wseg, valid = _weighted_layout(sample_weight[rows])
            layouts.append((rows[order], position, seg, wseg, valid))
            del order
    del keep
    if check is not None:
        words = sum(int(seg[-1]) for _, _, seg, _, _ in layouts)
        index = sum(r.nbytes + (0 if p is None else p.nbytes) for r, p, _, _, _ in layouts)
        groups = sum(len(wseg) for _, _, _, wseg, _ in layouts)
        what = (f"packing {m} attributes of {n} rows into bitsets ({words} words of 64 bits per attribute"
                + (f"; with sample_weight each of the {groups} groups of equal weight starts a new word" if
                   sample_weight is not None else "") + ")")
        how = "use fewer rows or attributes" + (", round sample_weight to fewer distinct values"
                                                 if sample_weight is not None else "")
        check(8.0 * m * words + index + work_bytes, what, how)
    packs = []
    for rows, position, seg, wseg, valid in layouts:
        if position is not None:
            bits = _pack_positions(X, rows, position, int(seg[-1]), work_bytes)
        elif isinstance(X, PackedColumns):
            bits = _pack_packed(X.bits, rows, int(seg[-1]), work_bytes)
        else:
            bits = _pack(X, rows, work_bytes)
        packs.append((bits, seg, wseg, valid))
    del layouts
    reps, complement = _merge_columns([pack[0] for pack in packs], [pack[3] for pack in packs], negations,
                                      work_bytes)
    if len(reps) < m:
        packs = [(_keep_rows(bits, reps), seg, wseg, valid) for bits, seg, wseg, valid in packs]
    (bits_p, seg_p, wseg_p, valid_p), (bits_n, seg_n, wseg_n, valid_n) = packs
    weighted = sample_weight is not None
    tp = _weighted_count(bits_p, seg_p, wseg_p, weighted)
    fp = _weighted_count(bits_n, seg_n, wseg_n, weighted)
    n_pos = _weighted_count(valid_p, seg_p, wseg_p, weighted)[()]
    n_neg = _weighted_count(valid_n, seg_n, wseg_n, weighted)[()]
    n_pos, n_neg = (float(n_pos), float(n_neg)) if weighted else (int(n_pos), int(n_neg))
    constant = (tp == 0) & (fp == 0) | (tp == n_pos) & (fp == n_neg)
    return PreparedAttributes(
        columns=reps.astype(np.int64), complement=complement, constant=constant,
        bits_p=bits_p, bits_n=bits_n, tp=tp, fp=fp, n_pos=n_pos, n_neg=n_neg, negations=negations,
        seg_p=seg_p, seg_n=seg_n, wseg_p=wseg_p, wseg_n=wseg_n, valid_p=valid_p, valid_n=valid_n,
        weighted=weighted,
    )


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
