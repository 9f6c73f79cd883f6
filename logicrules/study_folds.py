"""One fold of a comparative study and where the folds run: scorers, a fold's fit and its row,
joblib or a Dask cluster, with progress."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

#: Columns of :func:`compare_learners`' result besides the scores.
RESULT_COLUMNS = ("dataset", "learner", "fold")
#: Per-fold measurements summarized by :func:`summarize` besides the scores.
MEASURES = ("formula_size", "n_attributes", "n_columns", "fit_seconds")


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


def _progress(total: int, verbose: int):
    if not verbose:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="fold-tasks", unit="task")


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
