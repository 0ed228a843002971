"""orca_node with robots as people have them: odometry in the robot's own frame placed by
a localization or a spawn pose, announced states and footprints, and filter mode
(the preferred velocity from cmd_vel_in). In-process rclpy over real DDS."""

import math

import pytest

from helpers.ros_helpers import latest_status, params  # first: skips without rclpy

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import (Point32, PolygonStamped, PoseStamped,  # noqa: E402
                               PoseWithCovarianceStamped, Twist)
from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.nodes.orca_node import OrcaNode  # noqa: E402
from orca_ros.nodes.ros_common import (LATCHED, RELIABLE_10, quaternion_from_yaw,  # noqa: E402
                                       twist_message)


def odom(x, y, yaw=0.0, vx=0.0, frame="world", child=""):
    msg = Odometry()
    msg.header.frame_id = frame
    msg.child_frame_id = child
    msg.pose.pose.position.x, msg.pose.pose.position.y = float(x), float(y)
    msg.pose.pose.orientation = quaternion_from_yaw(yaw)
    msg.twist.twist.linear.x = float(vx)
    return msg


def fix(x, y, yaw=0.0, variance=0.0004, frame="world"):
    msg = PoseWithCovarianceStamped()
    msg.header.frame_id = frame
    msg.pose.pose.position.x, msg.pose.pose.position.y = float(x), float(y)
    msg.pose.pose.orientation = quaternion_from_yaw(yaw)
    msg.pose.covariance[0] = msg.pose.covariance[7] = float(variance)
    return msg


def goal(x, y):
    msg = PoseStamped()
    msg.header.frame_id = "world"
    msg.pose.position.x, msg.pose.position.y = float(x), float(y)
    msg.pose.orientation.w = 1.0
    return msg


def footprint(robot, radius, sides=8):
    msg = PolygonStamped()
    msg.header.frame_id = f"{robot}/base_link"
    msg.polygon.points = [Point32(x=radius * math.cos(2 * math.pi * k / sides),
                                  y=radius * math.sin(2 * math.pi * k / sides), z=0.0)
                          for k in range(sides)]
    return msg


class Rig:
    """An orca_node in /me; the test plays its robot (odometry, localization, cmd_vel_in)
    and a neighbour ``other`` (its odometry, or its announced state and footprint)."""

    def __init__(self, ros, **overrides):
        settings = dict(neighbors=[""], discover_odometry=False, control_rate=20.0,
                        radius=0.3, neighbor_radius=0.3, max_speed=1.0, pref_speed=1.0,
                        time_horizon=3.0, keep_right_deg=0.0, stall_escape_deg=0.0)
        settings.update(overrides)
        self.ros = ros
        self.node = ros.add(OrcaNode(context=ros.context, namespace="me",
                                     parameter_overrides=params(**settings)))
        tester = self.tester = ros.node("tester")
        self.own = tester.create_publisher(Odometry, "/me/odom", RELIABLE_10)
        self.fixes = tester.create_publisher(PoseWithCovarianceStamped, "/me/amcl_pose",
                                             RELIABLE_10)
        self.goal = tester.create_publisher(PoseStamped, "/me/goal_pose", RELIABLE_10)
        self.cmd_in = tester.create_publisher(Twist, "/me/cmd_vel_in", RELIABLE_10)
        self.states = tester.create_publisher(Odometry, "/orca/states", RELIABLE_10)
        self.other_odom = tester.create_publisher(Odometry, "/other/odom", RELIABLE_10)
        self.footprints = tester.create_publisher(PolygonStamped, "/orca/footprints", LATCHED)
        self.commands, self.diagnostics, self.announced = [], [], []
        tester.create_subscription(Twist, "/me/cmd_vel", self.commands.append, RELIABLE_10)
        tester.create_subscription(DiagnosticArray, "/diagnostics", self.diagnostics.append, 10)
        tester.create_subscription(Odometry, "/orca/states", self.announced.append, 10)
        ros.spin_until(lambda: self.own.get_subscription_count() > 0
                       and self.goal.get_subscription_count() > 0, 10.0)

    def play(self, seconds, own=None, fix=None, cmd_in=None, state=None, other=None):
        """Publish these every 50 ms for a while; the last command (None if none came)."""
        start = len(self.commands)
        for _ in range(int(seconds / 0.05)):
            for publisher, msg in ((self.own, own), (self.fixes, fix), (self.cmd_in, cmd_in),
                                   (self.states, state), (self.other_odom, other)):
                if msg is not None:
                    publisher.publish(msg)
            self.ros.spin_for(0.05)
        return self.commands[-1] if len(self.commands) > start else None

    def status(self):
        return latest_status(self.diagnostics, "orca_node: me")


def test_a_robot_with_odometry_in_its_own_frame_holds_until_localized_then_plans_in_the_map(ros):
    rig = Rig(ros, pose_source="localization", odom_frame="me/odom")
    rig.goal.publish(goal(10.0, 0.0))
    own = odom(0.0, 0.0, frame="me/odom")
    cmd = rig.play(0.6, own=own)
    assert cmd is not None and (cmd.linear.x, cmd.linear.y) == (0.0, 0.0)
    assert rig.ros.spin_until(lambda: "no localization yet on amcl_pose" in
                              (rig.status()[0].message if rig.status()[0] else ""), 3.0)
    # The localization puts the odom frame's origin at (5, 0) in the map: the robot is
    # there, drives east to its goal, and announces itself there.
    cmd = rig.play(0.6, own=own, fix=fix(5.0, 0.0))
    assert rig.node.own.state.position == pytest.approx((5.0, 0.0))
    assert cmd.linear.x > 0.5
    mine = [m for m in rig.announced if m.child_frame_id == "me"]
    assert mine and mine[-1].header.frame_id == "world"
    assert (mine[-1].pose.pose.position.x, mine[-1].pose.pose.position.y) == \
        pytest.approx((5.0, 0.0))
    assert mine[-1].pose.covariance[0] == pytest.approx(0.0004)  # its localization's
    # Between fixes the map pose follows the odometry.
    rig.play(0.3, own=odom(0.5, 0.0, frame="me/odom"))
    assert rig.node.own.state.position == pytest.approx((5.5, 0.0))


def test_odometry_or_a_fix_in_a_frame_not_expected_is_refused_naming_both_frames(ros):
    rig = Rig(ros, pose_source="localization", odom_frame="me/odom")
    rig.goal.publish(goal(10.0, 0.0))
    rig.play(0.4, own=odom(0.0, 0.0, frame="world"))
    assert rig.node.rejected.get("own odom", 0) >= 1
    assert "'world'" in rig.node.last_problem and "'me/odom'" in rig.node.last_problem
    assert rig.node.own is None
    rig.play(0.4, own=odom(0.0, 0.0, frame="me/odom"), fix=fix(5.0, 0.0, frame="me/odom"))
    assert rig.node.rejected.get("amcl_pose", 0) >= 1
    assert "'me/odom'" in rig.node.last_problem and "'world'" in rig.node.last_problem
    assert rig.node.own is None  # still no pose in the shared frame: it holds


def test_a_non_finite_fix_is_dropped_and_a_jump_is_reported(ros):
    rig = Rig(ros, pose_source="localization", odom_frame="me/odom")
    rig.goal.publish(goal(10.0, 0.0))
    own = odom(0.0, 0.0, frame="me/odom")
    rig.play(0.4, own=own, fix=fix(5.0, 0.0))
    rig.play(0.3, own=own, fix=fix(math.nan, 0.0))
    rig.play(0.3, own=own, fix=fix(5.0, 0.0, variance=math.inf))
    assert rig.node.rejected.get("amcl_pose", 0) >= 2
    assert rig.node.own.state.position == pytest.approx((5.0, 0.0))  # the NaN moved nothing
    rig.play(0.4, own=own, fix=fix(6.0, 0.0))  # re-localized 1 m further on
    assert rig.node.own.state.position == pytest.approx((6.0, 0.0))
    assert rig.ros.spin_until(lambda: rig.status()[1].get("localization_jumps") == "1", 3.0)


def test_a_spawn_pose_places_odometry_that_starts_at_the_origin(ros):
    rig = Rig(ros, pose_source="odom_origin", odom_frame="me/odom",
              odom_origin=[2.0, 1.0, math.pi / 2])
    rig.goal.publish(goal(2.0, 5.0))
    cmd = rig.play(0.6, own=odom(1.0, 0.0, frame="me/odom"))  # 1 m ahead of the spawn pose
    assert rig.node.own.state.position == pytest.approx((2.0, 2.0))
    assert rig.node.own.state.heading == pytest.approx(math.pi / 2)
    assert cmd.linear.x > 0.5 and abs(cmd.linear.y) < 1e-6  # north is straight ahead


def test_a_neighbour_is_known_by_what_it_announces_its_radius_by_its_footprint(ros):
    rig = Rig(ros)
    rig.goal.publish(goal(10.0, 0.0))
    rig.footprints.publish(footprint("other", 0.55))
    state = odom(3.0, 0.0, yaw=math.pi, vx=0.5, child="other")
    state.pose.covariance[0] = state.pose.covariance[7] = 0.01  # 10 cm
    rig.play(0.6, own=odom(0.0, 0.0), state=state)
    seen = rig.node.neighbors["other"]
    assert seen.announced and seen.position == pytest.approx((3.0, 0.0))
    assert seen.uncertainty == pytest.approx(0.3)  # 3 sigma of 10 cm
    assert rig.node._neighbor_radius("other") == pytest.approx(0.55)
    perceived = {n.key: n for n in rig.node.last_result.perceived.neighbors}
    assert perceived["other"].radius == pytest.approx(0.55)
    assert perceived["other"].reciprocates


def test_a_robot_heard_only_by_its_odometry_is_taken_as_not_reciprocating(ros):
    rig = Rig(ros, neighbors=["other"])
    rig.goal.publish(goal(10.0, 0.0))
    rig.play(0.6, own=odom(0.0, 0.0), other=odom(3.0, 0.0, yaw=math.pi, vx=0.5))
    perceived = {n.key: n for n in rig.node.last_result.perceived.neighbors}
    assert not rig.node.neighbors["other"].announced
    assert not perceived["other"].reciprocates  # it runs no orca_node: we take all of u


def test_a_state_in_another_frame_is_refused_naming_both(ros):
    rig = Rig(ros)
    rig.goal.publish(goal(10.0, 0.0))
    rig.play(0.5, own=odom(0.0, 0.0), state=odom(3.0, 0.0, frame="map", child="other"))
    assert "other" not in rig.node.neighbors
    assert "'map'" in rig.node.last_problem and "'world'" in rig.node.last_problem


def test_filter_mode_passes_cmd_vel_in_through_when_alone(ros):
    rig = Rig(ros, preferred_velocity="topic")
    cmd = rig.play(0.6, own=odom(0.0, 0.0), cmd_in=twist_message(0.4, -0.2, 0.3, False))
    assert (cmd.linear.x, cmd.linear.y, cmd.angular.z) == (0.4, -0.2, 0.3)
    # Beyond the robot's limits it is clipped to them, and still along the input.
    cmd = rig.play(0.4, own=odom(0.0, 0.0), cmd_in=twist_message(3.0, 0.0, 0.0, False))
    assert cmd.linear.x == pytest.approx(1.0) and cmd.linear.y == 0.0


def test_filter_mode_passes_a_unicycles_twist_through_when_alone(ros):
    rig = Rig(ros, preferred_velocity="topic", kinematics="diff_drive",
              max_linear_accel=100.0, max_angular_accel=100.0)
    cmd = rig.play(0.6, own=odom(0.0, 0.0, vx=0.5), cmd_in=twist_message(0.5, 0.0, 0.4, False))
    assert (cmd.linear.x, cmd.angular.z) == (0.5, 0.4)


def test_filter_mode_changes_the_input_only_near_someone_and_stops_without_input(ros):
    rig = Rig(ros, preferred_velocity="topic", cmd_vel_in_timeout=0.3)
    ahead = odom(2.0, 0.0, yaw=math.pi, vx=1.0, child="other")
    cmd = rig.play(0.6, own=odom(0.0, 0.0), cmd_in=twist_message(1.0, 0.0, 0.0, False),
                   state=ahead)
    assert (cmd.linear.x, cmd.linear.y) != (1.0, 0.0)  # a head-on robot: avoidance acts
    assert abs(math.atan2(cmd.linear.y, cmd.linear.x)) > math.radians(5) or cmd.linear.x < 0.9
    cmd = rig.play(0.8, own=odom(0.0, 0.0))  # cmd_vel_in goes quiet
    assert (cmd.linear.x, cmd.linear.y, cmd.angular.z) == (0.0, 0.0, 0.0)
    assert rig.ros.spin_until(lambda: "no cmd_vel_in" in
                              (rig.status()[0].message if rig.status()[0] else ""), 3.0)
    # A few stops, then quiet (as Nav2's velocity smoother): a teleop may drive.
    assert rig.play(0.6, own=odom(0.0, 0.0)) is None
    far = odom(8.0, 8.0, child="other")  # the neighbour has gone far away meanwhile
    cmd = rig.play(0.4, own=odom(0.0, 0.0), cmd_in=twist_message(0.3, 0.0, 0.0, False),
                   state=far)
    assert cmd is not None and cmd.linear.x == 0.3  # back as soon as it speaks again


def test_filter_mode_says_nothing_before_its_first_input_whatever_it_waits_for(ros):
    """No input, no output: a teleop or the docking server behind the same collision
    monitor may drive. Fresh input it cannot vet (the fleet not heard) it stops."""
    rig = Rig(ros, preferred_velocity="topic", pose_source="localization",
              odom_frame="me/odom", fleet_robots=["other"])
    assert rig.play(0.6) is None  # no odometry yet
    assert rig.play(0.6, own=odom(0.0, 0.0, frame="me/odom")) is None  # no localization
    assert rig.play(0.6, own=odom(0.0, 0.0, frame="me/odom"), fix=fix(1.0, 0.0)) is None
    assert "waiting to hear robots other" in rig.node.status.reason
    cmd = rig.play(0.6, own=odom(0.0, 0.0, frame="me/odom"), fix=fix(1.0, 0.0),
                   cmd_in=twist_message(0.3, 0.0, 0.0, False))
    assert cmd is not None and (cmd.linear.x, cmd.linear.y, cmd.angular.z) == (0.0, 0.0, 0.0)
    cmd = rig.play(0.6, own=odom(0.0, 0.0, frame="me/odom"), fix=fix(1.0, 0.0),
                   cmd_in=twist_message(0.3, 0.0, 0.0, False),
                   state=odom(8.0, 8.0, child="other"))
    assert cmd.linear.x == pytest.approx(0.3)  # heard: the input passes


@pytest.mark.parametrize("max_reverse_speed, expected", [(0.0, 0.0), (0.26, -0.05), (-1.0, -0.5)])
def test_filter_mode_passes_reversing_within_max_reverse_speed(ros, max_reverse_speed, expected):
    """Nav2's BackUp (-0.05 m/s), a reversing controller (-0.5): through within
    max_reverse_speed (-1: max_speed); cut, the diagnostics warn and count it."""
    rig = Rig(ros, preferred_velocity="topic", kinematics="diff_drive",
              max_reverse_speed=max_reverse_speed, max_linear_accel=100.0,
              max_angular_accel=100.0)
    backing = -0.5 if max_reverse_speed < 0 else -0.05
    cmd = rig.play(0.6, own=odom(0.0, 0.0, vx=expected),
                   cmd_in=twist_message(backing, 0.0, 0.0, False))
    assert cmd.linear.x == pytest.approx(expected) and cmd.angular.z == 0.0
    assert (rig.node.reverse_limited > 0) == (expected != backing)
    if expected != backing:
        assert rig.ros.spin_until(lambda: "reversed faster than max_reverse_speed" in
                                  (rig.status()[0].message if rig.status()[0] else ""), 3.0)


def test_another_node_commanding_the_robot_too_is_named_in_the_diagnostics(ros):
    """Two commanders of one robot (on Humble, a velocity smoother still remapped onto
    cmd_vel beside orca_node): a WARN that says so."""
    rig = Rig(ros)
    rig.goal.publish(goal(10.0, 0.0))
    rig.play(0.4, own=odom(0.0, 0.0))
    assert rig.node.count_publishers("/me/cmd_vel") == 1
    rig.tester.create_publisher(Twist, "/me/cmd_vel", RELIABLE_10)
    assert rig.ros.spin_until(lambda: "other publisher(s) on /me/cmd_vel" in  # counted
                              (rig.status()[0].message if rig.status()[0] else ""), 15.0)
    status = rig.status()[0]
    assert status.level == b"\x01"  # WARN
    assert {v.key: v.value for v in status.values}["cmd_vel_publishers"] == "2"


def test_a_robot_holds_until_it_has_heard_every_robot_of_its_fleet(ros):
    """A robot of the fleet not heard yet (its subscriptions not matched, its localization
    not there) is not free space: the others wait for it."""
    rig = Rig(ros, fleet_robots=["other", "me"])
    rig.goal.publish(goal(10.0, 0.0))
    cmd = rig.play(0.6, own=odom(0.0, 0.0))
    assert (cmd.linear.x, cmd.linear.y) == (0.0, 0.0)
    assert rig.ros.spin_until(lambda: "waiting to hear robots other" in
                              (rig.status()[0].message if rig.status()[0] else ""), 3.0)
    cmd = rig.play(0.6, own=odom(0.0, 0.0), state=odom(5.0, 5.0, child="other"))
    assert cmd.linear.x > 0.5  # heard: on its way


def test_the_footprint_for_rviz_is_where_the_localization_puts_the_robot_in_the_map(ros):
    rig = Rig(ros, pose_source="localization", odom_frame="me/odom", world_frame="map")
    shown = []
    rig.tester.create_subscription(PolygonStamped, "/me/orca/footprint", shown.append, 10)
    rig.play(0.6, own=odom(0.0, 0.0, frame="me/odom"))
    assert shown == []  # no pose in the map yet: nothing to draw
    rig.play(0.6, own=odom(0.5, 0.0, frame="me/odom"), fix=fix(5.0, 1.0, frame="map"))
    assert shown and shown[-1].header.frame_id == "map"
    points = [(p.x, p.y) for p in shown[-1].polygon.points]
    center = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
    assert center == pytest.approx((5.0, 1.0), abs=1e-6)  # the fix places the odom origin
    assert max(math.dist(p, center) for p in points) == pytest.approx(0.3, abs=1e-6)
