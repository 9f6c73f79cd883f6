"""The counting kernels: pure functions of one :class:`~logicrules.fca.row_block.RowBlock`.

Each kernel returns the partial count of one block (class totals, literal counts, Gram matrices,
type histograms, cell counts, distinct rows of a class); :class:`~logicrules.fca.counts.Counts`
reduces them with ``+`` over the blocks. Temporaries are bounded by the active memory budget
(:func:`logicrules.memory.work_bytes`).
"""

from __future__ import annotations

import numpy as np

from logicrules.fca import bitset
from logicrules.memory import work_bytes
from logicrules.fca.partial_counts import RowMultiset, _DenseHistogram, _SparseHistogram
from logicrules.fca.row_block import RowBlock
from logicrules.fca.row_codes import _row_order, _unordered_type_codes, packed_rows_from_bits

#: Most columns counted into a dense histogram of ``2**k`` bins (beyond: sorted sparse keys).
_MAX_DENSE_TYPE_FEATURES = 22
#: Bins a dense type histogram may always have; beyond, at most 4 per row of the block (fewer
#: rows are sorted instead of scanning a mostly empty table).
_MIN_DENSE_BINS = 1 << 12

#: Rows unpacked at once by the weighted and Gram kernels (their float temporaries stay small;
#: fewer under an active memory budget, :func:`logicrules.memory.work_bytes`).
_UNPACK_ROWS = 1 << 15
#: Cells (combinations x rows) coded at once by :meth:`Counts.cell_counts` (fewer under a budget).
_CELL_CODES = 1 << 22


def _weighted_class_matrix(block: RowBlock, start: int, stop: int, dtype) -> np.ndarray:
    """(rows, n_classes) one-hot of the labels times the weights, rows ``start:stop``."""
    labels = block.labels[start:stop]
    onehot = np.zeros((stop - start, block.n_classes), dtype=dtype)
    w = 1 if block.weights is None else block.weights[start:stop]
    onehot[np.arange(stop - start), labels] = w
    return onehot


def _class_totals(block: RowBlock) -> np.ndarray:
    if block.weights is None:
        return np.bincount(block.labels, minlength=block.n_classes).astype(np.int64)
    return np.bincount(block.labels, weights=block.weights, minlength=block.n_classes)


def _unpack_rows(m: int) -> int:
    """Rows of a block unpacked at once: :data:`_UNPACK_ROWS`, fewer when an active memory budget
    leaves less room for their float64 temporaries (about 32 bytes per cell); a multiple of 64."""
    rows = min(_UNPACK_ROWS, work_bytes(_UNPACK_ROWS * 32 * max(m, 1)) // (32 * max(m, 1)))
    return max(64, rows // 64 * 64)


def _literal_counts(block: RowBlock) -> np.ndarray:
    if block.weights is None:
        masks = block.class_bits()
        return bitset.popcount(block.bits[None, :, :] & masks[:, None, :])
    out = np.zeros((block.n_classes, block.n_attributes))
    step = _unpack_rows(block.n_attributes)
    for start in range(0, block.n_rows, step):
        stop = min(block.n_rows, start + step)
        dense = block.dense(start, stop).astype(np.float64)
        out += _weighted_class_matrix(block, start, stop, np.float64).T @ dense
    return out


def _gram(block: RowBlock) -> np.ndarray:
    m, K = block.n_attributes, block.n_classes
    weighted = block.weights is not None
    out = np.zeros((K, m, m), dtype=np.float64 if weighted else np.int64)
    step = _unpack_rows(m)
    for start in range(0, block.n_rows, step):
        stop = min(block.n_rows, start + step)
        # float32 products of 0/1 values are exact while a block's sums stay below 2**24
        dense = block.dense(start, stop).astype(np.float64 if weighted else np.float32)
        labels = block.labels[start:stop]
        for c in range(K):
            rows = dense[labels == c]
            if not rows.shape[0]:
                continue
            if weighted:
                out[c] += (rows * block.weights[start:stop][labels == c, None]).T @ rows
            else:
                out[c] += np.rint(rows.T @ rows).astype(np.int64)
    return out


def _type_histogram(block: RowBlock, columns: np.ndarray):
    k, K = len(columns), block.n_classes
    width = block.bits.shape[1]
    padding = 64 * width - block.n_rows  # rows past the end: every bit zero, code 0, label 0
    if K == 2:  # the positive class as bit 0 of the code
        codes = _unordered_type_codes(block.bits, columns, low=block.class_bits()[1])
    else:
        codes = _unordered_type_codes(block.bits, columns).astype(np.intp)
        if k + (K - 1).bit_length() > 63:  # code * K would overflow int64: classes counted apart
            return _wide_type_histogram(block, codes)
        codes *= K
        codes += _row_order(block.labels, width)
    weights = None if block.weights is None else _row_order(block.weights, width)
    size = (1 << k) * K
    if k <= _MAX_DENSE_TYPE_FEATURES and size <= max(_MIN_DENSE_BINS, 4 * block.n_rows):
        if weights is None:
            hist = np.bincount(codes, minlength=size).astype(np.int64, copy=False)
            hist[0] -= padding
        else:
            hist = np.bincount(codes, weights=weights, minlength=size)
        return _DenseHistogram(np.ascontiguousarray(hist.reshape(1 << k, K).T))
    if padding:  # the block's own rows only
        real = _row_order(np.ones(block.n_rows, dtype=bool), width)
        codes = codes[real]
        weights = None if weights is None else weights[real]
    keys, inverse = np.unique(codes, return_inverse=True)
    summed = np.bincount(inverse.reshape(-1), weights=weights, minlength=keys.size)
    if weights is not None:  # rows of weight 0 realize no type, as in the dense histogram
        keep = summed != 0
        keys, summed = keys[keep], summed[keep]
    types, type_index = np.unique(keys // K, return_inverse=True)
    table = np.zeros((K, types.size), dtype=np.float64 if weights is not None else np.int64)
    np.add.at(table, (keys % K, type_index), summed.astype(table.dtype, copy=False))
    return _SparseHistogram(types.astype(np.int64), table)


def _wide_type_histogram(block: RowBlock, codes: np.ndarray) -> _SparseHistogram:
    """The sorted bins of type codes (row order of :func:`_row_bytes`) too wide to carry the
    class index as well (``k + log2(n_classes) > 63`` bits): each row's class indexes the table."""
    width = block.bits.shape[1]
    labels = _row_order(block.labels, width)
    weights = None if block.weights is None else _row_order(block.weights, width)
    if 64 * width > block.n_rows:  # the block's own rows only
        real = _row_order(np.ones(block.n_rows, dtype=bool), width)
        codes, labels = codes[real], labels[real]
        weights = None if weights is None else weights[real]
    types, type_index = np.unique(codes, return_inverse=True)
    table = np.zeros((block.n_classes, types.size), dtype=np.float64 if weights is not None else np.int64)
    np.add.at(table, (labels, type_index.reshape(-1)), 1 if weights is None else weights)
    if weights is not None:  # rows of weight 0 realize no type, as in the dense histogram
        keep = (table != 0).any(axis=0)
        types, table = types[keep], table[:, keep]
    return _SparseHistogram(types.astype(np.int64), table)


def _cell_counts(block: RowBlock, combos: np.ndarray) -> np.ndarray:
    t, r = combos.shape
    K, cells = block.n_classes, 1 << r
    weighted = block.weights is not None
    if t == 0 or block.n_rows == 0:
        return np.zeros((K, t, cells), dtype=np.float64 if weighted else np.int64)
    if not weighted:
        return _cell_counts_bits(block, combos)
    out = np.zeros((K, t, cells), dtype=np.float64)
    used, local = np.unique(combos, return_inverse=True)
    local = local.reshape(t, r)
    per = max(1, work_bytes(64 * _CELL_CODES) // (64 * max(block.n_rows, 1)))   # ~64 bytes per code
    dense = block.dense(columns=used).T  # (attributes used, rows)
    shifts = np.arange(r, dtype=np.int64)
    for lo in range(0, t, per):
        part = local[lo:lo + per]
        codes = np.zeros((part.shape[0], block.n_rows), dtype=np.int64)
        for j in range(r):
            codes |= dense[part[:, j]].astype(np.int64) << shifts[j]
        flat = ((np.arange(part.shape[0])[:, None] * cells + codes) * K + block.labels[None, :]).ravel()
        size = part.shape[0] * cells * K
        if weighted:
            hist = np.bincount(flat, weights=np.broadcast_to(block.weights, codes.shape).ravel(),
                               minlength=size)
        else:
            hist = np.bincount(flat, minlength=size)
        out[:, lo:lo + part.shape[0]] = hist.reshape(part.shape[0], cells, K).transpose(2, 0, 1)
    return out


def _cell_counts_bits(block: RowBlock, combos: np.ndarray) -> np.ndarray:
    """Unweighted cell counts by popcounts on the packed bits (no unpacking).

    For every subset ``U`` of a combination's attributes, the rows of each class having all of
    them are the popcount of the AND of their bitsets with the class's; inclusion-exclusion
    (Moebius inversion over the subsets) turns those into the ``2**r`` cells. About ``2**r (1 +
    n_classes)`` word operations per combination and 64 rows.
    """
    t, r = combos.shape
    K, cells = block.n_classes, 1 << r
    words = block.bits.shape[1]
    classes = block.class_bits()
    out = np.zeros((K, t, cells), dtype=np.int64)
    per = max(1, work_bytes(2 * _CELL_CODES) // (cells * max(words, 1) * 16))   # combinations ANDed at once
    lowest = [u & -u for u in range(cells)]
    for lo in range(0, t, per):
        part = combos[lo:lo + per]
        sub = block.bits[part]                                   # (g, r, W)
        ands = np.empty((cells, part.shape[0], words), dtype=np.uint64)
        ands[0] = ~np.uint64(0)
        f = np.empty((K, part.shape[0], cells), dtype=np.int64)
        for u in range(1, cells):
            j = lowest[u].bit_length() - 1
            np.bitwise_and(ands[u ^ lowest[u]], sub[:, j], out=ands[u])
        for c in range(K):
            f[c] = np.bitwise_count(ands[:, :, :] & classes[c]).sum(axis=2, dtype=np.int64).T
        for j in range(r):                                        # Moebius: cell u = sum over U >= u
            bit = 1 << j
            low = [u for u in range(cells) if not u & bit]
            f[:, :, low] -= f[:, :, [u | bit for u in low]]
        out[:, lo:lo + part.shape[0]] = f
    return out


def _class_rows(block: RowBlock, cls: int) -> RowMultiset:
    rows = np.flatnonzero(block.labels == cls)
    m = block.n_attributes
    if rows.size == 0:
        dtype = np.float64 if block.weights is not None else np.int64
        return RowMultiset(np.zeros((0, -(-m // 8)), dtype=np.uint8), np.zeros(0, dtype=dtype), m)
    packed = packed_rows_from_bits(block.bits, block.n_rows)[rows]
    weights = np.ones(rows.size, dtype=np.int64) if block.weights is None else block.weights[rows]
    return RowMultiset._merge(packed, weights, m)
