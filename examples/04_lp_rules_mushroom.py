"""Boolean rules by linear programming (group testing) on the mushroom data.
=========================================================================

An OR-rule "literal_1 OR literal_2 OR ..." is a 0/1 choice of literals. Asking for the rule
with the fewest errors plus lambda per literal is an integer program; its LP relaxation is
solved in milliseconds and is usually integral already. Larger lambda means shorter rules. We
learn OR, AND and DNF rules that predict "poisonous", then trace the regularization path:
accuracy and rule size against lambda.

Run:  python examples/04_lp_rules_mushroom.py --out example_output/04
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from sklearn.model_selection import train_test_split

from logicrules.datasets import load_dataset
from logicrules.lp.estimator import LAM_GRID, LPRuleClassifier, regularization_path
from logicrules.plot import plot_regularization_path


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("example_output/04"), help="folder for the outputs")
    parser.add_argument("--fast", action="store_true", help="train on 2000 rows and fewer lambdas")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    # 8124 mushrooms, 22 categorical columns (single-letter codes); y = 1 for poisonous.
    X, y = load_dataset("mushroom")
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=2000 if args.fast else 0.7, stratify=y, random_state=0)

    # Categories become literals "col == v" and "col != v" (the quantile binarizer's default).
    for rule in ("or", "and", "dnf"):
        model = LPRuleClassifier(rule=rule, lam=0.005).fit(X_train, y_train)
        info = model.lp_result_
        print(f"{rule:>3}: {model.formula_}")
        print(f"     test accuracy {model.score(X_test, y_test):.3f}, {model.formula_.size} literals, "
              f"{info['n_lp_solves']} LP solve(s) over {info['n_columns']} literals "
              f"({info['columns_screened']} screened out in total), "
              f"{info['seconds']:.2f} s")

    # The regularization path: one OR-rule per lambda (a fraction of the training rows that one
    # literal must be worth).
    lams = LAM_GRID[::2] if args.fast else LAM_GRID + (0.1, 0.2)
    path = regularization_path(LPRuleClassifier(rule="or"), X_train, y_train, lams=lams,
                               X_test=X_test, y_test=y_test)
    columns = ["lam", "size", "train_accuracy", "test_accuracy", "rule"]
    print("\n", path[columns].to_string(index=False))

    path[columns].to_csv(args.out / "regularization_path.csv", index=False)
    ax = plot_regularization_path(path)
    ax.figure.savefig(args.out / "regularization_path.png", dpi=120, bbox_inches="tight")
    print(f"wrote {args.out / 'regularization_path.csv'} and {args.out / 'regularization_path.png'}")


if __name__ == "__main__":
    main()
