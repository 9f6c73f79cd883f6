"""Pair counts (Gram matrices) and extent hashes of packed attributes, by row blocks.

Products over millions of rows unpack a bounded block of rows at a time (at most
:data:`_BLOCK_BYTES`, less under a small ``memory_limit``), so their working memory does not
grow with the rows.
"""

from __future__ import annotations

import numpy as np

from logicrules.fca.premise.popcounts import pair_counts
from logicrules.fca.premise.preparation import PreparedAttributes

__all__: list[str] = []

_BLOCK_BYTES = 32 * 2**20     # largest working memory of one row block of the extent-hash products


def _row_blocks(bits: np.ndarray, n: int, words: int):
    """``(start, rows)``: float64 0/1 blocks (k, 64 words) of the first ``n`` bits of packed rows, in order."""
    for w0 in range(0, -(-n // 64), words):
        count = min(n - 64 * w0, 64 * words)
        block = np.unpackbits(np.ascontiguousarray(bits[:, w0:w0 + words]).view(np.uint8), axis=1, count=count,
                              bitorder="little")
        yield 64 * w0, block.astype(np.float64)


def _n_bits(p: PreparedAttributes, cls: str) -> int:
    """Bit positions of a class's bitsets that may hold objects (weighted layouts have gaps)."""
    if not p.weighted:
        return p.n_pos if cls == "p" else p.n_neg
    return 64 * (p.bits_p if cls == "p" else p.bits_n).shape[1]


def _row_positions(seg: np.ndarray, wseg: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bit positions holding an object in a weighted layout (increasing), and the weight of each.

    Each group of equal weight starts at word ``seg[g]`` and fills its first bits; 8 + 8 bytes
    per object, nothing per empty position.
    """
    sizes = np.add.reduceat(np.bitwise_count(valid).astype(np.int64), seg[:-1]) if len(valid) else \
        np.zeros(len(wseg), np.int64)
    starts = np.cumsum(sizes) - sizes
    positions = np.repeat(64 * seg[:-1] - starts, sizes) + np.arange(int(sizes.sum()))
    return positions, np.repeat(wseg, sizes)


def _gram(bits: np.ndarray, seg: np.ndarray, wseg: np.ndarray, weighted: bool) -> np.ndarray:
    """``out[a, b] = |a AND b|`` of packed rows, by popcounts (:func:`~logicrules.fca.premise.popcounts.pair_counts`).

    int32 (k, k) row counts, or with ``weighted`` float64 sums of the weights of the objects'
    groups (``seg``, ``wseg``). Nothing is unpacked: the working memory is the (k, k) result.
    """
    k = bits.shape[0]
    out = np.zeros((k, k), np.float64 if weighted else np.int32)
    if k:
        pair_counts(np.ascontiguousarray(bits), seg, wseg, weighted, out)
    return out


def _extent_hashes(bits_p: np.ndarray, valid_p: np.ndarray, n_pos: int, bits_n: np.ndarray, valid_n: np.ndarray,
                   n_neg: int, block_bytes: int = _BLOCK_BYTES):
    """Two random integer row hashes summed over extents: singles (k, 2), all rows (2,), pairs 2 x (k, k).

    Bit position ``i`` gets two random integers below 2**30 (drawn per block of positions from a
    generator seeded by the block, so nothing per row is kept); an extent's hash is their sum
    over its objects, exact in float64 (below 2**53 for up to 2**23 positions), so equal extents
    have equal hashes. ``n_pos``, ``n_neg``: bit positions per class; ``valid_*`` the ones
    holding objects; ``block_bytes``: working memory of a block.
    """
    k = bits_p.shape[0]
    single = np.zeros((k + 1, 2))
    pair = [np.zeros((k, k)), np.zeros((k, k))]
    # words per block: about 32 bytes per entry (the float64 block, its weighted copy, the products),
    # at most 2**24 rows
    words = max(1, min(2**24 // 64, block_bytes // (64 * 32 * (k + 1))))
    for cls, (bits, valid, n) in enumerate(((bits_p, valid_p, n_pos), (bits_n, valid_n, n_neg))):
        for (start, block), (_, occupied) in zip(_row_blocks(bits, n, words), _row_blocks(valid[None, :], n, words)):
            hb = np.random.default_rng((12345, cls, start)).integers(0, 2**30, size=(2, block.shape[1]))
            hb = hb.astype(np.float64)
            single[:k] += block @ hb.T
            single[k] += (occupied @ hb.T)[0]
            for j in range(2):
                pair[j] += (block * hb[j]) @ block.T
    return single[:k], single[k], pair


def _hash_key(h: np.ndarray) -> np.ndarray:
    """One uint64 per pair of exact integer extent hashes (each < 2**53)."""
    h = h.astype(np.uint64)
    return h[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ h[:, 1]


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """Distinct values, sorted (a plain sort: faster than np.unique's hashing on 1e7 keys)."""
    keys = np.sort(keys)
    return keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys

