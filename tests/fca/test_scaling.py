"""Binarizers against slow row-by-row references, sklearn's estimator checks and bad inputs."""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from sklearn.utils.estimator_checks import parametrize_with_checks

import logicrules
from logicrules.fca.scaling import (
    Condition,
    MedianBinarizer,
    QuantileBinarizer,
    ThresholdBinarizer,
    format_value,
)

NAN = float("nan")
BINARIZERS = (MedianBinarizer, QuantileBinarizer, ThresholdBinarizer)


# ---------------------------------------------------------------------------------------------
# Slow references, written from the definitions


def reference_value(condition: Condition, value) -> bool:
    """Truth of one condition on one cell, the obvious way."""
    if condition.op == "is missing":
        return bool(pd.isna(value))
    if pd.isna(value):
        return False
    if condition.op == "is true":
        return float(value) == 1.0
    if condition.op == "==":
        return value == condition.value
    if condition.op == "!=":
        return value != condition.value
    x, t = float(value), condition.value
    return {">": x > t, "<=": x <= t, ">=": x >= t, "<": x < t}[condition.op]


def reference_matrix(conditions, frame: pd.DataFrame) -> np.ndarray:
    """Row-by-row evaluation of every condition (frame columns carry the condition names)."""
    rows = frame.astype(object).to_dict("records")
    return np.array(
        [[reference_value(c, row[c.column]) for c in conditions] for row in rows], dtype=bool
    ).reshape(len(rows), len(conditions))


def non_missing_floats(series: pd.Series) -> list[float]:
    return [float(v) for v in series.astype(object) if not pd.isna(v)]


# ---------------------------------------------------------------------------------------------
# Random small frames of every supported dtype

POOLS = {
    "float": [-2.5, -1.0, 0.0, 0.1, 0.2, 0.30000000000000004, 1.0, 3.0, 54.0, 55.0, 1e-5, NAN],
    "int": [-3, 0, 1, 2, 5, 40],
    "binary01": [0.0, 1.0, NAN],
    "bool": [True, False],
    "Int64": [0, 1, 2, 7, None],
    "boolean": [True, False, None],
    "str": ["a", "b", "c", "1", "", None],
    "string": ["male", "female", "x y", None],
    "object": ["u", "v", "True", None],
    "category": ["z", "y", "x", None],
    "object_num": [1, 2.5, 4, None],
}
UNSEEN = {
    "float": [-100.0, 1000.5],
    "int": [-7, 99],
    "Int64": [99],
    "str": ["d"],
    "string": ["other"],
    "object": ["w"],
    "category": [],
    "object_num": [-1],
}


def make_column(kind: str, values: list) -> pd.Series:
    if kind in ("float", "binary01"):
        return pd.Series(values, dtype="float64")
    if kind == "int":
        return pd.Series(values, dtype="int64")
    if kind == "bool":
        return pd.Series(values, dtype=bool)
    if kind == "category":
        return pd.Series(pd.Categorical(values, categories=["z", "y", "x"]))
    if kind in ("object", "object_num"):
        return pd.Series(values, dtype=object)
    return pd.Series(values, dtype=kind)  # Int64, boolean, str, string


@st.composite
def specs(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(POOLS)), min_size=1, max_size=4))
    names = draw(
        st.lists(
            st.sampled_from(["age", "sex", "x", "chol level", "a_b", "T", "é"]),
            min_size=len(kinds),
            max_size=len(kinds),
            unique=True,
        )
    )
    return list(zip(names, kinds))


@st.composite
def frames(draw, spec, unseen: bool = False):
    n = draw(st.integers(1, 9))
    data = {}
    for name, kind in spec:
        pool = POOLS[kind] + (UNSEEN.get(kind, []) if unseen else [])
        values = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        data[name] = make_column(kind, values)
    return pd.DataFrame(data)


def all_binarizers(missing: str):
    return [
        MedianBinarizer(missing=missing),
        QuantileBinarizer(missing=missing),
        QuantileBinarizer(n_thresholds=2, negations=False, missing=missing),
        ThresholdBinarizer(missing=missing),
        ThresholdBinarizer(missing=missing, drop_constant=True),
    ]


# ---------------------------------------------------------------------------------------------
# Semantics on random frames


@settings(max_examples=40, deadline=None)
@given(data=st.data(), missing=st.sampled_from(["false", "indicator"]))
def test_every_attribute_matches_its_condition_row_by_row(data, missing):
    spec = data.draw(specs())
    train = data.draw(frames(spec))
    test = data.draw(frames(spec, unseen=True))
    for binarizer in all_binarizers(missing):
        binarizer.fit(train)
        names = binarizer.get_feature_names_out().tolist()
        assert len(set(names)) == len(names)
        assert names == [c.name for c in binarizer.conditions_]
        for frame in (train, test):
            out = binarizer.transform(frame)
            assert out.dtype == bool and out.shape == (len(frame), len(names))
            np.testing.assert_array_equal(out, reference_matrix(binarizer.conditions_, frame))
        columns_with_nan = {c for c in train.columns if train[c].isna().any()}
        indicators = {c.column for c in binarizer.conditions_ if c.op == "is missing"}
        if missing == "false":
            assert not indicators
        else:
            assert indicators <= columns_with_nan
        # no attribute is constant on the fitting data except ThresholdBinarizer's merged ones
        train_out = binarizer.transform(train)
        constant = train_out.all(axis=0) | ~train_out.any(axis=0)
        if isinstance(binarizer, ThresholdBinarizer) and not binarizer.drop_constant:
            assert constant.sum() <= 2
        else:
            assert not constant.any()


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_fitted_thresholds_follow_their_definitions(data):
    spec = data.draw(specs())
    train = data.draw(frames(spec))
    median = MedianBinarizer(missing="false").fit(train)
    quantile = QuantileBinarizer(n_thresholds=3, missing="false").fit(train)
    for column, kind in median.column_kinds_.items():
        if kind != "numeric":
            continue
        values = non_missing_floats(train[column])
        if not values:
            assert median.dropped_[column] == "all values missing"
            continue
        distinct = sorted(set(values))
        # median: same split of the training values as "x > median"
        thresholds = [c.value for c in median.conditions_ if c.column == column]
        m = statistics.median(values)
        if max(values) == m:
            # one value and no missing one: dropped; else the median cut "x >= median", which
            # is not constant on the fitting rows (lower values or missing ones are false)
            conds = [c for c in median.conditions_ if c.column == column]
            if len(distinct) == 1 and column in median.dropped_:
                assert conds == [] and "only value" in median.dropped_[column]
            else:
                (cond,) = conds
                assert cond.op == ">=" and cond.value == m
        else:
            (t,) = thresholds
            assert [v > t for v in values] == [v > m for v in values]
            assert len(format_value(t)) <= len(format_value(m))
        # quantiles: thresholds strictly inside gaps between consecutive distinct values
        cuts = [c.value for c in quantile.conditions_ if c.column == column and c.op == "<="]
        assert cuts == sorted(set(cuts))
        gaps = [sum(v <= t for v in distinct) - 1 for t in cuts]
        for t, g in zip(cuts, gaps):
            assert distinct[g] < t < distinct[g + 1]
        if len(distinct) <= 4:
            expected = list(range(len(distinct) - 1))
        else:
            qs = statistics.quantiles(values, n=4, method="inclusive")
            expected = sorted({sum(v <= q for v in distinct) - 1 for q in qs if q < distinct[-1]})
        assert gaps == expected
        negated = [c.value for c in quantile.conditions_ if c.column == column and c.op == ">"]
        assert negated == cuts


def reference_is_categorical(series: pd.Series) -> bool:
    """String, category, or object columns holding a string."""
    if isinstance(series.dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(series.dtype):
        return series.dtype != object or any(isinstance(v, str) for v in series)
    return False


def reference_categories(series: pd.Series) -> list:
    present = {v for v in series.astype(object) if not pd.isna(v)}
    if isinstance(series.dtype, pd.CategoricalDtype):
        return [c for c in series.cat.categories if c in present]
    return sorted(present)


def reference_all_values(frame: pd.DataFrame, drop_constant: bool) -> list[str]:
    """All-values scaling by brute force: candidate names with extents, first of each kept."""
    seen: dict[tuple, str] = {}
    for column in frame.columns:
        cells = [None if pd.isna(x) else x for x in frame[column].astype(object)]
        candidates = []
        if reference_is_categorical(frame[column]):
            for v in reference_categories(frame[column]):
                equal = [x is not None and x == v for x in cells]
                differ = [x is not None and x != v for x in cells]
                candidates.append((Condition(column, "==", v).name, equal))
                candidates.append((Condition(column, "!=", v).name, differ))
        else:
            for v in sorted({float(x) for x in cells if x is not None}):
                at_least = [x is not None and float(x) >= v for x in cells]
                below = [x is not None and float(x) < v for x in cells]
                candidates.append((f"{column} >= {format_value(v)}", at_least))
                candidates.append((f"{column} < {format_value(v)}", below))
        for name, extent in candidates:
            key = tuple(extent)
            if drop_constant and (all(key) or not any(key)):
                continue
            seen.setdefault(key, name)
    return list(seen.values())


@settings(max_examples=40, deadline=None)
@given(data=st.data(), drop_constant=st.booleans())
def test_threshold_binarizer_matches_brute_force_all_values_scaling(data, drop_constant):
    spec = data.draw(specs())
    train = data.draw(frames(spec))
    fitted = ThresholdBinarizer(drop_constant=drop_constant).fit(train)
    assert fitted.get_feature_names_out().tolist() == reference_all_values(train, drop_constant)
    out = fitted.transform(train)
    packed = {out[:, j].tobytes() for j in range(out.shape[1])}
    assert len(packed) == out.shape[1]  # all extents distinct
    kept = set(fitted.get_feature_names_out())
    for name, why in fitted.redundant_.items():
        assert name not in kept and ("same extent" in why or "constant" in why)


# ---------------------------------------------------------------------------------------------
# scikit-learn conformance


@parametrize_with_checks(
    [
        MedianBinarizer(),
        MedianBinarizer(missing="indicator"),
        QuantileBinarizer(),
        QuantileBinarizer(n_thresholds=2, negations=False, missing="error"),
        ThresholdBinarizer(),
        ThresholdBinarizer(missing="indicator", drop_constant=True),
    ]
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_set_output_pandas_uses_attribute_names():
    X = pd.DataFrame({"age": [40, 50, 60, 70], "sex": ["m", "f", "m", "f"]})
    out = QuantileBinarizer().set_output(transform="pandas").fit_transform(X)
    assert list(out.columns) == QuantileBinarizer().fit(X).get_feature_names_out().tolist()


# ---------------------------------------------------------------------------------------------
# Names and formatting


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (54.5, "54.5"), (0.26, "0.26"), (3.0, "3"), (1e-05, "1e-05"), (-2.0, "-2"), (7, "7"),
        (np.float32(0.5), "0.5"), (np.int64(4), "4"), (True, "True"), ("male", "male"),
        (1e20, "1e+20"),
    ],
)
def test_format_value_is_compact(value, text):
    assert format_value(value) == text


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_format_value_reads_back_exactly(x):
    assert float(format_value(x)) == x


def test_condition_names():
    assert Condition("age", ">", 54.5).name == "age > 54.5"
    assert Condition("sex", "==", "male").name == "sex == male"
    assert str(Condition("x", "is missing")) == "x is missing"
    assert Condition("smoker", "is true").name == "smoker"
    assert Condition("x", "<=", 3.0).name == "x <= 3"
    # strings that would read as numbers, bools or blanks are quoted, so names stay unambiguous
    assert Condition("zip", "==", "1").name == "zip == '1'"
    assert Condition("v", "!=", "").name == "v != ''"
    assert Condition("v", "==", "True").name == "v == 'True'"
    assert Condition("v", "==", 1).name == "v == 1"


def test_condition_rejects_bad_fields():
    with pytest.raises(ValueError, match="unknown operator"):
        Condition("x", "=>", 1.0)
    with pytest.raises(ValueError, match="takes no value"):
        Condition("x", "is missing", 1.0)
    with pytest.raises(TypeError, match="numeric threshold"):
        Condition("x", ">", "a")


def test_quantile_thresholds_are_nice_midpoints():
    X = pd.DataFrame({"age": [54, 55, 40, 70], "p": [0.2513, 0.2687, 0.1, 0.9]})
    names = QuantileBinarizer(negations=False).fit(X).get_feature_names_out().tolist()
    assert names == ["age <= 50", "age <= 54.5", "age <= 60", "p <= 0.2", "p <= 0.26", "p <= 0.6"]


def test_quantile_uses_quantiles_when_many_values():
    X = pd.DataFrame({"x": np.arange(100.0)})
    fitted = QuantileBinarizer(n_thresholds=3, negations=False).fit(X)
    assert fitted.get_feature_names_out().tolist() == ["x <= 24.5", "x <= 49.5", "x <= 74.5"]


@pytest.mark.parametrize("ulps", [1, 2, 3])
def test_thresholds_between_close_floats_stay_faithful(ulps):
    lo = 0.1 + 0.2
    hi = lo
    for _ in range(ulps):
        hi = np.nextafter(hi, 1.0)
    X = pd.DataFrame({"x": [lo, hi, 0.0]})
    fitted = QuantileBinarizer(negations=False).fit(X)
    cuts = [c.value for c in fitted.conditions_]
    assert len(set(fitted.get_feature_names_out())) == 2
    assert all(float(format_value(t)) == t for t in cuts)
    assert fitted.transform(X).tolist() == [[False, True], [False, False], [True, True]]
    # adjacent floats leave no room: the split is put on the lower value ("x <= lo")
    assert (lo < cuts[1] < hi) if ulps > 1 else cuts[1] == lo


def test_median_threshold_is_short_but_splits_like_the_median():
    X = pd.DataFrame({"x": [0.1, 0.7, 0.0, 1.0]})  # median (0.1 + 0.7) / 2 = 0.39999999999999997
    fitted = MedianBinarizer().fit(X)
    assert fitted.get_feature_names_out().tolist() == ["x > 0.4"]
    assert fitted.transform(X)[:, 0].tolist() == [False, True, False, True]


def test_duplicate_names_from_odd_column_names_raise():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "a <= 1.5": [True, False, True]})
    with pytest.raises(ValueError, match="rename the input columns"):
        QuantileBinarizer(negations=False).fit(X)


# ---------------------------------------------------------------------------------------------
# Column kinds and dtypes


def test_column_kinds_and_names_for_each_dtype():
    X = pd.DataFrame(
        {
            "age": [40.0, 50.0, 60.0, 70.0],
            "smoker": [True, False, True, False],
            "flag": pd.array([1, 0, None, 1], dtype="Int64"),
            "ok": pd.array([True, None, False, True], dtype="boolean"),
            "count": pd.array([1, 5, None, 3], dtype="Int64"),
            "sex": pd.Series(["m", "f", None, "m"], dtype="str"),
            "city": pd.Series(["b", "a", "a", pd.NA], dtype="string"),
            "obj": pd.Series(["q", "p", "q", None], dtype=object),
            "objnum": pd.Series([1, 2.5, None, 4], dtype=object),
            "objbool": pd.Series([True, False, None, True], dtype=object),
            "grade": pd.Categorical(["lo", "hi", "mid", "lo"], categories=["lo", "mid", "hi"]),
        }
    )
    fitted = MedianBinarizer(missing="false").fit(X)
    assert fitted.column_kinds_ == {
        "age": "numeric", "smoker": "binary", "flag": "binary", "ok": "binary",
        "count": "numeric", "sex": "categorical", "city": "categorical", "obj": "categorical",
        "objnum": "numeric", "objbool": "binary", "grade": "categorical",
    }
    assert fitted.get_feature_names_out().tolist() == [
        "age > 55", "smoker", "flag", "ok", "count > 3", "sex == f", "sex == m", "city == a",
        "city == b", "obj == p", "obj == q", "objnum > 2.5", "objbool",
        "grade == lo", "grade == mid", "grade == hi",  # category order, not alphabetical
    ]
    np.testing.assert_array_equal(fitted.transform(X), reference_matrix(fitted.conditions_, X))


def test_numpy_inputs():
    floats = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    fitted = QuantileBinarizer(negations=False).fit(floats)
    assert fitted.get_feature_names_out().tolist() == ["x0 <= 1.5", "x0 <= 2.5", "x1"]
    assert not hasattr(fitted, "feature_names_in_") and fitted.n_features_in_ == 2
    objects = np.array([[1, "a"], [2, "b"], [3, "a"]], dtype=object)
    fitted = MedianBinarizer().fit(objects)
    assert fitted.column_kinds_ == {"x0": "numeric", "x1": "categorical"}
    assert fitted.get_feature_names_out().tolist() == ["x0 > 2", "x1 == a", "x1 == b"]
    strings = np.array([["a", "x"], ["b", "y"]])
    assert MedianBinarizer().fit(strings).transform(strings).tolist() == [
        [True, False, True, False],
        [False, True, False, True],
    ]


def test_threshold_binarizer_scales_binary_columns_as_numbers():
    X = pd.DataFrame({"f": [0, 1, np.nan, 1]})
    names = ThresholdBinarizer().fit(X).get_feature_names_out().tolist()
    assert names == ["f >= 0", "f < 0", "f >= 1", "f < 1"]
    assert ThresholdBinarizer(drop_constant=True).fit(X).get_feature_names_out().tolist() == [
        "f >= 0", "f >= 1", "f < 1"
    ]


def test_binary_is_true_means_equal_to_one():
    fitted = MedianBinarizer().fit(pd.DataFrame({"f": [0, 1, 1]}))
    assert fitted.transform(pd.DataFrame({"f": [0, 1, 2]}))[:, 0].tolist() == [False, True, False]


# ---------------------------------------------------------------------------------------------
# Missing values and unseen categories


def test_missing_error_names_the_columns_at_fit_and_transform():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": ["x", None, "y"], "c": [1.0, 2.0, 3.0]})
    for binarizer in all_binarizers("error"):
        with pytest.raises(ValueError, match=r"\['a', 'b'\]"):
            binarizer.fit(X)
        binarizer.fit(X.fillna({"a": 0.0, "b": "x"}))
        with pytest.raises(ValueError, match=r"NaN.*\['a', 'b'\]"):
            binarizer.transform(X)


def test_missing_false_makes_every_attribute_of_the_column_false():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "b": ["x", None, "y", "x"]})
    for binarizer in all_binarizers("false"):
        out = binarizer.fit(X).transform(X)
        assert not out[1].any()
        assert not any(c.op == "is missing" for c in binarizer.conditions_)


def test_indicator_only_for_columns_with_missing_at_fit():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "b": ["x", "y", "y", "x"]})
    fitted = QuantileBinarizer(missing="indicator").fit(X)
    names = fitted.get_feature_names_out().tolist()
    assert "a is missing" in names and "b is missing" not in names
    # NaN at transform in a column without missing values at fit: all its attributes false
    test = pd.DataFrame({"a": [np.nan, 2.0], "b": [None, "x"]})
    out = pd.DataFrame(fitted.transform(test), columns=names)
    assert out.loc[0, "a is missing"] and not out.loc[1, "a is missing"]
    assert not out.filter(like="b ").loc[0].any()


def test_unseen_categories_make_equalities_false_and_inequalities_true():
    X = pd.DataFrame({"c": ["red", "blue", "red"]})
    fitted = QuantileBinarizer().fit(X)
    out = fitted.transform(pd.DataFrame({"c": ["purple", None]}))
    names = fitted.get_feature_names_out().tolist()
    assert names == ["c == blue", "c != blue", "c == red", "c != red"]
    assert out.tolist() == [[False, True, False, True], [False, False, False, False]]
    one_hot = MedianBinarizer(missing="false").fit(X).transform(pd.DataFrame({"c": ["purple"]}))
    assert not one_hot.any()


def test_dropped_columns_record_why():
    X = pd.DataFrame(
        {
            "const": [5.0, 5.0, 5.0, 5.0],
            "empty": [np.nan] * 4,
            "skew": [1.0, 2.0, 2.0, 2.0],
            "one": ["a", "a", "a", "a"],
            "ok": [1.0, 2.0, 3.0, 4.0],
        }
    )
    fitted = MedianBinarizer(missing="indicator").fit(X)
    assert set(fitted.dropped_) == {"const", "empty", "one"}
    assert "only value is 5" in fitted.dropped_["const"]
    assert fitted.dropped_["empty"] == "all values missing"
    assert "only category is a" in fitted.dropped_["one"]
    assert fitted.get_feature_names_out().tolist() == ["skew >= 2", "ok > 2.5"]
    assert fitted.transform(X)[:, 0].tolist() == [False, True, True, True]
    threshold = ThresholdBinarizer(drop_constant=True).fit(X)
    assert set(threshold.dropped_) == {"const", "empty", "one"}
    assert threshold.redundant_["const >= 5"].startswith("constant: true")


# ---------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize("cls", BINARIZERS)
def test_bad_inputs_get_clear_errors(cls):
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "x"]})
    fitted = cls(missing="false").fit(X)
    with pytest.raises(ValueError, match="X has 1 features, but .* is expecting 2"):
        fitted.transform(X[["a"]].to_numpy())
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        fitted.transform(X.rename(columns={"b": "B"}))
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        fitted.transform(X[["b", "a"]])
    with pytest.raises(ValueError, match="Feature names seen at fit time, yet now missing"):
        fitted.transform(X[["a"]])
    with pytest.raises(ValueError, match="0 sample"):
        cls().fit(X.iloc[:0])
    with pytest.raises(ValueError, match="0 feature"):
        cls().fit(np.empty((3, 0)))
    with pytest.raises(ValueError, match="Reshape your data"):
        cls().fit(np.arange(3.0))
    with pytest.raises(ValueError, match="Reshape your data"):
        cls().fit(X["a"])
    with pytest.raises(TypeError, match="sparse"):
        cls().fit(sparse.csr_matrix(np.eye(3)))
    with pytest.raises(ValueError, match="Complex data"):
        cls().fit(np.ones((3, 2), dtype=complex))
    with pytest.raises(ValueError, match="infinity in column 'a'"):
        cls(missing="false").fit(X.assign(a=[1.0, np.inf, 2.0]))
    with pytest.raises(TypeError, match="dtype datetime64"):
        cls().fit(pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2021-01-01"])}))
    with pytest.raises(ValueError, match="column 'a' was numeric"):
        fitted.transform(X.assign(a=["p", "q", "r"]))
    with pytest.raises(ValueError, match="duplicated column names"):
        cls().fit(pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"]))
    with pytest.raises(ValueError, match="'missing' parameter of .* must be a str among"):
        cls(missing="drop").fit(X)
    with pytest.raises(ValueError, match="do not match the columns"):
        fitted.get_feature_names_out(["p", "q"])
    with pytest.raises(TypeError, match="must be hashable"):
        cls().fit(pd.DataFrame({"d": [{"k": 1}, {"k": 2}]}))


def test_bad_parameters():
    X = pd.DataFrame({"a": [1.0, 2.0]})
    for bad in (0, 2.5, True, "3"):
        with pytest.raises(ValueError, match="n_thresholds"):
            QuantileBinarizer(n_thresholds=bad).fit(X)
    with pytest.raises(ValueError, match="negations"):
        QuantileBinarizer(negations="yes").fit(X)
    with pytest.raises(ValueError, match="drop_constant"):
        ThresholdBinarizer(drop_constant=1).fit(X)


@pytest.mark.parametrize("cls", BINARIZERS)
def test_inputs_are_never_mutated(cls):
    X = pd.DataFrame(
        {
            "a": [1.0, np.nan, 3.0],
            "b": pd.Series(["x", None, "y"], dtype="str"),
            "c": pd.Categorical(["u", "v", None]),
        }
    )
    copy = X.copy(deep=True)
    array = np.array([[1.0, np.nan], [2.0, 3.0]])
    array_copy = array.copy()
    binarizer = cls(missing="indicator")
    binarizer.fit(X).transform(X)
    binarizer.fit(array).transform(array)
    pd.testing.assert_frame_equal(X, copy)
    np.testing.assert_array_equal(array, array_copy)


# ---------------------------------------------------------------------------------------------
# Formal context and the paper's Myocard count


def test_transform_context():
    pytest.importorskip("logicrules.fca.context")
    X = pd.DataFrame({"age": [40, 50, 60, 70], "sex": ["m", "f", "m", "f"]}, index=list("pqrs"))
    fitted = MedianBinarizer().fit(X)
    context = fitted.transform_context(X)
    assert context.attributes == tuple(fitted.get_feature_names_out())
    assert context.objects == tuple("pqrs")
    np.testing.assert_array_equal(context.to_dense(), fitted.transform(X))


MYOCARD_PATHS = [
    Path(logicrules.__file__).parent / "data" / "myocardial_infarction.csv.gz",
    Path(__file__).resolve().parents[3] / "shared" / "datasets" / "myocardial_infarction.csv.gz",
]


def test_threshold_binarizer_reproduces_the_myocard_attribute_count():
    path = next((p for p in MYOCARD_PATHS if p.exists()), None)
    if path is None:
        pytest.skip("myocardial_infarction.csv.gz is neither bundled nor in the shared datasets")
    frame = pd.read_csv(path)
    columns = list(frame.columns)
    X = frame[columns[columns.index("ID") + 1 : columns.index("FIBR_PREDS")]]
    assert X.shape == (1700, 111)
    fitted = ThresholdBinarizer(missing="false").fit(X)
    # 1752 candidates (two per distinct value), 1587 distinct extents: the paper's count
    assert len(fitted.conditions_) + len(fitted.redundant_) == 1752
    assert len(fitted.conditions_) == 1587
    # without the always-false and the always-true extent
    assert len(ThresholdBinarizer(missing="false", drop_constant=True).fit(X).conditions_) == 1585


# ------------------------------------------------------------------ declared categorical columns
def test_declared_categorical_columns_are_one_hot_whatever_their_dtype():
    X = pd.DataFrame({
        "cp": np.array([0, 1, 2, 3, 0, 1], dtype=np.int64),
        "code": [1.0, 2.0, 1.0, np.nan, 2.0, 1.0],
        "flag": [True, False, True, True, False, True],
        "age": [40, 50, 60, 70, 45, 55],
    })
    for Binarizer in (MedianBinarizer, QuantileBinarizer, ThresholdBinarizer):
        binarizer = Binarizer(missing="false", categorical=["cp", "code", 2]).fit(X)
        assert binarizer.column_kinds_ == {"cp": "categorical", "code": "categorical",
                                           "flag": "categorical", "age": "numeric"}
        names = binarizer.get_feature_names_out().tolist()
        if Binarizer is ThresholdBinarizer:  # merges equal extents: checked for its kinds only
            continue
        assert "cp == 2" in names and "code == 1" in names and "flag == True" in names
        Xb = binarizer.transform(X)
        cp = [j for j, n in enumerate(names) if n.startswith("cp == ")]
        assert Xb[:, cp].sum(axis=1).tolist() == [1] * 6  # one-hot
        assert Xb[3, names.index("code == 1")] == 0 and Xb[3, names.index("code == 2")] == 0
    # integer codes seen later as floats still match their category
    fitted = MedianBinarizer(categorical=["cp"]).fit(X[["cp"]])
    assert fitted.transform(pd.DataFrame({"cp": [2.0, 7.0]})).tolist() == [[0, 0, 1, 0], [0, 0, 0, 0]]


def test_declared_categorical_errors():
    X = pd.DataFrame({"a": [1, 2, 3], "b": [0, 1, 0]})
    with pytest.raises(ValueError, match="categorical.*'z' is not a column"):
        MedianBinarizer(categorical=["z"]).fit(X)
    with pytest.raises(ValueError, match="categorical: column position 5"):
        MedianBinarizer(categorical=[5]).fit(X)
    with pytest.raises(TypeError, match="categorical must list"):
        MedianBinarizer(categorical=[1.5]).fit(X)
