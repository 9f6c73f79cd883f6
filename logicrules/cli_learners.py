"""The learners of a command: estimator parameters from the options, and the learners built from them."""

from __future__ import annotations

import argparse
from typing import Any

from logicrules.cli_errors import UsageError
from logicrules.cli_parser import LEARNERS, _LEARNER_OPTIONS, _SEEDED


def _learner_params(args: argparse.Namespace, learner: str, *, strict: bool) -> dict[str, Any]:
    """Estimator parameters from the learner options (``strict``: reject foreign options)."""
    params = {}
    for option, (param, owners) in _LEARNER_OPTIONS.items():
        value = getattr(args, option, None)
        if value is None:
            continue
        if learner in owners:
            params[param] = value
        elif strict:
            flag = "--" + option.replace("_", "-")
            raise UsageError(f"{flag} applies to --learner {' or '.join(owners)}, not {learner}")
    if learner in _SEEDED:
        params["random_state"] = args.random_state
    return params


def _make_learner(name: str, params: dict[str, Any]):
    from importlib import import_module

    module, cls = LEARNERS[name]
    learner = getattr(import_module(module), cls)(**params)
    learner._validate_params()  # bad values fail here, once, not inside every fold
    return learner


def _make_reference(name: str, random_state: int):
    """A scikit-learn ensemble that accepts raw tables: categories one-hot, NaN kept."""
    from sklearn.compose import make_column_selector, make_column_transformer
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    encode = make_column_transformer(
        (make_pipeline(SimpleImputer(strategy="constant", fill_value="missing"),
                       OneHotEncoder(handle_unknown="ignore", sparse_output=False)),
         make_column_selector(dtype_exclude="number")),
        remainder="passthrough",
    )
    model = (RandomForestClassifier(n_estimators=200, random_state=random_state) if name == "rf"
             else HistGradientBoostingClassifier(random_state=random_state))
    return make_pipeline(encode, model)
