"""Every request of the distributed clause LP (``lp.dask_passes``) answers, summed over the
partitions, what the constraint rows say when read one by one in memory: weighted and unweighted
rows, rows of weight 0, the De Morgan (complemented) view, several partitions."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install 'logicrules[dask]')")
import dask  # noqa: E402

from logicrules.fca.counts import RowMultiset  # noqa: E402
from logicrules.fca.dask_counts import DaskCounts  # noqa: E402
from logicrules.lp.dask_passes import (ClauseRows, ExtendDual, OpenCounts, SampleRows, ScanRows, TermCounts,  # noqa: E402
                                       Totals, row_keys, run_pass)


class _Case:
    """Random rows in partitions, and the constraint rows of the clause LP read directly."""

    def __init__(self, seed, n, m, parts, complement, weighted, fraction):
        rng = np.random.default_rng(seed)
        self.bits = rng.random((n, m)) < rng.uniform(0.2, 0.8, m)
        self.y = rng.random(n) < 0.5
        self.w = rng.integers(0, 4, n).astype(np.float64) if weighted else None
        chunk = -(-n // parts)
        self.counts = DaskCounts(da.from_array(self.bits.astype(np.int8), chunks=(chunk, m)),
                                 da.from_array(self.y.astype(int), chunks=chunk),
                                 weights=None if self.w is None else da.from_array(self.w, chunks=chunk))
        self.parts = self.counts.n_partitions
        self.firing = 0 if complement else 1
        self.complement = complement
        weight = np.ones(n) if self.w is None else self.w
        kept = weight > 0
        part = np.arange(n) // chunk
        sampled = np.zeros(n, dtype=bool)
        for p in range(self.parts):  # the sample of partition p: a draw per kept row
            rows = np.flatnonzero(kept & (part == p))
            sampled[rows] = np.random.default_rng([seed, p]).random(rows.size) < fraction
        self.kept, self.weight, self.part = kept, weight, part
        rows = kept & (self.y == bool(self.firing))
        self.A = ~self.bits[rows] if complement else self.bits[rows]
        self.a_weight, self.a_part, self.sampled = weight[rows], part[rows], sampled[rows]
        self.view = ClauseRows(self.firing, complement, (seed, fraction))

    def ask(self, *requests):
        return run_pass(self.counts, self.view, list(requests), "test")

    def fires(self, term, negated):
        if not len(term):
            return np.ones(len(self.y), dtype=bool)
        cells = self.bits[:, term]
        return (~cells if negated else cells).all(axis=1)


def _same_rows(got, rows, weights):
    expected = RowMultiset.from_dense(rows, weights)
    if got is None:
        assert expected.n_rows == 0
        return
    np.testing.assert_array_equal(got.packed, expected.packed)
    np.testing.assert_allclose(got.weights, expected.weights)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), n=st.integers(1, 150), m=st.integers(1, 9), parts=st.integers(1, 4),
       complement=st.booleans(), weighted=st.booleans(), fraction=st.sampled_from([0.2, 0.6, 1.0]))
def test_every_request_answers_what_the_rows_say(seed, n, m, parts, complement, weighted, fraction):
    case = _Case(seed, n, m, parts, complement, weighted, fraction)
    rng = np.random.default_rng(seed + 1)
    A, aw, S = case.A, case.a_weight, case.sampled
    other = 1 - case.firing
    terms = [np.flatnonzero(rng.random(m) < 0.4)]
    term = np.flatnonzero(rng.random(m) < 0.5)
    w = rng.uniform(0, 1.2, m) * (rng.random(m) < 0.7)
    thresholds = np.unique(np.concatenate([w[w > 0], [0.5]]))
    rules = [np.flatnonzero(rng.random(m) < 0.3), np.zeros(0, dtype=np.intp)]
    J = np.flatnonzero(rng.random(m) < 0.7)
    if J.size == 0:
        J = np.array([0])
    w_J = w[J]
    slack = rng.uniform(0, 3, m)
    share = rng.dirichlet(np.ones(case.parts))
    with dask.config.set(scheduler="synchronous"):
        totals, steps, sample = case.ask(Totals(other=other, terms=terms, negated=complement),
                                         TermCounts(other, terms, term, complement), SampleRows(case.parts))
        extended, scan, opened, loose = case.ask(
            ExtendDual(slack, share, "H2", w, thresholds, rules, c_pos=2.0),
            ScanRows(J, w_J, thresholds=thresholds, n_columns=m), OpenCounts(rules[0], m),
            ExtendDual(np.full(m, 1e9), share, "H2", w, thresholds, rules, c_pos=2.0))
        # the dual of the scan's patterns, per unit of weight
        patterns = RowMultiset.from_dense(A[:, J], aw)
        keys = np.sort(row_keys(patterns.to_dense()))
        values = rng.uniform(0, 1, keys.size)
        (priced,) = case.ask(ScanRows(J, w_J, dual_keys=keys, dual_values=values, n_columns=m))
    weight, y, kept = case.weight, case.y, case.kept
    # class totals, literal counts and the rest of class `other` no term fires on
    cls = [kept & ~y, kept & y]
    np.testing.assert_allclose(totals["totals"], [weight[c].sum() for c in cls])
    np.testing.assert_array_equal(totals["rows"], [c.sum() for c in cls])
    np.testing.assert_allclose(totals["literals"], [weight[c] @ case.bits[c] for c in cls])
    earlier = case.fires(terms[0], complement)
    rest = cls[other] & ~earlier
    assert totals["rest_total"] == pytest.approx(weight[rest].sum())
    np.testing.assert_allclose(totals["rest"], weight[rest] @ case.bits[rest])
    new = case.fires(term, complement) & ~earlier
    assert steps["tp"] == pytest.approx(weight[cls[other] & new].sum())
    assert steps["fp"] == pytest.approx(weight[cls[1 - other] & new].sum())
    np.testing.assert_allclose(steps["rest"], weight[rest & ~new] @ case.bits[rest & ~new])
    # the sample and the unseen rows per partition
    _same_rows(sample["rows"], A[S], aw[S])
    np.testing.assert_array_equal(sample["unseen"], np.bincount(case.a_part[~S], minlength=case.parts))
    # the dual extension's evaluations of w and of the rules on all rows, and its feasibility
    coverage = A @ w
    reach = np.where(A, w[None, :], -np.inf).max(axis=1, initial=-np.inf)
    assert extended["xi"] == pytest.approx(aw @ np.maximum(0, 1 - coverage))
    np.testing.assert_allclose(extended["below"], [aw[reach < t].sum() for t in thresholds])
    np.testing.assert_allclose(extended["uncovered"], [aw[~A[:, r].any(axis=1)].sum() for r in rules])
    assert extended["mu"] >= 0 and extended["mu"] <= 2.0 * aw[~S].sum() + 1e-9
    assert np.all(extended["load"] <= slack + 1e-9)
    assert loose["mu"] == pytest.approx(2.0 * aw[~S].sum())  # no column binds: every row at c_pos
    # row generation: the rows w leaves uncovered over J, merged, with the slack and thresholds
    working = A[:, J]
    short = working @ w_J < 1 - 1e-9
    _same_rows(scan["rows"], working[short], aw[short])
    assert scan["xi"] == pytest.approx(aw @ np.maximum(0, 1 - working @ w_J))
    reach_J = np.where(working, w_J[None, :], -np.inf).max(axis=1, initial=-np.inf)
    np.testing.assert_allclose(scan["below"], [aw[reach_J < t].sum() for t in thresholds])
    # pricing: each row carries its pattern's dual per unit of weight times its weight
    at = np.searchsorted(keys, row_keys(working))
    np.testing.assert_allclose(priced["load"], A.T.astype(float) @ (values[at] * aw), atol=1e-9)
    # the greedy cover's open counts
    open_rows = ~A[:, rules[0]].any(axis=1)
    np.testing.assert_allclose(opened["open"], aw[open_rows] @ A[open_rows])
    assert opened["uncovered"] == pytest.approx(aw[open_rows].sum())
