"""Obstacles from several sources on ``/obstacles``, kept per (ns, id) as RViz keeps markers.

The first half tests the core registry without ROS. The second half tests the
Marker conversion and real nodes over DDS: ``obstacle_server`` and a second
publisher, seen by an ``orca_node``.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.robot.obstacle_registry import (ObstacleAction, ObstacleRegistry, ObstacleUpdate,
                                                   ObstacleUpdateError)
from orca_ros.core.geometry.types import Segment

ADD, DELETE, DELETE_ALL = ObstacleAction.ADD, ObstacleAction.DELETE, ObstacleAction.DELETE_ALL
NAN = math.nan


def add(ns, marker_id, *points, lifetime=0.0):
    return ObstacleUpdate(ns, marker_id, ADD, tuple(points), lifetime)


def square(cx, cy, half=0.5):
    """A LINE_LIST square (four segments) centred at (cx, cy)."""
    corners = [(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half),
               (cx - half, cy + half)]
    points = []
    for i in range(4):
        points += [corners[i], corners[(i + 1) % 4]]
    return points


def segments(points):
    return [Segment(points[k], points[k + 1]) for k in range(0, len(points), 2)]


WALLS = square(0.0, 0.0, 5.0)


# --- core registry ------------------------------------------------------------------------------

def test_add_gives_the_segments_as_rvo2_edges_and_counts_a_version():
    registry = ObstacleRegistry()
    assert registry.edges == [] and registry.version == 0
    assert registry.apply(add("walls", 0, *WALLS)) is True
    assert registry.segments == segments(WALLS)
    assert registry.version == 1
    edges = registry.edges
    assert len(edges) == 2 * 4  # a segment is a two-vertex chain: an edge each way
    assert {(e.point, e.next.point) for e in edges} == \
        {(s.a, s.b) for s in segments(WALLS)} | {(s.b, s.a) for s in segments(WALLS)}
    assert registry.edges is edges  # not rebuilt without a change


def test_modify_replaces_only_that_keys_segments():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 7, *square(1.0, 1.0)))
    edges = registry.edges
    assert registry.apply(add("tracker", 7, *square(2.0, 1.0))) is True  # MODIFY == ADD
    assert registry.segments_of(("tracker", 7)) == tuple(segments(square(2.0, 1.0)))
    assert registry.segments_of(("walls", 0)) == tuple(segments(WALLS))
    assert len(registry.segments) == 8
    assert registry.edges is not edges and len(registry.edges) == 16
    assert not any(s in registry.segments for s in segments(square(1.0, 1.0)))


def test_the_same_add_again_changes_nothing():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    edges, version = registry.edges, registry.version
    assert registry.apply(add("walls", 0, *WALLS)) is False  # a republished map
    assert registry.version == version and registry.edges is edges


def test_delete_removes_that_key_only():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    registry.apply(add("tracker", 2, *square(3.0, 1.0)))
    version = registry.version
    assert registry.apply(ObstacleUpdate("tracker", 1, DELETE)) is True
    assert registry.version == version + 1
    assert registry.keys == [("tracker", 2), ("walls", 0)]
    assert registry.segments == segments(square(3.0, 1.0)) + segments(WALLS)
    assert registry.apply(ObstacleUpdate("tracker", 1, DELETE)) is False  # already gone
    assert registry.apply(ObstacleUpdate("nobody", 9, DELETE)) is False
    assert registry.version == version + 1


def test_deleteall_with_a_namespace_clears_that_namespace_only():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    registry.apply(add("tracker", 2, *square(3.0, 1.0)))
    assert registry.apply(ObstacleUpdate("tracker", 0, DELETE_ALL)) is True
    assert registry.keys == [("walls", 0)]
    assert registry.segments == segments(WALLS)
    assert registry.apply(ObstacleUpdate("tracker", 0, DELETE_ALL)) is False


def test_deleteall_without_a_namespace_clears_every_source():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    assert registry.apply(ObstacleUpdate("", 0, DELETE_ALL)) is True
    assert registry.keys == [] and registry.segments == [] and registry.edges == []


def test_two_namespaces_with_the_same_id_are_kept_apart():
    registry = ObstacleRegistry()
    registry.apply(add("map", 0, *WALLS))
    registry.apply(add("tracker", 0, *square(1.0, 1.0)))
    assert registry.segments_of(("map", 0)) == tuple(segments(WALLS))
    assert registry.segments_of(("tracker", 0)) == tuple(segments(square(1.0, 1.0)))
    registry.apply(add("tracker", 0))  # empty ADD: the tracker has nothing now
    assert registry.segments == segments(WALLS)


def test_the_union_does_not_depend_on_the_order_updates_came_in():
    updates = [add("walls", 0, *WALLS), add("tracker", 3, *square(1.0, 1.0)),
               add("a", 1, (0.0, 0.0), (1.0, 0.0))]
    forward, backward = ObstacleRegistry(), ObstacleRegistry()
    for update in updates:
        forward.apply(update)
    for update in reversed(updates):
        backward.apply(update)
    assert forward.segments == backward.segments
    assert [(e.point, e.next.point) for e in forward.edges] == \
        [(e.point, e.next.point) for e in backward.edges]


def test_sources_heard_are_every_applied_updates_namespace_and_none_refused():
    """Issue 31: a robot told to expect a source waits until it has heard it at all
    (an empty ADD or a DELETE counts: the source has spoken); a refused update does not."""
    registry = ObstacleRegistry()
    assert registry.missing_sources(["obstacle_server", "map"]) == ["obstacle_server", "map"]
    with pytest.raises(ObstacleUpdateError):
        registry.apply(add("obstacle_server", 0, (0.0, 0.0)))  # odd number of points
    assert registry.missing_sources(["obstacle_server"]) == ["obstacle_server"]
    registry.apply(add("obstacle_server", 0))  # no walls, but spoken
    registry.apply(ObstacleUpdate("map", 4, DELETE))
    assert registry.missing_sources(["obstacle_server", "map", "tracker"]) == ["tracker"]
    assert registry.sources == {"obstacle_server", "map"}


def test_an_empty_add_is_valid_and_means_no_segments():
    registry = ObstacleRegistry()
    assert registry.apply(add("tracker", 1)) is False  # nothing there before, nothing now
    assert registry.keys == [("tracker", 1)] and registry.version == 0
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    assert registry.apply(add("tracker", 1)) is True
    assert registry.segments == [] and registry.edges == []


@pytest.mark.parametrize("points, problem", [
    ([(1.0, 1.0), (2.0, 2.0), (NAN, 0.0)], "not finite"),  # the message seen in the field
    ([(1.0, 1.0), (2.0, 2.0), (0.0, math.inf), (3.0, 3.0)], "not finite"),
    ([(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)], "odd number of points (3)"),
    ([(1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (3.0, 3.0)],
     "segment 1 (points 2 and 3) has zero length"),
])
def test_a_bad_update_is_refused_whole_and_changes_nothing(points, problem):
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    registry.apply(add("tracker", 1, *square(1.0, 1.0)))
    edges, version, keys = registry.edges, registry.version, registry.keys
    # Both as a new key and as a bad replacement of a good one.
    for bad in (add("bad", 4, *points), add("tracker", 1, *points)):
        with pytest.raises(ObstacleUpdateError) as error:
            registry.apply(bad)
        assert bad.name in str(error.value) and problem in str(error.value)
    assert registry.version == version and registry.edges is edges and registry.keys == keys
    assert registry.segments_of(("tracker", 1)) == tuple(segments(square(1.0, 1.0)))
    assert registry.segments_of(("walls", 0)) == tuple(segments(WALLS))


def test_unknown_actions_and_negative_lifetimes_are_refused():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS))
    with pytest.raises(ObstacleUpdateError, match="unknown action 1"):
        registry.apply(ObstacleUpdate("walls", 0, 1))
    with pytest.raises(ObstacleUpdateError, match="lifetime"):
        registry.apply(add("walls", 0, (0.0, 0.0), (1.0, 0.0), lifetime=-1.0))
    assert registry.segments == segments(WALLS) and registry.version == 1


def test_segments_expire_lifetime_after_their_last_update():
    registry = ObstacleRegistry()
    registry.apply(add("walls", 0, *WALLS), now=0.0)  # lifetime 0: forever
    registry.apply(add("tracker", 1, *square(1.0, 1.0), lifetime=2.0), now=10.0)
    assert registry.next_expiry == 12.0
    assert registry.expire(11.0) is False
    registry.apply(add("tracker", 1, *square(1.0, 1.0), lifetime=2.0), now=11.5)  # refreshed
    assert registry.expire(13.0) is False
    version = registry.version
    assert registry.expire(13.5) is True
    assert registry.version == version + 1
    assert registry.segments == segments(WALLS) and registry.next_expiry is None
    assert registry.expire(1e9) is False  # walls never expire


def test_an_update_drops_what_expired_before_it():
    registry = ObstacleRegistry()
    registry.apply(add("tracker", 1, *square(1.0, 1.0), lifetime=1.0), now=0.0)
    assert registry.apply(add("walls", 0, *WALLS), now=5.0) is True
    assert registry.keys == [("walls", 0)]


# A model of the registry: a dict of each key's segments; bad updates leave it alone.
keys = st.tuples(st.sampled_from(["", "map", "tracker"]), st.integers(0, 2))
grid = st.tuples(st.integers(-2, 2).map(float), st.integers(-2, 2).map(float))
points = st.lists(st.one_of(grid, grid, grid, st.just((NAN, 0.0))), max_size=7)
updates = st.one_of(
    st.builds(lambda k, p: ObstacleUpdate(k[0], k[1], ADD, tuple(p)), keys, points),
    st.builds(lambda k: ObstacleUpdate(k[0], k[1], DELETE), keys),
    st.builds(lambda k: ObstacleUpdate(k[0], k[1], DELETE_ALL), keys))


def model_segments(update):
    """The update's segments, or None when it must be refused."""
    pts = update.points
    if len(pts) % 2 or not all(math.isfinite(c) for p in pts for c in p):
        return None
    pairs = [(pts[k], pts[k + 1]) for k in range(0, len(pts), 2)]
    if any(a == b for a, b in pairs):
        return None
    return tuple(Segment(a, b) for a, b in pairs)


@settings(max_examples=300, deadline=None)
@given(st.lists(updates, max_size=25))
def test_the_registry_matches_a_dict_of_keys(sequence):
    registry = ObstacleRegistry()
    model = {}
    for update in sequence:
        before = {k: v for k, v in model.items() if v}
        edges, version = registry.edges, registry.version
        if update.action == ADD:
            new = model_segments(update)
            if new is None:
                with pytest.raises(ObstacleUpdateError):
                    registry.apply(update)
            else:
                model[update.key] = new
                registry.apply(update)
        elif update.action == DELETE:
            model.pop(update.key, None)
            registry.apply(update)
        else:
            for key in [k for k in model if not update.ns or k[0] == update.ns]:
                del model[key]
            registry.apply(update)
        after = {k: v for k, v in model.items() if v}
        assert registry.segments == [s for k in sorted(model) for s in model[k]]
        if after == before:
            assert registry.version == version and registry.edges is edges
        else:
            assert registry.version == version + 1
            assert len(registry.edges) == 2 * len(registry.segments)


# --- Marker conversion and nodes over DDS ------------------------------------------------------

try:
    import rclpy  # noqa: F401
    HAVE_ROS = True
except ImportError:
    HAVE_ROS = False

needs_ros = pytest.mark.skipif(not HAVE_ROS, reason="rclpy not installed (pip install .[ros])")

if HAVE_ROS:
    from builtin_interfaces.msg import Duration
    from geometry_msgs.msg import Point
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
    from visualization_msgs.msg import Marker

    from orca_ros.nodes.obstacle_server import ObstacleServer
    from orca_ros.nodes.orca_node import OrcaNode
    from orca_ros.nodes.ros_common import (LATCHED, RELIABLE_10, BadMessage, obstacle_update,
                                           quaternion_from_yaw)
    from ros_helpers import latest_status, params

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


@needs_ros
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


@needs_ros
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


@needs_ros
def test_obstacle_server_publishes_under_its_own_name(ros):
    server = walls_server(ros)
    received = []
    ros.node("listener").create_subscription(Marker, "/obstacles", received.append, LATCHED)
    assert ros.spin_until(lambda: received, 5.0)
    assert (received[0].ns, received[0].id) == ("obstacle_server", 0)
    assert len(received[0].points) == 2 * len(server.segments)


@needs_ros
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


@needs_ros
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


@needs_ros
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


@needs_ros
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


@needs_ros
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
