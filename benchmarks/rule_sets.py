"""Rule sets side by side: column generation, sequential covering, premise search, BRCG, RIPPER.

On 14 datasets (rows with missing values dropped) and the folds
``StratifiedKFold(10, shuffle=True, random_state=0)``, every learner is fitted on the training
part of each fold and scored on its test part: accuracy, conditions (literals in the rule set)
and fit time, wall and CPU (binarization included). The learners are fitted one after the other on the same
fold, in an order that rotates from fold to fold, in one process, after one untimed warm-up fit
each (JIT compilation), every one single-threaded (BLAS and numba: one thread, set here):

- ``cg``: ``LPRuleClassifier(rule="dnf")`` (column generation with exact pricing, the default);
- ``cg_cv``: the same with ``lam="cv"`` (lam chosen per fit by an inner 3-fold cross-validation
  on the training part, the grid walked with warm-started pools);
- ``covering``: ``LPRuleClassifier(rule="dnf", method="covering")``;
- ``premise3`` / ``premise4``: ``OptimalPremiseClassifier(max_size=3 or 4, objective="accuracy")``;
- ``brcg``: AIX360's ``FeatureBinarizer(negations=True)`` + ``BooleanRuleCG()`` (defaults), when
  aix360 is installed (``pip install --no-deps aix360 cvxpy ecos`` plus cvxpy's own solvers);
  on pandas 3 / scikit-learn 1.9 its binarizer is patched here: string columns are cast to
  object and ``OneHotEncoder(sparse=...)`` becomes ``sparse_output``;
- ``ripper``: wittgenstein's ``RIPPER(random_state=0)``, when installed.

A last table checks the issue's targets per dataset against BRCG measured in the same run:
accuracy >= BRCG's at no more conditions (means over the folds), and a fit >= 10x faster per
fold (CPU seconds, the better measure on a shared machine; wall seconds beside them).

For tic_tac_toe the table also counts, per fold, how many of the 8 winning lines of x are a term
of the cg rule set (same extent on the whole dataset as the three ``square == x`` literals).

Usage::

    python benchmarks/rule_sets.py [--data-dir ../shared/datasets] [--datasets ...] [--methods ...]
                                   [--folds 10] [--max-folds F] [--out FILE] [--records FILE]
    python benchmarks/rule_sets.py --from-records FILE [FILE ...]

``--max-folds F`` runs only the first F folds of the same 10-fold split. ``--records FILE``
appends every (dataset, fold, learner) record to FILE as a JSON line as soon as it is measured,
with the code's commit and the load average beside it; a run given a FILE that already holds
records skips the (dataset, fold, learner) triples found there, so a stopped run is continued by
starting it again with the same arguments (the tables then cover the old records and the new).
The warm-up fits are made once per process, only for the learners that still have work.
"""

from __future__ import annotations

import os

# one thread per learner: on a shared machine, threaded BLAS and numba kernels oversubscribe the
# cores and slow every learner down erratically (set before numpy and numba are imported)
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import csv
import importlib.util
import json
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from logicrules.datasets import list_datasets, load_csv, load_dataset
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.formula import conjunction
from logicrules.lp.estimator import LPRuleClassifier

import report_common

DATASETS = ("breast_cancer_wisconsin", "hepatitis", "heart_disease_kaggle", "congressional_voting", "ionosphere",
            "pima_diabetes", "blood_transfusion", "bupa_liver", "parkinsons", "banknote_authentication", "sonar",
            "wdbc", "tic_tac_toe", "mushroom")
METHODS = ("cg", "cg_cv", "covering", "premise3", "premise4", "brcg", "ripper")
SQUARES = ("top_left", "top_middle", "top_right", "middle_left", "middle_middle", "middle_right",
           "bottom_left", "bottom_middle", "bottom_right")
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def load(name: str, data_dir: Path) -> tuple[pd.DataFrame, np.ndarray]:
    """X and y (1 = the manifest's positive class), rows with missing values dropped."""
    if name in list_datasets():
        X, y = load_dataset(name)
    else:
        with open(data_dir / "MANIFEST.tsv", newline="", encoding="utf-8") as handle:
            info = {row["name"]: row for row in csv.DictReader(handle, delimiter="\t")}[name]
        X, y = load_csv(data_dir / info["file"], info["target_column"], positive=info["positive_class"])
        X = X.drop(columns=[c for c in X.columns if c.lower() in ("id", "name")], errors="ignore")
    y = np.asarray(y, dtype=np.int64)
    complete = X.notna().all(axis=1).to_numpy()
    return X.loc[complete].reset_index(drop=True), y[complete]


class _BRCG:
    """AIX360's FeatureBinarizer + BooleanRuleCG with the pandas 3 / scikit-learn 1.9 patches."""

    def __init__(self):
        from sklearn.preprocessing import OneHotEncoder
        import aix360.algorithms.rbm.features as features

        def encoder(*, sparse=False, **kwargs):
            return OneHotEncoder(sparse_output=sparse, **kwargs)

        features.OneHotEncoder = encoder

    @staticmethod
    def _object(X: pd.DataFrame) -> pd.DataFrame:
        return X.astype({c: object for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])})

    def fit(self, X, y):
        from aix360.algorithms.rbm import BooleanRuleCG, FeatureBinarizer

        self.binarizer = FeatureBinarizer(negations=True)
        A = self.binarizer.fit_transform(self._object(X))
        self.model = BooleanRuleCG(silent=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model.fit(A, y)
        return self

    def predict(self, X):
        return self.model.predict(self.binarizer.transform(self._object(X)))

    def conditions(self) -> int:
        return int(self.model.z.loc[:, self.model.w > 0.5].to_numpy().sum())


class _RIPPER:
    def fit(self, X, y):
        import wittgenstein

        self.model = wittgenstein.RIPPER(random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model.fit(X.reset_index(drop=True), pd.Series(y, name="target"), pos_class=1)
        return self

    def predict(self, X):
        return np.asarray(self.model.predict(X.reset_index(drop=True)), dtype=np.int64)

    def conditions(self) -> int:
        return int(sum(len(rule.conds) for rule in self.model.ruleset_.rules))


class _Ours:
    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        self.model.fit(X, y)
        return self

    def predict(self, X):
        return self.model.predict(X)

    def conditions(self) -> int:
        return int(self.model.formula_.size)


def make(method: str):
    """A fresh learner of the given name."""
    if method == "cg":
        return _Ours(LPRuleClassifier(rule="dnf"))
    if method == "cg_cv":
        return _Ours(LPRuleClassifier(rule="dnf", lam="cv", random_state=0))
    if method == "covering":
        return _Ours(LPRuleClassifier(rule="dnf", method="covering"))
    if method in ("premise3", "premise4"):
        return _Ours(OptimalPremiseClassifier(max_size=int(method[-1]), objective="accuracy"))
    if method == "brcg":
        return _BRCG()
    if method == "ripper":
        return _RIPPER()
    raise ValueError(f"unknown method {method!r}; use {', '.join(METHODS)}")


def available(method: str) -> bool:
    package = {"brcg": "aix360", "ripper": "wittgenstein"}.get(method)
    return package is None or importlib.util.find_spec(package) is not None


def lines_recovered(model: LPRuleClassifier, X: pd.DataFrame) -> int:
    """How many of tic-tac-toe's 8 lines of x are terms of a DNF model: a term recovers a line
    when its extent on all rows of X is the line's (``!= o`` and ``== x`` agree on endgames)."""
    A = model.binarize(X)
    extents = [conjunction(*term).evaluate(A, feature_names=model.attribute_names_)
               for term in model.formula_.conjunctions()]
    found = 0
    for line in LINES:
        target = np.logical_and.reduce([X[f"{SQUARES[s]}_square"].to_numpy() == "x" for s in line])
        found += any(np.array_equal(e, target) for e in extents)
    return found


def code_version() -> str:
    """The commit of the learners' code (``logicrules``), with ``+changes`` when its files differ
    from that commit, or ``unknown`` outside a git checkout."""
    package = Path(__import__("logicrules").__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=package, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "."], cwd=package).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+changes" if dirty else "")


def read_records(files) -> list[dict]:
    """The records of ``--records`` files; a later record of a (dataset, fold, method) replaces
    an earlier one."""
    records = [json.loads(line) for file in files if Path(file).exists()
               for line in Path(file).read_text(encoding="utf-8").splitlines() if line.strip()]
    return list({(r["dataset"], r["fold"], r["method"]): r for r in records}.values())


def run_dataset(name: str, X: pd.DataFrame, y: np.ndarray, methods, folds: int, log,
                max_folds: int | None = None, record_log=None, done=frozenset(),
                version: str = "unknown") -> list[dict]:
    """Fit and score every learner of ``methods`` on every fold, skipping the (fold, method)
    pairs in ``done``; the order of the learners rotates from fold to fold."""
    splits = StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y)
    records = []
    for f, (train, test) in enumerate(splits):
        if max_folds is not None and f >= max_folds:
            break
        order = methods[f % len(methods):] + methods[:f % len(methods)]
        order = [method for method in order if (f, method) not in done]
        if not order:
            continue
        for method in order:
            learner = make(method)
            start, cpu = time.perf_counter(), time.process_time()
            learner.fit(X.iloc[train], y[train])
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            accuracy = float(np.mean(np.asarray(learner.predict(X.iloc[test])) == y[test]))
            record = {"dataset": name, "fold": f, "method": method, "accuracy": accuracy,
                      "conditions": learner.conditions(), "seconds": seconds, "cpu_seconds": cpu}
            if method.startswith("cg"):
                record["lam"] = float(learner.model.lam_)
                record["lp"] = dict(learner.model.lp_result_)
                if name == "tic_tac_toe":
                    record["lines"] = lines_recovered(learner.model, X)
            record["n"] = len(y)
            record["commit"] = version
            record["load"] = os.getloadavg()[0]
            records.append(record)
            if record_log is not None:
                record_log(record)
        log(f"  fold {f}: " + ", ".join(f"{r['method']} {r['accuracy']:.3f}/{r['conditions']}/{r['seconds']:.2f}s"
                                        f"/{r['cpu_seconds']:.2f}cpu" for r in records[-len(order):]))
    return records


def _means(group: pd.DataFrame, method: str) -> pd.Series:
    g = group[group.method == method]
    if "cpu_seconds" not in g:  # records written before CPU time was measured
        g = g.assign(cpu_seconds=np.nan)
    return g[["accuracy", "conditions", "seconds", "cpu_seconds"]].mean()


def _table(records: list[dict], methods) -> str:
    frame = pd.DataFrame(records)
    head = "| dataset | n | folds | " + " | ".join(methods) + " |"
    lines = [head, "|---|---|---|" + "---|" * len(methods)]
    for name, group in frame.groupby("dataset", sort=False):
        cells = []
        for method in methods:
            mean = _means(group, method)
            cells.append(f"{mean.accuracy:.3f} / {mean.conditions:.1f} / {mean.seconds:.2f} / {mean.cpu_seconds:.2f}")
        folds = group.groupby("method").fold.nunique()
        lines.append(f"| {name} | {int(group['n'].iloc[0])} | {folds.min()}"
                     + (f"-{folds.max()}" if folds.max() > folds.min() else "") + " | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def _targets(group: pd.DataFrame, method: str) -> dict | None:
    """A learner against BRCG on one dataset: accuracy and conditions (means over each one's
    folds), and the speed ratios (means over the folds both ran, so timed alternately)."""
    mean, brcg = _means(group, method), _means(group, "brcg")
    if np.isnan(mean.accuracy) or np.isnan(brcg.accuracy):
        return None
    common = set(group[group.method == method].fold) & set(group[group.method == "brcg"].fold)
    both = group[group.fold.isin(common)]
    ours_common, brcg_common = _means(both, method), _means(both, "brcg")
    accurate = bool(mean.accuracy >= brcg.accuracy - 1e-9 and mean.conditions <= brcg.conditions + 1e-9)
    cpu = brcg_common.cpu_seconds / ours_common.cpu_seconds
    return {"ours": mean, "brcg": brcg, "accurate": accurate, "cpu": cpu, "fast": bool(cpu >= 10),
            "wall": brcg_common.seconds / ours_common.seconds, "folds": len(common),
            "our_folds": group[group.method == method].fold.nunique(),
            "brcg_folds": group[group.method == "brcg"].fold.nunique()}


def _target_table(records: list[dict]) -> str:
    """Per dataset and cg variant, the issue's targets against BRCG of the same run."""
    frame = pd.DataFrame(records)
    ours = [m for m in ("cg", "cg_cv") if m in set(frame.method)]
    if "brcg" not in set(frame.method) or not ours:
        return ""
    lines = ["| dataset | learner | accuracy vs brcg | conditions vs brcg | accuracy target | "
             "brcg s / ours s (wall) | brcg s / ours s (CPU) | speed target | meets target | commit | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, group in frame.groupby("dataset", sort=False):
        for method in ours:
            t = _targets(group, method)
            if t is None:
                continue
            lines.append(f"| {name} | {method} | {t['ours'].accuracy:.3f} vs {t['brcg'].accuracy:.3f} | "
                         f"{t['ours'].conditions:.1f} vs {t['brcg'].conditions:.1f} | "
                         f"{'yes' if t['accurate'] else 'no'} | {t['wall']:.1f}x | {t['cpu']:.1f}x | "
                         f"{'yes' if t['fast'] else 'no'} | {'yes' if t['accurate'] and t['fast'] else 'no'} | "
                         f"{_provenance(group[group.method.isin([method, 'brcg'])])} |")
    return "\n".join(lines)


def _provenance(group: pd.DataFrame) -> str:
    """The commits (short) and the range of the 1-minute load average of a group of records."""
    commits = sorted({str(c)[:7] + ("+changes" if str(c).endswith("+changes") else "")
                      for c in group.get("commit", pd.Series(dtype=object)).dropna()}) or ["unknown"]
    loads = group.get("load", pd.Series(dtype=float)).dropna()
    return ", ".join(commits) + " | " + (f"{loads.min():.1f}-{loads.max():.1f}" if len(loads) else "unknown")


def _target_lines(records: list[dict], method: str = "cg") -> str:
    """One line per dataset: ``method`` against BRCG of the same run on both targets."""
    frame = pd.DataFrame(records)
    if not {"brcg", method} <= set(frame.method):
        return ""
    lines = []
    for name, group in frame.groupby("dataset", sort=False):
        t = _targets(group, method)
        if t is None:
            continue
        folds = (f"{t['folds']} folds" if t["our_folds"] == t["brcg_folds"] == t["folds"] else
                 f"{method} {t['our_folds']} folds, brcg {t['brcg_folds']}, speed on the {t['folds']} both ran")
        lines.append(f"- {name} ({folds}): accuracy {t['ours'].accuracy:.3f} vs {t['brcg'].accuracy:.3f} at "
                     f"{t['ours'].conditions:.1f} vs {t['brcg'].conditions:.1f} conditions "
                     f"({'yes' if t['accurate'] else 'no'}), {t['cpu']:.1f}x faster in CPU ({t['wall']:.1f}x wall; "
                     f"{'yes' if t['fast'] else 'no'}): **meets target: "
                     f"{'yes' if t['accurate'] and t['fast'] else 'no'}**")
    return "\n".join(lines)


def _cg_table(records: list[dict]) -> str:
    rows = [r for r in records if r["method"] == "cg"]
    if not rows:
        return ""
    lines = ["| dataset | iterations | pool | LP bound certified | MIP gap | gap to LP bound | pricing s | MIP s "
             "| 8 lines | cg_cv lam |", "|---|---|---|---|---|---|---|---|---|---|"]
    chosen = pd.DataFrame([r for r in records if r["method"] == "cg_cv"])
    frame = pd.DataFrame([{**{k: r[k] for k in ("dataset", "fold")}, **r["lp"], "lines": r.get("lines")}
                          for r in rows])
    # how far the chosen rule set's master objective is above the certified LP bound (a lower
    # bound on every rule set of terms of <= k literals): mean / max over the folds
    lp_gap = (frame["mip_objective"] - frame["lp_bound"]) / frame["mip_objective"].abs().clip(lower=1e-12)
    for name, g in frame.groupby("dataset", sort=False):
        lines_cell = f"{g['lines'].mean():.1f}" if g["lines"].notna().any() else ""
        gaps = g["mip_gap"].dropna()
        lines.append(f"| {name} | {g['iterations'].mean():.1f} | {g['pool_size'].mean():.0f} | "
                     f"{int(g['certified'].sum())}/{len(g)} | {gaps.max() if len(gaps) else float('nan'):.3g} | "
                     f"{lp_gap.loc[g.index].mean():.3g} / {lp_gap.loc[g.index].max():.3g} | "
                     f"{g['pricing_seconds'].mean():.2f} | {g['mip_seconds'].mean():.2f} | {lines_cell} | "
                     f"{_lams(chosen, name)} |")
    return "\n".join(lines)


def _lams(chosen: pd.DataFrame, name: str) -> str:
    """The lams cg_cv chose on a dataset's folds, with how often (e.g. ``0.005 x7, 0.01 x3``)."""
    if chosen.empty or "lam" not in chosen:
        return ""
    counts = chosen[chosen.dataset == name]["lam"].value_counts().sort_index()
    return ", ".join(f"{lam:g} x{n}" for lam, n in counts.items())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--methods", nargs="*", default=list(METHODS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--max-folds", type=int, default=None, help="run only the first folds of the split")
    parser.add_argument("--out", default=None, help="also write the markdown tables to this file")
    parser.add_argument("--records", default=None,
                        help="append every fold's record to this file as a JSON line, as soon as it is measured")
    parser.add_argument("--from-records", nargs="*", default=None, metavar="FILE",
                        help="print the tables of earlier --records files (run nothing)")
    args = parser.parse_args(argv)
    if args.from_records is not None:
        records = read_records(args.from_records)
        order = [m for m in METHODS if any(r["method"] == m for r in records)]
        print(_table(records, order) + "\n\n" + _cg_table(records) + "\n\n" + _target_table(records)
              + "\n\n" + _target_lines(records))
        return 0
    data_dir = report_common.data_dir(args.data_dir)
    methods = [m for m in args.methods if available(m)]
    missing = [m for m in args.methods if m not in methods]
    log = report_common.log

    def record_log(record: dict) -> None:
        if args.records:
            with open(args.records, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, default=float) + "\n")

    # a restarted run continues: the triples already in the records file are not fitted again
    earlier = read_records([args.records]) if args.records else []
    done = {name: {(r["fold"], r["method"]) for r in earlier if r["dataset"] == name} for name in args.datasets}
    wanted = range(args.folds if args.max_folds is None else min(args.folds, args.max_folds))
    todo = {name: [m for m in methods if any((f, m) not in done[name] for f in wanted)] for name in args.datasets}
    version = code_version()
    X, y = load("tic_tac_toe", data_dir)
    for method in methods:  # warm-up: imports and JIT compilation stay out of the timings
        if any(method in t for t in todo.values()):
            make(method).fit(X.iloc[::4], y[::4])
    records = [r for r in earlier if r["dataset"] in args.datasets and r["method"] in methods]
    for name in args.datasets:
        if not todo[name]:
            log(f"{name}: every fold already in {args.records}")
            continue
        X, y = load(name, data_dir)
        log(f"{name}: {len(y)} complete rows, {X.shape[1]} columns, {int(y.sum())} positives")
        records += run_dataset(name, X, y, methods, args.folds, log, args.max_folds, record_log,
                               frozenset(done[name]), version)
    records.sort(key=lambda r: (args.datasets.index(r["dataset"]), r["fold"]))
    text = (report_common.header("rule_sets.py", argv)
            + (f" Not installed, so not run: {', '.join(missing)}." if missing else "")
            + f"\n\nMean over {args.max_folds or args.folds} of the {args.folds} folds of accuracy / conditions / "
              "fit seconds (wall) / fit seconds (CPU):\n\n"
            + _table(records, methods) + "\n\n" + _cg_table(records) + "\n\n" + _target_table(records)
            + "\n\n" + _target_lines(records) + "\n")
    report_common.emit(text, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
