"""Bounded row generation of the clause LP: the same optimum as one solve over all rows, however
few rows a round may add, whether slack rows leave the row set, and under a memory limit that
refuses the model over all rows."""

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.lp import screening
from logicrules.lp.model import build_problem
from logicrules.lp.screening import solve_with_screening
from logicrules.lp.solvers import model_bytes, solve_problem
from logicrules.memory import MemoryBudget, MemoryLimitError

from ._reference import random_instance


def _problem(seed: int, p: int = 80, n: int = 12):
    rng = np.random.default_rng(seed)
    A_pos, A_neg = random_instance(rng, p, int(rng.integers(1, 80)), n, float(rng.uniform(0.1, 0.6)))
    weights = (float(rng.uniform(0.5, 2)), float(rng.uniform(0.5, 2))) if seed % 2 else None
    pos_weight = rng.integers(1, 4, size=p).astype(float) if seed % 3 == 0 else None
    return build_problem(A_pos, A_neg, float(rng.choice([0.3, 1.0, 4.0])), weights, pos_weight=pos_weight), rng


@contextmanager
def _rows_per_round(per_round: int, dropping: int):
    """ROWS_PER_ROUND and DROPPING_ROUNDS set for one example, restored afterwards."""
    saved = screening.ROWS_PER_ROUND, screening.DROPPING_ROUNDS
    screening.ROWS_PER_ROUND, screening.DROPPING_ROUNDS = per_round, dropping
    try:
        yield
    finally:
        screening.ROWS_PER_ROUND, screening.DROPPING_ROUNDS = saved


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), per_round=st.integers(1, 5), dropping=st.integers(0, 30),
       integral=st.booleans())
def test_bounded_row_generation_reaches_the_full_optimum(seed, per_round, dropping, integral):
    problem, rng = _problem(seed)
    full = solve_problem(problem, integral=integral)
    start = np.sort(rng.choice(problem.n_rows, size=int(rng.integers(1, 10)), replace=False))
    with _rows_per_round(per_round, dropping):
        got = solve_with_screening(problem, rows=start, integral=integral, max_working=int(rng.integers(1, 13)))
    tol = 1e-6 * max(1.0, full.objective)
    assert got.objective == pytest.approx(full.objective, abs=tol)
    if not integral:   # the padded dual is feasible for the full problem and certifies the value
        assert problem.dual_violation(got.dual) <= 1e-7
        assert got.lower_bound == pytest.approx(full.objective, abs=tol)


def test_a_round_adds_at_most_the_cap_least_covered_first(monkeypatch):
    monkeypatch.setattr(screening, "ROWS_PER_ROUND", 2)
    problem = build_problem(np.eye(6, dtype=bool), np.zeros((1, 6), dtype=bool), lam=0.5)
    active = np.zeros(6, dtype=bool)
    active[0] = True
    coverage = np.array([1.0, 0.0, 0.5, 0.2, 1.0, 0.9])
    assert screening._next_rows(problem, np.arange(6), active, np.array([0]), coverage, np.array([1.0]), rounds=1)
    assert np.flatnonzero(active).tolist() == [0, 1, 3]        # two rows, the least covered
    assert not screening._next_rows(problem, np.arange(6), np.ones(6, dtype=bool), np.arange(6), np.ones(6), None,
                                    rounds=1)


def test_memory_limit_that_refuses_all_rows_solves_by_row_generation(monkeypatch):
    monkeypatch.setattr(screening, "ROWS_PER_ROUND", 20)
    rng = np.random.default_rng(3)
    A_pos, A_neg = random_instance(rng, 3000, 500, 20, 0.3)
    problem = build_problem(A_pos, A_neg, lam=30.0)
    full = solve_problem(problem)
    everything = model_bytes(float(A_pos.sum()) + 3000, 3000, 3020)
    with MemoryBudget(int(everything / 2)).active():
        with pytest.raises(MemoryLimitError):
            solve_problem(problem)                      # one model over all rows does not fit
        got = solve_with_screening(problem, max_working=20)
    assert got.objective == pytest.approx(full.objective, abs=1e-6 * full.objective)
    assert got.details["rows_solved"] < problem.n_rows
    assert problem.dual_violation(got.dual) <= 1e-7
    with MemoryBudget("50kB").active(), pytest.raises(MemoryLimitError, match="the LP solver's model"):
        solve_with_screening(problem, max_working=20)   # not even the row set fits: the clear error


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_covering_under_a_small_memory_limit_learns_the_same_rule_set(rule):
    from logicrules.lp.estimator import LPRuleClassifier

    rng = np.random.default_rng(0)
    X = rng.random((6000, 30)) < 0.5
    y = ((X[:, 0] & X[:, 1]) | X[:, 2]) ^ (rng.random(6000) < 0.05)
    params = dict(rule=rule, method="covering", binarizer="passthrough", max_clauses=3)
    free = LPRuleClassifier(**params, memory_limit="8GB").fit(X, y)
    tight = LPRuleClassifier(**params, memory_limit="40MB").fit(X, y)
    assert str(tight.formula_) == str(free.formula_)
    assert tight.lp_result_["lp_objective"] == pytest.approx(free.lp_result_["lp_objective"], rel=1e-7)
