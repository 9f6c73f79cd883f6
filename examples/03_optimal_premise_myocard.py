"""Optimal short premises on the myocardial infarction data.
=========================================================

A premise is a small formula built from attributes and their negations with AND and OR (at most
k literals). For k <= 4 the search is exhaustive and exact: it returns THE premise with the
best F1 on the training data, not a heuristic one (k = 4 takes a few seconds here). We predict a lethal outcome from 111
clinical inputs, print the per-size work of the search (the paper's Table 1), test the rule,
and draw the premises on the true-positive / true-negative plane with F1 iso-lines (the paper's
figure).

Run:  python examples/03_optimal_premise_myocard.py --out example_output/03 [--max-size 4]
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

from logicrules.datasets import load_dataset
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.plot import plot_tp_tn


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("example_output/03"), help="folder for the outputs")
    parser.add_argument("--max-size", type=int, default=3, choices=[1, 2, 3, 4], help="largest premise size")
    parser.add_argument("--fast", action="store_true", help="premises of size <= 2 (overrides --max-size)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    # 1700 patients, 111 inputs with 7.6% missing values; y = 1 for a lethal outcome.
    X, y = load_dataset("myocardial_infarction")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    print(f"{len(X_train)} training rows, {int(y_train.sum())} positive")

    # The quantile binarizer turns each numeric column into threshold attributes "x <= t" and
    # "x > t"; a missing value makes all attributes of its column false.
    model = OptimalPremiseClassifier(max_size=2 if args.fast else args.max_size, objective="f1")
    model.fit(X_train, y_train)
    print(f"{len(model.attribute_names_)} attributes after binarization")

    # Table 1: how many premises each size has, how many extent combinations the search
    # needed and scored after pruning, and the best F1 so far.
    table = model.search_stats_.to_frame()
    print("\n", table.to_string())
    print(f"\nbest premise: {model.formula_}   (training F1 {model.score_:.3f})")
    print(f"test F1: {f1_score(y_test, model.predict(X_test)):.3f}")

    # Every premise of size <= k is a point (tp, tn). Only the non-dominated ones matter: a
    # premise below and left of another is worse for every objective that rewards tp and tn.
    for size, front in sorted(model.pareto_.items()):
        print(f"size <= {size}: {len(front)} non-dominated premises")

    table.to_csv(args.out / "search_statistics.csv")
    ax = plot_tp_tn(model)
    ax.figure.savefig(args.out / "tp_tn_plane.png", dpi=120, bbox_inches="tight")
    print(f"wrote {args.out / 'search_statistics.csv'} and {args.out / 'tp_tn_plane.png'}")


if __name__ == "__main__":
    main()
