"""Unit vectors exact for the tiniest vectors (orca_ros.core.geometry.vectors)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.geometry.vectors import unit2, unit2_arrays, unit3

component = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("tiny", [5e-324, 1e-320, 1e-300, 1e-170])
def test_the_tiniest_vectors_keep_their_direction(tiny):
    half = math.sqrt(0.5)
    assert unit2(tiny, -tiny) == pytest.approx((half, -half), rel=1e-15)
    assert unit3(-tiny, 0.0, tiny) == pytest.approx((-half, 0.0, half), rel=1e-15)
    ux, uy = unit2_arrays(np.array([tiny]), np.array([-tiny]))
    assert (ux[0], uy[0]) == pytest.approx((half, -half), rel=1e-15)


def test_the_zero_vector_has_no_direction():
    assert unit2(0.0, 0.0) is None and unit3(0.0, -0.0, 0.0) is None
    ux, uy = unit2_arrays(np.zeros(2), np.zeros(2), zero_direction=(0.0, 1.0))
    assert ux.tolist() == [0.0, 0.0] and uy.tolist() == [1.0, 1.0]


@settings(max_examples=300, deadline=None)
@given(component, component, component)
def test_other_vectors_give_the_numbers_rvo2_computes(x, y, z):
    """Bit for bit ``w / |w|`` (RVO2's ``w / abs(w)``; RVO2-3D's square root of the sum of
    squares) wherever the length is not tiny, so strict mode still reproduces RVO2 and the
    batched half-planes are unchanged."""
    length = math.hypot(x, y)
    if length > 1e-100:
        assert unit2(x, y) == (x / length, y / length)
        ux, uy = unit2_arrays(np.array([x]), np.array([y]))
        array_length = np.hypot(x, y)  # numpy's hypot, as the batched half-planes take it
        assert (ux[0], uy[0]) == (x / array_length, y / array_length)
    length3 = math.sqrt(x * x + y * y + z * z)
    if length3 > 1e-100:
        assert unit3(x, y, z) == (x / length3, y / length3, z / length3)
