"""Small real datasets bundled with the package, and a CSV loader with the same output shape.

The bundled files are copies of public UCI datasets; ``data/MANIFEST.tsv`` records for each its
source, original origin, checksum, target column and positive class, so examples and tests run
offline on a bare clone and every figure can be traced back to the data it came from.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["DatasetInfo", "dataset_info", "list_datasets", "load_csv", "load_dataset"]

# Columns that are identifiers, alternative targets or leakage rather than inputs.
_EXCLUDED_COLUMNS: dict[str, tuple[str, ...]] = {
    "breast_cancer_wisconsin": ("sample_code_number",),
    "myocardial_infarction": (
        "ID", "FIBR_PREDS", "PREDS_TAH", "JELUD_TAH", "FIBR_JELUD", "A_V_BLOK", "OTEK_LANC",
        "RAZRIV", "DRESSLER", "ZSN", "REC_IM", "P_IM_STEN",
    ),
}


@dataclass(frozen=True)
class DatasetInfo:
    """Provenance and task of one bundled dataset (a row of ``MANIFEST.tsv``)."""

    name: str
    rows: int
    columns: int
    target: str
    positive_class: str
    source: str
    original_origin: str
    sha256: str
    notes: str


def _manifest() -> dict[str, DatasetInfo]:
    text = resources.files("logicrules").joinpath("data/MANIFEST.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return {
        r["name"]: DatasetInfo(
            name=r["name"], rows=int(r["rows"]), columns=int(r["columns"]),
            target=r["target_column"], positive_class=r["positive_class"],
            source=f"{r['source_repo']}:{r['source_path']}@{r['source_commit']}",
            original_origin=r["original_origin"], sha256=r["sha256_of_csv_gz"], notes=r["notes"],
        )
        for r in rows
    }


def list_datasets() -> list[str]:
    """Names of the bundled datasets, sorted.

    Examples
    --------
    >>> "mushroom" in list_datasets()
    True
    """
    return sorted(_manifest())


def dataset_info(name: str) -> DatasetInfo:
    """Provenance, target column and positive class of a bundled dataset."""
    manifest = _manifest()
    if name not in manifest:
        raise ValueError(f"unknown dataset {name!r}; bundled datasets: {', '.join(sorted(manifest))}")
    return manifest[name]


def _positive_mask(target: pd.Series, positive_class: str) -> np.ndarray:
    """Rows of the positive class; ``'>0 (...)'`` in the manifest means a numeric ``target > 0``."""
    if positive_class.startswith(">0"):
        return (pd.to_numeric(target) > 0).to_numpy()
    return (target.astype(str) == positive_class).to_numpy()


def load_dataset(name: str, *, binary_target: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """Load a bundled dataset as ``(X, y)``.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets`.
    binary_target : bool, default True
        If True, ``y`` is 1 for the manifest's positive class and 0 otherwise (so a learner's
        positive class ``classes_[1]`` is the one the literature reports); if False, the original
        labels.

    Returns
    -------
    X : DataFrame
        Input columns (identifiers and alternative targets removed); missing values are NaN.
    y : Series
        Target, named after the target column.

    Examples
    --------
    >>> X, y = load_dataset("breast_cancer_wisconsin")
    >>> X.shape, int(y.sum())
    ((699, 9), 241)
    """
    info = dataset_info(name)
    with resources.files("logicrules").joinpath(f"data/{name}.csv.gz").open("rb") as handle:
        frame = pd.read_csv(handle, compression="gzip")
    y = frame[info.target]
    X = frame.drop(columns=[info.target, *_EXCLUDED_COLUMNS.get(name, ())], errors="ignore")
    if binary_target:
        y = pd.Series(_positive_mask(y, info.positive_class).astype(np.int64), name=info.target)
    return X, y


def load_csv(
    path: str | os.PathLike, target: str, *, positive: object | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Load any CSV file (optionally gzipped) as ``(X, y)``.

    Parameters
    ----------
    path : path-like
        CSV file with a header line.
    target : str
        Name of the target column.
    positive : optional
        The positive label; when given, ``y`` is 1 for it and 0 otherwise (compared as text,
        so ``positive="4"`` matches a numeric 4).

    Returns
    -------
    X : DataFrame
    y : Series

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("a,b,label\\n1,x,yes\\n2,y,no\\n")
    >>> X, y = load_csv(p, "label", positive="yes")
    >>> list(X.columns), y.tolist()
    (['a', 'b'], [1, 0])
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such CSV file: {os.fspath(path)!r}")
    frame = pd.read_csv(path)
    if target not in frame.columns:
        raise ValueError(
            f"target column {target!r} not found in {os.fspath(path)!r}; columns: {', '.join(map(str, frame.columns))}"
        )
    y = frame[target]
    X = frame.drop(columns=[target])
    if positive is not None:
        mask = y.astype(str) == str(positive)
        if not mask.any():
            raise ValueError(
                f"positive class {positive!r} does not occur in column {target!r}; "
                f"values: {', '.join(map(str, pd.unique(y)[:10]))}"
            )
        y = pd.Series(mask.to_numpy().astype(np.int64), name=target)
    return X, y
