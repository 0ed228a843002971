"""Unicycles near walls and robots: what their forward motion may do, whatever their heading."""

import math

import pytest

from orca_ros.core.robot.tracking import HELD_TURN_SPEED_SHARE
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.state import Neighbor, RobotState
from orca_ros.core.robot.controller import RobotController
from orca_ros.core.models.bodies import Body, step_body
from orca_ros.core.robot.tracking import drive_direction, kinematic_half_planes, unicycle_command
from orca_ros.core.geometry.polygons import point_polygon_signed_distance
from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.types import Polygon

from helpers.geometry import allowed

WALL = Polygon(((-5.0, -1.0), (5.0, -1.0), (5.0, 0.0), (-5.0, 0.0)))  # its top face is y = 0


def _drive(config, body, goal, polygons, steps):
    """Closed loop: controller on the measured body, body under the command; min clearance."""
    controller = RobotController(config, key="r")
    controller.set_path([goal])
    edges = build_obstacle_edges(polygons)
    clearance = math.inf
    for _ in range(steps):
        state = RobotState((body.x, body.y), body.world_velocity, body.heading, body.vx,
                           body.omega)
        command = controller.compute(state, [], edges)
        body = step_body(body, (command.linear, 0.0, command.angular), "diff_drive",
                         config.limits, config.time_step)
        clearance = min(clearance, min(point_polygon_signed_distance((body.x, body.y),
                                                                     p.vertices)
                                       for p in polygons) - config.radius)
    return body, clearance


@pytest.mark.parametrize("heading_deg", [-20.0, -45.0, -70.0])
def test_unicycle_inside_its_tracking_margin_never_creeps_into_a_wall(heading_deg):
    """Inside the tracking margin the margin no longer covers the part of the plan the
    unicycle drives sideways; its forward motion alone must keep off the wall."""
    config = ControllerConfig(radius=0.1, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", command_lag=0.1)
    margin = config.safety_radius(config.radius) - config.radius
    assert margin > 0.005
    start_y = config.radius + 0.3 * margin  # inside the margin, not touching
    body = Body(0.0, start_y, math.radians(heading_deg), vx=0.3)
    _, clearance = _drive(config, body, (3.0, start_y), [WALL], 60)
    assert clearance >= 0.0



@pytest.mark.parametrize("heading_deg", [-90.0, -60.0, -120.0])
def test_a_unicycle_facing_a_wall_inside_its_margin_turns_away_and_goes(heading_deg):
    """Turning in place is always available: a unicycle that may not drive towards the
    wall it faces still turns towards where avoidance wants it to go, and then goes."""
    config = ControllerConfig(radius=0.1, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", command_lag=0.1)
    margin = config.safety_radius(config.radius) - config.radius
    start_y = config.radius + 0.3 * margin
    goal = (1.5, 0.6)
    body = Body(0.0, start_y, math.radians(heading_deg))
    body, clearance = _drive(config, body, goal, [WALL], 40)
    assert clearance >= 0.0
    assert math.dist((body.x, body.y), goal) < 0.5 * math.dist((0.0, start_y), goal)


def test_a_unicycle_whose_stall_escape_points_into_the_wall_it_nearly_faces_still_goes():
    """A robot inside a wall's tracking margin, 13° off facing it, whose stall escape
    turns its preferred velocity into the wall: it may not drive towards the wall, but
    it turns to slide along it and goes (it used to stand there for good: a lone robot
    of a block crowd, 120 s)."""
    config = ControllerConfig(radius=0.1, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", command_lag=0.1)
    margin = config.safety_radius(config.radius) - config.radius
    start_y = config.radius + 0.3 * margin
    controller = RobotController(config, key="r")
    controller.set_path([(5.0, start_y)])
    controller.path.stalled_time = 100.0  # the escape at its full 75° to the right: into the wall
    body = Body(0.0, start_y, math.radians(-13.0))
    edges = build_obstacle_edges([WALL])
    for _ in range(30):
        state = RobotState((body.x, body.y), body.world_velocity, body.heading, body.vx,
                           body.omega)
        command = controller.compute(state, [], edges)
        body = step_body(body, (command.linear, 0.0, command.angular), "diff_drive",
                         config.limits, config.time_step)
        assert body.y - config.radius >= 0.0
    assert body.x > 1.0


@pytest.mark.parametrize("goal_distance, reached_before, faces_goal", [
    (0.05, False, True),    # on its goal
    (0.15, True, True),     # pushed off a goal it had reached, within two radii
    (0.15, False, False),   # short of a goal it has not reached yet
    (0.25, True, False),    # pushed farther than two radii
    (3.0, False, False),    # on the way
])
def test_a_unicycle_held_almost_still_faces_its_goal_only_on_or_back_near_it(
        goal_distance, reached_before, faces_goal):
    """An avoidance velocity under HELD_TURN_SPEED_SHARE is the linear program's rounding. On
    its goal, or pushed off it by others, the unicycle faces its preferred velocity instead (parked
    cubes stop spinning off their goals); elsewhere it still turns after it (facing the
    preferred velocity everywhere gridlocked diff-drive block crowds: 20-35 of 100
    arrived, not 77-100; within two radii of a goal not yet reached it kept a
    menge_circle robot 0.5 m short of it for 40 s)."""
    config = ControllerConfig(radius=0.1, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive")
    controller = RobotController(config, key="r")
    controller.set_path([(0.0, goal_distance)])
    if reached_before:  # one period standing on the goal first
        controller.compute(RobotState((0.0, goal_distance), heading=math.pi / 2), [], [])
        assert controller.path.goal_reached
    method = controller._run_method
    tiny_left = (-0.5 * HELD_TURN_SPEED_SHARE * config.max_speed, 0.0)  # the goal is straight ahead
    controller._run_method = lambda view: method(view)._replace(velocity=tiny_left)
    command = controller.compute(RobotState((0.0, 0.0), heading=math.pi / 2), [], [])
    # The preferred velocity is the goal's direction turned 10 degrees right (keep-right).
    assert command.pref_velocity[0] > 0.0
    if faces_goal:
        assert command.angular < 0.0  # a little right, to the preferred velocity
    else:
        assert command.angular > 1.0  # hard left, after the avoidance velocity


# --- backing off ----------------------------------------------------------------------------

def _at(deg):
    return (math.cos(math.radians(deg)), math.sin(math.radians(deg)))


def test_a_unicycle_backs_only_when_avoidance_sends_it_back_and_keeps_its_choice_near_its_side():
    ahead = _at(0.0)  # facing +x, its goal ahead
    assert drive_direction(0.0, _at(170.0), 1, True, ahead) == -1  # sent back: it backs
    assert drive_direction(0.0, _at(170.0), 1, False, ahead) == 1  # unless it may not reverse
    assert drive_direction(0.0, _at(170.0), 1, True, _at(180.0)) == 1  # goal behind: turn round
    # Within 20 degrees either side of a right angle it keeps the direction it drives in.
    assert drive_direction(0.0, _at(100.0), 1, True, ahead) == 1
    assert drive_direction(0.0, _at(100.0), -1, True, ahead) == -1
    assert drive_direction(0.0, _at(80.0), -1, True, ahead) == -1
    assert drive_direction(0.0, _at(60.0), -1, True, ahead) == 1
    assert drive_direction(0.0, (0.0, 0.0), -1, True, ahead) == -1  # no direction: as it was


def _allowed(lines, u):
    """``u`` on the allowed (left) side of every half-plane, within rounding."""
    return all(allowed(line, u) for line in lines)


def test_kinematic_half_planes_in_reverse_allow_backing_within_its_speed_and_acceleration():
    limits = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive").limits  # 4 m/s^2: 0.4 m/s a period
    back = kinematic_half_planes(0.0, 0.0, limits, 0.1, direction=-1, reverse_speed=0.3)
    assert _allowed(back, (-0.3, 0.0)) and _allowed(back, (0.0, 0.0))
    assert not _allowed(back, (-0.35, 0.0))  # beyond the reverse speed
    assert not _allowed(back, (0.1, 0.0))  # forward, while it backs
    forward = kinematic_half_planes(0.0, 0.0, limits, 0.1)
    assert not _allowed(forward, (-0.1, 0.0))
    # Still driving forward at 0.7 m/s when it turns to backing: it only brakes, hard.
    braking = kinematic_half_planes(0.0, 0.7, limits, 0.1, direction=-1, reverse_speed=1.0)
    assert _allowed(braking, (0.3, 0.0))
    assert not _allowed(braking, (0.2, 0.0)) and not _allowed(braking, (0.4, 0.0))


def test_a_unicycle_backing_off_turns_its_back_towards_where_it_goes():
    limits = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive").limits
    v, omega = unicycle_command((-0.3, 0.0), _at(170.0), 0.0, (0.0, 0.0), limits, 0.1,
                                direction=-1, reverse_speed=1.0)
    assert v == pytest.approx(-0.3)
    assert omega < 0.0  # the back (180 deg) turns towards 170 deg: clockwise
    v, omega = unicycle_command((-0.3, 0.0), _at(170.0), 0.0, (0.0, 0.0), limits, 0.1)
    assert v == 0.0 and omega > 0.0  # forward only: it stands and turns its front round


def _close_call(max_reverse_speed):
    """A unicycle facing its goal, and a robot that does not avoid it coming head-on at
    0.4 m/s, 5 cm from contact: the smallest gap over 2 s."""
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", max_reverse_speed=max_reverse_speed)
    controller = RobotController(config, key="a")
    controller.set_path([(4.0, 0.0)])
    body = Body(0.0, 0.0, 0.0)
    other, other_velocity = (0.45, 0.0), (-0.4, 0.0)
    gap, backed = math.inf, False
    for _ in range(20):
        state = RobotState((body.x, body.y), body.world_velocity, body.heading, body.vx,
                           body.omega)
        neighbor = Neighbor(other, other_velocity, 0.2, "b", reciprocates=False)
        command = controller.compute(state, [neighbor])
        backed = backed or command.linear < -0.1
        body = step_body(body, (command.linear, 0.0, command.angular), "diff_drive",
                         config.limits, config.time_step)
        other = (other[0] + other_velocity[0] * 0.1, other[1])
        gap = min(gap, math.dist((body.x, body.y), other) - 0.4)
    return gap, backed


def test_a_unicycle_backs_away_from_a_robot_coming_at_it_that_turning_round_cannot_escape():
    gap, backed = _close_call(None)  # may back off at up to max_speed
    assert backed and gap >= 0.0
    gap, backed = _close_call(0.0)  # forward only: it must turn first, and is hit
    assert not backed and gap < 0.0
