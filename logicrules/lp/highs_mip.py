"""The integer master of column generation solved by HiGHS MIP through highspy, and silent models.

:func:`solve_mip_highs` takes the master's matrices, not its pool, so that this module imports
nothing of :mod:`logicrules.lp.master`, which calls it; ``_new_highs`` makes the
``highspy.Highs`` of every live model of the package without HiGHS's banner.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from logicrules.lp.solvers import SolverError, require_model_memory

__all__ = ["solve_mip_highs"]

_BANNER_SHOWN = False
#: HiGHS options switched off under a node limit (:func:`solve_mip_highs`).
_LIGHT_SEARCH_OFF = ("mip_allow_restart", "mip_heuristic_run_rins", "mip_heuristic_run_rens",
                     "mip_heuristic_run_root_reduced_cost", "mip_detect_symmetry")
#: HiGHS's ``mip_pool_soft_limit`` under a node limit: the cut pool's rows age out sooner.
_LIGHT_CUT_POOL = 100


def _new_highs():
    """A silent ``highspy.Highs``. HiGHS prints its banner to the process's stdout when the first
    model of the process is made, before any option can be set: that one is made with file
    descriptor 1 pointed at the null device."""
    global _BANNER_SHOWN
    import highspy

    if _BANNER_SHOWN:
        h = highspy.Highs()
    else:
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
                h = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _BANNER_SHOWN = True
    h.setOptionValue("output_flag", False)
    return h


def _set_basis(h, col_status, row_status) -> None:
    """Hand HiGHS model ``h`` a starting basis of these column and row statuses (integer codes of
    ``highspy.HighsBasisStatus``); one it refuses leaves the solver cleared (a cold start)."""
    import highspy

    B = highspy.HighsBasisStatus
    basis = highspy.HighsBasis()
    basis.col_status = [B(int(v)) for v in col_status]
    basis.row_status = [B(int(v)) for v in row_status]
    basis.valid = True
    if h.setBasis(basis) != highspy.HighsStatus.kOk:
        h.clearSolver()


def solve_mip_highs(matrices: tuple, cover, start: np.ndarray, node_limit: int | None, time_limit: float | None):
    """The integer master by HiGHS MIP (highspy), started from a 0/1 choice of its columns.

    ``matrices``: ``(c, A_ub, b_ub, K, p)`` of the pool (``logicrules.lp.master._matrices``),
    ``cover``: the pool's coverage of the positive rows
    (:attr:`~logicrules.lp.master.ConjunctionPool.cover`). ``start`` (boolean, one entry per
    pool column) is handed to HiGHS as its first incumbent
    (``setSolution``), so the result is never worse than it. ``node_limit`` (HiGHS's
    ``mip_max_nodes``) bounds the branch-and-bound by work, not by time: the same model
    stops at the same node on any machine and at any load, which makes the rule set
    reproducible; ``time_limit`` (seconds, wall clock) is only a safety net. Under a node limit
    the search is kept light: no restart, and none of the sub-MIP heuristics RINS, RENS and
    root reduced cost, whose work dominates a short search (on a sonar fold's pool of 657
    columns they took the root node from 0.2 s to 1.5 s of CPU); no symmetry detection, and a
    cut pool soft limit of 100 rows instead of 10000. On the 140 pools of the 14 benchmark
    datasets' folds (``benchmarks/master_mip_options.py``) those two cut the root nodes' CPU
    from 13.7 s to 11.1 s in all, every pool ending at the same objective.

    HiGHS's presolve is off. With it, HiGHS 1.16 can map the start into the presolved model at an
    objective that is not the start's ("MIP start solution is feasible in the reduced space:
    objective value is 21.64" for a start of cost 30.96, below the pool's LP bound 29.55), then
    call that start optimal and return it (8 of the 140 integer masters of the 14 benchmark
    datasets' folds; each then costs a second solve, below). Without presolve none of the 140
    gave an inconsistent answer, and their root nodes took 29.1 s of CPU in all against 47.8 s
    with presolve (sonar's 10 folds 2.6 s against 7.1 s, bupa_liver's 7.8 s against 14.7 s).

    HiGHS's answer is checked: when the columns it returns cost more than the objective it
    reports (seen with HiGHS 1.16 after ``setSolution``: "optimal" at a worse rule set than the
    optimum), the model is solved again without the start and the best of the two answers and
    the start is kept, ``"optimal"`` only when that second answer is consistent (else
    ``"node_limit"``, unproved, without a bound).

    Returns
    -------
    tuple
        ``(x, bound, status, name)``: the 0/1 column values (None without an incumbent), the
        proved lower bound (None when unknown), ``"optimal"``, ``"node_limit"`` or
        ``"time_limit"``, and ``"highs-mip"``.
    """
    c, A_ub, b_ub, K, p = matrices
    require_model_memory(A_ub.nnz, A_ub.shape[0], A_ub.shape[1], "the integer master over the conjunction pool")
    start = np.asarray(start, dtype=bool)
    x, bound, status, reported = _run_mip(matrices, cover, start, node_limit, time_limit)
    tolerance = 1e-9 * max(1.0, float(np.abs(c).sum())) + 1e-7
    if x is not None and _cost(c, cover, x, K) > reported + tolerance:
        # HiGHS (seen in 1.16 after setSolution) can return columns that cost more than the
        # objective it reports: its claim is not trusted; solved again without the start, the
        # best of both answers and the start is kept, proved only if the second is consistent
        x2, bound2, status2, reported2 = _run_mip(matrices, cover, None, node_limit, time_limit)
        consistent = x2 is not None and _cost(c, cover, x2, K) <= reported2 + tolerance
        candidates = [v for v in (x, x2, start.astype(np.float64)) if v is not None]
        x = min(candidates, key=lambda v: _cost(c, cover, v, K))
        if consistent and _cost(c, cover, x, K) <= reported2 + tolerance:
            bound, status = bound2, status2
        else:
            bound, status = None, "node_limit"
    return x, bound, status, "highs-mip"


def _cost(c: np.ndarray, cover, x: np.ndarray, K: int) -> float:
    """The master's objective of the column choice ``x`` (first K entries of ``c``), its
    positive rows' slacks set by ``cover``: 1 for a row no chosen column covers."""
    chosen = np.asarray(x[:K]) > 0.5
    covered = cover[:, chosen].any(axis=1) if chosen.any() else np.zeros(cover.shape[0], dtype=bool)
    return float(c[:K] @ chosen + c[K:] @ (~np.asarray(covered).ravel()))


def _run_mip(matrices: tuple, cover, start: np.ndarray | None, node_limit: int | None, time_limit: float | None):
    """One HiGHS MIP solve of the master (from ``start`` when given): ``(x, bound, status,
    reported objective)``, as :func:`solve_mip_highs` returns them."""
    import highspy

    c, A_ub, b_ub, K, p = matrices
    h = _new_highs()
    inf = float(highspy.kHighsInf)
    n = K + p
    h.addCols(n, c, np.zeros(n), np.ones(n), 0, np.zeros(n, dtype=np.int32), np.zeros(0, dtype=np.int32),
              np.zeros(0))
    h.addRows(A_ub.shape[0], np.full(A_ub.shape[0], -inf), b_ub, A_ub.nnz, A_ub.indptr[:-1].astype(np.int32),
              A_ub.indices.astype(np.int32), A_ub.data.astype(np.float64))
    h.changeColsIntegrality(K, np.arange(K, dtype=np.int32),
                            np.full(K, highspy.HighsVarType.kInteger))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("presolve", "off")   # see solve_mip_highs
    if node_limit is not None:
        h.setOptionValue("mip_max_nodes", int(node_limit))
        for option in _LIGHT_SEARCH_OFF:
            h.setOptionValue(option, False)
        h.setOptionValue("mip_pool_soft_limit", _LIGHT_CUT_POOL)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if start is not None:
        covered = cover[:, start].any(axis=1)
        solution = highspy.HighsSolution()
        solution.col_value = np.concatenate([start.astype(np.float64), (~covered).astype(np.float64)]).tolist()
        h.setSolution(solution)
    h.run()
    status = h.getModelStatus()
    statuses = {highspy.HighsModelStatus.kOptimal: "optimal", highspy.HighsModelStatus.kTimeLimit: "time_limit",
                highspy.HighsModelStatus.kSolutionLimit: "node_limit"}
    if status not in statuses:
        raise SolverError(f"the integer master failed (HiGHS status {h.modelStatusToString(status)})")
    info = h.getInfo()
    x = None
    if int(info.primal_solution_status) != 0:   # 0: no solution
        x = np.asarray(h.getSolution().col_value, dtype=np.float64)[:K]
    bound = float(info.mip_dual_bound)
    return x, bound if np.isfinite(bound) else None, statuses[status], float(info.objective_function_value)
