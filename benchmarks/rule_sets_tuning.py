"""Choosing the defaults of ``LPRuleClassifier(rule="dnf")`` on training data only.

For every dataset of :mod:`rule_sets` and the first ``--outer-folds`` folds of its
``StratifiedKFold(10, shuffle=True, random_state=0)`` split, only the *training* part is used:
an inner ``StratifiedKFold(3, shuffle=True, random_state=1)`` on it scores every ``lam`` of the
grid for every ``max_term_size`` (inner accuracy, conditions, fit seconds). The test parts of the
outer folds are never read, so a default chosen from this table is not tuned on the folds
:mod:`rule_sets` reports.

Usage::

    python benchmarks/rule_sets_tuning.py [--data-dir ../shared/datasets] [--datasets ...]
        [--lams 0.0005 0.001 0.002 0.005] [--sizes 3 4] [--outer-folds 1] [--records FILE]
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rule_sets import DATASETS, load  # noqa: E402

from logicrules.lp.estimator import LPRuleClassifier  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--lams", nargs="*", type=float, default=[0.0005, 0.001, 0.002, 0.005])
    parser.add_argument("--sizes", nargs="*", type=int, default=[3, 4])
    parser.add_argument("--outer-folds", type=int, default=1)
    parser.add_argument("--records", default=None, help="append every inner fit as a JSON line")
    parser.add_argument("--from-records", nargs="*", default=None, metavar="FILE",
                        help="print the tables of earlier --records files (fit nothing)")
    args = parser.parse_args(argv)
    if args.from_records is not None:
        print(summary(pd.DataFrame([json.loads(line) for file in args.from_records
                                    for line in Path(file).read_text(encoding="utf-8").splitlines() if line])))
        return 0
    data_dir = Path(args.data_dir)
    rows = []
    for name in args.datasets:
        X, y = load(name, data_dir)
        outer = StratifiedKFold(10, shuffle=True, random_state=0).split(X, y)
        for f, (train, _) in enumerate(outer):
            if f >= args.outer_folds:
                break
            Xt, yt = X.iloc[train].reset_index(drop=True), y[train]
            for g, (fit, val) in enumerate(StratifiedKFold(3, shuffle=True, random_state=1).split(Xt, yt)):
                for size in args.sizes:
                    for lam in args.lams:
                        model = LPRuleClassifier(rule="dnf", lam=lam, max_term_size=size)
                        start = time.perf_counter()
                        model.fit(Xt.iloc[fit], yt[fit])
                        row = {"dataset": name, "outer": f, "inner": g, "size": size, "lam": lam,
                               "accuracy": float(np.mean(model.predict(Xt.iloc[val]) == yt[val])),
                               "conditions": int(model.formula_.size), "seconds": time.perf_counter() - start}
                        rows.append(row)
                        print(json.dumps(row), file=sys.stderr, flush=True)
                        if args.records:
                            with open(args.records, "a", encoding="utf-8") as handle:
                                handle.write(json.dumps(row) + "\n")
    print(summary(pd.DataFrame(rows)))
    return 0


def summary(frame: pd.DataFrame) -> str:
    """Markdown: per dataset, inner accuracy / conditions for every (max_term_size, lam); then
    the mean over the datasets and how often each setting is within 0.01 of a dataset's best."""
    settings = sorted({(int(s), float(lam)) for s, lam in zip(frame["size"], frame["lam"])})
    head = "| dataset | " + " | ".join(f"k={s}, lam={lam:g}" for s, lam in settings) + " |"
    lines = [head, "|---|" + "---|" * len(settings)]
    means = frame.groupby(["dataset", "size", "lam"], sort=False)[["accuracy", "conditions", "seconds"]].mean()
    near = {key: 0 for key in settings}
    for name in dict.fromkeys(frame["dataset"]):
        cells, best = [], means.loc[name]["accuracy"].max()
        for key in settings:
            if key in means.loc[name].index:
                row = means.loc[name].loc[key]
                cells.append(f"{row.accuracy:.3f} / {row.conditions:.1f}")
                near[key] += bool(row.accuracy >= best - 0.01)
            else:
                cells.append("")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    overall = frame.groupby(["size", "lam"])[["accuracy", "conditions", "seconds"]].mean()
    lines.append("| mean | " + " | ".join(f"{overall.loc[key].accuracy:.4f} / {overall.loc[key].conditions:.1f}"
                                         for key in settings) + " |")
    lines.append("| within 0.01 of best | " + " | ".join(str(near[key]) for key in settings) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
