"""What a premise search returns: premises with their counts, per-size statistics, Pareto fronts.

:class:`PremiseResult` is one premise found, :class:`SearchStatistics` (one
:class:`SizeStatistics` per size) the work done, :func:`pareto_indices` the non-dominated count
pairs. The search keeps candidates as small tuples ("specs") and turns them into formulas only
when it returns them (``_Builder``); ``_TopList`` holds the best distinct extents found so far
and ``_Fronts`` the per-size Pareto fronts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from logicrules.fca.premise.cost import SearchEstimate
from logicrules.fca.premise.preparation import PreparedAttributes
from logicrules.fca.premise.space import CONNECTIVES, pair_shapes, triple_shapes
from logicrules.formula import And, Formula, Literal, Or
from logicrules.memory import MemoryLimitError

__all__ = ["PremiseResult", "PremiseSearchMemoryError", "SearchStatistics", "SizeStatistics", "pareto_indices"]


class PremiseSearchMemoryError(MemoryLimitError):
    """A premise search would need more memory than ``memory_limit`` allows.

    A :class:`~logicrules.memory.MemoryLimitError`: the message says what needs the memory and how to
    need less.
    """


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
        (:func:`logicrules.fca.premise.space.count_premises`).
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
    :class:`~logicrules.fca.premise.cost.SearchEstimate` computed before the search started.
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

