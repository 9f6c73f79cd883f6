"""Comparative studies: cross-validate several learners on several datasets, compare formulas.

:func:`compare_learners` runs stratified K-fold cross-validation of every learner on every
dataset, one task per (dataset, learner, fold), in parallel through joblib or on a Dask cluster
(a dataset that is itself a dask collection is cross-validated without materializing it,
:mod:`logicrules.dask_folds`), and returns one tidy row per task (scores, rule size, attributes used, fit time, the rule as
text). :func:`summarize` turns it into mean and standard deviation per dataset and learner, and
:func:`to_markdown` into a table. :func:`compare_formulas` compares the rules of several fitted
models: logical equivalence, agreement on data and shared attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from logicrules.distributed import is_dask_collection
from logicrules.formula_comparison import compare_formulas, restricted_ideal_dnf
from logicrules.study_datasets import _binary_target, _dataset_weights, _datasets
from logicrules.study_folds import (MEASURES, RESULT_COLUMNS, _rule_columns, _run_on_dask, _run_on_joblib, _scorers,
                                    _tracked)
from logicrules.study_tables import summarize, to_markdown

__all__ = ["compare_formulas", "compare_learners", "restricted_ideal_dnf", "summarize", "to_markdown"]


# ------------------------------------------------------------------------ the study
def compare_learners(datasets: Any, learners: Mapping[str, Any], cv: Any = 10,
                     scoring: Any = ("accuracy", "f1"), n_jobs: int | None = 1,
                     random_state: int | None = 0, verbose: int = 1, client: Any = None,
                     return_estimators: bool = False, sample_weight: Any = None) -> pd.DataFrame:
    """Cross-validate every learner on every dataset: one tidy row per (dataset, learner, fold).

    Parameters
    ----------
    datasets : str, (X, y), tuple, dict or sequence of those
        Each dataset is a bundled dataset name (:func:`logicrules.datasets.list_datasets`; its
        target and positive class are known), an ``(X, y)`` pair, or a CSV file as
        ``(path, target)`` or ``(path, target, positive)`` (read by
        :func:`logicrules.datasets.load_csv`; with ``positive`` the target becomes
        ``positive`` vs. rest). A dict maps names to such specs; otherwise names are the
        bundled name, the CSV file's stem, or ``data0``, ``data1``, ... for pairs. Targets must
        have two classes; they are recoded 0/1 with 1 = the larger label (the rule learners'
        positive class ``classes_[1]``), so that ``"f1"`` scores that class whatever the labels.
        X may be a ``dask.dataframe.DataFrame`` or 2-D ``dask.array.Array`` with y a dask
        Series / Array partitioned alike: it is never materialized (:mod:`logicrules.dask_folds`):
        the folds are drawn inside the partitions (:class:`~logicrules.dask_folds.PartitionFolds`),
        every learner (a logicrules learner that fits from dask) is fitted from dask on the
        training rows and scored from the confusion matrix of its dask predictions on the test
        rows, fold-task after fold-task on the driver (each one passes over the partitions on the
        current scheduler).
    learners : dict of str to estimator
        Name -> unfitted estimator: the rule learners of logicrules and any scikit-learn
        classifier (e.g. ``RandomForestClassifier``) as a reference. Each is cloned per fold.
    cv : int or splitter, default 10
        Number of folds of a shuffled ``StratifiedKFold`` seeded with ``random_state`` (the
        same folds for every learner), or any object with ``split(X, y)``. On dask data an int
        gives ``PartitionFolds(cv, seed=random_state)`` (stratified within each partition;
        ``PartitionFolds(cv, seed, lengths=...)`` gives the same folds of the rows in memory), or
        pass a :class:`~logicrules.dask_folds.PartitionFolds`.
    scoring : str, sequence of str or dict, default ("accuracy", "f1")
        scikit-learn scorer names, or a dict name -> scorer name or ``scorer(estimator, X, y)``.
        On dask data each scorer is called on the fold's confusion matrix as four rows weighted
        by their counts: scores of the predicted labels (accuracy, f1, precision, recall,
        balanced accuracy, ...) equal those of the rows; a scorer that needs probabilities
        (``roc_auc``) raises a ValueError.
    n_jobs : int or None, default 1
        Parallel fold-tasks through joblib (-1: all cores). Inside
        ``joblib.parallel_config(backend="dask")`` the tasks go to the current Dask client.
    random_state : int or None, default 0
        Seed of the fold shuffling. The learners keep their own ``random_state``.
    verbose : int, default 1
        1: a tqdm progress bar over fold-tasks on stderr (when tqdm is installed); 0: silent.
    client : dask.distributed.Client, optional
        Run the fold-tasks on this Dask cluster (as futures; the data in memory is scattered
        once per dataset) instead of joblib; the passes of a dask dataset's fits run on it. For a local test, ``Client(processes=False)``; for a real
        cluster, start ``dask scheduler`` on one machine and ``dask worker tcp://HOST:8786`` on
        the others (each with logicrules installed), then pass
        ``Client("tcp://HOST:8786")``.
    return_estimators : bool, default False
        Add columns ``estimator`` (the fitted model of the fold) and ``test_index`` (positions
        of the fold's test rows; None on dask data, whose folds ``PartitionFolds`` gives), e.g.
        for :func:`compare_formulas` on one fold.
    sample_weight : array-like or dict of str to array-like, optional
        Row weights, one per row of the dataset (an array for a single dataset, or a dict
        dataset name -> weights): every learner is fitted with the weights of its training
        rows and scored with those of its test rows (a callable scorer is then called as
        ``scorer(estimator, X, y, sample_weight=w)``). Folds are drawn over the rows as given.
        The weights of a dask dataset are a dask Series / Array partitioned like its X.

    Returns
    -------
    DataFrame
        One row per (dataset, learner, fold), in that order: ``dataset``, ``learner``, ``fold``,
        one column per score, ``formula_size`` (literals), ``n_attributes`` (distinct binarized
        attributes in the rule), ``n_columns`` (distinct original columns behind them),
        ``fit_seconds`` and ``formula`` (text). The rule columns are None for learners without
        a ``formula_``.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from logicrules.fca.premise.estimator import OptimalPremiseClassifier
    >>> results = compare_learners(
    ...     ["hepatitis"], {"premise": OptimalPremiseClassifier(max_size=2),
    ...                     "tree": DecisionTreeClassifier(max_depth=2, random_state=0)},
    ...     cv=3, verbose=0)
    >>> results.shape[0], list(results.columns[:5])
    (6, ['dataset', 'learner', 'fold', 'accuracy', 'f1'])
    >>> print(to_markdown(summarize(results)))  # doctest: +SKIP
    """
    from sklearn.model_selection import StratifiedKFold

    if not isinstance(learners, Mapping) or not learners:
        raise TypeError("learners must be a non-empty dict of name -> estimator")
    for name, estimator in learners.items():
        if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
            raise TypeError(f"learner {name!r} is not a scikit-learn estimator: {estimator!r:.80}")
    scorers = _scorers(scoring)
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be at least 2, got {cv}")
        splitter = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=random_state)
    elif hasattr(cv, "split"):
        splitter = cv
    else:
        raise TypeError(f"cv must be an int or a splitter with split(X, y), got {cv!r}")

    data, tasks = [], []
    named = list(_datasets(datasets))
    weights = _dataset_weights(sample_weight, [name for name, _, _ in named])
    for d, (name, X, y) in enumerate(named):
        if is_dask_collection(X):  # folds formed inside the partitions, fitted from dask on the driver
            from logicrules.dask_folds import dask_fold_data

            data.append(dask_fold_data(name, X, y, weights.get(name), cv, random_state, learners))
            for learner, estimator in learners.items():
                for fold in range(data[-1].folds.n_splits):
                    tasks.append((d, {"dataset": name, "learner": learner, "fold": fold, "estimator": estimator}))
            continue
        y01 = _binary_target(name, y)
        if len(y01) != len(X):
            raise ValueError(f"dataset {name!r}: X has {len(X)} rows but y has {len(y01)}")
        w = weights.get(name)
        if w is not None and len(w) != len(y01):
            raise ValueError(f"sample_weight of dataset {name!r} has {len(w)} entries, the data {len(y01)} rows")
        data.append((X, y01, w))
        folds = list(splitter.split(np.zeros((len(y01), 1)), y01))
        for learner, estimator in learners.items():
            for fold, (train, test) in enumerate(folds):
                tasks.append((d, {"dataset": name, "learner": learner, "fold": fold,
                                  "estimator": estimator, "train": train, "test": test}))
    from logicrules.dask_folds import DaskFoldData, run_dask_folds

    on_dask = [i for i, (d, _) in enumerate(tasks) if isinstance(data[d], DaskFoldData)]
    in_memory = [i for i in range(len(tasks)) if i not in set(on_dask)]
    rows: list[dict | None] = [None] * len(tasks)
    if in_memory:
        subset = [tasks[i] for i in in_memory]
        done = (_run_on_dask(client, data, subset, scorers, return_estimators, verbose) if client is not None
                else _run_on_joblib(data, subset, scorers, return_estimators, n_jobs, verbose))
        for i, row in zip(in_memory, done):
            rows[i] = row
    if on_dask:
        subset = [(data[d], task) for d, task in (tasks[i] for i in on_dask)]
        done = _tracked(enumerate(run_dask_folds(client, subset, scorers, return_estimators, _rule_columns)),
                        len(subset), verbose)
        for i, row in zip(on_dask, done):
            rows[i] = row
    columns = [*RESULT_COLUMNS, *scorers, *MEASURES, "formula"]
    if return_estimators:
        columns += ["estimator", "test_index"]
    frame = pd.DataFrame(rows, columns=columns)
    for column in ("formula_size", "n_attributes", "n_columns"):
        frame[column] = frame[column].astype("Int64")
    formulas = np.empty(len(rows), dtype=object)
    formulas[:] = [row["formula"] for row in rows]
    frame["formula"] = pd.Series(formulas, index=frame.index, dtype=object)  # None, not NaN
    return frame
