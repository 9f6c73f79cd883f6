"""The ideal DNF method on the Wisconsin breast cancer data.
=========================================================

The ideal classifier over a set S of Boolean features predicts, for every combination of their
values (a "type"), the majority class of that type. It is the best possible formula over S, so
the whole art is choosing S: the method booleanizes with medians, ranks features on a training
part, and picks the number of features l on a validation part (the smallest l within one
percentage point of the best). We fit it, look at the path over l, the type table and the
final DNF, test it on held-out rows, and ask how many rows the sample bound wants.

Run:  python examples/02_ideal_dnf_breast_cancer.py --out example_output/02
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from sklearn.model_selection import train_test_split

from logicrules.datasets import load_dataset
from logicrules.ideal.bounds import sample_size_bound
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.plot import plot_validation_path


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("example_output/02"), help="folder for the outputs")
    parser.add_argument("--fast", action="store_true", help="try at most 6 features instead of 10")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    # 699 biopsies, 9 numeric cell measurements (1-10), y = 1 for malignant.
    X, y = load_dataset("breast_cancer_wisconsin")
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

    model = IdealDNFClassifier(max_features=6 if args.fast else 10, random_state=0)
    model.fit(X_train, y_train)

    # Steps 3-6: for each l, the best of three rankings and its validation accuracy.
    path = model.path_[["n_features", "scorer", "validation_accuracy", "training_accuracy", "n_types"]]
    print(path.to_string(index=False))
    print(f"\nchosen l = {model.n_selected_}: {model.selected_features_}")

    # The type table: each realized combination of the chosen attributes, with its counts.
    # Types with a majority of positives form the ideal DNF (one conjunction per type) ...
    print("\ntype table:\n", model.type_table_.to_frame().to_string(index=False))
    print("\nideal DNF (one term per positive type):", model.ideal_formula_)
    # ... which SymPy then simplifies into a minimal DNF over the same attributes.
    print("simplified:", model.formula_)

    print(f"\ntest accuracy: {model.score(X_test, y_test):.3f}")
    print(model.get_rules().to_string(index=False))
    for row, reason in zip(X_test.index[:3], model.explain(X_test.iloc[:3])):
        print(f"row {row}: {reason}")

    # Corollary 3.2: rows needed so that the empirical ideal classifier over l features is
    # epsilon-close to the ideal one with probability 1 - delta.
    l = model.n_selected_
    print(f"\nsample bound for |S| = {l}, delta = 0.01, epsilon = 0.05: "
          f"{sample_size_bound(l, delta=0.01, epsilon=0.05)} rows (we have {len(X_train)})")

    model.path_.to_csv(args.out / "validation_path.csv", index=False)
    ax = plot_validation_path(model)
    ax.figure.savefig(args.out / "validation_path.png", dpi=120, bbox_inches="tight")
    print(f"wrote {args.out / 'validation_path.csv'} and {args.out / 'validation_path.png'}")


if __name__ == "__main__":
    main()
