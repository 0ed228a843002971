"""Neighbours' odometry, one subscription per topic per process (``NeighborOdometry``),
and the cheap test that passes over neighbours that cannot be within reach."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.controller import Neighbor
from orca_ros.core.perception import beyond_reach, perceive_neighbor, select_neighbors

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


def test_two_nodes_of_one_process_share_one_subscription_per_robot(ros):
    pytest.importorskip("rclpy")
    from ros_helpers import params
    from test_nodes import odom

    from nav_msgs.msg import Odometry

    from orca_ros.nodes.neighbor_odometry import NeighborOdometry
    from orca_ros.nodes.orca_node import OrcaNode
    from orca_ros.nodes.ros_common import RELIABLE_10

    shared = NeighborOdometry()
    nodes = {name: ros.add(OrcaNode(
        context=ros.context, namespace=name, neighbor_odometry=shared,
        parameter_overrides=params(neighbors=[other, "third"], control_rate=20.0)))
        for name, other in (("a", "b"), ("b", "a"))}
    # a follows b and third, b follows a and third: three topics, not four subscriptions.
    assert sorted(shared.subscriptions) == ["a", "b", "third"]
    assert shared.owner is nodes["a"] and shared.nodes == [nodes["a"], nodes["b"]]
    tester = ros.node("tester")
    third = tester.create_publisher(Odometry, "/third/odom", RELIABLE_10)
    assert ros.spin_until(lambda: third.get_subscription_count() == 1, 10.0)
    third.publish(odom(3.0, 1.0))
    assert ros.spin_until(lambda: "third" in nodes["a"].neighbors
                          and "third" in nodes["b"].neighbors, 5.0)
    assert nodes["b"].neighbors["third"].position == (3.0, 1.0)
    assert shared.messages == 1  # taken in once for both nodes
    third.publish(odom(math.nan, 1.0))
    assert ros.spin_until(lambda: all("odom of third" in n.rejected for n in nodes.values()), 5.0)
    assert nodes["a"].neighbors["third"].position == (3.0, 1.0)  # the NaN changed nothing
    assert shared.messages == 1
