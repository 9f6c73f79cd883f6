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

This module holds the commands and :func:`main`; the options and parser are in
:mod:`logicrules.cli_parser`, the reading of data in :mod:`logicrules.cli_data`, the building
of learners in :mod:`logicrules.cli_learners` and the errors in :mod:`logicrules.cli_errors`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from logicrules.cli_data import _check_columns, _load_data, _read_table
from logicrules.cli_errors import CommandError, UsageError
from logicrules.cli_learners import _learner_params, _make_learner, _make_reference
from logicrules.cli_parser import LEARNERS, REFERENCES, _parser

__all__ = ["main"]


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
