"""Integer choices of pool columns for the DNF master: rounding and local search.

When the integer master (:func:`~logicrules.lp.master.solve_master_mip`) stops without an
incumbent, or to give it an upper bound for reduced-cost fixing, a fractional master solution
is rounded (:func:`round_master`: the columns above each distinct value of w) and the rounding
improved by add, drop and swap moves (:func:`improve_choice`). Both read the pool only through
its ``cover``, ``costs()``, ``sizes``, ``integer_objective`` and ``within_budget`` (a
:class:`~logicrules.lp.master.ConjunctionPool`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from logicrules.lp.master import ConjunctionPool

__all__ = ["round_master", "improve_choice"]


def round_master(pool: ConjunctionPool, w: np.ndarray) -> np.ndarray:
    """A good 0/1 choice of pool columns from a fractional master solution (a heuristic).

    For every distinct positive value t of w the columns ``w >= t`` are tried (those within the
    budget); the best of them is then improved by local search (:func:`improve_choice`).
    Returns the boolean choice with the least master objective found (never worse than
    choosing nothing).

    Examples
    --------
    >>> from logicrules.lp.master import ConjunctionPool, build_rule_set_problem
    >>> A = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    >>> pool = ConjunctionPool(build_rule_set_problem(A, [1, 1, 0], lam=0.1))
    >>> _ = pool.add([(0,), (1,)])
    >>> round_master(pool, np.array([0.6, 0.4])).tolist()
    [True, False]
    """
    w = np.asarray(w, dtype=np.float64)
    best = np.zeros(len(pool), dtype=bool)
    best_value = pool.integer_objective(best)
    for t in np.unique(w[w > 1e-9])[::-1]:
        chosen = w >= t
        if not pool.within_budget(chosen):
            continue
        value = pool.integer_objective(chosen)
        if value < best_value - pool.problem.tolerance():
            best, best_value = chosen, value
    return improve_choice(pool, best)


def improve_choice(pool: ConjunctionPool, chosen: np.ndarray, max_moves: int = 1000) -> np.ndarray:
    """Local search on a 0/1 choice of pool columns: best add, drop or swap move while one helps.

    The gains of all moves are computed at once from the cover counts of the positive rows:
    adding k gains ``u(uncovered rows k covers) - c_k``, dropping k gains ``c_k - u(rows
    only k covers)``, swapping a for b the sum of the two on the counts without a. Moves
    that break the budget are not made. Each move lowers the master objective.

    Examples
    --------
    >>> from logicrules.lp.master import ConjunctionPool, build_rule_set_problem
    >>> A = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    >>> pool = ConjunctionPool(build_rule_set_problem(A, [1, 1, 0], lam=0.1))
    >>> _ = pool.add([(0,), (1,)])
    >>> improve_choice(pool, np.array([False, True])).tolist()
    [True, False]
    """
    chosen = np.asarray(chosen, dtype=bool).copy()
    K = len(pool)
    if K == 0:
        return chosen
    u = pool.problem.pos_weight
    cover = pool.cover.astype(np.float64)
    costs = pool.costs()
    size = 1.0 + pool.sizes
    budget = np.inf if pool.problem.budget is None else pool.problem.budget + 1e-9
    tol = pool.problem.tolerance()
    for _ in range(max_moves):
        counts = cover[:, chosen].sum(axis=1)
        room = budget - size[chosen].sum()
        add = np.where(~chosen & (size <= room), (u * (counts == 0)) @ cover - costs, -np.inf)
        drop = np.where(chosen, costs - (u * (counts == 1)) @ cover, -np.inf)
        move, gain = None, tol
        if add.max() > gain:
            move, gain = ("add", int(np.argmax(add))), float(add.max())
        if drop.max() > gain:
            move, gain = ("drop", int(np.argmax(drop))), float(drop.max())
        for a in np.flatnonzero(chosen):
            without = counts - cover[:, a]
            swap = drop[a] + (u * (without == 0)) @ cover - costs
            swap[chosen | (size > room + size[a])] = -np.inf
            b = int(np.argmax(swap))
            if swap[b] > gain:
                move, gain = ("swap", (int(a), b)), float(swap[b])
        if move is None:
            break
        kind, k = move
        if kind == "add":
            chosen[k] = True
        elif kind == "drop":
            chosen[k] = False
        else:
            chosen[k[0]], chosen[k[1]] = False, True
    return chosen
