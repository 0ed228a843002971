"""Obstacles from several sources on ``/obstacles`` through ROS: the Marker conversion, and
real nodes over DDS (``obstacle_server`` and a second publisher, seen by an ``orca_node``).
(The core registry: test/unit/robot/test_obstacle_registry.py.)
"""

import math

import pytest

from helpers.ros_helpers import latest_status, params  # first: skips without rclpy

from builtin_interfaces.msg import Duration  # noqa: E402
from geometry_msgs.msg import Point  # noqa: E402
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from visualization_msgs.msg import Marker  # noqa: E402

from orca_ros.core.robot.obstacle_registry import ObstacleAction  # noqa: E402
from orca_ros.nodes.obstacle_server import ObstacleServer  # noqa: E402
from orca_ros.nodes.orca_node import OrcaNode  # noqa: E402
from orca_ros.nodes.ros_common import (LATCHED, RELIABLE_10, BadMessage,  # noqa: E402
                                       obstacle_update, quaternion_from_yaw)

from helpers.geometry import segments, square  # noqa: E402

pytestmark = pytest.mark.ros

ADD, DELETE, DELETE_ALL = ObstacleAction.ADD, ObstacleAction.DELETE, ObstacleAction.DELETE_ALL
NAN = math.nan
WALLS = square(0.0, 0.0, 5.0)

# A tracker that keeps several ids alive: depth of at least its number of ids.
TRACKER_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         history=HistoryPolicy.KEEP_LAST)


def marker(ns, marker_id, points=(), action=0, kind=None, lifetime=0.0):
    msg = Marker()
    msg.header.frame_id = "world"
    msg.ns, msg.id, msg.action = ns, marker_id, action
    msg.type = Marker.LINE_LIST if kind is None else kind
    msg.pose.orientation.w = 1.0
    msg.points = [Point(x=float(x), y=float(y), z=0.0) for x, y in points]
    msg.lifetime = Duration(sec=int(lifetime), nanosec=int(round((lifetime % 1) * 1e9)))
    return msg


def test_a_line_list_becomes_an_update_and_other_types_only_delete():
    update = obstacle_update(marker("tracker", 3, square(1.0, 2.0), lifetime=1.5))
    assert (update.ns, update.marker_id, update.action) == ("tracker", 3, ADD)
    assert update.points == tuple(square(1.0, 2.0)) and update.lifetime == pytest.approx(1.5)
    assert obstacle_update(marker("t", 1, action=Marker.MODIFY)).action == ADD
    assert obstacle_update(marker("t", 1, action=Marker.DELETE, kind=Marker.CUBE)).action == DELETE
    assert obstacle_update(marker("t", 0, action=Marker.DELETEALL,
                                  kind=Marker.SPHERE)).action == DELETE_ALL
    with pytest.raises(BadMessage, match="ns 'map' id 2: marker type 4 is not LINE_LIST"):
        obstacle_update(marker("map", 2, WALLS, kind=Marker.LINE_STRIP))
    with pytest.raises(BadMessage, match="unknown marker action 1"):
        obstacle_update(marker("map", 2, WALLS, action=1))
    # Lifetimes of at most 100 us are "forever", as in RViz.
    assert obstacle_update(marker("t", 1, WALLS, lifetime=1e-5)).lifetime == 0.0


def test_the_marker_pose_moves_its_points_as_in_rviz():
    msg = marker("tracker", 1, [(1.0, 0.0), (2.0, 0.0)])
    msg.pose.position.x, msg.pose.position.y = 10.0, 20.0
    msg.pose.orientation = quaternion_from_yaw(math.pi / 2)
    (a, b) = obstacle_update(msg).points
    assert a == pytest.approx((10.0, 21.0)) and b == pytest.approx((10.0, 22.0))
    msg.pose.position.x = NAN
    with pytest.raises(BadMessage, match="non-finite marker pose"):
        obstacle_update(msg)


def orca_node(ros):
    return ros.add(OrcaNode(context=ros.context, namespace="me",
                            parameter_overrides=params(neighbors=["nobody"])))


def walls_server(ros):
    return ros.add(ObstacleServer(context=ros.context,
                                  parameter_overrides=params(scenario="corridor_wall")))


def test_obstacle_server_publishes_under_its_own_name(ros):
    server = walls_server(ros)
    received = []
    ros.node("listener").create_subscription(Marker, "/obstacles", received.append, LATCHED)
    assert ros.spin_until(lambda: received, 5.0)
    assert (received[0].ns, received[0].id) == ("obstacle_server", 0)
    assert len(received[0].points) == 2 * len(server.segments)


def test_orca_node_holds_static_walls_and_a_moving_obstacle_from_two_publishers(ros):
    server = walls_server(ros)
    walls = set(server.segments)
    node = orca_node(ros)
    assert ros.spin_until(lambda: len(node.edges) == 2 * len(walls), 5.0)
    tracker = ros.node("tracker").create_publisher(Marker, "/obstacles", TRACKER_QOS)
    ros.spin_until(lambda: tracker.get_subscription_count() > 0, 5.0)

    for x in (1.0, 1.5, 2.0):  # the obstacle moves: MODIFY of the same key
        box = square(x, 0.0, 0.2)
        tracker.publish(marker("tracker", 1, box, action=Marker.MODIFY))
        assert ros.spin_until(
            lambda box=box: set(node.obstacles.segments) == walls | set(segments(box)),
            5.0), f"orca_node does not hold walls + the obstacle at x = {x}"
        assert len(node.edges) == 2 * (len(walls) + 4)  # the list the control loop reads
        assert node.edges is node.obstacles.edges

    tracker.publish(marker("tracker", 1, action=Marker.DELETE))
    assert ros.spin_until(lambda: set(node.obstacles.segments) == walls, 5.0)
    assert len(node.edges) == 2 * len(walls)
    assert node.rejected == {}


def test_a_late_orca_node_gets_every_publishers_latched_obstacles(ros):
    server = walls_server(ros)
    tracker = ros.node("tracker").create_publisher(Marker, "/obstacles", TRACKER_QOS)
    boxes = {k: square(float(k), 3.0, 0.2) for k in (1, 2, 3)}
    for k, box in boxes.items():  # a burst of three ids, before anyone listens
        tracker.publish(marker("tracker", k, box))
    node = orca_node(ros)
    expected = set(server.segments) | {s for box in boxes.values() for s in segments(box)}
    assert ros.spin_until(lambda: set(node.obstacles.segments) == expected, 5.0), \
        f"late orca_node holds {sorted(node.obstacles.keys)}"
    assert len(node.edges) == 2 * len(expected)


def test_walls_in_another_frame_are_refused_naming_both_frames(ros):
    """A source publishing in map to robots whose shared frame is world: its points are
    not world coordinates, so they are refused, the walls already held stay, and a
    DELETE (no points) is taken in any frame."""
    node = orca_node(ros)
    tracker = ros.node("tracker").create_publisher(Marker, "/obstacles", TRACKER_QOS)
    ros.spin_until(lambda: tracker.get_subscription_count() > 0, 5.0)
    tracker.publish(marker("tracker", 1, square(2.0, 0.0, 0.2)))
    assert ros.spin_until(lambda: len(node.obstacles.segments) == 4, 5.0)
    elsewhere = marker("tracker", 2, square(4.0, 0.0, 0.2))
    elsewhere.header.frame_id = "map"
    tracker.publish(elsewhere)
    assert ros.spin_until(lambda: node.rejected.get("/obstacles") == 1, 5.0)
    assert "'map'" in node.last_problem and "'world'" in node.last_problem
    assert len(node.obstacles.segments) == 4
    gone = marker("tracker", 1, action=Marker.DELETE)
    gone.header.frame_id = "map"
    tracker.publish(gone)
    assert ros.spin_until(lambda: not node.obstacles.segments, 5.0)


def test_a_bad_marker_from_a_second_publisher_leaves_the_walls_intact(ros):
    server = walls_server(ros)
    node = orca_node(ros)
    assert ros.spin_until(lambda: len(node.edges) == 2 * len(server.segments), 5.0)
    edges = node.edges
    bad_publisher = ros.node("broken_driver").create_publisher(Marker, "/obstacles", LATCHED)
    ros.spin_until(lambda: bad_publisher.get_subscription_count() > 0, 5.0)
    bad = [(1.0, 1.0), (2.0, 1.0), (NAN, 0.0)]  # 3 points, one NaN
    for _ in range(5):  # published over and over, as seen in the field
        bad_publisher.publish(marker("", 0, bad))
        bad_publisher.publish(marker("obstacle_server", 0, bad))  # even as the walls' own key
        ros.spin_for(0.05)
    assert ros.spin_until(lambda: node.rejected.get("/obstacles", 0) >= 10, 5.0), node.rejected
    assert node.edges is edges and len(node.edges) == 2 * len(server.segments)
    assert set(node.obstacles.segments) == set(server.segments)
    assert "ns 'obstacle_server' id 0" in node.last_problem or "ns '' id 0" in node.last_problem


def test_a_marker_with_a_lifetime_disappears_and_the_walls_stay(ros):
    server = walls_server(ros)
    node = orca_node(ros)
    tracker = ros.node("tracker").create_publisher(Marker, "/obstacles", TRACKER_QOS)
    ros.spin_until(lambda: tracker.get_subscription_count() > 0, 5.0)
    box = square(2.0, 0.0, 0.2)
    tracker.publish(marker("tracker", 1, box, lifetime=1.5))
    assert ros.spin_until(lambda: set(segments(box)) <= set(node.obstacles.segments), 5.0)
    assert ros.spin_until(lambda: set(node.obstacles.segments) == set(server.segments), 10.0)
    assert len(node.edges) == 2 * len(server.segments)


def test_a_robot_told_to_expect_the_walls_holds_still_until_they_come(ros):
    """Issue 31: on Jazzy the latched walls reached orca_nodes 2-3 s after they started
    driving, and robots drove into walls meanwhile. With obstacle_sources the robot holds,
    says why, and drives once the walls are in."""
    from diagnostic_msgs.msg import DiagnosticArray
    from geometry_msgs.msg import PoseStamped, Twist
    from nav_msgs.msg import Odometry

    node = ros.add(OrcaNode(context=ros.context, namespace="me", parameter_overrides=params(
        neighbors=["nobody"], obstacle_sources=["obstacle_server"], control_rate=20.0)))
    tester = ros.node("tester")
    own = tester.create_publisher(Odometry, "/me/odom", RELIABLE_10)
    goal_pub = tester.create_publisher(PoseStamped, "/me/goal_pose", RELIABLE_10)
    commands, diagnostics = [], []
    tester.create_subscription(Twist, "/me/cmd_vel", commands.append, RELIABLE_10)
    tester.create_subscription(DiagnosticArray, "/diagnostics", diagnostics.append, 10)
    ros.spin_until(lambda: own.get_subscription_count() and goal_pub.get_subscription_count())
    goal = PoseStamped()
    goal.pose.position.x = 3.0
    goal_pub.publish(goal)
    odom = Odometry()
    odom.header.frame_id = "world"
    odom.pose.pose.orientation.w = 1.0

    def play(seconds):
        for _ in range(int(seconds / 0.05)):
            own.publish(odom)
            ros.spin_for(0.05)

    play(1.5)
    assert commands and all(c.linear.x == 0.0 and c.linear.y == 0.0 for c in commands)
    assert node.goal_state == "holding: waiting for obstacles from obstacle_server"
    status, _ = latest_status(diagnostics, "orca_node: me")
    assert status is not None and "waiting for obstacles from obstacle_server" in status.message
    walls_server(ros)  # the walls come late
    assert ros.spin_until(lambda: node.edges, 5.0)
    play(0.5)
    assert commands[-1].linear.x > 0.1, "with the walls in, the robot drives to its goal"
    assert node.goal_state == "driving"
