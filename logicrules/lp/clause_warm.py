"""The clause LPs of one column and row generation in one live HiGHS model, edited in place.

:func:`~logicrules.lp.screening.solve_with_screening` solves a sequence of LPs (19) over a
growing set of working columns and a changing set of positive rows (column generation around
row generation). Each is solved in its dual form (20), as :mod:`logicrules.lp.solvers` does:
one constraint ``sum_g a_gj mu_g <= c_j`` per working column j and one variable
``0 <= mu_g <= cost_g`` per group g of the positive rows in the row set that are identical over
the working columns (its bound is the summed cost of its rows). Between two LPs the model is
kept: the constraints of new working columns are added (their slacks basic; a group whose rows
differ on them keeps the rows equal to its first one, the others form new groups), the
variables of groups that left the row set are deleted, those of new groups added at 0, the
bounds of groups whose rows changed are updated,
and the next solve starts from the last basis by the simplex method (the first one, without a
basis, by the interior point method with crossover, as the cold solve). The old basis stays
primal feasible when variables are added and dual feasible when constraints are, so a round
costs the pivots its edit brings instead of a solve from scratch.

Needs highspy (the optional ``highs`` extra); without it every LP is solved from scratch by
SciPy's HiGHS (same optimum).
"""

from __future__ import annotations

import importlib.util
from typing import NamedTuple

import numpy as np
from scipy import sparse

from logicrules.lp.highs_mip import _new_highs, _set_basis
from logicrules.lp.model import GroupTestingProblem
from logicrules.lp.solvers import SolverError, require_model_memory

__all__ = ["WARM_EDIT", "RowSolve", "WarmClauseLP", "warm_available"]

#: Largest edit solved by the simplex from the last basis: new variables as a share of the
#: model's plus new constraints as a share of its constraints (larger ones: interior point).
WARM_EDIT = 0.02
#: Rows of A whose bytes are packed into group keys at a time (sparse rows are densified per block).
_KEY_ROWS = 1 << 14
#: Cells of the constraint matrix passed to HiGHS at a time (bounds the transient copies).
_CHUNK_CELLS = 1 << 22


class RowSolve(NamedTuple):
    """One LP of the row generation: ``w`` over the working columns, ``dual`` over the row set
    (None for an integer program), the status, the back end's name and a lower bound."""

    w: np.ndarray
    dual: np.ndarray | None
    status: str
    solver: str
    lower_bound: float | None


def _row_keys(A, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """One opaque key per row of ``A[rows][:, columns]`` (its packed bits): equal keys iff equal rows."""
    n = columns.size
    packed = np.zeros((rows.size, max((n + 7) // 8, 1)), dtype=np.uint8)
    for start in range(0, rows.size, _KEY_ROWS):
        packed[start:start + _KEY_ROWS, :(n + 7) // 8] = np.packbits(
            _dense(A, rows[start:start + _KEY_ROWS], columns), axis=1)
    return packed.view(np.dtype((np.void, packed.shape[1]))).ravel()


def _dense(A, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``A[rows][:, columns]`` as a dense bool array."""
    return A[rows][:, columns].toarray() != 0 if sparse.issparse(A) else A[np.ix_(rows, columns)]


def _chunks(size: int, width: int):
    """Slices of ``range(size)`` of about :data:`_CHUNK_CELLS` cells of ``width`` each."""
    step = max(1, _CHUNK_CELLS // max(width, 1))
    return (slice(start, min(start + step, size)) for start in range(0, size, step))


def _nonzeros(A, rows: np.ndarray, columns: np.ndarray) -> int:
    """Nonzeros of ``A[rows][:, columns]``, counted a chunk of rows at a time."""
    return int(sum(np.count_nonzero(_dense(A, rows[part], columns)) for part in _chunks(rows.size, columns.size)))


def _compressed(block: np.ndarray):
    """(starts, indices, values) of the rows of a bool array, as HiGHS takes them (int32 indices)."""
    starts = np.zeros(block.shape[0], dtype=np.int32)
    np.cumsum(np.count_nonzero(block, axis=1)[:-1], out=starts[1:])
    index = (np.flatnonzero(block) % max(block.shape[1], 1)).astype(np.int32)
    return starts, index, np.ones(index.size)


class WarmClauseLP:
    """The LP relaxations of one :class:`~logicrules.lp.model.GroupTestingProblem` in one HiGHS model.

    Parameters
    ----------
    problem : GroupTestingProblem
        The problem over all its columns; each :meth:`solve` names the working columns and rows.
    time_limit : float, optional
        Seconds per solve; a solve stopped by it raises :class:`SolverError`, as the cold solve.

    Attributes
    ----------
    iterations : list of int
        Simplex iterations of each solve (0 for one solved by the interior point method).
    edits : list of tuple
        Per solve: (constraints added, variables deleted, variables added).

    Examples
    --------
    >>> from logicrules.lp.model import build_problem
    >>> P = build_problem([[1, 0], [1, 1], [0, 1]], [[0, 1]], lam=0.5)
    >>> lp = WarmClauseLP(P)
    >>> result = lp.solve(np.array([0]), np.array([0, 1]))
    >>> result.w.tolist(), result.lower_bound
    ([1.0], 0.5)
    >>> result = lp.solve(np.array([0, 1]), np.array([0, 1, 2]))
    >>> result.w.round(6).tolist(), lp.edits[-1]
    ([1.0, 0.0], (1, 0, 2))
    """

    def __init__(self, problem: GroupTestingProblem, time_limit: float | None = None):
        import highspy

        self.problem, self.time_limit = problem, time_limit
        self._highspy = highspy
        self._h = None
        self._columns = np.zeros(0, dtype=np.intp)   # problem column of each model row
        self._reps = np.zeros(0, dtype=np.intp)      # a positive row of each model variable's group
        self._upper = np.zeros(0)                    # bound of each model variable
        self.iterations: list[int] = []
        self.edits: list[tuple[int, int, int]] = []

    def _fresh(self):
        h = _new_highs()
        if self.time_limit is not None:
            h.setOptionValue("time_limit", float(self.time_limit))
        self._columns = np.zeros(0, dtype=np.intp)
        self._reps = np.zeros(0, dtype=np.intp)
        self._upper = np.zeros(0)
        return h

    def solve(self, columns: np.ndarray, rows: np.ndarray | None) -> RowSolve:
        """The LP (19) over the working ``columns`` (problem column indices; a superset of the last
        call's, else the model is built anew) and the positive ``rows`` (None: all).

        Returns ``w`` over ``columns`` (in their order) and the dual over ``rows``: the optimum
        the cold solve of the same restricted problem returns.
        """
        problem, highspy = self.problem, self._highspy
        columns = np.asarray(columns, dtype=np.intp)
        rows = np.arange(problem.n_rows) if rows is None else np.asarray(rows, dtype=np.intp)
        if self._h is None or np.setdiff1d(self._columns, columns).size:
            self._h = self._fresh()
        # the groups of the last solve, by their rows' patterns over the (grown) working columns:
        # a group whose rows now differ keeps the rows equal to its first one, the others form
        # new groups
        keys = _row_keys(problem.A_pos, np.concatenate([self._reps, rows]), columns)
        old = self._reps.size
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        group_of_row = inverse[old:]
        row_costs = problem.row_costs[rows]
        group_cost = np.bincount(group_of_row, weights=row_costs, minlength=unique.size)
        present = np.zeros(unique.size, dtype=bool)
        present[group_of_row] = True
        old_group = inverse[:old]
        kept = present[old_group]
        new_groups = np.setdiff1d(np.flatnonzero(present), old_group[kept])
        size = int(np.count_nonzero(present))
        new_reps = rows[first[new_groups] - old]
        nnz = _nonzeros(problem.A_pos, np.concatenate([self._reps[kept], new_reps]), columns)
        require_model_memory(float(nnz + size), size, int(columns.size) + size, "the clause LP")
        if not rows.size or not columns.size:     # nothing to solve: every row pays or nothing binds
            self._h = None
            return RowSolve(np.zeros(columns.size), row_costs.copy(), "optimal", "highs", float(row_costs.sum()))
        added = np.setdiff1d(columns, self._columns, assume_unique=True)
        status_cols, status_rows = self._statuses(kept.size, int(self._columns.size))
        self._add_constraints(added)
        gone = np.flatnonzero(~kept)
        if gone.size:
            self._h.deleteCols(int(gone.size), gone.astype(np.int32))
        upper = group_cost[old_group[kept]]
        changed = np.flatnonzero(upper != self._upper[kept])
        if changed.size:
            self._h.changeColsBounds(int(changed.size), changed.astype(np.int32), np.zeros(changed.size),
                                     upper[changed])
        self._add_variables(new_reps, group_cost[new_groups])
        self._reps = np.concatenate([self._reps[kept], new_reps])
        self._upper = np.concatenate([upper, group_cost[new_groups]])
        self.edits.append((int(added.size), int(gone.size), int(new_groups.size)))
        # an edit small against the model: the simplex from the last basis; a larger one: the
        # interior point from scratch (measured: a warm dual simplex costs about 1.2-3 ms per
        # pivot on these dense models, and after an edit of more than a few % of the model
        # needs more pivots than an interior point solve costs)
        edit = new_groups.size / max(self._upper.size, 1) + added.size / max(self._columns.size, 1)
        warm = status_cols is not None and edit <= WARM_EDIT
        if warm:
            self._restart(status_cols[kept], status_rows, int(added.size), int(new_groups.size))
        else:
            self._h.clearSolver()
        return self._run(columns, rows, group_of_row, old_group, kept, new_groups, row_costs, group_cost, warm)

    def _statuses(self, old_variables: int, old_constraints: int):
        """Basis statuses of the last solve (None before the first)."""
        basis = self._h.getBasis()
        if not old_variables or not old_constraints or not basis.valid:
            return None, None
        return (np.array([int(v) for v in basis.col_status], dtype=np.int64),
                np.array([int(v) for v in basis.row_status], dtype=np.int64))

    def _add_constraints(self, added: np.ndarray) -> None:
        """Rows ``sum_g a_gj mu_g <= c_j`` of the new working columns over the model's variables."""
        for part in _chunks(added.size, self._reps.size):
            starts, index, values = _compressed(_dense(self.problem.A_pos, self._reps, added[part]).T)
            k = int(starts.size)
            self._h.addRows(k, np.full(k, -self._highspy.kHighsInf), self.problem.costs[added[part]].astype(np.float64),
                            int(index.size), starts, index, values)
        self._columns = np.concatenate([self._columns, added])

    def _add_variables(self, reps: np.ndarray, upper: np.ndarray) -> None:
        """Variables ``mu_g`` (cost -1, bounds [0, upper]) of new groups over the model's constraints."""
        for part in _chunks(reps.size, self._columns.size):
            starts, index, values = _compressed(_dense(self.problem.A_pos, reps[part], self._columns))
            k = int(starts.size)
            self._h.addCols(k, -np.ones(k), np.zeros(k), upper[part].astype(np.float64), int(index.size), starts,
                            index, values)

    def _restart(self, cols: np.ndarray, rows: np.ndarray, new_rows: int, new_cols: int) -> None:
        """Set the basis after an edit: kept variables and old constraints keep their status, new
        constraints are basic (their slack), new variables at 0; when deleted basic variables
        leave the basis short, nonbasic constraints' slacks fill it (HiGHS repairs a singular
        start; a start it refuses is dropped: a cold solve, same optimum)."""
        B = self._highspy.HighsBasisStatus
        basic, lower = int(B.kBasic), int(B.kLower)
        cols = np.concatenate([cols, np.full(new_cols, lower)])
        rows = np.concatenate([rows, np.full(new_rows, basic)])
        short = rows.size - int(np.count_nonzero(cols == basic)) - int(np.count_nonzero(rows == basic))
        if short > 0:
            rows[np.flatnonzero(rows != basic)[:short]] = basic
        if short < 0:
            self._h.clearSolver()
            return
        _set_basis(self._h, cols, rows)

    def _run(self, columns, rows, group_of_row, old_group, kept, new_groups, row_costs, group_cost,
             warm: bool) -> RowSolve:
        highspy, h = self._highspy, self._h
        # the first solve as the cold one (interior point, crossover to a vertex); later ones from
        # the last basis; under a time limit always the simplex, which checks the clock
        h.setOptionValue("solver", "simplex" if warm or self.time_limit is not None else "ipm")
        h.setOptionValue("presolve", "off" if warm else "choose")
        h.setOptionValue("simplex_strategy", 1)   # the dual simplex (the primal takes 5-15x the pivots)
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            limit = f" (time_limit={self.time_limit} s)" if self.time_limit is not None else ""
            raise SolverError(f"the solver stopped without an optimal solution{limit}: HiGHS status "
                              f"{h.modelStatusToString(status)}; raise time_limit or shrink the problem "
                              "(screening, row sampling)")
        self.iterations.append(int(h.getInfo().simplex_iteration_count))
        solution = h.getSolution()
        mu = np.clip(np.asarray(solution.col_value, dtype=np.float64), 0.0, self._upper)
        row_dual = np.asarray(solution.row_dual, dtype=np.float64)
        order = np.argsort(self._columns, kind="stable")
        position = order[np.searchsorted(self._columns[order], columns)]
        w = np.maximum(-row_dual[position], 0.0)
        # each row of a group gets the group's dual in proportion to its cost
        variable_of_group = np.full(group_cost.size, -1, dtype=np.intp)
        variable_of_group[old_group[kept]] = np.arange(int(np.count_nonzero(kept)))
        variable_of_group[new_groups] = int(np.count_nonzero(kept)) + np.arange(new_groups.size)
        share = mu / np.where(self._upper > 0, self._upper, 1.0)
        dual = share[variable_of_group[group_of_row]] * row_costs
        return RowSolve(w, dual, "optimal", "highs", float(dual.sum()))


def warm_available() -> bool:
    """Whether highspy (the live model) is installed."""
    return importlib.util.find_spec("highspy") is not None
