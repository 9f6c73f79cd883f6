"""Printed rule size of the ideal DNF with and without ``max_rule_size`` (heloc, german credit, adult).

For each dataset and split seed: a stratified 70/30 train/test split, ``IdealDNFClassifier``
with its defaults (median binarizer, ``max_rule_size=20``) and with ``max_rule_size=None`` (no
bound, the paper's selection of l). Reported per run: the chosen l, the literals of the printed
rule (``formula_``, domain-simplified) and of the learner's own DNF before that simplification
(``raw_formula_``, what was printed before rules were simplified on the domain), the
validation accuracy of the chosen l, the test accuracy, and whether the bound pruned the chosen
rule (the most accurate DNF within the bound on the type counts, ``logicrules.ideal.bounded``).

    nice -n 10 python benchmarks/rule_size.py --data-dir ../shared/datasets
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from logicrules import IdealDNFClassifier, load_csv

DATASETS = {"heloc": ("RiskPerformance", "Bad"), "german_credit": ("class", "2"),
            "adult": ("income", ">50K")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join("..", "shared", "datasets"))
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for name, (target, positive) in DATASETS.items():
        path = os.path.join(args.data_dir, f"{name}.csv.gz")
        if not os.path.exists(path):
            print(f"skipping {name}: {path} not found")
            continue
        X, y = load_csv(path, target, positive=positive)
        for seed in range(args.seeds):
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
            for bound in (None, 20):
                start = time.perf_counter()
                model = IdealDNFClassifier(max_rule_size=bound, random_state=seed).fit(X_tr, y_tr)
                rows.append({"dataset": name, "seed": seed, "max_rule_size": "none" if bound is None else bound,
                             "l": model.n_selected_, "printed_literals": model.formula_.size,
                             "raw_literals": model.raw_formula_.size,
                             "pruned": bool(model.path_.set_index("n_features")["pruned"].get(model.n_selected_, False))
                             if "pruned" in model.path_ else False,
                             "validation_accuracy": model.validation_accuracy_,
                             "test_accuracy": float(model.score(X_te, y_te)),
                             "fit_seconds": time.perf_counter() - start})
                print(rows[-1], flush=True)
    frame = pd.DataFrame(rows)
    print(_markdown(frame))
    summary = frame.groupby(["dataset", "max_rule_size"], sort=False)[
        ["l", "printed_literals", "raw_literals", "pruned", "validation_accuracy", "test_accuracy",
         "fit_seconds"]].mean()
    print(_markdown(summary.reset_index()))


def _markdown(frame: pd.DataFrame) -> str:
    """A markdown table (numbers with three decimals, counts as they are)."""
    def cell(value):
        return f"{value:.3f}" if isinstance(value, float) else str(value)
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * frame.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
