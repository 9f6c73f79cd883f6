"""Shared checks of binarized inputs: accepted encodings and the errors that name bad columns."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from logicrules.validation import as_boolean_matrix, as_boolean_target


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 5)), elements=st.sampled_from([0.0, 1.0, 2.0, np.nan])))
def test_matrix_accepts_exactly_the_zero_one_arrays(values):
    bad_columns = [j for j in range(values.shape[1]) if any(v not in (0.0, 1.0) for v in values[:, j])]
    if bad_columns:
        with pytest.raises(ValueError, match="columns with other values or NaN") as info:
            as_boolean_matrix(values)
        assert str(bad_columns[:10]) in str(info.value)
    else:
        out = as_boolean_matrix(values)
        assert out.dtype == bool and np.array_equal(out, values == 1.0)


def test_matrix_encodings_and_names():
    X = np.array([[True, False]])
    assert as_boolean_matrix(X) is X
    objects = np.array([[1, "yes"], [0, True]], dtype=object)
    with pytest.raises(ValueError, match=r"\['b'\]"):
        as_boolean_matrix(objects, labels=["a", "b"])
    frame = pd.DataFrame({"a": [0, 1], "b": [True, False]})
    assert as_boolean_matrix(frame).tolist() == [[False, True], [True, False]]
    with pytest.raises(ValueError, match="2-D"):
        as_boolean_matrix([0, 1])


def test_target():
    assert as_boolean_target(np.array([1.0, 0.0])).tolist() == [True, False]
    with pytest.raises(ValueError, match="y must be boolean or 0/1"):
        as_boolean_target(["a", "b"])
    with pytest.raises(ValueError, match="y must be boolean or 0/1"):
        as_boolean_target([0, np.nan])
    with pytest.raises(ValueError, match="3 rows but y has 2"):
        as_boolean_target([0, 1], 3)
    with pytest.raises(ValueError, match="1-D"):
        as_boolean_target([[0, 1]])
