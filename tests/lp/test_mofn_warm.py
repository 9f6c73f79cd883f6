"""The m-of-n relaxations in one model edited in place give the optimum of fresh and cold solves."""

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


def _dual_value(S, C, positive, m, lam, beta):
    """The dual-form objective of ``beta`` (in group order) with its best ``mu``: the relaxation's
    value when ``beta`` is optimal."""
    sign = np.where(positive, 1.0, -1.0)
    target = np.where(positive, float(m), m - 1.0) * C
    return float(sign * target @ beta) - float(np.maximum(0.0, (sign[:, None] * S).T @ beta - lam).sum())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(1, 8), st.integers(1, 3))
def test_in_place_model_equals_fresh_models(seed, k, n, m):
    """A sequence of relaxations (groups dropped, kept in a new order, added) solved in one model
    edited in place: every value equals that of a freshly built model and of the cold solve, the
    returned beta (in the new group order) is dual optimal and w attains the value."""
    rng = np.random.default_rng(seed)
    lam = float(rng.choice([0.0, 0.3, 1.0, 4.0]))
    model = WarmChecklistLP(n, m, lam)
    S, C, positive = _relaxation(rng, k, n)
    start = source = None
    for _ in range(5):
        w, value, proved, beta = model.solve(S, C, positive, start, source)
        fresh_w, fresh_value, fresh_proved, _ = WarmChecklistLP(n, m, lam).solve(S, C, positive)
        cold_w, cold_value, cold_proved, _ = _solve_relaxation(S, C, positive, m, lam, False, None)
        assert proved and fresh_proved and cold_proved
        assert value == pytest.approx(fresh_value, rel=1e-9, abs=1e-9)
        assert value == pytest.approx(cold_value, rel=1e-9, abs=1e-9)
        assert _dual_value(S, C, positive, m, lam, beta) == pytest.approx(value, rel=1e-7, abs=1e-7)
        # w attains the value in the primal: lam 1'w + sum_g max(0, residual_g)
        residual = np.where(positive, m * C - S @ w, S @ w - (m - 1) * C)
        assert lam * w.sum() + np.maximum(residual, 0).sum() == pytest.approx(value, rel=1e-7, abs=1e-7)
        assert ((beta >= 0) & (beta <= 1)).all()
        kept = rng.permutation(np.flatnonzero(rng.random(S.shape[0]) < 0.7))
        S2, C2, p2 = _relaxation(rng, int(rng.integers(0, 4)), n)
        order = rng.permutation(kept.size + S2.shape[0])   # kept and new groups interleaved
        source = np.concatenate([kept, np.full(S2.shape[0], -1)])[order]
        start = np.concatenate([beta[kept], rng.choice([0.0, 1.0, 0.5], size=S2.shape[0])])[order]
        S = np.vstack([S[kept], S2])[order]
        C, positive = np.concatenate([C[kept], C2])[order], np.concatenate([positive[kept], p2])[order]
        if S.shape[0] == 0:
            break


def test_row_generation_edits_one_model_in_place(monkeypatch):
    """Each m's row generation keeps one model for all its rounds; the groups a round keeps stay
    in it as they were (deleted columns: only those of groups merged or split)."""
    import logicrules.lp.mofn_rows as mofn

    models = []

    class Recorded(WarmChecklistLP):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            models.append(self)

    monkeypatch.setattr(mofn, "WarmChecklistLP", Recorded)
    rng = np.random.default_rng(4)
    A = rng.random((4000, 40)) < 0.5
    y = ((A[:, 0] & A[:, 1]) | A[:, 2]) ^ (rng.random(4000) < 0.05)
    rows = ChecklistRows.from_dense(A, y)
    fit = solve_threshold_lp(rows, 2, 20.0, row_sampling=0.2, base_rows=200, random_state=0, warm=True)
    plain = solve_threshold_lp(rows, 2, 20.0, warm=False)
    assert fit.objective == pytest.approx(plain.objective, rel=1e-9)
    top = models[-1]
    assert len(top.iterations) == fit.rounds > 2
    columns, kept, added = 0, 0, 0
    for deleted, new in top.edits:
        kept, added, columns = kept + columns - deleted, added + new, columns - deleted + new
    assert kept > 0 and columns == fit.groups


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
