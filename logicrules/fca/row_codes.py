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
_BIT_STAGES = ((np.uint64(7), _T7), (np.uint64(14), _T14), (np.uint64(28), _T28))
# The same transpose one level up: byte b of word j <-> byte j of word b, across 8 words.
_BYTE_STAGES = ((1, np.uint64(8), np.uint64(0x00FF00FF00FF00FF)), (2, np.uint64(16), np.uint64(0x0000FFFF0000FFFF)),
                (4, np.uint64(32), np.uint64(0x00000000FFFFFFFF)))


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
