"""The datasets of a comparative study (:func:`~logicrules.compare.compare_learners`): names,
bundled or CSV specifications and ``(X, y)`` pairs resolved to ``(name, X, y)``, two-class
targets checked, per-dataset sample weights."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from logicrules.distributed import is_dask_collection


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
