"""m-of-n checklists (rule="m_of_n") from dask partitions without gathering the rows: every LP
of the row groups the partitions rebuild reaches the in-memory optimum (random data with weights,
class costs and the integer program), the checklist is the in-memory choice over those LP
solutions, and the fit equals the in-memory one on planted and bundled data (synchronous
scheduler and a small LocalCluster); the driver receives sums per row group, never rows."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pyarrow (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules import LPRuleClassifier, load_dataset  # noqa: E402
from logicrules.fca.dask_counts import DaskCounts  # noqa: E402
from logicrules.lp import dask_mofn  # noqa: E402
from logicrules.lp.dask_mofn import learn_checklist_on_partitions  # noqa: E402
from logicrules.lp.mofn_rows import ChecklistRows, best_checklist  # noqa: E402
from logicrules.lp.rules import learn_checklist  # noqa: E402
from tests.lp.test_lp_dask import _dask, _random_case  # noqa: E402
from tests.lp.test_lp_dask_weights import _dask_weights, _weights  # noqa: E402


PLANTED = "at least 2 of: v0, v1, v2, v3"


def _no_rows(monkeypatch):
    """Make gathering the distinct rows of a class on the driver fail."""
    def refuse(*args, **kwargs):
        raise AssertionError("the rows were gathered on the driver")

    monkeypatch.setattr(DaskCounts, "class_rows", refuse)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), n=st.integers(20, 300), m=st.integers(1, 8), parts=st.integers(1, 4),
       max_m=st.integers(1, 3), rounding=st.sampled_from(["threshold", "exact"]),
       kind=st.sampled_from([None, "integer", "float"]), costs=st.sampled_from([(1.0, 1.0), (3.0, 0.5)]),
       lam=st.sampled_from([0.001, 0.02, 0.1]))
def test_every_lp_reaches_the_in_memory_optimum(seed, n, m, parts, max_m, rounding, kind, costs, lam):
    X, y = _random_case(seed, n, m)
    bits = X.to_numpy().astype(bool)
    w = None if kind is None else _weights(seed, n, kind)
    rows = ChecklistRows.from_dense(bits, y.astype(bool), w)
    lam_abs = lam * (costs[0] * rows.weights[rows.positive].sum() + costs[1] * rows.weights[~rows.positive].sum())
    expected = learn_checklist(rows, lam_abs, max_m=max_m, weights=costs, rounding=rounding)
    chunk = -(-n // parts)
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(chunk, m)), da.from_array(y, chunks=chunk),
                        weights=None if w is None else da.from_array(w, chunks=chunk))
    with dask.config.set(scheduler="synchronous"):
        got = learn_checklist_on_partitions(counts, lam_abs, max_m=max_m, weights=costs, rounding=rounding)
    assert got.optimal and set(got.lp_objectives) == set(expected.lp_objectives)
    scale = max(1.0, float(rows.weights.sum()) * max(costs))
    for k, value in expected.lp_objectives.items():
        assert got.lp_objectives[k] == pytest.approx(value, abs=1e-6 * scale)
    # the choice over the LP solutions found is exactly the in-memory one over the same solutions
    solutions = _solutions(counts, lam_abs, max_m, costs, rounding)
    value, columns, chosen_m = best_checklist(rows, solutions, lam_abs, *costs)
    assert got.objective == pytest.approx(value, abs=1e-9 * scale)
    assert (got.columns.tolist(), got.m) == (columns.tolist(), chosen_m)


def _solutions(counts, lam_abs, max_m, costs, rounding):
    """The LP solutions of the fit from partitions (run again: they are deterministic)."""
    found = {}
    original = dask_mofn.choose_checklist

    def spy(plans, *args, **kwargs):
        found.update({k + 1: plan[0] for k, plan in enumerate(plans)})
        return original(plans, *args, **kwargs)

    dask_mofn.choose_checklist = spy
    try:
        with dask.config.set(scheduler="synchronous"):
            learn_checklist_on_partitions(counts, lam_abs, max_m=max_m, weights=costs, rounding=rounding)
    finally:
        dask_mofn.choose_checklist = original
    return found


@pytest.mark.parametrize("rounding, n", [("threshold", 6000), ("exact", 1500)])
def test_a_planted_checklist_without_gathering_rows(rounding, n, monkeypatch):
    """2 of 4 planted literals with 2% noise: formula, objective, rules and
    predictions from 4 partitions are the in-memory ones; the driver never gathers rows and
    holds far fewer row groups than there are distinct rows."""
    _no_rows(monkeypatch)
    rng = np.random.default_rng(5)
    m = 12
    bits = rng.random((n, m)) < 0.5
    y = (bits[:, :4].sum(axis=1) >= 2) ^ (rng.random(n) < 0.02)
    X = pd.DataFrame(bits.astype(np.int8), columns=[f"v{j}" for j in range(m)])
    kwargs = dict(rule="m_of_n", binarizer="passthrough", lam=0.002, rounding=rounding)
    expected = LPRuleClassifier(**kwargs).fit(X, y.astype(int))
    Xd, yd = _dask(X, y.astype(int), 4)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs).fit(Xd, yd)
        predicted = np.asarray(got.predict(Xd).compute())
    assert str(got.formula_) == str(expected.formula_) == PLANTED
    assert got.lp_result_["objective"] == pytest.approx(expected.lp_result_["objective"], abs=1e-9)
    pd.testing.assert_frame_equal(got.rules_, expected.rules_)
    np.testing.assert_array_equal(predicted, expected.predict(X))
    groups = got.lp_result_["rows_sampled"]  # the most row groups of a final LP
    distinct = np.unique(np.column_stack([bits, y]), axis=0).shape[0]
    assert 4 * groups < distinct  # the constraints the driver holds: far fewer than the distinct rows


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), parts=st.integers(2, 4), kind=st.sampled_from([None, "integer", "huge"]),
       class_weight=st.sampled_from([None, "balanced", {1: 3.0}]), array=st.booleans())
def test_estimator_fits_with_weights_and_class_costs(seed, parts, kind, class_weight, array):
    X, y = _random_case(seed, 200, 5)
    w = None if kind is None else _weights(seed, 200, kind)
    kwargs = dict(rule="m_of_n", binarizer="passthrough", max_m=2, class_weight=class_weight)
    expected = LPRuleClassifier(**kwargs).fit(X.to_numpy() if array else X, y, sample_weight=w)
    Xd, yd = _dask(X, y, parts, array)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs).fit(
            Xd, yd, **({} if w is None else {"sample_weight": _dask_weights(w, X, parts, array)}))
    local = X.to_numpy() if array else X
    np.testing.assert_array_equal(np.asarray(got.predict(Xd).compute()), got.predict(local))
    if str(got.formula_) != str(expected.formula_):
        # an LP with several optimal solutions gave another one, whose thresholds give another
        # checklist (the LP optima are equal and the choice over the solutions exact:
        # test_every_lp_reaches_the_in_memory_optimum)
        return
    assert got.lp_result_["objective"] == pytest.approx(expected.lp_result_["objective"], rel=1e-9, abs=1e-9)
    np.testing.assert_array_equal(got.predict(local), expected.predict(local))


@pytest.fixture(scope="module")
def breast_cancer():
    X, y = load_dataset("breast_cancer_wisconsin")
    return X, y, LPRuleClassifier(rule="m_of_n").fit(X, y)  # its binarizer, lam and max_m


def test_bundled_data_synchronous_scheduler(breast_cancer, monkeypatch):
    """breast_cancer from 4 partitions: the binarizer the in-memory one, every LP of the fit the
    in-memory optimum on the binarized rows (its solutions, and so the checklist, may be other
    optimal ones), the checklist the exact choice over them, predictions of dask and in-memory
    input equal; no rows gathered."""
    X, y, expected = breast_cancer
    Xd, yd = _dask(X, y, 4)
    _no_rows(monkeypatch)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(rule="m_of_n").fit(Xd, yd)
        predicted = np.asarray(got.predict(Xd).compute())
    assert [c.name for c in got.binarizer_.conditions_] == [c.name for c in expected.binarizer_.conditions_]
    np.testing.assert_array_equal(predicted, got.predict(X))
    bits, target = got.binarizer_.transform(X), np.asarray(y) == 1
    rows = ChecklistRows.from_dense(bits, target)
    lam_abs = expected.lam * rows.weights.sum()
    memory = learn_checklist(rows, lam_abs, max_m=expected.max_m)
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(175, bits.shape[1])),
                        da.from_array(target.astype(int), chunks=175))
    with dask.config.set(scheduler="synchronous"):
        fit = learn_checklist_on_partitions(counts, lam_abs, max_m=expected.max_m)
        solutions = _solutions(counts, lam_abs, expected.max_m, (1.0, 1.0), "threshold")
    for k, value in memory.lp_objectives.items():
        assert fit.lp_objectives[k] == pytest.approx(value, abs=1e-6 * len(y))
    value, columns, m = best_checklist(rows, solutions, lam_abs)
    assert (fit.columns.tolist(), fit.m, fit.objective) == (columns.tolist(), m, pytest.approx(value, abs=1e-9))
    assert got.lp_result_["objective"] == pytest.approx(fit.objective, abs=1e-9)


def test_bundled_data_on_a_local_cluster(breast_cancer, dask_client):
    """The same fit on a LocalCluster as with the synchronous scheduler (the same passes)."""
    X, y, _ = breast_cancer
    got = LPRuleClassifier(rule="m_of_n").fit(*_dask(X, y, 3))
    with dask.config.set(scheduler="synchronous"):
        local = LPRuleClassifier(rule="m_of_n").fit(*_dask(X, y, 3))
    assert str(got.formula_) == str(local.formula_)
    np.testing.assert_array_equal(np.asarray(got.predict(_dask(X, y, 3)[0]).compute()), got.predict(X))
