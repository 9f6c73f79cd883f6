"""``lam="cv"`` of :class:`~logicrules.lp.estimator.LPRuleClassifier` on dask data: the inner
cross-validation over folds drawn inside the partitions.

In memory ``lam="cv"`` scores every lam of :data:`~logicrules.lp.estimator.LAM_GRID` by 3-fold
stratified cross-validation (scikit-learn's ``StratifiedKFold`` over the rows). Those folds
need every row's position in the whole data; on dask the folds are
:class:`~logicrules.dask_folds.PartitionFolds` instead (the folds of ``compare_learners`` on
dask data): drawn partition by partition from ``split_seed(random_state)``, stratified within
each partition, over all rows of the partition (rows of weight 0 included in the draw). So the
chosen lam is that of the in-memory procedure run on the same ``PartitionFolds`` of the same
rows (``PartitionFolds(3, seed, lengths=partition lengths)``), not in general that of
``StratifiedKFold``.

Everything else is the in-memory procedure: the binarizer and the error costs of the whole
data, each fold's fit from the counts of its training rows (the rows of the fold get weight 0,
:class:`FoldWeights`), the grid walked from the largest lam down (with column generation every
fit warm-started with the previous one's pool, the final fit with the pools of the chosen
lam), the weighted accuracy on the test rows summed over folds, ties to the larger lam. Each
fold's fit is a dask fit of its own (its passes), and the rules of all lams of a fold are scored
on its test rows in one more pass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from logicrules.dask_folds import PartitionFolds
from logicrules.fca.context import FormalContext
from logicrules.fca.counts import RowBlock
from logicrules.progress import progress_bar

__all__ = ["FoldWeights", "choose_lam_on_partitions"]

#: Folds of the inner cross-validation (fewer when a class has fewer rows), as in memory.
N_FOLDS = 3


class FoldWeights:
    """Row weights of one fold of :class:`~logicrules.dask_folds.PartitionFolds`: a row's weight
    (1 without weights) on the fold's training rows (``test=False``) or on its test rows, 0
    elsewhere. A ``reweight`` of :class:`~logicrules.fca.dask_counts.DaskCounts`.

    Examples
    --------
    >>> FoldWeights(PartitionFolds(2, seed=0), fold=0)(0, np.array([0, 1, 0, 1]), None).tolist()
    [1.0, 1.0, 0.0, 0.0]
    """

    def __init__(self, folds: PartitionFolds, fold: int, test: bool = False) -> None:
        self.folds, self.fold, self.test = folds, int(fold), bool(test)

    def __call__(self, number: int, labels: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
        inside = (self.folds.assign(number, np.asarray(labels)) == self.fold) == self.test
        return np.where(inside, 1.0 if weights is None else weights, 0.0)


def _correct(block: RowBlock, predict: Callable, structures: tuple) -> np.ndarray:
    """The weight of the rows each structure classifies right, and the rows' total weight."""
    context = FormalContext.from_bits(block.bits, block.n_rows)
    labels = block.labels.astype(bool)
    weights = np.ones(block.n_rows) if block.weights is None else block.weights
    right = [weights[predict(structure, context) == labels].sum() for structure in structures]
    return np.array([*right, weights.sum()])


def choose_lam_on_partitions(grid: Sequence[float], predict: Callable, smallest: int, seed: int,
                             counts_of: Callable[[FoldWeights], Any], learn: Callable[[Any, float, tuple], tuple],
                             column_generation: bool, verbose: int = 0) -> tuple[float, tuple]:
    """The lam of ``grid`` with the best inner cross-validated accuracy (module notes).

    Parameters
    ----------
    grid : sequence of float
        The candidates (:data:`~logicrules.lp.estimator.LAM_GRID`).
    predict : callable
        ``predict(structure, context)``: where a learned structure fires on packed rows.
    smallest : int
        Rows of the smaller class (below 2: no cross-validation, the middle of the grid).
    seed : int
        Seed of the :class:`~logicrules.dask_folds.PartitionFolds`.
    counts_of : callable
        ``counts_of(fold_weights)``: the :class:`~logicrules.fca.dask_counts.DaskCounts` of the
        data reweighted by a :class:`FoldWeights`.
    learn : callable
        ``learn(counts, lam, initial_terms) -> (structure, fits)``: the fit of one lam.
    column_generation : bool
        Warm-start along the grid with the fits' pools.

    Returns
    -------
    lam, initial_terms
        The chosen lam and the terms generated at it in all folds (empty unless column
        generation).
    """
    import dask

    if smallest < 2:
        return grid[len(grid) // 2], ()
    folds = PartitionFolds(min(N_FOLDS, smallest), seed)
    scores = np.zeros(len(grid))
    pools: list[dict] = [{} for _ in grid]
    with progress_bar(folds.n_splits * len(grid), "lam grid x folds", verbose) as bar:
        for fold in range(folds.n_splits):
            train = counts_of(FoldWeights(folds, fold))
            structures, warm = [None] * len(grid), ()
            for k in range(len(grid) - 1, -1, -1):
                structures[k], fits = learn(train, grid[k], warm)
                if column_generation:
                    warm = fits[0].pool
                    pools[k].update(dict.fromkeys(warm))
                bar.update()
            test = counts_of(FoldWeights(folds, fold, test=True))
            (right,) = dask.compute(test.lazy(functools.partial(_correct, predict=predict,
                                                                structures=tuple(structures))))
            test.n_passes += 1
            if right is not None and right[-1] > 0:
                scores += right[:-1] / right[-1]
    best = int(np.flatnonzero(scores >= scores.max() - 1e-12)[-1])
    return float(grid[best]), tuple(pools[best])
