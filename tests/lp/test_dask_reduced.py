"""The dask clause LP's reduced problem: a live model carried through added patterns solves each
round to the optimum of the same LP solved from scratch."""

import numpy as np
import pytest

pytest.importorskip("highspy", reason="the live model needs highspy (pip install 'logicrules[highs]')")

from logicrules.fca.counts import RowMultiset  # noqa: E402
from logicrules.lp.dask_clause import _Reduced  # noqa: E402
from logicrules.lp.model import GroupTestingProblem, rmatvec  # noqa: E402
from logicrules.lp.solvers import solve_problem  # noqa: E402


def _patterns(rng, n, m):
    dense = np.unique(rng.random((n, m)) < 0.3, axis=0)
    return RowMultiset.from_dense(dense, rng.integers(1, 5, dense.shape[0]).astype(float))


@pytest.mark.parametrize("seed", range(8))
def test_live_rounds_reach_the_cold_optimum(seed):
    rng = np.random.default_rng(seed)
    m = 12
    costs, neg = rng.integers(2, 30, m).astype(float), rng.integers(0, 20, m).astype(float)
    options = {"solver": "highs", "integral": False, "time_limit": None}
    reduced = _Reduced(_patterns(rng, 2000, m), np.arange(m))  # ~1500 patterns: 8 more is a warm edit
    for round_ in range(4):
        w, dual, result = reduced.solve(costs, neg, 0.01, 1.0, 1.0, options)
        problem = GroupTestingProblem(reduced.dense, costs, neg, 0.01, 1.0, 1.0, reduced.weights)
        cold = solve_problem(problem, merge_rows=True)
        assert result.objective == pytest.approx(cold.objective, rel=1e-7, abs=1e-7)
        assert dual.sum() == pytest.approx(cold.objective, rel=1e-7, abs=1e-7)  # a certificate: dual = primal
        assert (rmatvec(reduced.dense, dual) <= costs + 1e-7).all() and (dual >= -1e-9).all()
        assert (dual <= problem.row_costs + 1e-7).all()
        fresh = reduced.fresh(_patterns(rng, 8 + 400 * (round_ % 2), m))  # small (warm) and large (cold) edits
        if fresh is None:
            break
        grown = reduced.joined(fresh)
        assert grown.live is reduced.live and grown.n_rows == reduced.n_rows + fresh.n_rows
        assert np.array_equal(grown.dense[:reduced.n_rows], reduced.dense)  # old patterns first: the model's order
        reduced = grown
    assert reduced.live is not None and len(reduced.live.iterations) >= 2
