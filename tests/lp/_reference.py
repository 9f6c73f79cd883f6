"""Slow, obvious references for the LP tests, written from the definitions in DESIGN.md section 2."""

from __future__ import annotations

import itertools

import numpy as np
from scipy import optimize


def random_instance(rng: np.random.Generator, p: int, z: int, n: int, density: float = 0.3):
    """Random 0/1 positive and negative rows over n columns."""
    return rng.random((p, n)) < density, rng.random((z, n)) < density


def solve_formulation_10(A_pos, A_neg, lam, weights=(1.0, 1.0)) -> float:
    """The paper's LP (10), written out with dense matrices and both row sets as constraints.

    Variables (w, xi_P, xi_Z); minimize lam 1'w + c_pos 1'xi_P + c_neg 1'xi_Z subject to
    A_P w + xi_P >= 1, A_Z w - xi_Z = 0, 0 <= w <= 1, 0 <= xi_P <= 1, xi_Z >= 0.
    The bound xi <= 1 applies to the positive rows only: on a negative row xi_i = a_i w counts
    every firing literal, which is what the paper's appendix 1 substitutes to obtain (19) (with
    xi_Z <= 1 as well, (10) would forbid two chosen literals on one negative row and would not
    be equivalent to (19)).
    """
    A_pos = np.asarray(A_pos, dtype=float)
    A_neg = np.asarray(A_neg, dtype=float)
    (p, n), z = A_pos.shape, A_neg.shape[0]
    c = np.concatenate([np.full(n, lam), np.full(p, weights[0]), np.full(z, weights[1])])
    A_ub = -np.hstack([A_pos, np.eye(p), np.zeros((p, z))])
    A_eq = np.hstack([A_neg, np.zeros((z, p)), -np.eye(z)])
    res = optimize.linprog(c, A_ub=A_ub, b_ub=-np.ones(p), A_eq=A_eq if z else None,
                           b_eq=np.zeros(z) if z else None,
                           bounds=[(0, 1)] * (n + p) + [(0, None)] * z, method="highs-ds")
    assert res.status == 0
    return float(res.fun)


def solve_dual_20(A_pos, A_neg, lam, weights=(1.0, 1.0)) -> float:
    """The dual (20), solved as its own LP: max 1'mu, 0 <= mu <= c_pos, mu'A_P <= lam + c_neg 1'A_Z."""
    A_pos = np.asarray(A_pos, dtype=float)
    A_neg = np.asarray(A_neg, dtype=float)
    p = A_pos.shape[0]
    costs = lam + weights[1] * A_neg.sum(axis=0)
    res = optimize.linprog(-np.ones(p), A_ub=A_pos.T, b_ub=costs, bounds=(0, weights[0]), method="highs-ipm")
    assert res.status == 0
    return float(-res.fun)


def integer_objective(A_pos, A_neg, lam, w, weights=(1.0, 1.0)) -> float:
    """Objective of a 0/1 rule: lam |w| + c_pos (uncovered positives) + c_neg (covered negatives)."""
    w = np.asarray(w, dtype=bool)
    pos_fire = np.asarray(A_pos, dtype=bool)[:, w].any(axis=1)
    neg_hits = np.asarray(A_neg, dtype=bool)[:, w].sum()  # every firing literal on a negative counts
    return lam * w.sum() + weights[0] * (~pos_fire).sum() + weights[1] * neg_hits


def brute_force_optima(A_pos, A_neg, lam, weights=(1.0, 1.0)) -> tuple[float, list[np.ndarray]]:
    """Optimal value and all optimal 0/1 rules of the integer program, by enumeration."""
    n = np.asarray(A_pos).shape[1]
    best, rules = np.inf, []
    for bits in itertools.product([False, True], repeat=n):
        w = np.array(bits, dtype=bool)
        value = integer_objective(A_pos, A_neg, lam, w, weights)
        if value < best - 1e-9:
            best, rules = value, [w]
        elif abs(value - best) <= 1e-9:
            rules.append(w)
    return best, rules


def h1_reference(A_pos, costs, c_pos, sample, sample_dual, skip=()) -> np.ndarray:
    """Heuristic H1 exactly as in appendix 3: scan unseen rows in increasing order and set
    mu_k = c_pos when mu'A_P + a_k <= costs still holds (rows in ``skip`` stay 0)."""
    A = np.asarray(A_pos, dtype=float)
    mu = np.zeros(A.shape[0])
    mu[np.asarray(sample, dtype=int)] = sample_dual
    seen = set(int(i) for i in sample) | set(int(i) for i in skip)
    for k in range(A.shape[0]):
        if k in seen:
            continue
        trial = mu.copy()
        trial[k] = c_pos
        if np.all(trial @ A <= costs + 1e-9):
            mu = trial
    return mu
