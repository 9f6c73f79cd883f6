"""espresso_cover: a cover of the true codes avoiding the false ones, never costlier than its start."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.espresso import espresso_cover


def _covered(values, masks, codes):
    out = np.zeros(codes.size, dtype=bool)
    for v, m in zip(values.tolist(), masks.tolist()):
        out |= (codes & ~m) == v
    return out


def _cost(masks, k, costs):
    return sum(int(costs[[j for j in range(k) if not (m >> j) & 1]].sum()) for m in masks.tolist())


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(0, 7))
def test_cover_is_exact_on_the_care_set_and_no_costlier_than_its_start(seed, k):
    rng = np.random.default_rng(seed)
    codes = np.arange(1 << k, dtype=np.int64)
    label = rng.integers(0, 3, size=codes.size)  # 0 false, 1 true, 2 don't care
    on, off = codes[label == 1], codes[label == 0]
    costs = rng.integers(1, 4, size=k)
    values, masks = espresso_cover(on, off, k, costs=costs)
    covered = _covered(values, masks, codes)
    assert covered[on].all() and not covered[off].any()
    assert _cost(masks, k, costs) <= _cost(np.zeros(on.size, dtype=np.int64), k, costs)
    # from a start of its own: the minterms of on with random free bits that avoid off
    start_m = np.zeros(on.size, dtype=np.int64)
    for i, v in enumerate(on.tolist()):
        for j in rng.permutation(k).tolist():
            m = int(start_m[i]) | (1 << j)
            if not ((off & ~m) == (v & ~m)).any():
                start_m[i] = m
    start_v = on & ~start_m
    values, masks = espresso_cover(on, off, k, (start_v, start_m), costs)
    covered = _covered(values, masks, codes)
    assert covered[on].all() and not covered[off].any()
    assert _cost(masks, k, costs) <= _cost(start_m, k, costs)


def test_known_functions_and_bad_starts():
    on, off = np.array([1, 3, 5, 7]), np.array([0, 2, 4, 6])
    assert [a.tolist() for a in espresso_cover(on, off, 3)] == [[1], [6]]
    # x0 AND x1 OR x2, with the remaining cells false: two cubes, three literals
    codes = np.arange(8)
    truth = ((codes & 3) == 3) | ((codes & 4) == 4)
    values, masks = espresso_cover(codes[truth], codes[~truth], 3)
    assert sorted(zip(values.tolist(), masks.tolist())) == [(3, 4), (4, 3)]
    assert [a.tolist() for a in espresso_cover(np.array([0, 1]), np.array([], dtype=np.int64), 1)] == [[0], [1]]
    with pytest.raises(ValueError, match="false code"):
        espresso_cover(on, off, 3, (np.array([0]), np.array([7])))
    with pytest.raises(ValueError, match="uncovered"):
        espresso_cover(on, off, 3, (np.array([1]), np.array([0])))
    with pytest.raises(ValueError, match="62 variables"):
        espresso_cover(on, off, 63)
