"""Slow, obvious references for column generation, written from DESIGN.md section 5.

Rows are never merged here, every conjunction of at most k literals is enumerated, and the
master LP and its dual are written out as dense LPs of their own.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import optimize


def random_rule_instance(rng: np.random.Generator, n: int, m: int, density: float = 0.5):
    """A random literal matrix with repeated rows (so merging matters) and a random target."""
    base = rng.random((max(2, n // 2), m)) < density
    A = base[rng.integers(0, base.shape[0], n)]
    y = rng.random(n) < 0.5
    if y.all() or not y.any():
        y[0] = not y[0]
    return A, y


def all_conjunctions(m: int, k: int) -> list[tuple[int, ...]]:
    """Every conjunction of at most k distinct literals out of m, the empty one (TRUE) included."""
    return [t for s in range(k + 1) for t in itertools.combinations(range(m), s)]


def holds(A: np.ndarray, term: tuple[int, ...]) -> np.ndarray:
    """Rows where the conjunction holds (the empty conjunction holds everywhere)."""
    out = np.ones(A.shape[0], dtype=bool)
    for j in term:
        out &= A[:, j]
    return out


def reduced_cost(A, y, row_weight, mu_rows, nu, lam, term) -> float:
    """rc = sum_{i in Z} v_i a_i - sum_{i in P} mu_i a_i + (lam + nu)(1 + |K|), row by row.

    ``mu_rows`` holds one dual per row of A (0 on negative rows).
    """
    a = holds(A, term)
    return float(np.sum(row_weight[~y] * a[~y]) - np.sum(mu_rows[y] * a[y]) + (lam + nu) * (1 + len(term)))


def brute_force_least(A, y, row_weight, mu_rows, nu, lam, k) -> tuple[float, list[tuple[int, ...]]]:
    """The least reduced cost over all conjunctions of <= k literals, and every term reaching it."""
    values = {t: reduced_cost(A, y, row_weight, mu_rows, nu, lam, t) for t in all_conjunctions(A.shape[1], k)}
    best = min(values.values())
    return best, [t for t, v in values.items() if v <= best + 1e-9]


def master_lp_value(A, y, row_weight, lam, terms, budget=None) -> float:
    """The master LP over the given terms, one constraint per positive row (no merging).

    minimize sum_P u_i xi_i + sum_k (sum_Z v_i a_ik + lam (1 + |k|)) w_k
    subject to xi_i + sum_k a_ik w_k >= 1 (i in P), [sum_k (1 + |k|) w_k <= C], w, xi >= 0.
    """
    P = np.flatnonzero(y)
    cover = np.array([holds(A, t)[P] for t in terms], dtype=float).T.reshape(P.size, len(terms))
    neg = np.array([np.sum(row_weight[~y] * holds(A, t)[~y]) for t in terms])
    sizes = np.array([1.0 + len(t) for t in terms])
    c = np.concatenate([neg + lam * sizes, row_weight[P]])
    A_ub = -np.hstack([cover, np.eye(P.size)])
    b_ub = -np.ones(P.size)
    if budget is not None:
        A_ub = np.vstack([A_ub, np.concatenate([sizes, np.zeros(P.size)])])
        b_ub = np.concatenate([b_ub, [budget]])
    res = optimize.linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=(0, None), method="highs-ds")
    assert res.status == 0
    return float(res.fun)


def master_dual_value(A, y, row_weight, lam, terms, budget=None) -> float:
    """The dual of the master LP solved directly: max sum mu - C nu,
    0 <= mu_i <= u_i, sum_i mu_i a_ik - nu (1 + |k|) <= c_k."""
    P = np.flatnonzero(y)
    cover = np.array([holds(A, t)[P] for t in terms], dtype=float).reshape(len(terms), P.size)
    neg = np.array([np.sum(row_weight[~y] * holds(A, t)[~y]) for t in terms])
    sizes = np.array([1.0 + len(t) for t in terms])
    costs = neg + lam * sizes
    if budget is None:
        res = optimize.linprog(-np.ones(P.size), A_ub=cover if len(terms) else None,
                               b_ub=costs if len(terms) else None,
                               bounds=[(0, u) for u in row_weight[P]], method="highs-ipm")
    else:
        A_ub = np.hstack([cover, -sizes[:, None]])
        res = optimize.linprog(np.concatenate([-np.ones(P.size), [budget]]), A_ub=A_ub if len(terms) else None,
                               b_ub=costs if len(terms) else None,
                               bounds=[(0, u) for u in row_weight[P]] + [(0, None)], method="highs-ipm")
    assert res.status == 0
    return float(-res.fun)


def best_subset(A, y, row_weight, lam, terms, budget=None) -> float:
    """Least master objective over all subsets of the terms (the integer master by enumeration)."""
    best = np.inf
    for bits in itertools.product([False, True], repeat=len(terms)):
        chosen = [t for t, b in zip(terms, bits) if b]
        if budget is not None and sum(1 + len(t) for t in chosen) > budget + 1e-9:
            continue
        covered = np.zeros(A.shape[0], dtype=bool)
        value = 0.0
        for t in chosen:
            a = holds(A, t)
            covered |= a
            value += np.sum(row_weight[~y] * a[~y]) + lam * (1 + len(t))
        value += np.sum(row_weight[y & ~covered])
        best = min(best, value)
    return float(best)
