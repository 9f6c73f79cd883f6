"""sample_weight: integer weights act as repeated rows (formula and predictions), weight 0 as removal."""

import numpy as np
import pandas as pd
import pytest

from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer, ThresholdBinarizer
from logicrules.ideal.algorithm import type_table
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp.estimator import LPRuleClassifier


def weighted_data(seed, n=40, m=5):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 6, size=(n, m)), columns=[f"c{j}" for j in range(m)])
    y = ((X.c0 > 2) & (X.c1 < 4)) ^ (rng.random(n) < 0.2)
    w = rng.integers(0, 4, size=n)
    w[:2] = [1, 2]
    return X, y.astype(int).to_numpy(), w


def repeated(X, y, w):
    index = np.repeat(np.arange(len(y)), w)
    return X.iloc[index].reset_index(drop=True), y[index]


@pytest.mark.parametrize("binarizer", [MedianBinarizer(), QuantileBinarizer(n_thresholds=3),
                                       ThresholdBinarizer()])
def test_binarizer_weights_equal_repetition(binarizer):
    for seed in range(15):
        X, _, w = weighted_data(seed)
        Xr, _ = repeated(X, np.zeros(len(w)), w)
        a = binarizer.fit(X, sample_weight=w).get_feature_names_out().tolist()
        b = binarizer.fit(Xr).get_feature_names_out().tolist()
        assert a == b, seed


def test_weighted_median_and_quantiles_match_numpy_on_repeated_values():
    from logicrules.fca.scaling import _weighted_median, _weighted_quantiles

    rng = np.random.default_rng(0)
    levels = np.arange(1, 10) / 10
    for _ in range(200):
        values = rng.integers(0, 8, size=rng.integers(1, 12)).astype(float)
        w = rng.integers(1, 5, size=values.size)
        full = np.repeat(values, w)
        assert _weighted_median(values, w.astype(float)) == np.median(full)
        np.testing.assert_array_equal(_weighted_quantiles(values, w.astype(float), levels),
                                      np.quantile(full, levels))


def test_type_table_weights_equal_repetition():
    rng = np.random.default_rng(1)
    for k in (3, 12, 70):  # dense histogram, sorted codes, byte rows
        X = rng.random((50, k)) < 0.5
        y = rng.random(50) < 0.5
        w = rng.integers(0, 4, size=50)
        a = type_table(X, y, sample_weight=w)
        b = type_table(np.repeat(X, w, axis=0), np.repeat(y, w))
        assert np.array_equal(a.counts, b.counts) and np.array_equal(a.positives, b.positives)
        assert np.array_equal(a.predicted, b.predicted)


class FixedSplit(IdealDNFClassifier):
    """The ideal method with the validation split given per number of rows (test seam)."""

    splits: dict = {}

    def _split(self, y):
        return self.splits[len(y)]


@pytest.mark.parametrize("selection", ["filter", "wrapper"])
def test_ideal_weights_equal_repetition_with_the_same_split(selection):
    for seed in range(6):
        X, y, w = weighted_data(seed, n=60)
        Xb = (X.to_numpy() > 2).astype(int)
        keep = np.flatnonzero(w > 0)
        rng = np.random.default_rng(seed)
        valid = np.sort(rng.choice(keep, size=len(keep) // 3, replace=False))
        is_valid = np.zeros(len(y), dtype=bool)
        is_valid[valid] = True
        # weights: the split over the kept rows; repetition: every copy stays on its row's side
        kept_valid = is_valid[keep]
        rep = np.repeat(np.arange(len(y)), w)
        FixedSplit.splits = {
            len(keep): (np.flatnonzero(~kept_valid), np.flatnonzero(kept_valid)),
            len(rep): (np.flatnonzero(~is_valid[rep]), np.flatnonzero(is_valid[rep])),
        }
        params = {"binarizer": "passthrough", "max_features": 4, "selection": selection}
        a = FixedSplit(**params).fit(Xb, y, sample_weight=w)
        b = FixedSplit(**params).fit(Xb[rep], y[rep])
        assert a.formula_ == b.formula_, seed
        assert a.path_["validation_accuracy"].tolist() == pytest.approx(b.path_["validation_accuracy"].tolist())
        np.testing.assert_array_equal(a.predict(Xb), b.predict(Xb))
        np.testing.assert_allclose(a.predict_proba(Xb), b.predict_proba(Xb))


@pytest.mark.parametrize("rule", ["or", "and", "dnf", "cnf", "m_of_n"])
def test_lp_weights_equal_repetition(rule):
    for seed in range(5):
        X, y, w = weighted_data(seed)
        Xr, yr = repeated(X, y, w)
        a = LPRuleClassifier(rule=rule, lam=0.02).fit(X, y, sample_weight=w)
        b = LPRuleClassifier(rule=rule, lam=0.02).fit(Xr, yr)
        assert a.formula_ == b.formula_, (rule, seed)
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
        assert a.lp_result_["objective"] == pytest.approx(b.lp_result_["objective"])


def test_fractional_weights_and_zero_weights():
    X, y, w = weighted_data(3)
    keep = w > 0
    a = LPRuleClassifier(rule="dnf", lam=0.02).fit(X, y, sample_weight=w * 0.5)
    b = LPRuleClassifier(rule="dnf", lam=0.02).fit(X, y, sample_weight=w)
    assert a.formula_ == b.formula_  # lam is a fraction of the total weight: scale-free
    c = IdealDNFClassifier(random_state=0).fit(X, y, sample_weight=keep.astype(float))
    d = IdealDNFClassifier(random_state=0).fit(X[keep], y[keep])
    assert c.formula_ == d.formula_
    with pytest.raises(ValueError, match="(?i)sample weights"):
        LPRuleClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError):
        IdealDNFClassifier().fit(X, y, sample_weight=-np.ones(len(y)))


def test_learners_pass_categorical_to_their_binarizer():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"cp": rng.integers(0, 4, size=200), "age": rng.integers(30, 80, size=200)})
    y = (X.cp == 1).astype(int).to_numpy()  # type 1 alone: no median cut of cp separates it
    for model in (IdealDNFClassifier(categorical=["cp"], random_state=0),
                  LPRuleClassifier(categorical=[0], rule="or", lam=0.001)):
        model.fit(X, y)
        assert str(model.formula_) == "cp == 1", model
        assert model.binarizer_.categorical == [0] or model.binarizer_.categorical == ["cp"]
    with pytest.raises(ValueError, match="passthrough"):
        LPRuleClassifier(binarizer="passthrough", categorical=["cp"]).fit(X, y)


def test_compare_learners_passes_weights_to_fit_and_scores():
    from logicrules.compare import compare_learners

    X, y, w = weighted_data(4, n=90)
    learners = {"lp": LPRuleClassifier(rule="or", lam=0.02)}
    plain = compare_learners([(X, y)], learners, cv=3, verbose=0)
    ones = compare_learners([(X, y)], learners, cv=3, verbose=0, sample_weight=np.ones(len(y)))
    pd.testing.assert_frame_equal(plain.drop(columns="fit_seconds"), ones.drop(columns="fit_seconds"))
    weighted = compare_learners({"d": (X, y)}, learners, cv=3, verbose=0, sample_weight={"d": w})
    assert (weighted["accuracy"] != plain["accuracy"]).any()
    with pytest.raises(ValueError, match="unknown datasets"):
        compare_learners({"d": (X, y)}, learners, cv=3, verbose=0, sample_weight={"e": w})


def test_premise_weights_equal_repetition():
    from logicrules.fca.premise.estimator import OptimalPremiseClassifier

    for seed in range(5):
        X, y, w = weighted_data(seed)
        Xr, yr = repeated(X, y, w)
        a = OptimalPremiseClassifier(max_size=2).fit(X, y, sample_weight=w)
        b = OptimalPremiseClassifier(max_size=2).fit(Xr, yr)
        assert a.formula_ == b.formula_, seed
        assert a.score_ == pytest.approx(b.score_)
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("selection", ["filter", "wrapper"])
@pytest.mark.parametrize("binarizer", ["median", "passthrough"])
def test_ideal_value_split_weights_equal_shuffled_repetition(selection, binarizer):
    """split="values": weights act as repeated rows in any order, with no split given."""
    for seed in range(6):
        X, y, w = weighted_data(seed, n=60)
        if binarizer == "passthrough":
            X = (X > 2).astype(int)
        Xr, yr = repeated(X, y, w)
        order = np.random.default_rng(seed).permutation(len(yr))
        Xr, yr = Xr.iloc[order].reset_index(drop=True), yr[order]
        params = {"binarizer": binarizer, "max_features": 4, "selection": selection,
                  "split": "values", "random_state": seed}
        a = IdealDNFClassifier(**params).fit(X, y, sample_weight=w)
        b = IdealDNFClassifier(**params).fit(Xr, yr)
        assert a.formula_ == b.formula_, seed
        assert a.path_["validation_accuracy"].tolist() == pytest.approx(b.path_["validation_accuracy"].tolist())
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def test_ideal_value_split_weights_equal_repetition_with_three_classes():
    for seed in range(4):
        X, _, w = weighted_data(seed, n=90)
        y = (X.c0.to_numpy() + X.c1.to_numpy() + (np.arange(90) % 5 == 0)) % 3
        Xr, yr = repeated(X, y, w)
        order = np.random.default_rng(seed).permutation(len(yr))
        Xr, yr = Xr.iloc[order], yr[order]
        a = IdealDNFClassifier(split="values", random_state=1).fit(X, y, sample_weight=w)
        b = IdealDNFClassifier(split="values", random_state=1).fit(Xr, yr)
        assert a.formula_ == b.formula_, seed
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
