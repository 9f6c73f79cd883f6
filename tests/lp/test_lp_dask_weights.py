"""LPRuleClassifier.fit from dask partitions with ``sample_weight``, ``class_weight`` and
``lam="cv"`` equals the in-memory fit with the same weights: the LP optimum, the training
objective, the rule, its statistics and the predictions (synchronous scheduler with several
partitions and a small LocalCluster), on random and bundled data. ``lam="cv"`` on dask uses
folds drawn inside the partitions (``PartitionFolds``); its reference is the in-memory
``lam="cv"`` with those same folds in place of ``StratifiedKFold``."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules import LPRuleClassifier, PartitionFolds, load_dataset  # noqa: E402
from logicrules.fca.dask_counts import DaskCounts  # noqa: E402
from logicrules.ideal.split import split_seed  # noqa: E402
from logicrules.lp import estimator as lp_estimator  # noqa: E402
from logicrules.lp.dask_clause import solve_clause_on_partitions  # noqa: E402
from logicrules.lp.model import build_problem  # noqa: E402
from logicrules.lp.solvers import solve_problem  # noqa: E402
from tests.lp.test_lp_dask import _dask, _random_case, _same_fit  # noqa: E402


def _dask_weights(weights, X, parts, array):
    if array:
        return da.from_array(np.asarray(weights, dtype=np.float64), chunks=-(-len(X) // parts))
    return dd.from_pandas(pd.Series(np.asarray(weights, dtype=np.float64), index=X.index), npartitions=parts)


def _weights(seed, n, kind):
    rng = np.random.default_rng(seed + 17)
    if kind == "integer":  # exact sums in any order: the same rule as in memory
        w = rng.integers(0, 4, n).astype(np.float64)
        w[:2] = 1.0  # both classes keep a row
        return w
    if kind == "huge":  # outside [1e-6, 1e6]: divided by the largest, as in memory
        return 1e9 * (1.0 + rng.integers(0, 3, n))
    return rng.uniform(0.1, 3.0, n)


def _fit_both(kwargs, X, y, w, parts, array=False, seed=0):
    expected = LPRuleClassifier(**kwargs).fit(X.to_numpy() if array else X, y, sample_weight=w)
    Xd, yd = _dask(X, y, parts, array)
    got = LPRuleClassifier(**kwargs, random_state=seed).fit(Xd, yd, sample_weight=_dask_weights(w, X, parts, array))
    return got, expected, (X.to_numpy() if array else X), Xd


def _same_weighted_fit(got, expected, X, Xd, exact_sums, integer_ties=False):
    if exact_sums:
        _same_fit(got, expected, X, Xd, integer_ties=integer_ties)
        return
    scale = max(1.0, abs(expected.lp_result_["objective"]))
    assert got.lp_result_["lp_objective"] == pytest.approx(expected.lp_result_["lp_objective"], rel=1e-7, abs=1e-7 * scale)
    assert got.lp_result_["objective"] == pytest.approx(expected.lp_result_["objective"], rel=1e-7, abs=1e-7 * scale)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), n=st.integers(20, 200), m=st.integers(1, 10), parts=st.integers(1, 4),
       rule=st.sampled_from(["or", "and", "dnf", "cnf"]), rounding=st.sampled_from(["threshold", "exact"]),
       lam=st.sampled_from([0.001, 0.01, 0.05]), sampling=st.sampled_from([None, 0.1, 1.0]),
       kind=st.sampled_from(["integer", "integer", "huge", "float"]),
       class_weight=st.sampled_from([None, "balanced", {1: 3.0}, {0: 2.5, 1: 0.5}]), array=st.booleans())
def test_random_weighted_fits_equal_the_in_memory_fit(seed, n, m, parts, rule, rounding, lam, sampling, kind,
                                                      class_weight, array):
    X, y = _random_case(seed, n, m)
    if rule in ("dnf", "cnf"):
        rounding = "threshold"
    kwargs = dict(rule=rule, lam=lam, rounding=rounding, binarizer="passthrough", method="covering", max_clauses=2,
                  class_weight=class_weight, row_sampling=sampling)
    with dask.config.set(scheduler="synchronous"):
        got, expected, Xm, Xd = _fit_both(kwargs, X, y, _weights(seed, n, kind), parts, array, seed)
        _same_weighted_fit(got, expected, Xm, Xd, kind != "float", integer_ties=rounding == "exact")


def test_weighted_row_generation_and_pricing_reach_the_full_lp_optimum():
    """Weighted rows and unequal error costs, a small sample, more than 64 surviving columns:
    the optimum of the full weighted LP, certified by the dual."""
    rng = np.random.default_rng(3)
    n, m = 1600, 100
    y = np.arange(n) < 1000
    bits = rng.random((n, m)) < np.where(y[:, None], 0.01, 0.03)
    bits[np.flatnonzero(y), np.flatnonzero(y) % m] = True  # every column is needed for its own positives
    w = rng.integers(1, 6, n).astype(np.float64)
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(400, m)), da.from_array(y.astype(int), chunks=400),
                        weights=da.from_array(w, chunks=400))
    with dask.config.set(scheduler="synchronous"):
        fit, lam_abs = solve_clause_on_partitions(counts, 0.0001, row_sampling=0.02, seed=1, screening=False,
                                                  error_costs=(2.0, 0.5))
    assert lam_abs == pytest.approx(0.0001 * (2.0 * w[y].sum() + 0.5 * w[~y].sum()))
    details = fit.result.details
    assert not details["certified_by_sample"] and details["row_rounds"] >= 2 and details["priced_in"] > 0
    full = solve_problem(build_problem(bits[y], bits[~y], lam_abs, weights=(2.0, 0.5), pos_weight=w[y],
                                       neg_weight=w[~y])).objective
    assert fit.result.objective == pytest.approx(full, rel=1e-7)
    assert fit.result.lower_bound == pytest.approx(fit.result.objective, rel=1e-7)


@pytest.mark.parametrize("kwargs", [dict(rule="dnf", max_term_size=2), dict(rule="cnf", max_term_size=2),
                                    dict(rule="m_of_n", max_m=2)])
@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_weighted_rule_sets_and_checklists_from_gathered_rows(kwargs, class_weight):
    X, y = _random_case(11, 150, 5)
    w = _weights(3, 150, "integer")
    with dask.config.set(scheduler="synchronous"):
        got, expected, _, Xd = _fit_both({**kwargs, "binarizer": "passthrough", "class_weight": class_weight},
                                         X, y, w, 3)
        assert str(got.formula_) == str(expected.formula_)
        assert got.lp_result_["objective"] == pytest.approx(expected.lp_result_["objective"], abs=1e-9)
        pd.testing.assert_frame_equal(got.rules_, expected.rules_)
        np.testing.assert_allclose(got.cell_counts_, expected.cell_counts_)
        np.testing.assert_array_equal(np.asarray(got.predict(Xd).compute()), expected.predict(X))


@pytest.fixture(scope="module")
def breast_cancer():
    X, y = load_dataset("breast_cancer_wisconsin")
    return X, y, 1.0 + np.arange(len(y)) % 3


@pytest.mark.parametrize("kwargs", [dict(rule="or", class_weight="balanced"), dict(rule="and"),
                                    dict(rule="dnf", method="covering", class_weight={"malignant": 2.0})])
def test_weighted_bundled_data_synchronous_scheduler(breast_cancer, kwargs):
    X, y, w = breast_cancer
    if "class_weight" in kwargs and isinstance(kwargs["class_weight"], dict):
        kwargs = {**kwargs, "class_weight": {np.unique(y)[-1]: 2.0}}
    with dask.config.set(scheduler="synchronous"):
        got, expected, _, Xd = _fit_both(kwargs, X, y, w, 4)
        assert [c.name for c in got.binarizer_.conditions_] == [c.name for c in expected.binarizer_.conditions_]
        _same_fit(got, expected, X, Xd)


def test_weighted_bundled_data_on_a_local_cluster(breast_cancer, dask_client):
    X, y, w = breast_cancer
    got, expected, _, Xd = _fit_both(dict(rule="or", class_weight="balanced", row_sampling=0.2), X, y, w, 3, seed=1)
    _same_fit(got, expected, X, Xd)


@pytest.mark.parametrize("class_weight", [{"hi": 3.0, "lo": 0.5}, "balanced"])
def test_weighted_multiclass_one_rule_per_class(class_weight):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(240, 3)), columns=["a", "b", "c"])
    y = pd.Series(np.where(X["a"] > 0.5, "hi", np.where(X["b"] < -0.3, "lo", "mid")))
    w = rng.integers(1, 4, 240).astype(np.float64)
    expected = LPRuleClassifier(class_weight=class_weight).fit(X, y, sample_weight=w)
    Xd, yd = dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(class_weight=class_weight, random_state=0).fit(
            Xd, yd, sample_weight=dd.from_pandas(pd.Series(w), npartitions=3))
        assert {k: str(f) for k, f in got.formula_.items()} == {k: str(f) for k, f in expected.formula_.items()}
        pd.testing.assert_frame_equal(got.rules_, expected.rules_)
        for label in expected.estimators_:
            np.testing.assert_allclose(got.estimators_[label].cell_counts_, expected.estimators_[label].cell_counts_)
        np.testing.assert_allclose(np.asarray(got.predict_proba(Xd).compute()), expected.predict_proba(X))


def test_multiclass_class_weight_with_unknown_labels_is_refused():
    X, y = _random_case(2, 60, 3)
    y = np.where(np.arange(60) % 3 == 0, 2, y)
    with pytest.raises(ValueError, match="class_weight has labels not in y"):
        LPRuleClassifier(class_weight={7: 2.0}, binarizer="passthrough").fit(*_dask(X, y, 2))


# ------------------------------------------------------------------------------------ lam="cv"
def _partition_folds_in_memory(monkeypatch, lengths):
    """The in-memory lam="cv" on ``PartitionFolds`` of the dask partitioning (its reference)."""
    def folds(n_splits, shuffle, random_state):
        return PartitionFolds(n_splits, split_seed(random_state), lengths=lengths)

    monkeypatch.setattr(lp_estimator, "StratifiedKFold", folds)


def _cv_case(seed, n=300, m=10):
    """Noisy rows whose best lam depends on the folds (the in-memory StratifiedKFold often
    chooses another one than PartitionFolds here)."""
    rng = np.random.default_rng(seed)
    bits = rng.random((n, m)) < 0.4
    y = (bits[:, :5].sum(axis=1) + rng.normal(0, 1.0, n) > 2.2).astype(int)
    return pd.DataFrame(bits.astype(np.int8), columns=[f"v{j}" for j in range(m)]), y


@pytest.mark.parametrize("kwargs, seed", [(dict(rule="or"), 0), (dict(rule="or"), 5),
                                          (dict(rule="and", class_weight="balanced"), 2),
                                          (dict(rule="dnf", method="covering", max_clauses=2), 0),
                                          (dict(rule="dnf", max_term_size=2), 5), (dict(rule="m_of_n", max_m=2), 2)])
@pytest.mark.parametrize("weighted", [False, True])
def test_lam_cv_equals_the_in_memory_cv_on_the_same_partition_folds(monkeypatch, kwargs, seed, weighted):
    X, y = _cv_case(seed)
    w = 1.0 + np.arange(len(y)) % 4 if weighted else None
    parts = 3
    Xd, yd = _dask(X, y, parts)
    wd = None if w is None else _dask_weights(w, X, parts, False)
    lengths = [int(n) for n in Xd.map_partitions(len).compute()]
    kwargs = {**kwargs, "lam": "cv", "binarizer": "passthrough", "random_state": seed}
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs).fit(Xd, yd, **({} if w is None else {"sample_weight": wd}))
        if got._column_generation():
            # the folds' rule sets come from their own pools (the LP bounds are the in-memory ones),
            # so the scores and the lam may differ: the final fit's certified LP bound is that of
            # the in-memory fit at the lam chosen
            expected = LPRuleClassifier(**{**kwargs, "lam": got.lam_}).fit(X, y, sample_weight=w)
            assert got.lam_ in lp_estimator.LAM_GRID and got.lp_result_["certified"]
            assert got.lp_result_["lp_bound"] == pytest.approx(expected.lp_result_["lp_bound"], rel=1e-9)
            return
        _partition_folds_in_memory(monkeypatch, lengths)
        expected = LPRuleClassifier(**kwargs).fit(X, y, sample_weight=w)
        assert got.lam_ == expected.lam_
        assert str(got.formula_) == str(expected.formula_)
        assert got.lp_result_["objective"] == pytest.approx(expected.lp_result_["objective"], abs=1e-9)
        np.testing.assert_array_equal(np.asarray(got.predict(Xd).compute()), expected.predict(X))


def test_lam_cv_on_bundled_data_and_a_local_cluster(monkeypatch, breast_cancer, dask_client):
    X, y, w = breast_cancer
    Xd, yd = _dask(X, y, 2)
    lengths = [int(n) for n in Xd.map_partitions(len).compute()]
    got = LPRuleClassifier(lam="cv", random_state=3).fit(Xd, yd, sample_weight=_dask_weights(w, X, 2, False))
    _partition_folds_in_memory(monkeypatch, lengths)
    expected = LPRuleClassifier(lam="cv", random_state=3).fit(X, y, sample_weight=w)
    assert got.lam_ == expected.lam_
    _same_fit(got, expected, X, Xd)


def test_lam_cv_with_a_tiny_class_takes_the_middle_of_the_grid():
    X, y = _random_case(1, 40, 3)
    y = np.zeros(40, dtype=int)
    y[0] = 1
    with dask.config.set(scheduler="synchronous"):
        model = LPRuleClassifier(lam="cv", binarizer="passthrough").fit(*_dask(X, y, 2))
    assert model.lam_ == lp_estimator.LAM_GRID[len(lp_estimator.LAM_GRID) // 2]


def test_covering_steps_with_tied_clause_lps_break_ties_as_in_memory():
    """Found by the random test above (seed 3598): CNF covering with class weights, one partition.
    The second step's clause LP (optimum 13.7032) rounds to two tied clauses, one of them the
    first step's clause: both paths take the one that lowers the rule set's objective (12.0064),
    never the repeated clause (which used to stop the in-memory covering at 13.7032)."""
    seed, n, m = 3598, 165, 7
    X, y = _random_case(seed, n, m)
    kwargs = dict(rule="cnf", lam=0.001, rounding="threshold", binarizer="passthrough", method="covering",
                  max_clauses=2, class_weight={0: 2.5, 1: 0.5}, row_sampling=None)
    with dask.config.set(scheduler="synchronous"):
        got, expected, Xm, Xd = _fit_both(kwargs, X, y, _weights(seed, n, "integer"), 1, False, seed)
        _same_fit(got, expected, Xm, Xd)
    assert expected.lp_result_["objective"] == pytest.approx(12.0064)
    assert (expected.rules_["part"] == "term").sum() == 2  # two clauses (the CNF reads as v0 OR (v1 AND v2))


def test_sampled_covering_with_several_optimal_lp_solutions_learns_an_equally_good_rule():
    """Found by the random test above (seed 7395): CNF covering, weights beyond 1e6, a 10% row
    sample, one partition. Column ``v8`` is a copy of ``v0`` (``_random_case`` duplicates the
    first column when the seed is a multiple of 3), so the clause LP has several optimal
    solutions, and which one HiGHS returns depends on the order of its rows and on the platform:
    on one machine dask learns ``v0`` and the in-memory fit ``v8``, on another both learn the
    same. Either way both paths reach the same LP optimum and the same rule objective (24.799),
    and the two rules classify every row alike, with the same weighted statistics."""
    seed, n, m = 7395, 194, 9
    X, y = _random_case(seed, n, m)
    assert (X["v8"] == X["v0"]).all()
    kwargs = dict(rule="cnf", lam=0.001, rounding="threshold", binarizer="passthrough", method="covering",
                  max_clauses=2, class_weight=None, row_sampling=0.1)
    with dask.config.set(scheduler="synchronous"):
        got, expected, Xm, Xd = _fit_both(kwargs, X, y, _weights(seed, n, "huge"), 1, False, seed)
        assert expected.lp_result_["objective"] == pytest.approx(24.799, abs=1e-3)
        assert {str(got.formula_), str(expected.formula_)} <= {"v0", "v8"}
        _same_fit(got, expected, Xm, Xd)
