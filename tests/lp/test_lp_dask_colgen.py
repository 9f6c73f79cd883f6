"""Column generation (method="cg") from dask partitions without gathering the rows: both exact
pricings (on driver-held rows, and with the master's dual spread over every row, terms of up
to 4 literals) against brute force over every conjunction, and the fit's certified LP bound
equal to the in-memory fit's (random data with weights, class costs and budgets, planted
quadruples, bundled data, a small LocalCluster); the master over groups of rows under a tight
memory limit."""

import functools
import itertools

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
from logicrules.fca.counts import RowMultiset  # noqa: E402
from logicrules.lp.dask_colgen import MostViolated, _Pool, learn_rule_set_cg_on_partitions  # noqa: E402
from logicrules.lp.dask_gains import GroupDual, Positives, price_counted  # noqa: E402
from logicrules.lp.dask_passes import ClauseRows, row_keys  # noqa: E402
from logicrules.lp.dask_pricing import Negatives, price  # noqa: E402
from logicrules.lp.master import RuleSetProblem, conjunction_extents  # noqa: E402
from tests.lp.test_lp_dask import _dask, _random_case  # noqa: E402
from tests.lp.test_lp_dask_weights import _dask_weights, _weights  # noqa: E402


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), m=st.integers(1, 7), max_size=st.integers(1, 4), complement=st.booleans(),
       weighted=st.booleans(), nu=st.sampled_from([0.0, 0.3]), tie=st.booleans(), c_neg=st.sampled_from([0.02, 0.7]))
def test_pricing_finds_every_conjunction_of_negative_reduced_cost(seed, m, max_size, complement, weighted, nu, tie,
                                                                  c_neg):
    """Brute force over every conjunction of at most max_size literals (the empty one too): the
    least reduced cost and every negative one, with L counted over the partitions' negatives;
    with top_k=3 (candidates pruned at the third least value known) the three least."""
    _check_pricing(seed, m, max_size, complement, weighted, nu, tie, c_neg)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("complement", [False, True])
def test_pricing_of_triples_with_cheap_negatives(seed, complement):
    """Many triples of negative reduced cost, some close to 0 (light negatives)."""
    _check_pricing(seed, 7, 3, complement, seed % 2 == 0, 0.0, seed % 3 == 0, 0.02)


@pytest.mark.parametrize("seed", range(6))
def test_pricing_in_small_batches(seed, monkeypatch):
    """Batches of 2 candidates per pass and at most 8 waiting: the counting passes, the
    thresholds they lower and the pruning of waiting candidates still find every negative
    reduced cost and the three least."""
    import logicrules.lp.dask_pricing as pricing

    monkeypatch.setattr(pricing, "FIRST_BATCH", 2)
    monkeypatch.setattr(pricing, "PENDING_CANDIDATES", 8)
    _check_pricing(seed, 7, 4, seed % 2 == 1, seed % 3 == 0, 0.0, seed % 2 == 0, 0.02)


def _check_pricing(seed, m, max_size, complement, weighted, nu, tie, c_neg):
    rng = np.random.default_rng(seed)
    n = 120
    bits = rng.random((n, m)) < rng.uniform(0.2, 0.8, m)
    y = rng.random(n) < 0.4
    w = rng.integers(1, 4, n).astype(np.float64) if weighted else np.ones(n)
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(40, m)), da.from_array(y.astype(int), chunks=40),
                        weights=da.from_array(w, chunks=40) if weighted else None)
    other = 1 if complement else 0
    negatives_rows = bits[y] if complement else bits[~y]
    neg_w = w[y] if complement else w[~y]
    if complement:
        negatives_rows = ~negatives_rows
    S = rng.random((25, m)) < 0.5
    if complement:
        S = ~S
    mu = rng.uniform(0, 3, 25) * (rng.random(25) < 0.7)
    lam = 0.05
    e = rng.uniform(0, 0.01, m) if tie else None
    with dask.config.set(scheduler="synchronous"):
        L = Negatives(counts, other, complement, c_neg, float(neg_w.sum()))
        pool = _Pool(RuleSetProblem(S, np.ones(25), np.zeros((0, m), bool), np.zeros(0), lam, None, e), L)
        found = price(pool.problem, L, mu, nu, max_size, top_k=10_000, tol=1e-9)
        few = price(pool.problem, L, mu, nu, max_size, top_k=3, tol=1e-9)  # pruned at the 3rd least
    brute = {}
    for size in range(max_size + 1):
        for term in itertools.combinations(range(m), size):
            holds_neg = negatives_rows[:, list(term)].all(axis=1)
            holds_pos = S[:, list(term)].all(axis=1)
            brute[term] = (c_neg * neg_w[holds_neg].sum() - mu[holds_pos].sum() + (lam + nu) * (1 + size)
                           + (0.0 if e is None else e[list(term)].sum()))
    least = min(brute.values())
    negative = {t: v for t, v in brute.items() if v < -1e-9}
    got = dict(zip(found.terms, found.reduced_costs))
    assert found.complete
    assert {t for t, v in got.items() if v < -1e-9} == set(negative)
    for term, value in negative.items():
        assert got[term] == pytest.approx(value, abs=1e-9)
    if least < -1e-9:
        assert found.least == pytest.approx(least, abs=1e-9)
    best = sorted(v for v in brute.values() if v < -1e-9)[:3]
    np.testing.assert_allclose(sorted(v for v in few.reduced_costs if v < -1e-9), best, atol=1e-9)


def _terms(fit):
    """The terms (clauses) of a fitted rule set's formula, sorted: the rule set in any order."""
    return sorted(str(fit.formula_).split(" OR " if fit.rule == "dnf" else " AND "))


def _same_lp_bound(got, expected):
    assert got.lp_result_["certified"] and expected.lp_result_["certified"]
    scale = max(1.0, abs(expected.lp_result_["lp_bound"]))
    assert got.lp_result_["lp_bound"] == pytest.approx(expected.lp_result_["lp_bound"], rel=1e-7, abs=1e-7 * scale)
    assert got.lp_result_["objective"] >= 0 and got.lp_result_["mip_objective"] >= got.lp_result_["lp_bound"] - 1e-7 * scale


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_a_sample_holding_every_pattern_still_gets_their_full_weights(rule):
    """Few patterns, a sample of 30% of the rows: the sample sees every pattern but not all of its
    rows; the first scan over the partitions gives the patterns their full weights before the
    optimum is certified."""
    X, y = _random_case(3, 600, 3)
    expected = LPRuleClassifier(rule=rule, binarizer="passthrough", lam=0.002).fit(X, y)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(rule=rule, binarizer="passthrough", lam=0.002, row_sampling=0.3,
                               random_state=0).fit(*_dask(X, y, 3))
    _same_lp_bound(got, expected)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), n=st.integers(30, 200), m=st.integers(1, 8), parts=st.integers(1, 4),
       rule=st.sampled_from(["dnf", "cnf"]), max_size=st.integers(1, 4), lam=st.sampled_from([0.001, 0.01, 0.05]),
       sampling=st.sampled_from([None, 0.05, 0.3]), kind=st.sampled_from([None, "integer", "huge", "float"]),
       class_weight=st.sampled_from([None, "balanced", {1: 3.0}]), budget=st.sampled_from([None, 4.0]),
       array=st.booleans())
def test_random_rule_sets_reach_the_in_memory_lp_bound(seed, n, m, parts, rule, max_size, lam, sampling, kind,
                                                       class_weight, budget, array):
    X, y = _random_case(seed, n, m)
    w = None if kind is None else _weights(seed, n, kind)
    kwargs = dict(rule=rule, lam=lam, max_term_size=max_size, binarizer="passthrough", class_weight=class_weight,
                  budget=budget)
    expected = LPRuleClassifier(**kwargs).fit(X.to_numpy() if array else X, y, sample_weight=w)
    Xd, yd = _dask(X, y, parts, array)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs, row_sampling=sampling, random_state=seed).fit(
            Xd, yd, **({} if w is None else {"sample_weight": _dask_weights(w, X, parts, array)}))
        _same_lp_bound(got, expected)
        np.testing.assert_array_equal(np.asarray(got.predict(Xd).compute()), got.predict(X.to_numpy() if array else X))


def test_groups_and_triples_on_partitions():
    """Two planted triples and a small sample: the master over groups of every row, triples
    counted over the partitions by the exact pricing, and the LP bound and rule set are the
    in-memory ones."""
    rng = np.random.default_rng(4)
    n, m = 3000, 12
    bits = rng.random((n, m)) < 0.5
    y = (bits[:, 0] & bits[:, 1] & bits[:, 2]) | (bits[:, 3] & bits[:, 4] & bits[:, 5])
    y ^= rng.random(n) < 0.02
    X = pd.DataFrame(bits.astype(np.int8), columns=[f"v{j}" for j in range(m)])
    kwargs = dict(rule="dnf", lam=0.001, binarizer="passthrough")
    expected = LPRuleClassifier(**kwargs).fit(X, y.astype(int))
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs, row_sampling=0.02, random_state=1).fit(*_dask(X, y.astype(int), 4))
    _same_lp_bound(got, expected)
    assert _terms(got) == _terms(expected) == ["(v0 AND v1 AND v2)", "(v3 AND v4 AND v5)"]
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(750, m)), da.from_array(y.astype(int), chunks=750))
    with dask.config.set(scheduler="synchronous"):
        fit, lam_abs = learn_rule_set_cg_on_partitions(counts, 0.001, row_sampling=0.02, seed=1)
    assert fit.certified and fit.lp_bound == pytest.approx(expected.lp_result_["lp_bound"], rel=1e-7)
    assert max(len(t) for t in fit.pool) == 3 and "exact" in {h["source"] for h in fit.history}
    assert 0 < fit.history[-1]["rows"] < len(np.unique(bits[y], axis=0))


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_planted_quadruples_on_partitions_without_gathering_rows(rule, monkeypatch):
    """Two planted 4-literal terms (their complements for a CNF), max_term_size=4: quadruples
    are priced from counting passes, the driver never gathers the rows (gathering a class
    raises if called), and LP bound, rule set and predictions are the in-memory ones."""
    def refuse(*args, **kwargs):
        raise AssertionError("the rows were gathered on the driver")

    monkeypatch.setattr(DaskCounts, "class_rows", refuse)
    rng = np.random.default_rng(7)
    n, m = 4000, 10
    bits = rng.random((n, m)) < (0.6 if rule == "dnf" else 0.4)
    y = (bits[:, :4].all(axis=1) | bits[:, 4:8].all(axis=1)) ^ (rng.random(n) < 0.01)
    if rule == "cnf":
        y = ~((~bits[:, :4]).all(axis=1) | (~bits[:, 4:8]).all(axis=1)) ^ (rng.random(n) < 0.01)
    X = pd.DataFrame(bits.astype(np.int8), columns=[f"v{j}" for j in range(m)])
    kwargs = dict(rule=rule, lam=0.001, binarizer="passthrough", max_term_size=4)
    expected = LPRuleClassifier(**kwargs).fit(X, y.astype(int))
    Xd, yd = _dask(X, y.astype(int), 4)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs, row_sampling=0.05, random_state=3).fit(Xd, yd)
        predicted = np.asarray(got.predict(Xd).compute())
    _same_lp_bound(got, expected)
    planted = {"dnf": "(v4 AND v5 AND v6 AND v7) OR (v0 AND v1 AND v2 AND v3)",
               "cnf": "(v0 OR v1 OR v2 OR v3) AND (v4 OR v5 OR v6 OR v7)"}[rule]
    assert _terms(got) == _terms(expected) == sorted(planted.split(" OR " if rule == "dnf" else " AND "))
    np.testing.assert_array_equal(predicted, expected.predict(X))


def _planted(seed: int, n: int = 20_000, m: int = 16, noise: float = 0.0):
    rng = np.random.default_rng(seed)
    bits = rng.random((n, m)) < 0.5
    y = ((bits[:, 0] & bits[:, 1]) | bits[:, 2]) ^ (rng.random(n) < noise)
    return pd.DataFrame(bits.astype(np.int8), columns=[f"v{j}" for j in range(m)]), y.astype(int)


@pytest.mark.parametrize("max_size", [2, 4])
@pytest.mark.parametrize("seed", range(3))
def test_a_tight_memory_limit_bounds_the_rows_per_round_and_column_generation_converges(max_size, seed):
    """Under 4 MB the groups short of covered at the first rounds (thousands of cover patterns of
    random rows) do not fit the master at once: the rounds add the most violated within the
    limit, and the fit reaches the in-memory LP bound and rule."""

    X, y = _planted(1)
    kwargs = dict(rule="dnf", binarizer="passthrough", max_term_size=max_size)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(**kwargs, memory_limit=4_000_000, row_sampling=0.02, random_state=seed).fit(
            *_dask(X, y, 4))
    _same_lp_bound(got, LPRuleClassifier(**kwargs).fit(X, y))
    assert str(got.formula_) == "v2 OR (v0 AND v1)"


def test_noise_rows_join_the_master_as_groups():
    """3% of the labels flipped over 6000 rows of 30 random attributes (every row its own
    pattern): the positive rows no term covers join the master as groups of their cover
    patterns, far fewer than their distinct rows; the fit certifies the in-memory bound."""
    rng = np.random.default_rng(5)
    bits = rng.random((6000, 30)) < 0.5
    y = (((bits[:, 0] & bits[:, 1]) | bits[:, 2]) ^ (rng.random(6000) < 0.03)).astype(int)
    X = pd.DataFrame(bits.astype(np.int8), columns=[f"v{j}" for j in range(30)])
    counts = DaskCounts(da.from_array(X.to_numpy(), chunks=(1500, 30)), da.from_array(y, chunks=1500))
    with dask.config.set(scheduler="synchronous"):
        fit, _ = learn_rule_set_cg_on_partitions(counts, 0.005, row_sampling=0.05, seed=0, max_size=3)
    expected = LPRuleClassifier(rule="dnf", binarizer="passthrough", max_term_size=3, lam=0.005).fit(X, y)
    assert fit.certified and fit.lp_bound == pytest.approx(expected.lp_result_["lp_bound"], rel=1e-7)
    distinct = len(np.unique(bits[y == 1], axis=0))
    assert max(h["rows"] for h in fit.history) < distinct


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), m=st.integers(1, 7), max_size=st.integers(1, 4), complement=st.booleans(),
       weighted=st.booleans(), nu=st.sampled_from([0.0, 0.3]), tie=st.booleans(), c_neg=st.sampled_from([0.02, 0.7]),
       top_k=st.sampled_from([3, 10_000]))
def test_counted_pricing_finds_every_conjunction_of_negative_reduced_cost(seed, m, max_size, complement, weighted, nu,
                                                                          tie, c_neg, top_k):
    """The pricing under a dual over groups of every positive row (random ratios over the cover
    patterns of a random pool), G and L counted over the partitions, against brute force over
    every conjunction of at most max_size literals: every negative reduced cost exact, the
    least, and with top_k=3 the three least."""
    _check_counted_pricing(seed, m, max_size, complement, weighted, nu, tie, c_neg, top_k)


@pytest.mark.parametrize("seed", range(40))
def test_counted_pricing_where_the_bounds_are_tight(seed):
    """Dense, strongly correlated literals (copies of one column with a few bits flipped) and
    costly negatives: many triples and quadruples whose bounds from their pairs lie just below
    or above 0, so that a bound stated too high would lose a column of negative reduced cost."""
    _check_counted_pricing(seed, 6, 3 + seed % 2, seed % 4 == 1, seed % 3 == 0, 0.0, False, 0.35 + 0.05 * (seed % 5),
                           10_000, correlated=True)


@pytest.mark.parametrize("seed", range(6))
def test_counted_pricing_in_small_batches(seed, monkeypatch):
    """Batches of 2 candidates per pass and at most 8 waiting, quadruples included."""
    import logicrules.lp.dask_pricing as pricing

    monkeypatch.setattr(pricing, "FIRST_BATCH", 2)
    monkeypatch.setattr(pricing, "PENDING_CANDIDATES", 8)
    _check_counted_pricing(seed, 7, 4, seed % 2 == 1, seed % 3 == 0, 0.0, seed % 2 == 0, 0.02, 3 + seed % 2 * 10_000)


def _check_counted_pricing(seed, m, max_size, complement, weighted, nu, tie, c_neg, top_k, correlated=False):
    rng = np.random.default_rng(seed)
    n = 150
    bits = rng.random((n, m)) < rng.uniform(0.2, 0.8, m)
    if correlated:
        base = rng.random(n) < 0.85
        bits = base[:, None] ^ (rng.random((n, m)) < rng.uniform(0.02, 0.15, m))
    y = rng.random(n) < 0.5
    w = rng.integers(1, 4, n).astype(np.float64) if weighted else np.ones(n)
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(50, m)), da.from_array(y.astype(int), chunks=50),
                        weights=da.from_array(w, chunks=50) if weighted else None)
    firing = 0 if complement else 1
    read = ~bits if complement else bits
    pos, neg = read[y == bool(firing)], read[y != bool(firing)]
    w_pos, w_neg = w[y == bool(firing)], w[y != bool(firing)]
    pool = sorted({tuple(sorted(rng.choice(m, rng.integers(1, min(m, 3) + 1), replace=False).tolist()))
                   for _ in range(rng.integers(0, 4))})
    cover = conjunction_extents(pos, pool)
    keys = np.unique(row_keys(cover))
    ratios = rng.uniform(0, 1, keys.size) * (rng.random(keys.size) < 0.8)
    c_pos, lam = 1.3, 0.05
    dual = GroupDual(tuple(pool), keys, ratios, c_pos)
    mu = ratios[np.searchsorted(keys, row_keys(cover))] * c_pos * w_pos
    e = rng.uniform(0, 0.01, m) if tie else None
    with dask.config.set(scheduler="synchronous"):
        L = Negatives(counts, 1 - firing, complement, c_neg, float(w_neg.sum()))
        P = Positives(counts, ClauseRows(firing, complement), dual, L)
        found = price_counted(P, L, lam, e, nu, max_size, top_k=top_k, tol=1e-9)
    brute = {}
    for size in range(max_size + 1):
        for term in itertools.combinations(range(m), size):
            brute[term] = (c_neg * w_neg[neg[:, list(term)].all(axis=1)].sum() - mu[pos[:, list(term)].all(axis=1)].sum()
                           + (lam + nu) * (1 + size) + (0.0 if e is None else e[list(term)].sum()))
    negative = {t: v for t, v in brute.items() if v < -1e-9}
    got = dict(zip(found.terms, found.reduced_costs))
    assert found.complete
    best = sorted(negative.values())[:top_k]
    np.testing.assert_allclose(sorted(v for v in found.reduced_costs if v < -1e-9), best, atol=1e-9)
    for term, value in got.items():
        assert value == pytest.approx(brute[term], abs=1e-9)
    if negative:
        assert found.least == pytest.approx(min(brute.values()), abs=1e-9)
    else:
        assert found.least >= -1e-9


def test_rows_per_round_stay_below_the_cap(monkeypatch):
    """A cap of 16 groups per round: every round adds at most 16 groups of the rows short of
    covered (more of them are short), and the fit still certifies the in-memory LP bound."""
    import logicrules.lp.dask_colgen as colgen

    monkeypatch.setattr(colgen, "DASK_CG_ROWS_PER_ROUND", 16)
    X, y = _planted(2, n=4000, noise=0.03)
    counts = DaskCounts(da.from_array(X.to_numpy(), chunks=(1000, X.shape[1])), da.from_array(y, chunks=1000))
    with dask.config.set(scheduler="synchronous"):
        fit, _ = learn_rule_set_cg_on_partitions(counts, 0.005, row_sampling=0.02, seed=0, max_size=4)
    expected = LPRuleClassifier(rule="dnf", binarizer="passthrough", max_term_size=4, lam=0.005).fit(X, y)
    assert fit.certified and fit.lp_bound == pytest.approx(expected.lp_result_["lp_bound"], rel=1e-7)
    assert max(h["rows_added"] for h in fit.history) <= 16 < max(h["rows_short"] for h in fit.history)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), parts=st.integers(1, 6), cap=st.integers(1, 12), weighted=st.booleans())
def test_most_violated_sums_keep_the_cap_first_patterns_with_full_weights(seed, parts, cap, weighted):
    """Summed in any tree over the partitions, the kept groups are the cap most violated of all
    (ties by pattern), each with the weight of all its rows."""
    rng = np.random.default_rng(seed)
    n, m = 60, 4
    rows = rng.random((n, m)) < 0.5
    w = rng.integers(1, 5, n).astype(np.float64) if weighted else None
    violation_of = rng.choice([0.25, 0.5, 1.0], size=1 << m)  # a function of the pattern
    cut = np.sort(rng.integers(0, n + 1, parts - 1))
    pieces = []
    for part in np.split(np.arange(n), cut):
        multiset = RowMultiset.from_dense(rows[part], None if w is None else w[part])
        dense = multiset.to_dense()
        pieces.append(MostViolated(multiset, violation_of[dense.astype(int) @ (1 << np.arange(m))], cap).truncated())
    total = functools.reduce(lambda a, b: a + b, pieces)
    every = RowMultiset.from_dense(rows, w)
    dense = every.to_dense()
    order = np.argsort(-violation_of[dense.astype(int) @ (1 << np.arange(m))], kind="stable")[:cap]
    np.testing.assert_array_equal(total.rows.packed, every.packed[np.sort(order)])
    np.testing.assert_array_equal(total.rows.weights, every.weights[np.sort(order)])


@pytest.fixture(scope="module")
def breast_cancer():
    X, y = load_dataset("breast_cancer_wisconsin")
    return X, y, {rule: LPRuleClassifier(rule=rule, max_term_size=2).fit(X, y) for rule in ("dnf", "cnf")}


@pytest.mark.parametrize("rule", ["dnf", "cnf"])
def test_bundled_data_synchronous_scheduler(breast_cancer, rule):
    X, y, expected = breast_cancer
    Xd, yd = _dask(X, y, 4)
    with dask.config.set(scheduler="synchronous"):
        got = LPRuleClassifier(rule=rule, max_term_size=2, random_state=0).fit(Xd, yd)
        _same_lp_bound(got, expected[rule])
        np.testing.assert_array_equal(np.asarray(got.predict(Xd).compute()), got.predict(X))


def test_bundled_data_on_a_local_cluster(breast_cancer, dask_client):
    X, y, expected = breast_cancer
    got = LPRuleClassifier(rule="dnf", max_term_size=2, random_state=2, row_sampling=0.2).fit(*_dask(X, y, 3))
    _same_lp_bound(got, expected["dnf"])


@pytest.mark.parametrize("seed", range(6))
def test_the_integer_master_reads_the_lp_over_the_groups(seed, monkeypatch):
    """The last step hands the integer master the LP over the groups: its duals are feasible
    there (reduced costs >= 0, each group's dual at most its cost), its value a lower bound, and
    the exact integer master from it reaches the optimum found without it."""
    import logicrules.lp.dask_colgen as dask_colgen
    from logicrules.lp.master import solve_master_mip as solve

    seen = []

    def spy(pool, *, lp=None, **kwargs):
        seen.append((pool, lp))
        return solve(pool, lp=lp, **kwargs)

    monkeypatch.setattr(dask_colgen, "solve_master_mip", spy)
    X, y = _random_case(seed, 400, 6)
    counts = DaskCounts(da.from_array(X.to_numpy().astype(np.int8), chunks=(100, 6)),
                        da.from_array(np.asarray(y), chunks=100))
    with dask.config.set(scheduler="synchronous"):
        learn_rule_set_cg_on_partitions(counts, 0.01, row_sampling=0.1, seed=seed, max_size=2 + seed % 2)
    ((pool, lp),) = seen
    assert lp is not None and lp.mu.shape == (pool.cover.shape[0],)
    tol = 1e-7 * max(1.0, pool.problem.pos_weight.sum())
    assert (pool.reduced_costs(lp.mu, lp.nu) >= -tol).all()
    assert (lp.mu <= pool.problem.pos_weight + tol).all() and (lp.mu >= -tol).all()
    exact = solve(pool, node_limit=None, time_limit=None)
    mapped = solve(pool, lp=lp, node_limit=None, time_limit=None)
    assert exact.status == mapped.status == "optimal"
    assert mapped.objective == pytest.approx(exact.objective, abs=tol)
    assert lp.objective <= exact.objective + tol


@pytest.mark.parametrize("rounding", ["master", "one column"])
@pytest.mark.parametrize("cnf", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_the_integer_master_over_the_kept_columns_is_the_one_over_the_pool(seed, cnf, rounding, monkeypatch):
    """The integer master fixes the pool's columns from the rounding's value over every row and
    solves over the others: its optimum is the exact integer master's over the whole pool and
    every positive row (built in memory, no fixing), and its rule set has that value there.
    Also from a poor rounding (the column of largest LP weight alone: a larger bound, fewer
    columns fixed, and its value counted over the rows it covers); with the master's rounding
    the fixing leaves out most of the pool."""
    import logicrules.lp.dask_colgen as dask_colgen
    from logicrules.lp.master import ConjunctionPool, build_rule_set_problem, solve_master_mip

    kept = []

    def spy(pool, **kwargs):
        kept.append(len(pool))
        return solve_master_mip(pool, **kwargs)

    def one_column(pool, w):
        return np.arange(len(pool)) == int(np.argmax(w))

    monkeypatch.setattr(dask_colgen, "solve_master_mip", spy)
    if rounding == "one column":
        monkeypatch.setattr(dask_colgen, "round_master", one_column)
    rng = np.random.default_rng(seed)
    n, m = 300 + 40 * seed, 8
    bits = rng.random((n, m)) < rng.uniform(0.2, 0.8, m)
    y = ((bits[:, 0] & bits[:, 1]) | (bits[:, 2] & bits[:, 3]) | (bits[:, 4] & bits[:, 0])) ^ (rng.random(n) < 0.25)
    y = y.astype(int)
    counts = DaskCounts(da.from_array(bits.astype(np.int8), chunks=(n // 4 + 1, m)), da.from_array(y, chunks=n // 4 + 1))
    with dask.config.set(scheduler="synchronous"):
        fit, lam_abs = learn_rule_set_cg_on_partitions(counts, [0.001, 0.005, 0.02][seed % 3], cnf=cnf,
                                                       row_sampling=0.1, seed=seed, max_size=2 + seed % 3)
    A, target = (~bits, y == 0) if cnf else (bits, y == 1)
    pool = ConjunctionPool(build_rule_set_problem(A, target, lam_abs))
    pool.add(fit.pool)
    assert list(pool.terms) == [tuple(t) for t in fit.pool]
    exact = solve_master_mip(pool, node_limit=None, time_limit=None)
    chosen = np.isin(np.arange(len(pool)), [pool.terms.index(tuple(int(j) for j in t)) for t in fit.terms])
    tol = 1e-7 * max(1.0, float(target.sum()))
    assert exact.status == fit.mip_status == "optimal"
    assert fit.mip_objective == pytest.approx(exact.objective, abs=tol)
    assert pool.integer_objective(chosen) == pytest.approx(fit.mip_objective, abs=tol)
    assert fit.lp_bound <= fit.mip_objective + tol
    assert rounding != "master" or kept == [] or kept[0] < len(pool)
