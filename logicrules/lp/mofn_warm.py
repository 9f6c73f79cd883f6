"""The m-of-n relaxations of one row generation in one live HiGHS model, edited in place.

The row generation of :mod:`logicrules.lp.mofn_rows` solves, for one m, a sequence of small LPs
(one constraint per row group, in their dual form: one row per literal, one variable
``beta_g`` in [0, 1] per group and one ``mu_j >= 0`` per literal). From one round to the next
most groups stay as they were, some are merged (groups whose ``beta`` sat at the same bound)
and some are split (a piece starts at its parent's ``beta``). The model is kept between rounds:
the columns of the groups that are gone are deleted, those of new groups added, and the next
solve starts from the last basis: the literal rows, the ``mu_j`` and every kept group keep their
status, a new group whose starting ``beta`` is at a bound is nonbasic there, a new group with a
fractional start is basic (as long as the basis has room), and literal rows fill what is left.
HiGHS repairs a singular start itself; a start it refuses is dropped (a cold solve, same optimum).

Needs highspy (the optional ``highs`` extra); without it the relaxations are solved by SciPy's
HiGHS, each from scratch (same optimum).
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np

from logicrules.lp.highs_mip import _new_highs, _set_basis
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


def _colwise(M: np.ndarray):
    """(starts, indices, values) of the columns of ``M`` (entries != 0), as HiGHS takes them."""
    nz = M != 0
    starts = np.concatenate([[0], np.cumsum(nz.sum(axis=0))[:-1]]).astype(np.int32)
    cols, rows = np.nonzero(nz.T)
    return starts, rows.astype(np.int32), np.ascontiguousarray(M.T[cols, rows])


class WarmChecklistLP:
    """The relaxations of one m-of-n row generation (one m, one lam) in one HiGHS model.

    The model holds the ``n`` literal rows and the ``mu_j`` columns throughout; each
    :meth:`solve` deletes the columns of the groups that are gone, adds those of the new
    groups and starts from the last basis.

    Parameters
    ----------
    n_attributes : int
    m : int
    lam : float
    time_limit : float, optional
        Seconds per solve; a solve stopped by it warns and reports ``proved=False``.

    Attributes
    ----------
    iterations : list of int
        Simplex iterations of each solve.
    edits : list of tuple
        Per solve: (columns deleted, columns added); a rebuilt model counts all its groups as added.

    Examples
    --------
    >>> lp = WarmChecklistLP(2, 1, 0.5)
    >>> S, C = np.array([[2.0, 0.0], [0.0, 1.0]]), np.array([2.0, 1.0])
    >>> w, value, proved, beta = lp.solve(S, C, np.array([True, False]))
    >>> w.tolist(), round(value, 6), proved
    ([1.0, 0.0], 0.5, True)
    >>> w, value, proved, beta = lp.solve(S[:1], C[:1], np.array([True]), beta[:1], source=np.array([0]))
    >>> w.tolist(), round(value, 6), lp.edits[-1]
    ([1.0, 0.0], 0.5, (1, 0))
    """

    def __init__(self, n_attributes: int, m: int, lam: float, time_limit: float | None = None):
        import highspy

        self.n, self.m, self.lam, self.time_limit = int(n_attributes), int(m), float(lam), time_limit
        self._highspy = highspy
        self._inf = float(highspy.kHighsInf)
        self._h = None          # the live model
        self._position = None   # HiGHS column (after the mu columns) of each group of the last solve
        self._status = None     # basis status codes of the model's columns after the last solve
        self._rows = None       # basis status codes of the literal rows after the last solve
        self.iterations: list[int] = []
        self.edits: list[tuple[int, int]] = []

    def _build(self):
        """A model with the literal rows ``<= lam`` and the ``mu_j`` columns (cost 1, ``-e_j``)."""
        h = _new_highs()
        h.setOptionValue("presolve", "off")
        if self.time_limit is not None:
            h.setOptionValue("time_limit", float(self.time_limit))
        n, inf = self.n, self._inf
        none_i, none_f = np.zeros(0, dtype=np.int32), np.zeros(0)
        h.addRows(n, np.full(n, -inf), np.full(n, self.lam), 0, none_i, none_i, none_f)
        index = np.arange(n, dtype=np.int32)
        h.addCols(n, np.ones(n), np.zeros(n), np.full(n, inf), n, index, index, -np.ones(n))
        return h

    def _add_groups(self, S: np.ndarray, C: np.ndarray, positive: np.ndarray) -> None:
        if not S.shape[0]:
            return
        cost, matrix, _ = dual_form(S, C, positive, self.m, self.lam)
        k = S.shape[0]
        starts, index, values = _colwise(matrix[:, :k])
        self._h.addCols(k, cost[:k], np.zeros(k), np.ones(k), int(values.size), starts, index, values)

    def _edit(self, S, C, positive, beta_start, source):
        """Delete the columns of the groups that are gone, add the new groups' columns and set
        the starting basis; returns the model column of every group."""
        k, n = S.shape[0], self.n
        old = self._position.size
        kept = source >= 0
        alive = np.zeros(old, dtype=bool)
        alive[self._position[source[kept]]] = True
        gone = np.flatnonzero(~alive)
        if gone.size:
            self._h.deleteCols(int(gone.size), (n + gone).astype(np.int32))
        new = np.flatnonzero(~kept)
        self._add_groups(S[new], C[new], positive[new])
        position = np.empty(k, dtype=np.intp)
        position[kept] = (np.cumsum(alive) - 1)[self._position[source[kept]]]
        position[new] = int(np.count_nonzero(alive)) + np.arange(new.size)
        self.edits.append((int(gone.size), int(new.size)))
        B = self._highspy.HighsBasisStatus
        lower, basic, upper = int(B.kLower), int(B.kBasic), int(B.kUpper)
        status = np.empty(n + k, dtype=np.int64)
        status[:n] = self._status[:n]
        status[n:n + alive.sum()] = self._status[n:][alive]
        start = np.zeros(new.size) if beta_start is None else beta_start[new]
        fresh = np.where(start <= _AT_BOUND, lower, np.where(start >= 1 - _AT_BOUND, upper, basic))
        rows = self._rows.copy()
        room = n - int(np.count_nonzero(status[:n + alive.sum()] == basic)) - int(np.count_nonzero(rows == basic))
        fractional = np.flatnonzero(fresh == basic)
        if fractional.size > room:   # the latest start at their nearer bound
            extra = fractional[max(room, 0):]
            fresh[extra] = np.where(start[extra] >= 0.5, upper, lower)
        status[n + alive.sum():] = fresh
        room -= min(fractional.size, max(room, 0))
        if room > 0:                 # literal rows fill the basis
            rows[np.flatnonzero(rows != basic)[:room]] = basic
        if room >= 0:
            _set_basis(self._h, status, rows)
        else:                        # more basic columns kept than rows: start cold
            self._h.clearSolver()
        return position

    def solve(self, S: np.ndarray, C: np.ndarray, positive: np.ndarray, beta_start: np.ndarray | None = None,
              source: np.ndarray | None = None):
        """The relaxation over the groups (sums ``S``, costs ``C``, classes ``positive``).

        ``source[g]``: the group of the last solve that group g equals (same sums, cost and
        class; each at most once), -1 for a new group; new groups start from ``beta_start``
        (their starting duals). Without ``source`` (or on the first call) the model is built
        anew and solved cold. Returns ``(w, value, proved, beta)`` as the cold solve does.
        """
        k, n = S.shape
        require_model_memory(float(k * n + n), n, k + n, "the m-of-n LP")
        highspy = self._highspy
        if self._h is None or source is None:
            self._h = self._build()
            self._add_groups(S, C, positive)
            position = np.arange(k)
            self.edits.append((0, k))
        else:
            position = self._edit(S, C, positive, beta_start, np.asarray(source, dtype=np.intp))
        h = self._h
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
        self._status = np.array([int(v) for v in basis.col_status], dtype=np.int64)
        self._rows = np.array([int(v) for v in basis.row_status], dtype=np.int64)
        self._position = position
        beta = x[n + position]
        sign = np.where(positive, 1.0, -1.0)
        target = np.where(positive, float(self.m), self.m - 1.0) * C
        value = float(sign * target @ beta) - float(x[:n].sum())
        return w, value, proved, np.clip(beta, 0.0, 1.0)


def warm_available() -> bool:
    """Whether highspy (the warm model) is installed."""
    return importlib.util.find_spec("highspy") is not None
