"""The cheap reach test that passes over neighbours that cannot be within reach (in
``_orca2d.perceive_rows``), against the neighbour rule (``select_neighbors``)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.orca._orca2d import perceive_rows
from orca_ros.core.robot.perception import NeighborReading
from orca_ros.core.robot.readings import Readings
from helpers.perception_reference import beyond_reach

coordinate = st.floats(-20.0, 20.0)
speed = st.floats(-3.0, 3.0)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(coordinate, coordinate, speed, speed, st.floats(0.0, 3.0)),
                min_size=1, max_size=8),
       coordinate, coordinate, st.floats(0.0, 3.0), st.floats(0.1, 10.0),
       st.floats(0.0, 2.0), st.floats(0.0, 10.0))
def test_a_neighbour_passed_over_is_never_one_the_neighbour_rule_would_keep(
        seen, x, y, max_speed, neighbor_dist, extrapolate, accel):
    """Whatever the perception makes of a neighbour (carried forward for up to
    ``extrapolate`` s, grown by its uncertainty), one that the reach test passes over
    is not among those selected when every row is perceived (without the ``2 speed``
    term of the test this fails)."""
    now = 10.0
    readings = {f"n{k}": NeighborReading(now - age, (nx, ny), (vx, vy))
                for k, (nx, ny, vx, vy, age) in enumerate(seen)}
    rows = Readings.of(readings)
    args = (rows.data, rows.names, x, y, now, 0.0, max_speed, accel, extrapolate,
            neighbor_dist, 0.3)
    kept = {row[0] for row in perceive_rows(*args, None)}
    everyone = perceive_rows(*args, bytes([1] * len(rows.names)))
    assert len(everyone) == len(rows.names)
    for row in everyone:
        if row[0] not in kept:
            assert not row[8]


def test_the_reach_test_by_hand():
    """10 m away, 1 m/s, 0.5 s old, others at up to 2 m/s: at least 10 - (2 + 2) 0.5 = 8 m
    away once carried forward: passed over within 7.9 m, perceived within 8.1 m."""
    rows = Readings.of({"n": NeighborReading(0.0, (10.0, 0.0), (0.0, 1.0))})
    args = (rows.data, rows.names, 0.0, 0.0, 0.5, 0.0, 2.0, 1.0, 1.0)
    assert perceive_rows(*args, 7.9, 0.3, None) == []
    assert [row[0] for row in perceive_rows(*args, 8.1, 0.3, None)] == [0]
    assert beyond_reach((0.0, 0.0), (10.0, 0.0), (0.0, 1.0), 0.5, 2.0, 7.9)  # the reference
