"""The ``logicrules`` command line: list data, fit a rule, predict with it, report on it, compare learners.

Usage (also ``python -m logicrules ...``)::

    logicrules datasets
    logicrules fit breast_cancer_wisconsin --learner premise --max-size 2 --save model.json
    logicrules fit data.csv --target outcome --positive yes --learner lp --rule dnf --format latex
    logicrules predict --model model.json data.csv --explain --output predictions.csv
    logicrules report model.json breast_cancer_wisconsin --output report.html
    logicrules compare hepatitis heart_disease_cleveland --learners ideal,premise,lp,rf --cv 10 --jobs 2

``DATA`` is a CSV file (with a header line; ``--target`` names the class column) or the name of a
bundled dataset (``logicrules datasets``), whose target column and positive class are known.
Errors are reported as one line on stderr with a non-zero exit status (1 for bad data or files,
2 for bad usage), never as a traceback. Heavy modules (pandas, scikit-learn, SymPy) are imported
inside the commands, so ``logicrules --help`` answers at once.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

__all__ = ["main"]

#: Rule learners of the ``fit`` command and their classes (module, name), imported on use.
LEARNERS = {
    "ideal": ("logicrules.ideal.method", "IdealDNFClassifier"),
    "premise": ("logicrules.fca.premise.estimator", "OptimalPremiseClassifier"),
    "lp": ("logicrules.lp.estimator", "LPRuleClassifier"),
}
#: Reference learners of the ``compare`` command (scikit-learn ensembles).
REFERENCES = ("rf", "gb")
BINARIZER_CHOICES = ("median", "quantile", "threshold", "passthrough")
FORMATS = ("text", "json", "sympy", "latex", "query")
#: Learner options of ``fit``/``compare``: option -> (estimator parameter, learners it applies to).
_LEARNER_OPTIONS = {
    "max_size": ("max_size", ("premise",)),
    "objective": ("objective", ("premise",)),
    "rule": ("rule", ("lp",)),
    "lam": ("lam", ("lp",)),
    "max_clauses": ("max_clauses", ("lp",)),
    "max_features": ("max_features", ("ideal",)),
    "selection": ("selection", ("ideal",)),
    "binarizer": ("binarizer", ("ideal", "premise", "lp")),
    "memory_limit": ("memory_limit", ("ideal", "premise", "lp")),
}
#: Learners that take a random_state parameter.
_SEEDED = ("ideal", "lp")


class CommandError(Exception):
    """A problem with the user's data or files, reported as one line on stderr (exit status 1)."""

    status = 1


class UsageError(CommandError):
    """Options that do not fit together (exit status 2, as argparse's own usage errors)."""

    status = 2


# ------------------------------------------------------------------------------ parsing
def _lam(text: str) -> float | str:
    if text == "cv":
        return text
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a fraction of the rows in [0, 1] or 'cv', got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _add_data_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", metavar="COL",
                        help="class column of a CSV file (optional for bundled datasets)")
    parser.add_argument("--positive", metavar="VALUE",
                        help="label of the positive class (the rest is negative); without it a "
                             "target with more than two values gets one rule per class (fit), "
                             "and compare needs it")
    parser.add_argument("--drop", metavar="COLS", default="",
                        help="comma-separated columns to ignore (identifiers, leaks)")


def _add_learner_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("learner options")
    group.add_argument("--binarizer", choices=BINARIZER_CHOICES,
                       help="how raw columns become Boolean attributes (default: the learner's)")
    group.add_argument("--max-size", type=_positive_int, metavar="K",
                       help="premise: largest number of literals (1-4, default 3)")
    group.add_argument("--objective", metavar="NAME",
                       help="premise: objective to maximize (f1, accuracy, mcc, ...; default f1)")
    group.add_argument("--rule", choices=("or", "and", "dnf", "cnf", "m_of_n"),
                       help="lp: shape of the rule (default or)")
    group.add_argument("--lam", type=_lam, metavar="LAMBDA",
                       help="lp: cost of one literal as a fraction of rows, or 'cv' (default 0.005)")
    group.add_argument("--max-clauses", type=_positive_int, metavar="N",
                       help="lp: most terms of a dnf / clauses of a cnf rule (default 5)")
    group.add_argument("--max-features", type=_positive_int, metavar="L",
                       help="ideal: largest number of selected features tried (default 10)")
    group.add_argument("--selection", choices=("filter", "wrapper"),
                       help="ideal: univariate rankings (paper) or greedy wrapper (default filter)")
    group.add_argument("--memory-limit", type=_memory, metavar="BYTES",
                       help="memory the fit may allocate beyond the input data, e.g. 2GB or 512MiB "
                            "(default 2 GiB); a fit that cannot fit fails naming what needs it")
    group.add_argument("--random-state", type=int, default=0, metavar="SEED",
                       help="seed of the ideal method's validation split and the LP's sampling "
                            "(and of the folds of compare; default 0)")


def _memory(text: str) -> str:
    """A ``--memory-limit`` value: checked here, passed on as the string."""
    from logicrules.memory import parse_memory

    try:
        parse_memory(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="logicrules",
        description="Short, human-readable Boolean rules for tabular data.",
        epilog="DATA is a CSV file or a bundled dataset name (see `logicrules datasets`).",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    commands.add_parser("datasets", help="list the bundled datasets",
                        description="List the bundled datasets with their target and positive class.")

    fit = commands.add_parser(
        "fit", help="learn a rule and print it with its training scores",
        description="Learn a rule on DATA; print it, its training accuracy and F1, and the fit time.")
    fit.add_argument("data", metavar="DATA", help="CSV file or bundled dataset name")
    _add_data_options(fit)
    fit.add_argument("--learner", required=True, choices=tuple(LEARNERS),
                     help="ideal (ideal DNF), premise (optimal short premise) or lp (group-testing LP)")
    _add_learner_options(fit)
    fit.add_argument("--save", metavar="FILE", help="write the fitted model as JSON")
    fit.add_argument("--format", choices=FORMATS, default="text",
                     help="how to print the rule; json prints the whole report as JSON (default text)")

    predict = commands.add_parser(
        "predict", help="predict with a saved model, as CSV",
        description="Predict every row of DATA with a model saved by `fit --save`; write CSV with "
                    "columns row, prediction (and explanation).")
    predict.add_argument("--model", required=True, metavar="FILE", help="model file (JSON)")
    predict.add_argument("data", metavar="DATA", help="CSV file or bundled dataset name")
    predict.add_argument("--explain", action="store_true",
                         help="add a column saying why the rule predicts what it does")
    predict.add_argument("--output", "-o", metavar="FILE", help="write the CSV here (default stdout)")

    report = commands.add_parser(
        "report", help="write a saved model's report as one HTML page",
        description="Describe a model saved by `fit --save` on DATA in one self-contained HTML page: "
                    "the rule in plain words, each term's support / precision / coverage, the "
                    "confusion matrix, the learner's parameters and figure, and a data summary.")
    report.add_argument("model", metavar="MODEL", help="model file (JSON) written by `fit --save`")
    report.add_argument("data", metavar="DATA", help="CSV file or bundled dataset name, with its target")
    _add_data_options(report)
    report.add_argument("--output", "-o", metavar="FILE", default="report.html",
                        help="the HTML file to write ('-' for stdout; default report.html)")
    report.add_argument("--title", metavar="TEXT", help="heading of the page (default: the learner)")
    report.add_argument("--no-figures", action="store_true",
                        help="leave out the learner's figure (the LP's refits one rule per lambda)")

    compare = commands.add_parser(
        "compare", help="cross-validate several learners on several datasets",
        description="Cross-validate learners on datasets and print a markdown table of mean +/- "
                    "std scores, rule sizes and fit times (progress bar on stderr). --target, "
                    "--positive and --drop apply to the CSV files; bundled datasets keep their "
                    "own target.")
    compare.add_argument("data", metavar="DATA", nargs="+", help="CSV files or bundled dataset names")
    _add_data_options(compare)
    compare.add_argument("--learners", default="ideal,premise,lp,rf", metavar="LIST",
                         help="comma-separated from ideal, premise, lp, rf (random forest), "
                              "gb (gradient boosting); default ideal,premise,lp,rf")
    _add_learner_options(compare)
    compare.add_argument("--cv", type=int, default=10, metavar="K", help="number of folds (default 10)")
    compare.add_argument("--jobs", type=int, default=1, metavar="N",
                         help="parallel fold-tasks (-1: all cores; default 1)")
    compare.add_argument("--scoring", default="accuracy,f1", metavar="LIST",
                         help="comma-separated scikit-learn scorer names (default accuracy,f1)")
    compare.add_argument("--results", metavar="FILE", help="also write the per-fold results as CSV")
    compare.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    return parser


# --------------------------------------------------------------------------------- data
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


# ---------------------------------------------------------------------------- learners
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


# ----------------------------------------------------------------------------- commands
def _cmd_datasets(args: argparse.Namespace) -> int:
    from logicrules.datasets import dataset_info, list_datasets

    rows = [("name", "rows", "columns", "target", "positive class")]
    for name in list_datasets():
        info = dataset_info(name)
        rows.append((name, str(info.rows), str(info.columns), info.target, info.positive_class))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return 0


def _cmd_fit(args: argparse.Namespace) -> int:
    import json

    import numpy as np
    from sklearn.metrics import accuracy_score, f1_score

    from logicrules.export import export_formula

    params = _learner_params(args, args.learner, strict=True)
    X, y, description, positive = _load_data(args.data, args.target, args.positive, args.drop,
                                             multiclass=True)
    if positive is None and args.format == "query":
        raise CommandError("--format query writes one two-class rule; with more than two classes "
                           "choose --positive VALUE or another format")
    model = _make_learner(args.learner, params)
    _check_columns(X, params.get("binarizer", model.get_params()["binarizer"]), args.data)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    predicted = model.predict(X)
    y_true = np.asarray(y)
    accuracy = float(accuracy_score(y_true, predicted))
    multiclass = isinstance(model.formula_, dict)
    f1 = float(f1_score(y_true, predicted, average="macro") if multiclass
               else f1_score(y_true, predicted, pos_label=model.pos_label_))
    if args.save:
        from logicrules.persistence import save_model

        try:
            save_model(model, args.save)
        except OSError as error:
            raise CommandError(f"cannot write {args.save!r}: {error.strerror or error}") from None
    if args.format == "json":
        from logicrules.persistence import formula_to_json

        if multiclass:
            rule = {"rules": {str(c): export_formula(f, "text") for c, f in model.formula_.items()},
                    "formulas": {str(c): formula_to_json(f) for c, f in model.formula_.items()},
                    "size": sum(f.size for f in model.formula_.values())}
        else:
            rule = {"rule": export_formula(model, "text"), "formula": formula_to_json(model.formula_),
                    "size": model.formula_.size}
        report = {
            "data": args.data, "learner": args.learner, "params": _jsonable(params),
            "positive_class": positive, **rule,
            "train_accuracy": accuracy, ("train_macro_f1" if multiclass else "train_f1"): f1,
            "fit_seconds": seconds, "rows": int(X.shape[0]), "saved": args.save,
        }
        print(json.dumps(report, indent=2))
        return 0
    print(f"data:     {description}")
    print(f"learner:  {args.learner} ({type(model).__name__})")
    if multiclass:
        for label, formula in model.formula_.items():
            print(f"rule:     IF {export_formula(formula, args.format)} THEN {label}  ({formula.size} literals)")
        print("          (the most probable class where several or no rules fire)")
        print(f"training: accuracy {accuracy:.4f}, macro F1 {f1:.4f}")
    else:
        print(f"rule:     {export_formula(model, args.format)}")
        print(f"          IF rule THEN {model._binary_labels()[1]} ELSE {model._binary_labels()[0]}  "
              f"({model.formula_.size} literals)")
        print(f"training: accuracy {accuracy:.4f}, F1 {f1:.4f}")
    print(f"fit time: {seconds:.2f} s")
    if args.save:
        print(f"saved:    {args.save}")
    return 0


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, (str, int, float, bool, type(None))) else repr(v) for k, v in params.items()}


def _cmd_predict(args: argparse.Namespace) -> int:
    import pandas as pd

    from logicrules.datasets import load_dataset
    from logicrules.persistence import load_model

    model = load_model(args.model)
    frame, info = _read_table(args.data)
    if info is not None:
        frame, _ = load_dataset(info.name)
    X = _model_columns(model, frame, args.data)
    out = pd.DataFrame({"row": frame.index, "prediction": model.predict(X)})
    if args.explain:
        out["explanation"] = model.explain(X)
    if args.output:
        try:
            out.to_csv(args.output, index=False)
        except OSError as error:
            raise CommandError(f"cannot write {args.output!r}: {error.strerror or error}") from None
        print(f"wrote {len(out)} predictions to {args.output}", file=sys.stderr)
    else:
        out.to_csv(sys.stdout, index=False)
    return 0


def _model_columns(model, frame, data: str):
    """The columns of ``frame`` the model was fitted on, in its order (or a clear error)."""
    columns = getattr(model, "feature_names_in_", None)
    if columns is None:
        if frame.shape[1] != model.n_features_in_:
            raise CommandError(f"the model expects {model.n_features_in_} columns, {data!r} has "
                               f"{frame.shape[1]}")
        return frame
    columns = [str(c) for c in columns]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise CommandError(f"{data!r} lacks column(s) the model was fitted on: "
                           f"{', '.join(map(repr, missing))}")
    return frame[columns]


def _cmd_report(args: argparse.Namespace) -> int:
    from logicrules.model_report import report
    from logicrules.persistence import load_model

    model = load_model(args.model)
    X, y, description, _ = _load_data(args.data, args.target, args.positive, args.drop)
    page = report(model, _model_columns(model, X, args.data), y, title=args.title,
                  description=description, figures=not args.no_figures)
    if args.output == "-":
        sys.stdout.write(page)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(page)
    except OSError as error:
        raise CommandError(f"cannot write {args.output!r}: {error.strerror or error}") from None
    print(f"wrote the report of {args.model} on {args.data} to {args.output}", file=sys.stderr)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from logicrules.compare import compare_learners, summarize, to_markdown

    names = [s.strip() for s in args.learners.split(",") if s.strip()]
    known = (*LEARNERS, *REFERENCES)
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UsageError(f"unknown learner(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
                           f"choose from {', '.join(known)}")
    if args.cv < 2:
        raise UsageError(f"--cv must be at least 2, got {args.cv}")
    learners = {}
    for name in dict.fromkeys(names):
        if name in LEARNERS:
            learners[name] = _make_learner(name, _learner_params(args, name, strict=False))
        else:
            learners[name] = _make_reference(name, args.random_state)
    datasets = {}
    for data in dict.fromkeys(args.data):
        # --target, --positive and --drop describe the CSV files; bundled datasets keep their task
        csv = os.path.isfile(data)
        X, y, _, _ = _load_data(data, args.target if csv else None, args.positive if csv else None,
                                args.drop if csv else "")
        for name, learner in learners.items():
            if name in LEARNERS:
                _check_columns(X, learner.get_params()["binarizer"], data)
        label = os.path.basename(data).split(".")[0] if csv else data
        if label in datasets:
            raise UsageError(f"two datasets are named {label!r}; rename one of the files")
        datasets[label] = (X, y)
    scoring = tuple(s.strip() for s in args.scoring.split(",") if s.strip())
    try:
        results = compare_learners(datasets, learners, cv=args.cv, scoring=scoring, n_jobs=args.jobs,
                                   random_state=args.random_state, verbose=0 if args.quiet else 1)
    except RuntimeError as error:  # a fold failed: compare_learners names the learner and fold
        raise CommandError(str(error)) from None
    if args.results:
        try:
            results.drop(columns=[c for c in ("estimator", "test_index") if c in results]).to_csv(
                args.results, index=False)
        except OSError as error:
            raise CommandError(f"cannot write {args.results!r}: {error.strerror or error}") from None
    print(to_markdown(summarize(results)))
    return 0


_COMMANDS = {"datasets": _cmd_datasets, "fit": _cmd_fit, "predict": _cmd_predict, "report": _cmd_report,
             "compare": _cmd_compare}


def main(argv: list[str] | None = None) -> int:
    """Run the ``logicrules`` command line and return its exit status.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        0 on success, 1 for a problem with the data, files or learning (message on stderr),
        2 for bad usage (unknown command or option).

    Examples
    --------
    >>> main(["datasets"])  # doctest: +ELLIPSIS
    name ...
    0
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.version:
        from logicrules import __version__

        print(f"logicrules {__version__}")
        return 0
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return _COMMANDS[args.command](args)
    except CommandError as error:
        print(f"logicrules {args.command}: error: {error}", file=sys.stderr)
        return error.status
    except (FileNotFoundError, ValueError, TypeError, ImportError, MemoryError) as error:
        print(f"logicrules {args.command}: error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `logicrules predict ... | head`: the reader left early
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"logicrules {args.command}: interrupted", file=sys.stderr)
        return 130
