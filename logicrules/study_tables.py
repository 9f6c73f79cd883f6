"""Tables of a comparative study: mean and standard deviation per dataset and learner
(:func:`summarize`), and a Markdown table of them (:func:`to_markdown`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


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
