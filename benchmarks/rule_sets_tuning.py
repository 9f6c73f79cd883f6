"""Choosing the defaults of ``LPRuleClassifier(rule="dnf")`` on training data only.

For every dataset of :mod:`rule_sets` and the first ``--outer-folds`` folds of its
``StratifiedKFold(10, shuffle=True, random_state=0)`` split, only the *training* part is used:
an inner ``StratifiedKFold(3, shuffle=True, random_state=1)`` on it scores every ``lam`` of the
grid for every ``max_term_size`` (inner accuracy, conditions, fit seconds). The test parts of the
outer folds are never read, so a default chosen from this table is not tuned on the folds
:mod:`rule_sets` reports.

The same inner folds also test where column generation loses against BRCG: ``--mip-seconds``
sets the integer master's time limit (default: the estimator's ``CG_MIP_SECONDS``), and
``--binarizer brcg`` fits on AIX360's ``FeatureBinarizer(negations=True)`` literals (fitted on
the inner training part) instead of the estimator's own quantile binarizer.

Usage::

    python benchmarks/rule_sets_tuning.py [--data-dir ../shared/datasets] [--datasets ...]
        [--lams 0.0005 0.001 0.002 0.005] [--sizes 3 4] [--outer-folds 1] [--records FILE]
        [--mip-seconds 0.5 5] [--binarizer ours brcg]
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rule_sets import DATASETS, _BRCG, load  # noqa: E402

import logicrules.lp.estimator as lp_estimator  # noqa: E402
from logicrules.lp.estimator import LPRuleClassifier  # noqa: E402


def brcg_literals(fit: pd.DataFrame, other: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """AIX360's FeatureBinarizer(negations=True) fitted on ``fit``: both frames as 0/1 columns
    named ``feature op value``."""
    from aix360.algorithms.rbm import FeatureBinarizer

    _BRCG()  # patches the binarizer's OneHotEncoder for scikit-learn 1.9
    binarizer = FeatureBinarizer(negations=True)
    frames = [binarizer.fit_transform(_BRCG._object(fit)), binarizer.transform(_BRCG._object(other))]
    for frame in frames:
        frame.columns = [" ".join(map(str, c)) for c in frame.columns]
    return tuple(frame.astype(bool) for frame in frames)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--lams", nargs="*", type=float, default=[0.0005, 0.001, 0.002, 0.005])
    parser.add_argument("--sizes", nargs="*", type=int, default=[3, 4])
    parser.add_argument("--outer-folds", type=int, default=1)
    parser.add_argument("--mip-seconds", nargs="*", type=float, default=[lp_estimator.CG_MIP_SECONDS])
    parser.add_argument("--binarizer", nargs="*", choices=("ours", "brcg"), default=["ours"])
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
                for binarizer, size, lam, mip in itertools.product(args.binarizer, args.sizes, args.lams,
                                                                   args.mip_seconds):
                    lp_estimator.CG_MIP_SECONDS = mip
                    Xf, Xv = Xt.iloc[fit], Xt.iloc[val]
                    if binarizer == "brcg":
                        Xf, Xv = brcg_literals(Xf, Xv)
                    model = LPRuleClassifier(rule="dnf", lam=lam, max_term_size=size,
                                             binarizer="quantile" if binarizer == "ours" else "passthrough")
                    start, cpu = time.perf_counter(), time.process_time()
                    model.fit(Xf, yt[fit])
                    row = {"dataset": name, "outer": f, "inner": g, "size": size, "lam": lam,
                           "mip_seconds": mip, "binarizer": binarizer,
                           "accuracy": float(np.mean(model.predict(Xv) == yt[val])),
                           "conditions": int(model.formula_.size), "seconds": time.perf_counter() - start,
                           "cpu_seconds": time.process_time() - cpu, "mip_gap": model.lp_result_["mip_gap"],
                           "literals": int(model.lp_result_["n_columns"])}
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
                    if args.records:
                        with open(args.records, "a", encoding="utf-8") as handle:
                            handle.write(json.dumps(row) + "\n")
    print(summary(pd.DataFrame(rows)))
    return 0


def summary(frame: pd.DataFrame) -> str:
    """Markdown: per dataset, inner accuracy / conditions for every setting (binarizer,
    max_term_size, lam, integer master seconds); then the mean over the datasets and how often
    each setting is within 0.01 of a dataset's best."""
    frame = frame.copy()
    defaults = {"binarizer": "ours", "mip_seconds": float("nan")}
    for column, value in defaults.items():  # records written before these variants existed
        frame[column] = frame[column].fillna(value) if column in frame else value
    keys = ["binarizer", "size", "lam", "mip_seconds"]
    frame["setting"] = [f"{b + ', ' if b != 'ours' else ''}k={int(s)}, lam={lam:g}"
                        + (f", mip {mip:g} s" if mip == mip else "")
                        for b, s, lam, mip in frame[keys].itertuples(index=False)]
    settings = list(dict.fromkeys(frame.sort_values(keys)["setting"]))
    lines = ["| dataset | " + " | ".join(settings) + " |", "|---|" + "---|" * len(settings)]
    means = frame.groupby(["dataset", "setting"], sort=False)[["accuracy", "conditions"]].mean()
    near = dict.fromkeys(settings, 0)
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
    overall = frame.groupby("setting")[["accuracy", "conditions"]].mean()
    lines.append("| mean | " + " | ".join(f"{overall.loc[key].accuracy:.4f} / {overall.loc[key].conditions:.1f}"
                                         for key in settings) + " |")
    lines.append("| within 0.01 of best | " + " | ".join(str(near[key]) for key in settings) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
