"""Where column generation loses against BRCG: variants of ``LPRuleClassifier(rule="dnf")`` on the
folds of :mod:`rule_sets`.

Each variant is a JSON object of estimator parameters (``lam``, ``max_term_size``,
``random_state``) plus three settings of the fit that the estimator does not take:
``"mip"`` (seconds of the integer master, :data:`~logicrules.lp.estimator.CG_MIP_SECONDS`),
``"beam"`` (``beam_width`` of :func:`~logicrules.lp.colgen.learn_dnf_cg`: a beam past
``max_term_size`` tried when the exact pricing finds nothing) and ``"exact_count"`` (after the
integer master, a second integer program over the same pool in which a negative row covered by
several terms is counted once, not once per term; its rule set replaces the master's when it
has the lower exact training objective). Every variant is fitted on the training part of every
fold of ``StratifiedKFold(10, shuffle=True, random_state=0)`` and scored on its test part.

This table reads the outer test folds: it says what a setting *would* give, as an analysis of
the gap, and is not used to choose defaults (:mod:`rule_sets_tuning` chooses on inner folds).

Usage::

    python benchmarks/rule_sets_variants.py [--data-dir ../shared/datasets] --datasets hepatitis ... \\
        --variants '{"lam": 0.002}' '{"lam": 0.005, "mip": 2}' --records FILE
    python benchmarks/rule_sets_variants.py --from-records FILE ...
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import functools
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, sparse
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rule_sets import load  # noqa: E402

import logicrules.lp.colgen as colgen  # noqa: E402
import logicrules.lp.estimator as lp_estimator  # noqa: E402
from logicrules.lp.master import MasterMIP, conjunction_extents, solve_master_mip  # noqa: E402

_FIT_SETTINGS = ("mip", "beam", "exact_count")
_DEFAULT_MIP_SECONDS = lp_estimator.CG_MIP_SECONDS


def _exact_objective(pool, chosen: np.ndarray, neg_cover: np.ndarray) -> float:
    """Training objective of a choice of pool terms with every covered negative row counted once."""
    P = pool.problem
    extra = pool.neg_cost - P.neg_weight @ neg_cover  # literal costs riding with the negatives' cost
    return float(P.pos_weight[~pool.cover[:, chosen].any(axis=1)].sum()
                 + P.neg_weight[neg_cover[:, chosen].any(axis=1)].sum()
                 + (P.lam * (1.0 + pool.sizes) + extra)[chosen].sum())


def exact_count_master(pool, solver="highs", time_limit=None, lp=None) -> MasterMIP:
    """The integer master, then the program with ``zeta_j >= a_jk w_k`` for every negative row j
    covered by term k (cost ``v_j zeta_j`` once); the better rule set by the exact objective."""
    base = solve_master_mip(pool, solver=solver, time_limit=time_limit, lp=lp)
    P, K = pool.problem, len(pool)
    if K == 0:
        return base
    p, neg_cover = P.A_pos.shape[0], conjunction_extents(P.A_neg, pool.terms)
    z = neg_cover.shape[0]
    extra = pool.neg_cost - P.neg_weight @ neg_cover
    c = np.concatenate([P.lam * (1.0 + pool.sizes) + extra, P.pos_weight, P.neg_weight])
    rows, terms = np.nonzero(neg_cover)
    pairs = np.arange(rows.size)
    cover_rows = sparse.hstack([sparse.csr_array(pool.cover.astype(np.float64)), sparse.identity(p),
                                sparse.csr_array((p, z))])
    pair_rows = sparse.csr_array((np.concatenate([np.ones(rows.size), -np.ones(rows.size)]),
                                  (np.concatenate([pairs, pairs]), np.concatenate([terms, K + p + rows]))),
                                 shape=(rows.size, K + p + z))
    res = optimize.milp(c, integrality=np.concatenate([np.ones(K), np.zeros(p + z)]), bounds=optimize.Bounds(0, 1),
                        constraints=optimize.LinearConstraint(sparse.vstack([cover_rows, pair_rows], format="csr"),
                                                              np.concatenate([np.ones(p), np.full(rows.size, -np.inf)]),
                                                              np.concatenate([np.full(p, np.inf), np.zeros(rows.size)])),
                        options={"time_limit": float(time_limit or lp_estimator.CG_MIP_SECONDS), "mip_rel_gap": 0.0})
    if res.x is None:
        return base
    chosen = res.x[:K] > 0.5
    if _exact_objective(pool, chosen, neg_cover) < _exact_objective(pool, base.chosen, neg_cover) - P.tolerance():
        return MasterMIP(chosen, base.objective, base.bound, base.gap, base.status, base.solver, base.seconds)
    return base


def _configure(settings: dict) -> None:
    """Set the fit settings of a variant (module attributes the estimator's fit reads)."""
    lp_estimator.CG_MIP_SECONDS = float(settings.get("mip") or _DEFAULT_MIP_SECONDS)
    beam = int(settings.get("beam") or 0)
    lp_estimator.learn_dnf_cg = functools.partial(colgen.learn_dnf_cg, beam_width=beam) if beam else colgen.learn_dnf_cg
    colgen.solve_master_mip = exact_count_master if settings.get("exact_count") else solve_master_mip


def label(variant: str) -> str:
    v = json.loads(variant)
    parts = [f"lam {v.get('lam', 0.005)}"]
    if v.get("mip"):
        parts.append(f"MIP {v['mip']:g} s")
    if v.get("exact_count"):
        parts.append("exact-count MIP")
    if v.get("beam"):
        parts.append(f"beam {v['beam']}")
    if v.get("max_term_size"):
        parts.append(f"k={v['max_term_size']}")
    return ", ".join(parts)


def summary(records: pd.DataFrame) -> str:
    """Markdown: per dataset and variant, accuracy / conditions / fit CPU seconds over the folds
    (variants run on all 10 folds only)."""
    records = records.assign(variant=records.variant.map(label))
    means = records.groupby(["dataset", "variant"]).agg(accuracy=("accuracy", "mean"), conditions=("conditions", "mean"),
                                                        cpu=("cpu_seconds", "mean"), folds=("fold", "nunique")).reset_index()
    means = means[means.folds == 10]
    variants = sorted(means.variant.unique(), key=lambda s: (s.count(",") > 0, s))
    lines = ["| dataset | " + " | ".join(variants) + " |", "|---" * (len(variants) + 1) + "|"]
    for name, group in means.groupby("dataset"):
        cells = {r.variant: f"{r.accuracy:.3f} / {r.conditions:.1f} / {r.cpu:.2f}" for r in group.itertuples()}
        lines.append(f"| {name} | " + " | ".join(cells.get(v, "") for v in variants) + " |")
    return "\n".join(lines)


def read_records(files) -> pd.DataFrame:
    """The fits of ``--records`` files, one row each; a later fit of a (dataset, fold, variant)
    replaces an earlier one."""
    records = pd.DataFrame([json.loads(line) for file in files
                            for line in Path(file).read_text(encoding="utf-8").splitlines() if line.strip()])
    return records.drop_duplicates(["dataset", "fold", "variant"], keep="last")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="*", default=[])
    parser.add_argument("--variants", nargs="*", default=['{"lam": 0.005}'])
    parser.add_argument("--records", default=None, help="append every fit as a JSON line")
    parser.add_argument("--from-records", nargs="*", default=None, metavar="FILE",
                        help="print the table of earlier --records files (fit nothing)")
    args = parser.parse_args(argv)
    if args.from_records is not None:
        print(summary(read_records(args.from_records)))
        return 0
    rows = []
    for name in args.datasets:
        X, y = load(name, Path(args.data_dir))
        for fold, (train, test) in enumerate(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y)):
            for variant in args.variants:
                settings = json.loads(variant)
                _configure(settings)
                model = lp_estimator.LPRuleClassifier(rule="dnf", **{k: v for k, v in settings.items()
                                                                     if k not in _FIT_SETTINGS})
                cpu = time.process_time()
                model.fit(X.iloc[train], y[train])
                cpu = time.process_time() - cpu
                row = {"dataset": name, "fold": fold, "variant": json.dumps(settings, sort_keys=True),
                       "accuracy": float(np.mean(model.predict(X.iloc[test]) == y[test])),
                       "conditions": int(model.formula_.size), "cpu_seconds": cpu, "lam": float(model.lam_),
                       "load": os.getloadavg()[0]}
                rows.append(row)
                if args.records:
                    with open(args.records, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row) + "\n")
        _configure({})
    if rows:
        print(summary(pd.DataFrame(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
