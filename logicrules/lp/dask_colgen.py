"""Column generation (``method="cg"``) on dask data, exact, without gathering the rows.

The DNF master LP (:mod:`logicrules.lp.master`) has one covering row per positive row; the
negative rows enter only through each conjunction's cost, the weight of the negatives it
holds on, ``L(K)``. So, as for the clause LP (:mod:`logicrules.lp.dask_clause`), the driver
holds a set S of positive patterns and the partitions answer counts:

1. **Costs** (one pass): class totals, the negatives' literal counts and Gram matrix: ``L`` of
   every literal and pair.
2. **Sample** (one pass): the constraint rows drawn as in the clause LP (the same per-partition
   seeds), merged into distinct patterns: the first S.
3. **Master and pricing** (on the driver, and one pass per round that needs triples): the
   master LP over the pool on S (every column at its full cost; S's rows merged by their cover
   pattern over the pool, as in memory) is a relaxation of the full master; its dual, zero on the rows outside S, is feasible for the full dual. The pricing is
   exact over every conjunction of at most ``max_size`` (<= 3) literals and the empty one:
   ``rc(K) = L(K) - G(K) + (lam + nu)(1 + |K|) + e_K`` with ``G(K)`` the dual on S's rows
   holding K (S is on the driver), ``L`` of literals and pairs from the Gram matrix, and ``L``
   of a triple counted over the partitions only when ``-G + (lam + nu) 4 + e_K`` is negative
   (``L >= 0``: no other triple can price out), all such triples in one counting pass
   (:meth:`~logicrules.fca.counts.Counts.cell_counts`). Columns of negative reduced cost
   join the pool (the ``top_k`` least), and the master is solved again.
4. **Row generation** (one pass per round): when the pricing finds nothing, every partition
   returns the patterns of its positive rows that the master's solution leaves short of covered
   (``a_i w < 1``), with those of S (so that S carries the full weight of its patterns). New
   patterns join S and the loop goes on; when there is none and S already carried the full
   weights, S's primal is feasible for the full master at the same value: the LP optimum over
   every conjunction of at most ``max_size`` literals, certified as in memory.
5. **Integer master** (one pass): every positive row merged by its cover pattern over the pool
   (a constraint per distinct pattern, of their summed weight), the integer master solved over
   them (:func:`~logicrules.lp.master.solve_master_mip`), exactly the in-memory integer master
   over the same pool.

The certified LP bound is that of the in-memory fit; the rule set is the integer master's over
this run's pool, which need not be the in-memory run's pool (the in-memory pricing also tries a
beam first and keeps other columns), so it may differ from the in-memory rule set. A CNF is the
DNF of the complemented literals for class 0 (the view of :class:`ClauseRows`). Weights and
error costs enter as in memory. Driver memory: S (at most the sample plus the patterns row
generation adds), two ``m x m`` matrices, and the triples of one pricing round.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicrules import memory
from logicrules.fca.counts import RowMultiset, _cell_counts
from logicrules.lp.colgen import ColumnGeneration, ColumnGenerationFit
from logicrules.lp.dask_clause import _class_costs, sample_fraction
from logicrules.lp.data import distinct_rows_bytes
from logicrules.lp.dask_passes import (ClauseRows, SampleRows, Sums, Totals, _collect, _merge, _Request, lookup,
                                       row_keys, run_pass)
from logicrules.lp.colgen_rows import _master_on_rows
from logicrules.lp.master import ConjunctionPool, RuleSetProblem, conjunction_extents, solve_master_mip
from logicrules.lp.model import matvec
from logicrules.lp.pricing import Pricing

__all__ = ["learn_rule_set_cg_on_partitions", "CoverRows", "DASK_CG_MAX_SIZE"]

#: Longest conjunction the exact pricing on dask data searches.
DASK_CG_MAX_SIZE = 3
#: A row is short of covered when ``a_i w < 1 - _COVER_TOL`` (as in memory).
_COVER_TOL = 1e-9


@dataclass
class CoverRows(_Request):
    """The constraint rows of a partition against a pool of conjunctions ``terms``.

    With ``w`` (the master LP's weights of the terms): the rows whose coverage ``a_i w`` is
    below 1, joined by the rows whose pattern is one of ``seed_keys``, merged into distinct
    patterns over all literals with their weights. Without ``w``: every row merged by its cover
    pattern over the terms (one column per term), the integer master's rows.
    """

    terms: list[tuple[int, ...]]
    w: np.ndarray | None = None
    seed_keys: np.ndarray | None = None

    what = "rows against the pool"

    def begin(self, number: int, block: Any) -> dict:
        return {"rows": [], "m": block.n_attributes if self.w is not None else len(self.terms)}

    def chunk(self, acc: dict, rows: np.ndarray, sampled: np.ndarray | None, weights: np.ndarray | None) -> None:
        cover = conjunction_extents(rows, self.terms)
        if self.w is None:
            _collect(acc["rows"], cover, weights)
            return
        keep = matvec(cover, self.w) < 1.0 - _COVER_TOL
        if self.seed_keys is not None:
            keep |= lookup(self.seed_keys, row_keys(rows)) >= 0
        _collect(acc["rows"], rows[keep], None if weights is None else weights[keep])

    def end(self, number: int, acc: dict) -> Sums:
        return Sums(rows=_merge(acc["rows"], acc["m"]))


class _Negatives:
    """``L(K)``: the weight of the negative rows a conjunction holds on (times their error
    cost), from the Gram matrix for sizes up to 2 and by counting passes beyond."""

    def __init__(self, counts: Any, other: int, complement: bool, c_neg: float, total: float) -> None:
        self.counts, self.other, self.complement, self.c_neg, self.total = counts, other, complement, c_neg, total
        gram = counts.gram()[other].astype(np.float64)
        diag = np.diag(gram).copy()
        if complement:  # rows where both literals are false
            gram = total - diag[:, None] - diag[None, :] + gram
            diag = total - diag
        self.single, self.pair = c_neg * diag, c_neg * gram
        self._known: dict[tuple[int, ...], float] = {}

    def of(self, terms: list[tuple[int, ...]]) -> np.ndarray:
        """``L`` of every term (passes for the sizes above 2 not known yet, all in one)."""
        missing = sorted({t for t in terms if len(t) > 2 and t not in self._known})
        if missing:
            by_size: dict[int, list] = {}
            for term in missing:
                by_size.setdefault(len(term), []).append(term)
            combos = {r: np.array(group, dtype=np.intp) for r, group in by_size.items()}
            self.counts.prefetch([functools.partial(_cell_counts, combos=c) for c in combos.values()])
            for r, c in combos.items():
                cells = self.counts.cell_counts(c)[self.other]
                held = cells[:, 0] if self.complement else cells[:, (1 << r) - 1]
                self._known.update(zip(by_size[r], (self.c_neg * held.astype(np.float64)).tolist()))
        out = np.empty(len(terms))
        for k, term in enumerate(terms):  # a lookup per term of the pool, not a count
            if len(term) == 0:
                out[k] = self.c_neg * self.total
            elif len(term) == 1:
                out[k] = self.single[term[0]]
            elif len(term) == 2:
                out[k] = self.pair[term[0], term[1]]
            else:
                out[k] = self._known[term]
        return out


class _Pool(ConjunctionPool):
    """A pool over S's rows whose columns' negative costs come from counts (:class:`_Negatives`)."""

    def __init__(self, problem: RuleSetProblem, negatives: _Negatives) -> None:
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


def _price(pool: _Pool, mu: np.ndarray, nu: float, max_size: int, top_k: int, tol: float) -> Pricing:
    """The exact pricing of module notes step 3 under the dual ``mu`` of S's rows."""
    start = time.perf_counter()
    P, L = pool.problem, pool.negatives
    m = P.n_literals
    e = np.zeros(m) if P.literal_cost is None else P.literal_cost
    rows, g = P.A_pos[mu > 0], mu[mu > 0]
    step = P.lam + nu
    terms: list[tuple[int, ...]] = [()]
    values = [L.c_neg * L.total - float(g.sum()) + step]
    G1 = g @ rows if rows.size else np.zeros(m)
    terms += [(j,) for j in range(m)]
    values += (L.single - G1 + 2 * step + e).tolist()
    if max_size >= 2 and m >= 2:
        G2 = (rows * g[:, None]).T @ rows if rows.size else np.zeros((m, m))
        i, j = np.triu_indices(m, 1)
        terms += list(zip(i.tolist(), j.tolist()))
        values += (L.pair[i, j] - G2[i, j] + 3 * step + e[i] + e[j]).tolist()
    if max_size >= 3 and m >= 3:
        triples, gains = [], []
        for a in range(m - 2):  # triples by first literal: the dual on the rows holding a
            held = rows[:, a]
            if not held.any():
                continue
            Ra, ga = rows[held], g[held]
            G3 = (Ra * ga[:, None]).T @ Ra
            b, c = np.triu_indices(m, 1)
            inside = b > a
            b, c = b[inside], c[inside]
            hopeful = -G3[b, c] + 4 * step + e[a] + e[b] + e[c] < -tol  # L >= 0: only these can price out
            triples.append(np.column_stack([np.full(hopeful.sum(), a), b[hopeful], c[hopeful]]))
            gains.append(G3[b, c][hopeful])
        if triples and sum(t.shape[0] for t in triples):
            found = np.concatenate(triples)
            keys = [tuple(t) for t in found.tolist()]
            terms += keys
            values += (L.of(keys) - np.concatenate(gains) + 4 * step + e[found].sum(axis=1)).tolist()
    values = np.asarray(values)
    order = np.argsort(values, kind="stable")[:top_k]
    return Pricing([terms[k] for k in order], values[order], float(values.min()), True, time.perf_counter() - start)


def _reduced(rows: RowMultiset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """S as dense rows, their weights and sorted keys."""
    dense = rows.to_dense()
    return dense, rows.weights.astype(np.float64), np.sort(row_keys(dense))


def learn_rule_set_cg_on_partitions(counts: Any, lam: float, *, cnf: bool = False, error_costs=None,
                                    max_size: int = 3, budget: float | None = None,
                                    literal_cost: Callable[[float], np.ndarray | None] | None = None,
                                    row_sampling: Any = None, seed: int = 0, solver: str = "highs",
                                    time_limit: float | None = None, mip_time_limit: float | None = None,
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
        The first sample's fraction (:func:`~logicrules.lp.dask_clause.sample_fraction`).
    seed : int
        Seeds the sample.
    solver, time_limit, mip_time_limit, max_iterations, top_k, initial_terms
        As in :func:`~logicrules.lp.colgen.learn_dnf_cg` (``time_limit`` bounds the loop).

    Returns
    -------
    ColumnGenerationFit, float
        The fit (``certified`` when the pricing and the row check proved the LP optimum over
        all rows) and the literal cost ``lam_abs``.
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
    negatives = _Negatives(counts, 1 - firing, cnf, c_neg, float(totals[1 - firing]))
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
    pool = pool_on(rows, weights)
    pool.add(initial_terms)
    tol = 1e-7 * max(1.0, c_pos * float(totals[firing]))
    history: list[dict] = []
    full, certified, iterations, pricing_seconds = False, False, 0, 0.0
    while True:
        iterations += 1
        lp, _, _ = _master_on_rows(pool, np.ones(rows.shape[0], dtype=bool), solver)
        found = _price(pool, lp.mu, lp.nu, int(max_size), int(top_k), tol) if rows.shape[0] else None
        if found is not None:
            pricing_seconds += found.seconds
        new = [] if found is None else [t for t, rc in zip(found.terms, found.reduced_costs) if rc < -tol and t not in pool]
        grown = 0
        if not new:
            w = lp.w if len(pool) else np.zeros(0)
            (scan,) = run_pass(counts, view, [CoverRows(list(pool.terms), w, keys)], "rows against the pool")
            merged = scan["rows"]
            fresh = int(np.count_nonzero(lookup(keys, row_keys(merged.to_dense())) < 0)) if merged.n_rows else 0
            certified = full and fresh == 0
            if not certified:
                memory.require(distinct_rows_bytes(merged.n_rows, m), f"the master's rows ({merged.n_rows} "
                               f"patterns x {m} attributes)", "use fewer attributes or method='covering'")
                rows, weights, keys = _reduced(merged)
                pool, grown, full = pool_on(rows, weights, pool), fresh, True
        added = pool.add(new)
        history.append({"lp_objective": lp.objective, "least_reduced_cost": None if found is None else found.least,
                        "added": added, "rows_added": grown, "rows": int(rows.shape[0]),
                        "source": "exact" if added else "rows"})
        out_of_time = time_limit is not None and time.perf_counter() - start > time_limit
        if certified or iterations >= max_iterations or out_of_time:
            break
    if not certified:  # stopped by a limit: the LP over the last rows and columns
        lp, _, _ = _master_on_rows(pool, np.ones(rows.shape[0], dtype=bool), solver)
    (cover,) = run_pass(counts, view, [CoverRows(list(pool.terms))], "cover patterns of the pool")
    patterns = cover["rows"] if cover.get("rows") is not None else RowMultiset.from_dense(np.zeros((0, len(pool)), bool))
    no_rows = np.broadcast_to(np.zeros((1, m), dtype=bool), (patterns.n_rows, m))  # a view: the MIP reads the cover
    merged = pool.on(no_rows, c_pos * patterns.weights.astype(np.float64), cover=patterns.to_dense())
    mip = solve_master_mip(merged, solver=solver, time_limit=mip_time_limit)
    run = ColumnGeneration(pool, lp, iterations, lp.objective if certified else -np.inf, certified, pricing_seconds,
                           history)
    terms = [np.array(pool.terms[k], dtype=np.intp) for k in np.flatnonzero(mip.chosen)]
    return ColumnGenerationFit.from_run(run, mip, terms, time.perf_counter() - start), lam_abs
