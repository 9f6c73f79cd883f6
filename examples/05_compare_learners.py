"""Compare the three rule learners and a random forest by cross-validation.
========================================================================

Each learner runs on the same stratified folds of a few bundled datasets; we get one tidy row
per (dataset, learner, fold) with accuracy, F1, the rule's size and fit time, summarize it as
mean +/- std, save a markdown table and a figure, and finally compare the rules the learners
found on the same fold: are they logically equivalent, how often do they agree, which
attributes do they share?

Run:  python examples/05_compare_learners.py --out example_output/05
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from sklearn.ensemble import RandomForestClassifier

from logicrules.compare import compare_formulas, compare_learners, summarize, to_markdown
from logicrules.datasets import load_dataset
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp.estimator import LPRuleClassifier


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("example_output/05"), help="folder for the outputs")
    parser.add_argument("--fast", action="store_true", help="two datasets, 3 folds, smaller models")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    # Numeric datasets with missing values: the rule learners binarize them, and scikit-learn's
    # random forest takes NaN as it is.
    datasets = ["breast_cancer_wisconsin", "hepatitis"]
    if not args.fast:
        datasets.append("heart_disease_cleveland")
    learners = {
        "ideal": IdealDNFClassifier(random_state=0),
        "premise": OptimalPremiseClassifier(max_size=2 if args.fast else 3),
        "lp": LPRuleClassifier(),
        "random forest": RandomForestClassifier(n_estimators=50 if args.fast else 200, random_state=0),
    }
    # One task per (dataset, learner, fold); n_jobs=-1 would run them on all cores, and a Dask
    # client (client=...) on a cluster. return_estimators keeps each fold's fitted model.
    results = compare_learners(datasets, learners, cv=3 if args.fast else 5, n_jobs=1,
                               random_state=0, verbose=0, return_estimators=True)
    results.drop(columns=["estimator", "test_index"]).to_csv(args.out / "results.csv", index=False)

    summary = summarize(results)
    table = to_markdown(summary, measures=["accuracy", "f1", "formula_size", "fit_seconds"])
    print(table)
    (args.out / "summary.md").write_text(table + "\n", encoding="utf-8")

    # Figure: mean test accuracy per dataset and learner, with the std over folds.
    means = summary.pivot(index="dataset", columns="learner", values="accuracy_mean")[list(learners)]
    stds = summary.pivot(index="dataset", columns="learner", values="accuracy_std")[list(learners)]
    ax = means.plot.bar(yerr=stds, rot=0, figsize=(7, 4), capsize=2)
    ax.set_ylim(0.5, 1.0)
    ax.set_ylabel("cross-validated accuracy")
    ax.set_title("Rule learners vs. a random forest")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.figure.savefig(args.out / "accuracy.png", dpi=120, bbox_inches="tight")
    plt.close(ax.figure)

    # The rules of fold 0 on the first dataset, compared pairwise on that fold's test rows.
    X, _ = load_dataset(datasets[0])
    fold = results[(results.dataset == datasets[0]) & (results.fold == 0) & results.formula.notna()]
    models = dict(zip(fold.learner, fold.estimator))
    test_rows = X.iloc[fold.test_index.iloc[0]]
    pairs = compare_formulas(models, test_rows)
    print()
    print(pairs[["model_a", "model_b", "equivalent", "agreement", "shared_columns"]].to_string(index=False))
    pairs.to_csv(args.out / "formula_comparison.csv", index=False)
    print(f"wrote results.csv, summary.md, accuracy.png and formula_comparison.csv to {args.out}")


if __name__ == "__main__":
    main()
