"""Neighbour perception over readings' rows in C (``_orca2d.perceive_rows``), against
the package's Python rules it implements (``test/helpers/perception_reference.py``),
number for number, and as the cycle uses it."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.orca._orca2d import perceive_rows
from orca_ros.core.robot.perception import NeighborReading
from orca_ros.core.robot.readings import Readings
from helpers.perception_reference import beyond_reach, perceive_neighbor_rows

coordinate = st.floats(-20.0, 20.0)
speed = st.floats(-3.0, 3.0)
reading = st.tuples(coordinate, coordinate, speed, speed, st.floats(0.0, 3.0),
                    st.floats(0.0, 0.6), st.booleans(), st.booleans())


@settings(max_examples=400, deadline=None)
@given(st.lists(reading, max_size=12), coordinate, coordinate, st.floats(0.0, 0.5),
       st.floats(0.0, 3.0), st.floats(0.0, 10.0), st.floats(0.0, 2.0), st.floats(0.1, 10.0),
       st.floats(0.0, 0.5), st.booleans())
def test_the_c_perception_is_the_python_rules_number_for_number(
        seen, x, y, lag, max_speed, accel, extrapolate, neighbor_dist, max_uncertainty,
        tie):
    now = 10.0
    if tie and len(seen) > 1:  # two at the same place: ordered by name
        seen[1] = seen[0][:6] + seen[1][6:]
    readings = {f"n{len(seen) - k}": NeighborReading(now - age, (nx, ny), (vx, vy),
                                                     uncertainty=u, announced=announced)
                for k, (nx, ny, vx, vy, age, u, announced, _) in enumerate(seen)}
    keep = bytes(kept for *_, kept in seen)
    rows = Readings.of(readings)
    args = (rows.data, rows.names, x, y, now, lag, max_speed, accel, extrapolate,
            neighbor_dist, max_uncertainty)
    for mask in (None, keep):
        assert perceive_rows(*args, mask) == perceive_neighbor_rows(*args, mask)


def test_perceive_rows_by_hand():
    """One neighbour 5 m ahead moving away at 1 m/s, read 0.2 s ago, lag 0.1 s: carried
    forward 0.3 s to 5.3 m, with 0.5 a t^2 = 0.09 m of uncertainty (a = 2) besides its
    own 0.1 m; one 30 m off is passed over; one standing 10.05 m off, read now, is kept
    by the reach test (it may have come 1.5 m/s x 0.1 s = 0.15 m nearer) but not
    selected (its disc grows by 0.01 m only: 0.5 a t^2)."""
    readings = {"near": NeighborReading(0.8, (5.0, 0.0), (1.0, 0.0), uncertainty=0.1,
                                        announced=True),
                "far": NeighborReading(0.8, (30.0, 0.0), (0.0, 0.0)),
                "edge": NeighborReading(1.0, (0.0, 10.05), (0.0, 0.0))}
    rows = Readings.of(readings)
    passed = perceive_rows(rows.data, rows.names, 0.0, 0.0, 1.0, 0.1, 1.5, 2.0, 0.5,
                           10.0, 0.3, None)
    (k, stamp, px, py, vx, vy, u, age_u, selected, announced), edge = passed
    assert rows.names[k] == "near" and selected and announced and stamp == 0.8
    assert (px, py, vx, vy) == pytest.approx((5.3, 0.0, 1.0, 0.0))
    assert age_u == pytest.approx(0.5 * 2.0 * 0.3 ** 2) and u == pytest.approx(0.1 + age_u)
    assert rows.names[edge[0]] == "edge" and not edge[8]  # heard 0.1 s off: 0.15 m more
    assert not beyond_reach((0.0, 0.0), (0.0, 10.05), (0.0, 0.0), 0.1, 1.5, 10.0)


def test_perceive_rows_refuses_what_it_cannot_read():
    data = np.zeros((1, 10))
    common = (0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 10.0, 0.3)
    with pytest.raises(TypeError, match="names"):
        perceive_rows(data, ("a",), *common, None)
    with pytest.raises(ValueError, match="data"):
        perceive_rows(data, ["a", "b"], *common, None)
    with pytest.raises(TypeError, match="keep"):
        perceive_rows(data, ["a"], *common, b"\x00\x00")
    assert perceive_rows(np.zeros((0, 10)), [], *common, None) == []
    assert math.isnan(perceive_rows(np.full((1, 10), math.nan), ["a"], *common, b"\x01")[0][2])
