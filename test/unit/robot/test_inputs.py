"""A robot's inputs and readiness (core.robot.inputs), with no ROS: parameters as a
plain mapping, times in seconds."""

import math

import pytest

from orca_ros.core.geometry.frames import Pose2
from orca_ros.core.robot.inputs import (QUIET_STOPS, RobotInputs, command_twist,
                                        robots_publishing_odometry)
from orca_ros.core.robot.perception import NeighborReading
from orca_ros.core.robot.state import Command
from orca_ros.nodes.params.orca_node import PARAMETERS


def inputs(announcing=False, **changed):
    values = {p.name: p.default for p in PARAMETERS}
    values.update(changed)
    return RobotInputs("me", values, announcing)


def heard_none(name):
    return False


def command(velocity, linear=0.0, angular=0.0, passed_through=None):
    return Command(velocity, linear, angular, velocity, velocity, None, False,
                   passed_through=passed_through)


def test_a_command_goes_out_as_passed_as_a_unicycle_or_in_the_body_frame():
    velocity = command((0.0, 0.5), linear=0.4, angular=0.1)
    assert command_twist(velocity, math.pi / 2, diff_drive=True) == (0.4, 0.0, 0.1)
    assert command_twist(velocity, math.pi / 2, False) == pytest.approx((0.5, 0.0, 0.0))
    passed = command((0.0, 0.5), passed_through=(0.2, 0.0, 0.3))
    assert command_twist(passed, 1.0, False) == (0.2, 0.0, 0.3)


def test_robots_publishing_odometry_are_named_by_their_namespace():
    topics = [("/a/odom", ["nav_msgs/msg/Odometry"]), ("/b/odom", ["std_msgs/msg/String"]),
              ("/odom", ["nav_msgs/msg/Odometry"]), ("/c/cmd_vel", ["x"]),
              ("/d/e/odom", ["nav_msgs/msg/Odometry"])]
    assert robots_publishing_odometry(topics) == ["a", "d/e"]


def test_odometry_in_the_shared_frame_is_held_and_older_readings_are_told():
    robot = inputs(pose_source="odom_origin", odom_origin=[1.0, 0.0, math.pi / 2])
    assert robot.odometry(10.0, 10.0, Pose2(1.0, 0.0, 0.0), (0.5, 0.0), 0.5, 0.0) is None
    assert robot.own.state.position == pytest.approx((1.0, 1.0))
    assert robot.own.state.velocity == pytest.approx((0.0, 0.5))
    assert robot.older(9.9) and not robot.older(10.1)


def test_an_odometry_jump_farther_than_the_robot_can_drive_is_refused():
    robot = inputs(pose_source="odom", max_speed=0.5)
    assert robot.odometry(1.0, 1.0, Pose2(0.0, 0.0, 0.0), (0.0, 0.0), 0.0, 0.0) is None
    assert robot.odometry(1.1, 1.1, Pose2(50.0, 0.0, 0.0), (0.0, 0.0), 0.0, 0.0) is not None
    assert robot.own.state.position == (0.0, 0.0)


def test_holds_for_localization_then_unheard_robots_then_cmd_vel_in():
    robot = inputs(pose_source="localization", localization_topic="amcl_pose",
                   fleet_robots=["me", "a", "b"], preferred_velocity="topic",
                   cmd_vel_in_timeout=0.5)
    robot.odometry(1.0, 1.0, Pose2(), (0.0, 0.0), 0.0, 0.0)
    assert robot.own is None and robot.hold(1.0, heard_none) == "no localization yet on amcl_pose"
    robot.localizer.fix(1.0, Pose2())
    robot.odometry(1.1, 1.1, Pose2(), (0.0, 0.0), 0.0, 0.0)
    assert robot.hold(1.1, heard_none) == "waiting to hear robots a, b"
    assert robot.hold(1.1, {"a"}.__contains__) == "waiting to hear robots b"
    heard = {"a", "b"}.__contains__
    assert robot.hold(1.1, heard) == "no cmd_vel_in yet"
    robot.command_in((0.2, 0.0, 0.0), 1.2)
    assert robot.hold(1.7, heard) == ""
    assert robot.hold(2.0, heard) == "no cmd_vel_in for 0.8 s"


def test_more_than_five_unheard_robots_are_counted_not_named():
    robot = inputs(fleet_robots=[f"r{i}" for i in range(8)])
    assert robot.hold(0.0, heard_none) == "waiting to hear robots r0, r1, r2, r3, r4 and 3 more"


def test_a_filter_is_silent_before_cmd_vel_in_and_stops_a_few_times_after_it_ends():
    robot = inputs(preferred_velocity="topic", cmd_vel_in_timeout=0.5)
    assert robot.quiet(0.0)
    robot.command_in((0.2, 0.0, 0.0), 1.0)
    assert not robot.quiet(1.2)  # fresh input held: stop commands
    assert [robot.quiet(2.0) for _ in range(QUIET_STOPS + 2)] == \
        [False] * QUIET_STOPS + [True, True]
    assert not inputs().quiet(5.0)  # not a filter: always a stop command


def test_the_preferred_velocity_is_cmd_vel_in_turned_into_the_shared_frame():
    robot = inputs(preferred_velocity="topic", pose_source="odom")
    robot.odometry(1.0, 1.0, Pose2(0.0, 0.0, math.pi / 2), (0.0, 0.0), 0.0, 0.0)
    robot.command_in((0.3, 0.0, 0.1), 1.0)
    preferred = robot.preferred()
    assert preferred.velocity == pytest.approx((0.0, 0.3)) and preferred.twist == (0.3, 0.0, 0.1)
    assert inputs().preferred() is None


def reading(stamp, announced=False):
    return NeighborReading(stamp, (1.0, 0.0), (0.5, 0.0), announced=announced)


def test_neighbors_are_the_followed_and_the_announced_none_forgotten():
    robot = inputs(announcing=True, neighbor_forget_after=5.0, neighbor_timeout=1.0)
    robot.followed = ["a", "gone"]
    latest = {"a": reading(9.0), "gone": reading(1.0), "b": reading(9.5, True),
              "me": reading(9.5, True), "c": reading(9.5)}
    assert set(robot.neighbors(10.0, latest, ["b", "me"], False, 1.0)) == {"a", "b"}
    cells = inputs(neighbor_forget_after=5.0, neighbors=[""])
    assert set(cells.neighbors(10.0, latest, [], True, 1.0)) == {"a", "b", "c"}


def test_a_silent_robot_whose_node_is_still_there_is_never_forgotten():
    """Its process may be starved or its messages lost while it drives on: it stays as
    last heard, for perception to grow its disc with the age (not standing, not gone)."""
    robot = inputs(announcing=True, neighbor_forget_after=5.0, neighbor_timeout=1.0)
    robot.departures(["b", "me"], present={"b", "me"})
    latest = {"b": reading(1.0, True), "odometry_only": reading(1.0)}
    robot.followed = ["odometry_only"]
    seen = robot.neighbors(60.0, latest, ["b"], False, 1.0)
    assert set(seen) == {"b"}  # the odometry-only robot is forgotten after 5 s
    assert seen["b"] is latest["b"]  # as heard: its age tells perception how far it may be


def test_a_departed_silent_robot_stands_where_its_driver_stops_it():
    robot = inputs(announcing=True, neighbor_timeout=1.0, neighbor_forget_after=5.0,
                   command_validity=0.2, max_linear_accel=100.0)
    robot.departures(["a", "b", "me"], present={"b", "me"})
    assert robot.departed == {"a"}
    latest = {"a": reading(6.0, True)}
    seen = robot.neighbors(30.0, latest, ["a"], False, 1.0)["a"]  # far past forgetting
    assert seen.velocity == (0.0, 0.0) and seen.position[0] > 1.0


def test_robots_to_follow_are_listed_or_discovered_then_linked_and_departed():
    listed = inputs(neighbors=["/a", "me", "a"], pose_source="odom")
    listed.departed = {"z"}
    assert listed.to_follow(lambda: ["x"], ["c"], True, ["l"]) == ["a", "l", "z"]
    assert listed.to_follow(lambda: ["x"], [], False, ["l", "m"]) == ["m"]
    assert listed.followed == ["a", "l", "z", "m"]
    found = inputs(neighbors=[""], discover_odometry=True, pose_source="localization")
    found.departed = {"z"}
    assert found.to_follow(lambda: ["x", "me"], ["c", "x"], True, []) == ["x", "c"]
    silent = inputs(neighbors=[""], discover_odometry=False)
    assert silent.to_follow(lambda: pytest.fail("no graph query"), ["c"], False, []) == []
