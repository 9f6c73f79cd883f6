"""Heuristic two-level minimization in the manner of espresso, over bit-packed cubes.

For functions of too many variables for the exact minimal DNF (all prime implicants, then a
least cover), :func:`espresso_cover` shortens a cover instead. A *cube* is a pair of int64
codes ``(value, mask)`` over ``k <= 62`` variables: the bits in ``mask`` are free, the others
must equal ``value``. The function is given by the codes of its true assignments (``on``) and
false ones (``off``); every other code is a don't-care (for the domain simplification: the
assignments no row can produce). Starting from a cover of ``on`` by cubes disjoint from
``off`` (a DNF's terms, or the true codes themselves), three steps repeat while the cover gets
cheaper:

1. *expand*: every cube, largest first, is raised as far as ``off`` allows: it must keep fixed,
   for each false code, one of the bits in which they differ (a hitting set, chosen greedily:
   the bit separating most still unseparated false codes per unit of cost, then redundant
   choices dropped); cubes the raised cube contains are dropped;
2. *irredundant*: cubes whose true codes all lie in other cubes are removed, the costliest
   first;
3. *reduce*: every cube shrinks to the smallest cube holding the true codes only it covers, so
   that the next expansion (with the other tie order) may raise it in another direction.

The result covers ``on``, avoids ``off``, and costs no more than the start (the cheapest cover
seen is returned). Everything runs on arrays of codes (``np.unique``, bit operations, sums);
the loops are over cubes and bits, never over codes.

Examples
--------
>>> import numpy as np
>>> on, off = np.array([1, 3, 5, 7]), np.array([0, 2, 4, 6])  # x0 over three variables
>>> values, masks = espresso_cover(on, off, 3)
>>> values.tolist(), masks.tolist()
([1], [6])
"""

from __future__ import annotations

import numpy as np

__all__ = ["espresso_cover"]

#: Rounds of expand / irredundant / reduce without a cheaper cover before stopping.
_PATIENCE = 2


def espresso_cover(on: np.ndarray, off: np.ndarray, k: int, cubes: tuple[np.ndarray, np.ndarray] | None = None,
                   costs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A short cover of the codes ``on`` by cubes disjoint from the codes ``off``.

    Parameters
    ----------
    on, off : ndarray of int
        Codes of the true and false assignments (bit ``j``: variable ``j``); disjoint.
    k : int
        Number of variables, at most 62.
    cubes : (values, masks), optional
        The starting cover: cubes disjoint from ``off`` covering ``on`` (default: the codes of
        ``on`` as cubes of no free bit).
    costs : ndarray of int, shape (k,), optional
        Cost of a literal on each variable (default 1); the cost of a cover is the sum over its
        cubes of the costs of their fixed bits.

    Returns
    -------
    values, masks : ndarray of int64
        The cover, its cubes sorted by cost then value.

    Raises
    ------
    ValueError
        If the starting cubes meet ``off`` or leave a code of ``on`` uncovered.
    """
    if not 0 <= k <= 62:
        raise ValueError(f"espresso_cover handles 0 to 62 variables, got {k}")
    on = np.unique(np.asarray(on, dtype=np.int64))
    off = np.unique(np.asarray(off, dtype=np.int64))
    costs = np.ones(k, dtype=np.int64) if costs is None else np.asarray(costs, dtype=np.int64)
    if cubes is None:
        values, masks = on.copy(), np.zeros(on.size, dtype=np.int64)
    else:
        values, masks = (np.asarray(a, dtype=np.int64).reshape(-1) for a in cubes)
        values = values & ~masks
    if any(((off & ~m) == v).any() for v, m in zip(values.tolist(), masks.tolist())):
        raise ValueError("a starting cube contains a false code")
    cover = _Cover(on, off, k, costs, values, masks)
    if on.size and (cover.counts == 0).any():
        raise ValueError("the starting cubes leave true codes uncovered")
    cover.irredundant()
    best = cover.snapshot()
    stale = 0
    for round_ in range(64):
        cover.expand(ascending=round_ % 2 == 0)
        cover.irredundant()
        current = cover.snapshot()
        if current[0] < best[0]:
            best, stale = current, 0
        else:
            stale += 1
            if stale >= _PATIENCE:
                break
        cover.reduce()
    _, values, masks = best
    order = np.lexsort((values, _cost(masks, costs, k)))
    return values[order], masks[order]


def _cost(masks: np.ndarray, costs: np.ndarray, k: int) -> np.ndarray:
    bits = np.arange(k, dtype=np.int64)
    return ((~masks[:, None] >> bits) & 1) @ costs if k else np.zeros(masks.size, dtype=np.int64)


class _Cover:
    """A cover under change: its cubes (``alive`` ones count) and, per true code, how many
    cubes hold it."""

    def __init__(self, on, off, k, costs, values, masks) -> None:
        self.on, self.off, self.k, self.costs = on, off, k, costs
        self.bits = np.left_shift(np.int64(1), np.arange(k, dtype=np.int64))
        self.values, self.masks = values.copy(), masks.copy()
        self.alive = np.ones(values.size, dtype=bool)
        self.counts = np.zeros(on.size, dtype=np.int64)
        for v, m in zip(self.values.tolist(), self.masks.tolist()):
            self.counts += self.holds(v, m)

    def holds(self, value: int, mask: int) -> np.ndarray:
        return (self.on & ~mask) == value

    def costs_of(self) -> np.ndarray:
        return _cost(self.masks, self.costs, self.k)

    def snapshot(self) -> tuple[tuple[int, int], np.ndarray, np.ndarray]:
        total = int(self.costs_of()[self.alive].sum())
        return (total, int(self.alive.sum())), self.values[self.alive].copy(), self.masks[self.alive].copy()

    def replace(self, i: int, value: int, mask: int) -> None:
        self.counts -= self.holds(int(self.values[i]), int(self.masks[i]))
        self.values[i], self.masks[i] = value, mask
        self.counts += self.holds(value, mask)

    def remove(self, i: int) -> None:
        self.counts -= self.holds(int(self.values[i]), int(self.masks[i]))
        self.alive[i] = False

    def raised(self, value: int, mask: int, ascending: bool) -> tuple[int, int]:
        """The cube raised against ``off``: the fixed bits kept form a small hitting set of the
        false codes' differences (greedy by separated codes per cost, then pruned)."""
        conflicts = np.unique((self.off ^ value) & ~mask)
        fixed = [j for j in range(self.k) if not (mask >> j) & 1]
        if not ascending:
            fixed.reverse()
        keep: list[int] = []
        left = conflicts
        while left.size:
            hits = np.array([np.count_nonzero(left & self.bits[j]) / self.costs[j] for j in fixed])
            j = fixed[int(np.argmax(hits))]
            keep.append(j)
            left = left[(left & self.bits[j]) == 0]
        for j in sorted(keep, key=lambda j: -self.costs[j]):  # drop choices the others make redundant
            others = sum(int(self.bits[i]) for i in keep if i != j)
            if ((conflicts & others) != 0).all():
                keep.remove(j)
        kept = sum(int(self.bits[j]) for j in keep)
        return value & kept, ((1 << self.k) - 1) & ~kept

    def expand(self, ascending: bool) -> None:
        """Raise every cube, cheapest first; drop the cubes a raised one contains."""
        for i in np.lexsort((np.arange(self.alive.size), self.costs_of())).tolist():
            if not self.alive[i]:
                continue
            v, m = self.raised(int(self.values[i]), int(self.masks[i]), ascending)
            self.replace(i, v, m)
            inside = self.alive & ((self.masks & ~m) == 0) & ((self.values & ~m) == v)
            inside[i] = False
            for j in np.flatnonzero(inside).tolist():
                self.remove(j)

    def irredundant(self) -> None:
        """Remove, the costliest first, cubes all of whose true codes other cubes hold."""
        for i in np.lexsort((-np.arange(self.alive.size), -self.costs_of())).tolist():
            if self.alive[i] and (self.counts[self.holds(int(self.values[i]), int(self.masks[i]))] >= 2).all():
                self.remove(i)

    def reduce(self) -> None:
        """Shrink every cube, the cheapest first, to the true codes only it holds."""
        for i in np.lexsort((np.arange(self.alive.size), self.costs_of())).tolist():
            if not self.alive[i]:
                continue
            own = self.on[self.holds(int(self.values[i]), int(self.masks[i])) & (self.counts == 1)]
            if own.size:
                spread = int(np.bitwise_or.reduce(own ^ own[0]))
                self.replace(i, int(own[0]) & ~spread, spread)
