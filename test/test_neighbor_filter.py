"""Only the neighbours that matter (``neighbor_filter``, off by default): an orca_node
takes a neighbour's odometry only while that neighbour is within its reach (a DDS content
filter on the position, moved as the robot moves), so deliveries no longer grow with the
square of the fleet. Off by default: under launch, Fast DDS 3.2's publishers crashed
when readers moved their filters (see the README, "Fleet scale")."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.perception import NeighborFilter


def test_the_reach_worked_by_hand():
    # 2 m range, radii 0.3 and 0.5, both at up to 1 m/s for one second: 2 + 0.8 + 2.
    box = NeighborFilter.for_robot(2.0, 0.3, 0.5, 1.0, 1.0)
    assert box.reach == pytest.approx(4.8)
    assert box.slack == pytest.approx(1.2) and box.half_width == pytest.approx(6.0)
    assert box.needs_update((0.0, 0.0))  # never set: everything passes until it is
    assert [float(b) for b in box.parameters()] == [-1e300, 1e300, -1e300, 1e300]
    assert [float(b) for b in box.recentre((1.0, -2.0))] == [-5.0, 7.0, -8.0, 4.0]
    assert not box.needs_update((2.19, -2.0)) and box.needs_update((2.21, -2.0))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-3, 3), st.floats(-3, 3)), min_size=1, max_size=40),
       st.floats(0, 2 * math.pi), st.floats(0, 1))
def test_a_neighbour_within_reach_is_always_inside_the_box(moves, bearing, fraction):
    """Whatever path the robot takes (recentring whenever the box says so), a robot
    within ``reach`` of it lies inside the box, so its odometry is delivered."""
    box = NeighborFilter.for_robot(3.0, 0.2, 0.2, 0.5, 0.5)
    x = y = 0.0
    for dx, dy in moves:
        x, y = x + 0.1 * dx, y + 0.1 * dy  # at most 0.42 m per step, under the slack
        if box.needs_update((x, y)):
            box.recentre((x, y))
        low_x, high_x, low_y, high_y = (float(b) for b in box.parameters())
        distance = fraction * box.reach
        qx, qy = x + distance * math.cos(bearing), y + distance * math.sin(bearing)
        assert low_x < qx < high_x and low_y < qy < high_y


def test_a_far_neighbours_odometry_is_not_delivered_and_a_near_ones_is(ros):
    pytest.importorskip("rclpy")
    from test_nodes import Rig, goal, odom

    # reach 2 + 0.3 + 0.3 + 2 x 1 m/s x 1 s = 4.6 m, the box 5.75 m each way
    rig = Rig(ros, neighbor_dist=2.0, neighbor_filter=True)
    rig.goal.publish(goal(6.0, 0.0))
    rig.drive(0.5, odom(0.0, 0.0), odom(4.0, 0.0))
    assert rig.node.neighbor_filter is not None and rig.node.neighbor_filter.centre == (0.0, 0.0)
    assert rig.node.neighbors["other"].position == (4.0, 0.0)
    near = rig.node.neighbor_messages
    assert near > 0
    rig.drive(0.5, odom(0.0, 0.0), odom(20.0, 0.0))  # far: filtered out
    rig.ros.spin_for(0.2)
    assert rig.node.neighbor_messages == near
    assert rig.node.neighbors["other"].position == (4.0, 0.0)
    rig.drive(0.5, odom(0.0, 0.0), odom(math.nan, 0.0))  # a NaN pose never passes a filter
    assert rig.node.neighbor_messages == near and "odom of other" not in rig.node.rejected
    # The robot moves towards it: the box follows, and the far one is delivered again.
    rig.drive(0.5, odom(16.0, 0.0), odom(20.0, 0.0))
    assert rig.node.neighbor_filter.centre == (16.0, 0.0)
    assert rig.ros.spin_until(lambda: rig.node.neighbors["other"].position == (20.0, 0.0), 5.0)
    assert rig.node.neighbor_messages > near
    _, values = rig.my_status()
    assert values["neighbor_filter"].startswith("on")


def test_without_the_filter_every_neighbour_is_delivered(ros):
    pytest.importorskip("rclpy")
    from test_nodes import Rig, odom

    rig = Rig(ros, neighbor_dist=2.0)  # the default: off
    rig.drive(0.5, odom(0.0, 0.0), odom(20.0, 0.0))
    assert rig.node.neighbor_filter is None
    assert rig.node.neighbors["other"].position == (20.0, 0.0)
