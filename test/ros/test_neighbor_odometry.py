"""Neighbours' odometry, one subscription per topic per process (``NeighborOdometry``),
over DDS. (The cheap test that passes over neighbours that cannot be within reach:
test/unit/robot/test_neighbor_selection.py.)"""

import math

import pytest

from helpers.ros_helpers import params  # first: skips the module without rclpy
from helpers.orca_rig import odom  # noqa: E402

pytestmark = pytest.mark.ros


def test_two_nodes_of_one_process_share_one_subscription_per_robot(ros):
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


def test_when_the_node_holding_the_shared_subscriptions_goes_the_next_one_takes_them(ros):
    """A robot's node that stops alone (killed, shut down) must not take its process's
    neighbours with it: the next node subscribes the same topics, and still hears them."""
    from nav_msgs.msg import Odometry

    from orca_ros.nodes.neighbor_odometry import NeighborOdometry
    from orca_ros.nodes.orca_node import OrcaNode
    from orca_ros.nodes.ros_common import RELIABLE_10

    shared = NeighborOdometry()
    first, second = (OrcaNode(context=ros.context, namespace=name, neighbor_odometry=shared,
                              parameter_overrides=params(neighbors=["third"],
                                                         control_rate=20.0))
                     for name in ("a", "b"))
    ros.add(second)
    ros.executor.add_node(first)
    tester = ros.node("tester")
    third = tester.create_publisher(Odometry, "/third/odom", RELIABLE_10)
    assert ros.spin_until(lambda: third.get_subscription_count() == 1, 10.0)
    ros.executor.remove_node(first)
    first.destroy_node()
    assert shared.owner is second and shared.nodes == [second]
    assert shared.subscriptions["third"] in second.subscriptions
    assert ros.spin_until(lambda: third.get_subscription_count() == 1, 10.0)
    third.publish(odom(2.0, -1.0))
    assert ros.spin_until(lambda: "third" in second.neighbors, 5.0)
    assert second.neighbors["third"].position == (2.0, -1.0)


def test_with_neighbour_cells_a_far_robots_odometry_is_not_delivered_and_a_near_ones_is(ros):
    """Three robots in three processes (each its own NeighborOdometry), cells of 2 m:
    a's process hears near (2 m off) and never far (20 m off: its cells are not
    subscribed, no message of it is taken in), yet counts far as heard for its fleet by
    its footprint; far coming near is heard; a moving away lets go of the cells it no
    longer needs."""
    from nav_msgs.msg import Odometry

    from orca_ros.core.robot.cells import CellGrid, cell_topic, subscription_reach
    from orca_ros.nodes.neighbor_odometry import NeighborOdometry
    from orca_ros.nodes.orca_node import OrcaNode
    from orca_ros.nodes.ros_common import LATEST

    shared = {name: NeighborOdometry() for name in ("a", "near", "far")}
    nodes = {name: ros.add(OrcaNode(
        context=ros.context, namespace=name, neighbor_odometry=shared[name],
        parameter_overrides=params(neighbor_cell_size=2.0, neighbor_dist=3.0, max_speed=0.5,
                                   neighbor_cell_match_time=0.5,
                                   fleet_robots=[n for n in shared if n != name])))
        for name in shared}
    assert all(s.grid == CellGrid(2.0) for s in shared.values())
    assert all(s.subscriptions == {} for s in shared.values())  # no /<robot>/odom
    tester = ros.node("tester")
    where = {"a": (0.0, 0.0), "near": (2.0, 0.0), "far": (20.0, 0.0)}
    publishers = {name: tester.create_publisher(Odometry, f"/{name}/odom", LATEST)
                  for name in where}
    tester.create_timer(0.05, lambda: [publishers[n].publish(odom(*where[n])) for n in where])
    a = shared["a"]

    assert ros.spin_until(lambda: "near" in nodes["a"].neighbors, 10.0)
    ros.spin_until(lambda: False, 1.0)  # a second more of messages from everyone
    assert nodes["a"].neighbors["near"].position == (2.0, 0.0)
    assert "a" in nodes["near"].neighbors  # and the other way round
    assert a.messages_from.get("near", 0) > 5
    assert a.messages_from.get("far", 0) == 0 and "far" not in nodes["a"].neighbors
    # Its footprint says far is up: a does not hold for it (its states never come here).
    assert ros.spin_until(lambda: nodes["a"].inputs.unheard(a.heard) == [], 10.0)
    reach = subscription_reach(3.0, 0.5, 0.5) + 0.1 * 2.0  # and a tenth of a cell
    assert set(a.cell_subscriptions) == CellGrid(2.0).cells_within(0.0, 0.0, reach)
    assert CellGrid(2.0).cell_of(20.0, 0.0) not in a.cell_subscriptions
    topics = dict(tester.get_topic_names_and_types())
    assert cell_topic((10, 0)) in topics  # far publishes there; a does not listen

    where["far"] = (2.0, 2.0)  # far comes near: heard
    assert ros.spin_until(lambda: "far" in nodes["a"].neighbors
                          and nodes["a"].neighbors["far"].position == (2.0, 2.0), 10.0)

    where["a"] = (-30.0, 0.0)  # a goes away: the cells round the origin are let go
    assert ros.spin_until(lambda: (0, 0) not in a.cell_subscriptions, 10.0)
    assert set(a.cell_subscriptions) == CellGrid(2.0).cells_within(-30.0, 0.0, reach)
    heard = a.messages_from["near"]
    ros.spin_until(lambda: False, 1.0)
    assert a.messages_from["near"] == heard

    # A message on a cell topic that names no robot: refused with a diagnostic, a's
    # neighbours unchanged.
    nameless = tester.create_publisher(Odometry, cell_topic((-15, 0)), LATEST)
    before = dict(a.messages_from)
    assert ros.spin_until(lambda: nameless.get_subscription_count() >= 1, 10.0)
    assert ros.spin_until(lambda: nameless.publish(odom(-29.0, 0.0)) or
                          f"odom of {cell_topic((-15, 0))}" in nodes["a"].rejected, 10.0)
    assert set(a.messages_from) == set(before)  # nobody new was taken in


def test_a_robots_latest_reading_is_its_state_while_that_is_as_new_as_its_odometry():
    """The process's rows of states, odometry and the latest of each, written as the
    serialized messages come (no DDS: the messages are handed in as bytes)."""
    from types import SimpleNamespace

    from rclpy.serialization import serialize_message

    from orca_ros.nodes.neighbor_odometry import NeighborOdometry

    clock, problems = {"now": 0}, []
    owner = SimpleNamespace(shared_frame="map", _now_ns=lambda: clock["now"],
                            odometry_gate=SimpleNamespace(max_coordinate=1e6),
                            report_bad_neighbor_odometry=lambda name, why: problems.append(why))
    shared = NeighborOdometry()
    shared.join(owner)

    def message(x, sec, frame="map"):
        msg = odom(x, 0.0)
        msg.header.frame_id = frame
        msg.header.stamp.sec, msg.header.stamp.nanosec = sec, 0
        msg.child_frame_id = "r"
        return serialize_message(msg)

    clock["now"] = 10 * 10**9
    shared.on_odometry("r", message(1.0, 10))
    assert shared.latest["r"].position == (1.0, 0.0) and not shared.latest["r"].announced
    shared.on_state(message(2.0, 10))  # as new: the state
    assert shared.latest["r"].position == (2.0, 0.0) and shared.latest["r"].announced
    clock["now"] = 11 * 10**9
    shared.on_odometry("r", message(3.0, 11))  # newer odometry: its orca_node may be gone
    assert shared.latest["r"].position == (3.0, 0.0) and not shared.latest["r"].announced
    shared.on_state(message(9.0, 9))  # older than the state held: ignored
    assert shared.states["r"].position == (2.0, 0.0)
    assert shared.latest["r"].position == (3.0, 0.0)
    shared.on_state(message(5.0, 11))
    assert shared.latest["r"].position == (5.0, 0.0) and shared.messages == 5  # all taken in
    shared.on_state(message(6.0, 12, frame="odom"))  # another frame: refused, nothing changes
    assert shared.latest["r"].position == (5.0, 0.0) and shared.messages == 5  # not counted
    assert problems == ["state in frame 'odom', not the shared frame 'map'"]


def test_the_nodes_of_a_process_share_one_look_at_the_graph_for_half_a_second(monkeypatch):
    from orca_ros.nodes import neighbor_odometry
    from orca_ros.nodes.neighbor_odometry import GRAPH_REUSE_S, NeighborOdometry

    wall = [100.0]
    monkeypatch.setattr(neighbor_odometry.time, "monotonic", lambda: wall[0])
    looks = []

    def look():
        looks.append(wall[0])
        return ("r1", "r2")

    shared = NeighborOdometry()
    assert shared.robots_publishing_odometry(look) == ("r1", "r2")
    wall[0] += GRAPH_REUSE_S - 0.01  # another node of the process, soon after
    assert shared.robots_publishing_odometry(look) == ("r1", "r2") and looks == [100.0]
    wall[0] += 0.01
    shared.robots_publishing_odometry(look)
    assert looks == [100.0, 100.0 + GRAPH_REUSE_S]
