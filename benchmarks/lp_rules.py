"""Reproduce the Boolean group-testing LP experiments: accuracy/rule size and LP speed.

Part 1 (accuracy): stratified k-fold cross-validation (10 folds by default) of
``LPRuleClassifier`` with rule = or / and / dnf / cnf / m_of_n, next to scikit-learn's decision
tree (depth 3 and unrestricted) and random forest, and RIPPER (wittgenstein) and imodels rule
models when those packages are installed, on the datasets of the paper's kind.

Part 2 (speed): on adult and magic_gamma with a fine quantile binarization (thousands of
literals, tens of thousands of rows), the OR-rule LP solved plainly, with safe screening (plus
pricing back, exact) and with screening + row sampling, reporting time, columns screened and
the (equal) optimum.

Usage::

    python benchmarks/lp_rules.py [--data-dir ../shared/datasets] [--quick] [--out FILE]

``--quick`` runs 3 folds and caps every dataset at 3000 rows (stratified) for part 1; part 2
is unchanged. The markdown tables go to stdout and, with ``--out``, to that file too (measured tables are
recorded in ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from logicrules.datasets import load_csv
from logicrules.fca.scaling import QuantileBinarizer
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.lp.model import build_problem
from logicrules.lp.sampling import solve_with_row_sampling
from logicrules.lp.screening import solve_with_screening
from logicrules.lp.solvers import solve_problem

import report_common

DATASETS = ("ionosphere", "bupa_liver", "parkinsons", "pima_diabetes", "sonar", "blood_transfusion", "wdbc",
            "tic_tac_toe", "banknote_authentication", "mushroom", "heloc", "magic_gamma", "adult")
LP_RULES = ("or", "and", "dnf", "cnf", "m_of_n")
SPEED_DATASETS = ("adult", "magic_gamma")


def _manifest(data_dir: Path) -> dict[str, dict[str, str]]:
    with open(data_dir / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
        return {row["name"]: row for row in csv.DictReader(handle, delimiter="\t")}


def load(name: str, data_dir: Path) -> tuple[pd.DataFrame, np.ndarray]:
    """X (identifier-like columns dropped) and y (1 = the manifest's positive class)."""
    info = _manifest(data_dir)[name]
    X, y = load_csv(data_dir / info["file"], info["target_column"], positive=info["positive_class"])
    X = X.drop(columns=[c for c in X.columns if c.lower() in ("id", "name")], errors="ignore")
    return X, y.to_numpy()


def _tree_pipeline(X: pd.DataFrame, model):
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    numeric = [c for c in X.columns if c not in categorical]
    prep = ColumnTransformer([
        ("num", SimpleImputer(strategy="median"), numeric),
        ("cat", make_pipeline(SimpleImputer(strategy="most_frequent"),
                              OneHotEncoder(handle_unknown="ignore")), categorical),
    ])
    return make_pipeline(prep, model)


def _models(X: pd.DataFrame, seed: int) -> dict[str, object]:
    models: dict[str, object] = {f"LP {rule}": LPRuleClassifier(rule=rule, random_state=seed) for rule in LP_RULES}
    models["tree depth 3"] = _tree_pipeline(X, DecisionTreeClassifier(max_depth=3, random_state=seed))
    models["tree"] = _tree_pipeline(X, DecisionTreeClassifier(random_state=seed))
    models["random forest"] = _tree_pipeline(X, RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1))
    if importlib.util.find_spec("wittgenstein"):
        import wittgenstein

        models["RIPPER"] = _tree_pipeline(X, wittgenstein.RIPPER(random_state=seed))
    if importlib.util.find_spec("imodels"):
        import imodels

        models["imodels RuleFit"] = _tree_pipeline(X, imodels.RuleFitClassifier(random_state=seed))
    return models


def _size(model) -> float:
    """Literals of an LP rule; leaves of a tree; NaN otherwise."""
    if isinstance(model, LPRuleClassifier):
        if model.rule == "m_of_n":  # n literals of the checklist, not its expanded DNF
            return float(len(model.checklist_[0]))
        return float(model.formula_.size)
    last = model.steps[-1][1] if hasattr(model, "steps") else model
    if isinstance(last, DecisionTreeClassifier):
        return float(last.get_n_leaves())
    return float("nan")


def cross_validate(name: str, X: pd.DataFrame, y: np.ndarray, folds: int, seed: int, log,
                   models: list[str] | None = None) -> list[dict]:
    rows = []
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for model_name, template in _models(X, seed).items():
        if models is not None and model_name not in models:
            continue
        accuracies, sizes, seconds = [], [], []
        for train, test in splitter.split(X, y):
            model = _clone(template)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", category=DeprecationWarning)
                model.fit(X.iloc[train], y[train])
            seconds.append(time.perf_counter() - start)
            accuracies.append(float(np.mean(model.predict(X.iloc[test]) == y[test])))
            sizes.append(_size(model))
        rows.append({"dataset": name, "model": model_name, "accuracy": np.mean(accuracies),
                     "std": np.std(accuracies), "size": np.mean(sizes), "fit_seconds": np.mean(seconds)})
        log(f"  {name:24s} {model_name:16s} acc {np.mean(accuracies):.3f} ± {np.std(accuracies):.3f} "
            f"size {np.mean(sizes):6.1f}  fit {np.mean(seconds):.2f}s")
    return rows


def _clone(model):
    from sklearn.base import clone

    return clone(model)


def speed(name: str, X: pd.DataFrame, y: np.ndarray, n_thresholds: int, lam_fraction: float, seed: int, log) -> dict:
    """Plain LP vs screening vs screening + row sampling for the OR-rule LP on all rows."""
    Xb = QuantileBinarizer(n_thresholds=n_thresholds, negations=True).fit_transform(X).astype(bool)
    lam = lam_fraction * len(y)
    problem = build_problem(Xb[y == 1], Xb[y == 0], lam)
    out = {"dataset": name, "rows": len(y), "positives": problem.n_rows, "literals": problem.n_columns,
           "lam": lam}
    runs = {
        "plain": lambda: solve_problem(problem),
        "plain + merged rows": lambda: solve_problem(problem, merge_rows=True),
        "screening": lambda: solve_with_screening(problem),
        "screening + sampling": lambda: solve_with_row_sampling(None, None, lam, 0.1, problem=problem,
                                                                random_state=seed),
    }
    for mode, run in runs.items():
        start = time.perf_counter()
        result = run()
        out[f"{mode} seconds"] = time.perf_counter() - start
        out[f"{mode} objective"] = result.objective
        out[f"{mode} screened"] = result.columns_screened
        log(f"  {name} {mode:22s} {out[f'{mode} seconds']:8.2f}s objective {result.objective:.6f} "
            f"screened {result.columns_screened}/{problem.n_columns}")
    return out


def _markdown_accuracy(rows: list[dict]) -> str:
    frame = pd.DataFrame(rows)
    models = list(dict.fromkeys(frame["model"]))
    lines = ["| dataset | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]
    for name, group in frame.groupby("dataset", sort=False):
        cells = []
        for model in models:
            r = group[group["model"] == model].iloc[0]
            size = "" if np.isnan(r["size"]) else f" ({r['size']:.1f})"
            cells.append(f"{100 * r['accuracy']:.1f} ± {100 * r['std']:.1f}{size}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _markdown_speed(rows: list[dict]) -> str:
    modes = ("plain", "plain + merged rows", "screening", "screening + sampling")
    lines = ["| dataset | rows | positives | literals | lam | " + " | ".join(f"{m} s" for m in modes)
             + " | screened (screening / + sampling) | speed-up (screening / + sampling) | optimum | equal |",
             "|---|" + "---|" * (4 + len(modes) + 4)]
    for r in rows:
        base = r["plain seconds"]
        objectives = [r[f"{m} objective"] for m in modes]
        equal = max(objectives) - min(objectives) <= 1e-6 * max(1.0, abs(objectives[0]))
        lines.append(
            f"| {r['dataset']} | {r['rows']} | {r['positives']} | {r['literals']} | {r['lam']:g} | "
            + " | ".join(f"{r[f'{m} seconds']:.2f}" for m in modes)
            + f" | {r['screening screened']} / {r['screening + sampling screened']}"
            + f" | {base / r['screening seconds']:.1f}x / {base / r['screening + sampling seconds']:.1f}x"
            + f" | {objectives[0]:.4f} | {'yes' if equal else 'NO'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--quick", action="store_true", help="3 folds, at most 3000 rows per dataset (part 1)")
    parser.add_argument("--folds", type=int, default=None)
    parser.add_argument("--max-rows", type=int, default=None)
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--speed-thresholds", type=int, default=100, help="quantile thresholds per column")
    parser.add_argument("--speed-lam", type=float, default=0.005, help="lam as a fraction of the rows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", nargs="*", default=None,
                        help='only these columns of the accuracy table (e.g. "LP m_of_n"; default: all)')
    parser.add_argument("--out", default=None, help="also write the markdown tables to this file")
    args = parser.parse_args(argv)
    data_dir = report_common.data_dir(args.data_dir)
    folds = args.folds or (3 if args.quick else 10)
    max_rows = args.max_rows or (3000 if args.quick else None)
    log = report_common.log
    sections = ["# Boolean group-testing LP rules: results\n\n" + report_common.header("lp_rules.py", argv)]
    if not args.skip_accuracy:
        rows = []
        for name in args.datasets:
            X, y = load(name, data_dir)
            if max_rows is not None and len(y) > max_rows:
                keep, _ = train_test_split(np.arange(len(y)), train_size=max_rows, stratify=y,
                                           random_state=args.seed)
                keep = np.sort(keep)
                X, y = X.iloc[keep].reset_index(drop=True), y[keep]
            log(f"{name}: {len(y)} rows, {X.shape[1]} columns, {int(y.sum())} positives")
            rows.extend(cross_validate(name, X, y, folds, args.seed, log, args.models))
        missing = [p for p in ("wittgenstein", "imodels") if importlib.util.find_spec(p) is None]
        sections.append(
            f"## Accuracy (%) ± std over {folds}-fold stratified CV, (rule size: literals, n for m-of-n; tree: leaves)\n\n"
            f"LPRuleClassifier defaults (lam = 0.005 of the rows, QuantileBinarizer(n_thresholds=9, "
            f"negations=True), max_clauses=5, max_m=3); trees/forest on median-imputed, one-hot data."
            + (f" Row cap: {max_rows} (stratified subsample)." if max_rows else "")
            + (f" Not installed, so not run: {', '.join(missing)}." if missing else "")
            + "\n\n" + _markdown_accuracy(rows))
    if not args.skip_speed:
        rows = []
        for name in SPEED_DATASETS:
            X, y = load(name, data_dir)
            rows.append(speed(name, X, y, args.speed_thresholds, args.speed_lam, args.seed, log))
        sections.append(
            f"## Speed of the OR-rule LP (QuantileBinarizer(n_thresholds={args.speed_thresholds}), "
            f"lam = {args.speed_lam} x rows, all rows)\n\n"
            "plain: one HiGHS LP on all columns and positive rows; plain + merged rows: identical positive "
            "rows merged (exact); screening: greedy dual + greedy cover, safe test, reduced LP, screened "
            "columns priced back in until the dual is feasible (exact optimum of the full LP); + sampling: "
            "LP on 10% of the positive rows, dual extended by H2 and polished, then the same. "
            "Every mode returns the optimum of the full LP.\n\n" + _markdown_speed(rows))
    report_common.emit("\n\n".join(sections) + "\n", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
