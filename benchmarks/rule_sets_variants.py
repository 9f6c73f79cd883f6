"""Where column generation loses against BRCG: variants of ``LPRuleClassifier(rule="dnf")`` on the
folds of :mod:`rule_sets`.

Each variant is a JSON object of estimator parameters (``lam``, ``max_term_size``,
``random_state``) plus four settings of the fit that the estimator does not take:
``"binarizer": "brcg"`` (the learner reads BRCG's literals: AIX360's
``FeatureBinarizer(negations=True)``, fitted on the training part of each fold, its 0/1 output
passed through with ``binarizer="passthrough"``; the binarization is not in the fit's time),
``"path"`` (lam chosen by a path over one shared pool, :func:`path_fit`: ``"holdout"`` for one
stratified third of the training part held out, or a number of inner folds; ``"pool_lam"``
the lam the pool is generated at, default 0.002),
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
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rule_sets import load  # noqa: E402

import logicrules.lp.colgen as colgen  # noqa: E402
import logicrules.lp.estimator as lp_estimator  # noqa: E402
from logicrules.lp.master import (ConjunctionPool, MasterMIP, build_rule_set_problem, conjunction_extents,  # noqa: E402
                                  solve_master_mip)

_FIT_SETTINGS = ("mip", "beam", "exact_count", "binarizer", "path", "pool_lam")
#: The lams of a path (fractions of the training rows).
PATH_GRID = (0.001, 0.002, 0.005, 0.01, 0.02)
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
    if v.get("binarizer"):
        parts.append(f"{v['binarizer']} literals")
    if v.get("path"):
        parts[0] = f"lam path ({v['path']}, pool at {v.get('pool_lam', 0.002)})"
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


def brcg_literals(X_train: pd.DataFrame, X_test: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """BRCG's literals of a fold: AIX360's ``FeatureBinarizer(negations=True)`` fitted on the
    training part, both parts as 0/1 frames named ``feature op value``."""
    from rule_sets import _BRCG

    from aix360.algorithms.rbm import FeatureBinarizer

    _BRCG()  # the pandas 3 / scikit-learn 1.9 patch of the binarizer
    binarizer = FeatureBinarizer(negations=True).fit(_BRCG._object(X_train))

    def literals(X: pd.DataFrame) -> pd.DataFrame:
        A = binarizer.transform(_BRCG._object(X))
        return pd.DataFrame(A.to_numpy(dtype=np.int8), columns=[" ".join(map(str, c)) for c in A.columns])

    return literals(X_train), literals(X_test)


class PathFit:
    """A DNF whose lam was chosen by :func:`path_fit`: ``formula_`` (for its size), ``lam_``,
    ``predict``."""

    def __init__(self, binarizer, formula, terms: list[tuple[int, ...]], lam: float):
        self.binarizer_, self.formula_, self.terms, self.lam_ = binarizer, formula, terms, lam

    def predict(self, X) -> np.ndarray:
        A = np.asarray(self.binarizer_.transform(X), dtype=bool)
        return (conjunction_extents(A, self.terms).any(axis=1) if self.terms else np.zeros(len(A), bool)).astype(int)


def path_fit(X: pd.DataFrame, y: np.ndarray, inner, pool_lam: float = 0.002, grid=PATH_GRID,
             random_state: int = 0) -> PathFit:
    """lam by a path over a shared pool: on each inner split, column generation at ``pool_lam``
    on the inner training rows gives a pool; for every lam of ``grid`` only the integer master
    over that pool is solved again (no pricing) and scored on the held-out rows. The lam of the
    best held-out accuracy (ties: the larger) is then fitted on all rows by column generation,
    warm-started with the pools. Same literals and tie-break as ``LPRuleClassifier(rule="dnf")``."""
    from logicrules.fca.scaling import QuantileBinarizer
    from logicrules.lp.structure import _to_formula

    binarizer = QuantileBinarizer().fit(X)
    A, y = np.asarray(binarizer.transform(X), dtype=bool), np.asarray(y, dtype=bool)
    negated = np.array([c.op == "!=" for c in binarizer.conditions_])

    def problem(rows, lam):
        cost = lam * len(rows)
        return build_rule_set_problem(A[rows], y[rows], cost, literal_cost=lp_estimator.NEGATION_TIE_BREAK * cost * negated)

    splits = (StratifiedShuffleSplit(1, test_size=1 / 3, random_state=random_state) if inner == "holdout"
              else StratifiedKFold(int(inner), shuffle=True, random_state=random_state)).split(A, y)
    scores, generated = np.zeros(len(grid)), {}
    for train, held_out in splits:
        fit = colgen.learn_dnf_cg(None, None, None, problem=problem(train, pool_lam), max_size=3,
                                  mip_time_limit=lp_estimator.CG_MIP_SECONDS)
        generated.update(dict.fromkeys(fit.pool))
        for j, lam in enumerate(grid):
            pool = ConjunctionPool(problem(train, lam))
            pool.add(fit.pool)
            chosen = solve_master_mip(pool, time_limit=lp_estimator.CG_MIP_SECONDS).chosen
            terms = [pool.terms[k] for k in np.flatnonzero(chosen)]
            fires = conjunction_extents(A[held_out], terms).any(axis=1) if terms else np.zeros(len(held_out), bool)
            scores[j] += np.mean(fires == y[held_out])
    lam = grid[int(np.flatnonzero(scores >= scores.max() - 1e-12)[-1])]
    fit = colgen.learn_dnf_cg(None, None, None, problem=problem(np.arange(len(y)), lam), max_size=3,
                              mip_time_limit=lp_estimator.CG_MIP_SECONDS, initial_terms=tuple(generated))
    terms = [tuple(int(j) for j in t) for t in fit.terms]
    formula = _to_formula("dnf", terms, list(binarizer.get_feature_names_out()))
    return PathFit(binarizer, formula, terms, float(lam))


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
            brcg = None
            for variant in args.variants:
                settings = json.loads(variant)
                _configure(settings)
                params = {k: v for k, v in settings.items() if k not in _FIT_SETTINGS}
                X_train, X_test = X.iloc[train], X.iloc[test]
                if settings.get("binarizer") == "brcg":
                    brcg = brcg_literals(X_train, X_test) if brcg is None else brcg
                    (X_train, X_test), params["binarizer"] = brcg, "passthrough"
                cpu = time.process_time()
                if settings.get("path"):
                    model = path_fit(X_train, y[train], settings["path"], float(settings.get("pool_lam", 0.002)))
                else:
                    model = lp_estimator.LPRuleClassifier(rule="dnf", **params).fit(X_train, y[train])
                cpu = time.process_time() - cpu
                row = {"dataset": name, "fold": fold, "variant": json.dumps(settings, sort_keys=True),
                       "accuracy": float(np.mean(model.predict(X_test) == y[test])),
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
