"""The data of a command: a CSV file or bundled dataset read into inputs and a checked target."""

from __future__ import annotations

import os

from logicrules.cli_errors import CommandError


def _read_table(data: str):
    """A CSV file or a bundled dataset as a DataFrame of inputs, with the bundled info if any."""
    import pandas as pd

    from logicrules.datasets import dataset_info, list_datasets

    if os.path.isfile(data):
        try:
            return pd.read_csv(data), None
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read {data!r} as CSV: {error}") from None
    if data in list_datasets():
        return None, dataset_info(data)
    if os.path.isdir(data):
        raise CommandError(f"{data!r} is a directory, not a CSV file")
    raise CommandError(
        f"no such file or bundled dataset: {data!r} (bundled: {', '.join(list_datasets())}; "
        "see `logicrules datasets`)"
    )


def _binary_target(y, column: str, positive: str | None, source: str, multiclass: bool = False):
    """The target as 0/1 (1 = positive), or a clear error for unusable targets; with
    ``multiclass`` a target of more than two values is returned as it is (label None)."""
    import numpy as np
    import pandas as pd

    if y.isna().any():
        raise CommandError(f"target column {column!r} of {source} has {int(y.isna().sum())} missing "
                           "values; remove those rows or fill them in")
    values = pd.unique(y.astype(str))
    shown = ", ".join(map(str, values[:10])) + (", ..." if len(values) > 10 else "")
    if positive is not None:
        mask = (y.astype(str) == str(positive)).to_numpy()
        if not mask.any():
            raise CommandError(f"positive class {positive!r} does not occur in column {column!r} "
                               f"of {source}; its values: {shown}")
        if mask.all():
            raise CommandError(f"every row of {source} has {column!r} == {positive!r}; "
                               "a rule needs both classes")
        return pd.Series(mask.astype(np.int64), name=column), str(positive)
    if len(values) > 2 and multiclass:
        return y, None
    if len(values) > 2:
        raise CommandError(
            f"target column {column!r} of {source} has {len(values)} classes ({shown}); logicrules "
            f"learns two-class rules: choose the positive class with --positive VALUE "
            f"(e.g. --positive {values[0]})"
        )
    if len(values) < 2:
        raise CommandError(f"target column {column!r} of {source} has one class only ({shown}); "
                           "a rule needs two classes")
    return y, str(np.unique(y)[1])


def _load_data(data: str, target: str | None, positive: str | None, drop: str = "",
               multiclass: bool = False):
    """``(X, y, description, positive label)`` for the ``fit`` and ``compare`` commands
    (``multiclass``: a target of more than two values without ``positive`` is kept, label None)."""
    from logicrules.datasets import load_dataset

    frame, info = _read_table(data)
    if info is not None and target in (None, info.target) and positive is None:
        X, y = load_dataset(info.name)
        label = f"1 = {info.target} {info.positive_class}"
        y_pos = "1"
    else:
        if info is not None:
            X, y_raw = load_dataset(info.name, binary_target=False)
            frame = X.assign(**{info.target: y_raw})
            target = target or info.target
        elif target is None:
            raise CommandError(f"--target is required for a CSV file; columns of {data!r}: "
                               f"{', '.join(map(str, frame.columns))}")
        if target not in frame.columns:
            raise CommandError(f"target column {target!r} not found in {data!r}; columns: "
                               f"{', '.join(map(str, frame.columns))}")
        X = frame.drop(columns=[target])
        y, y_pos = _binary_target(frame[target], target, positive, repr(data), multiclass)
        if y_pos is None:
            label = f"none: one rule per class of {target}"
        else:
            label = f"1 = {target} {positive}" if positive is not None else f"{target} = {y_pos}"
    X = _drop_columns(X, drop, data)
    if X.shape[1] == 0:
        raise CommandError(f"{data!r} has no input columns besides the target")
    return X, y, f"{data} ({X.shape[0]} rows, {X.shape[1]} columns; positive class: {label})", y_pos


def _drop_columns(X, drop: str, data: str):
    names = [c for c in (s.strip() for s in drop.split(",")) if c]
    unknown = [c for c in names if c not in X.columns]
    if unknown:
        raise CommandError(f"--drop: no column(s) {', '.join(map(repr, unknown))} in {data!r}")
    return X.drop(columns=names)


def _check_columns(X, binarizer: str, data: str) -> None:
    """Reject columns the binarizer cannot use, naming them (before a long fit fails)."""
    import pandas as pd

    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c].dtype)
               or pd.api.types.is_bool_dtype(X[c].dtype)]
    text = [c for c in X.columns if c not in numeric]
    if binarizer == "passthrough":
        bad = text + [c for c in numeric if not X[c].dropna().isin((0, 1)).all() or X[c].isna().any()]
        if bad:
            raise CommandError(
                f"--binarizer passthrough needs 0/1 columns, but {data!r} has other values in "
                f"{', '.join(map(repr, bad[:10]))}{', ...' if len(bad) > 10 else ''}; use "
                "--binarizer quantile (or median, threshold) for raw data"
            )
        return
    n = X.shape[0]
    identifiers = [c for c in text if n > 20 and X[c].nunique(dropna=True) == n]
    if identifiers:
        raise CommandError(
            f"non-numeric column(s) {', '.join(map(repr, identifiers))} of {data!r} hold a "
            "different value on every row (identifiers or free text?): the binarizer cannot "
            "turn them into useful attributes; remove them with --drop "
            f"{','.join(map(str, identifiers))}"
        )
