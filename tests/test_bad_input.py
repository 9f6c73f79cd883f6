"""A catalogue of hostile inputs over every public entry point, and the class of each outcome.

Every case says what must happen: an error of a given class whose message names the parameter
or input at fault (never a crash deep in numpy, never a traceback from the command line), or a
documented behaviour with the right answer. The hypothesis test at the end fits every learner
on random mixed-dtype frames with missing values and checks that ``predict`` on reordered,
retyped and partly unseen inputs either gives the same answers or fails loudly.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import sparse

from logicrules.cli import main
from logicrules.export import to_query
from logicrules.fca.premise.estimator import OptimalPremiseClassifier
from logicrules.fca.scaling import MedianBinarizer, QuantileBinarizer, ThresholdBinarizer
from logicrules.fca.premise.search import find_best_premises
from logicrules.formula import FALSE, TRUE
from logicrules.ideal.method import IdealDNFClassifier
from logicrules.lp import (learn_and_rule, learn_dnf, learn_m_of_n, learn_or_rule, m_of_n_predict,
                           solve_relaxation)
from logicrules.lp.estimator import LPRuleClassifier
from logicrules.persistence import load_model, save_model

LEARNERS = {
    "ideal": lambda: IdealDNFClassifier(max_features=3, random_state=0),
    "premise": lambda: OptimalPremiseClassifier(max_size=2),
    "lp": lambda: LPRuleClassifier(lam=0.01),
}
BINARIZERS = (MedianBinarizer, QuantileBinarizer, ThresholdBinarizer)

RNG = np.random.default_rng(17)
N = 60
FRAME = pd.DataFrame({
    "age": RNG.integers(20, 80, N).astype(float),
    "ca": RNG.choice(["0", "1", "2", "3", "?"], N),
    "dose": RNG.normal(size=N).round(2),
})
FRAME.loc[::7, "dose"] = np.nan
LABEL = np.where(FRAME["ca"].isin(["2", "3"]), "ill", "healthy")
BITS = RNG.random((40, 5)) < 0.5
TARGET = BITS[:, 0] | BITS[:, 2]


def _fit(name: str, **params):
    return LEARNERS[name]().set_params(**params).fit(FRAME, LABEL)


# ----------------------------------------------------------------------------- errors
def _raises(call, error, match):
    with pytest.raises(error, match=match):
        call()


ERROR_CASES = {
    # estimators: parameters (declared constraints) and targets
    "ideal negations-like bool": (lambda: IdealDNFClassifier(max_features=True).fit(FRAME, LABEL),
                                  ValueError, "'max_features' parameter"),
    "premise negations='no'": (lambda: OptimalPremiseClassifier(negations="no").fit(FRAME, LABEL),
                               ValueError, "'negations' parameter"),
    "premise memory_limit nan": (lambda: OptimalPremiseClassifier(memory_limit=math.nan).fit(FRAME, LABEL),
                                 ValueError, "'memory_limit' parameter"),
    "premise memory_limit inf": (lambda: OptimalPremiseClassifier(memory_limit=math.inf).fit(FRAME, LABEL),
                                 ValueError, "'memory_limit' parameter"),
    "lp screening='no'": (lambda: LPRuleClassifier(screening="no").fit(FRAME, LABEL),
                          ValueError, "'screening' parameter"),
    "lp max_clauses=True": (lambda: LPRuleClassifier(max_clauses=True).fit(FRAME, LABEL),
                            ValueError, "'max_clauses' parameter"),
    "lp time_limit='soon'": (lambda: LPRuleClassifier(time_limit="soon").fit(FRAME, LABEL),
                             ValueError, "'time_limit' parameter"),
    "lp random_state='x'": (lambda: LPRuleClassifier(random_state="x").fit(FRAME, LABEL),
                            ValueError, "'random_state' parameter"),
    "ideal random_state=-1": (lambda: IdealDNFClassifier(random_state=-1).fit(FRAME, LABEL),
                              ValueError, "'random_state' parameter"),
    "lp lam=inf": (lambda: LPRuleClassifier(lam=math.inf).fit(FRAME, LABEL), ValueError, "'lam' parameter"),
    "lp class_weight negative": (lambda: LPRuleClassifier(class_weight={"ill": -1}).fit(FRAME, LABEL),
                                 ValueError, "class_weight costs must be finite numbers > 0"),
    "lp class_weight nan": (lambda: LPRuleClassifier(class_weight={"ill": math.nan}).fit(FRAME, LABEL),
                            ValueError, "class_weight costs"),
    "lp class_weight unknown label": (lambda: LPRuleClassifier(class_weight={"x": 2}).fit(FRAME, LABEL),
                                      ValueError, "class_weight has labels not in y"),
    "y holding None": (lambda: LPRuleClassifier().fit(FRAME, np.where(LABEL == "ill", "ill", None)),
                       ValueError, "y contains .* missing value"),
    "y holding NaN in a list": (lambda: IdealDNFClassifier().fit(FRAME, [*LABEL[:-1], np.nan]),
                                ValueError, "y contains .* missing value"),
    "y holding pd.NA": (lambda: OptimalPremiseClassifier().fit(FRAME, pd.Series([*LABEL[:-1], pd.NA])),
                        ValueError, "y contains .* missing value"),
    "y one class": (lambda: LPRuleClassifier().fit(FRAME, ["a"] * N), ValueError, "one class"),
    "pos_label not a class": (lambda: IdealDNFClassifier(pos_label="x").fit(FRAME, LABEL),
                              ValueError, "pos_label='x' is not a class"),
    "categorical unknown column": (lambda: LPRuleClassifier(categorical=["nope"]).fit(FRAME, LABEL),
                                   ValueError, "categorical: 'nope' is not a column"),
    "categorical position out of range": (lambda: IdealDNFClassifier(categorical=[7]).fit(FRAME, LABEL),
                                          ValueError, "categorical: column position 7"),
    "sample_weight negative": (lambda: LPRuleClassifier().fit(FRAME, LABEL, sample_weight=-np.ones(N)),
                               ValueError, "sample_weight"),
    "sample_weight NaN": (lambda: IdealDNFClassifier().fit(FRAME, LABEL, sample_weight=np.full(N, math.nan)),
                          ValueError, "sample_weight contains NaN"),
    "sample_weight too short": (lambda: LPRuleClassifier().fit(FRAME, LABEL, sample_weight=np.ones(3)),
                                ValueError, "sample_weight.shape"),
    "sample_weight 1e300": (lambda: LPRuleClassifier().fit(FRAME, LABEL, sample_weight=np.full(N, 1e300)),
                            ValueError, "multiply or divide the weights"),
    "sample_weight 1e-300": (lambda: IdealDNFClassifier().fit(FRAME, LABEL, sample_weight=np.full(N, 1e-300)),
                             ValueError, "multiply or divide the weights"),
    "predict with reordered columns": (lambda: _fit("lp").predict(FRAME[["dose", "age", "ca"]]),
                                       ValueError, "same order"),
    "predict with a column of letters where numbers were": (
        lambda: _fit("lp").predict(FRAME.assign(age="old")), ValueError, "column 'age' was numeric"),
    # binarizers
    "binarizer infinity": (lambda: MedianBinarizer().fit(pd.DataFrame({"a": [1.0, math.inf]})),
                           ValueError, "infinity in column 'a'"),
    "binarizer missing='drop'": (lambda: QuantileBinarizer(missing="drop").fit(FRAME),
                                 ValueError, "'missing' parameter"),
    "binarizer sparse": (lambda: ThresholdBinarizer().fit(sparse.csr_matrix(BITS)), TypeError, "sparse"),
    "binarizer negations='no'": (lambda: QuantileBinarizer(negations="no").fit(FRAME),
                                 ValueError, "'negations' parameter"),
    "median binarizer NaN by default": (lambda: MedianBinarizer().fit(FRAME), ValueError, "dose"),
    # find_best_premises
    "premises on raw numbers": (lambda: find_best_premises(FRAME[["age"]], TARGET[:1].repeat(N)),
                                ValueError, "boolean .*age"),
    "premises memory_limit nan": (lambda: find_best_premises(BITS, TARGET, memory_limit=math.nan),
                                  ValueError, "memory_limit"),
    "premises memory_limit inf": (lambda: find_best_premises(BITS, TARGET, memory_limit=math.inf),
                                  ValueError, "memory_limit"),
    "premises memory_limit text": (lambda: find_best_premises(BITS, TARGET, memory_limit="lots"),
                                   ValueError, "memory_limit"),
    "premises max_size 9": (lambda: find_best_premises(BITS, TARGET, max_size=9), ValueError, "max_size"),
    # LP functions
    "lp y in 0..3": (lambda: learn_or_rule(BITS, np.arange(40) % 4, 1.0), ValueError, "y must be boolean or 0/1"),
    "lp A holding 2": (lambda: learn_or_rule(BITS * 2, TARGET, 1.0), ValueError, "A must be boolean"),
    "lp A holding NaN": (lambda: learn_or_rule(np.where(BITS, np.nan, 0), TARGET, 1.0),
                         ValueError, "A must be boolean"),
    "lp y holding None": (lambda: learn_and_rule(BITS, [None, *TARGET[1:]], 1.0), ValueError, "y must be"),
    "lp y too short": (lambda: learn_dnf(BITS, TARGET[:5], 1.0), ValueError, "40 rows but y has 5"),
    "lp sparse A": (lambda: learn_m_of_n(sparse.csr_matrix(BITS), TARGET, 1.0), TypeError, "A.toarray"),
    "lp time_limit 'x'": (lambda: learn_or_rule(BITS, TARGET, 1.0, time_limit="x"), ValueError, "time_limit"),
    "lp time_limit nan": (lambda: solve_relaxation(BITS[TARGET], BITS[~TARGET], 1.0, time_limit=math.nan),
                          ValueError, "time_limit"),
    "lp negative lam": (lambda: learn_or_rule(BITS, TARGET, -1.0), ValueError, "lam"),
    "lp row_sampling 2": (lambda: learn_or_rule(BITS, TARGET, 1.0, row_sampling=2), ValueError, "row_sampling"),
    "lp random_state 'x'": (lambda: learn_or_rule(BITS, TARGET, 1.0, row_sampling=0.5, random_state="x"),
                            ValueError, "random_state must be"),
    "lp random_state -1": (lambda: learn_dnf(BITS, TARGET, 1.0, row_sampling=0.5, random_state=-1),
                           ValueError, "random_state must be"),
    "lp max_clauses True": (lambda: learn_dnf(BITS, TARGET, 1.0, True), ValueError, "max_clauses must be an int"),
    "lp max_m '3'": (lambda: learn_m_of_n(BITS, TARGET, 1.0, max_m="3"), ValueError, "max_m must be an int"),
    "m_of_n_predict column 9": (lambda: m_of_n_predict(BITS, [9], 1), ValueError, "columns must be positions"),
    "premises negations='no'": (lambda: find_best_premises(BITS, TARGET, negations="no"),
                                ValueError, "negations must be True or False"),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_hostile_input_fails_naming_the_problem(case):
    call, error, match = ERROR_CASES[case]
    _raises(call, error, match)


def test_inputs_are_not_mutated_by_failures_or_fits():
    frame, label = FRAME.copy(), LABEL.copy()
    for name in LEARNERS:
        _fit(name)
    pd.testing.assert_frame_equal(frame, FRAME)
    np.testing.assert_array_equal(label, LABEL)


# ------------------------------------------------------------------ documented behaviour
@pytest.mark.parametrize("name", LEARNERS)
def test_categories_read_as_strings_at_fit_match_numbers_at_predict(name):
    """A column read as "0".."3" and "?" at fit and as integers at predict keeps its categories."""
    model = _fit(name)
    seen = FRAME["ca"] != "?"
    as_numbers = FRAME[seen].assign(ca=FRAME.loc[seen, "ca"].astype(int))
    as_floats = FRAME[seen].assign(ca=FRAME.loc[seen, "ca"].astype(float))
    expected = model.predict(FRAME[seen])
    assert model.score(FRAME, LABEL) == 1.0
    np.testing.assert_array_equal(model.predict(as_numbers), expected)
    np.testing.assert_array_equal(model.predict(as_floats), expected)


def test_category_text_shared_by_two_fitted_categories_matches_exact_values_only():
    X = pd.DataFrame({"c": pd.Series(["1", 1, "b", "b"], dtype=object)})
    binarizer = MedianBinarizer().fit(X)
    out = binarizer.transform(pd.DataFrame({"c": pd.Series(["1.0", "1", 1, 1.0], dtype=object)}))
    # "1" and 1 are two categories at fit: "1.0" reads like both, so it matches neither; 1.0
    # equals 1 (as Python compares) and matches it exactly
    assert out.sum(axis=1).tolist() == [0, 1, 1, 1]
    assert out[2].tolist() == out[3].tolist() != out[1].tolist()


@pytest.mark.parametrize("cls", BINARIZERS)
def test_unseen_categories_and_missing_values_follow_the_documented_table(cls):
    binarizer = cls(missing="indicator").fit(pd.DataFrame({"c": ["a", "b", None, "a"], "x": [1.0, np.nan, 3, 4]}))
    out = binarizer.transform(pd.DataFrame({"c": ["z", None], "x": [np.nan, 2.0]}))
    names = list(binarizer.get_feature_names_out())
    row = dict(zip(names, out[0]))
    for name, value in row.items():
        if name.startswith("c ==") or name.startswith("x ") and "missing" not in name:
            assert not value, name  # unseen category: every == is false; missing x: every cut false
        elif name.startswith("c !="):
            assert value, name  # an unseen category differs from every fitted one
    if "x is missing" in row:  # the all-values scaling may merge it with an equal extent
        assert row["x is missing"] and not dict(zip(names, out[1]))["x is missing"]
    assert not any(v for n, v in zip(names, out[1]) if n.startswith("c ") and "missing" not in n)


def test_median_near_the_float_limit_keeps_its_column():
    X = pd.DataFrame({"a": [1e308, 1.5e308, 1.7e308, -1e308]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        binarizer = MedianBinarizer().fit(X)
    assert binarizer.dropped_ == {}
    assert binarizer.transform(X)[:, 0].tolist() == [False, True, True, False]


def test_query_of_constant_rules_ignores_a_column_named_index():
    X = FRAME.assign(index=np.where(np.arange(N) % 2, np.nan, 1.0))
    model = LPRuleClassifier(lam=0.01).fit(X, LABEL)
    for formula, rows in ((TRUE, N), (FALSE, 0)):
        model.formula_ = formula
        assert len(X.query(to_query(model))) == rows == int((model.predict(X) == "ill").sum())


def test_huge_class_weight_is_a_ratio_not_an_overflow():
    heavy = LPRuleClassifier(class_weight={"ill": 1e300}).fit(FRAME, LABEL)
    double = LPRuleClassifier(class_weight={"ill": 2.0, "healthy": 2e-300}).fit(FRAME, LABEL)
    assert str(heavy.formula_) == str(double.formula_) and heavy.lp_result_["status"] == "optimal"


@pytest.mark.parametrize("scale", [1e-7, 1e98])
def test_lp_weights_far_from_one_give_the_unweighted_rule(scale):
    plain = LPRuleClassifier(lam=0.01, rule="dnf").fit(FRAME, LABEL)
    scaled = LPRuleClassifier(lam=0.01, rule="dnf").fit(FRAME, LABEL, sample_weight=np.full(N, scale))
    assert str(scaled.formula_) == str(plain.formula_) and scaled.lp_result_["status"] == "optimal"


def test_legacy_random_state_seeds_row_sampling():
    fits = [LPRuleClassifier(row_sampling=0.5, random_state=np.random.RandomState(3)).fit(FRAME, LABEL)
            for _ in range(2)]
    assert str(fits[0].formula_) == str(fits[1].formula_)


def test_pulp_with_lam_zero_and_a_free_column_matches_highs():
    A = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=bool)
    y = np.array([1, 1, 0, 0], dtype=bool)
    for screening in (True, False):
        highs = learn_or_rule(A, y, 0.0, screening=screening)
        pulp = learn_or_rule(A, y, 0.0, solver="pulp", screening=screening)
        assert pulp.objective == highs.objective == 0.0
        assert pulp.columns.tolist() == highs.columns.tolist() == [0]


# -------------------------------------------------------------------------- load_model
@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "model.json"
    save_model(_fit("ideal"), path)
    return json.loads(path.read_text())


def _deep_formula(document):
    tree = {"op": "literal", "attribute": document["attribute_names"][0], "negated": False}
    for _ in range(500):  # deeper than any learned rule, within what the JSON parser reads
        tree = {"op": "not", "operand": tree}
    document["formula"] = tree


def _deep_value(document):
    value = 1
    for _ in range(500):
        value = [value]
    document["state"]["class_prior_"] = value


def _set(key, value):
    return lambda document: document.__setitem__(key, value)


MODEL_CASES = {
    "huge subarray dtype": (_set("classes", {"$array": {"dtype": "(16000,16000)f8", "shape": [3],
                                                        "values": [1, 2, 3]}}), "not a plain dtype"),
    "huge string dtype": (_set("classes", {"$array": {"dtype": "<U100000000", "shape": [2],
                                                      "values": ["a", "b"]}}), "more memory"),
    "huge shape": (_set("classes", {"$array": {"dtype": "<i8", "shape": [100000, 100000], "values": [0, 1]}}),
                   "does not hold the 2 values"),
    "huge hex": (_set("classes", {"$array": {"dtype": "|V8", "shape": [10 ** 9], "hex": "00" * 16}}),
                 "does not hold"),
    "three classes": (_set("classes", {"$array": {"dtype": "<i8", "shape": [3], "values": [0, 1, 2]}}),
                      "one model per class"),
    "classes=[0]": (_set("classes", {"$array": {"dtype": "<i8", "shape": [1], "values": [0]}}),
                    "at least two classes"),
    "classes out of order": (_set("classes", {"$array": {"dtype": "object", "shape": [2],
                                                         "values": ["ill", "healthy"]}}), "increasing order"),
    "reversed attribute_names": (lambda d: d.__setitem__("attribute_names", d["attribute_names"][::-1]),
                                 "attribute_names do not match"),
    "format_version 0": (_set("format_version", 0), "format_version"),
    "format_version absurd": (_set("format_version", 10 ** 30), "format_version"),
    "format_version newer": (_set("format_version", 2), "newer logicrules"),
    "format_version text": (_set("format_version", "1"), "format_version"),
    "deep formula": (_deep_formula, "nested more than"),
    "deep value": (_deep_value, "nested more than"),
    "state shadows a method": (lambda d: d["state"].__setitem__("predict", 1), "not a fitted attribute"),
    "bad parameter": (lambda d: d["params"]["$dict"].__setitem__(
        [p[0] for p in d["params"]["$dict"]].index("max_features"), ["max_features", True]),
        "'max_features' parameter"),
    "n_features_in mismatch": (_set("n_features_in", 5), "n_features_in"),
    "foreign class": (_set("class", "os.system"), "only classes of logicrules"),
    "selected column out of range": (lambda d: d["state"].__setitem__(
        "_selected_columns", {"$array": {"dtype": "<i8", "shape": [1], "values": [99]}}), "does not fit its"),
}


@pytest.mark.parametrize("case", list(MODEL_CASES))
def test_hostile_model_file_fails_before_allocating(case, saved, tmp_path):
    mutate, match = MODEL_CASES[case]
    document = json.loads(json.dumps(saved))
    mutate(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=match):
        load_model(path)


def test_json_nested_past_the_parser_is_a_clear_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "logicrules.model", "x": ' + "[" * 100000 + "]" * 100000 + "}")
    with pytest.raises(ValueError, match="nested too deeply|malformed"):
        load_model(path)


# -------------------------------------------------------------------------------- CLI
@pytest.fixture(scope="module")
def csv_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    train = FRAME.assign(label=LABEL)
    train.to_csv(folder / "train.csv", index=False)
    seen = train[train["ca"] != "?"]
    seen.drop(columns="label").to_csv(folder / "new.csv", index=False)  # "ca" now reads as integers
    return folder


def _cli(capsys, *argv):
    """Run the command line; stderr holds no traceback, and an error is its last line only."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert "Traceback" not in err and sum("error:" in line for line in lines) <= 1, err
    if status != 0:
        assert "error:" in lines[-1], err
    return status, out, err


@pytest.mark.parametrize("argv, match", [
    (("compare", "hepatitis", "--learners", "premise", "--max-size", "9", "--cv", "2"), "'max_size' parameter"),
    (("compare", "hepatitis", "--learners", "lp", "--lam", "inf", "--cv", "2"), "--lam"),
    (("fit", "hepatitis", "--learner", "lp", "--lam", "nan"), "--lam"),
    (("predict", "--model", "missing.json", "hepatitis"), "missing.json"),
    (("fit", "hepatitis", "--learner", "lp", "--lam", "1e308"), "--lam"),
])
def test_cli_errors_are_one_line(capsys, argv, match):
    status, _, err = _cli(capsys, *argv)
    assert status != 0 and match in err


def test_cli_compare_reports_a_failing_fold_in_one_line(capsys, monkeypatch):
    def fail(self, context, y, weights=None):
        raise ValueError("cannot learn on this fold")

    monkeypatch.setattr(LPRuleClassifier, "_fit_packed", fail)
    status, _, err = _cli(capsys, "compare", "hepatitis", "--learners", "lp", "--cv", "2", "--quiet")
    assert status == 1 and "lp failed on dataset 'hepatitis', fold 0" in err and "cannot learn" in err


def test_cli_predict_on_a_file_typed_differently_keeps_the_answers(capsys, csv_files, tmp_path):
    model = tmp_path / "model.json"
    status, _, _ = _cli(capsys, "fit", csv_files / "train.csv", "--target", "label", "--positive", "ill",
                        "--learner", "premise", "--max-size", "2", "--save", model)
    assert status == 0
    predictions = {}
    for name in ("train", "new"):
        out_file = tmp_path / f"{name}-predictions.csv"
        status, _, _ = _cli(capsys, "predict", "--model", model, csv_files / f"{name}.csv", "--output", out_file)
        assert status == 0
        predictions[name] = pd.read_csv(out_file)["prediction"].to_numpy()
    seen = (FRAME["ca"] != "?").to_numpy()
    np.testing.assert_array_equal(predictions["new"], predictions["train"][seen])
    assert len(set(predictions["new"])) == 2


# ---------------------------------------------------------------- random frames (hypothesis)
@st.composite
def mixed_frames(draw):
    n = draw(st.integers(16, 40))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    columns = {
        "num": rng.normal(size=n).round(1),
        "int": rng.integers(0, 5, n).astype(float),
        "cat": rng.choice(["a", "b", "c"], n).astype(object),
        "code": rng.choice(["1", "2", "3"], n).astype(object),
        "flag": rng.random(n) < 0.5,
    }
    frame = pd.DataFrame(columns)
    for column in ("num", "int", "cat", "code"):
        frame.loc[rng.random(n) < 0.15, column] = np.nan if column in ("num", "int") else None
    y = (frame["code"].isin(["1"]) | (frame["num"] > 0)).to_numpy(copy=True)
    y[rng.integers(0, n, 2)] ^= True
    y[:2] = [True, False]
    return frame, np.where(y, "yes", "no"), rng


def _retyped(frame: pd.DataFrame) -> pd.DataFrame:
    """The same values read another way: codes as numbers, flags as 0/1, floats as objects."""
    code = pd.to_numeric(frame["code"])
    return frame.assign(code=code, flag=frame["flag"].astype(int), int=frame["int"].astype(object))


@pytest.mark.parametrize("name", LEARNERS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mixed_frames())
def test_predict_never_silently_changes_an_answer(name, data):
    frame, y, rng = data
    model = LEARNERS[name]().fit(frame, y)
    expected = model.predict(frame)
    # retyped: the same values as numbers / 0-1 / objects give the same answers
    np.testing.assert_array_equal(model.predict(_retyped(frame)), expected)
    # reordered columns: a clear error, never answers for the wrong columns
    with pytest.raises(ValueError, match="same order"):
        model.predict(frame[list(frame.columns[::-1])])
    # partly unseen: rows with new categories change only those rows, as the binarizer says
    unseen = rng.random(len(frame)) < 0.3
    changed = frame.assign(cat=np.where(unseen, "never seen", frame["cat"]).astype(object))
    prediction = model.predict(changed)
    np.testing.assert_array_equal(prediction[~unseen], expected[~unseen])
    Xb = model.binarize(changed)
    names = model.attribute_names_
    for j, attribute in enumerate(names):
        if attribute.startswith("cat == "):
            assert not Xb[unseen, j].any()
        elif attribute.startswith("cat != "):
            assert Xb[unseen, j].all()
    np.testing.assert_array_equal(prediction, model.classes_[model.formula_.evaluate(Xb, feature_names=names)
                                                             .astype(int)])
