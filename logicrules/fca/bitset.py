"""Packed ``uint64`` bitsets: the storage of extents (sets of objects) in a formal context.

A bitset over ``n`` objects is a ``uint64`` array whose **last** axis has ``W = (n + 63) // 64``
words; object ``i`` is bit ``i % 64`` of word ``i // 64`` (little-endian bit order, independent of
the machine's byte order). Bits at positions ``>= n`` in the last word are **always zero**: every
function that produces a complement re-masks them, so popcounts and equality tests never see
garbage. All functions vectorize over leading axes, so a stack of ``k`` extents is one
``(k, W)`` array and one NumPy call processes all of them; this is what makes counting the
confusion matrices of many candidate premises cheap (64 objects per machine word, popcount via
:func:`numpy.bitwise_count`).

Examples
--------
>>> import numpy as np
>>> from logicrules.fca import bitset
>>> a = bitset.pack([True, False, True, True])
>>> b = bitset.pack([True, True, False, True])
>>> bitset.unpack(bitset.and_(a, b), 4)
array([ True, False, False,  True])
>>> int(bitset.popcount(bitset.not_(a, 4)))
1
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "n_words", "pack", "unpack", "pack_columns", "tail_mask", "full", "empty",
    "and_", "or_", "xor", "andnot", "not_", "is_subset",
    "popcount", "count_and", "confusion", "unique_extents",
]

_WORD_BITS = 64
_LITTLE_U64 = np.dtype("<u8")


def n_words(n: int) -> int:
    """Number of ``uint64`` words holding a bitset over ``n`` objects.

    Parameters
    ----------
    n : int
        Number of objects, ``>= 0``.

    Returns
    -------
    int
        ``(n + 63) // 64``.

    Examples
    --------
    >>> [n_words(n) for n in (0, 1, 64, 65)]
    [0, 1, 1, 2]
    """
    n = _check_n(n)
    return (n + _WORD_BITS - 1) // _WORD_BITS


def pack(bits: ArrayLike) -> np.ndarray:
    """Pack booleans along the last axis into ``uint64`` words.

    Parameters
    ----------
    bits : array_like of bool, shape (..., n)
        Membership of each of ``n`` objects; 0/1 integers are accepted too.

    Returns
    -------
    ndarray of uint64, shape (..., W)
        ``W = n_words(n)``; tail bits zero.

    Examples
    --------
    >>> pack([True, False, True])
    array([5], dtype=uint64)
    """
    bits = _as_bool(bits, "bits")
    if bits.ndim == 0:
        raise ValueError("bits must have at least one axis (the objects), got a scalar")
    n = bits.shape[-1]
    width = n_words(n)
    packed = np.packbits(bits, axis=-1, bitorder="little")
    pad = width * 8 - packed.shape[-1]
    if pad:
        widths = [(0, 0)] * (packed.ndim - 1) + [(0, pad)]
        packed = np.pad(packed, widths)
    packed = np.ascontiguousarray(packed)
    return packed.view(_LITTLE_U64).astype(np.uint64, copy=False)


def unpack(words: ArrayLike, n: int) -> np.ndarray:
    """Unpack ``uint64`` words into booleans along the last axis.

    Parameters
    ----------
    words : ndarray of uint64, shape (..., W)
        Bitsets with ``W == n_words(n)``.
    n : int
        Number of objects.

    Returns
    -------
    ndarray of bool, shape (..., n)

    Examples
    --------
    >>> unpack(np.array([5], dtype=np.uint64), 3)
    array([ True, False,  True])
    """
    words = _as_words(words, "words")
    _check_width(words, n, "words")
    raw = np.ascontiguousarray(words.astype(_LITTLE_U64, copy=False)).view(np.uint8)
    return np.unpackbits(raw, axis=-1, count=n, bitorder="little").astype(bool)


def pack_columns(X: ArrayLike) -> np.ndarray:
    """Pack each column of a boolean matrix into one bitset (one row of words per column).

    Parameters
    ----------
    X : array_like of bool, shape (n, m)
        Objects as rows, attributes as columns.

    Returns
    -------
    ndarray of uint64, shape (m, W)
        Row ``j`` is the extent of attribute ``j``.

    Examples
    --------
    >>> pack_columns([[True, False], [True, True]])
    array([[3],
           [2]], dtype=uint64)
    """
    X = _as_bool(X, "X")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (objects x attributes), got shape {X.shape}")
    n, m = X.shape
    if n == 0 or m == 0:
        return pack(X.T)
    # The bytes of the columns' words, built row-major without transposing the bool matrix:
    # byte b of column j holds rows 8 b .. 8 b + 7, so it is the OR of the 8 row slices shifted
    # into place (whole-row operations on contiguous memory); only the 8x smaller byte matrix is
    # transposed. Several times faster than packing the strided columns of X.T.
    n_bytes = n_words(n) * 8
    if n == n_bytes * 8:
        rows = X.view(np.uint8)
    else:  # the tail rows padded with zeros (a copy only when n is no multiple of 64)
        rows = np.zeros((n_bytes * 8, m), dtype=np.uint8)
        rows[:n] = X
    rows = rows.reshape(n_bytes, 8, m)
    packed = rows[:, 0].copy()
    for bit in range(1, 8):
        packed |= rows[:, bit] << np.uint8(bit)
    return np.ascontiguousarray(packed.T).view(_LITTLE_U64).astype(np.uint64, copy=False)


def tail_mask(n: int) -> np.ndarray:
    """Mask of the valid bit positions of a bitset over ``n`` objects.

    Every word is all ones except the last one, which has only its low ``n % 64`` bits set
    (all 64 when ``n`` is a multiple of 64). AND-ing with it clears the tail.

    Parameters
    ----------
    n : int
        Number of objects.

    Returns
    -------
    ndarray of uint64, shape (W,)

    Examples
    --------
    >>> tail_mask(66)
    array([18446744073709551615,                    3], dtype=uint64)
    """
    width = n_words(n)
    mask = np.full(width, np.iinfo(np.uint64).max, dtype=np.uint64)
    rest = n % _WORD_BITS
    if rest:
        mask[-1] = np.uint64((1 << rest) - 1)
    return mask


def full(n: int) -> np.ndarray:
    """Bitset of all ``n`` objects (tail bits zero).

    Parameters
    ----------
    n : int
        Number of objects.

    Returns
    -------
    ndarray of uint64, shape (W,)

    Examples
    --------
    >>> int(popcount(full(70)))
    70
    """
    return tail_mask(n)


def empty(n: int) -> np.ndarray:
    """Bitset of no object.

    Parameters
    ----------
    n : int
        Number of objects.

    Returns
    -------
    ndarray of uint64, shape (W,)

    Examples
    --------
    >>> empty(70)
    array([0, 0], dtype=uint64)
    """
    return np.zeros(n_words(n), dtype=np.uint64)


def and_(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Intersection ``a & b`` (broadcasting).

    Examples
    --------
    >>> and_(pack([1, 1, 0]), pack([0, 1, 1]))
    array([2], dtype=uint64)
    """
    return np.bitwise_and(_as_words(a, "a"), _as_words(b, "b"))


def or_(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Union ``a | b`` (broadcasting).

    Examples
    --------
    >>> or_(pack([1, 0, 0]), pack([0, 0, 1]))
    array([5], dtype=uint64)
    """
    return np.bitwise_or(_as_words(a, "a"), _as_words(b, "b"))


def xor(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Symmetric difference ``a ^ b`` (broadcasting).

    Examples
    --------
    >>> xor(pack([1, 1, 0]), pack([0, 1, 1]))
    array([5], dtype=uint64)
    """
    return np.bitwise_xor(_as_words(a, "a"), _as_words(b, "b"))


def andnot(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Difference ``a & ~b`` (broadcasting); the tail stays zero because ``a``'s is.

    Examples
    --------
    >>> andnot(pack([1, 1, 0]), pack([0, 1, 1]))
    array([1], dtype=uint64)
    """
    return np.bitwise_and(_as_words(a, "a"), np.bitwise_not(_as_words(b, "b")))


def not_(a: ArrayLike, n: int) -> np.ndarray:
    """Complement of ``a`` within ``n`` objects, tail bits re-masked to zero.

    Parameters
    ----------
    a : ndarray of uint64, shape (..., W)
    n : int
        Number of objects (``W == n_words(n)``).

    Returns
    -------
    ndarray of uint64, shape (..., W)

    Examples
    --------
    >>> not_(pack([1, 0, 0]), 3)
    array([6], dtype=uint64)
    """
    a = _as_words(a, "a")
    _check_width(a, n, "a")
    return np.bitwise_and(np.bitwise_not(a), tail_mask(n))


def is_subset(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Whether ``a`` is a subset of ``b``, reduced over the last axis (broadcasting).

    ``is_subset(C[:, None, :], bits[None, :, :])`` tests all pairs at once, e.g. which attributes
    every object of each extent in ``C`` has.

    Returns
    -------
    ndarray of bool, shape (...)

    Examples
    --------
    >>> bool(is_subset(pack([1, 0, 1]), pack([1, 1, 1])))
    True
    """
    return ~np.any(andnot(a, b), axis=-1)


def popcount(words: ArrayLike) -> np.ndarray:
    """Number of set bits of each bitset (sum of :func:`numpy.bitwise_count` over the last axis).

    Parameters
    ----------
    words : ndarray of uint64, shape (..., W)

    Returns
    -------
    ndarray of int64, shape (...)

    Examples
    --------
    >>> popcount(pack([[1, 0, 1], [1, 1, 1]]))
    array([2, 3])
    """
    words = _as_words(words, "words")
    if words.ndim == 0:
        raise ValueError("words must have at least one axis (the words), got a scalar")
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)


def count_and(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """``popcount(a & b)`` (broadcasting): e.g. the true positives of many extents at once.

    Examples
    --------
    >>> count_and(pack([[1, 1, 0], [0, 0, 1]]), pack([1, 1, 1]))
    array([2, 1])
    """
    return popcount(and_(a, b))


def confusion(extents: ArrayLike, target: ArrayLike, n: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Confusion counts of predicting ``target`` by each extent.

    Parameters
    ----------
    extents : ndarray of uint64, shape (..., W)
        Predicted-positive objects of each candidate.
    target : ndarray of uint64, shape (W,)
        Actual positive objects.
    n : int
        Number of objects.

    Returns
    -------
    tp, fp, fn, tn : ndarray of int64, shape (...)

    Examples
    --------
    >>> tp, fp, fn, tn = confusion(pack([[1, 1, 0, 0]]), pack([1, 0, 1, 0]), 4)
    >>> int(tp[0]), int(fp[0]), int(fn[0]), int(tn[0])
    (1, 1, 1, 1)
    """
    extents = _as_words(extents, "extents")
    target = _as_words(target, "target")
    if target.ndim != 1:
        raise ValueError(f"target must be one bitset of shape (W,), got shape {target.shape}")
    _check_width(extents, n, "extents")
    _check_width(target, n, "target")
    tp = count_and(extents, target)
    predicted = popcount(extents)
    positives = popcount(target)
    fp = predicted - tp
    fn = positives - tp
    tn = np.int64(n) - tp - fp - fn
    return tp, fp, fn, tn


def unique_extents(words: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deduplicate bitsets, keeping the first occurrence of each (one premise per extent).

    Parameters
    ----------
    words : ndarray of uint64, shape (k, W)

    Returns
    -------
    unique : ndarray of uint64, shape (u, W)
        Distinct rows in order of first occurrence.
    first_index : ndarray of int64, shape (u,)
        ``first_index[j]`` is the first row of ``words`` equal to ``unique[j]`` (increasing).
    inverse : ndarray of int64, shape (k,)
        ``unique[inverse[i]]`` equals ``words[i]``.

    Examples
    --------
    >>> u, first, inv = unique_extents(pack([[1, 0], [0, 1], [1, 0]]))
    >>> first.tolist(), inv.tolist()
    ([0, 1], [0, 1, 0])
    """
    words = _as_words(words, "words")
    if words.ndim != 2:
        raise ValueError(f"words must be 2-D (k bitsets, W words), got shape {words.shape}")
    k, width = words.shape
    if k == 0:
        return words.copy(), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if width == 0:  # bitsets over no objects: all equal
        return words[:1].copy(), np.zeros(1, dtype=np.int64), np.zeros(k, dtype=np.int64)
    _, index, inverse = np.unique(words, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(index, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    first_index = index[order].astype(np.int64)
    return words[first_index], first_index, rank[inverse.reshape(-1)].astype(np.int64)


def _check_n(n: int) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"the number of objects must be an int, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"the number of objects must be >= 0, got {n}")
    return int(n)


def _check_width(words: np.ndarray, n: int, what: str) -> None:
    expected = n_words(n)
    if words.ndim == 0 or words.shape[-1] != expected:
        shape = words.shape
        raise ValueError(f"{what} has shape {shape}; a bitset over {n} objects needs "
                         f"{expected} words on its last axis")


def _as_words(a: ArrayLike, what: str) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype != np.uint64:
        raise TypeError(f"{what} must be packed bitsets of dtype uint64, got dtype {a.dtype}")
    return a


def _as_bool(bits: ArrayLike, what: str) -> np.ndarray:
    arr = np.asarray(bits)
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{what} must be boolean (or 0/1 numbers), got dtype {arr.dtype}")
    valid = (arr == 0) | (arr == 1)
    if not np.all(valid):
        bad = np.unique(arr[~valid])[:5].tolist()
        raise ValueError(f"{what} must contain only 0/1 or True/False, found {bad}")
    return arr.astype(bool)
