"""LPRuleClassifier.fit from dask partitions equals the fit of the same rows in memory: the LP
optimum, the rule and the predictions (synchronous scheduler and a small LocalCluster), on
random and bundled data; the distributed clause LP reaches the exact optimum through row
generation and pricing. Weights, class costs and lam="cv" on dask: test_lp_dask_weights.py."""

import re

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
from logicrules.lp.dask_clause import sample_fraction, solve_clause_on_partitions  # noqa: E402
from logicrules.lp.model import build_problem  # noqa: E402
from logicrules.lp.solvers import solve_problem  # noqa: E402


def _dask(X: pd.DataFrame, y, parts: int, array: bool = False):
    if array:  # row chunks of a dask array (not necessarily equal)
        chunks = -(-len(X) // parts)
        return da.from_array(X.to_numpy(), chunks=(chunks, X.shape[1])), da.from_array(np.asarray(y), chunks=chunks)
    return dd.from_pandas(X, npartitions=parts), dd.from_pandas(pd.Series(np.asarray(y), index=X.index), npartitions=parts)


def _same_fit(got, expected, X, Xd, integer_ties=False):
    """The same LP optimum, rule and predictions. With ``integer_ties`` (``rounding="exact"``) an
    integer program with several optimal rules may return another one: then it must be optimal
    too (the same integer optimum, evaluated on all rows, and the same training objective).
    Otherwise a different rule passes only when it is the same rule over copies of columns
    (``_random_case`` duplicates one): then the LP has several optima, and which one HiGHS returns
    may depend on the platform, but both rules classify every row alike."""
    assert got.lp_result_["lp_objective"] == pytest.approx(expected.lp_result_["lp_objective"], abs=1e-6 * len(X))
    assert got.lp_result_["objective"] == pytest.approx(expected.lp_result_["objective"], abs=1e-9)
    if integer_ties and str(got.formula_) != str(expected.formula_):
        return
    predicted = got.predict(Xd)
    assert type(predicted).__module__.startswith("dask")
    np.testing.assert_array_equal(np.asarray(predicted.compute()), expected.predict(X))
    np.testing.assert_array_equal(got.cell_counts_, expected.cell_counts_)
    if str(got.formula_) != str(expected.formula_):
        assert _over_copied_columns(got.formula_, expected.formula_, X)
        pd.testing.assert_frame_equal(got.rules_.drop(columns="rule"), expected.rules_.drop(columns="rule"))
        return
    assert str(got.formula_) == str(expected.formula_)
    pd.testing.assert_frame_equal(got.rules_, expected.rules_)
    np.testing.assert_allclose(np.asarray(got.predict_proba(Xd).compute()), expected.predict_proba(X))


def _over_copied_columns(a, b, X) -> bool:
    """Whether formulas ``a`` and ``b`` print alike once every column is renamed to the first
    column equal to it (``X`` the 0/1 rows: a DataFrame, or an array with columns ``x0, x1, ...``)."""
    names = list(X.columns) if isinstance(X, pd.DataFrame) else [f"x{j}" for j in range(X.shape[1])]
    values = np.asarray(X)
    first = {name: names[int(np.flatnonzero((values == values[:, [j]]).all(axis=0))[0])]
             for j, name in enumerate(names)}

    def canonical(formula) -> str:
        return re.sub(r"\b\w+\b", lambda word: first.get(word.group(0), word.group(0)), str(formula))
    return canonical(a) == canonical(b)


def _random_case(seed: int, n: int, m: int):
    rng = np.random.default_rng(seed)
    bits = rng.random((n, m)) < rng.uniform(0.1, 0.9, m)
    if m > 2 and seed % 3 == 0:
        bits[:, -1] = bits[:, 0]  # a duplicated column: a degenerate LP
    y = (bits[:, 0] | (bits[:, min(1, m - 1)] & bits[:, min(2, m - 1)])) ^ (rng.random(n) < 0.15)
    y[:2] = [True, False]  # both classes
    return pd.DataFrame(bits.astype(np.int8), columns=[f"v{j}" for j in range(m)]), y.astype(int)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), n=st.integers(20, 240), m=st.integers(1, 12), parts=st.integers(1, 4),
       rule=st.sampled_from(["or", "and", "dnf", "cnf"]), rounding=st.sampled_from(["threshold", "exact"]),
       lam=st.sampled_from([0.001, 0.005, 0.02, 0.1]), sampling=st.sampled_from([None, 0.05, 0.3, 1.0]),
       array=st.booleans(), persist=st.booleans())
def test_random_clauses_and_covering_rule_sets_equal_the_in_memory_fit(seed, n, m, parts, rule, rounding, lam,
                                                                      sampling, array, persist):
    X, y = _random_case(seed, n, m)
    if rule in ("dnf", "cnf"):  # a tie of a term's integer program would change the terms after it
        rounding = "threshold"
    kwargs = dict(rule=rule, lam=lam, rounding=rounding, binarizer="passthrough", method="covering", max_clauses=2)
    expected = LPRuleClassifier(**kwargs).fit(X.to_numpy() if array else X, y)
    Xd, yd = _dask(X, y, parts, array)
    with dask.config.set({"scheduler": "synchronous", "logicrules.persist-bits": persist}):  # bits kept or re-read
        got = LPRuleClassifier(**kwargs, row_sampling=sampling, random_state=seed).fit(Xd, yd)
        _same_fit(got, expected, X.to_numpy() if array else X, Xd, integer_ties=rounding == "exact")


@pytest.fixture(scope="module")
def breast_cancer():
    X, y = load_dataset("breast_cancer_wisconsin")
    return X, y, {rule: LPRuleClassifier(rule=rule).fit(X, y) for rule in ("or", "and")}


@pytest.mark.parametrize("rule", ["or", "and"])
def test_bundled_data_synchronous_scheduler(breast_cancer, rule):
    X, y, expected = breast_cancer
    Xd, yd = _dask(X, y, 4)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(rule=rule, random_state=0).fit(Xd, yd)
        assert [c.name for c in got.binarizer_.conditions_] == [c.name for c in expected[rule].binarizer_.conditions_]
        _same_fit(got, expected[rule], X, Xd)
        assert float(got.score(Xd, yd).compute()) == pytest.approx(expected[rule].score(X, y))


def test_bundled_data_on_a_local_cluster(breast_cancer, dask_client):
    X, y, expected = breast_cancer
    Xd, yd = _dask(X, y, 3)
    got = LPRuleClassifier(rule="or", random_state=1, row_sampling=0.2).fit(Xd, yd)
    _same_fit(got, expected["or"], X, Xd)
    X2, y2 = _random_case(5, 300, 8)
    expected2 = LPRuleClassifier(rule="and", binarizer="passthrough").fit(X2, y2)
    Xd2, yd2 = _dask(X2, y2, 3)
    _same_fit(LPRuleClassifier(rule="and", binarizer="passthrough", random_state=2).fit(Xd2, yd2), expected2, X2, Xd2)


def _full_optimum(bits, y, lam_abs):
    return solve_problem(build_problem(bits[y], bits[~y], lam_abs)).objective


def test_row_generation_and_pricing_reach_the_full_lp_optimum():
    """A small sample (no certificate from it), more than 64 surviving columns (a working set,
    columns priced back in): the optimum of the full LP all the same."""
    rng = np.random.default_rng(3)
    n, m = 1600, 100
    y = np.arange(n) < 1000
    bits = rng.random((n, m)) < np.where(y[:, None], 0.01, 0.03)
    bits[np.flatnonzero(y), np.flatnonzero(y) % m] = True  # every column is needed for its own positives
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(400, m)), da.from_array(y.astype(int), chunks=400))
    with dask.config.set(scheduler="synchronous"):
        fit, lam_abs = solve_clause_on_partitions(counts, 0.0002, row_sampling=0.02, seed=1, screening=False)
    details = fit.result.details
    assert not details["certified_by_sample"] and details["row_rounds"] >= 2 and details["priced_in"] > 0
    assert fit.result.objective == pytest.approx(_full_optimum(bits, y, lam_abs), abs=1e-6 * n)
    assert fit.result.lower_bound == pytest.approx(fit.result.objective, abs=1e-6 * n)
    expected = LPRuleClassifier(lam=0.0002, binarizer="passthrough").fit(bits.astype(int), y)
    assert fit.result.objective == pytest.approx(expected.lp_result_["lp_objective"], abs=1e-6 * n)


def test_sample_fraction():
    assert sample_fraction(0.3, 10) == 0.3
    assert sample_fraction(None, 1000) == 1.0
    assert sample_fraction("auto", 10**8) == pytest.approx(1e-3)


@pytest.mark.parametrize("kwargs", [dict(rule="dnf", max_term_size=4), dict(rule="m_of_n", max_m=2),
                                    dict(rule="dnf", method="covering", max_clauses=3),
                                    dict(rule="cnf", method="covering", rounding="exact", row_sampling=0.2)])
def test_rule_sets_and_checklists(kwargs):
    """Column generation of terms of 4 literals and checklists from the partitions; sequential
    covering with one clause LP over the partitions per term (more: test_lp_dask_colgen.py,
    test_lp_dask_mofn.py)."""
    X, y = _random_case(11, 150, 5)
    expected = LPRuleClassifier(**kwargs, binarizer="passthrough").fit(X, y)
    Xd, yd = _dask(X, y, 3)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs, binarizer="passthrough", random_state=0).fit(Xd, yd)
        assert str(got.formula_) == str(expected.formula_)
        assert got.lp_result_["objective"] == pytest.approx(expected.lp_result_["objective"], abs=1e-9)
        np.testing.assert_array_equal(np.asarray(got.predict(Xd).compute()), expected.predict(X))


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_covering_rule_sets_on_bundled_data(breast_cancer, rule):
    X, y, _ = breast_cancer
    expected = LPRuleClassifier(rule=rule, method="covering").fit(X, y)
    Xd, yd = _dask(X, y, 4)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(rule=rule, method="covering", random_state=0).fit(Xd, yd)
        _same_fit(got, expected, X, Xd)


@pytest.mark.parametrize("kwargs", [dict(rule="or"), dict(rule="dnf", method="covering")])
def test_more_than_two_classes_one_rule_per_class(kwargs):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(240, 3)), columns=["a", "b", "c"])
    y = pd.Series(np.where(X["a"] > 0.5, "hi", np.where(X["b"] < -0.3, "lo", "mid")))
    expected = LPRuleClassifier(**kwargs).fit(X, y)
    Xd, yd = dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs, random_state=0).fit(Xd, yd)
        assert {k: str(f) for k, f in got.formula_.items()} == {k: str(f) for k, f in expected.formula_.items()}
        pd.testing.assert_frame_equal(got.rules_, expected.rules_)
        np.testing.assert_array_equal(np.asarray(got.predict(Xd).compute()), expected.predict(X))
        np.testing.assert_allclose(np.asarray(got.predict_proba(Xd).compute()), expected.predict_proba(X))


def test_progress_lines_per_pass(capsys):
    X, y = _random_case(4, 120, 4)
    with dask.config.set(scheduler="synchronous"):
        model = LPRuleClassifier(binarizer="passthrough", verbose=1, row_sampling=0.1, random_state=0).fit(*_dask(X, y, 2))
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dask pass")]
    assert len(lines) == model.lp_result_["n_passes"] >= 4
    assert any("row sample" in line for line in lines) and any("dual extension" in line for line in lines)
