"""IdealDNFClassifier: the paper's steps one by one, the wrapper, predict_proba, sklearn checks."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from logicrules.equivalence import equivalent
from logicrules.formula import Literal
from logicrules.ideal.algorithm import type_table
from logicrules.ideal.method import IdealDNFClassifier, compact_dnf, select_n_features
from logicrules.ideal.paths import _score_candidates
from logicrules.ideal.scoring import f_classif_boolean, rank_features


def planted(n=600, m=12, seed=0, noise=0.05):
    """0/1 data whose target is (x3 AND x7) OR x11 (x0, x1, x2 when m < 12), with label noise."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, m)) < 0.5).astype(int)
    a, b, c = (3, 7, 11) if m >= 12 else (0, 1, 2)
    y = ((X[:, a] & X[:, b]) | X[:, c]) ^ (rng.random(n) < noise)
    return X, y.astype(int)


# ----------------------------------------------------------------------------- step 6 rule
def test_select_n_features_rule():
    assert select_n_features([0.70, 0.795, 0.80, 0.78], tolerance=0.01) == 2
    assert select_n_features([0.70, 0.79, 0.80], tolerance=0.01) == 2  # exactly one point below
    assert select_n_features([0.70, 0.789, 0.80], tolerance=0.01) == 3
    assert select_n_features([0.9, 0.95, 0.99], tolerance=0.0) == 3
    assert select_n_features([0.9, 0.95, 0.99], tolerance=0.1) == 1
    assert select_n_features([0.8, 0.8, 0.8], tolerance=0.0) == 1
    with pytest.raises(ValueError):
        select_n_features([], 0.01)


def test_method_applies_the_rule_to_a_constructed_path(monkeypatch):
    import logicrules.ideal.selection as selection

    accuracies = {1: (0.70, 0.60), 2: (0.79, 0.795), 3: (0.80, 0.78), 4: (0.75, 0.76)}

    def constructed(counts, tables, context, valid, n_max, scorers, sklearn_mutual_info=False,
                    progress=None):
        return [(l, name, tuple(range(l)), accuracies[l][i], 1.0, 2**l)
                for l in range(1, n_max + 1) for i, name in enumerate(scorers)]

    monkeypatch.setattr(selection, "_filter_path", constructed)
    X, y = planted(n=100, m=6)
    model = IdealDNFClassifier(binarizer="passthrough", max_features=4, scorers=("chi2", "f_classif"),
                               random_state=0).fit(X, y)
    assert model.path_["scorer"].tolist() == ["chi2", "f_classif", "chi2", "f_classif"]
    assert model.path_["validation_accuracy"].tolist() == [0.70, 0.795, 0.80, 0.76]
    assert model.n_selected_ == 2 and model.selected_features_ == ["x0", "x1"]
    assert model.validation_accuracy_ == 0.795
    strict = IdealDNFClassifier(binarizer="passthrough", max_features=4, scorers=("chi2", "f_classif"),
                                tolerance=0.0, random_state=0).fit(X, y)
    assert strict.n_selected_ == 3 and strict.selected_features_ == ["x0", "x1", "x2"]


def test_path_follows_the_paper_steps_on_passthrough_data():
    X, y = planted()
    model = IdealDNFClassifier(binarizer="passthrough", max_rule_size=None, random_state=0).fit(X, y)
    path, candidates = model.path_, model.candidates_
    assert path["n_features"].tolist() == list(range(1, 11))
    assert list(path.columns) == ["n_features", "scorer", "features", "validation_accuracy",
                                  "training_accuracy", "n_types"]
    assert len(candidates) == 30 and set(candidates["scorer"]) == {"f_classif", "mutual_info", "chi2"}
    # per l the recorded scorer is the best of the three (first listed on ties)
    for l, group in candidates.groupby("n_features"):
        best = group.iloc[int(np.argmax(group["validation_accuracy"].to_numpy()))]
        assert path.loc[l - 1, "scorer"] == best["scorer"]
        assert path.loc[l - 1, "validation_accuracy"] == best["validation_accuracy"]
    assert model.n_selected_ == select_n_features(path["validation_accuracy"], 0.01)
    assert set(model.selected_features_) == {"x3", "x7", "x11"}
    assert equivalent(model.formula_, model.ideal_formula_)
    assert model.formula_.size <= 3


def test_candidate_accuracies_match_a_direct_recomputation():
    X, y = planted(n=300, seed=3, noise=0.2)
    model = IdealDNFClassifier(binarizer="passthrough", max_features=4, random_state=1).fit(X, y)
    train, valid = model._split(y.astype(bool))
    for _, row in model.candidates_.iterrows():
        cols = [int(f[1:]) for f in row["features"]]
        table = type_table(X[train], y[train], features=cols)
        assert row["validation_accuracy"] == pytest.approx(np.mean(table.predict(X[valid][:, cols]) == y[valid]))
        # the filter selection is SelectKBest's top-l
        scores = f_classif_boolean(X[train], y[train])[0]
        if row["scorer"] == "f_classif":
            assert set(cols) == set(rank_features(scores)[: row["n_features"]].tolist())


def test_final_formula_is_retrained_on_all_training_data():
    from logicrules.fca.scaling import MedianBinarizer

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.normal(size=400), "b": rng.normal(size=400), "c": rng.normal(size=400)})
    y = ((X.a > 0.3) | (X.b > 0.5)).astype(int).to_numpy()
    model = IdealDNFClassifier(random_state=0).fit(X, y)
    # the final thresholds are the medians of all rows, not of the 70% training part
    full = MedianBinarizer(missing="false").fit(X)
    assert set(model.selected_features_) <= set(full.get_feature_names_out())
    assert model.attribute_names_ == list(full.get_feature_names_out())
    assert model.type_table_.n_rows == 400
    Xb = full.transform(X)
    cols = [model.attribute_names_.index(f) for f in model.selected_features_]
    reference = type_table(Xb[:, cols], y)
    assert np.array_equal(model.type_table_.counts, reference.counts)
    assert np.array_equal(model.type_table_.positives, reference.positives)
    assert np.array_equal(model.predict(X), model.formula_.evaluate(Xb, feature_names=model.attribute_names_))


def test_tie_handling():
    # one attribute; the type "x0 true" has exactly half positives
    X = np.array([[1]] * 40 + [[0]] * 40)
    y = np.array([1, 0] * 20 + [0] * 40)
    pos = IdealDNFClassifier(binarizer="passthrough", tie="positive", random_state=0).fit(X, y)
    neg = IdealDNFClassifier(binarizer="passthrough", tie="negative", random_state=0).fit(X, y)
    assert str(pos.formula_) == "x0"
    assert str(neg.formula_) == "FALSE"
    assert pos.predict([[1], [0]]).tolist() == [1, 0]
    assert neg.predict([[1], [0]]).tolist() == [0, 0]
    # the tied type's smoothed frequency is 1/2: the predicted class is nudged above it
    proba = pos.predict_proba([[1]])
    np.testing.assert_allclose(proba, [[0.5, 0.5]])
    assert proba[0, 1] > proba[0, 0]
    # default: the tie goes to the training majority (class 0: 60 of 80 rows)
    majority = IdealDNFClassifier(binarizer="passthrough", random_state=0).fit(X, y)
    assert majority.predict([[1], [0]]).tolist() == [0, 0]
    assert majority.predict_proba([[1]]).argmax(axis=1).tolist() == [0]


def test_predict_proba_ratios_and_unseen_fallback():
    X, y = planted(n=200, m=6, seed=2, noise=0.1)
    model = IdealDNFClassifier(binarizer="passthrough", max_features=3, random_state=0).fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (200, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    cols = [model.attribute_names_.index(f) for f in model.selected_features_]
    table = type_table(X[:, cols], y)
    index = table.lookup(X[:, cols])
    np.testing.assert_allclose(proba[:, 1], ((table.positives + 1) / (table.counts + 2))[index])
    # predict is the formula, and agrees with the type table everywhere (all 2^k rows)
    everything = np.array(list(itertools.product([0, 1], repeat=6)))
    formula_says = model.formula_.evaluate(everything, feature_names=model.attribute_names_)
    assert np.array_equal(model.predict(everything) == 1, formula_says)
    assert np.array_equal(model.type_table_.predict(everything[:, cols].astype(bool)), formula_says)
    # a type never seen in training gets the smoothed class prior and the majority class by
    # default; the paper's conventions predict it negative (not in the DNF)
    X2 = np.array([[0, 0]] * 30 + [[0, 1]] * 30 + [[1, 0]] * 30)
    y2 = X2[:, 0] | X2[:, 1]
    model2 = IdealDNFClassifier(binarizer="passthrough", random_state=0).fit(X2, y2)
    assert model2.n_selected_ == 2
    assert model2.class_prior_ == pytest.approx(2 / 3)
    np.testing.assert_allclose(model2.predict_proba([[1, 1]]), [[31 / 92, 61 / 92]])
    assert model2.predict([[1, 1]]).tolist() == [1]
    assert str(model2.formula_) == "x0 OR x1"
    paper = IdealDNFClassifier(binarizer="passthrough", tie="positive", random_state=0).fit(X2, y2)
    assert paper.predict([[1, 1]]).tolist() == [0]
    assert str(paper.formula_) == "(x0 AND NOT x1) OR (x1 AND NOT x0)"
    proba = paper.predict_proba([[1, 1]])
    assert proba[0, 0] > proba[0, 1] and proba[0, 0] == pytest.approx(0.5)


def test_wrapper_candidate_scores_match_brute_force():
    rng = np.random.default_rng(7)
    for trial in range(20):
        n_t, n_v, m = rng.integers(5, 60), rng.integers(1, 30), rng.integers(2, 9)
        Bt = rng.random((n_t, m)) < 0.5
        Bv = rng.random((n_v, m)) < 0.5
        yt, yv = rng.random(n_t) < 0.5, rng.random(n_v) < 0.5
        chosen = list(rng.choice(m, size=rng.integers(0, m), replace=False))
        B_all = np.vstack([Bt, Bv])
        ids = np.unique(np.c_[B_all[:, chosen], np.zeros((len(B_all), 1), bool)], axis=0,
                        return_inverse=True)[1].reshape(-1)
        remaining = np.array([j for j in range(m) if j not in chosen], dtype=np.intp)
        if len(remaining) == 0:
            continue
        tie = ["positive", "negative"][trial % 2]
        unseen = bool(trial % 3 == 0)
        val, tr = _score_candidates(ids, B_all, n_t, yt, yv, remaining, int(ids.max()) + 1, (tie, unseen))
        for i, j in enumerate(remaining):
            table = type_table(Bt, yt, features=chosen + [int(j)], tie=tie, unseen=unseen)
            assert val[i] == pytest.approx(np.mean(table.predict(Bv[:, chosen + [int(j)]]) == yv))
            assert tr[i] == pytest.approx(1 - table.training_errors / n_t)


def test_wrapper_selection_finds_an_interaction_the_filters_miss():
    # y = x0 XOR x1: each alone is useless to univariate scores, which prefer the decoys
    rng = np.random.default_rng(11)
    X = (rng.random((800, 10)) < 0.5).astype(int)
    y = X[:, 0] ^ X[:, 1]
    X[:, 2:6] = np.where(rng.random((800, 4)) < 0.3, y[:, None], X[:, 2:6])  # weak univariate decoys
    model = IdealDNFClassifier(binarizer="passthrough", selection="wrapper", max_features=4,
                               random_state=0).fit(X, y)
    assert {"x0", "x1"} <= set(model.selected_features_)
    assert model.score(X, y) == 1.0
    assert set(model.path_["scorer"]) == {"wrapper"}
    filtered = IdealDNFClassifier(binarizer="passthrough", max_features=4, random_state=0).fit(X, y)
    assert filtered.score(X, y) < 0.9


def test_quantile_binarizer_and_dataframe_explain():
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"age": rng.integers(20, 80, 300), "sex": rng.choice(["f", "m"], 300),
                      "chol": rng.normal(220, 30, 300)})
    y = np.where((X.age > 60) & (X.sex == "m"), "sick", "healthy")
    model = IdealDNFClassifier(binarizer="quantile", random_state=0).fit(X, y)
    assert model.score(X, y) > 0.95
    texts = model.explain(X.iloc[:5])
    assert len(texts) == 5 and all(t.split(":")[0] in {"sick", "healthy"} for t in texts)
    assert isinstance(model.get_rules(), pd.DataFrame)
    assert model.to_sympy() is not None


def test_reproducible_with_random_state():
    X, y = planted(n=300, seed=9, noise=0.25)
    a = IdealDNFClassifier(binarizer="passthrough", random_state=3).fit(X, y)
    b = IdealDNFClassifier(binarizer="passthrough", random_state=3).fit(X, y)
    pd.testing.assert_frame_equal(a.path_, b.path_)


def test_compact_dnf_is_equivalent_and_short():
    rng = np.random.default_rng(13)
    for trial in range(60):
        k, n = int(rng.integers(0, 11)), int(rng.integers(1, 400))
        X = rng.random((n, k)) < rng.random()
        y = rng.random(n) < rng.random()
        table = type_table(X, y, tie=["positive", "negative"][trial % 2])
        ideal, compact = table.to_formula(), compact_dnf(table)
        assert equivalent(ideal, compact)
        assert compact.size <= ideal.size
        if k <= 4:  # close to SymPy's minimum
            assert len(compact.conjunctions()) <= len(ideal.simplify().conjunctions()) + 1


def test_many_selected_features_use_compact_dnf():
    X, y = planted(n=400, m=12, seed=4, noise=0.3)
    model = IdealDNFClassifier(binarizer="passthrough", max_features=10, tolerance=0.0,
                               simplify_max_variables=0, max_rule_size=None, random_state=0).fit(X, y)
    assert equivalent(model.formula_, model.ideal_formula_)
    assert model.formula_.size <= model.ideal_formula_.size


# ------------------------------------------------------------------------------ bad inputs
def test_single_class_target_is_rejected():
    with pytest.raises(ValueError, match="at least two classes"):
        IdealDNFClassifier().fit(pd.DataFrame({"a": [1.0, 2.0, 3.0]}), [1, 1, 1])


def test_all_nan_columns():
    X = pd.DataFrame({"a": [np.nan] * 20, "b": np.arange(20.0)})
    y = np.arange(20) >= 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = IdealDNFClassifier(random_state=0).fit(X, y)
        assert all(not f.startswith("a ") for f in model.selected_features_)
        with pytest.raises(ValueError, match="no attributes"):
            IdealDNFClassifier(random_state=0).fit(X[["a"]], y)


def test_more_features_requested_than_exist_is_capped():
    X, y = planted(n=200, m=4, seed=1)
    model = IdealDNFClassifier(binarizer="passthrough", max_features=10, random_state=0).fit(X, y)
    assert model.path_["n_features"].tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("params, match", [
    ({"selection": "greedy"}, "selection"),
    ({"scorers": ("gini",)}, "unknown scorer"),
    ({"scorers": ()}, "at least one"),
    ({"max_features": 0}, "max_features"),
    ({"validation_size": 1.0}, "validation_size"),
    ({"tolerance": -0.1}, "tolerance"),
    ({"tie": "coin"}, "tie"),
    ({"binarizer": "kmeans"}, "binarizer"),
])
def test_bad_parameters(params, match):
    X, y = planted(n=50, m=3)
    binarizer = params.pop("binarizer", "passthrough")
    with pytest.raises(ValueError, match=match):
        IdealDNFClassifier(binarizer=binarizer, **params).fit(X, y)


def test_non_boolean_passthrough_data_is_rejected():
    with pytest.raises(ValueError, match="0/1"):
        IdealDNFClassifier(binarizer="passthrough").fit(np.array([[0.5], [2.0], [1.0]]), [0, 1, 1])


# ------------------------------------------------------------------------- scikit-learn API
@parametrize_with_checks([
    IdealDNFClassifier(max_features=3, random_state=0),
    IdealDNFClassifier(max_features=2, selection="wrapper", random_state=0),
    IdealDNFClassifier(max_features=3, split="values", random_state=0),
    IdealDNFClassifier(max_features=2, selection="wrapper", split="values", random_state=0),
], expected_failed_checks=lambda estimator: {
    "check_pipeline_consistency":
        "its data has two distinct rows (one per class): split='values' keeps identical rows on "
        "one side, so the training part is constant and fit refuses it",
} if estimator.split == "values" else {
    "check_sample_weight_equivalence_on_dense_data":
        "split='rows' draws the validation rows over the given rows: repeated rows are split "
        "differently (split='values' passes this check; with a fixed split, weights equal "
        "repetition: tests/test_sample_weight.py)",
})
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_refit_maps_a_median_cut_across_greater_and_greater_equal():
    import pandas as pd

    from logicrules.fca.scaling import MedianBinarizer
    from logicrules.ideal.binarization import map_features

    stage = MedianBinarizer().fit(pd.DataFrame({"x": [1.0, 4.0, 4.0, 4.0]}))
    final = MedianBinarizer().fit(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 4.0]}))
    assert stage.get_feature_names_out().tolist() == ["x >= 4"]
    names = final.get_feature_names_out().tolist()
    assert names == ["x > 3"]
    assert map_features(stage, final, ["x >= 4"], names) == ["x > 3"]


def test_paper_protocol_reproduces_the_authors_conventions():
    from sklearn.feature_selection import mutual_info_classif

    X, y = planted(n=150, m=8, seed=4, noise=0.15)
    model = IdealDNFClassifier(binarizer="passthrough", protocol="paper", max_features=4).fit(X, y)
    # validation: the last 30% of the rows as given (ceil(0.3 * 150) = 45)
    train, valid = model._split(y.astype(bool))
    assert train.tolist() == list(range(105)) and valid.tolist() == list(range(105, 150))
    # the mutual information ranking is scikit-learn's estimator with seed 42 on the training part
    scores = mutual_info_classif(X[:105].astype(float), y[:105], discrete_features="auto", random_state=42)
    expected = rank_features(scores)
    chosen = model.candidates_[model.candidates_.scorer == "mutual_info"]
    for l, features in zip(chosen.n_features, chosen.features):
        assert list(features) == [model.attribute_names_[j] for j in expected[:l]]
    # ties and unseen types are negative
    assert model.type_table_.tie == "negative" and not model.type_table_.unseen
    with pytest.raises(ValueError, match="protocol='paper'"):
        IdealDNFClassifier(protocol="paper", tie="positive").fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        IdealDNFClassifier(protocol="paper").fit(X, y, sample_weight=np.ones(len(y)))


def test_max_rule_size_bounds_the_printed_rule():
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(600, 8)), columns=[f"c{i}" for i in range(8)])
    y = ((X.c0 > 0) ^ (X.c1 > 0) ^ (X.c2 > 0) | (X.c3 > 1)).astype(int)
    free = IdealDNFClassifier(max_rule_size=None, random_state=0).fit(X, y)
    assert free.formula_.size > 6
    bounded = IdealDNFClassifier(max_rule_size=6, random_state=0).fit(X, y)
    assert bounded.formula_.size <= 6
    assert (bounded.candidates_["rule_size"] <= 6).all() and bounded.candidates_["pruned"].any()
    # a pruned candidate is the bounded DNF: never more accurate on the training part than the
    # ideal DNF of the same attributes (the best formula over them), which the free fit keeps
    pruned = bounded.candidates_[bounded.candidates_["pruned"]]
    free_train = free.candidates_.set_index(["n_features", "scorer"])["training_accuracy"]
    for row in pruned.itertuples():
        assert row.training_accuracy <= free_train[(row.n_features, row.scorer)] + 1e-12
        assert row.pruned_literals <= 6
    assert not bounded.candidates_.loc[~bounded.candidates_["pruned"], "pruned_literals"].notna().any()


def test_ideal_formula_literals_carry_their_conditions():
    import json

    from logicrules._model_json import formula_from_json, formula_to_json
    from logicrules.formula import from_sympy
    from logicrules.formula_normal_forms import _literals_of

    rng = np.random.default_rng(5)
    X = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abc"), 300)})
    X.loc[::17, "x"] = np.nan
    y = ((X.x > 0) | (X.c == "a")).astype(int)
    model = IdealDNFClassifier(random_state=0, max_rule_size=None).fit(X, y)
    conditions = {c.name: c for c in model.binarizer_.conditions_}
    leaves = _literals_of(model.ideal_formula_)
    assert leaves and all(lit.condition is conditions[a] for (a, _), lit in leaves.items())
    assert "or missing" in str(model.ideal_formula_)  # a negated literal prints honestly
    loaded = formula_from_json(json.loads(json.dumps(formula_to_json(model.ideal_formula_))))
    assert loaded == model.ideal_formula_
    assert {k: lit.condition for k, lit in _literals_of(loaded).items()} == \
           {k: lit.condition for k, lit in leaves.items()}
    positive = {str(a): Literal(a, condition=conditions[a]) for a, _ in leaves}
    back = from_sympy(model.ideal_formula_.to_sympy(), positive)
    assert equivalent(back, model.ideal_formula_)
    assert all(lit.condition is conditions[a] for (a, _), lit in _literals_of(back).items())
