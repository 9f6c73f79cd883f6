"""Exhaustive search for the optimal short premise (the FCA paper's problem, any objective).

:func:`find_best_premises` returns the premises of size <= ``max_size`` (``P_1 = {m, not m}``,
``P_k = {p AND q, p OR q : p in P_i, q in P_{k-i}}``, DESIGN.md section 2) with the best values
of an objective of their confusion counts, over *distinct extents*, exactly.

How it stays exact and fast (details in the modules it uses):

* the objective is evaluated on the count arrays of the candidates (never tabulated over all
  ``(tp, fp)``), and owns its pruning filter (:meth:`logicrules.metrics.Objective.filter`): a
  line ``alpha tp + beta fp >= c`` that every count pair scoring above the running threshold
  satisfies (closed forms: Dinkelbach's line for the ratios F1/Jaccard/precision, the objective
  itself for the linear ones, a chord for MCC; a boundary search for callables);
* attributes with equal (with negations: complementary) extents are merged and constant ones set
  aside (:mod:`logicrules.fca.premise_space`): premises over them add no extent;
* sizes 1 and 2 are enumerated from single and pair counts (one matrix product);
* size 3 visits every triple of attributes in a compiled loop (:mod:`logicrules.fca.search_kernels`)
  that counts ``a AND b AND c`` with popcounts, recovers the 8 truth-table cells and keeps the
  triple when its best read-once formula passes a *linear* test that every premise better than
  the current k-th best passes (Dinkelbach's line for F1/Jaccard); survivors are scored exactly,
  the threshold rises as better premises appear (running threshold);
* size 4 (:meth:`_Search.size4_cells`) visits every attribute quadruple in a compiled loop: one
  4-way popcount per class plus stored 3-way counts give the 16 weighted cells, the sum of the
  positive cells bounds every formula, and the best read-once formula of 4 literals has a closed
  form over the cells (``x o g``: halves and the size-3 closed form; ``(x o y) o (z o w)``: block
  sums of a 4 x 4 table); premises of size 4 that repeat an attribute are functions of a triple,
  tested against every such function. An exact proximity bound skips most quadruples (and
  whole ranges of them) before counting: replacing one attribute by another one of the four or
  by a constant gives a premise over three attributes, and a read-once premise, monotone in each
  of its literals, loses at most the weight of the rows where the two differ *on one side*
  (``_Search._proximity_pruning``). Greedy size-4 premises seed the threshold. Memory grows as
  m^3/6 (the 3-way counts of sorted triples, 2 bytes per class, and their float32 "rooms"),
  time as m^4/24. The former method (``size4_method="extents"``: materialize every distinct
  extent of size <= 3 and combine them with rectangle bounds) is kept for comparison;
* with ``backend="torch"`` (:mod:`logicrules.fca.search_torch`, optional, for a GPU) the size-3 and
  size-4 scans count with matrix products over 0/1 matrices instead, with the same proximity
  pruning applied to whole rows of a matrix product, and hand the same survivors to the same
  exact scoring.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from logicrules.fca import search_kernels as kernels
from logicrules.fca.premise_space import (
    CONNECTIVES,
    PreparedAttributes,
    count_premises,
    pair_shapes,
    prepare_attributes,
    quadruple_shapes,
    repeat_shapes,
    shape_matrix,
    shape_size,
    triple_shapes,
)
from logicrules.fca.search_cost import SearchEstimate, estimate_search_cost
from logicrules.formula import And, Formula, Literal, Or
from logicrules.memory import DEFAULT_MEMORY_LIMIT, parse_memory
from logicrules.metrics import Objective, get_objective
from logicrules.validation import as_boolean_matrix, as_boolean_target

__all__ = [
    "PremiseResult",
    "PremiseSearchMemoryError",
    "SearchStatistics",
    "SizeStatistics",
    "estimate_premise_search",
    "find_best_premises",
]

_MAX_COUNTED_PAIRS = 12_000_000  # size-2 distinct extents are counted up to this many premises (pairs x shapes)
_MAX_COUNTED_TRIPLES = 20_000    # size-3 distinct extents are counted up to this many scored triples
_MAX_COUNTED_PREMISES = 1_280_000   # size-4 distinct extents: up to this many scored premises


class PremiseSearchMemoryError(MemoryError):
    """A premise search would need more memory than ``memory_limit`` allows."""


@dataclass(frozen=True)
class PremiseResult:
    """One premise found by :func:`find_best_premises`.

    Attributes
    ----------
    formula : Formula
        The premise over the input's attributes (column names of a DataFrame, attribute names of
        a FormalContext, column positions of an array); ``formula.evaluate(X)`` is its extent.
    score : float
        Objective value (minus ``size_cost`` per literal when a size cost is given).
    tp, fp, fn, tn : int or float
        Confusion counts of the premise used as a classifier on ``(X, y)``: numbers of rows, or
        with ``sample_weight`` sums of row weights (float).
    size : int
        Number of literals (the smallest premise found for this extent).
    """

    formula: Formula
    score: float
    tp: int | float
    fp: int | float
    fn: int | float
    tn: int | float
    size: int

    def __str__(self) -> str:
        return (f"{self.formula}  (size {self.size}, score {self.score:.6f}, tp={self.tp}, "
                f"fp={self.fp}, fn={self.fn}, tn={self.tn})")


@dataclass
class SizeStatistics:
    """Work done for one premise size (the paper's Table 1, one column).

    Attributes
    ----------
    size : int
    premises : int
        Syntactic premises of this size, counted as the definition builds them
        (:func:`logicrules.fca.premise_space.count_premises`).
    extent_combinations : int
        Combinations of distinct extents (after merging equal/complementary attributes) that
        produce the premises of this size: literals; pairs x 2-literal shapes; attribute triples
        x 3-literal read-once shapes; size 4: attribute quadruples x 4-literal read-once shapes
        plus triples x functions of size <= 4 over them (with ``size4_method="extents"``:
        ``E1 x E<=3`` and ``E<=2 x E<=2`` pairs x 2 operators).
    counted : int
        Combinations whose counts were computed after the exact pruning bounds (size 3:
        triples surviving the proximity bound x shapes, each scored by the closed form of the
        linear filter; size 4: attribute quadruples whose 16 cells were computed after the
        proximity bound, or with ``size4_method="extents"`` extent pairs surviving the rectangle
        bounds x 2).
    tested : int
        Combinations scored exactly with the objective (size 3: shapes of the triples passing
        the linear filter; size 4: premises of the quadruples and triples passing the linear
        filter, or extent pairs above the threshold with ``size4_method="extents"``).
    new_extents : int or None
        Distinct extents first reached at this size (exact for sizes 1-2 when counted, i.e.
        with ``return_stats=True`` and at most 12,000,000 premises of size 2); for size 3 the distinct extents among the tested
        combinations (counted while at most 20,000 triples are tested); for size 4 the distinct
        extents among the premises scored exactly (counted while at most 1,280,000 are), with
        ``size4_method="extents"`` the new extents among those above the threshold. None when
        not counted.
    kept : int
        Distinct extents kept for later sizes / in the result list after this size.
    best_score : float
        Best score over all sizes up to this one.
    seconds : float
    """

    size: int
    premises: int
    extent_combinations: int
    counted: int
    tested: int
    new_extents: int | None
    kept: int
    best_score: float
    seconds: float


@dataclass
class SearchStatistics:
    """Per-size statistics of a search (``sizes``) with the setting it ran in.

    ``pareto`` (filled with ``find_best_premises(..., pareto=True)``) maps each size k to the
    non-dominated premises of size <= k on the true-positive / true-negative plane (the smallest
    premise per point): over *every* premise for k <= 2; for k = 3, 4 the premises of size 3, 4
    taken into account are those the search scored exactly (the ones that could compete with the
    optimum), so those fronts are exact near the optimum only.

    ``complete`` is False when ``time_limit`` stopped the search before it had visited the whole
    premise space: the results are then the best premises found, not certified optimal (sizes
    not reached are missing from ``sizes``). ``estimate`` is the
    :class:`~logicrules.fca.search_cost.SearchEstimate` computed before the search started.
    """

    sizes: list[SizeStatistics] = field(default_factory=list)
    n_objects: int = 0
    n_attributes: int = 0
    n_distinct_attributes: int = 0
    objective: str = ""
    negations: bool = True
    pareto: dict | None = None
    connectives: tuple = CONNECTIVES
    complete: bool = True
    estimate: SearchEstimate | None = None

    def to_frame(self):
        """A DataFrame with one row per size (columns as :class:`SizeStatistics`)."""
        import pandas as pd

        return pd.DataFrame([vars(s) for s in self.sizes]).set_index("size")

    @property
    def seconds(self) -> float:
        """Total search time."""
        return float(sum(s.seconds for s in self.sizes))


# --------------------------------------------------------------------------------- inputs
def _parse_connectives(connectives: Any) -> tuple[str, ...]:
    """``("and", "or")``, ``("and",)`` or ``("or",)`` from a name or a sequence of names."""
    names = (connectives,) if isinstance(connectives, str) else connectives
    try:
        chosen = {str(c).strip().lower() for c in names}
    except TypeError:
        chosen = None
    if not chosen or not chosen <= set(CONNECTIVES):
        raise ValueError(f"connectives must be 'and', 'or' or both (e.g. ('and',) for conjunctions only), "
                         f"got {connectives!r}")
    return tuple(c for c in CONNECTIVES if c in chosen)


def _parse_time_limit(time_limit: Any) -> float | None:
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.integer, np.floating)) \
            or not time_limit > 0 or not np.isfinite(time_limit):
        raise ValueError(f"time_limit must be a positive finite number of seconds or None, got {time_limit!r}")
    return float(time_limit)


def _as_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Checked float64 row weights (None stays None)."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be an array of non-negative numbers, one per row of X") from None
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have one weight per row of X: shape ({n},), got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must hold finite non-negative numbers (rows of weight 0 are left out)")
    if not (w > 0).any():
        raise ValueError("sample_weight is zero on every row; at least one row needs a positive weight")
    return w


def _as_inputs(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, list]:
    """Boolean matrix, boolean target and the attribute keys formulas should use."""
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got a sparse array of shape {X.shape}")
        X = X.toarray()               # 0/1 values are checked below; the search packs them into bits
    if hasattr(X, "bits") and hasattr(X, "attributes") and hasattr(X, "to_dense"):
        matrix = np.asarray(X.to_dense(), dtype=bool)
        keys: list = [str(a) for a in X.attributes]
    elif hasattr(X, "columns") and hasattr(X, "iloc"):
        keys = [str(c) for c in X.columns]
        if len(set(keys)) != len(keys):
            raise ValueError("X has duplicate column names; formulas could not name attributes")
        matrix = as_boolean_matrix(X.to_numpy(), labels=keys)
    else:
        matrix = as_boolean_matrix(X)
        keys = list(range(matrix.shape[1]))
    return matrix, as_boolean_target(y, matrix.shape[0]), keys


# ------------------------------------------------------------------------ formula specs
# A candidate premise is described by a small tuple ("spec") and turned into a Formula only
# when it is returned: ("lit", r, negated), ("const", value, r), ("f2", a, b, shape),
# ("f3", a, b, c, shape), ("op", "and"|"or", spec, spec); r, a, b, c index representatives.

class _Builder:
    def __init__(self, prep: PreparedAttributes, keys: list, connectives: tuple[str, ...] = CONNECTIVES):
        self.prep = prep
        self.keys = keys
        self.connectives = connectives

    def literal(self, r: int, negated: bool) -> Formula:
        comp = int(self.prep.complement[r])
        if negated and comp >= 0:
            return Literal(self.keys[comp])
        return Literal(self.keys[int(self.prep.columns[r])], negated=negated)

    def build(self, spec: tuple) -> Formula:
        kind = spec[0]
        if kind == "lit":
            return self.literal(spec[1], spec[2])
        if kind == "const":
            lit = self.literal(spec[2], False)
            return And(lit, ~lit) if not spec[1] else Or(lit, ~lit)
        if kind == "f2":
            return pair_shapes(self.prep.negations, self.connectives)[spec[3]].build(self.literal, spec[1:3])
        if kind == "f3":
            return triple_shapes(self.prep.negations, self.connectives)[spec[4]].build(self.literal, spec[1:4])
        if kind == "shape":
            return spec[2].build(self.literal, spec[1])
        left, right = self.build(spec[2]), self.build(spec[3])
        return And(left, right) if spec[1] == "and" else Or(left, right)


# --------------------------------------------------------------------------- result list
class _TopList:
    """The best ``k`` distinct extents seen so far (smallest premise kept per extent)."""

    def __init__(self, k: int):
        self.k = k
        self.entries: dict[bytes, list] = {}   # key -> [score, size, tp, fp, spec]

    def threshold(self) -> float:
        if len(self.entries) < self.k:
            return -np.inf
        return min(e[0] for e in self.entries.values())

    def best(self) -> float:
        return max((e[0] for e in self.entries.values()), default=-np.inf)

    def offer(self, scores, sizes, tp, fp, extents_p, extents_n, specs) -> None:
        """Merge candidates (already sorted best first is not required)."""
        order = np.lexsort((np.asarray(sizes), -np.asarray(scores)))
        for i in order:
            score = float(scores[i])
            if score <= self.threshold():
                break
            key = extents_p[i].tobytes() + extents_n[i].tobytes()
            old = self.entries.get(key)
            if old is not None:
                if sizes[i] < old[1]:
                    old[1], old[4] = int(sizes[i]), specs[i]
                continue
            self.entries[key] = [score, int(sizes[i]), tp[i].item(), fp[i].item(), specs[i]]
            if len(self.entries) > self.k:
                worst = min(self.entries, key=lambda kk: (self.entries[kk][0], -self.entries[kk][1]))
                del self.entries[worst]

    def sorted(self) -> list[list]:
        return sorted(self.entries.values(), key=lambda e: (-e[0], e[1]))


def pareto_indices(tp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """Indices of the points not dominated on the (tp up, fp down) plane, one per distinct point.

    A point is dominated when another has ``tp >=`` and ``fp <=`` with one strict. Returned by
    increasing ``fp`` (and increasing ``tp``).

    Examples
    --------
    >>> pareto_indices(np.array([1, 3, 2, 3]), np.array([0, 5, 5, 2])).tolist()
    [0, 3]
    """
    tp = np.asarray(tp)
    fp = np.asarray(fp)
    if not len(tp):
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((-tp, fp))
    best_before = np.maximum.accumulate(np.concatenate([[-1], tp[order][:-1]]))
    return order[tp[order] > best_before]


class _Fronts:
    """Per premise size, the non-dominated (tp, fp) premises among those offered."""

    def __init__(self):
        self.fronts: dict[int, tuple[np.ndarray, np.ndarray, list]] = {}

    def add(self, size: int, tp, fp, specs_of) -> None:
        """Merge candidates; ``specs_of(indices)`` gives the specs of the chosen ones."""
        tp = np.asarray(tp).ravel()
        fp = np.asarray(fp).ravel()
        keep = pareto_indices(tp, fp)
        new = (tp[keep], fp[keep], list(specs_of(keep)))
        if size in self.fronts:
            old = self.fronts[size]
            tp2 = np.concatenate([old[0], new[0]])
            fp2 = np.concatenate([old[1], new[1]])
            specs = old[2] + new[2]
            keep = pareto_indices(tp2, fp2)
            new = (tp2[keep], fp2[keep], [specs[i] for i in keep])
        self.fronts[size] = new


def _select(scores: np.ndarray, threshold: float, limit: int) -> np.ndarray:
    """Indices of the (at most ``limit``) best scores above ``threshold``."""
    idx = np.flatnonzero(scores > threshold)
    if len(idx) > limit:
        part = np.argpartition(-scores[idx], limit - 1)[:limit]
        idx = idx[part]
    return idx


# ------------------------------------------------------------------------------ search
class _Search:
    """State of one search: prepared attributes, objective, result list, statistics."""

    def __init__(self, X, y, keys, max_size, objective, top_k, negations, memory, progress, pareto=False,
                 size4_method="cells", backend="numba", device=None, sample_weight=None, connectives=CONNECTIVES,
                 size_cost=0.0, time_limit=None):
        self.n, self.m = X.shape
        self.connectives = tuple(connectives)
        self.mode = 0 if len(self.connectives) == 2 else (1 if self.connectives == ("and",) else 2)
        self.size_cost = float(size_cost)
        self.started = time.perf_counter()
        self.deadline = None if time_limit is None else self.started + float(time_limit)
        self.complete = True
        self.size4_method = size4_method
        self.max_size = max_size
        self.objective = objective
        self.top_k = top_k
        self.memory = memory
        self.progress = progress
        self.keys = keys
        self.prep = prepare_attributes(X, y, negations, sample_weight)
        nv = int((~self.prep.constant).sum())
        if max_size >= 4:
            if size4_method == "extents":
                self._check_size4_memory()
            elif backend == "numba":
                self._check_size4_cells_memory(nv)
        self.estimate = estimate_search_cost(self.prep, max_size, size4_method,
                                             rooms=max_size >= 4 and self._size4_cells_bytes(nv, True) <= memory)
        if self.estimate.memory_bytes > memory:
            raise PremiseSearchMemoryError(
                f"{self.estimate}: more than memory_limit={memory / 1e9:.2f} GB; raise memory_limit, use fewer "
                "attributes (a coarser binarizer) or a smaller max_size")
        self.counter = None          # the torch backend's scanner (sizes 3 and 4), when chosen
        if backend == "torch" and max_size >= 3:
            from logicrules.fca.search_torch import TorchCounter

            p = self.prep
            v = np.flatnonzero(~p.constant)
            weights = (_position_weights(p.seg_p, p.wseg_p, p.valid_p), _position_weights(p.seg_n, p.wseg_n, p.valid_n)) \
                if p.weighted else None
            self.counter = TorchCounter(p.bits_p[v], p.bits_n[v], _n_bits(p, "p"), _n_bits(p, "n"), device=device,
                                        memory_limit=memory, row_weights=weights)
        self.builder = _Builder(self.prep, keys, self.connectives)
        self.top = _TopList(top_k)
        self.vars = np.flatnonzero(~self.prep.constant)           # representatives in pairs/triples
        self.stats = SearchStatistics(
            n_objects=self.n, n_attributes=self.m, n_distinct_attributes=len(self.prep.columns),
            objective=objective.name, negations=negations, connectives=self.connectives, estimate=self.estimate,
        )
        n_lit = self.m * (2 if negations else 1)
        self.premise_counts = count_premises(n_lit, max_size)
        self.seeds: list[tuple] = []    # a few good size-2 premises to seed size 3 greedily
        self.fronts = _Fronts() if pareto else None

    # -- helpers -----------------------------------------------------------------------
    def _scores(self, tp: np.ndarray, fp: np.ndarray, size: Any = 0) -> np.ndarray:
        """The score of count arrays: the objective minus ``size_cost`` per literal (NaN: -inf)."""
        P, N = self.prep.n_pos, self.prep.n_neg
        tp = np.asarray(tp)
        fp = np.asarray(fp)
        values = np.asarray(self.objective(tp, fp, P - tp, N - fp), dtype=np.float64)
        values = np.broadcast_to(values, np.broadcast(tp, fp).shape)
        if self.size_cost:
            values = values - self.size_cost * np.asarray(size, dtype=np.float64)
        return np.where(np.isnan(values), -np.inf, values)

    def _filter(self, threshold: float, size: int):
        """The objective's linear filter for premises of ``size`` beating ``threshold`` (None: none can)."""
        return self.objective.filter(threshold + self.size_cost * size, self.prep.n_pos, self.prep.n_neg,
                                     integer_counts=not self.prep.weighted)

    def _out_of_time(self) -> bool:
        """Whether ``time_limit`` has passed (the search then stops with what it has, incomplete)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.complete = False
        return not self.complete

    def _count(self, bits_p: np.ndarray, bits_n: np.ndarray):
        """``(tp, fp)`` of packed extents (weighted sums with row weights)."""
        return self.prep.count_p(bits_p), self.prep.count_n(bits_n)

    def _kernel_weights(self) -> tuple:
        p = self.prep
        return p.seg_p, p.wseg_p, p.seg_n, p.wseg_n

    def _lit_bits(self, r: np.ndarray, negated: np.ndarray):
        """Bits (k, W) of literals (representative r, polarity) over positives and negatives."""
        p = self.prep
        bp = p.bits_p[r].copy()
        bn = p.bits_n[r].copy()
        neg = np.asarray(negated, dtype=bool)
        if neg.any():
            bp[neg] = ~bp[neg] & p.valid_p
            bn[neg] = ~bn[neg] & p.valid_n
        return bp, bn

    def _cells_bits(self, variables: np.ndarray):
        """Cell bitsets (k, 2**v, W) of the truth tables of ``variables`` (k, v)."""
        k, v = variables.shape
        out_p = []
        out_n = []
        for cell in range(2**v):
            values = [(cell >> (v - 1 - i)) & 1 for i in range(v)]
            bp = bn = None
            for i in range(v):
                lp, ln = self._lit_bits(variables[:, i], np.full(k, values[i] == 0))
                bp, bn = (lp, ln) if bp is None else (bp & lp, bn & ln)
            out_p.append(bp)
            out_n.append(bn)
        return np.stack(out_p, axis=1), np.stack(out_n, axis=1)

    def _extents_from_cells(self, cells_p, cells_n, masks: np.ndarray):
        """OR of the cells selected by ``masks`` (k,) for each row of cells (k, c, W)."""
        c = cells_p.shape[1]
        sel = ((masks[:, None] >> np.arange(c)[None, :]) & 1).astype(bool)
        ep = np.bitwise_or.reduce(np.where(sel[:, :, None], cells_p, np.uint64(0)), axis=1)
        en = np.bitwise_or.reduce(np.where(sel[:, :, None], cells_n, np.uint64(0)), axis=1)
        return ep, en

    def _offer_ranked(self, scores, sizes, tp, fp, materialize) -> None:
        """Offer candidates best first, in growing batches, until none can enter the list.

        ``materialize(indices) -> (bits_p, bits_n, specs)`` builds extents and specs of the chosen
        candidates only. Batches continue past duplicates of extents already listed, so the
        ``top_k`` distinct extents are found however many premises share an extent.
        """
        scores = np.asarray(scores).ravel()
        sizes = np.broadcast_to(np.asarray(sizes), scores.shape)
        idx = np.flatnonzero(scores > self.top.threshold())
        if not len(idx):
            return
        order = idx[np.lexsort((sizes[idx], -scores[idx]))]
        start, batch = 0, 4 * self.top_k + 8
        while start < len(order) and scores[order[start]] > self.top.threshold():
            chunk = order[start:start + batch]
            ep, en, specs = materialize(chunk)
            self.top.offer(scores[chunk], sizes[chunk], tp[chunk], fp[chunk], ep, en, specs)
            start += len(chunk)
            batch *= 2

    def _check_buffer(self, size: int, need: int, what: str) -> None:
        """Refuse a candidate buffer of ``need`` bytes larger than ``memory_limit``."""
        if need > self.memory:
            raise PremiseSearchMemoryError(
                f"size-{size} candidate buffer needs {need / 1e9:.2f} GB > memory_limit; the objective's "
                f"threshold lets too many {what} through (raise memory_limit or lower top_k)")

    def _tick(self, size, started, combos, tested, new, counted=None) -> None:
        self.stats.sizes.append(SizeStatistics(
            size=size, premises=self.premise_counts[size - 1], extent_combinations=int(combos),
            counted=int(tested if counted is None else counted), tested=int(tested), new_extents=None if new is None else int(new),
            kept=len(self.top.entries), best_score=float(self.top.best()),
            seconds=time.perf_counter() - started,
        ))

    # -- size 1 ------------------------------------------------------------------------
    def size1(self, count_extents: bool) -> None:
        started = time.perf_counter()
        p = self.prep
        r = np.arange(len(p.columns))
        neg = np.zeros(len(r), dtype=bool)
        if p.negations:
            r = np.concatenate([r, r])
            neg = np.concatenate([neg, np.ones(len(p.columns), dtype=bool)])
        tp = np.where(neg, p.n_pos - p.tp[r], p.tp[r])
        fp = np.where(neg, p.n_neg - p.fp[r], p.fp[r])
        scores = self._scores(tp, fp, 1)
        self._offer_ranked(scores, 1, tp, fp, lambda ix: (
            *self._lit_bits(r[ix], neg[ix]), [("lit", int(r[i]), bool(neg[i])) for i in ix]))
        if self.fronts is not None:
            self.fronts.add(1, tp, fp, lambda ix: [("lit", int(r[i]), bool(neg[i])) for i in ix])
        new = None
        if count_extents:
            # distinct literal extents: representatives are distinct up to complement; constants
            # of both polarities may coincide with nothing else
            new = len(r)
        self._tick(1, started, len(r), len(r), new)

    # -- size 2 ------------------------------------------------------------------------
    def size2(self, count_extents: bool) -> None:
        started = time.perf_counter()
        p = self.prep
        v = self.vars
        shapes = pair_shapes(p.negations, self.connectives)
        M = shape_matrix(shapes, 2)                     # (F, 4), cell j = 2 va + vb
        masks2 = np.array([sh.mask for sh in shapes], dtype=np.int64)
        self.pair_p = _gram(p.bits_p[v], _n_bits(p, "p"), p.seg_p, p.wseg_p, p.weighted)
        self.pair_n = _gram(p.bits_n[v], _n_bits(p, "n"), p.seg_n, p.wseg_n, p.weighted)
        tpv, fpv = p.tp[v], p.fp[v]
        nv = len(v)
        tested = 0
        seed_pool: list[tuple[float, tuple]] = []
        hashes = []
        count_extents = count_extents and nv * (nv - 1) // 2 * len(shapes) <= _MAX_COUNTED_PAIRS
        if count_extents:
            single_h, total_h, pair_h = _extent_hashes(p.bits_p[v], p.valid_p, _n_bits(p, "p"), p.bits_n[v],
                                                       p.valid_n, _n_bits(p, "n"))
        block = max(1, int(2e6 // max(nv * len(shapes), 1)))
        for start in range(0, nv, block):
            if self._out_of_time():
                break
            a = np.arange(start, min(nv, start + block))
            ai, bi = np.nonzero(np.arange(nv)[None, :] > a[:, None])
            ai = a[ai]
            if not len(ai):
                continue
            pp = self.pair_p[ai, bi].astype(self.pair_p.dtype if p.weighted else np.int64)
            pn = self.pair_n[ai, bi].astype(self.pair_n.dtype if p.weighted else np.int64)
            cells_p = np.stack([p.n_pos - tpv[ai] - tpv[bi] + pp, tpv[bi] - pp, tpv[ai] - pp, pp], axis=1)
            cells_n = np.stack([p.n_neg - fpv[ai] - fpv[bi] + pn, fpv[bi] - pn, fpv[ai] - pn, pn], axis=1)
            tp = (cells_p @ M.T).ravel()                         # (k * F,)
            fp = (cells_n @ M.T).ravel()
            flat = self._scores(tp, fp, 2)
            tested += flat.size
            # the 8 best so far; a block only offers what beats the 8th (stable sort: ties keep the first)
            seed = _select(flat, seed_pool[7][0] if len(seed_pool) >= 8 else -np.inf, 8)
            seed_pool.extend(
                (float(flat[j]), ("f2", int(v[ai[j // len(M)]]), int(v[bi[j // len(M)]]), int(j % len(M))))
                for j in seed)
            seed_pool.sort(key=lambda s: -s[0])
            del seed_pool[8:]

            def materialize(idx, ai=ai, bi=bi, nf=len(M)):
                rows, f = idx // nf, idx % nf
                variables = np.stack([v[ai[rows]], v[bi[rows]]], axis=1)
                cp_, cn_ = self._cells_bits(variables)
                ep, en = self._extents_from_cells(cp_, cn_, masks2[f])
                return ep, en, [("f2", int(a), int(b), int(ff)) for (a, b), ff in zip(variables, f)]

            self._offer_ranked(flat, 2, tp, fp, materialize)
            if self.fronts is not None:
                nf = len(M)
                self.fronts.add(2, tp, fp, lambda ix: [
                    ("f2", int(v[ai[j // nf]]), int(v[bi[j // nf]]), int(j % nf)) for j in ix])
            if count_extents:
                hab = np.stack([pair_h[k][ai, bi] for k in range(2)], axis=1)   # (k, 2)
                ha, hb = single_h[ai], single_h[bi]
                cells_h = np.stack([total_h - ha - hb + hab, hb - hab, ha - hab, hab], axis=1)  # (k,4,2)
                hashes.append(np.einsum("kcs,fc->kfs", cells_h, M.astype(np.float64)).reshape(-1, 2))
        self._constants(count_extents)
        self.seeds = [s[1] for s in seed_pool]
        new = None
        if count_extents:
            lit_h = self._literal_hashes(single_h, total_h)
            consts = [np.array([[0.0, 0.0], total_h])] if self.prep.negations else []
            all_h = np.concatenate(hashes + consts) if hashes or consts else np.zeros((0, 2))
            uniq = _sorted_unique(_hash_key(all_h))
            known = _sorted_unique(_hash_key(lit_h))
            pos = np.minimum(np.searchsorted(known, uniq), max(len(known) - 1, 0))
            new = len(uniq) - (int((known[pos] == uniq).sum()) if len(known) else 0)
        n_shapes = len(shapes)
        self._tick(2, started, nv * (nv - 1) // 2 * n_shapes, tested, new)

    def _literal_hashes(self, single_h, total_h) -> np.ndarray:
        p = self.prep
        h = [single_h]
        if p.negations:
            h.append(total_h[None, :] - single_h)
        consts = np.flatnonzero(p.constant)
        out = np.concatenate(h) if h else np.zeros((0, 2))
        if len(consts):
            empties = (p.tp[consts] + p.fp[consts]) == 0
            extra = []
            if empties.any() or (p.negations and (~empties).any()):
                extra.append([0.0, 0.0])
            if (~empties).any() or (p.negations and empties.any()):
                extra.append(list(total_h))
            out = np.concatenate([out, np.array(extra).reshape(-1, 2)])
        return out

    def _constants(self, count_extents: bool) -> None:
        """With negations, ``a AND NOT a`` (empty) and ``a OR NOT a`` (all) are premises of size 2."""
        p = self.prep
        if not p.negations or not len(p.columns):
            return
        r = int(self.vars[0]) if len(self.vars) else 0
        tp = np.array([0, p.n_pos])
        fp = np.array([0, p.n_neg])
        scores = self._scores(tp, fp, 2)
        if self.mode:       # a AND NOT a (conjunctions) or a OR NOT a (disjunctions) only
            keep = [0] if self.mode == 1 else [1]
            tp, fp, scores = tp[keep], fp[keep], scores[keep]
        W = p.bits_p.shape[1], p.bits_n.shape[1]
        ep = np.stack([np.zeros(W[0], np.uint64), p.valid_p])
        en = np.stack([np.zeros(W[1], np.uint64), p.valid_n])
        specs = [("const", False, r), ("const", True, r)]
        if self.mode:
            ep, en, specs = ep[keep], en[keep], [specs[i] for i in keep]
        self.top.offer(scores, np.full(len(scores), 2), tp, fp, ep, en, specs)
        if self.fronts is not None:
            self.fronts.add(2, tp, fp, lambda ix: [specs[i] for i in ix])

    # -- size 3 ------------------------------------------------------------------------
    def _literals(self):
        """Bits over positives and negatives and specs of every literal of the variables."""
        p = self.prep
        r = self.vars
        neg = np.zeros(len(r), dtype=bool)
        if p.negations:
            r = np.concatenate([r, r])
            neg = np.concatenate([neg, np.ones(len(self.vars), dtype=bool)])
        lp, ln = self._lit_bits(r, neg)
        return lp, ln, [("lit", int(a), bool(b)) for a, b in zip(r, neg)]

    def _extend_greedily(self, ep, en, spec, size: int, up_to: int, literals) -> None:
        """Offer ``premise AND/OR literal`` for every literal, then extend the best one, up to ``up_to``.

        Greedy premises are real premises of their size, so they raise the running threshold of
        the exhaustive scans early (the scans stay exact whatever the threshold is).
        """
        lp, ln, lit_specs = literals
        while size < up_to and len(lp):
            size += 1
            best = None
            for op in self.connectives:
                bp = (lp & ep) if op == "and" else (lp | ep)
                bn = (ln & en) if op == "and" else (ln | en)
                tp, fp = self._count(bp, bn)
                scores = self._scores(tp, fp, size)

                def specs_of(ix, op=op):
                    return [("op", op, spec, lit_specs[i]) for i in ix]

                self._offer_ranked(scores, size, tp, fp, lambda ix, bp=bp, bn=bn, specs_of=specs_of: (
                    bp[ix], bn[ix], specs_of(ix)))
                if self.fronts is not None:
                    self.fronts.add(size, tp, fp, specs_of)
                j = int(np.argmax(scores))
                if best is None or scores[j] > best[0]:
                    best = (scores[j], bp[j:j + 1], bn[j:j + 1], specs_of([j])[0])
            _, ep, en, spec = best

    def _seed_starts(self) -> list[tuple]:
        """``(bits_p, bits_n, spec, size)`` of the size-2 seeds (good premises kept by size 2)."""
        shapes = pair_shapes(self.prep.negations, self.connectives)
        starts = []
        for spec in self.seeds:
            cp_, cn_ = self._cells_bits(np.array([[spec[1], spec[2]]]))
            starts.append((*self._extents_from_cells(cp_, cn_, np.array([shapes[spec[3]].mask])), spec, 2))
        return starts

    def _seed_size3(self) -> None:
        """Greedy size-3 premises (good size-2 premise AND/OR any literal) raise the threshold early."""
        if not len(self.vars):
            return
        literals = self._literals()
        for ep, en, spec, size in self._seed_starts():
            self._extend_greedily(ep, en, spec, size, 3, literals)

    def _seed_size4(self) -> None:
        """Greedy size-4 premises from the listed premises of size <= 3 and the size-2 seeds."""
        if not len(self.vars):
            return
        literals = self._literals()
        wp = self.prep.bits_p.shape[1]
        starts = []
        for key, entry in list(self.top.entries.items()):      # key: the extent's bits, both classes
            bits = np.frombuffer(key, dtype=np.uint64)
            starts.append((bits[None, :wp].copy(), bits[None, wp:].copy(), entry[4], entry[1]))
        for ep, en, spec, size in starts + self._seed_starts():
            self._extend_greedily(ep, en, spec, size, 4, literals)

    def size3(self, count_extents: bool) -> None:
        started = time.perf_counter()
        p = self.prep
        self._seed_size3()
        v = self.vars
        nv = len(v)
        shapes = triple_shapes(p.negations, self.connectives)
        M = shape_matrix(shapes, 3)
        masks = np.array([s.mask for s in shapes], dtype=np.int64)
        combos = nv * (nv - 1) * (nv - 2) // 6 * len(shapes)
        bits_p = np.ascontiguousarray(p.bits_p[v])
        bits_n = np.ascontiguousarray(p.bits_n[v])
        tpv, fpv = p.tp[v], p.fp[v]
        tested = 0
        counted = 0
        new_keys: set[bytes] = set()
        pending = list(range(max(nv - 2, 0)))
        cap = 1024
        chunk = 32 if self.counter is None else 256
        if self.deadline is not None:
            chunk = 2 if self.counter is None else 16      # check the clock often
        bar = _progress_bar(self.progress, len(pending), "size 3")
        filt = None
        filt_for = None
        while pending and not self._out_of_time():
            threshold = self.top.threshold()
            if filt_for != threshold:
                filt, w_single, w_pair, w_total = self._filter_weights(threshold, tpv, fpv, 3)
                filt_for = threshold
                if filt is None:
                    break
                elim, elim_t, elim_const, room = self._proximity_pruning(filt, w_single, w_pair, w_total)
                if self.counter is None:        # the torch scan derives its own on the device
                    least_room = np.full((nv, nv + 1), np.inf)
                    least_room[:, :nv] = np.minimum.accumulate(room[:, ::-1], axis=1)[:, ::-1]
            a_list = np.array(pending[:chunk], dtype=np.int64)
            if self.counter is not None:
                triples, n_counted = self.counter.scan_triples(filt.alpha, filt.beta, w_single, w_pair, w_total,
                                                               filt.threshold, p.negations, a_list, elim, elim_const,
                                                               room, return_counted=True, mode=self.mode)
                overflow = np.zeros(len(a_list), dtype=bool)
                counted += n_counted * len(shapes)
            else:
                self._check_buffer(3, len(a_list) * cap * 2 * 4, "triples")
                out_bc = np.zeros((len(a_list), cap, 2), dtype=np.int32)
                out_count = np.zeros(len(a_list), dtype=np.int64)
                out_counted = np.zeros(len(a_list), dtype=np.int64)
                with _dynamic_schedule():
                    kernels.scan_triples(bits_p, bits_n, *self._kernel_weights(), filt.alpha, filt.beta, w_single,
                                         w_pair, w_total, filt.threshold, p.negations, self.mode, elim, elim_t,
                                         elim_const, room, least_room, a_list, cap, out_bc, out_count, out_counted)
                overflow = out_count > cap
                counted += int(out_counted[~overflow].sum()) * len(shapes)
                kept = np.where(overflow, 0, out_count)
                bc = np.concatenate([out_bc[i, :kept[i]] for i in range(len(a_list))]) if kept.sum() else \
                    np.zeros((0, 2), np.int32)
                triples = np.column_stack([np.repeat(a_list, kept), bc]).astype(np.int64) if kept.sum() \
                    else np.zeros((0, 3), np.int64)
            tested += len(triples) * len(shapes)
            if count_extents and tested > _MAX_COUNTED_TRIPLES * len(shapes):
                count_extents = False       # too many to materialize: report None
            self._score_triples(triples, M, masks, v, new_keys if count_extents else None)
            redo = [int(a) for a, o in zip(a_list, overflow) if o]
            pending = redo + pending[len(a_list):]
            if redo:
                # the threshold rose with the survivors just scored; if it did not, make room
                if self.top.threshold() == threshold:
                    cap *= 4
                chunk = max(1, chunk // 2)
            if bar is not None:
                bar.update(len(a_list) - len(redo))
        if bar is not None:
            bar.close()
        self._tick(3, started, combos, tested, len(new_keys) if count_extents else None, counted)

    def _filter_weights(self, threshold, tpv, fpv, size=0):
        """The linear filter of premises of ``size`` beating ``threshold``, and its weights of single attributes, pairs
        and all rows.

        Returns ``(filter, w_single, w_pair, w_total)``, or four Nones when no linear filter
        exists for the objective at this threshold.
        """
        filt = self._filter(threshold, size)
        if filt is None:
            return None, None, None, None
        p = self.prep
        w_single = filt.alpha * tpv + filt.beta * fpv
        w_pair = filt.alpha * self.pair_p + filt.beta * self.pair_n.astype(np.float64)
        w_total = filt.alpha * p.n_pos + filt.beta * p.n_neg
        return filt, w_single, w_pair, w_total

    def _proximity_pruning(self, filt, w_single, w_pair, w_total):
        """Substitution bounds and rooms for the exact proximity pruning of the scans.

        For attributes ``x, y`` let ``M2(x, y)`` be the best filter value ``L = alpha tp + beta
        fp`` of a premise of size <= 2 over ``{x, y}`` or a constant, and ``room(x, y) =
        threshold - M2(x, y)``. Substituting ``c := z`` in a premise ``f(a, b, c)``, with ``z``
        one of ``a, b`` (or their negations, with negations) or a constant, gives a formula of
        at most 3 leaves over ``{a, b}``: its extent is that of a premise of size <= 2 over
        ``{a, b}`` or a constant (only XOR/XNOR need 4 leaves; without negations it is
        monotone), so ``L(f) <= M2(a, b) + gain``. The gain is bounded with monotonicity: a
        read-once ``f`` is monotone in a positive literal ``c``, so on rows with ``c = 1, z = 0``
        it can only gain where ``f`` holds (a row of weight ``w > 0``) and on rows with ``c = 0,
        z = 1`` only where it does not (``w < 0``); for a negated ``c`` the two sets swap.
        ``elim[x, y]`` bounds the gain of eliminating ``x`` by ``y`` (both polarities of ``x``
        with negations, and the better of ``y``, ``NOT y``), ``elim_const[x]`` by a constant.
        When the bound is below ``room(a, b)`` the triple cannot pass the filter; the same for
        ``a`` and ``b`` in the role of ``c``. Returns ``(elim, elim.T, elim_const, room)``.
        """
        p = self.prep
        nv = len(w_single)
        alpha, beta = filt.alpha, filt.beta
        scale = abs(alpha) * p.n_pos + abs(beta) * p.n_neg + 1.0
        tpv, fpv = p.tp[self.vars], p.fp[self.vars]
        if nv < 3:
            zeros = np.zeros((nv, nv))
            return zeros, zeros, np.zeros(nv), np.full((nv, nv), -np.inf)

        def gains(tp_only_x, fp_only_x, tp_only_z, fp_only_z):
            """Gain bounds of replacing a positive / a negated literal x by z (rows x != z)."""
            up = max(alpha, 0.0) * tp_only_x + max(beta, 0.0) * fp_only_x \
                + max(-alpha, 0.0) * tp_only_z + max(-beta, 0.0) * fp_only_z
            down = max(alpha, 0.0) * tp_only_z + max(beta, 0.0) * fp_only_z \
                + max(-alpha, 0.0) * tp_only_x + max(-beta, 0.0) * fp_only_x
            return up, down

        room = np.empty((nv, nv))
        elim = np.empty((nv, nv))
        negated = w_total - w_single
        # row blocks of about 2**18 entries: the temporaries stay small whatever nv is
        step = max(1, (1 << 18) // nv)
        for r0 in range(0, nv, step):
            rows = slice(r0, min(nv, r0 + step))
            wp_ = w_pair[rows]
            ws_ = w_single[rows, None]
            c11 = wp_
            c10 = ws_ - wp_
            c01 = w_single[None, :] - wp_
            c00 = w_total - ws_ - w_single[None, :] + wp_
            best = np.maximum(np.maximum(ws_, w_single[None, :]), max(0.0, w_total))
            best = np.maximum(best, np.maximum(c11, c11 + c10 + c01))
            if p.negations:
                best = np.maximum(best, np.maximum(negated[rows, None], negated[None, :]))
                cells_max = np.maximum(np.maximum(c00, c01), np.maximum(c10, c11))
                cells_min = np.minimum(np.minimum(c00, c01), np.minimum(c10, c11))
                best = np.maximum(best, np.maximum(cells_max, w_total - cells_min))
            room[rows] = filt.threshold - best - 1e-9 * scale
            pp, pn = self.pair_p[rows], self.pair_n[rows]
            up, down = gains(tpv[rows, None] - pp, fpv[rows, None] - pn,     # rows x = 1, z = 0 (x: row)
                             tpv[None, :] - pp, fpv[None, :] - pn)
            if p.negations:
                # x replaced by NOT z: rows x = 1, NOT z = 0 are x AND z; rows x = 0, z = 0 the rest
                none_p = p.n_pos - tpv[rows, None] - tpv[None, :] + pp
                none_n = p.n_neg - fpv[rows, None] - fpv[None, :] + pn
                up_c, down_c = gains(pp, pn, none_p, none_n)
                elim[rows] = np.minimum(np.maximum(up, down), np.maximum(up_c, down_c))
            else:
                elim[rows] = up
        zero_p, zero_n = gains(tpv, fpv, 0, 0)                                   # x := false
        one_p, one_n = gains(0, 0, p.n_pos - tpv, p.n_neg - fpv)                 # x := true
        elim_const = np.minimum(np.maximum(zero_p, zero_n), np.maximum(one_p, one_n)) if p.negations \
            else np.minimum(zero_p, one_p)
        return elim, np.ascontiguousarray(elim.T), np.asarray(elim_const, dtype=np.float64), room

    def _score_triples(self, triples: np.ndarray, M, masks, v, new_keys) -> None:
        """Exact scores of all read-once premises over the given triples (positions in ``v``).

        One popcount of ``a AND b AND c`` per class gives the 8 cells by inclusion-exclusion
        (as in the kernel); extents are built only for the premises that enter the result list.
        ``new_keys`` (a set, or None) collects the distinct extents of every scored premise.
        """
        if not len(triples):
            return
        p = self.prep
        bp, bn = p.bits_p[v], p.bits_n[v]
        tpv, fpv = p.tp[v], p.fp[v]
        for start in range(0, len(triples), 65536):
            t = triples[start:start + 65536]
            a, b, c = t[:, 0], t[:, 1], t[:, 2]
            cells = []
            dtype = np.float64 if p.weighted else np.int64
            for bits, single, pair, total, count in ((bp, tpv, self.pair_p, p.n_pos, p.count_p),
                                                     (bn, fpv, self.pair_n, p.n_neg, p.count_n)):
                t3 = count(bits[a] & bits[b] & bits[c])
                sa, sb, sc = single[a], single[b], single[c]
                ab, ac, bc = (pair[a, b].astype(dtype), pair[a, c].astype(dtype), pair[b, c].astype(dtype))
                cells.append(np.stack([
                    total - sa - sb - sc + ab + ac + bc - t3, sc - ac - bc + t3, sb - ab - bc + t3, bc - t3,
                    sa - ab - ac + t3, ac - t3, ab - t3, t3], axis=1))            # cell k = 4 va + 2 vb + vc
            tp = (cells[0] @ M.T).ravel()
            fp = (cells[1] @ M.T).ravel()
            flat = self._scores(tp, fp, 3)
            variables = v[t]
            if new_keys is not None:
                cp_, cn_ = self._cells_bits(variables)
                rows, f = np.divmod(np.arange(flat.size), len(M))
                ep, en = self._extents_from_cells(cp_[rows], cn_[rows], masks[f])
                new_keys.update(ep[i].tobytes() + en[i].tobytes() for i in range(len(ep)))

            def materialize(idx, variables=variables, nf=len(M)):
                rows, f = np.divmod(idx, nf)
                cp_, cn_ = self._cells_bits(variables[rows])
                ep, en = self._extents_from_cells(cp_, cn_, masks[f])
                return ep, en, [("f3", int(variables[r, 0]), int(variables[r, 1]), int(variables[r, 2]), int(ff))
                                for r, ff in zip(rows, f)]

            self._offer_ranked(flat, 3, tp, fp, materialize)
            if self.fronts is not None:
                nf = len(M)
                self.fronts.add(3, tp, fp, lambda ix: [
                    ("f3", int(variables[j // nf, 0]), int(variables[j // nf, 1]), int(variables[j // nf, 2]),
                     int(j % nf)) for j in ix])

    # -- size 4 ------------------------------------------------------------------------
    def _triple_count_dtype(self):
        p = self.prep
        if p.weighted:
            return np.float64
        return np.int16 if max(p.n_pos, p.n_neg) < 2**15 else np.int32

    def _size4_cells_bytes(self, nv: int, rooms: bool) -> int:
        """Memory of size 4 by cells: 3-way counts per class (and the triples' rooms), pair tables."""
        per_triple = 2 * np.dtype(self._triple_count_dtype()).itemsize + (4 if rooms else 0)
        return per_triple * (nv * (nv - 1) * (nv - 2) // 6) + 104 * nv * nv

    def _check_size4_cells_memory(self, nv: int) -> None:
        """Size 4 by cells keeps the 3-way counts of all attribute triples: refuse if they cannot fit."""
        estimate = self._size4_cells_bytes(nv, rooms=False)
        if estimate > self.memory:
            raise PremiseSearchMemoryError(
                f"size 4 keeps the 3-way counts of every attribute triple: about {estimate / 1e9:.2f} GB "
                f"for {nv} distinct non-constant attributes, more than memory_limit={self.memory / 1e9:.2f} GB. "
                "Use max_size=3, fewer attributes (e.g. a coarser binarizer), or raise memory_limit "
                f"(time also grows as m^4/24 attribute quadruples: {nv**4 / 24:.2g} here).")

    def size4(self, count_extents: bool) -> None:
        if self.size4_method == "extents":
            self.size4_extents()
        else:
            self.size4_cells(count_extents)

    def _score_shapes(self, variables: np.ndarray, shapes, sizes: np.ndarray, new_keys: set | None = None) -> int:
        """Exact scores of every shape over each row of ``variables`` (representatives, (k, v)).

        Cells are counted from the cell bitsets; extents are built only for premises entering the
        result list, and for every scored premise when ``new_keys`` (a set collecting distinct
        extents) is given. Returns the number of premises scored.
        """
        if not len(variables):
            return 0
        M = shape_matrix(shapes, variables.shape[1]).astype(np.float64)
        masks = np.array([s.mask for s in shapes], dtype=np.int64)
        nf = len(shapes)
        scored = 0
        step = max(1, 32768 // 2 ** variables.shape[1])
        for start in range(0, len(variables), step):
            var = variables[start:start + step]
            cp_, cn_ = self._cells_bits(var)
            cells_p, cells_n = self._count(cp_, cn_)
            tp = (cells_p @ M.T).ravel()
            fp = (cells_n @ M.T).ravel()
            if not self.prep.weighted:
                tp, fp = np.rint(tp).astype(np.int64), np.rint(fp).astype(np.int64)
            size = np.tile(sizes, len(var))
            flat = self._scores(tp, fp, size)
            scored += flat.size
            if new_keys is not None:
                for f, mask in enumerate(masks):
                    ep, en = self._extents_from_cells(cp_, cn_, np.full(len(var), mask))
                    new_keys.update(a.tobytes() + b.tobytes() for a, b in zip(ep, en))

            def materialize(idx, var=var, cp_=cp_, cn_=cn_):
                rows, f = np.divmod(idx, nf)
                ep, en = self._extents_from_cells(cp_[rows], cn_[rows], masks[f])
                return ep, en, [("shape", tuple(int(x) for x in var[r]), shapes[ff]) for r, ff in zip(rows, f)]

            self._offer_ranked(flat, size, tp, fp, materialize)
            if self.fronts is not None:
                for sz in np.unique(sizes):
                    sel = np.flatnonzero(size == sz)
                    self.fronts.add(int(sz), tp[sel], fp[sel], lambda ix, sel=sel, var=var: [
                        ("shape", tuple(int(x) for x in var[sel[j] // nf]), shapes[sel[j] % nf]) for j in ix])
        return scored

    def size4_cells(self, count_extents: bool = False) -> None:
        """Size 4 from the truth tables of attribute quadruples (and triples with repeats).

        Every premise of size 4 is read-once over four distinct attributes, or a premise over at
        most three attributes (possibly repeating one). The compiled scan
        (:func:`~logicrules.fca.search_kernels.scan_quadruples`) computes the 16 weighted cells of
        every quadruple from one 4-way popcount per class and stored 3-way counts, bounds every
        formula by the sum of its positive cells, and applies the closed form of the best
        read-once formula to the rest; triples are tested against every function a size-4
        premise computes over them. A fourth attribute near one of the other three (or a
        constant) is skipped without counting (exact proximity bound, see the kernel). The linear test is the current threshold's filter (the
        Dinkelbach line for F1/Jaccard), so survivors are all premises that can beat the k-th
        best; they are scored exactly. Memory: the 3-way counts of the m (m - 1) (m - 2) / 6 sorted
        triples (and their rooms when ``memory_limit`` allows) and bounded buffers.
        """
        started = time.perf_counter()
        self._seed_size4()
        p = self.prep
        v = self.vars
        nv = len(v)
        neg = p.negations
        quad = quadruple_shapes(neg, self.connectives)
        rep3 = repeat_shapes(3, neg, 4, self.connectives)
        quad_sizes = np.full(len(quad), 4, np.int64)
        rep3_sizes = np.array([shape_size(s.tree) for s in rep3], np.int64)
        tested = 0
        counted = 0
        new_keys: set[bytes] | None = set() if count_extents else None
        combos = nv * (nv - 1) * (nv - 2) * (nv - 3) // 24 * len(quad) + nv * (nv - 1) * (nv - 2) // 6 * len(rep3)
        if nv == 2:
            rep2 = repeat_shapes(2, neg, 4, self.connectives)
            tested += self._score_shapes(v[None, :].astype(np.int64), rep2,
                                         np.array([shape_size(s.tree) for s in rep2], np.int64), new_keys)
            counted = tested
            combos = len(rep2)
        if nv < 3:
            self._tick(4, started, combos, tested, None if new_keys is None else len(new_keys), counted)
            return
        bits_p = np.ascontiguousarray(p.bits_p[v])
        bits_n = np.ascontiguousarray(p.bits_n[v])
        torch_scan = self.counter is not None
        if not torch_scan:
            offsets = kernels.triple_offsets(nv)
            n_triples = nv * (nv - 1) * (nv - 2) // 6
            t_p = np.zeros(n_triples, self._triple_count_dtype())
            t_n = np.zeros(n_triples, self._triple_count_dtype())
            kernels.triple_counts(bits_p, bits_n, *self._kernel_weights(), p.weighted, offsets, t_p, t_n)
            # rooms of all triples (4 bytes each) let the scan prune every role of a quadruple;
            # without room for them only two roles are pruned (same results, more quadruples counted)
            use_rooms = self._size4_cells_bytes(nv, rooms=True) <= self.memory
            rooms = np.zeros(n_triples if use_rooms else 1, np.float32)
            row_min = np.zeros((nv, nv) if use_rooms else (1, 1), np.float32)
        half_idx, pair_idx = _quadruple_index_tables()
        rep_cells = shape_matrix(rep3, 3).astype(np.float64)
        tpv, fpv = p.tp[v], p.fp[v]
        pending = list(range(nv - 2))
        cap = 1024
        chunk = 16 if self.deadline is None else 2
        bar = _progress_bar(self.progress, len(pending), "size 4")
        filt_for = None
        filt = None
        while pending and not self._out_of_time():
            threshold = self.top.threshold()
            if filt_for != threshold:
                filt, w_single, w_pair, w_total = self._filter_weights(threshold, tpv, fpv, 4)
                filt_for = threshold
                if filt is None:
                    break
                elim, elim_t, elim_const, _ = self._proximity_pruning(filt, w_single, w_pair, w_total)
                if torch_scan:
                    scan = self.counter.quadruple_scan(filt.alpha, filt.beta, w_single, w_pair, w_total,
                                                       filt.threshold, neg, rep_cells, elim, elim_const,
                                                       mode=self.mode)
                else:
                    slack = 1e-9 * (abs(filt.alpha) * p.n_pos + abs(filt.beta) * p.n_neg + 1.0)
                    if use_rooms:
                        kernels.triple_rooms(offsets, t_p, t_n, filt.alpha, filt.beta, w_single, w_pair, w_total,
                                             filt.threshold, rep_cells, slack, rooms, row_min)
            a_list = np.array(pending[:chunk], dtype=np.int64)
            if torch_scan:
                before = scan.counted
                quads, trips = scan.run(a_list)
                ok = np.ones(len(a_list), dtype=bool)
                counted += scan.counted - before
            else:
                self._check_buffer(4, len(a_list) * cap * 5 * 4, "quadruples")
                out_q = np.zeros((len(a_list), cap, 3), np.int32)
                out_t = np.zeros((len(a_list), cap, 2), np.int32)
                out_qcount = np.zeros(len(a_list), np.int64)
                out_tcount = np.zeros(len(a_list), np.int64)
                out_counted = np.zeros(len(a_list), np.int64)
                with _dynamic_schedule():
                    kernels.scan_quadruples(bits_p, bits_n, *self._kernel_weights(), offsets, t_p, t_n, filt.alpha,
                                            filt.beta, w_single, w_pair, w_total, filt.threshold, neg, self.mode,
                                            half_idx, pair_idx, rep_cells,
                                            elim, elim_t, elim_const, slack, rooms, row_min, use_rooms, a_list,
                                            cap,
                                            out_q, out_qcount, out_t, out_tcount, out_counted)
                ok = (out_qcount <= cap) & (out_tcount <= cap)
                counted += int(out_counted[ok].sum())
                quads = [np.column_stack([np.full(out_qcount[i], a_list[i]), out_q[i, :out_qcount[i]]])
                         for i in np.flatnonzero(ok)]
                trips = [np.column_stack([np.full(out_tcount[i], a_list[i]), out_t[i, :out_tcount[i]]])
                         for i in np.flatnonzero(ok)]
                quads = np.concatenate(quads).astype(np.int64) if quads else np.zeros((0, 4), np.int64)
                trips = np.concatenate(trips).astype(np.int64) if trips else np.zeros((0, 3), np.int64)
            if new_keys is not None and tested + len(trips) * len(rep3) + len(quads) * len(quad) > _MAX_COUNTED_PREMISES:
                new_keys = None         # too many to materialize: report None
            tested += self._score_shapes(v[trips], rep3, rep3_sizes, new_keys)
            tested += self._score_shapes(v[quads], quad, quad_sizes, new_keys)
            redo = [int(a) for a, o in zip(a_list, ok) if not o]
            pending = redo + pending[len(a_list):]
            if redo:
                if self.top.threshold() == threshold:
                    cap *= 4
                chunk = max(1, chunk // 2)
            if bar is not None:
                bar.update(len(a_list) - len(redo))
        if bar is not None:
            bar.close()
        self._tick(4, started, combos, tested, None if new_keys is None else len(new_keys), counted)

    def _check_size4_memory(self) -> None:
        """Size 4 materializes every extent of size <= 3: refuse before any work if it cannot fit."""
        p = self.prep
        nv = int((~p.constant).sum())
        wp, wn = p.bits_p.shape[1], p.bits_n.shape[1]
        n_shapes3 = len(triple_shapes(p.negations, self.connectives))
        estimate = (nv * (nv - 1) * (nv - 2) // 6 * n_shapes3 + nv * nv * 8 + 2 * len(p.columns)) \
            * (wp + wn) * 8 * 3
        if estimate > self.memory:
            raise PremiseSearchMemoryError(
                f"size 4 materializes every distinct extent of size <= 3: about {estimate / 1e9:.1f} GB "
                f"for {nv} distinct non-constant attributes, more than memory_limit="
                f"{self.memory / 1e9:.2f} GB. Use max_size=3, fewer attributes (e.g. a coarser "
                "binarizer), or raise memory_limit.")

    def _all_extents(self) -> tuple[list[np.ndarray], list[np.ndarray], list[list[tuple]]]:
        """Distinct extents of sizes 1, 2, 3 (bits over positives, negatives, specs), smallest first."""
        p = self.prep
        v = self.vars
        nv = len(v)
        wp, wn = p.bits_p.shape[1], p.bits_n.shape[1]
        r = np.arange(len(p.columns))
        neg = np.zeros(len(r), dtype=bool)
        if p.negations:
            r = np.concatenate([r, r])
            neg = np.concatenate([neg, np.ones(len(p.columns), dtype=bool)])
        lp, ln = self._lit_bits(r, neg)
        levels_p, levels_n, levels_s = [lp], [ln], [[("lit", int(a), bool(b)) for a, b in zip(r, neg)]]
        # size 2
        ps, ns, ss = [], [], []
        shapes2 = pair_shapes(p.negations, self.connectives)
        masks2 = np.array([s.mask for s in shapes2], dtype=np.int64)
        if nv >= 2:
            ai, bi = np.triu_indices(nv, 1)
            variables = np.stack([v[ai], v[bi]], axis=1)
            cp_, cn_ = self._cells_bits(variables)
            for f, mask in enumerate(masks2):
                ep, en = self._extents_from_cells(cp_, cn_, np.full(len(ai), mask))
                ps.append(ep)
                ns.append(en)
                ss.extend(("f2", int(x), int(y), f) for x, y in variables)
        if p.negations and len(p.columns):
            rr = int(v[0]) if nv else 0
            keep = [0, 1] if not self.mode else ([0] if self.mode == 1 else [1])
            ps.append(np.stack([np.zeros(wp, np.uint64), p.valid_p])[keep])
            ns.append(np.stack([np.zeros(wn, np.uint64), p.valid_n])[keep])
            ss.extend([[("const", False, rr), ("const", True, rr)][i] for i in keep])
        levels_p.append(np.concatenate(ps) if ps else np.zeros((0, wp), np.uint64))
        levels_n.append(np.concatenate(ns) if ns else np.zeros((0, wn), np.uint64))
        levels_s.append(ss)
        # size 3
        ps, ns, ss = [], [], []
        shapes3 = triple_shapes(p.negations, self.connectives)
        if nv >= 3:
            trip = np.array(list(_combinations3(nv)), dtype=np.int64).reshape(-1, 3)
            for start in range(0, len(trip), 50_000):
                t = trip[start:start + 50_000]
                variables = v[t]
                cp_, cn_ = self._cells_bits(variables)
                for f, shape in enumerate(shapes3):
                    ep, en = self._extents_from_cells(cp_, cn_, np.full(len(t), shape.mask))
                    ps.append(ep)
                    ns.append(en)
                    ss.extend(("f3", int(a), int(b), int(c), f) for a, b, c in variables)
        levels_p.append(np.concatenate(ps) if ps else np.zeros((0, wp), np.uint64))
        levels_n.append(np.concatenate(ns) if ns else np.zeros((0, wn), np.uint64))
        levels_s.append(ss)
        return _dedupe_levels(levels_p, levels_n, levels_s)

    def size4_extents(self) -> None:
        """Size 4 by materializing every distinct extent of size <= 3 (the former method)."""
        started = time.perf_counter()
        lp, ln, ls = self._all_extents()
        tps = [self.prep.count_p(x) for x in lp]
        fps = [self.prep.count_n(x) for x in ln]
        sizes_of = [1, 2, 3]
        upto3_p = np.concatenate(lp)
        upto3_n = np.concatenate(ln)
        upto3_s = ls[0] + ls[1] + ls[2]
        upto3_size = np.concatenate([np.full(len(x), s) for x, s in zip(lp, sizes_of)])
        upto3_tp = np.concatenate(tps)
        upto3_fp = np.concatenate(fps)
        upto2 = len(lp[0]) + len(lp[1])
        combos = 2 * len(lp[0]) * len(upto3_p) + upto2 * (upto2 - 1)
        tested = 0
        counted = 0
        new = 0
        # P_1 o P_<=3 (left = literals, right = everything up to size 3), then P_<=2 o P_<=2
        jobs = [
            (lp[0], ln[0], tps[0], fps[0], ls[0], np.ones(len(lp[0]), int),
             upto3_p, upto3_n, upto3_tp, upto3_fp, upto3_s, upto3_size, False),
            (upto3_p[:upto2], upto3_n[:upto2], upto3_tp[:upto2], upto3_fp[:upto2], upto3_s[:upto2],
             upto3_size[:upto2], upto3_p[:upto2], upto3_n[:upto2], upto3_tp[:upto2], upto3_fp[:upto2],
             upto3_s[:upto2], upto3_size[:upto2], True),
        ]
        known = {a.tobytes() + b.tobytes() for a, b in zip(upto3_p, upto3_n)}
        for (Lp, Ln, Ltp, Lfp, Ls, Lsize, Rp, Rn, Rtp, Rfp, Rs, Rsize, tri) in jobs:
            pending = list(range(len(Lp)))
            cap = 256
            chunk = 64
            while pending and not self._out_of_time():
                threshold = self.top.threshold()
                filt = self._filter(threshold, 2)
                if filt is None:
                    break
                i_list = np.array(pending[:chunk], dtype=np.int64)
                out_j = np.zeros((len(i_list), cap), np.int64)
                out_op = np.zeros((len(i_list), cap), np.int8)
                out_count = np.zeros(len(i_list), np.int64)
                out_counted = np.zeros(len(i_list), np.int64)
                with _dynamic_schedule():
                    kernels.scan_extent_pairs(Lp, Ln, Rp, Rn, *self._kernel_weights(), Ltp, Lfp, Rtp, Rfp, tri,
                                              filt.alpha, filt.beta,
                                              filt.threshold, float(self.prep.n_pos), float(self.prep.n_neg),
                                              i_list, cap, out_j, out_op, out_count, out_counted)
                kept = np.minimum(out_count, cap)
                tested += int(kept[out_count <= cap].sum())
                counted += 2 * int(out_counted[out_count <= cap].sum())
                if kept.sum():
                    ii = np.repeat(i_list, kept)
                    jj = np.concatenate([out_j[k, :kept[k]] for k in range(len(i_list))])
                    oo = np.concatenate([out_op[k, :kept[k]] for k in range(len(i_list))])
                    is_and = (oo == 0)[:, None]
                    ep = np.where(is_and, Lp[ii] & Rp[jj], Lp[ii] | Rp[jj])
                    en = np.where(is_and, Ln[ii] & Rn[jj], Ln[ii] | Rn[jj])
                    tp, fp = self._count(ep, en)
                    sc = self._scores(tp, fp, Lsize[ii] + Rsize[jj])
                    above = sc > threshold
                    ii, jj, oo, ep, en, tp, fp, sc = (x[above] for x in (ii, jj, oo, ep, en, tp, fp, sc))
                    specs = [("op", "and" if oo[k] == 0 else "or", Ls[ii[k]], Rs[jj[k]]) for k in range(len(ii))]
                    size = Lsize[ii] + Rsize[jj]
                    new += sum(1 for a, b in zip(ep, en) if a.tobytes() + b.tobytes() not in known)
                    self._offer_ranked(sc, size, tp, fp, lambda ix, ep=ep, en=en, specs=specs: (
                        ep[ix], en[ix], [specs[i] for i in ix]))
                    if self.fronts is not None:
                        for sz in np.unique(size):
                            sel = np.flatnonzero(size == sz)
                            self.fronts.add(int(sz), tp[sel], fp[sel],
                                            lambda ix, sel=sel: [specs[sel[i]] for i in ix])
                overflow = out_count > cap
                redo = [int(i) for i, o in zip(i_list, overflow) if o]
                pending = redo + pending[len(i_list):]
                if redo and self.top.threshold() == threshold:
                    cap *= 4
        self._tick(4, started, combos, tested, new, counted)

    # -- results -----------------------------------------------------------------------
    def pareto(self) -> dict[int, list[PremiseResult]]:
        """Per size k, the non-dominated premises of size <= k (see ``SearchStatistics.pareto``)."""
        P, N = self.prep.n_pos, self.prep.n_neg
        out = {}
        dtype = np.float64 if self.prep.weighted else np.int64
        tp = np.zeros(0, dtype)
        fp = np.zeros(0, dtype)
        specs: list = []
        sizes = np.zeros(0, np.int64)
        for size in range(1, self.max_size + 1):
            if size in self.fronts.fronts:
                t, f, sp = self.fronts.fronts[size]
                tp, fp = np.concatenate([tp, t]), np.concatenate([fp, f])
                sizes = np.concatenate([sizes, np.full(len(t), size)])
                specs = specs + list(sp)
            keep = pareto_indices(tp, fp)          # stable: the smaller premise wins a tie
            tp, fp, sizes, specs = tp[keep], fp[keep], sizes[keep], [specs[i] for i in keep]
            scores = self._scores(tp, fp, sizes)
            out[size] = [PremiseResult(formula=self.builder.build(sp), score=float(sc), tp=t.item(), fp=f.item(),
                                       fn=P - t.item(), tn=N - f.item(), size=int(sz))
                         for t, f, sp, sc, sz in zip(tp, fp, specs, scores, sizes)]
        return out

    def results(self) -> list[PremiseResult]:
        out = []
        P, N = self.prep.n_pos, self.prep.n_neg
        for score, size, tp, fp, spec in self.top.sorted():
            out.append(PremiseResult(formula=self.builder.build(spec), score=float(score), tp=tp, fp=fp,
                                     fn=P - tp, tn=N - fp, size=size))
        return out


def _quadruple_index_tables() -> tuple[np.ndarray, np.ndarray]:
    """Cell index tables of :func:`~logicrules.fca.search_kernels.best_read_once4`.

    ``half[x, v]``: the 8 cells (``k = 8 va + 4 vb + 2 vc + vd``) with variable ``x`` equal to
    ``v``, in increasing order; ``pair[p, i, j]``: for the pairings ``{ab|cd}, {ac|bd},
    {ad|bc}``, the cell whose first pair has cell ``i`` and second pair cell ``j``.
    """
    half = np.zeros((4, 2, 8), np.int64)
    for x in range(4):
        for val in range(2):
            half[x, val] = [k for k in range(16) if ((k >> (3 - x)) & 1) == val]
    pair = np.zeros((3, 4, 4), np.int64)
    for q, (x, y, z, w) in enumerate(((0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2))):
        for k in range(16):
            vals = [(k >> (3 - i)) & 1 for i in range(4)]
            pair[q, 2 * vals[x] + vals[y], 2 * vals[z] + vals[w]] = k
    return half, pair


def _hash_key(h: np.ndarray) -> np.ndarray:
    """One uint64 per pair of exact integer extent hashes (each < 2**53)."""
    h = h.astype(np.uint64)
    return h[:, 0] * np.uint64(0x9E3779B97F4A7C15) ^ h[:, 1]


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """Distinct values, sorted (a plain sort: faster than np.unique's hashing on 1e7 keys)."""
    keys = np.sort(keys)
    return keys[np.concatenate([[True], keys[1:] != keys[:-1]])] if len(keys) else keys


def _combinations3(n: int):
    a, b, c = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
    keep = (a < b) & (b < c)
    return np.stack([a[keep], b[keep], c[keep]], axis=1)


def _dedupe_levels(levels_p, levels_n, levels_s):
    """Keep the first occurrence of each extent across levels (smallest size first)."""
    allp = np.concatenate(levels_p)
    alln = np.concatenate(levels_n)
    both = np.ascontiguousarray(np.concatenate([allp, alln], axis=1))
    if both.shape[1] == 0:
        keys = np.zeros(len(both), dtype="V1")
    else:
        keys = both.view(np.dtype((np.void, both.shape[1] * 8))).ravel()
    _, first = np.unique(keys, return_index=True)
    first = np.sort(first)
    bounds = np.cumsum([0] + [len(x) for x in levels_p])
    specs = [s for level in levels_s for s in level]
    out_p, out_n, out_s = [], [], []
    for k in range(len(levels_p)):
        sel = first[(first >= bounds[k]) & (first < bounds[k + 1])]
        out_p.append(np.ascontiguousarray(allp[sel]))
        out_n.append(np.ascontiguousarray(alln[sel]))
        out_s.append([specs[i] for i in sel])
    return out_p, out_n, out_s


_BLOCK_BYTES = 32 * 2**20     # working memory of one row block of the pair-count products


def _row_blocks(bits: np.ndarray, n: int, itemsize: int):
    """``(start, rows)``: float32 0/1 blocks (k, b) of the first ``n`` bits of packed rows, in order.

    A block holds at most ``_BLOCK_BYTES`` (and 2**24 rows, so float32 products stay exact), so
    products over millions of rows never unpack all of them at once.
    """
    k = bits.shape[0]
    words = max(1, min(2**24 // 64, _BLOCK_BYTES // max(1, 64 * itemsize * k)))
    for w0 in range(0, -(-n // 64), words):
        count = min(n - 64 * w0, 64 * words)
        block = np.unpackbits(np.ascontiguousarray(bits[:, w0:w0 + words]).view(np.uint8), axis=1, count=count,
                              bitorder="little")
        yield 64 * w0, block.astype(np.float32)


def _n_bits(p: PreparedAttributes, cls: str) -> int:
    """Bit positions of a class's bitsets that may hold objects (weighted layouts have gaps)."""
    if not p.weighted:
        return p.n_pos if cls == "p" else p.n_neg
    return 64 * (p.bits_p if cls == "p" else p.bits_n).shape[1]


def _position_weights(seg: np.ndarray, wseg: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """float64 (64 W,): the weight of the object at each bit position (0 where none is)."""
    per_word = np.repeat(wseg, np.diff(seg))
    bits = np.unpackbits(valid.view(np.uint8), bitorder="little").astype(bool)
    return np.where(bits, np.repeat(per_word, 64), 0.0)


def _gram(bits: np.ndarray, n: int, seg: np.ndarray, wseg: np.ndarray, weighted: bool) -> np.ndarray:
    """``out[a, b] = |a AND b|`` over the first ``n`` bits of packed rows, by blocks.

    int32 (k, k) row counts, or with ``weighted`` float64 sums of the weights of the objects'
    groups (``seg``, ``wseg``; products in float64).
    """
    k = bits.shape[0]
    out = np.zeros((k, k), np.float64 if weighted else np.int64)
    if k:
        per_word = np.repeat(wseg, np.diff(seg)) if weighted else None
        for start, block in _row_blocks(bits, n, 12 if weighted else 4):
            if weighted:
                w = np.repeat(per_word[start // 64: start // 64 + -(-block.shape[1] // 64)], 64)[:block.shape[1]]
                out += (block * w) @ block.T.astype(np.float64)
            else:
                out += (block @ block.T).astype(np.int64)
    return out if weighted else out.astype(np.int32)


def _extent_hashes(bits_p: np.ndarray, valid_p: np.ndarray, n_pos: int, bits_n: np.ndarray, valid_n: np.ndarray,
                   n_neg: int):
    """Two random integer row hashes summed over extents: singles (k, 2), all rows (2,), pairs 2 x (k, k).

    Bit position ``i`` gets two random integers below 2**30; an extent's hash is their sum over
    its objects, exact in float64 (below 2**53 for up to 2**23 positions), so equal extents have
    equal hashes. ``n_pos``, ``n_neg``: bit positions per class; ``valid_*`` the ones holding objects.
    """
    rng = np.random.default_rng(12345)
    h = rng.integers(0, 2**30, size=(2, n_pos + n_neg)).astype(np.float64)
    k = bits_p.shape[0]
    single = np.zeros((k + 1, 2))
    pair = [np.zeros((k, k)), np.zeros((k, k))]
    for bits, valid, n, offset in ((bits_p, valid_p, n_pos, 0), (bits_n, valid_n, n_neg, n_pos)):
        for start, block in _row_blocks(np.concatenate([bits, valid[None, :]]), n, 16):
            block = block.astype(np.float64)
            hb = h[:, offset + start: offset + start + block.shape[1]]
            single += block @ hb.T
            for j in range(2):
                pair[j] += (block[:k] * hb[j]) @ block[:k].T
    return single[:k], single[k], pair


class _dynamic_schedule:
    """Give parallel loop iterations to threads one at a time (their costs differ widely)."""

    def __enter__(self):
        import numba

        self._old = numba.get_parallel_chunksize()
        numba.set_parallel_chunksize(1)

    def __exit__(self, *exc):
        import numba

        numba.set_parallel_chunksize(self._old)


def _progress_bar(enabled: bool, total: int, desc: str):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm: pip install tqdm") from None
    return tqdm(total=total, desc=desc, unit="attr")


def _resolve_backend(backend: str, device: Any, max_size: int) -> str:
    """"numba" or "torch" for the ``backend`` and ``device`` arguments of :func:`find_best_premises`.

    "auto" picks torch when a device is named or a CUDA device is present; it looks for one
    (importing torch) only when a size-3 or size-4 scan will run.
    """
    if backend not in ("auto", "numba", "torch"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'torch', got {backend!r}")
    if backend == "auto":
        from logicrules.fca.search_torch import gpu_available

        backend = "torch" if device is not None or (max_size >= 3 and gpu_available()) else "numba"
    if device is not None and backend != "torch":
        raise ValueError(f"device={device!r} is for the torch backend; pass backend='torch'")
    return backend


def estimate_premise_search(X: Any, y: Any, max_size: int = 3, negations: bool = True, sample_weight: Any = None,
                            size4_method: str = "cells") -> SearchEstimate:
    """What :func:`find_best_premises` would cost on ``(X, y)``, without searching.

    Prepares the attributes (merging equal extents, one pass over the data) and returns their
    :class:`~logicrules.fca.search_cost.SearchEstimate`: memory by part and the attribute
    combinations of each size before pruning (an upper bound of the work). The search computes
    the same estimate before it starts and refuses to start when it exceeds ``memory_limit``.

    Parameters
    ----------
    X, y, max_size, negations, sample_weight, size4_method
        As in :func:`find_best_premises`.

    Returns
    -------
    SearchEstimate

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((1000, 50)) < 0.5
    >>> est = estimate_premise_search(X, X[:, 0] & X[:, 1], max_size=3)
    >>> est.n_distinct_attributes, est.combinations[3]
    (50, 19600)
    """
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or not 1 <= max_size <= 4:
        raise ValueError(f"max_size must be an integer from 1 to 4, got {max_size!r}")
    matrix, target, _ = _as_inputs(X, y)
    weight = _as_weights(sample_weight, matrix.shape[0])
    prep = prepare_attributes(matrix, target, bool(negations), weight)
    return estimate_search_cost(prep, int(max_size), size4_method)


def find_best_premises(
    X: Any,
    y: Any,
    max_size: int = 3,
    objective: str | Objective | Any = "f1",
    top_k: int = 1,
    negations: bool = True,
    memory_limit: int | str | None = DEFAULT_MEMORY_LIMIT,
    return_stats: bool = False,
    progress: bool = False,
    min_support: int = 0,
    pareto: bool = False,
    size4_method: str = "cells",
    backend: str = "auto",
    device: Any = None,
    sample_weight: Any = None,
    connectives: str | tuple[str, ...] = CONNECTIVES,
    size_cost: float = 0.0,
    time_limit: float | None = None,
) -> list[PremiseResult] | tuple[list[PremiseResult], SearchStatistics]:
    """Find the premises of size <= ``max_size`` with the best objective value, exactly.

    The premise space is ``P_1 = {m, not m : m in M}`` (``M`` alone with ``negations=False``)
    and ``P_k = {p AND q, p OR q : p in P_i, q in P_{k-i}}``; a premise predicts positive where
    it holds. The search runs over distinct extents: the ``top_k`` best distinct extents are
    returned, each with its smallest premise found, best first (ties: smaller size first).

    Parameters
    ----------
    X : bool ndarray (n, m), scipy sparse matrix, DataFrame of bool/0-1 columns, or FormalContext
        Binary attributes (a sparse matrix is densified once, then packed into bits). Formulas
        name DataFrame columns (as str), context attributes, or array column positions (int).
    y : array-like of bool or 0/1, shape (n,)
        Target; positives are True / 1. All-positive or all-negative targets are allowed.
    max_size : int, default 3
        Largest premise size, 1 to 4. Size 4 visits every attribute quadruple (time about
        m^4 / 24 quadruples; memory m^3 / 6 sorted triples x 8 bytes: 1.4 GB at 1000
        attributes, 5.3 GB at 1587).
    objective : str, Objective or callable, default "f1"
        Any objective of :mod:`logicrules.metrics` ("f1", "accuracy", "balanced_accuracy",
        "jaccard", "precision", "recall", "mcc", "wracc") or a callable ``f(tp, fp, fn, tn)`` on
        count arrays (higher is better), evaluated on the candidates' count arrays. A callable has
        no closed-form pruning filter: on more than ``BOUNDARY_SEARCH_CELLS`` (2e7) count pairs
        ``(P + 1)(N + 1)`` (or weighted counts) the scans prune nothing by its value and take
        longer.
    top_k : int, default 1
        Number of distinct extents to return.
    negations : bool, default True
        Include negated attributes in ``P_1``. Use False for scalings that already contain
        complementary attributes (the all-values scaling of the paper's experiment).
    memory_limit : int or str, default 2 GiB
        Bytes (or "512MB", "4GB", "1GiB") the search may allocate for its tables and buffers: its
        estimate (:func:`estimate_premise_search`: packed bitsets, pair tables and bounds, size-2
        blocks, size-4 triple counts; the caller's input not included) is checked before it
        starts, and a search that cannot fit raises :class:`PremiseSearchMemoryError` naming
        what needs the memory.
    return_stats : bool, default False
        Also return the per-size :class:`SearchStatistics` (counting distinct extents of sizes
        1-2 too, which costs a little more).
    progress : bool, default False
        Show a tqdm progress bar for the size-3 and size-4 scans.
    min_support : int, default 0
        Passed to :func:`logicrules.metrics.get_objective` (premises covering fewer rows score
        -inf), e.g. with ``objective="precision"``.
    pareto : bool, default False
        Record the non-dominated premises of each size on the TP/TN plane in the statistics'
        ``pareto`` (see :class:`SearchStatistics`).
    size4_method : {"cells", "extents"}, default "cells"
        How size 4 is searched (both exact): "cells" scans attribute quadruples' truth tables
        with a linear filter and closed forms (memory ~ m^3); "extents" materializes every
        distinct extent of size <= 3 and combines them with rectangle bounds (memory ~ m^3 x 8
        shapes, x 64 with negations; the former method, kept for comparison).
    backend : {"auto", "numba", "torch"}, default "auto"
        Where the size-3 and size-4 scans count: "numba" (compiled CPU loops with exact
        proximity pruning), "torch" (matrix products on ``device``, :mod:`logicrules.fca.search_torch`;
        needs PyTorch), or "auto": "torch" when PyTorch is installed and a CUDA device is
        present (or ``device`` is given), else "numba". Results are identical; only the
        statistics' ``counted`` may differ (the torch size-4 scan leaves out one of numba's
        pruning tests). The torch scans use up to ``memory_limit`` of device memory on top of
        the search's host memory.
    device : str or torch.device, optional
        Device of the torch backend ("cuda", "cuda:1", "cpu"); default CUDA.
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights: ``tp`` is the sum of the weights of the positive rows where a
        premise holds, ``fp`` of the negative ones (``P``, ``N`` the class totals), and every
        objective is evaluated on those float counts. Rows of weight 0 are left out. Integer
        weights give exactly the result of repeating rows. Signed linear objectives
        ``sum_i c_i [premise holds on row i]`` are ``objective="linear"`` (``tp - fp``) with
        ``y = c > 0`` and ``sample_weight = |c|``. See Notes for what exact means with floats.
    connectives : {"and", "or"} or tuple of them, default ("and", "or")
        Operators of ``P_k``: both (the full premise space), ``("and",)`` for conjunctions of at
        most ``max_size`` literals (negated literals with ``negations=True``; the empty
        conjunction ``a AND NOT a`` included), or ``("or",)`` for disjunctions.
    size_cost : float, default 0
        Maximize ``objective - size_cost * size`` instead (the reported ``score``), exactly: the
        best premise of each size competes with the others at its cost (column-generation
        pricing with a complexity penalty per literal).
    time_limit : float, optional
        Seconds; the search stops between blocks of its scans once they have passed and returns
        the best premises found so far, with ``SearchStatistics.complete = False`` (see
        ``return_stats``). Without it the search runs to the end (``complete = True``).

    Returns
    -------
    list of PremiseResult, or (list, SearchStatistics) with ``return_stats=True``

    Raises
    ------
    ValueError
        For non-binary X or y, mismatched lengths, bad ``max_size``/``top_k``, or when no
        premise has a finite score (e.g. ``min_support`` larger than any extent).
    PremiseSearchMemoryError
        When the search would exceed ``memory_limit``.

    Notes
    -----
    *Pruning stays valid with weights.* Every bound of the search is a statement about sums of
    non-negative row weights: (1) the objective's filter (:meth:`logicrules.metrics.Objective.filter`)
    is derived on the whole real box ``0 <= tp <= P, 0 <= fp <= N`` (Dinkelbach's line, the linear
    form itself, the MCC chord), not on integer points, so it keeps every weighted count pair
    that scores above the threshold; (2) the linear value ``L = alpha tp + beta fp`` of a
    premise is ``sum_i c_i [premise holds on i]`` with ``c_i = alpha w_i`` on positive and
    ``beta w_i`` on negative rows, so the closed forms of the best formula over a truth table
    (sums of weighted cells) and the inclusion-exclusion of cells hold for any real ``c_i``;
    (3) the proximity bounds replace an attribute ``x`` by ``z`` in a read-once premise, which
    is monotone in ``x``: the premise can only gain on rows where the two differ and ``c_i > 0``
    on the side where it holds (``c_i < 0`` where it does not), and those gains are sums of
    ``|c_i|`` over pair cells, computed from the same weighted counts; nothing in (1)-(3) uses
    integrality, only ``w_i >= 0``. The tests check the weighted search against brute force for
    every objective.

    *Exact with float weights* means: counts are float64 sums of row weights (rows are packed in
    groups of equal weight; a count is ``sum_g w_g popcount_g`` in group order, pair counts a
    float64 matrix product), every comparison of the pruning keeps a relative slack of 1e-9 of
    the total weight in favour of keeping a candidate, and the returned premises are the best
    up to float64 rounding of those sums (about 1e-12 relative); ties are broken
    deterministically (higher score, then smaller size, then the order the search meets them).
    Many distinct weight values cost time and memory: each group starts a new 64-bit word
    (``n`` distinct weights: a word per row per attribute).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 0]], dtype=bool)
    >>> y = np.array([1, 1, 0, 0], dtype=bool)
    >>> best = find_best_premises(X, y, max_size=2)[0]
    >>> best.score, best.size
    (1.0, 1)
    >>> costs = np.array([2.0, -1.0, -3.0, 0.5])         # maximize sum_i c_i [premise holds on i]
    >>> best = find_best_premises(X, costs > 0, max_size=2, objective="linear",
    ...                           sample_weight=np.abs(costs), connectives=("and",))[0]
    >>> str(best.formula), best.score
    ('NOT x1', 2.5)
    """
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)) or not 1 <= max_size <= 4:
        raise ValueError(f"max_size must be an integer from 1 to 4, got {max_size!r}")
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
        raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
    if not isinstance(negations, (bool, np.bool_)):
        raise ValueError(f"negations must be True or False, got {negations!r}")
    memory = parse_memory(memory_limit)
    obj = get_objective(objective, min_support=min_support or None)
    connectives = _parse_connectives(connectives)
    if isinstance(size_cost, bool) or not isinstance(size_cost, (int, float, np.integer, np.floating)) \
            or not np.isfinite(size_cost):
        raise ValueError(f"size_cost must be a finite number (score lost per literal), got {size_cost!r}")
    time_limit = _parse_time_limit(time_limit)
    matrix, target, keys = _as_inputs(X, y)
    if matrix.shape[1] == 0:
        raise ValueError("X has no attributes; a premise needs at least one")
    if matrix.shape[0] == 0:
        raise ValueError("X has no rows; premises are scored on at least one object")
    weight = _as_weights(sample_weight, matrix.shape[0])
    if size4_method not in ("cells", "extents"):
        raise ValueError(f"size4_method must be 'cells' or 'extents', got {size4_method!r}")
    search = _Search(matrix, target, keys, int(max_size), obj, int(top_k), bool(negations), memory, progress,
                     pareto=bool(pareto), size4_method=size4_method, backend=_resolve_backend(backend, device, int(max_size)),
                     device=device, sample_weight=weight, connectives=connectives, size_cost=float(size_cost),
                     time_limit=time_limit)
    del matrix
    search.size1(return_stats)
    steps = (search.size2, search.size3, search.size4)[:max_size - 1]
    for step in steps:
        if search._out_of_time():
            break
        step(return_stats)
    search.stats.complete = search.complete
    results = search.results()
    if not results:
        raise ValueError(
            f"no premise of size <= {max_size} has a finite {obj.name} score"
            + (f" (min_support={obj.min_support} may exceed what any premise covers)" if obj.min_support else ""))
    if pareto:
        search.stats.pareto = search.pareto()
    return (results, search.stats) if return_stats else results
