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

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from logicrules.distributed import is_dask_collection

__all__ = ["compare_formulas", "compare_learners", "restricted_ideal_dnf", "summarize", "to_markdown"]

#: Columns of :func:`compare_learners`' result besides the scores.
RESULT_COLUMNS = ("dataset", "learner", "fold")
#: Per-fold measurements summarized by :func:`summarize` besides the scores.
MEASURES = ("formula_size", "n_attributes", "n_columns", "fit_seconds")


# --------------------------------------------------------------------------- datasets
def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _resolve_dataset(spec: Any, position: int, name: str | None = None) -> tuple[str, Any, Any]:
    """One dataset spec -> (name, X, y)."""
    from logicrules.datasets import list_datasets, load_csv, load_dataset

    if isinstance(spec, str) and spec in list_datasets():
        X, y = load_dataset(spec)
        return name or spec, X, y
    if _is_path(spec):
        raise ValueError(
            f"dataset {os.fspath(spec)!r} is neither a bundled dataset ({', '.join(list_datasets())}) "
            "nor usable as a CSV path without its target: pass (path, target) or "
            "(path, target, positive)"
        )
    if isinstance(spec, tuple) and spec and _is_path(spec[0]):
        if len(spec) not in (2, 3) or not isinstance(spec[1], str):
            raise ValueError(
                f"a CSV dataset is (path, target) or (path, target, positive), got {spec!r}"
            )
        X, y = load_csv(spec[0], spec[1], positive=spec[2] if len(spec) == 3 else None)
        stem = os.path.basename(os.fspath(spec[0]))
        for suffix in (".gz", ".csv"):
            stem = stem[: -len(suffix)] if stem.endswith(suffix) else stem
        return name or stem, X, y
    if isinstance(spec, (tuple, list)) and len(spec) == 2:
        X, y = spec
        return name or f"data{position}", X, y
    raise TypeError(
        f"cannot read dataset {spec!r:.80}: use a bundled name, an (X, y) pair or a CSV "
        "(path, target[, positive]) tuple"
    )


def _is_csv_spec(value: Any) -> bool:
    """Whether a top-level tuple is one ``(path, target[, positive])`` rather than several specs."""
    from logicrules.datasets import list_datasets

    return (isinstance(value, tuple) and len(value) in (2, 3) and _is_path(value[0])
            and value[0] not in list_datasets() and isinstance(value[1], str)
            and value[1] not in list_datasets() and not os.path.exists(value[1]))


def _datasets(datasets: Any) -> list[tuple[str, Any, Any]]:
    if isinstance(datasets, Mapping):
        items = [_resolve_dataset(spec, i, str(name)) for i, (name, spec) in enumerate(datasets.items())]
    elif isinstance(datasets, str) or _is_csv_spec(datasets):
        items = [_resolve_dataset(datasets, 0)]
    elif isinstance(datasets, tuple) and len(datasets) == 2 and not isinstance(datasets[0], (str, tuple)):
        items = [_resolve_dataset(datasets, 0)]  # a single (X, y) pair
    else:
        items = [_resolve_dataset(spec, i) for i, spec in enumerate(datasets)]
    if not items:
        raise ValueError("no datasets given")
    names = [name for name, _, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"dataset names must be unique, got {names}; pass a dict name -> dataset")
    return items


def _binary_target(name: str, y: Any) -> np.ndarray:
    """y as 0/1 with 1 = the larger label (the learners' ``classes_[1]``)."""
    values = pd.Series(np.asarray(y)).reset_index(drop=True)
    if values.isna().any():
        raise ValueError(f"dataset {name!r}: the target has missing values")
    labels = np.unique(values.to_numpy())
    if len(labels) != 2:
        raise ValueError(
            f"dataset {name!r}: the target has {len(labels)} classes ({labels[:10].tolist()}); "
            "compare_learners needs exactly two (pick a positive class, e.g. (path, target, positive))"
        )
    return (values.to_numpy() == labels[1]).astype(np.int64)


# --------------------------------------------------------------------------- scoring
def _scorers(scoring: Any) -> dict[str, Callable]:
    from sklearn.metrics import get_scorer

    if isinstance(scoring, str):
        scoring = (scoring,)
    if isinstance(scoring, Mapping):
        scorers = {}
        for name, scorer in scoring.items():
            scorers[str(name)] = get_scorer(scorer) if isinstance(scorer, str) else scorer
            if not callable(scorers[str(name)]):
                raise TypeError(f"scorer {name!r} must be a name or a callable scorer(estimator, X, y)")
    else:
        scorers = {str(name): get_scorer(name) for name in scoring}
    if not scorers:
        raise ValueError("scoring names no score")
    clash = set(scorers) & (set(RESULT_COLUMNS) | set(MEASURES) | {"formula"})
    if clash:
        raise ValueError(f"score names {sorted(clash)} clash with result columns")
    return scorers


# --------------------------------------------------------------------------- one fold
def _rows(X: Any, index: np.ndarray) -> Any:
    return X.iloc[index] if hasattr(X, "iloc") else np.asarray(X)[index]


def _used_columns(model: Any, attributes: frozenset) -> int | None:
    """Distinct original columns behind the formula's attributes (None when unknown)."""
    binarizer = getattr(model, "binarizer_", None)
    if binarizer is None:
        return len(attributes)
    conditions = getattr(binarizer, "conditions_", None)
    if conditions is None:
        return None
    by_name = {c.name: c.column for c in conditions}
    return len({by_name.get(str(a), str(a)) for a in attributes})


def _rule_columns(model: Any, seconds: float) -> dict:
    """The result row's rule columns of a fitted model (None without a ``formula_``)."""
    formula = getattr(model, "formula_", None)
    if formula is None:
        return {"formula_size": None, "n_attributes": None, "n_columns": None, "fit_seconds": seconds,
                "formula": None}
    return {"formula_size": int(formula.size), "n_attributes": len(formula.attributes),
            "n_columns": _used_columns(model, formula.attributes), "fit_seconds": seconds, "formula": str(formula)}


def _run_fold(task: dict, X: Any, y: np.ndarray, scorers: dict[str, Callable],
              return_estimator: bool, w: np.ndarray | None = None) -> dict:
    """Fit one learner on one fold's training rows and score it on the test rows (weighted by
    ``w`` when given)."""
    from sklearn.base import clone

    model = clone(task["estimator"])
    train, test = task["train"], task["test"]
    X_train, X_test = _rows(X, train), _rows(X, test)
    fit_weight = {} if w is None else {"sample_weight": w[train]}
    score_weight = {} if w is None else {"sample_weight": w[test]}
    start = time.perf_counter()
    try:
        model.fit(X_train, y[train], **fit_weight)
    except Exception as error:
        raise RuntimeError(
            f"{task['learner']} failed on dataset {task['dataset']!r}, fold {task['fold']}: "
            f"{type(error).__name__}: {error}"
        ) from error
    row: dict[str, Any] = {"dataset": task["dataset"], "learner": task["learner"], "fold": task["fold"]}
    seconds = time.perf_counter() - start
    for name, scorer in scorers.items():
        row[name] = float(scorer(model, X_test, y[test], **score_weight))
    row.update(_rule_columns(model, seconds))
    if return_estimator:
        row["estimator"] = model
        row["test_index"] = test
    return row


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


def _progress(total: int, verbose: int):
    if not verbose:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="fold-tasks", unit="task")


def _dataset_weights(sample_weight: Any, names: list[str]) -> dict[str, np.ndarray]:
    """Weights per dataset name from ``compare_learners``'s ``sample_weight``."""
    if sample_weight is None:
        return {}
    if isinstance(sample_weight, Mapping):
        unknown = set(sample_weight) - set(names)
        if unknown:
            raise ValueError(f"sample_weight names unknown datasets {sorted(map(str, unknown))}; "
                             f"the datasets are {names}")
        return {name: _as_weights(w) for name, w in sample_weight.items()}
    if len(names) != 1:
        raise ValueError("with several datasets, give sample_weight as a dict dataset name -> weights")
    return {names[0]: _as_weights(sample_weight)}


def _as_weights(w: Any) -> Any:
    """Weights as float64, a dask collection left lazy."""
    return w if is_dask_collection(w) else np.asarray(w, dtype=np.float64)


def _indexed_fold(i: int, task: dict, X: Any, y: np.ndarray, w: np.ndarray | None,
                  scorers: dict[str, Callable], return_estimator: bool) -> tuple[int, dict]:
    return i, _run_fold(task, X, y, scorers, return_estimator, w)


def _run_on_joblib(data, tasks, scorers, return_estimators, n_jobs, verbose) -> list[dict]:
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    jobs = (delayed(_indexed_fold)(i, task, *data[d], scorers, return_estimators)
            for i, (d, task) in enumerate(tasks))
    return _tracked(parallel(jobs), len(tasks), verbose)


def _tracked(rows: Iterable[tuple[int, dict]], total: int, verbose: int) -> list[dict]:
    """The rows of ``total`` fold-tasks from ``(position, row)`` pairs as they end, under a
    progress bar (``verbose``)."""
    bar = _progress(total, verbose)
    out: list[dict | None] = [None] * total
    try:
        for i, row in rows:
            out[i] = row
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return out


def _run_on_dask(client, data, tasks, scorers, return_estimators, verbose) -> list[dict]:
    from distributed import as_completed

    scattered = {d: client.scatter(list(data[d]), broadcast=False) for d in sorted({d for d, _ in tasks})}
    futures = {}
    for i, (d, task) in enumerate(tasks):
        X_future, y_future, w_future = scattered[d]
        future = client.submit(_run_fold, task, X_future, y_future, scorers, return_estimators,
                               w_future, pure=False)
        futures[future] = i
    bar = _progress(len(tasks), verbose)
    rows: list[dict | None] = [None] * len(tasks)
    try:
        for future in as_completed(list(futures)):
            rows[futures[future]] = future.result()
            if bar is not None:
                bar.update()
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        if bar is not None:
            bar.close()
    return rows


# ------------------------------------------------------------------------- summaries
def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation per dataset and learner.

    Parameters
    ----------
    results : DataFrame
        The output of :func:`compare_learners`.

    Returns
    -------
    DataFrame
        One row per (dataset, learner) in the order of ``results``, with ``n_folds`` and
        ``<measure>_mean`` / ``<measure>_std`` (sample standard deviation over folds) for every
        score and for ``formula_size``, ``n_attributes``, ``n_columns``, ``fit_seconds``
        (NaN for learners without a rule).

    Examples
    --------
    >>> results = pd.DataFrame({"dataset": ["d"] * 2, "learner": ["a"] * 2, "fold": [0, 1],
    ...                         "accuracy": [0.8, 0.9], "fit_seconds": [0.1, 0.3]})
    >>> summarize(results)[["accuracy_mean", "fit_seconds_mean"]].round(3).values.tolist()
    [[0.85, 0.2]]
    """
    missing = [c for c in ("dataset", "learner") if c not in results.columns]
    if missing:
        raise ValueError(f"results lack the column(s) {missing}; pass the output of compare_learners")
    skip = {"dataset", "learner", "fold", "formula", "estimator", "test_index"}
    measures = [c for c in results.columns if c not in skip]
    numbers = results[["dataset", "learner"]].copy()
    for column in measures:
        numbers[column] = pd.to_numeric(results[column], errors="coerce").astype(float)
    grouped = numbers.groupby(["dataset", "learner"], sort=False)
    out = grouped.size().rename("n_folds").to_frame()
    for column in measures:
        out[f"{column}_mean"] = grouped[column].mean()
        out[f"{column}_std"] = grouped[column].std()
    return out.reset_index()


def to_markdown(summary: pd.DataFrame, digits: int = 3,
                measures: Sequence[str] | None = None) -> str:
    """A GitHub-flavoured markdown table of :func:`summarize`'s output: ``mean ± std`` cells.

    Parameters
    ----------
    summary : DataFrame
        The output of :func:`summarize`.
    digits : int, default 3
        Decimals shown.
    measures : sequence of str, optional
        Which measures (without ``_mean``) to show, in order; all by default.

    Returns
    -------
    str
        The table; ``n/a`` where a measure does not apply (e.g. rule size of a random forest).

    Examples
    --------
    >>> summary = pd.DataFrame({"dataset": ["d"], "learner": ["a"], "n_folds": [2],
    ...                         "accuracy_mean": [0.85], "accuracy_std": [0.0707]})
    >>> print(to_markdown(summary, digits=2))
    | dataset | learner | accuracy |
    |---|---|---|
    | d | a | 0.85 ± 0.07 |
    """
    available = [c[: -len("_mean")] for c in summary.columns if c.endswith("_mean")]
    if measures is None:
        measures = available
    unknown = [m for m in measures if m not in available]
    if unknown:
        raise ValueError(f"unknown measure(s) {unknown}; the summary has {available}")

    def cell(mean: Any, std: Any) -> str:
        if pd.isna(mean):
            return "n/a"
        if pd.isna(std):
            return f"{mean:.{digits}f}"
        return f"{mean:.{digits}f} ± {std:.{digits}f}"

    def text(value: Any) -> str:
        return str(value).replace("|", "\\|")

    header = ["dataset", "learner", *measures]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in summary.iterrows():
        cells = [text(row["dataset"]), text(row["learner"])]
        cells += [cell(row[f"{m}_mean"], row.get(f"{m}_std", np.nan)) for m in measures]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------ formula comparison
def compare_formulas(models: Mapping[str, Any], X: Any = None, *, on_domain: bool = False) -> pd.DataFrame:
    """Compare the rules of fitted models pairwise: equivalence, agreement, shared attributes.

    Equivalence is decided by :func:`logicrules.equivalence.equivalent` on the formulas as
    Boolean functions of their binarized attribute NAMES, each name an independent variable.
    It is therefore only meaningful when the models speak of the same attributes: when their
    binarized names coincide (same binarizer fitted on the same data, ``same_attributes``).
    The names of logicrules' binarizers are faithful conditions (``age > 54.5``), so
    ``equivalent=True`` still implies equal predictions on every row; but two formulas over
    different thresholds (``age > 54.5`` vs ``age > 55``) are never called equivalent even if
    no row separates them, since the implications between attributes are not known to the test.
    ``agreement`` measures the models on actual rows instead.

    Parameters
    ----------
    models : dict of str to fitted rule model
        Models with ``formula_`` (e.g. the fold's estimators of
        ``compare_learners(..., return_estimators=True)``).
    X : DataFrame or array-like, optional
        Raw rows (as given to ``predict``) on which to measure agreement.
    on_domain : bool, default False
        Decide ``equivalent`` on the data's domain instead: the literals are the binarizers'
        conditions on the original columns (``age > 54.5`` implies ``age > 50``), compared on
        every value a column can take (its categories seen at fit, missing values where the
        policy allows), so formulas over different binarizations of the same columns compare
        meaningfully.

    Returns
    -------
    DataFrame
        One row per pair: ``model_a``, ``model_b``, ``formula_a``, ``formula_b``,
        ``equivalent`` (bool), ``same_attributes`` (identical ``attribute_names_``),
        ``agreement`` (fraction of rows of X with the same positive/negative prediction; NaN
        without X), ``shared_attributes`` (binarized attributes used by both rules),
        ``shared_columns`` (original columns used by both) and ``attribute_jaccard``.

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.fca.premise.estimator import OptimalPremiseClassifier
    >>> from logicrules.lp.estimator import LPRuleClassifier
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5); y = np.array([1, 1, 0, 0] * 5)
    >>> models = {"premise": OptimalPremiseClassifier(binarizer="passthrough").fit(X, y),
    ...           "lp": LPRuleClassifier(binarizer="passthrough").fit(X, y)}
    >>> compare_formulas(models, X)[["equivalent", "agreement"]].values.tolist()
    [[True, 1.0]]
    """
    from logicrules.equivalence import equivalent

    if not isinstance(models, Mapping) or len(models) < 2:
        raise ValueError("compare_formulas needs a dict of at least two fitted models")
    for name, model in models.items():
        if getattr(model, "formula_", None) is None:
            raise TypeError(f"model {name!r} ({type(model).__name__}) has no formula_: "
                            "pass fitted rule models")
    positive = {}
    if X is not None:
        for name, model in models.items():
            positive[name] = np.asarray(model.predict(X)) == model.pos_label_
    rows = []
    for a, b in combinations(models, 2):
        ma, mb = models[a], models[b]
        fa, fb = ma.formula_, mb.formula_
        attrs_a, attrs_b = {str(x) for x in fa.attributes}, {str(x) for x in fb.attributes}
        shared = sorted(attrs_a & attrs_b)
        union = attrs_a | attrs_b
        cols_a, cols_b = _columns_of(ma, attrs_a), _columns_of(mb, attrs_b)
        rows.append({
            "model_a": a, "model_b": b, "formula_a": str(fa), "formula_b": str(fb),
            "equivalent": bool(equivalent(fa, fb, domain=_joint_domain(ma, mb) if on_domain else None)),
            "same_attributes": list(getattr(ma, "attribute_names_", []))
            == list(getattr(mb, "attribute_names_", [])),
            "agreement": float(np.mean(positive[a] == positive[b])) if X is not None else np.nan,
            "shared_attributes": shared,
            "shared_columns": sorted(cols_a & cols_b),
            "attribute_jaccard": len(shared) / len(union) if union else 1.0,
        })
    return pd.DataFrame(rows)


def _joint_domain(*models: Any):
    """The domain of several fitted models' binarizers: their conditions and categories."""
    from logicrules.conditions import Domain

    conditions, categories = [], {}
    for model in models:
        binarizer = getattr(model, "binarizer_", None)
        conditions += list(getattr(binarizer, "conditions_", None) or ())
        for column, values in (getattr(binarizer, "categories_", None) or {}).items():
            categories.setdefault(column, [])
            categories[column] += [v for v in values if v not in categories[column]]
    return Domain(conditions, categories, unseen_categories=False)


def _columns_of(model: Any, attributes: set[str]) -> set[str]:
    binarizer = getattr(model, "binarizer_", None)
    conditions = getattr(binarizer, "conditions_", None) if binarizer is not None else None
    if conditions is None:
        return set(attributes)
    by_name = {c.name: c.column for c in conditions}
    return {by_name.get(a, a) for a in attributes}


def restricted_ideal_dnf(model: Any, X: Any, y: Any, tie: str = "positive"):
    """The empirical ideal DNF over the attributes of a model's rule, on data ``(X, y)``.

    The ideal DNF over a set of attributes is the formula with the fewest errors on ``(X, y)``
    among all formulas over those attributes (DESIGN.md, the ideal classifier method). Comparing
    it with the model's own rule (:func:`logicrules.equivalence.equivalent`, or
    :func:`compare_formulas`) answers whether, e.g., the optimal premise and the ideal DNF
    coincide when restricted to the same attributes; on its training rows the ideal DNF is
    never less accurate than the rule.

    Parameters
    ----------
    model : fitted rule model
        Its binarizer turns ``X`` into the attributes, and ``pos_label_`` is the positive class.
    X, y : data
        Usually the model's training rows (raw, as given to ``fit``).
    tie : {"positive", "negative"}, default "positive"
        Prediction of a type with exactly half positives.

    Returns
    -------
    Formula
        Over the attribute names of ``model.formula_`` (FALSE or TRUE when the rule has none).

    Examples
    --------
    >>> import numpy as np
    >>> from logicrules.fca.premise.estimator import OptimalPremiseClassifier
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5); y = np.array([1, 1, 0, 0] * 5)
    >>> model = OptimalPremiseClassifier(binarizer="passthrough").fit(X, y)
    >>> print(model.formula_, "|", restricted_ideal_dnf(model, X, y))
    x0 | x0
    """
    from logicrules.ideal.algorithm import empirical_ideal_dnf

    if getattr(model, "formula_", None) is None:
        raise TypeError(f"{type(model).__name__} has no formula_: pass a fitted rule model")
    positive = np.asarray(y) == model.pos_label_
    features = sorted(str(a) for a in model.formula_.attributes)
    Xb = pd.DataFrame(model.binarize(X), columns=[str(a) for a in model.attribute_names_])
    return empirical_ideal_dnf(Xb, positive, features=features, tie=tie)
