"""One robot's control as orca_node runs it (core.robot.control), with no ROS: parameters
as a plain mapping, times in seconds, the outcome of each control period."""

import math

import pytest

from orca_ros.core.geometry.frames import Pose2
from orca_ros.core.robot.control import LOOK_PERIODS, STOP, WATCHDOG_PERIODS, RobotControl
from orca_ros.core.robot.cycle import GoalState
from orca_ros.core.robot.inputs import QUIET_STOPS
from orca_ros.core.robot.perception import NeighborReading
from orca_ros.nodes.params.orca_node import PARAMETERS


def control(heard_radii=None, **changed):
    values = {p.name: list(p.default) if isinstance(p.default, tuple) else p.default
              for p in PARAMETERS}
    values.update(changed)
    return RobotControl("me", values, False, lambda: heard_radii or {})


def heard_all(name):
    return True


def at(robot, now, x=0.0, y=0.0, yaw=0.0, z=None):
    """The robot's odometry at ``now``: standing at (x, y[, z]) heading ``yaw``."""
    height = (lambda: (z, 0.0)) if z is not None else (lambda: (0.0, 0.0))
    assert robot.odometry(int(now * 1e9), now, Pose2(x, y, yaw), (0.0, 0.0), 0.0, 0.0,
                          height) is None


def test_without_odometry_the_robot_stands_still_and_says_it_waits_for_it():
    robot = control()
    robot.set_goal("", (5.0, 0.0, 0.0))
    outcome = robot.control(1.0, {}, heard_all)
    assert outcome.twist == (0.0, 0.0, 0.0, 0.0) and outcome.result.holds
    assert robot.status.state is GoalState.WAITING_FOR_ODOM


def test_a_robot_of_the_fleet_unheard_holds_the_robot_with_its_name():
    robot = control(fleet_robots=["me", "north", "south"])
    at(robot, 1.0)
    robot.set_goal("", (5.0, 0.0, 0.0))
    outcome = robot.control(1.0, {}, lambda name: name == "south")
    assert outcome.twist == (0.0, 0.0, 0.0, 0.0)
    assert robot.status.state is GoalState.HOLDING
    assert robot.status.reason == "waiting to hear robots north"
    assert robot.cycle.last_command is None  # the cycle did not run


def test_the_command_goes_out_in_the_body_frame():
    # Heading north (+y), goal to the north: straight ahead in the body frame.
    robot = control()
    at(robot, 1.0, yaw=math.pi / 2)
    robot.set_goal("", (0.0, 5.0, 0.0))
    outcome = robot.control(1.0, {}, heard_all)
    vx, vy, omega, vz = outcome.twist
    wx, wy = outcome.result.command.velocity  # world frame
    assert vx > 0.1 and vz == 0.0 and (vx, vy) == pytest.approx((wy, -wx))
    # Heading east, the same goal: to the robot's left.
    robot = control()
    at(robot, 1.0, yaw=0.0)
    robot.set_goal("", (0.0, 5.0, 0.0))
    outcome = robot.control(1.0, {}, heard_all)
    vx, vy, omega, vz = outcome.twist
    assert vy > 0.1 and (vx, vy) == pytest.approx(outcome.result.command.velocity)
    assert robot.status.state is GoalState.DRIVING and robot.timing.latencies_s


def test_a_unicycle_sends_its_speed_and_turn_rate_and_a_prediction_to_share():
    robot = control(kinematics="diff_drive", share_predictions=True)
    at(robot, 1.0, yaw=0.0)
    robot.set_goal("", (0.0, 5.0, 0.0))  # to its left: it turns counter-clockwise
    outcome = robot.control(1.0, {}, heard_all)
    vx, vy, omega, vz = outcome.twist
    assert vy == 0.0 and vz == 0.0 and omega > 0.0
    assert (vx, omega) == (outcome.result.command.linear, outcome.result.command.angular)
    assert outcome.prediction is not None and outcome.prediction.position == (0.0, 0.0)
    holonomic = control(share_predictions=True)
    at(holonomic, 1.0)
    holonomic.set_goal("", (5.0, 0.0, 0.0))
    assert holonomic.control(1.0, {}, heard_all).prediction is None


def test_a_filter_passes_its_input_and_says_nothing_while_it_has_none():
    robot = control(preferred_velocity="topic", cmd_vel_in_timeout=0.5)
    at(robot, 1.0)
    assert robot.control(1.0, {}, heard_all).twist is None  # before any cmd_vel_in: quiet
    robot.inputs.command_in((0.2, 0.0, 0.1), 1.0)
    assert robot.control(1.1, {}, heard_all).twist == pytest.approx((0.2, 0.0, 0.1, 0.0))
    # cmd_vel_in stopped: a few stops, then nothing.
    at(robot, 2.0)
    twists = [robot.control(2.0 + 0.1 * i, {}, heard_all).twist for i in range(QUIET_STOPS + 2)]
    assert twists == [STOP] * QUIET_STOPS + [None, None]
    assert "no cmd_vel_in for" in robot.status.reason


def test_a_unicycle_filter_counts_inputs_reversing_faster_than_allowed():
    robot = control(preferred_velocity="topic", kinematics="diff_drive",
                    max_reverse_speed=0.1)
    at(robot, 1.0)
    robot.inputs.command_in((-0.3, 0.0, 0.0), 1.0)
    vx, _, _, _ = robot.control(1.0, {}, heard_all).twist
    assert vx == pytest.approx(-0.1) and robot.reverse_limited == 1
    robot.inputs.command_in((-0.05, 0.0, 0.0), 1.05)
    robot.control(1.05, {}, heard_all)
    assert robot.reverse_limited == 1


def test_goals_in_another_frame_or_not_finite_are_refused_and_change_nothing():
    robot = control(world_frame="map")
    assert robot.set_goal("map", (1.0, 2.0, 3.0)) is None
    assert robot.goal == (1.0, 2.0)  # a ground robot's goal has no height
    assert "frame 'odom'" in robot.set_goal("odom", (5.0, 5.0, 0.0))
    assert "non-finite" in robot.set_goal("", (math.nan, 0.0, 0.0))
    assert robot.goal == (1.0, 2.0)
    assert robot.cycle.controller.waypoints[-1] == pytest.approx((1.0, 2.0))
    assert robot.frame_problem("plan", "") is None
    assert "plan in frame 'odom'" in robot.frame_problem("plan", "odom")


def test_a_plan_replaces_the_goal_with_its_last_point_and_a_goal_replaces_the_plan():
    robot = control()
    robot.set_plan([(1.0, 0.0), (2.0, 1.0)])
    assert robot.goal == (2.0, 1.0) and robot.status.state is GoalState.DRIVING
    assert [tuple(w) for w in robot.cycle.controller.waypoints] == [(1.0, 0.0), (2.0, 1.0)]
    robot.set_goal("", (4.0, 4.0, 0.0))
    assert robot.plan == []
    assert [tuple(w) for w in robot.cycle.controller.waypoints] == [(4.0, 4.0)]


def test_an_aerial_robot_flies_up_in_its_body_frame():
    robot = control(dimensions=3)
    assert robot.aerial is not None and robot.aerial_error == ""
    at(robot, 1.0, yaw=math.pi / 2, z=0.0)
    assert robot.set_goal("", (0.0, 0.0, 5.0)) is None and robot.goal == (0.0, 0.0, 5.0)
    vx, vy, omega, vz = robot.control(1.0, {}, heard_all).twist
    assert vz > 0.1 and omega == 0.0
    assert vx == pytest.approx(0.0, abs=1e-9) and vy == pytest.approx(0.0, abs=1e-9)


def test_an_aerial_robot_that_cannot_fly_holds_and_says_why():
    robot = control(dimensions=3, kinematics="diff_drive")
    assert robot.aerial is None and robot.aerial_error.startswith("dimensions 3: ")
    assert robot.problems() == [f"{robot.aerial_error}; holding the robot"]
    at(robot, 1.0, z=0.0)
    outcome = robot.control(1.0, {}, heard_all)
    assert outcome.twist == (0.0, 0.0, 0.0, 0.0)
    assert robot.status.state is GoalState.HOLDING
    assert robot.status.reason == robot.aerial_error


def test_changing_dimensions_forgets_the_goal_of_the_other_kind():
    robot = control()
    robot.set_goal("", (3.0, 0.0, 0.0))
    robot.params["dimensions"] = 3
    robot.configure()
    robot.redimension()
    assert robot.dimensions == 3 and robot.goal is None and robot.plan == []
    assert robot.status.state is GoalState.NO_GOAL


def test_a_bad_links_value_is_told_and_holds_the_robot():
    robot = control(links="[{agents: [me]")
    [problem] = robot.problems()
    assert problem.startswith("parameter ") and "valid 'links'" in problem


def test_own_odometry_is_timed_on_this_clock_whatever_the_drivers_clock():
    robot = control()
    now = 10_000_000_000
    assert robot.measured_ns(0, now) == now  # no stamp: measured on arrival
    # A base board whose clock lags 2 s: its first message counts as measured on arrival,
    # the next ones by their stamps corrected by that offset.
    behind = 2_000_000_000
    assert robot.measured_ns(now - behind, now) == now
    assert robot.measured_ns(now + 100_000_000 - behind, now + 130_000_000) == \
        now + 100_000_000


def test_older_odometry_is_dropped_without_a_word():
    robot = control()
    at(robot, 2.0, x=1.0)
    assert robot.odometry(1_000_000_000, 1.0, Pose2(5.0, 0.0, 0.0), (0.0, 0.0), 0.0, 0.0,
                          lambda: (0.0, 0.0)) == ""
    assert robot.inputs.own.state.position == (1.0, 0.0)


def test_the_timer_stands_in_for_odometry_only_when_it_stops():
    timer = control(control_trigger="timer", control_rate=10.0)
    timer.start(0)
    assert timer.timer_starts(1)
    robot = control(control_trigger="odom", control_rate=10.0)
    robot.start(0)
    assert not robot.timer_starts(100_000_000)  # one period: the odometry's turn
    assert robot.timer_starts(int(WATCHDOG_PERIODS * 100_000_000))
    assert robot.odometry_starts(1_000_000_000, 0.9)
    assert not robot.odometry_starts(1_050_000_000, 0.9)  # half a period later
    assert robot.odometry_starts(1_100_000_000, 0.9)
    assert not timer.odometry_starts(2_000_000_000, 0.9)


def test_under_the_odom_trigger_the_timer_is_a_watchdog_half_a_period_late():
    timer = control(control_trigger="timer", control_rate=10.0)
    assert timer.timer_period_ns() == 100_000_000 and not timer.rearms_timer
    robot = control(control_trigger="odom", control_rate=20.0)
    assert robot.timer_period_ns() == int(LOOK_PERIODS * 50_000_000) == 75_000_000
    assert robot.rearms_timer


def test_a_negative_or_not_finite_speed_limit_is_refused():
    robot = control()
    assert robot.set_speed_limit(-0.1, 1.0) == "speed limit must be >= 0, got -0.1"
    assert robot.set_speed_limit(math.inf, 1.0) is not None
    assert robot.cycle.speed_limit is None
    assert robot.set_speed_limit(0.3, 1.0) is None and robot.cycle.speed_limit == (0.3, 1.0)


def test_a_neighbours_radius_is_listed_else_heard_else_the_default():
    robot = control(heard_radii={"b": 0.5, "c": 0.6}, neighbors=["a", "b"],
                    neighbor_radii=[0.7, 0.8], neighbor_radius=0.25)
    assert [robot.radii(n) for n in "abcd"] == [0.7, 0.8, 0.6, 0.25]


def test_a_scan_in_the_shared_frame_adds_no_walls():
    robot = control(world_frame="map")
    at(robot, 1.0)
    problem = robot.scan("map", [1.0] * 8, 0.0, 0.1, 0.1, 10.0, 1.0, dict)
    assert problem is not None and "laser's own frame" in problem
    assert not robot.walls.edges


def test_the_markers_result_holds_the_perceived_neighbours():
    robot = control()
    at(robot, 1.0)
    robot.set_goal("", (5.0, 0.0, 0.0))
    other = NeighborReading(1.0, (2.0, 0.0), (0.0, 0.0))
    outcome = robot.control(1.0, {"other": other}, heard_all)
    assert [n.key for n in outcome.result.perceived.neighbors] == ["other"]
    assert robot.last_result is outcome.result


def test_a_robot_stuck_short_of_a_goal_two_robots_crowd_names_them():
    # Parked 0.45 m either side of the goal, each announcing 0.1 m of uncertainty: a
    # robot of radius 0.2 must keep 0.5 m from each, and no point within 0.2 m of its
    # goal is that far from both. Its odometry stays put: after no_progress_warn it says
    # who holds the goal.
    robot = control(heard_radii={"east": 0.2, "west": 0.2}, radius=0.2, goal_tolerance=0.2,
                    no_progress_warn=1.0)
    robot.set_goal("", (0.0, 0.0, 0.0))
    for k in range(25):
        now = 1.0 + 0.1 * k
        at(robot, now, y=-1.0, yaw=math.pi / 2)
        seen = {name: NeighborReading(now, (x, 0.0), (0.0, 0.0), uncertainty=0.1,
                                      announced=True)
                for name, x in (("east", 0.45), ("west", -0.45))}
        robot.control(now, seen, heard_all)
    assert robot.goal_held_by(now) == ("east", "west")
    assert robot.goal_held_by(1.5) == ()  # not yet stuck for no_progress_warn then
    _, message, values = robot.report(now, seen, 0, 1, {}, "", 1, "/me/cmd_vel", {})
    assert values["goal_held_by"] == "east,west" and "no room" in message
