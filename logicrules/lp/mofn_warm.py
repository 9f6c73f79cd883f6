"""The m-of-n relaxations of one row generation, each solved by HiGHS from the last one's basis.

The row generation of :mod:`logicrules.lp.mofn_rows` solves, for one m, a sequence of small LPs
(one constraint per row group, in their dual form: one row per literal, one variable
``beta_g`` in [0, 1] per group and one ``mu_j >= 0`` per literal). From one round to the next
most groups stay as they were, some are merged (groups whose ``beta`` sat at the same bound)
and some are split (a piece starts at its parent's ``beta``). Solving each LP from scratch
repeats all the pivots; here the next LP is handed to HiGHS with a starting basis built from
the last one: the literal rows and the ``mu_j`` keep their status, a group whose starting
``beta`` is at a bound is nonbasic there, a group with a fractional start is basic (kept groups
first, then pieces, as long as the basis has room), and rows fill what is left. HiGHS repairs a
singular start itself; a start it refuses is dropped (a cold solve, same optimum).

Needs highspy (the optional ``highs`` extra); :func:`relaxation_solver` falls back to SciPy's
HiGHS (cold, same optimum) without it.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np

from logicrules.lp.master_highs import _new_highs
from logicrules.lp.solvers import SolverError, SolverWarning, require_model_memory

__all__ = ["WarmChecklistLP", "dual_form", "warm_available"]

#: A starting ``beta`` this close to 0 or 1 is at that bound.
_AT_BOUND = 1e-9


def dual_form(S: np.ndarray, C: np.ndarray, positive: np.ndarray, m: int, lam: float):
    """Cost, column-wise matrix and bounds of the dual-form LP over ``(beta_1..beta_k, mu_1..mu_n)``:
    minimize ``-sum_g sign_g t_g beta_g + sum_j mu_j`` subject to
    ``sum_g sign_g S_gj beta_g - mu_j <= lam`` (``t_g = m C_g`` on a positive group, ``(m - 1) C_g``
    on a negative one; ``sign_g = +-1``). Returns (cost, dense matrix (n, k + n), upper bounds)."""
    k, n = S.shape
    sign = np.where(positive, 1.0, -1.0)
    target = np.where(positive, float(m), m - 1.0) * C
    cost = np.concatenate([-sign * target, np.ones(n)])
    matrix = np.hstack([(S * sign[:, None]).T, -np.eye(n)])
    upper = np.concatenate([np.ones(k), np.full(n, np.inf)])
    return cost, matrix, upper


class WarmChecklistLP:
    """The relaxations of one m-of-n row generation (one m, one lam), each started from the last basis.

    Parameters
    ----------
    n_attributes : int
    m : int
    lam : float
    time_limit : float, optional
        Seconds per solve; a solve stopped by it warns and reports ``proved=False``.

    Examples
    --------
    >>> lp = WarmChecklistLP(2, 1, 0.5)
    >>> S, C = np.array([[2.0, 0.0], [0.0, 1.0]]), np.array([2.0, 1.0])
    >>> w, value, proved, beta = lp.solve(S, C, np.array([True, False]), np.full(2, 0.5))
    >>> w.tolist(), round(value, 6), proved
    ([1.0, 0.0], 0.5, True)
    """

    def __init__(self, n_attributes: int, m: int, lam: float, time_limit: float | None = None):
        import highspy

        self.n, self.m, self.lam, self.time_limit = int(n_attributes), int(m), float(lam), time_limit
        self._highspy = highspy
        self._inf = float(highspy.kHighsInf)
        self._rows = None     # literal rows' status after the last solve (int codes)
        self._mu = None       # mu columns' status after the last solve
        self.iterations: list[int] = []   # simplex iterations of each solve

    def _start(self, beta_start: np.ndarray):
        """A starting basis (col_status, row_status) as HiGHS status codes, or None (cold)."""
        if self._rows is None or beta_start is None:
            return None
        B = self._highspy.HighsBasisStatus
        lower, basic, upper = int(B.kLower), int(B.kBasic), int(B.kUpper)
        k, n = beta_start.size, self.n
        cols = np.where(beta_start <= _AT_BOUND, lower, np.where(beta_start >= 1 - _AT_BOUND, upper, basic))
        rows = self._rows.copy()
        room = n - int(np.count_nonzero(rows == basic)) - int(np.count_nonzero(self._mu == basic))
        fractional = np.flatnonzero(cols == basic)
        if room < 0:
            return None
        if fractional.size > room:   # the latest (pieces come after kept groups) start at a bound
            extra = fractional[room:]
            cols[extra] = np.where(beta_start[extra] >= 0.5, upper, lower)
        else:                        # literal rows fill the basis
            rows[np.flatnonzero(rows != basic)[:room - fractional.size]] = basic
        return np.concatenate([cols, self._mu]), rows

    def solve(self, S: np.ndarray, C: np.ndarray, positive: np.ndarray, beta_start: np.ndarray | None = None):
        """The relaxation over the groups (sums ``S``, costs ``C``, classes ``positive``), started
        from ``beta_start`` (the groups' starting duals) and the last basis; returns
        ``(w, value, proved, beta)`` as the cold solve does."""
        k, n = S.shape
        require_model_memory(float(k * n + n), n, k + n, "the m-of-n LP")
        highspy = self._highspy
        cost, matrix, upper = dual_form(S, C, positive, self.m, self.lam)
        h = _new_highs()
        h.setOptionValue("presolve", "off")
        if self.time_limit is not None:
            h.setOptionValue("time_limit", float(self.time_limit))
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = k + n, n
        lp.col_cost_ = cost
        lp.col_lower_, lp.col_upper_ = np.zeros(k + n), np.where(np.isinf(upper), self._inf, upper)
        lp.row_lower_, lp.row_upper_ = np.full(n, -self._inf), np.full(n, self.lam)
        nz = matrix != 0
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(nz.sum(axis=0))]).astype(np.int32)
        rr, cc = np.nonzero(nz.T)
        lp.a_matrix_.index_ = cc.astype(np.int32)
        lp.a_matrix_.value_ = matrix.T[rr, cc]
        h.passModel(lp)
        start = self._start(beta_start)
        if start is not None:
            basis = highspy.HighsBasis()
            basis.col_status = [highspy.HighsBasisStatus(int(v)) for v in start[0]]
            basis.row_status = [highspy.HighsBasisStatus(int(v)) for v in start[1]]
            basis.valid = True
            if h.setBasis(basis) != highspy.HighsStatus.kOk:
                h.clearSolver()
        h.run()
        status = h.getModelStatus()
        proved = status == highspy.HighsModelStatus.kOptimal
        if not proved and status != highspy.HighsModelStatus.kTimeLimit:
            raise SolverError(f"the m-of-n program for m={self.m} returned no solution (HiGHS status "
                              f"{h.modelStatusToString(status)}); raise time_limit or shrink the problem")
        if not proved:
            warnings.warn(f"the m-of-n program for m={self.m} hit time_limit={self.time_limit} s before "
                          "proving optimality; using the best solution found", SolverWarning, stacklevel=4)
        solution, basis = h.getSolution(), h.getBasis()
        self.iterations.append(int(h.getInfo().simplex_iteration_count))
        x = np.asarray(solution.col_value, dtype=np.float64)
        w = np.clip(-np.asarray(solution.row_dual, dtype=np.float64), 0.0, 1.0)
        self._rows = np.array([int(v) for v in basis.row_status])
        self._mu = np.array([int(v) for v in basis.col_status[k:]])
        value = -float(cost @ x)
        return w, value, proved, np.clip(x[:k], 0.0, 1.0)


def warm_available() -> bool:
    """Whether highspy (the warm model) is installed."""
    return importlib.util.find_spec("highspy") is not None
