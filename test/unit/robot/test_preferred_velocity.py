"""The preferred velocity stage on its own: waypoints, keep-right, the period count,
arrival, and the detour the supervisor sets."""

import math

import pytest

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.preferred_velocity import (PreferredVelocity, ProgressClock,
                                                    StallClock, keep_right_angle)
from orca_ros.core.robot.state import RobotState

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1)


def _stage(points, config=CONFIG):
    stage = PreferredVelocity(config, key="a")
    stage.set_path(points)
    return stage


def _step(stage, position, config=CONFIG):
    return stage.step(config, RobotState(position), (), config.avoidance_radius(config.radius),
                      [], lambda: [])


def test_heads_for_the_waypoint_at_the_preferred_speed_turned_right():
    stage = _stage([(5.0, 0.0)])
    pref, arrived = _step(stage, (0.0, 0.0))
    assert math.hypot(*pref) == pytest.approx(CONFIG.pref_speed) and not arrived
    angle = math.degrees(math.atan2(pref[1], pref[0]))
    # at rest from its first period: stalled one period already
    assert stage.stalled_time == pytest.approx(CONFIG.time_step)
    assert angle == pytest.approx(-keep_right_angle(stage.stalled_time, CONFIG.keep_right_deg,
                                                    CONFIG.stall_escape_deg,
                                                    CONFIG.stall_escape_time))


def test_moves_on_past_waypoints_within_lookahead():
    stage = _stage([(0.05, 0.0), (0.0, 5.0)])
    _step(stage, (0.0, 0.0))
    assert stage.waypoint_index == 1 and stage.target == (0.0, 5.0)


def test_each_step_counts_a_period_and_notes_arrival():
    stage = _stage([(0.0, 0.0)])
    pref, arrived = _step(stage, (0.0, 0.0))
    assert arrived and stage.goal_reached and stage.periods == 1 and pref == (0.0, 0.0)
    _step(stage, (1.0, 0.0))
    assert stage.goal_reached and stage.periods == 2  # reached once on this path


def test_a_robot_standing_still_counts_as_stalled_and_turns_further():
    stage = _stage([(5.0, 0.0)])
    first, _ = _step(stage, (0.0, 0.0))
    for _ in range(20):
        later, _ = _step(stage, (0.0, 0.0))
    assert stage.stalled_time == pytest.approx(21 * CONFIG.time_step)
    assert math.atan2(later[1], later[0]) < math.atan2(first[1], first[0])


def test_the_supervisors_detour_comes_first_and_goes_again():
    stage = _stage([(5.0, 0.0)])
    stage.set_detour([(0.0, 3.0)])
    assert stage.waypoints == [(0.0, 3.0), (5.0, 0.0)] and stage.route.goal == (5.0, 0.0)
    stage.set_detour([])
    assert stage.waypoints == [(5.0, 0.0)]


def test_a_new_path_starts_the_behaviours_over():
    stage = _stage([(5.0, 0.0)])
    for _ in range(5):
        _step(stage, (0.0, 0.0))
    stage.margin.held, stage.round_standing.side = 0.5, 1
    stage.give_way.backing, stage.guidance.corner = ((-1.0, 0.0), 2.0), (1.0, 1.0)
    stage.set_path([(0.0, 5.0)])
    assert (stage.stalled_time, stage.unprogressed_time, stage.margin.held,
            stage.waypoint_index, stage.goal_reached) == (0.0, 0.0, 1.0, 0, False)
    assert (stage.round_standing.side, stage.give_way.backing, stage.guidance.corner) == \
        (0, None, None)


def test_a_strict_method_gets_the_straight_line():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=0.8, time_step=0.1,
                              method="orca_strict")
    pref, _ = _step(_stage([(5.0, 0.0)], config), (0.0, 0.0), config)
    assert pref == pytest.approx((0.8, 0.0))


def test_the_stall_clock_measures_displacement_not_the_velocity_estimate():
    clock = StallClock()
    assert clock.displacement_speed(CONFIG, RobotState((0.0, 0.0), (0.3, 0.4))) == 0.5
    assert clock.displacement_speed(CONFIG, RobotState((0.0, 0.0), (0.3, 0.4))) == 0.0
    clock.count(CONFIG, True)
    clock.count(CONFIG, True)
    assert clock.stalled_time == pytest.approx(2 * CONFIG.time_step)
    clock.count(CONFIG, False)
    assert clock.stalled_time == 0.0


def test_the_progress_clock_restarts_a_radius_nearer_or_on_a_new_target():
    clock = ProgressClock()
    clock.note(CONFIG, (5.0, 0.0), 5.0)
    clock.note(CONFIG, (5.0, 0.0), 4.9)  # less than a radius nearer
    assert clock.unprogressed_time == pytest.approx(CONFIG.time_step)
    clock.note(CONFIG, (5.0, 0.0), 4.7)
    assert clock.unprogressed_time == 0.0
    clock.note(CONFIG, (5.0, 0.0), 4.7)
    clock.note(CONFIG, (0.0, 5.0), 9.0)
    assert clock.unprogressed_time == 0.0
    assert not clock.stuck(CONFIG) and clock.stuck(CONFIG, CONFIG.progress_escape_time)
