"""save_model / load_model: JSON round trips that predict exactly as the original."""

import json

import numpy as np
import pandas as pd
import pytest

from logicrules.datasets import load_dataset
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.fca.scaling import QuantileBinarizer
from logicrules.formula import FALSE, TRUE, And, Literal, Not, Or
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.persistence import FORMAT_VERSION, formula_from_json, formula_to_json, load_model, save_model


def _mixed_frame(n=160, seed=0):
    """Numeric with NaN, pandas category with NaN, string with NaN, bool and 0/1 columns."""
    rng = np.random.default_rng(seed)
    age = rng.normal(50, 10, n).round(1)
    age[rng.random(n) < 0.1] = np.nan
    color = pd.Categorical(rng.choice(["red", "green", "blue"], n), categories=["red", "green", "blue", "pink"])
    color[rng.random(n) < 0.1] = np.nan
    city = pd.Series(rng.choice(["Oslo", "Rome", "Lima"], n), dtype="str")
    city[rng.random(n) < 0.1] = np.nan
    X = pd.DataFrame({"age": age, "color": color, "home city": city,
                      "smoker": rng.random(n) < 0.4, "flag": rng.integers(0, 2, n)})
    y = ((np.nan_to_num(age) > 50) & (color != "red")) | ((city == "Rome") & X["smoker"])
    noise = rng.random(n) < 0.1
    return X, np.where(np.asarray(y) ^ noise, "sick", "well")


@pytest.fixture(scope="module")
def hepatitis():
    return load_dataset("hepatitis")


@pytest.fixture(scope="module")
def mixed():
    return _mixed_frame()


def _round_trip(model, X, tmp_path, proba=False):
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert type(loaded) is type(model)
    expected, got = model.predict(X), loaded.predict(X)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    assert loaded.formula_ == model.formula_
    assert loaded.attribute_names_ == model.attribute_names_
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    assert [type(c) for c in loaded.classes_.tolist()] == [type(c) for c in model.classes_.tolist()]
    np.testing.assert_array_equal(loaded.binarize(X), model.binarize(X))
    assert repr(loaded.get_params()) == repr(model.get_params())
    if proba:
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.explain(X[:20]) == model.explain(X[:20])
    pd.testing.assert_frame_equal(loaded.get_rules(), model.get_rules())
    assert str(loaded) == str(model)
    # saving the loaded model writes the same document: nothing was lost on the way
    again = tmp_path / "again.json"
    save_model(loaded, again)
    assert json.loads(again.read_text()) == json.loads(path.read_text())
    return loaded


BINARIZERS = ["median", "quantile", "threshold"]


@pytest.mark.parametrize("binarizer", BINARIZERS)
@pytest.mark.parametrize("data", ["hepatitis", "mixed"])
def test_ideal_round_trip(binarizer, data, request, tmp_path):
    X, y = request.getfixturevalue(data)
    model = IdealDNFClassifier(binarizer=binarizer, max_features=4, random_state=0).fit(X, y)
    loaded = _round_trip(model, X, tmp_path, proba=True)
    assert loaded.selected_features_ == model.selected_features_
    pd.testing.assert_frame_equal(loaded.path_, model.path_)


@pytest.mark.parametrize("binarizer", BINARIZERS)
@pytest.mark.parametrize("data", ["hepatitis", "mixed"])
def test_premise_round_trip(binarizer, data, request, tmp_path):
    X, y = request.getfixturevalue(data)
    model = OptimalPremiseClassifier(max_size=2, binarizer=binarizer).fit(X, y)
    loaded = _round_trip(model, X, tmp_path)
    assert loaded.score_ == model.score_
    assert loaded.premises_ == model.premises_
    for size, front in model.pareto_.items():
        pd.testing.assert_frame_equal(loaded.pareto_[size], front)


@pytest.mark.parametrize("rule", ["or", "and", "dnf", "cnf", "m_of_n"])
def test_lp_round_trip_every_rule(rule, mixed, tmp_path):
    X, y = mixed
    model = LPRuleClassifier(rule=rule, lam=0.002).fit(X, y)
    loaded = _round_trip(model, X, tmp_path)
    if rule == "m_of_n":
        assert loaded.checklist_ == model.checklist_
        # predict evaluates the saved threshold node itself
        assert loaded.formula_ == model.formula_ and loaded.formula_.size == model.formula_.size


@pytest.mark.parametrize("binarizer", BINARIZERS)
def test_lp_round_trip_every_binarizer(binarizer, hepatitis, tmp_path):
    X, y = hepatitis
    _round_trip(LPRuleClassifier(binarizer=binarizer).fit(X, y), X, tmp_path)


@pytest.mark.parametrize("cls", [IdealDNFClassifier, OptimalPremiseClassifier, LPRuleClassifier])
def test_passthrough_on_arrays_with_bool_labels(cls, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(120, 5))
    y = (X[:, 0] & (X[:, 1] | X[:, 2])).astype(bool)
    model = cls(binarizer="passthrough").fit(X, y)
    loaded = _round_trip(model, X, tmp_path)
    assert loaded.binarizer_ is None and loaded.classes_.dtype == bool
    assert not hasattr(loaded, "feature_names_in_")


def test_estimator_valued_parameter_and_indicator_missing(hepatitis, tmp_path):
    X, y = hepatitis
    model = OptimalPremiseClassifier(max_size=2, binarizer=QuantileBinarizer(n_thresholds=3, missing="indicator"))
    model.fit(X, y)
    loaded = _round_trip(model, X, tmp_path)
    assert isinstance(loaded.binarizer, QuantileBinarizer) and loaded.binarizer.n_thresholds == 3
    assert any(c.op == "is missing" for c in loaded.binarizer_.conditions_)
    assert loaded.binarizer_.conditions_ == model.binarizer_.conditions_
    assert loaded.binarizer_.dropped_ == model.binarizer_.dropped_


def test_file_is_readable_json_with_the_promised_fields(mixed, tmp_path):
    X, y = mixed
    model = OptimalPremiseClassifier(max_size=1).fit(X, y)
    save_model(model, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["format"] == "logicrules.model" and doc["format_version"] == FORMAT_VERSION
    assert doc["class"] == "logicrules.fca.premise.estimator.OptimalPremiseClassifier"
    assert doc["library_version"]
    assert {"column", "op", "value"} <= set(doc["binarizer"]["conditions"][0])
    assert doc["attribute_names"] == model.attribute_names_
    assert doc["formula"]["op"] in ("literal", "and", "or", "not")


def test_file_naming_the_former_module_of_the_premise_estimator_loads(mixed, tmp_path):
    X, y = mixed
    model = OptimalPremiseClassifier(max_size=1).fit(X, y)
    save_model(model, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["class"] = "logicrules.fca.estimator.OptimalPremiseClassifier"      # written before the move
    (tmp_path / "old.json").write_text(json.dumps(doc))
    loaded = load_model(tmp_path / "old.json")
    assert type(loaded) is OptimalPremiseClassifier
    assert (loaded.predict(X) == model.predict(X)).all()


def test_loaded_model_rejects_wrong_columns(mixed, tmp_path):
    X, y = mixed
    model = LPRuleClassifier().fit(X, y)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    with pytest.raises(ValueError):
        loaded.predict(X.drop(columns=["age"]))


def test_formula_json_round_trip():
    a, b, c = Literal("a"), Literal("b", negated=True), Literal(3)
    for f in [TRUE, FALSE, a, b, c, And(a, b), Or(a, And(b, c)), Not(Or(a, c)), Not(TRUE)]:
        tree = json.loads(json.dumps(formula_to_json(f)))
        assert formula_from_json(tree) == f
    with pytest.raises(ValueError, match="unknown formula operator"):
        formula_from_json({"op": "xor"})


def test_clear_errors(tmp_path, hepatitis):
    X, y = hepatitis
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "nope.json")
    (tmp_path / "text.json").write_text("hello")
    with pytest.raises(ValueError, match="not a logicrules model"):
        load_model(tmp_path / "text.json")
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="not a logicrules model"):
        load_model(tmp_path / "other.json")
    model = LPRuleClassifier().fit(X, y)
    save_model(model, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["format_version"] = FORMAT_VERSION + 1
    (tmp_path / "new.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="newer logicrules"):
        load_model(tmp_path / "new.json")
    doc["format_version"] = FORMAT_VERSION
    doc["class"] = "os.system"
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="only classes of logicrules"):
        load_model(tmp_path / "evil.json")
    with pytest.raises(TypeError, match="not fitted"):
        save_model(LPRuleClassifier(), tmp_path / "x.json")
    from sklearn.tree import DecisionTreeClassifier

    with pytest.raises(TypeError, match="rule models"):
        save_model(DecisionTreeClassifier().fit(X.fillna(0), y), tmp_path / "x.json")
    custom = OptimalPremiseClassifier(max_size=1, objective=lambda tp, fp, fn, tn: tp - fp).fit(X, y)
    with pytest.raises(TypeError, match="cannot save"):
        save_model(custom, tmp_path / "x.json")


@pytest.mark.parametrize("cls", [IdealDNFClassifier, OptimalPremiseClassifier, LPRuleClassifier])
def test_loaded_model_on_new_rows_with_unseen_categories(cls, mixed, tmp_path):
    X, y = mixed
    model = cls(binarizer="quantile").fit(X, y)
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    new, _ = _mixed_frame(n=300, seed=7)
    new["home city"] = new["home city"].where(np.arange(300) % 5 != 0, "Paris")  # unseen category
    np.testing.assert_array_equal(loaded.predict(new), model.predict(new))
    np.testing.assert_array_equal(loaded.binarize(new), model.binarize(new))
