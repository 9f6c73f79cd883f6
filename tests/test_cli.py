"""The command line, run in-process through ``main([...])`` (and once as ``python -m``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from logicrules.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory) -> Path:
    """A small raw table: numeric, categorical and missing values; label yes/no."""
    rng = np.random.default_rng(0)
    n = 80
    frame = pd.DataFrame({
        "age": rng.integers(20, 80, n).astype(float),
        "colour": rng.choice(["red", "green", "blue"], n),
        "dose": rng.normal(size=n).round(3),
    })
    frame.loc[::9, "dose"] = np.nan
    frame["label"] = np.where((frame.age > 50) & (frame.colour != "blue"), "yes", "no")
    path = tmp_path_factory.mktemp("cli") / "toy.csv"
    frame.to_csv(path, index=False)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# ------------------------------------------------------------------------------ datasets
def test_datasets_lists_every_bundled_dataset(capsys):
    from logicrules.datasets import list_datasets

    code, out, _ = run(capsys, "datasets")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["name", "rows", "columns"]
    assert [line.split()[0] for line in lines[1:]] == list_datasets()
    assert "breast_cancer_wisconsin  699" in out


def test_python_dash_m_entry_point():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "logicrules", "datasets"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "mushroom" in done.stdout


def test_no_command_prints_help_and_fails(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "usage: logicrules" in err


def test_version(capsys):
    import logicrules

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"logicrules {logicrules.__version__}"


# ----------------------------------------------------------------------------------- fit
@pytest.mark.parametrize("learner, options, estimator", [
    ("ideal", ["--max-features", "3"], ("logicrules.ideal.method", "IdealDNFClassifier",
                                        {"max_features": 3, "random_state": 0})),
    ("premise", ["--max-size", "2"], ("logicrules.fca.premise.estimator", "OptimalPremiseClassifier",
                                      {"max_size": 2})),
    ("lp", ["--rule", "and", "--lam", "0.01"], ("logicrules.lp.estimator", "LPRuleClassifier",
                                                {"rule": "and", "lam": 0.01, "random_state": 0})),
])
def test_fit_csv_prints_the_rule_of_the_learner(capsys, csv_path, learner, options, estimator):
    from importlib import import_module

    code, out, _ = run(capsys, "fit", csv_path, "--target", "label", "--positive", "yes",
                       "--learner", learner, *options)
    assert code == 0
    frame = pd.read_csv(csv_path)
    X, y = frame.drop(columns="label"), (frame.label == "yes").astype(int)
    module, cls, params = estimator
    model = getattr(import_module(module), cls)(**params).fit(X, y)
    assert f"rule:     {model.formula_}\n" in out
    assert f"training: accuracy {model.score(X, y):.4f}" in out
    assert "F1 " in out and "fit time:" in out and "positive class: 1 = label yes" in out


def test_fit_bundled_dataset_needs_no_target(capsys):
    code, out, _ = run(capsys, "fit", "breast_cancer_wisconsin", "--learner", "lp")
    assert code == 0
    assert "breast_cancer_wisconsin (699 rows, 9 columns; positive class: 1 = class 4)" in out


def test_fit_two_class_target_without_positive_uses_the_larger_label(capsys, csv_path):
    code, out, _ = run(capsys, "fit", csv_path, "--target", "label", "--learner", "lp")
    assert code == 0 and "positive class: label = yes" in out and "THEN yes ELSE no" in out


def test_fit_format_json(capsys, csv_path):
    from logicrules.persistence import formula_from_json

    code, out, _ = run(capsys, "fit", csv_path, "--target", "label", "--positive", "yes",
                       "--learner", "premise", "--max-size", "1", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["learner"] == "premise" and report["params"]["max_size"] == 1
    assert 0.0 <= report["train_f1"] <= report["train_accuracy"] + 1.0
    assert str(formula_from_json(report["formula"])) == report["rule"]
    assert report["size"] == 1 and report["fit_seconds"] >= 0


@pytest.mark.parametrize("fmt, marker", [("sympy", " & "), ("latex", r"\wedge"), ("query", " and ")])
def test_fit_other_formats(capsys, csv_path, fmt, marker):
    code, out, _ = run(capsys, "fit", csv_path, "--target", "label", "--positive", "yes",
                       "--learner", "premise", "--max-size", "2", "--format", fmt)
    assert code == 0
    rule = next(line for line in out.splitlines() if line.startswith("rule:"))
    assert marker in rule


def test_fit_save_then_predict(capsys, csv_path, tmp_path):
    from logicrules.persistence import load_model

    model_path, out_path = tmp_path / "model.json", tmp_path / "pred.csv"
    code, out, _ = run(capsys, "fit", csv_path, "--target", "label", "--positive", "yes",
                       "--learner", "premise", "--max-size", "2", "--save", model_path)
    assert code == 0 and f"saved:    {model_path}" in out
    code, _, err = run(capsys, "predict", "--model", model_path, csv_path, "--explain",
                       "--output", out_path)
    assert code == 0 and "wrote 80 predictions" in err
    written = pd.read_csv(out_path)
    frame = pd.read_csv(csv_path)
    model = load_model(model_path)
    assert list(written.columns) == ["row", "prediction", "explanation"]
    np.testing.assert_array_equal(written.prediction, model.predict(frame.drop(columns="label")))
    assert written.explanation.str.match(r"^[01]: ").all()
    # to stdout, without explanations
    code, out, _ = run(capsys, "predict", "--model", model_path, csv_path)
    assert code == 0 and out.splitlines()[0] == "row,prediction" and len(out.splitlines()) == 81


# -------------------------------------------------------------------------------- errors
def test_missing_file(capsys):
    code, out, err = run(capsys, "fit", "no/such/file.csv", "--learner", "lp")
    assert code == 1 and out == ""
    assert "no such file or bundled dataset: 'no/such/file.csv'" in err


def test_csv_needs_target(capsys, csv_path):
    code, _, err = run(capsys, "fit", csv_path, "--learner", "lp")
    assert code == 1 and "--target is required" in err and "age, colour, dose, label" in err


def test_unknown_target_column(capsys, csv_path):
    code, _, err = run(capsys, "fit", csv_path, "--target", "outcome", "--learner", "lp")
    assert code == 1 and "target column 'outcome' not found" in err and "columns: age" in err


def test_multiclass_target_gets_one_rule_per_class(capsys, csv_path, tmp_path):
    code, out, _ = run(capsys, "fit", csv_path, "--target", "colour", "--learner", "lp")
    assert code == 0 and "one rule per class of colour" in out and out.count("rule:     IF") == 3
    model = tmp_path / "ideal.json"
    code, out, _ = run(capsys, "fit", csv_path, "--target", "colour", "--learner", "ideal", "--save", str(model))
    assert code == 0 and out.count("rule:     IF") == 3
    code, out, _ = run(capsys, "predict", "--model", str(model), csv_path, "--explain")
    assert code == 0 and "red" in out
    code, _, err = run(capsys, "fit", csv_path, "--target", "colour", "--learner", "lp", "--format", "query")
    assert code == 1 and "--positive" in err
    code, _, err = run(capsys, "compare", csv_path, "--target", "colour", "--learners", "lp")
    assert code == 1 and "has 3 classes" in err and "--positive" in err


def test_positive_value_not_in_target(capsys, csv_path):
    code, _, err = run(capsys, "fit", csv_path, "--target", "label", "--positive", "maybe",
                       "--learner", "lp")
    assert code == 1 and "'maybe' does not occur" in err


def test_unknown_learner(capsys, csv_path):
    code, _, err = run(capsys, "fit", csv_path, "--target", "label", "--learner", "svm")
    assert code == 2 and "invalid choice: 'svm'" in err
    code, _, err = run(capsys, "compare", "hepatitis", "--learners", "lp,svm")
    assert code == 2 and "unknown learner(s) 'svm'" in err


def test_option_of_another_learner(capsys, csv_path):
    code, _, err = run(capsys, "fit", csv_path, "--target", "label", "--learner", "lp",
                       "--max-size", "2")
    assert code == 2 and "--max-size applies to --learner premise" in err


def test_non_numeric_columns_with_passthrough(capsys, csv_path):
    code, _, err = run(capsys, "fit", csv_path, "--target", "label", "--learner", "lp",
                       "--binarizer", "passthrough")
    assert code == 1 and "needs 0/1 columns" in err and "'colour'" in err and "--binarizer quantile" in err


def test_identifier_column_is_rejected_and_can_be_dropped(capsys, tmp_path):
    n = 40
    frame = pd.DataFrame({"name": [f"p{i}" for i in range(n)], "x": np.arange(n) % 7,
                          "y": np.arange(n) % 2})
    path = tmp_path / "ids.csv"
    frame.to_csv(path, index=False)
    code, _, err = run(capsys, "fit", path, "--target", "y", "--learner", "lp")
    assert code == 1 and "'name'" in err and "--drop name" in err
    code, out, _ = run(capsys, "fit", path, "--target", "y", "--learner", "lp", "--drop", "name")
    assert code == 0 and "1 columns" in out


def test_predict_errors(capsys, csv_path, tmp_path):
    code, _, err = run(capsys, "predict", "--model", tmp_path / "none.json", csv_path)
    assert code == 1 and "no such model file" in err
    bogus = tmp_path / "bogus.json"
    bogus.write_text("[1, 2]")
    code, _, err = run(capsys, "predict", "--model", bogus, csv_path)
    assert code == 1 and "not a logicrules model file" in err
    model_path = tmp_path / "m.json"
    assert run(capsys, "fit", csv_path, "--target", "label", "--learner", "lp", "--save", model_path)[0] == 0
    other = tmp_path / "other.csv"
    pd.DataFrame({"age": [1.0, 2.0]}).to_csv(other, index=False)
    code, _, err = run(capsys, "predict", "--model", model_path, other)
    assert code == 1 and "lacks column(s)" in err and "'colour'" in err


# ------------------------------------------------------------------------------- compare
def test_compare_prints_markdown_and_writes_results(capsys, csv_path, tmp_path):
    results = tmp_path / "results.csv"
    code, out, err = run(capsys, "compare", csv_path, "hepatitis", "--target", "label",
                         "--positive", "yes", "--learners", "lp,premise,rf", "--max-size", "1",
                         "--cv", "2", "--results", results)
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("| dataset | learner | accuracy | f1 |")
    assert [line.split("|")[1:3] for line in lines[2:]] == [
        [f" {d} ", f" {l} "] for d in ("toy", "hepatitis") for l in ("lp", "premise", "rf")]
    frame = pd.read_csv(results)
    assert len(frame) == 2 * 3 * 2 and {"accuracy", "f1", "formula"} <= set(frame.columns)
    assert "100%" in err  # the progress bar went to stderr


def test_compare_quiet_and_bad_cv(capsys):
    code, out, err = run(capsys, "compare", "hepatitis", "--learners", "lp", "--cv", "2", "--quiet")
    assert code == 0 and out.startswith("| dataset") and err == ""
    code, _, err = run(capsys, "compare", "hepatitis", "--learners", "lp", "--cv", "1")
    assert code == 2 and "--cv must be at least 2" in err
