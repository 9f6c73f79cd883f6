"""The LP learner under memory_limit: the traced peak of a fit stays under it, or a clear error comes first."""

import tracemalloc

import numpy as np
import pytest

from logicrules.lp.estimator import LPRuleClassifier
from logicrules.lp.model import build_problem
from logicrules.lp.solvers import model_bytes, solve_problem
from logicrules.memory import MemoryBudget, MemoryLimitError


def _data(n=200_000, m=40):
    rng = np.random.default_rng(0)
    X = rng.random((n, m)) < 0.5
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    return X, y ^ (rng.random(n) < 0.05)


def _traced_fit(limit, X, y, **params):
    tracemalloc.start()
    try:
        model = LPRuleClassifier(binarizer="passthrough", memory_limit=limit, **params).fit(X, y)
        return model, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("rule", ["or", "and"])
def test_fit_peak_stays_under_memory_limit(rule):
    X, y = _data()
    LPRuleClassifier(binarizer="passthrough", rule=rule).fit(X[:500], y[:500])  # imports, compiled kernels
    limit = 40_000_000
    model, peak = _traced_fit(limit, X, y, rule=rule)
    assert peak < limit
    unlimited = LPRuleClassifier(binarizer="passthrough", rule=rule, memory_limit="8GB").fit(X, y)
    assert str(model.formula_) == str(unlimited.formula_)   # the blocks sized by the limit change nothing


def test_too_small_memory_limit_names_the_constraint_rows():
    X, y = _data()
    with pytest.raises(MemoryLimitError, match=r"the LP's constraint rows \(the distinct positive rows\), "
                                                r"up to \d+ x 40 cells needs [\d.]+ MB"):
        _traced_fit("4MB", X, y)


def test_solver_model_is_checked_before_it_is_built():
    rng = np.random.default_rng(1)
    problem = build_problem(rng.random((3000, 30)) < 0.5, rng.random((3000, 30)) < 0.5, lam=1.0)
    nnz = int(problem.A_pos.sum())
    assert model_bytes(nnz, 3000, 30) > 1e6
    with MemoryBudget("1MB").active():
        with pytest.raises(MemoryLimitError, match=r"the LP solver's model of the group-testing LP "
                                                    r"\(3000 rows x 3030 columns, \d+ nonzeros\)"):
            solve_problem(problem)
    assert solve_problem(problem).status == "optimal"   # no budget active: no check
