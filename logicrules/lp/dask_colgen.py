"""Column generation (``method="cg"``) on dask data, exact, without gathering the rows.

The DNF master LP (:mod:`logicrules.lp.master`) has one covering row per positive row; the
negative rows enter only through each conjunction's cost, the weight of the negatives it
holds on, ``L(K)``. Rows with equal cover over the pool are equal constraints, so the master
needs only the positive rows merged by their cover pattern (groups), and only the groups that
bind. The partitions answer counts:

1. **Costs** (one pass): class totals and literal counts; the negatives' Gram matrix (``L`` of
   every literal and pair) on the first use of :class:`~logicrules.lp.dask_pricing.Negatives`.
2. **Sample** (one pass): a row sample of the positives (drawn as in the clause LP, the same
   per-partition seeds), merged into distinct rows and held by the driver. Column generation on
   the sample alone (its master, the beam of :func:`~logicrules.lp.dask_pricing.price_beam`,
   then the search of :func:`~logicrules.lp.dask_pricing.price`, ``L`` exact) gives the first
   pool, and the first groups: the cover patterns of the sampled rows.
3. **Master** over the groups (one pass when the pool grew: the groups' rows merged by their
   pattern over the grown pool, :class:`CoverRows`), and its LP. Its dual ``mu_g`` of a group,
   spread over the group's rows in proportion to their costs and 0 on the other rows
   (:class:`~logicrules.lp.dask_gains.GroupDual`), is a dual of the master over every row.
4. **Pricing.** While it finds columns that improve the master, a cheap one on the sample (the
   dual of the sampled rows read from their groups, scaled by the sample fraction); its columns
   (the ``top_k`` least) join the pool unchecked: the next master decides. When it finds none,
   or its last columns left the master's value unchanged, the exact pricing over every row
   (:func:`~logicrules.lp.dask_gains.price_counted`: ``G`` of literals and pairs from one pass,
   triples and quadruples counted where their bounds can still price out), which stops at the
   first size at which some column prices out.
5. **Rows** (one pass when the pricing added nothing): the rows outside the groups that the
   master's solution leaves short of covered, ``a_i w < 1``, merged by pattern; the ``cap``
   most violated groups (:class:`MostViolated`, at most :data:`DASK_CG_ROWS_PER_ROUND` and what
   the memory limit leaves room for) join the master, and the loop goes back to 3. When the
   exact pricing has just found nothing and no row is short, the master's solution is feasible
   over every row at its value and its dual is feasible for every conjunction of at most
   ``max_size`` literals: the LP optimum over all of them and every row, certified as in memory.
6. **Integer master** (two passes, :func:`_integer_master`): the master's rounding, its value
   over every row counted in one pass, fixes the columns that cannot be in a better rule set
   (reduced-cost fixing); every positive row merged by its cover pattern over the other
   columns (the second pass) makes the integer program, solved by
   :func:`~logicrules.lp.master.solve_master_mip` from the last LP mapped onto those rows
   (:meth:`_Master.on_rows`): the optimum of the in-memory integer master over the same pool.

The certified LP bound is that of the in-memory fit; the rule set is the integer master's over
this run's pool, which need not be the in-memory run's pool (the cheap pricings differ), so it
may differ from the in-memory rule set. A CNF is the DNF of the complemented literals for class
0 (the view of :class:`~logicrules.lp.dask_passes.ClauseRows`). Weights and error costs enter as
in memory. Driver memory: the sample, the master's groups (checked against ``memory_limit``),
the integer master's patterns over the kept columns (its model checked), the pricing's
``m x m`` matrices and candidates (:mod:`logicrules.lp.dask_pricing`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicrules import memory
from logicrules.fca.counts import RowMultiset
from logicrules.lp.colgen import ColumnGeneration, ColumnGenerationFit
from logicrules.lp.colgen_rows import _master_on_rows
from logicrules.lp.dask_clause import _class_costs, sample_fraction
from logicrules.lp.dask_gains import GroupDual, Positives, price_counted
from logicrules.lp.dask_passes import (COVER_TOL, ClauseRows, SampleRows, Sums, Totals, _collect, _merge, _Request, lookup,
                                       row_keys, run_pass)
from logicrules.lp.dask_pricing import Negatives, price, price_beam
from logicrules.lp.data import distinct_rows_bytes
from logicrules.lp.master import (ConjunctionPool, MasterLP, MasterMIP, RuleSetProblem, conjunction_extents,
                                 solve_master_mip)
from logicrules.lp.master_rounding import round_master
from logicrules.lp.model import matvec
from logicrules.lp.solvers import model_bytes
from logicrules.lp.pricing import Pricing

__all__ = ["learn_rule_set_cg_on_partitions", "CoverRows", "MostViolated", "DASK_CG_MAX_SIZE",
           "DASK_CG_ROWS_PER_ROUND"]

#: Longest conjunction the exact pricing on dask data searches.
DASK_CG_MAX_SIZE = 4
#: Most new groups a round of row generation adds to the master (the most violated first);
#: fewer when the memory limit leaves room for fewer (:func:`_rows_per_round`).
DASK_CG_ROWS_PER_ROUND = 1 << 14
#: Terms the cheap beam of every pricing round keeps per size (:func:`~logicrules.lp.dask_pricing.price_beam`).
BEAM_WIDTH = 10


def _packed_keys(packed: np.ndarray) -> np.ndarray:
    """The keys of :func:`~logicrules.lp.dask_passes.row_keys` of packed rows."""
    if packed.shape[1] == 0:
        return np.zeros(packed.shape[0], dtype=np.dtype((np.void, 1)))
    return np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()


@dataclass
class MostViolated:
    """The ``cap`` most violated of some distinct cover patterns with their weights: the groups
    one round of row generation adds, kept bounded while the partitions' answers are summed.

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
    """A partition's constraint rows merged by their cover pattern over a pool of conjunctions
    ``terms`` (one column per term), with their summed weights (``rows``).

    With ``members`` (the sorted keys of the master's groups, patterns over the first ``prefix``
    terms), only the rows of those groups; with ``w`` (the master LP's weights of the terms)
    instead, the ``cap`` most violated groups of the other rows whose coverage ``a_i w`` is
    below 1 (``new``: a :class:`MostViolated`, with ``short``, the number of such rows in all).
    Without either, every row: the integer master's rows.
    """

    terms: list[tuple[int, ...]]
    prefix: int = 0
    members: np.ndarray | None = None
    w: np.ndarray | None = None
    cap: int = DASK_CG_ROWS_PER_ROUND

    what = "groups of the pool"

    def begin(self, number: int, block: Any) -> dict:
        empty = RowMultiset.from_dense(np.zeros((0, len(self.terms)), dtype=bool))
        return {"rows": [], "new": MostViolated(empty, np.zeros(0), self.cap), "short": 0}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        cover = conjunction_extents(rows, self.terms)
        if self.members is None:
            _collect(acc["rows"], cover, weights)
            return
        inside = lookup(self.members, row_keys(cover[:, :self.prefix])) >= 0
        if self.w is None:
            _collect(acc["rows"], cover[inside], None if weights is None else weights[inside])
            return
        short = ~inside & (matvec(cover, self.w) < 1.0 - COVER_TOL)
        if short.any():
            acc["short"] += int(np.count_nonzero(short))
            new = RowMultiset.from_dense(cover[short], None if weights is None else weights[short])
            violation = 1.0 - matvec(new.to_dense(), self.w)
            acc["new"] = acc["new"] + MostViolated(new, violation, self.cap).truncated()

    def end(self, number: int, acc: dict) -> Sums:
        if self.w is not None:
            return Sums(new=acc["new"], short=acc["short"])
        return Sums(rows=_merge(acc["rows"], len(self.terms)))


def _rows_per_round(held_rows: int, m: int) -> int:
    """New groups the partitions may send in one round of row generation:
    :data:`DASK_CG_ROWS_PER_ROUND`, or as many as a quarter of what the memory limit leaves
    beside the master's ``held_rows`` groups holds, at least 64."""
    budget = memory._ACTIVE.get()
    if budget is None:
        return DASK_CG_ROWS_PER_ROUND
    per_row = distinct_rows_bytes(1, m)
    room = (budget.limit - budget.held - held_rows * per_row) / 4
    return int(min(DASK_CG_ROWS_PER_ROUND, max(64, room // per_row)))


def _fitting(pool: ConjunctionPool, new: MostViolated, m: int) -> np.ndarray:
    """The new groups (their positions, most violated first) that join the master: all of
    them, or the most violated that fit a third of what the memory limit leaves beside the
    master's groups, at least 64. Each group is counted with its cells and a constraint of its
    own in the master LP's model, of ``2 +`` the average number of columns covering the
    groups nonzeros (the pool grows after the rows join)."""
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
    """A pool whose columns' negative costs come from counts
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

    def on(self, rows: np.ndarray, weights: np.ndarray, cover: np.ndarray, columns: np.ndarray | None = None) -> _Pool:
        """The same columns (those of ``columns`` when given, in that order) over other rows,
        ``cover`` their extents on them."""
        P = self.problem
        columns = np.arange(len(self)) if columns is None else np.asarray(columns, dtype=np.intp)
        pool = _Pool(RuleSetProblem(rows, weights, P.A_neg, P.neg_weight, P.lam, P.budget, P.literal_cost),
                     self.negatives)
        pool.terms = [self.terms[k] for k in columns]
        pool._index = {t: k for k, t in enumerate(pool.terms)}
        pool.cover, pool.neg_cost, pool.sizes = cover, self.neg_cost[columns], self.sizes[columns]
        return pool


@dataclass
class _Master:
    """The master over some groups of positive rows (``patterns``: their cover patterns over
    the pool's ``terms``, with their weights), the pool over them (``pool``) and its LP."""

    terms: tuple[tuple[int, ...], ...]
    patterns: RowMultiset
    pool: _Pool
    lp: MasterLP

    @classmethod
    def solve(cls, pool: _Pool, patterns: RowMultiset, c_pos: float, solver: str) -> _Master:
        terms = tuple(pool.terms)
        memory.require(distinct_rows_bytes(patterns.n_rows, max(len(terms), 1)),
                       f"the master's {patterns.n_rows} groups of positive rows over {len(terms)} terms",
                       "use a larger lam or fewer attributes")
        m = pool.problem.n_literals
        no_rows = np.broadcast_to(np.zeros((1, m), dtype=bool), (patterns.n_rows, m))  # a view: the LP reads the cover
        over = pool.on(no_rows, c_pos * patterns.weights.astype(np.float64), patterns.to_dense())
        lp, _, _ = _master_on_rows(over, np.ones(patterns.n_rows, dtype=bool), solver)
        return cls(terms, patterns, over, lp)

    def keys(self) -> np.ndarray:
        """The groups' keys, sorted."""
        return np.sort(_packed_keys(self.patterns.packed))

    def dual(self, scale: float) -> GroupDual:
        """The LP's dual spread over the groups' rows (:class:`~logicrules.lp.dask_gains.GroupDual`)."""
        cost = self.pool.problem.pos_weight
        ratios = np.clip(np.divide(self.lp.mu, cost, out=np.zeros_like(cost), where=cost > 0), 0.0, 1.0)
        keys = _packed_keys(self.patterns.packed)
        order = np.argsort(keys, kind="stable")
        return GroupDual(self.terms, keys[order], ratios[order], scale)

    def on_rows(self, keep: np.ndarray, patterns: RowMultiset, over: ConjunctionPool) -> MasterLP:
        """The LP on the columns ``keep`` and every positive row merged by its cover pattern over
        them (``patterns``, the pool ``over`` over them): the start of the integer master.

        A group lies inside one pattern; the pattern's dual is the sum of its groups' (0 where
        none). It stays below the pattern's cost, and the reduced costs of the kept columns are
        the master's: a dual feasible for the integer master's LP over those rows and columns,
        of value ``lp.objective``, so the reduced-cost fixing and the lower bound stay valid."""
        keys = _packed_keys(patterns.packed)
        order = np.argsort(keys, kind="stable")
        at = lookup(keys[order], row_keys(self.patterns.to_dense()[:, keep]))
        if (at < 0).any():
            raise RuntimeError("a group of the master is not a pattern of the rows: the partitions changed between passes")
        mu = np.bincount(order[at], weights=self.lp.mu, minlength=patterns.n_rows)
        w = self.lp.w[keep]
        xi = np.maximum(0.0, 1.0 - matvec(over.cover, w)) if keep.size else np.ones(patterns.n_rows)
        return MasterLP(self.lp.objective, w, xi, mu, self.lp.nu, self.lp.solver)


def _integer_master(counts: Any, view: ClauseRows, pool: _Pool, master: _Master, c_pos: float, positives: float,
                    tol: float, solver: str, time_limit: float | None, node_limit: int | None) -> MasterMIP:
    """The integer master over the pool and every positive row (module notes, step 6).

    The master's rounding (:func:`~logicrules.lp.master_rounding.round_master` over the groups)
    is a rule set within the budget; one pass over the rows it covers gives its value U over
    every row (``positives``: the weight of all positive rows times ``c_pos``). A column with
    ``z_LP + rc_k > U`` is in no rule set better than U (reduced-cost fixing; the reduced costs
    over the groups are those over every row, the dual being 0 outside them), so the integer
    program over the other columns, with every positive row merged by its pattern over them (a
    second pass), has the optimum of the integer master over the whole pool
    (:func:`~logicrules.lp.master.solve_master_mip`), and its driver memory is that of the kept
    columns' patterns, not of the pool's."""
    start = time.perf_counter()
    lp, on_groups = master.lp, master.pool
    rounded = round_master(on_groups, lp.w)
    chosen = [pool.terms[k] for k in np.flatnonzero(rounded)]
    covered = 0.0
    if chosen:
        cover = _rows(counts, view, CoverRows(chosen), "rows the rounded rule set covers")
        covered = c_pos * float(cover.weights[cover.to_dense().any(axis=1)].sum())
    upper = float(on_groups.costs()[rounded].sum()) + positives - covered
    keep = np.flatnonzero((lp.objective + on_groups.reduced_costs(lp.mu, lp.nu) <= upper + tol) | rounded)
    if keep.size == 0:  # no column can beat the empty rule set
        return MasterMIP(rounded, upper, upper, 0.0, "optimal", solver, time.perf_counter() - start)
    every = _rows(counts, view, CoverRows([pool.terms[k] for k in keep]), "cover patterns of the kept columns")
    m = pool.problem.n_literals
    no_rows = np.broadcast_to(np.zeros((1, m), dtype=bool), (every.n_rows, m))  # a view: the program reads the cover
    kept = pool.on(no_rows, c_pos * every.weights.astype(np.float64), every.to_dense(), keep)
    mip = solve_master_mip(kept, solver=solver, time_limit=time_limit, node_limit=node_limit,
                           lp=master.on_rows(keep, every, kept))
    chosen_all = np.zeros(len(pool), dtype=bool)
    chosen_all[keep[mip.chosen]] = True
    return MasterMIP(chosen_all, mip.objective, mip.bound, mip.gap, mip.status, mip.solver,
                     time.perf_counter() - start)


def _rows(counts: Any, view: ClauseRows, request: CoverRows, what: str) -> RowMultiset:
    (answer,) = run_pass(counts, view, [request], what)
    rows = answer.get("rows")
    return rows if rows is not None else RowMultiset.from_dense(np.zeros((0, len(request.terms)), dtype=bool))


def _cheap_pricing(problem: RuleSetProblem, negatives: Negatives, pool: _Pool, mu: np.ndarray, nu: float, max_size: int,
                   top_k: int, tol: float) -> Pricing:
    """The beam, then the search of :func:`~logicrules.lp.dask_pricing.price` when the beam finds
    no new column, over the sample's rows (of duals ``mu``)."""
    found = None
    if max_size >= 3:
        found = price_beam(problem, negatives, mu, nu, int(max_size), BEAM_WIDTH, tol, int(top_k))
    if not _new_terms(found, pool, tol):
        found = price(problem, negatives, mu, nu, int(max_size), int(top_k), tol, first_found=True)
    return found


def _new_terms(found: Pricing | None, pool: _Pool, tol: float) -> list[tuple[int, ...]]:
    if found is None:
        return []
    return [t for t, rc in zip(found.terms, found.reduced_costs) if rc < -tol and t not in pool]


def learn_rule_set_cg_on_partitions(counts: Any, lam: float, *, cnf: bool = False, error_costs=None,
                                    max_size: int = 3, budget: float | None = None,
                                    literal_cost: Callable[[float], np.ndarray | None] | None = None,
                                    row_sampling: Any = None, seed: int = 0, solver: str = "highs",
                                    time_limit: float | None = None, mip_time_limit: float | None = None,
                                    mip_node_limit: int | None = None,
                                    max_iterations: int = 100, top_k: int = 50,
                                    initial_terms=()) -> tuple[ColumnGenerationFit, float]:
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
        The fraction of the sample of the cheap pricing
        (:func:`~logicrules.lp.dask_clause.sample_fraction`).
    seed : int
        Seeds the sample.
    solver, time_limit, mip_time_limit, mip_node_limit, max_iterations, top_k, initial_terms
        As in :func:`~logicrules.lp.colgen.learn_dnf_cg` (``time_limit`` bounds the loop).

    Returns
    -------
    ColumnGenerationFit, float
        The fit (``certified`` when the exact pricing proved the LP optimum over all rows) and
        the literal cost ``lam_abs``.
    """
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or not 1 <= max_size <= DASK_CG_MAX_SIZE:
        raise ValueError(f"max_size must be an integer from 1 to {DASK_CG_MAX_SIZE} on dask data, got {max_size!r}")
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
    memory.require(distinct_rows_bytes(fraction * int(answer["rows"][firing]) * 1.1 + 64, m),
                   f"the row sample of the cheap pricing (about {int(fraction * int(answer['rows'][firing]))} rows x "
                   f"{m} attributes)", "use a smaller row_sampling fraction")
    (sample,) = run_pass(counts, view, [SampleRows(counts.n_partitions)], "row sample")
    sampled = sample["rows"] if sample.get("rows") is not None else RowMultiset.from_dense(empty)
    rows, weights = sampled.to_dense(), sampled.weights.astype(np.float64)
    on_sample = RuleSetProblem(rows, c_pos * weights / fraction, empty, np.zeros(0), lam_abs, budget, extra)
    pool = _Pool(RuleSetProblem(empty, np.zeros(0), empty, np.zeros(0), lam_abs, budget, extra), negatives)
    tol = 1e-7 * max(1.0, c_pos * float(totals[firing]))
    history: list[dict] = []
    certified, iterations, pricing_seconds = False, 0, 0.0
    seeded = _Pool(on_sample, negatives)  # the first columns: column generation on the sample alone
    seeded.add(initial_terms)
    while True:
        iterations += 1
        lp, _, _ = _master_on_rows(seeded, np.ones(rows.shape[0], dtype=bool), solver)
        found = _cheap_pricing(on_sample, negatives, seeded, lp.mu, lp.nu, max_size, top_k, tol) if rows.shape[0] else None
        added = seeded.add(_new_terms(found, seeded, tol))
        pricing_seconds += 0.0 if found is None else found.seconds
        history.append({"lp_objective": lp.objective, "least_reduced_cost": None if found is None else found.least,
                        "added": added, "rows": int(rows.shape[0]), "rows_added": 0, "rows_short": 0,
                        "source": "sample rows"})
        if not added or iterations >= max_iterations:
            break
    pool.add(seeded.terms)  # the first groups: every row whose cover pattern is a sampled row's
    members, prefix = np.unique(row_keys(conjunction_extents(rows, list(pool.terms)))), len(pool)
    w, patterns, proved, added, source, previous, short = None, None, False, 1, "", np.inf, 0
    while iterations < max_iterations and not (time_limit is not None and time.perf_counter() - start > time_limit):
        iterations += 1
        if not added:  # the most violated groups of the rows the last master leaves short of covered join it
            (scan,) = run_pass(counts, view, [CoverRows(list(pool.terms), prefix, members, w,
                                                        _rows_per_round(patterns.n_rows, len(pool)))],
                               "rows short of covered")
            violated, short = scan.get("new"), int(scan.get("short", 0))
            certified = proved and short == 0
            if violated is not None and violated.rows.n_rows:
                kept = np.sort(_fitting(master.pool, violated, len(pool)))
                fresh = RowMultiset(violated.rows.packed[kept], violated.rows.weights[kept], len(pool))
                patterns = patterns + fresh
            else:
                fresh = RowMultiset.from_dense(np.zeros((0, len(pool)), dtype=bool))
        else:  # the master's groups over the grown pool
            fresh, short = None, 0
            patterns = _rows(counts, view, CoverRows(list(pool.terms), prefix, members), CoverRows.what)
        members, prefix = np.sort(_packed_keys(patterns.packed)), len(pool)
        if certified:  # the last master is the optimum over every row
            iterations -= 1
            break
        master = _Master.solve(pool, patterns, c_pos, solver)
        lp, dual, found = master.lp, master.dual(c_pos), None
        if rows.shape[0] and patterns.n_rows and not (source == "sample" and lp.objective > previous - tol):
            found, source = _cheap_pricing(on_sample, negatives, pool, dual.of(rows, weights) / fraction, lp.nu,
                                           max_size, top_k, tol), "sample"
        if not _new_terms(found, pool, tol):
            found = price_counted(Positives(counts, view, dual, negatives), negatives, lam_abs, extra, lp.nu,
                                  int(max_size), int(top_k), tol, first_found=True)
            source = "exact"
        pricing_seconds += found.seconds
        added = pool.add(_new_terms(found, pool, tol))
        proved, w, previous = source == "exact" and found.complete and not added, lp.w, lp.objective
        history.append({"lp_objective": lp.objective, "least_reduced_cost": found.least, "added": added,
                        "rows": int(patterns.n_rows), "rows_added": 0 if fresh is None else int(fresh.n_rows),
                        "rows_short": short, "source": source})
    if not certified and (added or not patterns.n_rows):  # stopped by a limit: the master over the last columns
        if added:
            patterns = _rows(counts, view, CoverRows(list(pool.terms), prefix, members), CoverRows.what)
        master = _Master.solve(pool, patterns, c_pos, solver)
    mip = _integer_master(counts, view, pool, master, c_pos, c_pos * float(totals[firing]), tol, solver,
                          mip_time_limit, mip_node_limit)
    run = ColumnGeneration(pool, master.lp, iterations, master.lp.objective if certified else -np.inf, certified,
                           pricing_seconds, history)
    terms = [np.array(pool.terms[k], dtype=np.intp) for k in np.flatnonzero(mip.chosen)]
    return ColumnGenerationFit.from_run(run, mip, terms, time.perf_counter() - start), lam_abs
