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
  aside (:mod:`logicrules.fca.premise.space`): premises over them add no extent;
* sizes 1 and 2 are enumerated from single and pair counts (one matrix product);
* size 3 visits every triple of attributes in a compiled loop (:mod:`logicrules.fca.premise.kernels`)
  that counts ``a AND b AND c`` with popcounts, recovers the 8 truth-table cells and keeps the
  triple when its best read-once formula passes a *linear* test that every premise better than
  the current k-th best passes (Dinkelbach's line for F1/Jaccard); survivors are scored exactly,
  the threshold rises as better premises appear (running threshold);
* size 4 (:mod:`~logicrules.fca.premise.size4`) visits every attribute quadruple in a compiled loop: one
  4-way popcount per class plus stored 3-way counts give the 16 weighted cells, the sum of the
  positive cells bounds every formula, and the best read-once formula of 4 literals has a closed
  form over the cells (``x o g``: halves and the size-3 closed form; ``(x o y) o (z o w)``: block
  sums of a 4 x 4 table); premises of size 4 that repeat an attribute are functions of a triple,
  tested against every such function. An exact proximity bound skips most quadruples (and
  whole ranges of them) before counting: replacing one attribute by another one of the four or
  by a constant gives a premise over three attributes, and a read-once premise, monotone in each
  of its literals, loses at most the weight of the rows where the two differ *on one side*
  (``Pruning._proximity_pruning`` in :mod:`logicrules.fca.premise.pruning`). Greedy size-4
  premises seed the threshold. Memory grows as m^3/6 (the 3-way counts of sorted triples, 2 bytes per class, and their float32 "rooms"),
  time as m^4/24. The former method (``size4_method="extents"``: materialize every distinct
  extent of size <= 3 and combine them with rectangle bounds) is kept for comparison;
* with ``backend="torch"`` (:mod:`logicrules.fca.premise.torch_backend`, optional, for a GPU) the size-3 and
  size-4 scans count with matrix products over 0/1 matrices instead, with the same proximity
  pruning applied to whole rows of a matrix product, and hand the same survivors to the same
  exact scoring.
"""

from __future__ import annotations

from typing import Any

from logicrules.fca.premise.cost import SearchEstimate, estimate_search_cost
from logicrules.fca.premise.inputs import (
    _as_inputs,
    _as_weights,
    _check_max_size,
    _no_premise_error,
    _parse_time_limit,
    _search_arguments,
)
from logicrules.fca.premise.results import (
    PremiseResult,
    PremiseSearchMemoryError,
    SearchStatistics,
    SizeStatistics,
)
from logicrules.fca.premise.size3 import Size3
from logicrules.fca.premise.size4 import Size4Cells
from logicrules.fca.premise.size4_extents import Size4Extents
from logicrules.fca.premise.small_sizes import SmallSizes
from logicrules.fca.premise.preparation import prepare_attributes
from logicrules.fca.premise.space import CONNECTIVES
from logicrules.memory import DEFAULT_MEMORY_LIMIT
from logicrules.metrics import Objective

__all__ = [
    "PremiseResult",
    "PremiseSearchMemoryError",
    "SearchStatistics",
    "SizeStatistics",
    "estimate_premise_search",
    "find_best_premises",
]


class _Search(SmallSizes, Size3, Size4Cells, Size4Extents):
    """One search: the state of :class:`~logicrules.fca.premise.state.SearchState` and every size's scan."""

    def size4(self, count_extents: bool) -> None:
        if self.size4_method == "extents":
            self.size4_extents()
        else:
            self.size4_cells(count_extents)


def _resolve_backend(backend: str, device: Any, max_size: int) -> str:
    """"numba" or "torch" for the ``backend`` and ``device`` arguments of :func:`find_best_premises`.

    "auto" picks torch when a device is named or a CUDA device is present; it looks for one
    (importing torch) only when a size-3 or size-4 scan will run.
    """
    if backend not in ("auto", "numba", "torch"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'torch', got {backend!r}")
    if backend == "auto":
        from logicrules.fca.premise.torch_device import gpu_available

        backend = "torch" if device is not None or (max_size >= 3 and gpu_available()) else "numba"
    if device is not None and backend != "torch":
        raise ValueError(f"device={device!r} is for the torch backend; pass backend='torch'")
    return backend


def estimate_premise_search(X: Any, y: Any, max_size: int = 3, negations: bool = True, sample_weight: Any = None,
                            size4_method: str = "cells") -> SearchEstimate:
    """What :func:`find_best_premises` would cost on ``(X, y)``, without searching.

    Prepares the attributes (merging equal extents, one pass over the data) and returns their
    :class:`~logicrules.fca.premise.cost.SearchEstimate`: memory by part and the attribute
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
    max_size = _check_max_size(max_size)
    matrix, target, _ = _as_inputs(X, y, weighted=sample_weight is not None)
    weight = _as_weights(sample_weight, matrix.shape[0])
    prep = prepare_attributes(matrix, target, bool(negations), weight)
    return estimate_search_cost(prep, max_size, size4_method)


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
        Bytes (or "512MB", "4GB", "1GiB") the search may allocate; the caller's ``X``, ``y``
        and ``sample_weight`` are not counted. Covered, each estimated before it is allocated
        (a search that cannot fit raises :class:`PremiseSearchMemoryError` naming what needs the
        memory and how to need less):

        * the input: a bool ndarray is read in place; anything else (0/1 numbers, a DataFrame,
          a sparse matrix, a FormalContext) becomes one bool copy (``n m`` bytes), converted a
          block of rows or columns at a time;
        * the preparation: the packed bitsets (about one bit per cell; with ``sample_weight``
          each group of equal weight starts a new 64-bit word), their row indices (8-16 bytes
          per row) and the blocks of the packing, hashing and counting;
        * the search's tables (:func:`estimate_premise_search`: pair tables and bounds, size-2
          blocks, size-4 triple counts) and its working blocks (greedy seeds, exact scoring,
          candidate buffers: a sixteenth of the limit each, at most 32 MiB);
        * the torch backend on a CPU device: its dense 0/1 matrices (``m n`` entries of 4
          bytes, 8 with weights) and blocks get what the search leaves. On a CUDA device its
          matrices and blocks use up to ``memory_limit`` of *device* memory on top; on the host
          it moves the bitsets a block (at most 32 MiB) at a time.

        Not covered: what numba and torch allocate internally (their code and caches) and
        Python objects of the results.
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
        proximity pruning), "torch" (matrix products on ``device``, :mod:`logicrules.fca.premise.torch_backend`;
        needs PyTorch), or "auto": "torch" when PyTorch is installed and a CUDA device is
        present (or ``device`` is given), else "numba". Results are identical; only the
        statistics' ``counted`` may differ (the torch size-4 scan leaves out one of numba's
        pruning tests). Memory: see ``memory_limit``.
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
    args = _search_arguments(max_size, objective, top_k, negations, memory_limit, min_support, connectives, size_cost)
    max_size, memory = args.max_size, args.memory
    time_limit = _parse_time_limit(time_limit)
    matrix, target, keys = _as_inputs(X, y, memory, weighted=sample_weight is not None)
    if matrix.shape[1] == 0:
        raise ValueError("X has no attributes; a premise needs at least one")
    if matrix.shape[0] == 0:
        raise ValueError("X has no rows; premises are scored on at least one object")
    weight = _as_weights(sample_weight, matrix.shape[0])
    if size4_method not in ("cells", "extents"):
        raise ValueError(f"size4_method must be 'cells' or 'extents', got {size4_method!r}")
    search = _Search(matrix, target, keys, max_size, args.objective, args.top_k, args.negations, memory, progress,
                     pareto=bool(pareto), size4_method=size4_method, backend=_resolve_backend(backend, device, max_size),
                     device=device, sample_weight=weight, connectives=args.connectives, size_cost=args.size_cost,
                     time_limit=time_limit, copied_input=matrix is not X)
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
        raise _no_premise_error(args)
    if pareto:
        search.stats.pareto = search.pareto()
    return (results, search.stats) if return_stats else results
