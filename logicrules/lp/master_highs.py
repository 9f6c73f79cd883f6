"""The restricted master LP kept in one HiGHS model between column generation rounds.

Column generation (:func:`~logicrules.lp.colgen.generate_columns`) solves the master LP of
:mod:`logicrules.lp.master` once per round over a pool that only grows. Solving it from scratch
each round (SciPy's ``linprog``) rebuilds the sparse model and restarts the simplex; here the
model lives in one ``highspy.Highs`` object: each round appends the pool's new columns and
re-solves from the previous optimal basis. The old basis stays primal feasible when columns
are added (a new column enters at 0), so the primal simplex needs only the pivots the new
columns bring. The duals are HiGHS's row duals, with the sign of :class:`~logicrules.lp.master.MasterLP`
(``mu_i >= 0`` on the covering rows, ``nu >= 0`` on the budget).

:func:`master_lp_solver` returns this warm model for ``solver="highs"`` when highspy is
installed (the optional ``highs`` extra), otherwise a solver that calls
:func:`~logicrules.lp.master.solve_master_lp` (SciPy's bundled HiGHS, or PuLP) every round: the
same optimum, only cold.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import numpy as np

from logicrules.lp.highs_mip import _new_highs
from logicrules.lp.master import ConjunctionPool, MasterLP, solve_master_lp
from logicrules.lp.solvers import SolverError, require_model_memory

__all__ = ["WarmMasterLP", "master_lp_solver"]

class WarmMasterLP:
    """The master LP of a growing :class:`~logicrules.lp.master.ConjunctionPool` in one HiGHS model.

    Variables are ordered ``(xi_1..xi_p, w_1..w_K)``; rows are the p covering rows
    ``xi_i + sum_k a_ik w_k >= 1`` and, with a budget, ``sum_k (1 + |k|) w_k <= C``.
    :meth:`solve` adds the pool's columns not yet in the model and re-solves from the last basis.

    Parameters
    ----------
    pool : ConjunctionPool
        The pool; it may grow between calls of :meth:`solve` (columns are only appended).
    time_limit : float, optional
        Seconds per solve; a solve that stops without an optimum raises :class:`SolverError`.

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> A = np.array([[1, 0], [1, 1], [0, 1]], dtype=bool)
    >>> pool = ConjunctionPool(build_rule_set_problem(A, [1, 1, 0], lam=0.1))
    >>> _ = pool.add([(1,)])
    >>> model = WarmMasterLP(pool)
    >>> round(model.solve().objective, 6)   # (1,) would cover a negative row: nothing chosen
    2.0
    >>> _ = pool.add([(0,)])
    >>> lp = model.solve()
    >>> round(lp.objective, 6), lp.w.round(6).tolist(), round(float(lp.mu.sum()), 6)
    (0.2, [0.0, 1.0], 0.2)
    """

    def __init__(self, pool: ConjunctionPool, time_limit: float | None = None):
        import highspy

        self.pool = pool
        P = pool.problem
        self._p = int(P.A_pos.shape[0])
        self._columns = 0   # pool columns already in the model
        h = _new_highs()
        h.setOptionValue("presolve", "off")   # a warm start needs the model as it is
        if time_limit is not None:
            h.setOptionValue("time_limit", float(time_limit))
        self._inf = float(highspy.kHighsInf)
        self._optimal = highspy.HighsModelStatus.kOptimal
        p, none = self._p, np.zeros(0, dtype=np.int32)
        h.addRows(p, np.ones(p), np.full(p, self._inf), 0, none, none, np.zeros(0))
        if P.budget is not None:
            h.addRows(1, np.array([-self._inf]), np.array([float(P.budget)]), 0, none, none, np.zeros(0))
        # xi_i: cost u_i, one entry (1) in covering row i
        h.addCols(p, np.asarray(P.pos_weight, dtype=np.float64), np.zeros(p), np.full(p, self._inf), p,
                  np.arange(p, dtype=np.int32), np.arange(p, dtype=np.int32), np.ones(p))
        self._highs = h

    def _add_new_columns(self) -> None:
        pool, P = self.pool, self.pool.problem
        K = len(pool)
        if K == self._columns:
            return
        new = np.arange(self._columns, K)
        cover = pool.cover[:, new]
        nnz = int(np.count_nonzero(cover))
        require_model_memory(nnz + self._highs.getNumNz(), self._p + 1, self._p + K,
                             "the master LP over the conjunction pool")
        column, row = np.nonzero(cover.T)         # entries grouped by column
        counts = np.bincount(column, minlength=new.size)
        indices, values = row.astype(np.int32), np.ones(row.size)
        if P.budget is not None:   # the budget row (index p) closes every column
            per = counts + 1
            starts = np.concatenate([[0], np.cumsum(per)[:-1]])
            idx = np.empty(int(per.sum()), dtype=np.int32)
            val = np.empty(idx.size)
            budget_at = starts + counts
            mask = np.ones(idx.size, dtype=bool)
            mask[budget_at] = False
            idx[mask], val[mask] = indices, values
            idx[budget_at], val[budget_at] = self._p, 1.0 + pool.sizes[new]
            indices, values, counts = idx, val, per
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        self._highs.addCols(new.size, pool.costs()[new], np.zeros(new.size), np.full(new.size, self._inf),
                            indices.size, starts, indices, values)
        self._columns = K

    def solve(self) -> MasterLP:
        """The LP optimum over the pool as it is now (columns added since the last call join the model)."""
        pool, P = self.pool, self.pool.problem
        if self._p == 0:
            return MasterLP(0.0, np.zeros(len(pool)), np.zeros(0), np.zeros(0), 0.0, "highs")
        self._add_new_columns()
        h = self._highs
        h.run()
        status = h.getModelStatus()
        if status != self._optimal:
            raise SolverError(f"the master LP stopped without an optimum (HiGHS status "
                              f"{h.modelStatusToString(status)}); raise time_limit or shrink the problem")
        solution = h.getSolution()
        x = np.asarray(solution.col_value, dtype=np.float64)
        duals = np.asarray(solution.row_dual, dtype=np.float64)
        w = np.maximum(x[self._p:], 0.0)
        mu = np.clip(duals[:self._p], 0.0, P.pos_weight)
        nu = max(0.0, -float(duals[self._p])) if P.budget is not None else 0.0
        xi = np.maximum(0.0, 1.0 - pool.cover @ w)
        return MasterLP(float(pool.costs() @ w + P.pos_weight @ xi), w, xi, mu, nu, "highs")


def master_lp_solver(pool: ConjunctionPool, solver: str = "highs", *, warm: bool | None = None,
                     time_limit: float | None = None) -> Callable[[], MasterLP]:
    """A callable solving the master LP over ``pool`` as it is at each call.

    Parameters
    ----------
    pool : ConjunctionPool
    solver : {"highs", "pulp"}, default "highs"
    warm : bool, optional
        Keep one HiGHS model and re-solve it from its last basis (:class:`WarmMasterLP`);
        default: when ``solver="highs"`` and highspy is installed. False: every call solves
        from scratch (:func:`~logicrules.lp.master.solve_master_lp`).
    time_limit : float, optional
        Seconds per solve.

    Examples
    --------
    >>> from logicrules.lp.master import build_rule_set_problem
    >>> pool = ConjunctionPool(build_rule_set_problem(np.eye(2, dtype=bool), [1, 0], lam=0.1))
    >>> _ = pool.add([(0,)])
    >>> round(master_lp_solver(pool, warm=False)().objective, 6)
    0.2
    """
    if warm is None:
        warm = solver == "highs" and importlib.util.find_spec("highspy") is not None
    if warm:
        if solver != "highs":
            raise ValueError(f"a warm-started master LP needs solver='highs', got {solver!r}")
        return WarmMasterLP(pool, time_limit=time_limit).solve
    return lambda: solve_master_lp(pool, solver=solver, time_limit=time_limit)
