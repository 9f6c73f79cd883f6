"""Sequential covering: the CNF learned without complementing the literal matrix equals its
De Morgan definition, the DNF learned on ``~A`` for ``~y`` with the class costs swapped."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logicrules.lp.rules import learn_cnf, learn_dnf


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10_000), n=st.integers(2, 120), m=st.integers(1, 8),
       lam=st.sampled_from([0.01, 0.5, 2.0]), costs=st.sampled_from([None, (1.0, 1.0), (2.5, 0.5), (0.3, 1.0)]),
       weighted=st.booleans(), sampling=st.sampled_from([None, 0.5]))
def test_cnf_equals_the_dnf_of_the_complemented_literals(seed, n, m, lam, costs, weighted, sampling):
    rng = np.random.default_rng(seed)
    A = rng.random((n, m)) < rng.uniform(0.1, 0.9, m)
    y = (A[:, 0] & A[:, min(1, m - 1)]) | (rng.random(n) < 0.2)
    kept = A.copy(), y.copy()
    options = dict(max_clauses=3, row_sampling=sampling, random_state=seed)
    if weighted:
        options["sample_weight"] = rng.integers(1, 4, n).astype(np.float64)
    got = learn_cnf(A, y, lam, weights=costs, **options)
    swapped = None if costs is None else (costs[1], costs[0])
    expected = learn_dnf(~A, ~y, lam, weights=swapped, **options)
    assert [t.tolist() for t in got.terms] == [t.tolist() for t in expected.terms]
    assert [f.objective for f in got.fits] == [f.objective for f in expected.fits]
    np.testing.assert_array_equal(A, kept[0])  # nothing the caller passed is changed
    np.testing.assert_array_equal(y, kept[1])
