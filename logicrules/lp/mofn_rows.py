"""The m-of-n (threshold group-testing) LP by row generation over packed rows.

For a fixed m the LP of an m-of-n checklist is

    minimize ``lam 1'w + sum_i c_i h_i(w)``  over ``0 <= w <= 1``,

with one hinge per (distinct, weighted) row: ``h_i = max(0, r_i)`` with the residual
``r_i = m - a_i w`` on a positive row (its missing literals) and ``r_i = a_i w - (m - 1)`` on a
negative one (its surplus literals). For any group g of rows of one class,
``max(0, sum_g c_i r_i) <= sum_g c_i max(0, r_i)``, with equality exactly when no two rows of the
group lie on opposite sides of their kinks (``r_i > 0`` and ``r_k < 0``). So a partition of the
rows into groups, each group one constraint ``sum_g c_i a_i w + H_g >= m sum_g c_i`` (negative:
``sum_g c_i a_i w - H_g <= (m - 1) sum_g c_i``) with one slack, is a **relaxation**: a lower
bound on the LP at every w, as small as the number of groups.

At the relaxation's optimum w every row's residual is computed (one pass over the rows). If no
group has rows on both sides, the relaxation equals the full objective at w, so w is optimal for
the full LP (exact; the gap is reported). Otherwise such groups are split by side (at most
:data:`SPLIT_GROUPS` per round, those whose rows the relaxation underestimates most; each one's
minority side a piece, the rows of it nearest their kink a constraint each, at most
:data:`SPLIT_ROWS` per round) and the relaxation solved again. Without that cap every mixed
group splits each round and on a million rows their number doubles from round to round
(28,000 groups in one relaxation, 30 s of simplex for it); the rounds end only when no group is
mixed either way. The groups whose dual ``beta_g``
sits at the same bound (0 or 1) are merged by class at the same time: the last dual solution
stays feasible with the same value, so the bound never drops, while the relaxation stays at
about one group per fractional dual (at most one per literal at a vertex) plus four. Once a
round does not raise the bound, groups only split, so the rounds end (at worst with one group
per row, the full LP). Consecutive relaxations differ in a few groups, so each is handed to
HiGHS with a starting basis built from the last one (:mod:`logicrules.lp.mofn_warm`).

The first partition comes from the paper's row sampling: the LP of a random sample of the rows
(``lam`` scaled by the sample's share of the weight, solved the same way, recursively) gives a
starting w, and the rows are grouped by class and side under it. Each round then costs a small
LP and a pass over the packed rows (the products ``a_i w``, :mod:`logicrules.lp.packed_rows`),
plus a pass over the rows split off (their sums; a group's remainder is its sum minus theirs).

Rows stay packed (``uint8``, one bit per cell) and are unpacked to ``bool`` a block at a time
(:data:`BLOCK_CELLS` cells); identical rows of a class are merged into one weighted row, which is
exact (equal rows have equal hinges).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, sparse

from logicrules.fca.counts import RowMultiset
from logicrules.lp.mofn_warm import WarmChecklistLP, warm_available
from logicrules.lp.packed_rows import packed_group_sums, packed_scores
from logicrules.lp.solvers import SolverError, SolverWarning, require_model_memory
from logicrules.validation import check_seed

__all__ = ["ChecklistRows", "ThresholdLPResult", "solve_threshold_lp", "best_checklist", "checklist_plans",
           "choose_checklist", "checklist_bytes", "BLOCK_CELLS", "BASE_ROWS"]

#: Cells unpacked at once (one byte each) by the passes over the rows.
BLOCK_CELLS = 1 << 24
#: Rows solved directly (all explicit), and the size of the first explicit set.
BASE_ROWS = 2000
#: Rows split off mixed groups that get a constraint each per round (the rest: one per piece).
SPLIT_ROWS = 2000
#: Mixed groups split per round, those whose rows the relaxation underestimates most (the rest wait).
SPLIT_GROUPS = 500
#: A row is on the wrong side of its kink when it is past it by more than this.
_TOL = 1e-7


def checklist_bytes(n_rows: float, n_attributes: int, n_lps: int = 1) -> float:
    """Bytes the m-of-n learner needs for ``n_rows`` distinct rows of ``n_attributes`` literals
    with ``n_lps`` LPs solved at once: the packed rows (one bit per cell, shared), per LP some
    12 float or index vectors over the rows (weights, products, sides, sort orders) and one
    unpacked block (:data:`BLOCK_CELLS` bytes, with its float products). The explicit rows' LP
    is estimated separately when it is built."""
    return float(n_rows) * (math.ceil(n_attributes / 8) + 100 * n_lps) + 3.0 * min(BLOCK_CELLS, n_rows * n_attributes)


@dataclass(frozen=True)
class ChecklistRows:
    """Distinct weighted rows of both classes, packed: the data of the m-of-n LP.

    Attributes
    ----------
    packed : ndarray of uint8, shape (u, ceil(n / 8))
        Each row packed little-endian (``np.packbits(row, bitorder="little")``).
    positive : ndarray of bool, shape (u,)
        The row's class (True: the checklist should fire).
    weights : ndarray of float64, shape (u,)
        How many rows (or how much sample weight) each distinct row stands for.
    n_attributes : int
        Number of literals n.

    Examples
    --------
    >>> rows = ChecklistRows.from_dense(np.array([[1, 0], [1, 0], [0, 1]], bool), np.array([1, 1, 0], bool))
    >>> rows.unpack().astype(int).tolist(), rows.positive.tolist(), rows.weights.tolist()
    ([[0, 1], [1, 0]], [False, True], [1.0, 2.0])
    """

    packed: np.ndarray
    positive: np.ndarray
    weights: np.ndarray
    n_attributes: int

    @classmethod
    def from_multisets(cls, negative: RowMultiset, positive: RowMultiset) -> ChecklistRows:
        """The rows of class 0 (``negative``) followed by those of class 1."""
        packed = np.concatenate([negative.packed, positive.packed])
        labels = np.concatenate([np.zeros(negative.n_rows, dtype=bool), np.ones(positive.n_rows, dtype=bool)])
        weights = np.concatenate([negative.weights, positive.weights]).astype(np.float64)
        return cls(np.ascontiguousarray(packed), labels, weights, int(negative.n_attributes))

    @classmethod
    def from_dense(cls, A: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> ChecklistRows:
        """Merge the identical (row, label) pairs of a bool matrix and target (weights: 1 per row)."""
        sw = np.ones(len(y)) if sample_weight is None else sample_weight
        return cls.from_multisets(RowMultiset.from_dense(A[~y], sw[~y]), RowMultiset.from_dense(A[y], sw[y]))

    @property
    def n_rows(self) -> int:
        """Number of distinct rows u."""
        return int(self.packed.shape[0])

    def take(self, index: np.ndarray) -> ChecklistRows:
        """The rows at ``index`` (integer positions)."""
        return ChecklistRows(self.packed[index], self.positive[index], self.weights[index], self.n_attributes)

    def unpack(self, index: np.ndarray | None = None) -> np.ndarray:
        """The rows (all, or those at ``index``) as a bool matrix."""
        packed = self.packed if index is None else self.packed[index]
        return np.unpackbits(packed, axis=1, count=self.n_attributes, bitorder="little").view(bool)

    def _steps(self, n_rows: int):
        step = max(1, BLOCK_CELLS // max(self.n_attributes, 1))
        for start in range(0, n_rows, step):
            yield start, min(start + step, n_rows)

    def scores(self, w: np.ndarray) -> np.ndarray:
        """``a_i w`` for every row (float64), from the packed bytes."""
        return packed_scores(self.packed, w)


@dataclass
class ThresholdLPResult:
    """The m-of-n LP (or integer program) for one m, solved by row generation.

    Attributes
    ----------
    w : ndarray of shape (n,)
        Literal weights in [0, 1] (0/1 for the integer program).
    objective : float
        The full objective (all rows) at w.
    lower_bound : float
        Value of the last relaxation: a lower bound on the optimum when ``optimal``;
        ``objective - lower_bound`` is at most ``1e-7`` times the rows' total error cost.
    optimal : bool
        Every solve was proved optimal (False after a ``time_limit``).
    groups : int
        Constraints (row groups) of the last relaxation; the number of rows without sampling.
    rounds : int
        Relaxations solved at this level (the sample's own rounds are in ``history``).
    history : list of dict
        Per level and round: rows, groups, groups split, bounds and seconds.
    """

    w: np.ndarray
    objective: float
    lower_bound: float
    optimal: bool
    groups: int
    rounds: int
    history: list = field(default_factory=list)


def _row_costs(rows: ChecklistRows, c_pos: float, c_neg: float) -> np.ndarray:
    return np.where(rows.positive, c_pos, c_neg) * rows.weights


def _residuals(rows: ChecklistRows, scores: np.ndarray, m: int) -> np.ndarray:
    """How far each row is past its kink toward an error (its hinge is ``max(0, residual)``)."""
    return np.where(rows.positive, m - scores, scores - (m - 1))


def _group_sums(rows: ChecklistRows, index: np.ndarray, group: np.ndarray, costs: np.ndarray,
                n_groups: int) -> np.ndarray:
    """``S[g] = sum c_i a_i`` over the rows ``index`` of each group (``group`` per row)."""
    return packed_group_sums(rows.packed, index, group, costs[index], n_groups, rows.n_attributes)


def _solve_relaxation(S: np.ndarray, C: np.ndarray, positive: np.ndarray, m: int, lam: float, integral: bool,
                      time_limit: float | None) -> tuple[np.ndarray, float, bool, np.ndarray | None]:
    """min ``lam 1'w + sum_g H_g`` over the group constraints; returns (w, value, proved, beta).

    The LP is solved in its dual form (one constraint per literal, one variable ``beta_g`` in
    [0, 1] per group) by the dual simplex, and w read from the duals of the literal constraints;
    the integer program is solved in the primal form (``beta`` None).
    """
    k, n = S.shape
    require_model_memory(float(k * n + n), n if not integral else k, k + n, "the m-of-n LP")
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    sign = np.where(positive, 1.0, -1.0)
    target = np.where(positive, float(m), m - 1.0) * C
    if integral:
        constraints = optimize.LinearConstraint(np.hstack([-sign[:, None] * S, -np.eye(k)]), -np.inf,
                                                -sign * target) if k else None
        res = optimize.milp(np.concatenate([np.full(n, lam), np.ones(k)]),
                            integrality=np.concatenate([np.ones(n), np.zeros(k)]),
                            bounds=optimize.Bounds(np.zeros(n + k), np.concatenate([np.ones(n), np.full(k, np.inf)])),
                            constraints=constraints, options={**options, "mip_rel_gap": 0.0})
        w = None if res.x is None else np.round(res.x[:n])
        value = None if res.x is None else float(lam * w.sum() + res.x[n:].sum())
        beta = None
    else:
        lhs = np.hstack([(S * sign[:, None]).T, -np.eye(n)])
        objective = np.concatenate([-sign * target, np.ones(n)])
        bounds = np.column_stack([np.zeros(k + n), np.concatenate([np.ones(k), np.full(n, np.inf)])])
        res = optimize.linprog(objective, A_ub=sparse.csr_array(lhs), b_ub=np.full(n, lam), bounds=bounds,
                               method="highs-ds", options=options)
        w = None if res.x is None else np.clip(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0, 1.0)
        value = None if res.x is None else -float(res.fun)
        beta = None if res.x is None else np.asarray(res.x[:k], dtype=np.float64)
    if res.status == 1 and w is not None:
        warnings.warn(f"the m-of-n program for m={m} hit time_limit={time_limit} s before proving optimality; "
                      "using the best solution found", SolverWarning, stacklevel=4)
    elif res.status != 0 or w is None:
        raise SolverError(f"the m-of-n program for m={m} returned no solution (status {res.status}: "
                          f"{res.message}); raise time_limit or shrink the problem")
    return w, value, res.status == 0, beta


def _sides(residual: np.ndarray) -> np.ndarray:
    """0: past the kink (an error), 1: short of it, 2: at it (within the tolerance)."""
    return np.where(residual > _TOL, 0, np.where(residual < -_TOL, 1, 2))


def _first_groups(rows: ChecklistRows, costs: np.ndarray, m: int, lam: float, time_limit,
                  row_sampling: float | None, base_rows: int, rng: np.random.Generator,
                  history: list, warm: bool | None) -> tuple[np.ndarray, bool]:
    """Group of every row at the start: one per row without sampling or when few, else the
    class and side under a sample's solution."""
    u = rows.n_rows
    size = u if row_sampling is None else max(base_rows, int(math.ceil(row_sampling * u)))
    if size >= u:
        return np.arange(u), True
    sample = np.sort(rng.choice(u, size=size, replace=False))
    share = float(rows.weights[sample].sum() / rows.weights.sum())
    start = solve_threshold_lp(rows.take(sample), m, lam * share, costs_of=costs[sample], integral=False,
                               time_limit=time_limit, row_sampling=row_sampling, base_rows=base_rows, rng=rng,
                               warm=warm)
    history.extend(start.history)
    residual = _residuals(rows, rows.scores(start.w), m)
    key = _sides(residual) + 3 * rows.positive
    count = min(base_rows, SPLIT_ROWS)
    near = np.argpartition(np.abs(residual), count - 1)[:count]
    key[near] = 6 + np.arange(count)  # the rows nearest their kink: a constraint each
    return np.unique(key, return_inverse=True)[1].ravel(), start.optimal


def _worst_mixed(group: np.ndarray, costs: np.ndarray, residual: np.ndarray, mixed: np.ndarray) -> np.ndarray:
    """The mixed groups to split this round: all, or the :data:`SPLIT_GROUPS` of them whose
    relaxation term falls furthest below the full objective at w (``sum c_i max(0, r_i) -
    max(0, sum c_i r_i)`` over the group's rows)."""
    if np.count_nonzero(mixed) <= SPLIT_GROUPS:
        return mixed
    n_groups = mixed.size
    hinge = np.bincount(group, weights=costs * np.maximum(residual, 0.0), minlength=n_groups)
    gap = np.where(mixed, hinge - np.maximum(np.bincount(group, weights=costs * residual, minlength=n_groups), 0.0),
                   -np.inf)
    chosen = np.zeros(n_groups, dtype=bool)
    chosen[np.argpartition(-gap, SPLIT_GROUPS - 1)[:SPLIT_GROUPS]] = True
    return chosen


def _regroup(rows: ChecklistRows, costs: np.ndarray, group: np.ndarray, sums: np.ndarray, residual: np.ndarray,
             side: np.ndarray, past: np.ndarray, short: np.ndarray, mixed: np.ndarray, positive: np.ndarray,
             beta: np.ndarray | None, merge: bool,
             base_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """The next partition: every group flagged in ``mixed`` (those chosen to split, rows on both
    sides) split by side, its rows on the side of fewer rows
    a piece, except the ``min(base_rows, SPLIT_ROWS)`` of them (over all groups) nearest their
    kink, which get a constraint each; and, with ``merge``, given the duals ``beta`` of the
    last relaxation, the groups not split whose ``beta`` is at the same bound (0 or 1) merged by
    class. Merging such groups keeps the last dual solution feasible with the same value, so
    the bound never drops, and keeps the relaxation small (its fractional groups, at most one
    per literal at a vertex, stay apart). Returns the group of every row, the groups' sums,
    (given ``beta``) each new group's starting dual (its source's, a piece its parent's) and each
    new group's ``source``: the old group it equals, or -1 (merged groups and pieces)."""
    n_groups = past.size
    label = np.arange(n_groups)
    if beta is not None and merge:
        low, high = ~mixed & (beta <= _TOL), ~mixed & (beta >= 1.0 - _TOL)
        label[low] = n_groups + positive[low]
        label[high] = n_groups + 2 + positive[high]
    kept, split = np.flatnonzero(~mixed), np.flatnonzero(mixed)
    members = np.flatnonzero(mixed[group])
    owner = group[members]
    minority = np.where(past <= short, 0, 1)[owner]
    on_minority = side[members] == minority
    key = (n_groups + 4) + 2 * owner + on_minority
    alone = np.flatnonzero(on_minority)
    cap = min(base_rows, SPLIT_ROWS)
    if alone.size > cap:   # those nearest their kink
        alone = alone[np.argpartition(np.abs(residual[members[alone]]), cap - 1)[:cap]]
    key[alone] = 3 * n_groups + 4 + np.arange(alone.size)
    # new group numbers in the order of the keys (kept and merged groups, then pieces), no sort
    present = np.zeros(3 * n_groups + 4 + alone.size, dtype=bool)
    present[label[kept]] = True
    present[key] = True
    relabel = np.cumsum(present) - 1
    n_new = int(relabel[-1]) + 1
    of_kept, of_member = relabel[label[kept]], relabel[key]
    of_group = np.full(n_groups, -1)
    of_group[kept] = of_kept
    out = of_group[group]
    out[members] = of_member
    merged = np.zeros((n_new, sums.shape[1]))
    np.add.at(merged, of_kept, sums[kept])
    # only the split-off rows are read: the rest of a mixed group is its sum minus theirs
    off = np.flatnonzero(on_minority)
    is_piece = np.zeros(n_new, dtype=bool)
    is_piece[of_member[off]] = True
    pieces = np.flatnonzero(is_piece)
    local = (np.cumsum(is_piece) - 1)[of_member[off]]
    piece_sums = _group_sums(rows, members[off], local, costs, pieces.size)
    merged[pieces] = piece_sums
    rest = relabel[n_groups + 4 + 2 * split]   # every mixed group keeps rows on its majority side
    merged[rest] = sums[split]
    piece_owner = np.empty(pieces.size, dtype=np.intp)
    piece_owner[local] = owner[off]
    rest_of = np.full(n_groups, -1)
    rest_of[split] = rest
    np.subtract.at(merged, rest_of[piece_owner], piece_sums)
    start = None
    if beta is not None:   # each new group starts at the dual of its source (a piece: its parent's)
        start = np.empty(n_new)
        start[of_kept] = beta[kept]
        start[of_member] = beta[owner]
    # a new group made of exactly one kept group is that group unchanged
    source = np.full(n_new, -1, dtype=np.intp)
    alone_kept = np.bincount(of_kept, minlength=n_new)[of_kept] == 1
    source[of_kept[alone_kept]] = kept[alone_kept]
    return out, merged, start, source


def solve_threshold_lp(rows: ChecklistRows, m: int, lam: float, c_pos: float = 1.0, c_neg: float = 1.0, *,
                       integral: bool = False, time_limit: float | None = None, row_sampling: float | None = None,
                       base_rows: int = BASE_ROWS, random_state=None, rng: np.random.Generator | None = None,
                       costs_of: np.ndarray | None = None, warm: bool | None = None) -> ThresholdLPResult:
    """The m-of-n LP (or, with ``integral``, integer program) for one m over all rows, exactly.

    Parameters
    ----------
    rows : ChecklistRows
        Distinct weighted rows of both classes.
    m : int
        Threshold (>= 1).
    lam : float
        Cost of one literal, in units of one (weighted) error.
    c_pos, c_neg : float
        Cost of one missing literal on a positive row, of one surplus literal on a negative row.
    integral : bool
        Solve the integer program (0/1 w); the row generation is exact for it too.
    time_limit : float, optional
        Seconds per solve; a solve stopped by it makes ``optimal`` False (and warns).
    row_sampling : float in (0, 1), optional
        Start from the solution of a sample of this fraction of the rows (at least
        ``base_rows``), grouping the rows by it, and refine the groups (see the module notes);
        None: one LP with a constraint per row. The optimum is the same either way.
    base_rows : int
        Fewest rows of a sample; fewer rows than this are solved with a constraint each.
    random_state : None, int or numpy Generator
        Seeds the samples (``rng``, an already made Generator, takes precedence).
    costs_of : ndarray, optional
        Error cost of each row (default: ``c_pos`` or ``c_neg`` times its weight).
    warm : bool, optional
        Solve the LP relaxations in one live HiGHS model, edited in place between rounds and
        each solve started from the last basis (:class:`~logicrules.lp.mofn_warm.WarmChecklistLP`);
        default: when highspy is installed. False: each from scratch (SciPy's HiGHS). The
        optimum is the same; the LP with one constraint per row (no sampling) and the integer
        program are always solved by SciPy's HiGHS from scratch, so a fit without sampling picks
        the same optimal w on every path.

    Returns
    -------
    ThresholdLPResult

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    >>> rows = ChecklistRows.from_dense(A, np.array([1, 1, 1, 0, 0, 0], dtype=bool))
    >>> fit = solve_threshold_lp(rows, 2, lam=0.1)
    >>> np.round(fit.w, 6).tolist(), round(fit.objective, 6)
    ([1.0, 1.0, 1.0], 0.3)
    """
    started = time.perf_counter()
    rng = np.random.default_rng(check_seed(random_state)) if rng is None else rng
    costs = _row_costs(rows, c_pos, c_neg) if costs_of is None else costs_of
    history: list = []
    group, optimal = _first_groups(rows, costs, m, lam, time_limit, row_sampling, base_rows, rng, history, warm)
    n_groups = int(group.max(initial=-1)) + 1
    require_model_memory(float(n_groups) * rows.n_attributes, n_groups, n_groups + rows.n_attributes, "the m-of-n LP")
    sums = _group_sums(rows, np.arange(rows.n_rows), group, costs, n_groups)
    weight = np.bincount(group, weights=costs, minlength=n_groups)
    positive = np.zeros(n_groups, dtype=bool)
    positive[group] = rows.positive
    rounds, merging, previous, start, source = 0, not integral, -np.inf, None, None
    scale = max(1.0, float(costs.sum()))
    if warm is None:
        warm = warm_available()
    elif warm and not warm_available():
        raise ImportError("warm=True needs highspy, the optional 'highs' extra (pip install highspy)")
    model = WarmChecklistLP(rows.n_attributes, m, lam, time_limit) if warm and not integral else None
    while True:
        rounds += 1
        if model is None or (rounds == 1 and n_groups == rows.n_rows):
            # one constraint per row (no sampling): cold, as every other path solves it
            w, value, proved, beta = _solve_relaxation(sums, weight, positive, m, lam, integral, time_limit)
        else:   # the live model: built at the first round, then edited in place
            w, value, proved, beta = model.solve(sums, weight, positive, start, source)
        optimal &= proved
        residual = _residuals(rows, rows.scores(w), m)
        objective = lam * float(w.sum()) + float(costs @ np.maximum(residual, 0.0))
        side = _sides(residual)
        past = np.bincount(group, weights=side == 0, minlength=n_groups)
        short = np.bincount(group, weights=side == 1, minlength=n_groups)
        mixed = (past > 0) & (short > 0)
        history.append({"rows": rows.n_rows, "groups": n_groups, "split": int(np.count_nonzero(mixed)),
                        "lower": value, "upper": objective, "seconds": time.perf_counter() - started})
        if not mixed.any():
            break
        mixed = _worst_mixed(group, costs, residual, mixed)
        # merging keeps the bound but may undo a split: once a round does not raise the bound,
        # the groups only split (so the rounds end)
        merging &= value > previous + 1e-12 * scale
        previous = value
        group, sums, start, source = _regroup(rows, costs, group, sums, residual, side, past, short, mixed, positive,
                                              beta, merging, base_rows)
        n_groups = sums.shape[0]
        weight = np.bincount(group, weights=costs, minlength=n_groups)
        positive = np.zeros(n_groups, dtype=bool)
        positive[group] = rows.positive
    return ThresholdLPResult(w=w, objective=objective, lower_bound=value, optimal=optimal, groups=n_groups,
                             rounds=rounds, history=history)


def best_checklist(rows: ChecklistRows, solutions: dict[int, np.ndarray], lam: float, c_pos: float = 1.0,
                   c_neg: float = 1.0, max_terms: int | None = None) -> tuple[float, np.ndarray, int]:
    """The (literals, m) pair of least exact training objective among the thresholds of the LP
    solutions, in one pass over the rows.

    For every m (ascending) and every threshold t of its w (ascending) the literal set
    ``{j: w_j >= t}`` is combined with every m'; the objective is
    ``lam * size + c_pos * FN + c_neg * FP``; ties keep the earlier pair unless the later one has
    fewer literals. With ``max_terms`` only pairs with ``C(size, m') <= max_terms`` count. The
    empty rule (never fires) is the starting point.

    Returns
    -------
    (objective, columns, m)

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)
    >>> rows = ChecklistRows.from_dense(A, np.array([1, 1, 1, 0, 0, 0], dtype=bool))
    >>> value, columns, m = best_checklist(rows, {2: np.ones(3)}, lam=0.1)
    >>> round(value, 6), columns.tolist(), m
    (0.3, [0, 1, 2], 2)
    """
    plans = checklist_plans(solutions)
    hists = [_level_histograms(rows, order, sizes) if sizes.size else None for _, _, order, sizes in plans]
    return choose_checklist(plans, hists, float(rows.weights[rows.positive].sum()), lam, c_pos, c_neg, max_terms)


def checklist_plans(solutions: dict[int, np.ndarray]) -> list[tuple]:
    """Per m (ascending) of the LP solutions ``{m: w}``: ``(w, levels, order, sizes)``, the
    thresholds of w (its distinct values above 1e-6, ascending), the literals by decreasing
    weight and the size of each threshold's literal set: what :func:`best_checklist` counts."""
    plans = []
    for m, w in sorted(solutions.items()):
        levels = np.unique(w[w > 1e-6])
        order = np.argsort(-w, kind="stable")[:int(np.count_nonzero(w >= levels[0]))] if levels.size else None
        sizes = np.array([np.count_nonzero(w >= t) for t in levels], dtype=np.intp)
        plans.append((w, levels, order, sizes))
    return plans


def choose_checklist(plans: list[tuple], hists: list, n_pos: float, lam: float, c_pos: float = 1.0,
                     c_neg: float = 1.0, max_terms: int | None = None) -> tuple[float, np.ndarray, int]:
    """:func:`best_checklist` from the plans (:func:`checklist_plans`), the histograms of their
    levels (``hists[k][c, l, j]``: weight of the rows of class c with exactly j of the first
    ``sizes[l]`` literals of the k-th plan's order true; None for a plan without levels) and
    the positive rows' weight ``n_pos``: the same choice, from counts only."""
    best = (c_pos * n_pos, 0, np.zeros(0, dtype=np.intp), 1)
    for (w, levels, _, sizes), hist in zip(plans, hists):
        for level, (t, size) in enumerate(zip(levels, sizes)):
            ks = np.arange(1, size + 1)
            allowed = np.array([max_terms is None or math.comb(int(size), int(k)) <= max_terms for k in ks])
            if not allowed.any():
                continue
            tp = np.cumsum(hist[1, level, :size + 1][::-1])[::-1]  # tp[k] = positives with count >= k
            fp = np.cumsum(hist[0, level, :size + 1][::-1])[::-1]
            scores = np.where(allowed, lam * size + c_pos * (n_pos - tp[ks]) + c_neg * fp[ks], np.inf)
            k = int(np.argmin(scores))
            if (float(scores[k]), int(size)) < (best[0], best[1]):
                best = (float(scores[k]), int(size), np.flatnonzero(w >= t), int(ks[k]))
    return best[0], best[2], best[3]


def _level_histograms(rows: ChecklistRows, order: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``hist[c, l, k]``: weight of the rows of class c with exactly k of the first ``sizes[l]``
    literals of ``order`` true (one pass, block by block)."""
    n_levels, width = sizes.size, int(order.size) + 1
    hist = np.zeros(2 * n_levels * width)
    offsets = np.arange(n_levels) * width
    for start, stop in rows._steps(rows.n_rows):
        block = rows.unpack(slice(start, stop))[:, order]
        counts = np.cumsum(block, axis=1, dtype=np.int16)[:, sizes - 1]  # (rows, levels)
        cell = counts + offsets + (rows.positive[start:stop, None] * (n_levels * width))
        hist += np.bincount(cell.ravel(), weights=np.repeat(rows.weights[start:stop], n_levels),
                            minlength=hist.size)
    return hist.reshape(2, n_levels, width)
