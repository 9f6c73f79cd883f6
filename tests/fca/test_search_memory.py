"""The premise search keeps its own allocations inside ``memory_limit`` (numpy allocations traced).

The search's arrays are numpy arrays, which ``tracemalloc`` sees; the input matrix is allocated
before the trace starts (the limit covers the search, not the caller's data).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from logicrules.fca.premise import PremiseSearchMemoryError, find_best_premises


def _traced_peak(run) -> tuple[object, int]:
    """``run()``'s result and the peak of traced memory above what was allocated before it."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = run()
        return result, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_search_under_a_small_memory_limit_stays_inside_it():
    rng = np.random.default_rng(0)
    n, m = 200_000, 24
    X = rng.random((n, m), dtype=np.float32) < 0.3
    y = (X[:, 0] & X[:, 1]) | X[:, 2]
    find_best_premises(X[:300], y[:300], max_size=3)              # compile the kernels outside the trace
    limit = 8 * 2**20                       # the bool input alone is 4.8 MB, its packed bits 0.6 MB
    results, peak = _traced_peak(lambda: find_best_premises(X, y, max_size=3, memory_limit=limit))
    assert str(results[0].formula) == "x2 OR (x0 AND x1)"
    assert peak <= limit, f"traced peak {peak / 2**20:.1f} MiB above memory_limit {limit / 2**20:.0f} MiB"
    unlimited = find_best_premises(X, y, max_size=3)[0]
    assert (results[0].score, results[0].tp, results[0].fp) == (unlimited.score, unlimited.tp, unlimited.fp)


def test_too_small_a_memory_limit_is_refused_before_the_search():
    X = np.random.default_rng(1).random((5000, 60)) < 0.5
    with pytest.raises(PremiseSearchMemoryError, match="memory_limit"):
        find_best_premises(X, X[:, 0], max_size=3, memory_limit="100KB")
