"""The command line's options: the learners and formats it offers, the argument types, the parser."""

from __future__ import annotations

import argparse

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
