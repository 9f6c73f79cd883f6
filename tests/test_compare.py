"""compare_learners, summarize, to_markdown and compare_formulas."""

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from logicrules.compare import compare_formulas, compare_learners, restricted_ideal_dnf, summarize, to_markdown
from logicrules.datasets import load_dataset
from logicrules.equivalence import equivalent
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.lp.estimator import LPRuleClassifier

LEARNERS = {
    "premise": OptimalPremiseClassifier(max_size=2),
    "lp": LPRuleClassifier(),
    "tree": DecisionTreeClassifier(max_depth=2, random_state=0),
}


@pytest.fixture(scope="module")
def hepatitis():
    X, y = load_dataset("hepatitis")
    return X.fillna(-1), y  # the reference tree needs no NaN handling


@pytest.fixture(scope="module")
def results(hepatitis):
    return compare_learners({"hep": hepatitis}, LEARNERS, cv=3, verbose=0, return_estimators=True)


def test_tidy_rows_and_scores_match_a_manual_cross_validation(results, hepatitis):
    X, y = hepatitis
    assert list(results.columns) == ["dataset", "learner", "fold", "accuracy", "f1", "formula_size",
                                     "n_attributes", "n_columns", "fit_seconds", "formula",
                                     "estimator", "test_index"]
    assert len(results) == 3 * 3
    assert results[["learner", "fold"]].values.tolist() == [[l, f] for l in LEARNERS for f in range(3)]
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    for _, row in results.iterrows():
        train, test = folds[row["fold"]]
        np.testing.assert_array_equal(row["test_index"], test)
        from sklearn.base import clone

        model = clone(LEARNERS[row["learner"]]).fit(X.iloc[train], y.iloc[train])
        pred = model.predict(X.iloc[test])
        assert row["accuracy"] == pytest.approx(accuracy_score(y.iloc[test], pred))
        assert row["f1"] == pytest.approx(f1_score(y.iloc[test], pred))
        if row["learner"] == "tree":
            assert row["formula"] is None and pd.isna(row["formula_size"])
        else:
            assert row["formula"] == str(model.formula_)
            assert row["formula_size"] == model.formula_.size
            assert row["n_attributes"] == len(model.formula_.attributes)
            used = {c.column for c in model.binarizer_.conditions_ if c.name in model.formula_.attributes}
            assert row["n_columns"] == len(used)
        assert row["fit_seconds"] > 0


def test_dataset_specs(tmp_path, hepatitis):
    X, y = hepatitis
    csv = tmp_path / "hep.csv"
    X.assign(outcome=np.where(y == 1, "die", "live")).to_csv(csv, index=False)
    out = compare_learners(["hepatitis", (X, y), (str(csv), "outcome", "die")],
                           {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    assert out["dataset"].unique().tolist() == ["hepatitis", "data1", "hep"]
    # the CSV read with positive="die" is the same task as the 0/1 pair: same folds, same scores
    pair = out[out.dataset == "data1"][["accuracy", "f1"]].to_numpy()
    np.testing.assert_allclose(out[out.dataset == "hep"][["accuracy", "f1"]].to_numpy(), pair)
    # string labels: the positive class is the larger label ("live"), as for the rule learners
    labels = np.where(y == 1, "die", "live")
    named = compare_learners([(X, labels)], {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    folds = StratifiedKFold(2, shuffle=True, random_state=0).split(X, labels)
    for (_, row), (train, test) in zip(named.iterrows(), folds):
        pred = LPRuleClassifier().fit(X.iloc[train], labels[train]).predict(X.iloc[test])
        assert row["f1"] == pytest.approx(f1_score(labels[test], pred, pos_label="live"))
    # one CSV spec at the top level, and a tuple of several names
    single = compare_learners((str(csv), "outcome", "die"), {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    assert single["dataset"].unique().tolist() == ["hep"]
    two = compare_learners(("hepatitis", "congressional_voting"), {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    assert two["dataset"].unique().tolist() == ["hepatitis", "congressional_voting"]
    pair_only = compare_learners((X, y), {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    assert pair_only["dataset"].unique().tolist() == ["data0"]
    with pytest.raises(ValueError, match="target"):
        compare_learners([str(csv)], {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    with pytest.raises(ValueError, match="3 classes"):
        compare_learners([(X, np.arange(len(y)) % 3)], {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    with pytest.raises(ValueError, match="unique"):
        compare_learners(["hepatitis", "hepatitis"], {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    with pytest.raises(TypeError, match="not a scikit-learn estimator"):
        compare_learners(["hepatitis"], {"x": object()}, cv=2, verbose=0)
    with pytest.raises(ValueError, match="at least 2"):
        compare_learners(["hepatitis"], {"lp": LPRuleClassifier()}, cv=1, verbose=0)


def test_parallel_backends_agree(results, hepatitis):
    learners = {"premise": LEARNERS["premise"], "tree": LEARNERS["tree"]}
    expected = results[results.learner.isin(learners)].drop(columns=["fit_seconds", "estimator", "test_index"])
    expected = expected.reset_index(drop=True)
    with parallel_config(backend="threading"):
        threaded = compare_learners({"hep": hepatitis}, learners, cv=3, n_jobs=2, verbose=0)
    pd.testing.assert_frame_equal(threaded.drop(columns=["fit_seconds"]), expected)
    from distributed import Client

    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        on_dask = compare_learners({"hep": hepatitis}, learners, cv=3, client=client, verbose=0)
        with parallel_config(backend="dask"):
            joblib_dask = compare_learners({"hep": hepatitis}, learners, cv=3, n_jobs=2, verbose=0)
    pd.testing.assert_frame_equal(on_dask.drop(columns=["fit_seconds"]), expected)
    pd.testing.assert_frame_equal(joblib_dask.drop(columns=["fit_seconds"]), expected)


def test_progress_bar_on_stderr_and_silence(hepatitis, capsys):
    compare_learners({"hep": hepatitis}, {"lp": LPRuleClassifier()}, cv=2, verbose=1)
    captured = capsys.readouterr()
    assert "fold-tasks" in captured.err and "2/2" in captured.err and captured.out == ""
    compare_learners({"hep": hepatitis}, {"lp": LPRuleClassifier()}, cv=2, verbose=0)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_summarize_and_markdown(results):
    summary = summarize(results)
    assert summary[["dataset", "learner"]].values.tolist() == [["hep", l] for l in LEARNERS]
    for _, row in summary.iterrows():
        folds = results[results.learner == row["learner"]]
        assert row["n_folds"] == 3
        assert row["accuracy_mean"] == pytest.approx(folds["accuracy"].mean())
        assert row["accuracy_std"] == pytest.approx(folds["accuracy"].std())
    assert np.isnan(summary.loc[summary.learner == "tree", "formula_size_mean"]).all()
    table = to_markdown(summary, digits=2, measures=["accuracy", "formula_size"])
    lines = table.splitlines()
    assert lines[0] == "| dataset | learner | accuracy | formula_size |"
    assert lines[1] == "|---|---|---|---|"
    assert len(lines) == 2 + len(LEARNERS)
    premise = summary[summary.learner == "premise"].iloc[0]
    assert f"{premise.accuracy_mean:.2f} ± {premise.accuracy_std:.2f}" in lines[2]
    assert lines[-1].endswith("| n/a |")
    with pytest.raises(ValueError, match="unknown measure"):
        to_markdown(summary, measures=["nope"])


def test_compare_formulas_on_one_fold(results, hepatitis):
    X, _ = hepatitis
    fold = results[(results.fold == 0) & (results.learner != "tree")]
    models = dict(zip(fold.learner, fold.estimator))
    test = X.iloc[fold.test_index.iloc[0]]
    table = compare_formulas(models, test)
    row = table.iloc[0]
    premise, lp = models["premise"], models["lp"]
    assert row["equivalent"] == equivalent(premise.formula_, lp.formula_)
    assert row["agreement"] == pytest.approx(np.mean(premise.predict(test) == lp.predict(test)))
    assert row["same_attributes"]  # the same default quantile binarizer on the same rows
    assert row["shared_attributes"] == sorted({str(a) for a in premise.formula_.attributes}
                                              & {str(a) for a in lp.formula_.attributes})
    # a model compared with a copy whose rule is rewritten equivalently
    import copy

    twin = copy.deepcopy(premise)
    twin.formula_ = premise.formula_.to_dnf()
    again = compare_formulas({"a": premise, "b": twin}, test).iloc[0]
    assert again["equivalent"] and again["agreement"] == 1.0 and again["attribute_jaccard"] == 1.0
    assert np.isnan(compare_formulas({"a": premise, "b": twin})["agreement"].iloc[0])
    with pytest.raises(TypeError, match="no formula_"):
        compare_formulas({"a": premise, "t": results.estimator.iloc[-1]})
    with pytest.raises(ValueError, match="at least two"):
        compare_formulas({"a": premise})


def test_dask_task_failure_is_reported_with_its_context(hepatitis):
    from distributed import Client

    X, y = hepatitis
    bad = X.assign(word="text")  # the reference tree cannot fit a string column
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        with pytest.raises(RuntimeError, match="tree failed on dataset 'data0', fold"):
            compare_learners([(bad, y)], {"tree": LEARNERS["tree"]}, cv=2, client=client, verbose=0)


def test_restricted_ideal_dnf(results, hepatitis):
    X, y = hepatitis
    for _, row in results[results.learner != "tree"].iterrows():
        model = row["estimator"]
        train = np.setdiff1d(np.arange(len(y)), row["test_index"])
        ideal = restricted_ideal_dnf(model, X.iloc[train], y.iloc[train])
        assert ideal.attributes <= model.formula_.attributes
        Xb = model.binarize(X.iloc[train])
        names = model.attribute_names_
        truth = y.iloc[train].to_numpy() == 1
        ideal_acc = np.mean(ideal.evaluate(Xb, feature_names=names) == truth)
        rule_acc = np.mean(model.formula_.evaluate(Xb, feature_names=names) == truth)
        assert ideal_acc >= rule_acc - 1e-12  # the fewest training errors over those attributes
        same = bool(np.array_equal(ideal.evaluate(Xb, feature_names=names),
                                   model.formula_.evaluate(Xb, feature_names=names)))
        if equivalent(ideal, model.formula_):
            assert same
