"""Row encodings of packed bits: the integer type code of each row, and each row as packed words.

A :class:`~logicrules.fca.counts.Counts` kernel that needs rows rather than columns (type
histograms, cell counts, distinct rows) turns the column-packed ``uint64`` bits of a block into
one integer per row with whole-word bit-matrix transposes, never a dense boolean copy.
"""

from __future__ import annotations

import numpy as np

#: Most columns of a type histogram (type codes are 64-bit integers; bit ``j`` is column ``j``).
MAX_TYPE_FEATURES = 62

# Hacker's Delight 8x8 bit-matrix transpose on 64-bit words (bit 8 i + j <-> bit 8 j + i).
_T7 = np.uint64(0x00AA00AA00AA00AA)
_T14 = np.uint64(0x0000CCCC0000CCCC)
_T28 = np.uint64(0x00000000F0F0F0F0)
# Delta swaps of bytes across words (byte distance 1, 2, 4): byte q n + w of word g <-> byte q n + g of word w.
_BYTE_STAGES = ((1, np.uint64(8), np.uint64(0x00FF00FF00FF00FF)), (2, np.uint64(16), np.uint64(0x0000FFFF0000FFFF)),
                (4, np.uint64(32), np.uint64(0x00000000FFFFFFFF)))
# Delta swaps across 8 words (bit distance 1, 2, 4): bit 8 b + i of word c <-> bit 8 b + c of word i.
_ROW_STAGES = ((1, np.uint64(1), np.uint64(0x5555555555555555)), (2, np.uint64(2), np.uint64(0x3333333333333333)),
               (4, np.uint64(4), np.uint64(0x0F0F0F0F0F0F0F0F)))
#: Type codes by their bytes (:func:`_unordered_type_codes`): little-endian lanes of the words.
_CODE_DTYPES = {1: np.dtype(np.uint8), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<i8")}


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
    >>> from logicrules.fca import bitset
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
    >>> from logicrules.fca import bitset
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


def _swap_stages(x: np.ndarray, n: int, stages: tuple) -> None:
    """Delta swaps across ``n`` (2, 4 or 8) words, in place: ``x`` (outer, n, inner) uint64.

    Stage ``(d, shift, mask)`` (``d`` = 1, 2, 4 while ``d < n``) pairs word ``w`` with word
    ``w + d`` (``w & d == 0``) at every (outer, inner) position and moves the bits of word
    ``w`` at ``mask << shift`` to ``mask`` in word ``w + d`` and back: six whole-array
    operations per stage, over all pairs at once. With :data:`_ROW_STAGES` bit ``8 b + i`` of
    word ``c`` and bit ``8 b + c`` of word ``i`` trade places (n = 8); with :data:`_BYTE_STAGES`
    byte ``q n + w`` of word ``g`` and byte ``q n + g`` of word ``w``.
    """
    outer, _, inner = x.shape
    half = np.empty(outer * n // 2 * inner, dtype=np.uint64)
    for d, shift, mask in stages:
        if d >= n:
            break
        pairs = x.reshape(outer, n // (2 * d), 2, d * inner)
        a, b = pairs[:, :, 0], pairs[:, :, 1]
        t = half.reshape(outer, n // (2 * d), d * inner)
        np.right_shift(a, shift, out=t)
        t ^= b
        t &= mask
        b ^= t
        t <<= shift
        a ^= t


def _row_order(values: np.ndarray, width: int, lanes: int = 1) -> np.ndarray:
    """Per-row values (n <= 64 ``width``, padded with zeros) in the row order of the type codes of
    :func:`_unordered_type_codes` with ``lanes`` bytes per code: position ``(w, i, m, q)`` is row
    ``64 m + 8 (lanes q + w) + i``."""
    padded = np.zeros(64 * width, dtype=values.dtype)
    padded[:values.size] = values
    return padded.reshape(width, 8 // lanes, lanes, 8).transpose(2, 3, 0, 1).reshape(-1)


def _code_lanes(n_bits: int) -> int:
    """Bytes of a type code of ``n_bits`` bits: 1, 2, 4 or 8."""
    return 1 << (max(-(-n_bits // 8), 1) - 1).bit_length()


def _unordered_type_codes(bits: np.ndarray, columns: np.ndarray, low: np.ndarray | None = None) -> np.ndarray:
    """Type codes of the ``64 W`` rows of packed ``bits`` (m, W) over ``columns`` (bit ``j`` is
    ``columns[j]``; with ``low``, packed columns (b, W) placed at bits ``0 .. b - 1`` and the
    others ``b`` up; at most 63 bits), in the row order of :func:`_row_order`: uint8 up to 8 bits,
    uint16 up to 16, uint32 up to 32, else int64.

    Whole-word work only (about 13 passes over the codes' bytes): the columns are copied into
    groups of 8 words, and three stages of delta swaps across each group's 8 words
    (:func:`_swap_stages`, :data:`_ROW_STAGES`) trade the column index with the row's low three
    bits: byte ``b`` of word ``(i, m)`` of a group becomes its 8 columns on row
    ``64 m + 8 b + i``. With L > 1 groups (rounded up to 2, 4 or 8), swaps of bytes across the
    L groups (:data:`_BYTE_STAGES`) then make lane ``q`` of word ``(w, i, m)`` (L bytes,
    little-endian, group ``g`` in its byte ``g``) the code of row ``64 m + 8 (L q + w) + i``.
    """
    low = np.zeros((0, bits.shape[1]), dtype=np.uint64) if low is None else np.atleast_2d(low)
    n_low, width = low.shape[0], bits.shape[1]
    k = n_low + len(columns)
    if k > 63:
        raise ValueError(f"a type code holds at most 63 bits, got {k}")
    lanes = _code_lanes(k)
    words = np.zeros((lanes, 8, width), dtype=np.uint64)
    flat = words.reshape(lanes * 8, width)
    flat[:n_low] = low
    np.take(bits, columns, axis=0, out=flat[n_low:k], mode="clip")  # clip: no buffered copy of out
    _swap_stages(words[:max(-(-k // 8), 1)], 8, _ROW_STAGES)  # groups past the code's bits stay zero
    if lanes > 1:  # the groups' bytes of every row side by side
        _swap_stages(words.reshape(1, lanes, 8 * width), lanes, _BYTE_STAGES)
    return words.view(_CODE_DTYPES[lanes]).reshape(-1)
