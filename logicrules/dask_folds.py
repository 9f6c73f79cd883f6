"""Cross-validation folds of a dask collection, formed where the partitions live.

:func:`~logicrules.compare.compare_learners` cross-validates on a ``dask.dataframe.DataFrame``
or a 2-D ``dask.array.Array`` without materializing it: every row gets a fold from its partition
alone (:class:`PartitionFolds`), the training and test rows of a fold are masks applied inside
each partition (lazily, as new dask collections of the same partitions), every learner is
fitted from dask on the training rows (its ``fit`` reads them through counts over the
partitions) and scored from its dask predictions on the test rows: the confusion matrix of
each partition, summed. No process holds more than one partition.

How the folds are drawn (:meth:`PartitionFolds.assign`): in partition ``p`` of ``n`` rows with
0/1 labels ``y``, ``rng = numpy.random.default_rng([seed, p])`` draws a key per row
(``rng.random(n)``) and an offset (``rng.integers(n_splits)``); the rows ordered by (label,
key) are dealt to the folds in turn, the ``j``-th to fold ``(j + offset) % n_splits``. So every
fold holds, within each partition, the same number of rows of each class up to one (stratified
partition by partition), and the folds depend only on the seed, the labels and the partitioning
(the rows of each partition), not on the scheduler. The same folds of the same rows in memory
are ``PartitionFolds(n_splits, seed, lengths=partition lengths)``, a scikit-learn splitter.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from logicrules.distributed import import_dask
from logicrules.fca.dask_counts import delayed_parts

__all__ = ["PartitionFolds"]


class PartitionFolds:
    """K folds of rows drawn partition by partition, stratified by class within each partition.

    Parameters
    ----------
    n_splits : int >= 2
        Number of folds.
    seed : int >= 0
        Seed of the draw (module notes: the draw of partition ``p`` is seeded ``[seed, p]``).
    lengths : sequence of int, optional
        Rows of each partition, for :meth:`split` on the same rows in memory (concatenated in
        partition order).

    Examples
    --------
    >>> folds = PartitionFolds(2, seed=0, lengths=[4, 2])
    >>> folds.assign(0, np.array([0, 1, 0, 1])).tolist()
    [1, 1, 0, 0]
    >>> [test.tolist() for _, test in folds.split(np.zeros((6, 1)), [0, 1, 0, 1, 1, 0])]
    [[2, 3, 5], [0, 1, 4]]
    """

    def __init__(self, n_splits: int, seed: int, lengths: Sequence[int] | None = None) -> None:
        if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
            raise ValueError(f"n_splits must be an int of at least 2, got {n_splits!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, got {seed!r}")
        self.n_splits, self.seed = int(n_splits), int(seed)
        self.lengths = None if lengths is None else [int(n) for n in lengths]

    def assign(self, number: int, labels: np.ndarray) -> np.ndarray:
        """The fold (0 .. n_splits - 1) of every row of partition ``number`` with these labels."""
        labels = np.asarray(labels)
        rng = np.random.default_rng([self.seed, int(number)])
        key = rng.random(labels.shape[0])
        offset = int(rng.integers(self.n_splits))
        order = np.lexsort((key, labels))
        folds = np.empty(labels.shape[0], dtype=np.intp)
        folds[order] = (np.arange(labels.shape[0]) + offset) % self.n_splits
        return folds

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of folds (scikit-learn's splitter interface)."""
        return self.n_splits

    def split(self, X: Any, y: Any, groups: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Training and test positions of each fold of rows in memory partitioned as ``lengths``."""
        if self.lengths is None:
            raise ValueError("PartitionFolds.split needs the partition lengths: PartitionFolds(n_splits, seed, "
                             "lengths=[rows of partition 0, rows of partition 1, ...])")
        y = np.asarray(y)
        if sum(self.lengths) != len(y):
            raise ValueError(f"the partition lengths sum to {sum(self.lengths)} rows, y has {len(y)}")
        bounds = np.cumsum([0, *self.lengths])
        folds = np.concatenate([self.assign(p, y[bounds[p]:bounds[p + 1]]) for p in range(len(self.lengths))]
                               or [np.zeros(0, dtype=np.intp)])
        for fold in range(self.n_splits):
            yield np.flatnonzero(folds != fold), np.flatnonzero(folds == fold)

    def __repr__(self) -> str:
        return f"PartitionFolds({self.n_splits}, seed={self.seed})"


# ------------------------------------------------------------------ folds as collections
def _take(values: Any, keep: np.ndarray) -> Any:
    if values is None:
        return None
    return values.iloc[np.flatnonzero(keep)] if hasattr(values, "iloc") else np.asarray(values)[keep]


def _fold_part(folds: PartitionFolds, number: int, part: Any, labels: Any, weights: Any, fold: int,
               test: bool) -> tuple[Any, Any, Any]:
    """The training (or test) rows of one partition in fold ``fold``: X, labels, weights."""
    assigned = folds.assign(number, np.asarray(labels))
    keep = assigned == fold if test else assigned != fold
    return _take(part, keep), _take(labels, keep), _take(weights, keep)


def _fold_sizes(folds: PartitionFolds, number: int, labels: Any) -> np.ndarray:
    if len(np.asarray(labels)) == 0:
        return np.zeros(folds.n_splits, dtype=np.int64)
    return np.bincount(folds.assign(number, np.asarray(labels)), minlength=folds.n_splits)


class DaskFoldData:
    """A dask dataset split into folds without materializing it: X, 0/1 labels, weights.

    Parameters
    ----------
    X : dask DataFrame or 2-D dask Array
    y01 : dask Series or 1-D Array of 0/1 int64, partitioned like X
    weights : dask Series or 1-D Array, optional
    folds : PartitionFolds
    """

    def __init__(self, X: Any, y01: Any, weights: Any, folds: PartitionFolds) -> None:
        import dask

        from logicrules.fca.dask_counts import dask_partitions

        self.X, self.y01, self.weights, self.folds = X, y01, weights, folds
        self._parts = dask_partitions(X, y01, weights)
        sizes = dask.delayed(_fold_sizes, pure=True)
        self.sizes = np.array(dask.compute(*[sizes(folds, p, labels) for p, (_, labels, _) in
                                             enumerate(self._parts)]), dtype=np.int64).reshape(-1, folds.n_splits)

    def part(self, fold: int, test: bool) -> tuple[Any, Any, Any]:
        """The training (``test=False``) or test rows of a fold as dask collections (X, y, weights)."""
        import dask

        da, dd = import_dask()
        select = dask.delayed(_fold_part, pure=True, nout=3)
        pieces = [select(self.folds, p, part, labels, weights, fold, test)
                  for p, (part, labels, weights) in enumerate(self._parts)]
        rows = self.sizes[:, fold] if test else self.sizes.sum(axis=1) - self.sizes[:, fold]
        out = []
        for k, like in enumerate((self.X, self.y01, self.weights)):
            if like is None:
                out.append(None)
            elif isinstance(like, (dd.DataFrame, dd.Series)):
                out.append(dd.from_delayed([piece[k] for piece in pieces], meta=like._meta, verify_meta=False))
            else:
                shape = (lambda n: (int(n), int(like.shape[1]))) if like.ndim == 2 else (lambda n: (int(n),))
                out.append(da.concatenate([da.from_delayed(piece[k], shape=shape(n), dtype=like.dtype)
                                           for piece, n in zip(pieces, rows)]))
        return out[0], out[1], out[2]


# ------------------------------------------------------------------ scoring from counts
def _confusion(predicted: Any, labels: Any, weights: Any) -> np.ndarray:
    """Rows (or weight) of each (true, predicted) 0/1 cell: ``[t0p0, t0p1, t1p0, t1p1]``."""
    cells = 2 * np.asarray(labels, dtype=np.int64) + (np.asarray(predicted) == 1)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    return np.bincount(cells, weights=w, minlength=4)


class _CellPredictions(ClassifierMixin, BaseEstimator):
    """Stands for a model on the four confusion cells: row ``(t, p)`` predicts ``p``."""

    def __init__(self) -> None:
        self.classes_ = np.array([0, 1])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X)[:, 1]


_CELLS = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])


def score_from_confusion(scorers: dict[str, Callable], confusion: np.ndarray, name: str) -> dict[str, float]:
    """Every scorer on the four cells of a confusion matrix weighted by their counts: the value
    it gives on the rows themselves (accuracy, f1, precision, recall, balanced accuracy, ...)."""
    out = {}
    for score, scorer in scorers.items():
        try:
            out[score] = float(scorer(_CellPredictions(), _CELLS, _CELLS[:, 0], sample_weight=confusion))
        except (AttributeError, TypeError) as error:
            raise ValueError(f"scorer {score!r} cannot score dataset {name!r} from its predicted labels: on "
                             "dask data compare_learners scores from the confusion matrix of the predictions "
                             "(use accuracy, f1, precision, recall, balanced_accuracy, jaccard, "
                             f"matthews_corrcoef, ...); it raised {type(error).__name__}: {error}") from error
    return out


def run_dask_fold(task: dict, data: DaskFoldData, scorers: dict[str, Callable], return_estimator: bool,
                  describe: Callable[[Any, float], dict]) -> dict:
    """Fit one learner on a fold's training rows from dask and score its dask predictions on the
    test rows (``describe`` adds the rule columns of the result row)."""
    import dask
    from sklearn.base import clone

    from logicrules.fca.dask_counts import tree_sum

    model = clone(task["estimator"])
    X_train, y_train, w_train = data.part(task["fold"], test=False)
    X_test, y_test, w_test = data.part(task["fold"], test=True)
    start = time.perf_counter()
    try:
        model.fit(X_train, y_train, **({} if w_train is None else {"sample_weight": w_train}))
    except Exception as error:
        raise RuntimeError(f"{task['learner']} failed on dataset {task['dataset']!r}, fold {task['fold']}: "
                           f"{type(error).__name__}: {error}") from error
    seconds = time.perf_counter() - start
    predicted = model.predict(X_test)
    pieces = [_delayed_parts(c) for c in (predicted, y_test, w_test)]
    confusion = dask.delayed(_confusion, pure=True)
    total, = dask.compute(tree_sum([confusion(p, t, w) for p, t, w in zip(*pieces)]))
    row = {"dataset": task["dataset"], "learner": task["learner"], "fold": task["fold"],
           **score_from_confusion(scorers, np.zeros(4) if total is None else total, task["dataset"])}
    row.update(describe(model, seconds))
    if return_estimator:
        row["estimator"] = model
        row["test_index"] = None
    return row


def _delayed_parts(collection: Any) -> Iterable[Any]:
    if collection is None:
        return itertools.repeat(None)  # zip stops at the others' length
    return delayed_parts(collection)


# ------------------------------------------------------------------ compare_learners' steps
def dask_fold_data(name: str, X: Any, y: Any, weights: Any, cv: Any, random_state: Any,
                   learners: dict) -> DaskFoldData:
    """A dask dataset of :func:`~logicrules.compare.compare_learners` split into its folds, the
    target recoded 0/1 (1 = the larger label) lazily; learners that cannot fit from dask refused."""
    from logicrules.base import RuleClassifier
    from logicrules.dask_fit import dask_classes
    from logicrules.distributed import is_dask_collection
    from logicrules.ideal.split import split_seed

    for learner, estimator in learners.items():
        if not isinstance(estimator, RuleClassifier):
            raise TypeError(f"dataset {name!r} is a dask collection and learner {learner!r} "
                            f"({type(estimator).__name__}) does not fit from dask data without materializing "
                            "it; compare it on data in memory")
    if isinstance(cv, PartitionFolds):
        folds = cv
    elif isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        folds = PartitionFolds(int(cv), split_seed(random_state))
    else:
        raise TypeError(f"dataset {name!r} is a dask collection: cv must be an int or a PartitionFolds (folds "
                        f"drawn inside the partitions), got {cv!r}")
    if weights is not None and not is_dask_collection(weights):
        raise TypeError(f"dataset {name!r} is a dask collection: its sample_weight must be a dask Series / "
                        "Array partitioned like X")
    y, classes, _ = dask_classes(y, f"dataset {name!r}")
    if len(classes) != 2:
        raise ValueError(f"dataset {name!r}: the target has {len(classes)} classes ({classes[:10].tolist()}); "
                         "compare_learners needs exactly two")
    return DaskFoldData(X, (y == classes[1]).astype(np.int64), weights, folds)


def run_dask_folds(client: Any, tasks: list[tuple[DaskFoldData, dict]], scorers: dict[str, Callable],
                   return_estimators: bool, describe: Callable[[Any, float], dict]) -> Iterator[dict]:
    """The fold-tasks of dask datasets, one after the other on the driver (their rows as they
    end): each fit and score is passes over the partitions on the current scheduler
    (``client``'s when given)."""
    from contextlib import nullcontext

    with client.as_current() if client is not None else nullcontext():
        for data, task in tasks:
            yield run_dask_fold(task, data, scorers, return_estimators, describe)
