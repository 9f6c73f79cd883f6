"""The warm-started m-of-n relaxations give the optimum of the cold solve."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.lp.mofn_rows import ChecklistRows, _solve_relaxation, solve_threshold_lp
from logicrules.lp.mofn_warm import WarmChecklistLP

pytest.importorskip("highspy")


def _relaxation(rng, k, n):
    S = rng.random((k, n)) * rng.integers(1, 6, size=(k, 1))
    C = S.max(axis=1) + rng.random(k)
    return S, C, rng.random(k) < 0.5


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(1, 8), st.integers(1, 3))
def test_warm_solves_equal_cold_solves(seed, k, n, m):
    """A sequence of relaxations (groups dropped, added, changed) solved from the last basis:
    every value equals the cold solve's, and w is optimal for the cold LP."""
    rng = np.random.default_rng(seed)
    lam = float(rng.choice([0.0, 0.3, 1.0, 4.0]))
    model = WarmChecklistLP(n, m, lam)
    S, C, positive = _relaxation(rng, k, n)
    start = None
    for _ in range(4):
        w, value, proved, beta = model.solve(S, C, positive, start)
        cold_w, cold_value, cold_proved, _ = _solve_relaxation(S, C, positive, m, lam, False, None)
        assert proved and cold_proved
        assert value == pytest.approx(cold_value, rel=1e-9, abs=1e-9)
        # w attains the value in the primal: lam 1'w + sum_g max(0, residual_g)
        residual = np.where(positive, m * C - S @ w, S @ w - (m - 1) * C)
        assert lam * w.sum() + np.maximum(residual, 0).sum() == pytest.approx(value, rel=1e-7, abs=1e-7)
        assert ((beta >= 0) & (beta <= 1)).all()
        keep = rng.random(S.shape[0]) < 0.7
        S2, C2, p2 = _relaxation(rng, int(rng.integers(0, 4)), n)
        start = np.concatenate([beta[keep], rng.choice([0.0, 1.0, 0.5], size=S2.shape[0])])
        S, C, positive = np.vstack([S[keep], S2]), np.concatenate([C[keep], C2]), np.concatenate([positive[keep], p2])
        if S.shape[0] == 0:
            break


def test_row_generation_warm_equals_cold_on_planted_data():
    rng = np.random.default_rng(11)
    A = rng.random((6000, 30)) < 0.5
    y = ((A[:, 0] & A[:, 1]) | A[:, 2]) ^ (rng.random(6000) < 0.05)
    rows = ChecklistRows.from_dense(A, y)
    for m in (1, 2, 3):
        warm = solve_threshold_lp(rows, m, 30.0, row_sampling=0.2, base_rows=300, random_state=0, warm=True)
        cold = solve_threshold_lp(rows, m, 30.0, row_sampling=0.2, base_rows=300, random_state=0, warm=False)
        plain = solve_threshold_lp(rows, m, 30.0, warm=False)
        assert warm.optimal and cold.optimal
        assert warm.objective == pytest.approx(plain.objective, rel=1e-9)
        assert cold.objective == pytest.approx(plain.objective, rel=1e-9)
        assert warm.groups < rows.n_rows / 10
