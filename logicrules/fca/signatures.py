"""Sizes and hash signatures of candidate attributes, from sorted columns: no dense candidate matrix.

A binarizer proposes many candidate attributes per column (all-values scaling: two per distinct
value) and must know, for each, how many rows it holds (to drop constant ones) and, for the
all-values scaling, which candidates have identical extents (to merge them). Materializing the
candidates' extents costs rows x candidates; this module gets the same answers in
O(n log n) per column instead:

- a threshold attribute ``x <= t`` (``<``, ``>``, ``>=``) holds a prefix (or suffix) of the
  column's rows sorted by value, so its size is a ``searchsorted`` position, and its
  *signature* (the XOR of fixed random 64-bit keys of its rows) is a prefix XOR;
- a category attribute ``x == v`` holds one group of rows, ``x != v`` the other present rows;
- equal extents always have equal (size, signature); the few candidates sharing one are then
  compared exactly, chunk by chunk on packed bits (:func:`exact_classes`), so the merging is
  exact, never probabilistic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from logicrules.fca.columns import _category_codes

__all__ = ["row_keys", "signatures", "exact_duplicates", "exact_classes"]

#: Rows evaluated at once when candidates sharing a signature are compared exactly.
_VERIFY_ROWS = 1 << 16
#: Threshold conditions of one column evaluated directly (O(n) each) rather than via a sort.
_DIRECT_THRESHOLDS = 4


def row_keys(n: int) -> np.ndarray:
    """Fixed pseudo-random 64-bit keys of ``n`` rows (the same for every call).

    Examples
    --------
    >>> row_keys(3).dtype, len(row_keys(3))
    (dtype('uint64'), 3)
    """
    return np.random.default_rng(0x1C0DE).integers(0, np.iinfo(np.uint64).max, size=n,
                                                   dtype=np.uint64, endpoint=True)


def _xor(keys: np.ndarray) -> np.uint64:
    return np.bitwise_xor.reduce(keys) if keys.size else np.uint64(0)


def signatures(
    column_values: Callable[[str], tuple[str, np.ndarray, Any]],
    conditions: Sequence[Any],
    keys: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Row count and (with ``keys``) extent signature of every condition.

    Parameters
    ----------
    column_values : callable
        ``column_values(column)`` returns ``(kind, missing, values)``: the column kind
        (``"categorical"`` or another), its bool missing mask, and its values (float64 numbers,
        or for a categorical column the Series itself).
    conditions : sequence of Condition
        Conditions with ``column``, ``op`` and ``value`` (see :class:`~logicrules.fca.scaling.Condition`).
    keys : ndarray of uint64, shape (n,), or None
        Row keys (:func:`row_keys`); None computes counts only.

    Returns
    -------
    counts : ndarray of int64, shape (len(conditions),)
    hashes : ndarray of uint64 or None
        XOR of the keys of each condition's rows.
    """
    counts = np.zeros(len(conditions), dtype=np.int64)
    hashes = None if keys is None else np.zeros(len(conditions), dtype=np.uint64)
    by_column: dict[str, dict[str, tuple[list[Any], list[int]]]] = {}
    for position, condition in enumerate(conditions):
        values, positions = by_column.setdefault(condition.column, {}).setdefault(condition.op, ([], []))
        values.append(condition.value)
        positions.append(position)
    for column, ops in by_column.items():
        kind, missing, values = column_values(column)
        present = ~missing
        if kind == "categorical":
            _category_signatures(values, missing, ops, keys, counts, hashes)
            continue
        compare = {op: item for op, item in ops.items() if op in ("<=", ">", "<", ">=")}
        n_compare = sum(len(v) for v, _ in compare.values())
        for op, (thresholds, positions) in ops.items():
            if op in compare and n_compare > _DIRECT_THRESHOLDS:
                continue
            for value, position in zip(thresholds, positions):
                if op == "is missing":
                    mask = missing
                elif op == "is true":
                    mask = values == 1.0
                else:
                    mask = _compare(op, values, value)
                counts[position] = np.count_nonzero(mask)
                if hashes is not None:
                    hashes[position] = _xor(keys[mask])
        if compare and n_compare > _DIRECT_THRESHOLDS:
            _threshold_signatures(values, present, compare, keys, counts, hashes)
    return counts, hashes


def _compare(op: str, values: np.ndarray, t: float) -> np.ndarray:
    if op == "<=":
        return values <= t
    if op == ">":
        return values > t
    if op == "<":
        return values < t
    return values >= t


def _threshold_signatures(values, present, ops, keys, counts, hashes) -> None:
    """Sizes and signatures of ``x op t`` from one sort of the present values."""
    index = np.flatnonzero(present)
    order = np.argsort(values[index], kind="stable")
    ordered = values[index][order]
    n_present = ordered.size
    prefix = None
    if hashes is not None:
        prefix = np.zeros(n_present + 1, dtype=np.uint64)
        np.bitwise_xor.accumulate(keys[index][order], out=prefix[1:])
    for op, (thresholds, positions) in ops.items():
        t = np.asarray(thresholds, dtype=np.float64)
        side = "right" if op in ("<=", ">") else "left"
        below = np.searchsorted(ordered, t, side=side)  # rows with x <= t (right) or x < t (left)
        lower = op in ("<=", "<")
        counts[positions] = below if lower else n_present - below
        if prefix is not None:
            hashes[positions] = prefix[below] if lower else prefix[-1] ^ prefix[below]


def _category_signatures(series: pd.Series, missing, ops, keys, counts, hashes) -> None:
    """Sizes and signatures of ``x == v`` / ``x != v`` from one grouping of the rows."""
    seen = [v for op in ("==", "!=") if op in ops for v in ops[op][0]]
    categories = pd.Index(list(dict.fromkeys(seen)), dtype=object, tupleize_cols=False)
    codes, _ = _category_codes(series, categories, by_text=False)
    valid = codes >= 0
    size = len(categories)
    count_eq = np.bincount(codes[valid], minlength=size).astype(np.int64)
    hash_eq = np.zeros(size, dtype=np.uint64)
    if hashes is not None and valid.any():
        order = np.argsort(codes[valid], kind="stable")
        grouped = codes[valid][order]
        starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
        hash_eq[grouped[starts]] = np.bitwise_xor.reduceat(keys[valid][order], starts)
    present = ~missing
    n_present = int(np.count_nonzero(present))
    hash_present = _xor(keys[present]) if hashes is not None else np.uint64(0)
    if "is missing" in ops:
        for position in ops["is missing"][1]:
            counts[position] = np.count_nonzero(missing)
            if hashes is not None:
                hashes[position] = _xor(keys[missing])
    for op in ("==", "!="):
        if op not in ops:
            continue
        values, positions = ops[op]
        wanted = categories.get_indexer(pd.Index(values, dtype=object, tupleize_cols=False))
        if op == "==":
            counts[positions] = count_eq[wanted]
            if hashes is not None:
                hashes[positions] = hash_eq[wanted]
        else:
            counts[positions] = n_present - count_eq[wanted]
            if hashes is not None:
                hashes[positions] = hash_present ^ hash_eq[wanted]


def exact_duplicates(
    conditions: Sequence[Any],
    members: np.ndarray,
    groups: np.ndarray,
    column_values: Callable[[str], tuple[str, np.ndarray, Any]],
    evaluate: Callable[[int, int, list[int]], np.ndarray],
    n: int,
    counts: np.ndarray,
) -> dict[int, int]:
    """For candidates sharing a signature, which earlier candidate each exactly duplicates.

    ``members`` (in output order) with their signature ``groups``; returns ``{j: kept}`` for
    every member whose extent equals that of an earlier member ``kept`` (the first of its
    class). Each member is compared with the first member of its group: two threshold
    attributes by their rankings (a threshold attribute holds the first ``s`` rows of its
    column sorted up or down, and the first ``s`` rows of two rankings are the same set exactly
    when, walking the first ranking, the largest position met in the second after ``s`` rows is
    ``s - 1``: one cumulative maximum per pair of rankings), anything else row by row. The rare
    members that differ from their group's first (a signature collision) are then split
    exactly by :func:`exact_classes`.
    """
    order_cache: dict[tuple[str, bool], tuple[np.ndarray, np.ndarray]] = {}

    def ranking(column: str, down: bool) -> tuple[np.ndarray, np.ndarray]:
        key = (column, down)
        if key not in order_cache:
            _, missing, values = column_values(column)
            index = np.flatnonzero(~missing)
            order = index[np.argsort(values[index], kind="stable")]
            if down:
                order = order[::-1].copy()
            rank = np.full(n, n, dtype=np.int64)
            rank[order] = np.arange(order.size)
            order_cache[key] = (order, rank)
        return order_cache[key]

    def threshold(j: int) -> tuple[str, bool] | None:
        c = conditions[j]
        if c.op in ("<=", "<", ">", ">="):
            return c.column, c.op in (">", ">=")
        return None

    duplicates: dict[int, int] = {}
    leftovers: list[int] = []
    leftover_groups: list[int] = []
    first: dict[int, int] = {}
    pending: dict[tuple, list[int]] = {}
    direct: list[tuple[int, int]] = []
    for j, g in zip(members.tolist(), groups.tolist()):
        head = first.setdefault(g, j)
        if head == j:
            continue
        a, b = threshold(head), threshold(j)
        if a is not None and b is not None:
            pending.setdefault((a, b), []).append(j)
        else:
            direct.append((j, head))
        duplicates[j] = head
    for (a, b), js in pending.items():
        order_a, _ = ranking(*a)
        _, rank_b = ranking(*b)
        reach = np.maximum.accumulate(rank_b[order_a]) if order_a.size else order_a
        for j in js:
            size = int(counts[j])
            if size and reach[size - 1] != size - 1:
                leftovers.append(j)
    for j, head in direct:
        for start in range(0, n, _VERIFY_ROWS):
            block = evaluate(start, min(n, start + _VERIFY_ROWS), [head, j])
            if not np.array_equal(block[:, 0], block[:, 1]):
                leftovers.append(j)
                break
    if leftovers:  # signature collisions: split those exactly, together with their group heads
        group_of = dict(zip(members.tolist(), groups.tolist()))
        involved = sorted(set(leftovers) | {first[group_of[j]] for j in leftovers})
        for j in involved:
            duplicates.pop(j, None)
        leftover_groups = [group_of[j] for j in involved]
        classes = exact_classes(evaluate, n, np.asarray(involved), np.asarray(leftover_groups))
        kept: dict[int, int] = {}
        for j, cls in zip(involved, classes.tolist()):
            head = kept.setdefault(cls, j)
            if head != j:
                duplicates[j] = head
    return duplicates


def exact_classes(evaluate: Callable[[int, int, list[int]], np.ndarray], n: int,
                  members: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Split candidate groups into classes of exactly equal extents.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(start, stop, members)`` returns the bool extents (stop - start, len(members))
        of the given candidates on rows ``start:stop``.
    n : int
        Number of rows.
    members : ndarray of int, shape (g,)
        Candidates to compare.
    groups : ndarray of int, shape (g,)
        Their initial groups (equal signatures); only members of one group can end up equal.

    Returns
    -------
    ndarray of int64, shape (g,)
        Class id of every member: equal ids exactly when the extents are equal (and the
        initial groups are the same).

    Examples
    --------
    >>> X = np.array([[1, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=bool)
    >>> c = exact_classes(lambda a, b, cols: X[a:b][:, cols], 3, np.array([0, 1, 2]), np.zeros(3))
    >>> bool(c[0] == c[1]), bool(c[1] == c[2])
    (True, False)
    """
    classes = np.unique(np.asarray(groups), return_inverse=True)[1].reshape(-1).astype(np.int64)
    members_list = [int(j) for j in members]
    for start in range(0, n, _VERIFY_ROWS):
        stop = min(n, start + _VERIFY_ROWS)
        block = np.packbits(evaluate(start, stop, members_list), axis=0)  # (bytes, g)
        rows = np.concatenate([classes.astype("<u8").view(np.uint8).reshape(-1, 8),
                               np.ascontiguousarray(block.T)], axis=1)
        classes = np.unique(rows, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    return classes
