"""The attributes of one premise search, prepared: merged, packed by class, counted.

:func:`prepare_attributes` merges attributes with equal extents (and, with negations,
complementary ones), sets constant ones aside and packs the rest into bitsets over the
positive and over the negative rows (:class:`PreparedAttributes`). The rows are read a block at
a time from a bool array, or from the packed bits of a FormalContext (:class:`PackedColumns`),
so the working memory is a block; with row weights the rows are grouped by weight, each group
starting a new 64-bit word, so weighted counts are sums of exact group popcounts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["PackedColumns", "PreparedAttributes", "prepare_attributes"]


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
