"""The cheap test that passes over neighbours that cannot be within reach
(``perception.beyond_reach``), against the neighbour rule (``select_neighbors``)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.robot.state import Neighbor
from orca_ros.core.robot.perception import beyond_reach, perceive_neighbor, select_neighbors

coordinate = st.floats(-20.0, 20.0)
speed = st.floats(-3.0, 3.0)


@settings(max_examples=500, deadline=None)
@given(coordinate, coordinate, coordinate, coordinate, speed, speed, st.floats(0.0, 3.0),
       st.floats(0.0, 3.0), st.floats(0.1, 10.0), st.floats(0.0, 2.0), st.floats(0.0, 10.0))
def test_a_neighbour_passed_over_is_never_one_the_neighbour_rule_would_keep(
        x, y, nx, ny, vx, vy, age, max_speed, neighbor_dist, extrapolate, accel):
    """Whatever the perception makes of the neighbour (carried forward for up to
    ``extrapolate`` s, grown by its uncertainty), one that ``beyond_reach`` passes over
    is not among ``select_neighbors``' (without the ``2 speed`` term this fails)."""
    seen = Neighbor((nx, ny), (vx, vy), 0.2, "n")
    if beyond_reach((x, y), (nx, ny), (vx, vy), age, max_speed, neighbor_dist):
        perceived = perceive_neighbor(seen, age, max_speed, accel, extrapolate)
        assert select_neighbors((x, y), [perceived], neighbor_dist) == []


def test_beyond_reach_by_hand():
    # 10 m away, 1 m/s, 0.5 s old, others at up to 2 m/s: at least 10 - (2 + 2) 0.5 = 8 m.
    assert beyond_reach((0.0, 0.0), (10.0, 0.0), (0.0, 1.0), 0.5, 2.0, 7.9)
    assert not beyond_reach((0.0, 0.0), (10.0, 0.0), (0.0, 1.0), 0.5, 2.0, 8.1)
