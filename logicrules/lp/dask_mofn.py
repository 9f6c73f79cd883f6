"""m-of-n checklists (``rule="m_of_n"``) on dask data, exact, without gathering the rows.

For a fixed m the checklist LP (:mod:`logicrules.lp.mofn_rows`) minimizes
``lam 1'w + sum_i c_i max(0, r_i)`` over ``0 <= w <= 1``, ``r_i = m - a_i w`` on a positive row
and ``a_i w - (m - 1)`` on a negative one. Any partition of the rows into groups of one class,
each group one constraint over its summed row ``sum_g c_i a_i`` with one slack, is a relaxation
(a lower bound at every w), equal to the full objective at w when no group holds rows on both
sides of their kinks. The in-memory learner refines such a partition by row generation; here
the partitions rebuild it themselves, so that only per-group sums travel:

- A row's group is a function of the row: it starts as its class, and round r of the
  refinement maps (group, side of the row under that round's ``w_r``: past its kink, short of
  it, or at it) to the next group by a small table (:class:`Grouping`); every partition
  replays the tables on its rows: its products with every step's w (and the current ones) are
  one pass over the chunk's packed bytes (:func:`~logicrules.lp.packed_rows.packed_scores_columns`,
  no BLAS threads), not one pass per step, so a round is one map + sum.
- Each round is one pass (:class:`GroupSums`): every partition returns, per (group, side under
  the current w), the summed cost ``sum c_i``, the summed rows ``sum c_i a_i``, the number of
  rows, and the full objective's hinge sum at w; the answers are summed over the partitions.
  The driver stops when no group is mixed (then the relaxation's value is the full objective at
  its w: the LP optimum, exactly), else splits every mixed group by side (the new table) and
  solves the relaxation of the new groups from their sums alone.
- All thresholds m (``1 .. max_m``) run in the same passes; a last pass counts the level
  histograms of the LP solutions (:class:`LevelCounts`) and the checklist is chosen from them
  exactly as in memory (:func:`~logicrules.lp.mofn_rows.choose_checklist`).

So each LP reaches the in-memory optimum (the LP objectives are the same); the checklist is the
in-memory choice over these LP solutions, which are the in-memory ones unless an LP has several
optimal solutions. The driver holds, per m, the group sums (groups x 3 x literals floats, checked
against ``memory_limit``) and the tables; a partition holds one chunk of rows
(:data:`~logicrules.lp.dask_passes.CHUNK_ROWS`) and the sums. Passes: one per round (the
rounds of the slowest m) and one for the histograms.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from logicrules import memory
from logicrules.fca.row_block import RowBlock
from logicrules.lp.dask_passes import CHUNK_ROWS, Sums
from logicrules.lp.mofn_rows import _sides, _solve_relaxation, checklist_plans, choose_checklist
from logicrules.lp.packed_rows import packed_scores_columns
from logicrules.lp.rules import MofNFit
from logicrules.progress import pass_line

__all__ = ["Grouping", "GroupSums", "LevelCounts", "learn_checklist_on_partitions", "MOFN_MAX_ROUNDS"]

#: Most refinement rounds (passes) per fit; a fit stopped by it reports ``optimal=False``.
MOFN_MAX_ROUNDS = 200


@dataclass
class Grouping:
    """The row groups of the LP of one m: a row starts in the group of its class (0 or 1); step
    ``(w, table)`` then moves a row of group g and side s under w (:func:`_sides`) to group
    ``table[g, s]``. ``positive[g]``: the class of group g after the last step."""

    m: int
    steps: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    positive: np.ndarray = field(default_factory=lambda: np.array([False, True]))

    @property
    def n_groups(self) -> int:
        return int(self.positive.size)

    def weights(self) -> np.ndarray:
        """The steps' w as columns, shape ``(n, steps)``."""
        return np.column_stack([w for w, _ in self.steps]) if self.steps else np.zeros((0, 0))

    def groups_from_scores(self, scores: np.ndarray, positive: np.ndarray) -> np.ndarray:
        """The group of every row from its products ``a_i w`` with the steps' w (one column per
        step, :meth:`weights`) and its class."""
        group = positive.astype(np.intp)
        for step, (_, table) in enumerate(self.steps):
            s = scores[:, step]
            group = table[group, _sides(np.where(positive, self.m - s, s - (self.m - 1)))]
        return group


def _chunks(block: RowBlock):
    """The rows of a partition a chunk at a time: bool rows, class 1 or not, weights."""
    for start in range(0, block.n_rows, CHUNK_ROWS):
        stop = min(block.n_rows, start + CHUNK_ROWS)
        weights = np.ones(stop - start) if block.weights is None else block.weights[start:stop]
        yield block.dense(start, stop), block.labels[start:stop] == 1, weights


@dataclass(frozen=True)
class GroupSums:
    """One round's answer of a partition for each LP ``(grouping, w)``: per (group, side under
    w), the rows' summed cost (``cost``), cost-weighted rows (``sums``) and number (``rows``), and
    the hinge sum of the full objective at w (``hinge``). Costs: ``c_pos`` or ``c_neg`` times
    the row's weight."""

    problems: tuple[tuple[Grouping, np.ndarray], ...]
    c_pos: float
    c_neg: float

    def __call__(self, block: RowBlock) -> Sums:
        n = block.n_attributes
        out = Sums()
        for k, (grouping, _) in enumerate(self.problems):
            cells = 3 * grouping.n_groups
            out[k] = Sums(cost=np.zeros(cells), sums=np.zeros((cells, n)), rows=np.zeros(cells, dtype=np.int64),
                          hinge=0.0)
        # every step's w and every current w as the columns of one matrix: a chunk's products with
        # all of them are one pass over its packed bytes (the groupings replayed without a pass per step)
        columns = [np.column_stack([grouping.weights().reshape(n, -1), w]) for grouping, w in self.problems]
        W = np.hstack(columns) if columns else np.zeros((n, 0))
        bounds = np.concatenate([[0], np.cumsum([c.shape[1] for c in columns])])
        for rows, positive, weights in _chunks(block):
            cost = np.where(positive, self.c_pos, self.c_neg) * weights
            dense = rows.astype(np.float64)
            scores = packed_scores_columns(np.packbits(rows, axis=1, bitorder="little"), W)
            for k, (grouping, _) in enumerate(self.problems):
                acc, cells = out[k], 3 * grouping.n_groups
                mine = scores[:, bounds[k]:bounds[k + 1]]
                current = mine[:, -1]
                residual = np.where(positive, grouping.m - current, current - (grouping.m - 1))
                key = 3 * grouping.groups_from_scores(mine[:, :-1], positive) + _sides(residual)
                acc["cost"] += np.bincount(key, weights=cost, minlength=cells)
                acc["rows"] += np.bincount(key, minlength=cells)
                acc["sums"] += sparse.csr_array((cost, (key, np.arange(key.size))), shape=(cells, key.size)) @ dense
                acc["hinge"] += float(cost @ np.maximum(residual, 0.0))
        return out


@dataclass(frozen=True)
class LevelCounts:
    """The level histograms of :func:`~logicrules.lp.mofn_rows.choose_checklist` of a partition:
    per plan ``(order, sizes)``, ``hist[c, l, j]`` the weight of its rows of class c with exactly
    j of the first ``sizes[l]`` literals of ``order`` true."""

    plans: tuple[tuple[np.ndarray, np.ndarray], ...]

    def __call__(self, block: RowBlock) -> Sums:
        out = Sums({k: np.zeros((2, sizes.size, order.size + 1)) for k, (order, sizes) in enumerate(self.plans)})
        for rows, positive, weights in _chunks(block):
            for k, (order, sizes) in enumerate(self.plans):
                n_levels, width = sizes.size, order.size + 1
                counts = np.cumsum(rows[:, order], axis=1, dtype=np.int32)[:, sizes - 1]  # (rows, levels)
                cell = counts + np.arange(n_levels) * width + positive[:, None] * (n_levels * width)
                out[k] += np.bincount(cell.ravel(), weights=np.repeat(weights, n_levels),
                                      minlength=2 * n_levels * width).reshape(2, n_levels, width)
        return out


def _pass(counts: Any, kernel: Any, what: str) -> Sums:
    """One map over the partitions and a tree sum: ``kernel(block)`` of every partition, summed."""
    import dask

    start = time.perf_counter()
    (total,) = dask.compute(counts.lazy(dask.delayed(kernel)))  # one key for the kernel, not one per task
    counts.n_passes += 1
    pass_line(counts.verbose, f"dask pass: {what} over {counts.n_partitions} partitions", time.perf_counter() - start)
    return total if total is not None else Sums()


@dataclass
class _Threshold:
    """The row generation of the LP of one m on the driver."""

    m: int
    lam: float
    integral: bool
    time_limit: float | None
    grouping: Grouping = None
    w: np.ndarray | None = None
    value: float | None = None
    objective: float | None = None
    optimal: bool = True
    done: bool = False
    rounds: int = 0

    def __post_init__(self) -> None:
        self.grouping = Grouping(self.m)

    def refine(self, answer: Sums, n: int) -> None:
        """Stop at the LP optimum, or split the mixed groups and solve the relaxation again."""
        G = self.grouping.n_groups
        cost, rows, sums = answer["cost"].reshape(G, 3), answer["rows"].reshape(G, 3), answer["sums"].reshape(G, 3, n)
        mixed = (rows[:, 0] > 0) & (rows[:, 1] > 0)
        if self.w is not None:
            self.objective = self.lam * float(self.w.sum()) + float(answer["hinge"])
            if not mixed.any():
                self.done = True
                return
        # the next groups: a mixed group split by side, any other kept whole; empty pieces dropped
        piece = np.where(mixed[:, None], np.arange(3)[None, :], 0)  # (group, side) -> its piece
        present = np.where(mixed[:, None], rows > 0, (np.arange(3) == 0)[None, :] & (rows.sum(axis=1) > 0)[:, None])
        K = int(present.sum())
        ids = np.zeros((G, 3), dtype=np.intp)
        ids[present] = np.arange(K)
        table = np.take_along_axis(ids, piece, axis=1)  # (group, side) -> next group (0: no such rows)
        new_sums, new_cost = np.zeros((K, n)), np.zeros(K)
        np.add.at(new_sums, table.ravel(), sums.reshape(3 * G, n))
        np.add.at(new_cost, table.ravel(), cost.ravel())
        positive = np.zeros(K, dtype=bool)
        positive[ids[present]] = np.broadcast_to(self.grouping.positive[:, None], (G, 3))[present]
        if K != G or not (table == np.arange(G)[:, None]).all():
            self.grouping.steps.append((np.zeros(n) if self.w is None else self.w, table))
        self.grouping.positive = positive
        self.w, self.value, proved = _solve_relaxation(new_sums, new_cost, positive, self.m, self.lam, self.integral,
                                                       self.time_limit)[:3]
        self.optimal &= bool(proved)
        self.rounds += 1


def learn_checklist_on_partitions(counts: Any, lam_abs: float, *, max_m: int = 3, weights=(1.0, 1.0),
                                  rounding: str = "threshold", time_limit: float | None = None,
                                  max_terms: int | None = None) -> MofNFit:
    """The m-of-n checklist of a two-class :class:`~logicrules.fca.dask_counts.DaskCounts`
    (module notes): the in-memory :func:`~logicrules.lp.rules.learn_checklist` from passes.

    Parameters
    ----------
    counts : DaskCounts
        Two classes, weighted or not; class 1 is the one the checklist fires on.
    lam_abs : float
        Cost of one literal, in units of one (weighted) error.
    max_m : int, default 3
    weights : pair of float
        ``(c_pos, c_neg)``: the cost of an error on class 1 and on class 0.
    rounding : {"threshold", "exact"}
        "exact": the integer program of each m (exact by the same row groups).
    time_limit : float, optional
        Seconds per solve.
    max_terms : int, optional
        As in :func:`~logicrules.lp.mofn_rows.best_checklist`.

    Returns
    -------
    MofNFit
        ``groups``: the most row groups of a final LP.
    """
    start = time.perf_counter()
    n = counts.n_attributes
    c_pos, c_neg = float(weights[0]), float(weights[1])
    lps = [_Threshold(m, float(lam_abs), rounding == "exact", time_limit) for m in range(1, min(int(max_m), n) + 1)]
    for _ in range(MOFN_MAX_ROUNDS):
        active = [lp for lp in lps if not lp.done]
        if not active:
            break
        problems = tuple((lp.grouping, np.zeros(n) if lp.w is None else lp.w) for lp in active)
        answer = _pass(counts, GroupSums(problems, c_pos, c_neg),
                       f"m-of-n row groups (m = {', '.join(str(lp.m) for lp in active)})")
        for k, lp in enumerate(active):
            lp.refine(answer[k], n)
    for lp in lps:
        lp.optimal &= lp.done
    plans = checklist_plans({lp.m: lp.w for lp in lps})
    counted = tuple((order, sizes) for _, _, order, sizes in plans if sizes.size)
    hists = _pass(counts, LevelCounts(counted), "checklist levels") if counted else Sums()
    position = np.cumsum([sizes.size > 0 for _, _, _, sizes in plans]) - 1
    hist_list = [hists[int(k)] if sizes.size else None for k, (_, _, _, sizes) in zip(position, plans)]
    n_pos = float(counts.class_totals()[1])
    objective, columns, m = choose_checklist(plans, hist_list, n_pos, float(lam_abs), c_pos, c_neg, max_terms)
    return MofNFit(columns=columns, m=m, objective=objective, seconds=time.perf_counter() - start,
                   lp_objectives={lp.m: lp.objective for lp in lps}, optimal=all(lp.optimal for lp in lps),
                   groups=max(lp.grouping.n_groups for lp in lps))
