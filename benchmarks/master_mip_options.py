"""HiGHS options of column generation's integer master, timed on the benchmark folds' own pools.

Every fold of ``rule_sets.py`` (``StratifiedKFold(10, shuffle=True, random_state=0)``, rows
with missing values dropped) is fitted once by the default ``LPRuleClassifier(rule="dnf")``; the
integer master it hands HiGHS (pool matrices, start, node limit) is kept. Each variant then
solves all of them again, one after the other in this process: CPU seconds of the solves, the
summed objective of the rule sets returned, and on how many pools the variant ends worse (+) or
better (-) than the first variant. A variant is a set of HiGHS options applied on top of the
package's own (``logicrules.lp.highs_mip``); ``nodes=N`` replaces the node limit.

Usage::

    python benchmarks/master_mip_options.py [--data-dir ../shared/datasets] [--datasets ...]
        [--variants 'current' 'mip_pool_soft_limit=10000' 'mip_detect_symmetry=False' ...]
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold

import logicrules.lp.highs_mip as highs_mip
from logicrules.lp.estimator import LPRuleClassifier

import report_common
import rule_sets


def capture(names, data_dir) -> dict:
    """(dataset, fold) -> the arguments of every integer master of that fold's default fit."""
    solve = highs_mip.solve_mip_highs
    found: list = []

    def spy(matrices, cover, start, node_limit, time_limit):
        found.append((matrices, cover, np.asarray(start).copy(), node_limit, time_limit))
        return solve(matrices, cover, start, node_limit, time_limit)

    highs_mip.solve_mip_highs = spy
    pools = {}
    try:
        for name in names:
            X, y = rule_sets.load(name, data_dir)
            for fold, (train, _) in enumerate(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y)):
                found.clear()
                LPRuleClassifier(rule="dnf").fit(X.iloc[train], y[train])
                pools[(name, fold)] = list(found)
            report_common.log(f"{name}: {sum(len(v) for k, v in pools.items() if k[0] == name)} integer masters")
    finally:
        highs_mip.solve_mip_highs = solve
    return pools


def parse(variant: str) -> dict:
    """'current' or 'name=value,name=value' (bools, ints, floats, strings)."""
    options = {}
    if variant == "current":
        return options
    for item in variant.split(","):
        key, _, text = item.partition("=")
        value: object = text
        if text in ("True", "False"):
            value = text == "True"
        else:
            for kind in (int, float):
                try:
                    value = kind(text)
                    break
                except ValueError:
                    continue
        options[key.strip()] = value
    return options


def solve_all(pools: dict, options: dict) -> dict:
    """dataset -> list of (CPU seconds, objective) over its pools, under these options (set
    last, just before HiGHS runs, so they override the package's own)."""
    import highspy

    options = dict(options)
    nodes = options.pop("nodes", None)

    class Configured(highspy.Highs):
        def run(self):
            for key, value in options.items():
                self.setOptionValue(key, value)
            return super().run()

    def configured():
        h = Configured()
        h.setOptionValue("output_flag", False)
        return h

    new = highs_mip._new_highs
    highs_mip._new_highs = configured
    out: dict = {}
    try:
        for (name, _), calls in pools.items():
            for matrices, cover, start, node_limit, time_limit in calls:
                begin = time.process_time()
                x, *_ = highs_mip.solve_mip_highs(matrices, cover, start,
                                                  node_limit if nodes is None else nodes, time_limit)
                cpu = time.process_time() - begin
                chosen = x if x is not None else start.astype(np.float64)
                out.setdefault(name, []).append((cpu, highs_mip._cost(matrices[0], cover, chosen, matrices[3])))
    finally:
        highs_mip._new_highs = new
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/datasets")
    parser.add_argument("--datasets", nargs="*", default=list(rule_sets.DATASETS))
    parser.add_argument("--variants", nargs="*", default=["current", "mip_pool_soft_limit=10000"])
    args = parser.parse_args(argv)
    pools = capture(args.datasets, report_common.data_dir(args.data_dir))
    results = {v: solve_all(pools, parse(v)) for v in args.variants}
    first = results[args.variants[0]]
    lines = [report_common.header("master_mip_options.py", argv), "",
             "CPU seconds of the integer masters / summed objective (pools worse + / better - than "
             f"`{args.variants[0]}`):", "",
             "| dataset | pools | " + " | ".join(f"`{v}`" for v in args.variants) + " |",
             "|---|---:|" + "---|" * len(args.variants)]
    for name in args.datasets:
        base = np.array([o for _, o in first[name]])
        cells = []
        for v in args.variants:
            cpu, objective = np.array(results[v][name]).T
            worse, better = int((objective > base + 1e-9).sum()), int((objective < base - 1e-9).sum())
            cells.append(f"{cpu.sum():.2f} / {objective.sum():.3f} (+{worse}/-{better})")
        lines.append(f"| {name} | {len(base)} | " + " | ".join(cells) + " |")
    totals = [sum(sum(c for c, _ in results[v][n]) for n in args.datasets) for v in args.variants]
    lines.append("| all | " + str(sum(len(first[n]) for n in args.datasets)) + " | "
                 + " | ".join(f"{t:.2f}" for t in totals) + " |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
