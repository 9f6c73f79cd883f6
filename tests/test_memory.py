"""One memory limit for the whole fit: the traced peak stays under it, or a clear error comes first."""

import tracemalloc

import numpy as np
import pytest

from logicrules.ideal.method import IdealDNFClassifier
from logicrules.memory import MemoryBudget, MemoryLimitError, parse_memory


def _data(n=300_000, c=4):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, c))
    return X, (X[:, 0] > 0) & (X[:, 1] > 0.5)


def test_fit_peak_stays_under_memory_limit():
    X, y = _data()
    IdealDNFClassifier(random_state=0).fit(X[:500], y[:500])  # imports and caches outside the trace
    limit = 36_000_000
    tracemalloc.start()
    try:
        model = IdealDNFClassifier(random_state=0, memory_limit=limit).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit
    assert model.score(X, y) > 0.9


def test_too_small_memory_limit_raises_before_allocating():
    X, y = _data()
    tracemalloc.start()
    try:
        with pytest.raises(MemoryLimitError, match=r"fitting MedianBinarizer on the training part "
                                                    r"\(300000 rows x 4 columns\) needs 15.3 MB besides 300.0 kB "
                                                    r"already held, more than memory_limit=10.0 MB allows"):
            IdealDNFClassifier(random_state=0, memory_limit="10MB").fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000


def test_budget_counts_what_is_held():
    budget = MemoryBudget("1MB")
    budget.hold(600_000)
    with pytest.raises(MemoryLimitError, match="besides 600.0 kB already held"):
        budget.require(500_000, "a table", "use fewer rows")
    budget.release(600_000)
    budget.require(500_000, "a table", "use fewer rows")
    assert parse_memory("2GiB") == 2 * 1024**3
    with pytest.raises(ValueError, match="memory_limit must be a positive number"):
        parse_memory("-1GB")
