"""Column generation (``method="cg"``) on dask data, exact, without gathering the rows.

The DNF master LP (:mod:`logicrules.lp.master`) has one covering row per positive row; the
negative rows enter only through each conjunction's cost, the weight of the negatives it
holds on, ``L(K)``. So, as for the clause LP (:mod:`logicrules.lp.dask_clause`), the driver
holds a set S of positive patterns and the partitions answer counts:

1. **Costs** (one pass): class totals, the negatives' literal counts and Gram matrix: ``L`` of
   every literal and pair.
2. **Sample** (one pass): the constraint rows drawn as in the clause LP (the same per-partition
   seeds), merged into distinct patterns: the first S.
3. **Master and pricing** (on the driver, and one pass per size above 2 per round that needs
   it): the master LP over the pool on S (every column at its full cost; S's rows merged by
   their cover pattern over the pool, as in memory) is a relaxation of the full master; its
   dual, zero on the rows outside S, is feasible for the full dual. The pricing
   (:func:`~logicrules.lp.dask_pricing.price`) is exact over every conjunction of at most
   ``max_size`` (<= 4) literals and the empty one: ``G`` from S on the driver, ``L`` from the
   Gram matrix for one and two literals, and counted over the partitions for the triples and
   quadruples whose dual bound can still price out. A cheap beam
   (:func:`~logicrules.lp.dask_pricing.price_beam`: the best pairs extended a literal at a
   time, a counting pass per size) is tried first; the exact search runs when it finds no
   column, and stops at the first size at which some column prices out (no passes for the
   larger sizes while shorter columns still do). Columns of negative reduced cost join the
   pool (the ``top_k`` least), and the master is solved again. A round that finds none has
   searched every size: the proof of step 4.
4. **Row generation** (one pass per round): when the pricing finds nothing, every partition
   returns the patterns of S with their weights (so that S carries the full weight of its
   patterns) and the patterns of its other positive rows that the master's solution leaves
   short of covered (``a_i w < 1``), at most ``cap`` of them, the most violated (least
   covered) first (:class:`MostViolated`; ``cap`` is :data:`DASK_CG_ROWS_PER_ROUND`, or fewer
   when ``memory_limit`` leaves room for fewer: :func:`_rows_per_round`; of those, the driver
   keeps the most violated that fit with their share of the master LP's model:
   :func:`_fitting`), so that S grows by a bounded step per round (each new pattern with its
   full weight) and the fit converges inside the limit. New patterns join S and the loop goes on; when there is none and S already
   carried the full weights, S's primal is feasible for the full master at the same value: the
   LP optimum over every conjunction of at most ``max_size`` literals, certified as in memory.
   S holds at most ``max_patterns`` patterns (:data:`DASK_CG_MAX_PATTERNS` by default): a round
   adds the most violated that fit, and when S is full while rows are still short of covered,
   the loop stops as at ``time_limit`` (a :class:`~logicrules.lp.solvers.SolverWarning` says so;
   the LP bound is then not certified) and the integer master of step 5 runs over every row.
5. **Integer master** (one pass): every positive row merged by its cover pattern over the pool
   (a constraint per distinct pattern, of their summed weight), the integer master solved over
   them (:func:`~logicrules.lp.master.solve_master_mip`), exactly the in-memory integer master
   over the same pool.

The certified LP bound is that of the in-memory fit; the rule set is the integer master's over
this run's pool, which need not be the in-memory run's pool (the in-memory pricing also tries a
beam first and keeps other columns), so it may differ from the in-memory rule set. A CNF is the
DNF of the complemented literals for class 0 (the view of :class:`ClauseRows`). Weights and
error costs enter as in memory. Driver memory: S (at most the sample plus the patterns row
generation adds, at most ``cap`` per round and ``max_patterns`` in all), the pricing's gain matrices and candidates
(:mod:`logicrules.lp.dask_pricing`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicrules import memory
from logicrules.fca.counts import RowMultiset
from logicrules.lp.colgen import ColumnGeneration, ColumnGenerationFit
from logicrules.lp.colgen_rows import _master_on_rows
from logicrules.lp.dask_clause import _class_costs, sample_fraction
from logicrules.lp.dask_passes import (ClauseRows, SampleRows, Sums, Totals, _collect, _merge, _Request, lookup,
                                       row_keys, run_pass)
from logicrules.lp.dask_pricing import Negatives, price, price_beam
from logicrules.lp.data import distinct_rows_bytes
from logicrules.lp.master import ConjunctionPool, MasterLP, RuleSetProblem, conjunction_extents, solve_master_mip
from logicrules.lp.model import matvec
from logicrules.lp.solvers import SolverWarning, model_bytes

__all__ = ["learn_rule_set_cg_on_partitions", "CoverRows", "MostViolated", "DASK_CG_MAX_SIZE",
           "DASK_CG_ROWS_PER_ROUND", "DASK_CG_MAX_PATTERNS"]

#: Longest conjunction the exact pricing on dask data searches.
DASK_CG_MAX_SIZE = 4
#: Most new patterns a round of row generation adds to the master (the most violated first);
#: fewer when the memory limit leaves room for fewer (:func:`_rows_per_round`).
DASK_CG_ROWS_PER_ROUND = 1 << 14
#: Most positive patterns the driver's master holds (S): row generation adds the most violated
#: that fit and stops, uncertified, when S is full and rows are still short of covered. 2**20
#: patterns of 200 attributes are about 25 MB packed, and the master LP's model a few hundred MB.
DASK_CG_MAX_PATTERNS = 1 << 20
#: Terms the cheap beam of every pricing round keeps per size (:func:`~logicrules.lp.dask_pricing.price_beam`).
BEAM_WIDTH = 10
#: A row is short of covered when ``a_i w < 1 - _COVER_TOL`` (as in memory).
_COVER_TOL = 1e-9


def _packed_keys(packed: np.ndarray) -> np.ndarray:
    """The keys of :func:`~logicrules.lp.dask_passes.row_keys` of packed rows."""
    if packed.shape[1] == 0:
        return np.zeros(packed.shape[0], dtype=np.dtype((np.void, 1)))
    return np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()


@dataclass
class MostViolated:
    """The ``cap`` most violated of some distinct patterns with their weights: the rows one round
    of row generation adds, kept bounded while the partitions' answers are summed.

    ``violation`` is ``1 - a_i w`` of each pattern of ``rows`` (a function of the pattern, so
    equal patterns from two partitions agree); the sum merges the patterns (weights added) and
    keeps the ``cap`` first in the order of largest violation, then pattern. A pattern among the
    ``cap`` first of all partitions' patterns is among the ``cap`` first of every partial sum,
    so the total keeps exactly those, each with its full weight.
    """

    rows: RowMultiset
    violation: np.ndarray
    cap: int

    def truncated(self) -> MostViolated:
        if self.rows.n_rows <= self.cap:
            return self
        keep = np.sort(np.argsort(-self.violation, kind="stable")[:self.cap])
        return MostViolated(RowMultiset(self.rows.packed[keep], self.rows.weights[keep], self.rows.n_attributes),
                            self.violation[keep], self.cap)

    def __add__(self, other: MostViolated) -> MostViolated:
        rows = self.rows + other.rows
        keys = _packed_keys(rows.packed)
        violation = np.empty(rows.n_rows)
        for side in (self, other):
            at = lookup(_packed_keys(side.rows.packed), keys)
            violation[at >= 0] = side.violation[at[at >= 0]]
        return MostViolated(rows, violation, self.cap).truncated()


@dataclass
class CoverRows(_Request):
    """The constraint rows of a partition against a pool of conjunctions ``terms``.

    With ``w`` (the master LP's weights of the terms): the rows whose pattern is one of
    ``seed_keys`` (``rows``: all of them, merged with their weights) and the ``cap`` most
    violated of the other rows whose coverage ``a_i w`` is below 1 (``new``: a
    :class:`MostViolated`, with ``short``, the number of such rows in all). Without ``w``:
    every row merged by its cover pattern over the terms (one column per term), the integer
    master's rows.
    """

    terms: list[tuple[int, ...]]
    w: np.ndarray | None = None
    seed_keys: np.ndarray | None = None
    cap: int = DASK_CG_ROWS_PER_ROUND

    what = "rows against the pool"

    def begin(self, number: int, block: Any) -> dict:
        m = block.n_attributes if self.w is not None else len(self.terms)
        empty = RowMultiset.from_dense(np.zeros((0, m), dtype=bool))
        return {"rows": [], "m": m, "new": MostViolated(empty, np.zeros(0), self.cap), "short": 0}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        cover = conjunction_extents(rows, self.terms)
        if self.w is None:
            _collect(acc["rows"], cover, weights)
            return
        seed = lookup(self.seed_keys, row_keys(rows)) >= 0 if self.seed_keys is not None else np.zeros(len(rows), bool)
        _collect(acc["rows"], rows[seed], None if weights is None else weights[seed])
        short = (matvec(cover, self.w) < 1.0 - _COVER_TOL) & ~seed
        if short.any():
            acc["short"] += int(np.count_nonzero(short))
            new = RowMultiset.from_dense(rows[short], None if weights is None else weights[short])
            violation = 1.0 - matvec(conjunction_extents(new.to_dense(), self.terms), self.w)
            acc["new"] = acc["new"] + MostViolated(new, violation, self.cap).truncated()

    def end(self, number: int, acc: dict) -> Sums:
        out = Sums(rows=_merge(acc["rows"], acc["m"]))
        if self.w is not None:
            out.update(new=acc["new"], short=acc["short"])
        return out


def _rows_per_round(held_rows: int, m: int) -> int:
    """New patterns the partitions may send in one round of row generation:
    :data:`DASK_CG_ROWS_PER_ROUND`, or as many as a quarter of what the memory limit leaves
    beside the master's ``held_rows`` patterns holds, at least 64."""
    budget = memory._ACTIVE.get()
    if budget is None:
        return DASK_CG_ROWS_PER_ROUND
    per_row = distinct_rows_bytes(1, m)
    room = (budget.limit - budget.held - held_rows * per_row) / 4
    return int(min(DASK_CG_ROWS_PER_ROUND, max(64, room // per_row)))


def _fitting(pool: ConjunctionPool, new: MostViolated, m: int) -> np.ndarray:
    """The new patterns (their positions, most violated first) that join the master: all of
    them, or the most violated that fit a third of what the memory limit leaves beside the
    master's patterns, at least 64. Each pattern of S is counted with its cells and a constraint
    of its own in the master LP's model (as if no two merged), of ``2 +`` the average number of
    columns covering S's patterns nonzeros (the pool grows after the rows join)."""
    order = np.argsort(-new.violation, kind="stable")
    budget = memory._ACTIVE.get()
    if budget is None or order.size <= 64:
        return order
    held = pool.cover.shape[0]
    nonzeros = 2.0 + (float(pool.cover.sum()) / held if held and len(pool) else 0.0)
    per_row = distinct_rows_bytes(1, m) + model_bytes(nonzeros, 1, 1)
    room = (budget.limit - budget.held - held * per_row) / 3
    return order[:max(64, int(room // per_row))]


class _Pool(ConjunctionPool):
    """A pool over S's rows whose columns' negative costs come from counts
    (:class:`~logicrules.lp.dask_pricing.Negatives`)."""

    def __init__(self, problem: RuleSetProblem, negatives: Negatives) -> None:
        super().__init__(problem)
        self.negatives = negatives

    def add(self, terms) -> int:
        new = [t for t in dict.fromkeys(tuple(sorted(int(j) for j in term)) for term in terms) if t not in self]
        added = super().add(new)
        if added:
            self.neg_cost[-added:] += self.negatives.of(new)
        return added

    def on(self, rows: np.ndarray, weights: np.ndarray, cover: np.ndarray | None = None) -> _Pool:
        """The same columns over other rows (``cover``: their extents on them, when known)."""
        P = self.problem
        pool = _Pool(RuleSetProblem(rows, weights, P.A_neg, P.neg_weight, P.lam, P.budget, P.literal_cost),
                     self.negatives)
        pool.terms, pool._index = list(self.terms), dict(self._index)
        pool.cover = cover if cover is not None else conjunction_extents(rows, self.terms)
        pool.neg_cost, pool.sizes = self.neg_cost.copy(), self.sizes.copy()
        return pool


def _lp_on_patterns(lp: MasterLP, pool: ConjunctionPool, patterns: RowMultiset,
                    merged: ConjunctionPool) -> MasterLP | None:
    """The master LP over S mapped onto every positive row merged by cover pattern, so that the
    integer master needs no LP over all rows (at a million rows, hundreds of thousands of
    patterns: more than the memory limit allows).

    S's duals, 0 on the rows outside S, are feasible for the master over every row and the
    pool's columns (a column's reduced cost reads the rows of positive dual alone, and every
    row of S is a positive row), of dual value ``lp.objective``: summed per pattern they are a
    dual of the merged rows, so the integer master's reduced-cost fixing and lower bound stay
    valid. None when a row of S has no pattern (then the LP is solved over the patterns)."""
    if len(pool) == 0 or lp.mu.size != pool.cover.shape[0]:
        return None
    group = lookup(_packed_keys(patterns.packed), row_keys(pool.cover))
    if (group < 0).any():
        return None
    mu = np.bincount(group, weights=lp.mu, minlength=patterns.n_rows)
    xi = np.maximum(0.0, 1.0 - matvec(merged.cover, lp.w))
    return MasterLP(lp.objective, lp.w, xi, mu, lp.nu, lp.solver)


def _reduced(rows: RowMultiset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S as dense rows, their weights and sorted keys."""
    dense = rows.to_dense()
    return dense, rows.weights.astype(np.float64), np.sort(row_keys(dense))


def learn_rule_set_cg_on_partitions(counts: Any, lam: float, *, cnf: bool = False, error_costs=None,
                                    max_size: int = 3, budget: float | None = None,
                                    literal_cost: Callable[[float], np.ndarray | None] | None = None,
                                    row_sampling: Any = None, seed: int = 0, solver: str = "highs",
                                    time_limit: float | None = None, mip_time_limit: float | None = None,
                                    mip_node_limit: int | None = None,
                                    max_iterations: int = 100, top_k: int = 50, initial_terms=(),
                                    max_patterns: int | None = None) -> tuple[ColumnGenerationFit, float]:
    """A DNF (or CNF) rule set by column generation over the partitions (module notes).

    Parameters
    ----------
    counts : DaskCounts
        Two classes, weighted or not.
    lam : float
        Cost of a term and of each literal as a fraction of the (weighted) rows.
    cnf : bool, default False
    error_costs : pair of float, optional
        ``(c_1, c_0)``, as in :func:`~logicrules.lp.dask_clause.solve_clause_on_partitions`.
    max_size : int, default 3
        Longest term of the exact pricing, 1 to :data:`DASK_CG_MAX_SIZE`.
    budget : float, optional
        Complexity budget of the master.
    literal_cost : callable, optional
        ``literal_cost(lam_abs)``: the extra cost per literal (or None).
    row_sampling : None, "auto" or float
        The first sample's fraction (:func:`~logicrules.lp.dask_clause.sample_fraction`).
    seed : int
        Seeds the sample.
    solver, time_limit, mip_time_limit, mip_node_limit, max_iterations, top_k, initial_terms
        As in :func:`~logicrules.lp.colgen.learn_dnf_cg` (``time_limit`` bounds the loop).
    max_patterns : int, optional
        Most positive patterns the driver's master holds (default
        :data:`DASK_CG_MAX_PATTERNS`; the row sample beyond it is refused with a ``ValueError``).
        When row generation would need more, the loop stops uncertified with a
        :class:`~logicrules.lp.solvers.SolverWarning` (module notes, step 4).

    Returns
    -------
    ColumnGenerationFit, float
        The fit (``certified`` when the pricing and the row check proved the LP optimum over
        all rows) and the literal cost ``lam_abs``.
    """
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or not 1 <= max_size <= DASK_CG_MAX_SIZE:
        raise ValueError(f"max_size must be an integer from 1 to {DASK_CG_MAX_SIZE} on dask data, got {max_size!r}")
    max_patterns = DASK_CG_MAX_PATTERNS if max_patterns is None else max_patterns
    if isinstance(max_patterns, bool) or not isinstance(max_patterns, (int, np.integer)) or max_patterns < 1:
        raise ValueError(f"max_patterns must be a positive integer, got {max_patterns!r}")
    start = time.perf_counter()
    firing = 0 if cnf else 1
    (answer,) = run_pass(counts, ClauseRows(firing, cnf), [Totals(other=1 - firing)], "class totals and literal counts")
    cost = _class_costs(answer, error_costs)[::-1]  # cost[k]: an error on class k
    totals = answer["totals"]
    lam_abs = lam * (cost[1] * float(totals[1]) + cost[0] * float(totals[0]))
    c_pos, c_neg = cost[firing], cost[1 - firing]
    fraction = sample_fraction(row_sampling, int(answer["rows"][firing]))
    view = ClauseRows(firing, cnf, (int(seed), fraction))
    negatives = Negatives(counts, 1 - firing, cnf, c_neg, float(totals[1 - firing]))
    m = counts.n_attributes
    extra = None if literal_cost is None else literal_cost(lam_abs)
    empty = np.zeros((0, m), dtype=bool)

    def pool_on(rows, weights, pool=None):
        problem = RuleSetProblem(rows, c_pos * weights, empty, np.zeros(0), lam_abs, budget, extra)
        return _Pool(problem, negatives) if pool is None else pool.on(rows, c_pos * weights)

    memory.require(distinct_rows_bytes(fraction * int(answer["rows"][firing]) * 1.1 + 64, m),
                   f"the row sample of the master (about {int(fraction * int(answer['rows'][firing]))} rows x {m} "
                   "attributes)", "use a smaller row_sampling fraction")
    (sample,) = run_pass(counts, view, [SampleRows(counts.n_partitions)], "row sample")
    rows, weights, keys = _reduced(sample["rows"] if sample.get("rows") is not None else RowMultiset.from_dense(empty))
    if rows.shape[0] > max_patterns:
        raise ValueError(f"the row sample of the master holds {rows.shape[0]} distinct positive patterns, more than "
                         f"max_patterns={max_patterns}: use a smaller row_sampling fraction, fewer attributes or "
                         "method='covering'")
    pool = pool_on(rows, weights)
    pool.add(initial_terms)
    tol = 1e-7 * max(1.0, c_pos * float(totals[firing]))
    history: list[dict] = []
    full, certified, iterations, pricing_seconds, saturated = False, False, 0, 0.0, False
    while True:
        iterations += 1
        lp, _, _ = _master_on_rows(pool, np.ones(rows.shape[0], dtype=bool), solver)
        found = None
        if rows.shape[0] and max_size >= 3:  # the cheap beam first; the exact search when it finds nothing
            found = price_beam(pool.problem, negatives, lp.mu, lp.nu, int(max_size), BEAM_WIDTH, tol, int(top_k))
        if rows.shape[0] and not (found is not None and any(t not in pool for t in found.terms)):
            found = price(pool.problem, negatives, lp.mu, lp.nu, int(max_size), int(top_k), tol, first_found=True)
        if found is not None:
            pricing_seconds += found.seconds
        new = [] if found is None else [t for t, rc in zip(found.terms, found.reduced_costs) if rc < -tol and t not in pool]
        grown, short = 0, 0
        if not new:
            w = lp.w if len(pool) else np.zeros(0)
            cap = _rows_per_round(rows.shape[0], m)
            (scan,) = run_pass(counts, view, [CoverRows(list(pool.terms), w, keys, cap)], "rows against the pool")
            extra, short = scan["new"], int(scan["short"])
            fresh = extra.rows.n_rows
            certified = full and fresh == 0
            if not certified:
                kept = _fitting(pool, extra, m)[:max(0, max_patterns - scan["rows"].n_rows)]
                saturated = kept.size == 0 < fresh  # S is full: no short row can join it
                kept = np.sort(kept)
                merged = scan["rows"] + RowMultiset(extra.rows.packed[kept], extra.rows.weights[kept], m)
                fresh = kept.size
                memory.require(distinct_rows_bytes(merged.n_rows, m), f"the master's rows ({merged.n_rows} "
                               f"patterns x {m} attributes)", "use fewer attributes or method='covering'")
                rows, weights, keys = _reduced(merged)
                pool, grown, full = pool_on(rows, weights, pool), fresh, True
        added = pool.add(new)
        history.append({"lp_objective": lp.objective, "least_reduced_cost": None if found is None else found.least,
                        "added": added, "rows_added": grown, "rows_short": short,
                        "rows": int(rows.shape[0]),
                        "source": "exact" if added else "rows"})
        out_of_time = time_limit is not None and time.perf_counter() - start > time_limit
        if certified or iterations >= max_iterations or out_of_time or saturated:
            break
    if saturated and not certified:
        warnings.warn(f"column generation stopped with {rows.shape[0]} positive patterns in the master "
                      f"(max_patterns={max_patterns}) and {short} rows still short of covered: the LP bound is "
                      "not certified over all rows; the rule set is the integer master's over this pool and "
                      "every row. Use fewer attributes, a larger max_patterns or method='covering'",
                      SolverWarning, stacklevel=2)
    if not certified:  # stopped by a limit: the LP over the last rows and columns
        lp, _, _ = _master_on_rows(pool, np.ones(rows.shape[0], dtype=bool), solver)
    (cover,) = run_pass(counts, view, [CoverRows(list(pool.terms))], "cover patterns of the pool")
    patterns = cover["rows"] if cover.get("rows") is not None else RowMultiset.from_dense(np.zeros((0, len(pool)), bool))
    no_rows = np.broadcast_to(np.zeros((1, m), dtype=bool), (patterns.n_rows, m))  # a view: the MIP reads the cover
    merged = pool.on(no_rows, c_pos * patterns.weights.astype(np.float64), cover=patterns.to_dense())
    mip = solve_master_mip(merged, solver=solver, time_limit=mip_time_limit, node_limit=mip_node_limit,
                           lp=_lp_on_patterns(lp, pool, patterns, merged))
    run = ColumnGeneration(pool, lp, iterations, lp.objective if certified else -np.inf, certified, pricing_seconds,
                           history)
    terms = [np.array(pool.terms[k], dtype=np.intp) for k in np.flatnonzero(mip.chosen)]
    return ColumnGenerationFit.from_run(run, mip, terms, time.perf_counter() - start), lam_abs
