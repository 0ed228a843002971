"""The tracking stage on its own: a unicycle's twist from the method's velocity."""

import math

import pytest

from orca_ros.core.methods import MethodOutput
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.state import RobotState
from orca_ros.core.geometry.linprog import HalfPlane
from orca_ros.core.robot.tracking import (DELAY_TIME_CONSTANT_RATIO, LoopDelay, UnicycleTracking,
                                        onto_goal_speed, settled, turnable_speed,
                                        unicycle_command)

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                          kinematics="diff_drive")


def test_the_method_runs_again_within_the_kinematic_half_planes():
    seen = []

    def replan(hard):
        seen.append(hard)
        return MethodOutput((0.1, 0.0))

    planned, v, omega = UnicycleTracking().command(
        CONFIG, RobotState((0.0, 0.0)), MethodOutput((1.0, 0.0)), (1.0, 0.0), False, [], [],
        replan)
    assert len(seen) == 1 and len(seen[0]) == 4  # lateral twice, longitudinal twice
    assert planned.velocity == (0.1, 0.0) and v == pytest.approx(0.1) and omega == 0.0


def test_it_turns_towards_the_free_velocity():
    free = MethodOutput((0.0, 1.0))  # to the left of the heading
    planned, v, omega = UnicycleTracking().command(
        CONFIG, RobotState((0.0, 0.0)), free, (0.0, 1.0), False, [], [],
        lambda hard: MethodOutput((0.0, 0.0)))
    assert omega > 0.0 and v == 0.0


def test_a_method_without_constraints_is_held_to_the_driving_limits_only():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", method="hrvo")

    def replan(hard):
        raise AssertionError("a method that takes no constraints is not run again")

    result = MethodOutput((0.5, 0.0))
    assert UnicycleTracking().command(config, RobotState((0.0, 0.0)), result, (0.5, 0.0),
                                      False, [], [], replan)[0] is result


def test_a_unicycle_that_may_reverse_backs_off_and_keeps_the_direction():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive", max_reverse_speed=0.3)
    tracking = UnicycleTracking()
    back = MethodOutput((-0.3, 0.0))
    tracking.command(config, RobotState((0.0, 0.0)), back, (1.0, 0.0), False, [], [],
                     lambda hard: back)
    assert tracking.drive_sign == -1
    _, v, _ = tracking.command(config, RobotState((0.0, 0.0)), back, (1.0, 0.0), False,
                               [], [], lambda hard: back)
    assert v < 0.0 and tracking.drive_sign == -1


def test_held_on_its_goal_it_faces_the_preferred_velocity():
    tiny = MethodOutput((0.0, -0.001))
    _, _, omega = UnicycleTracking().command(
        CONFIG, RobotState((0.0, 0.0), heading=0.0), tiny, (0.0, 1.0), True, [], [],
        lambda hard: tiny)
    assert omega > 0.0  # to the preferred velocity's side, not the tiny velocity's
    assert math.isfinite(omega)


@pytest.mark.parametrize("target", [0.004, 0.1, 0.5, 2.0, -1.2])
@pytest.mark.parametrize("time_step", [0.05, 0.1, 0.25])
def test_a_unicycle_turns_to_a_new_heading_without_overshooting_it(target, time_step):
    """Under its angular acceleration limit the turn rate is one it can still bring to
    zero by the new heading (:func:`~orca_ros.core.robot.safety_filter.braking_speed`
    over the angle), so the robot settles on it from one side, small errors included.
    Commanding ``error / dt`` and braking only once there, a robot at 0.05 s overshot
    and turned back: the turn command changed side after each swerve."""
    limits = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0,
                              time_step=time_step, kinematics="diff_drive").limits
    free = (math.cos(target), math.sin(target))
    heading, omega, side = 0.0, 0.0, math.copysign(1.0, target)
    for _ in range(round(3.0 / time_step)):
        _, omega = unicycle_command((0.0, 0.0), free, heading, (0.0, omega), limits,
                                    time_step)
        assert omega * side >= 0.0  # never turned back
        heading += omega * time_step
        assert (heading - target) * side <= 1e-12  # never past it
    assert heading == pytest.approx(target, abs=1e-9)


# --- LoopDelay: how late turn commands show in the odometry ---------------------------

def _turns(count: int, seed: int = 3):
    """Turn commands that change every period (rad/s), as a swerving robot sends."""
    import random

    rng = random.Random(seed)
    return [rng.uniform(-2.0, 2.0) for _ in range(count)]


@pytest.mark.parametrize("periods", [1, 2, 3, 5])
def test_the_loop_delay_is_the_periods_after_which_the_odometry_shows_a_command(periods):
    """Each period the odometry reads the turn rate commanded ``periods`` ago (one:
    fleet_sim and the world, the command of the period before)."""
    loop, commands = LoopDelay(0.1), _turns(60)
    for k, omega in enumerate(commands):
        now = 0.1 * k
        loop.observe(now, commands[k - periods] if k >= periods else 0.0)
        loop.sent(now, omega)
    assert loop.delay == pytest.approx(0.1 * periods)
    assert loop.extra == pytest.approx(0.1 * (periods - 1))


def test_noisy_odometry_still_gives_the_delay():
    import random

    rng = random.Random(7)
    loop, commands = LoopDelay(0.05), _turns(120)
    for k, omega in enumerate(commands):
        measured = commands[k - 4] if k >= 4 else 0.0
        loop.observe(0.05 * k, measured + rng.gauss(0.0, 0.1))
        loop.sent(0.05 * k, omega)
    assert loop.delay == pytest.approx(0.2)


def test_driving_straight_tells_nothing_and_the_measured_delay_stays():
    """Commands that all agree match every candidate delay alike: such periods are
    passed over, so a long straight stretch keeps what the turns before measured."""
    loop, commands = LoopDelay(0.1), _turns(40) + [0.0] * 200
    for k, omega in enumerate(commands):
        loop.observe(0.1 * k, commands[k - 3] if k >= 3 else 0.0)
        loop.sent(0.1 * k, omega)
        if k == 39:
            assert loop.delay == pytest.approx(0.3)
    assert loop.delay == pytest.approx(0.3)


def test_the_delay_is_given_only_after_some_turning():
    loop, commands = LoopDelay(0.1), _turns(3)
    for k, omega in enumerate(commands):
        loop.observe(0.1 * k, commands[k - 2] if k >= 2 else 0.0)
        loop.sent(0.1 * k, omega)
    assert loop.delay == 0.0  # three periods: not yet LoopDelay.evidence


def test_a_late_loop_closes_the_heading_error_more_slowly():
    tracking = UnicycleTracking()
    assert tracking.heading_time_constant(CONFIG) == CONFIG.heading_time_constant
    tracking.loop_delay = LoopDelay(0.1)
    tracking.loop_delay.delay = 0.3  # two periods beyond the cycle's own
    assert tracking.heading_time_constant(CONFIG) == \
        pytest.approx(DELAY_TIME_CONSTANT_RATIO * 0.2)
    tracking.loop_delay.delay = 0.1  # the cycle's own period: as configured
    assert tracking.heading_time_constant(CONFIG) == CONFIG.heading_time_constant
    slow = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                            kinematics="diff_drive", heading_time_constant=1.0)
    tracking.loop_delay.delay = 0.3
    assert tracking.heading_time_constant(slow) == 1.0  # the parameter stays a floor


def test_a_clock_that_stands_or_goes_back_keeps_the_history_bounded():
    """Cycles at one instant (a paused simulation) keep the latest command only; a clock
    that went back (a simulation started over) starts the history anew."""
    loop = LoopDelay(0.1)
    for omega in (0.5, -0.5, 1.0):
        loop.sent(2.0, omega)
    assert loop._times == [2.0] and loop._rates == [1.0]
    loop.sent(0.0, 0.2)
    assert loop._times == [0.0] and loop._rates == [0.2]


def test_the_turnable_speed_is_the_tightest_circle_through_the_point():
    # 0.1 m abeam: the circle through it tangent to the axis has radius 0.05 m.
    assert turnable_speed(0.1, math.pi / 2, 2.0) == pytest.approx(0.1)
    assert turnable_speed(0.1, math.pi / 6, 2.0) == pytest.approx(0.2)
    assert turnable_speed(0.1, 0.0, 2.0) == math.inf
    assert turnable_speed(0.1, math.pi, 2.0) == math.inf


# A unicycle 5 cm from its goal, the goal abeam to its left, driving at 0.4 m/s.
NEAR = RobotState((0.0, 0.0), (0.4, 0.0), 0.0, 0.4, 0.0)
GOAL = (0.0, 0.05)


def test_a_unicycle_drives_no_faster_than_it_can_turn_onto_its_goal():
    pref = (0.0, 0.5)
    capped = onto_goal_speed(CONFIG, NEAR, GOAL, pref, pref, 0.4, [])
    # max_angular_speed 3 rad/s: 3 x 0.05 / 2 = 0.075 m/s, but braking at 4 m/s^2
    # takes at most 0.4 m/s off in a period of 0.1 s: no lower than 0.0.
    assert capped == pytest.approx(0.075)
    slow = RobotState((0.0, 0.0), (0.1, 0.0), 0.0, 0.1, 0.0)
    assert onto_goal_speed(CONFIG, slow, GOAL, pref, pref, 0.1, []) == pytest.approx(0.075)
    ahead = (0.3, 0.0)  # the goal straight ahead: no cap
    assert onto_goal_speed(CONFIG, NEAR, ahead, (0.5, 0.0), (0.5, 0.0), 0.4, []) == 0.4


def test_it_slows_no_faster_than_it_can_brake():
    fast = RobotState((0.0, 0.0), (1.0, 0.0), 0.0, 1.0, 0.0)
    pref = (0.0, 0.5)
    assert onto_goal_speed(CONFIG, fast, GOAL, pref, pref, 1.0, []) == pytest.approx(0.6)


def test_a_unicycle_the_method_sends_elsewhere_is_not_slowed_for_its_goal():
    pref = (0.0, 0.5)
    making_way = (0.4, -0.2)  # a parked robot moving aside for another
    assert onto_goal_speed(CONFIG, NEAR, GOAL, pref, making_way, 0.4, []) == 0.4


def test_it_is_not_slowed_where_slower_breaks_a_hard_half_plane():
    pref = (0.0, 0.5)
    # A robot closing from behind: the velocities with u_x >= 0.3 only.
    behind = HalfPlane(0.3, 0.0, 0.0, -1.0)
    assert onto_goal_speed(CONFIG, NEAR, GOAL, pref, pref, 0.4, [behind]) == 0.4
    ahead = HalfPlane(0.5, 0.0, 0.0, 1.0)  # u_x <= 0.5: slower keeps to it
    assert onto_goal_speed(CONFIG, NEAR, GOAL, pref, pref, 0.4, [ahead]) == pytest.approx(0.075)


def test_a_unicycle_settles_on_its_goal_unless_asked_to_make_way():
    at = RobotState((0.0, 0.0), heading=1.0)
    goal = (0.01, 0.0)  # 1 cm off, under a quarter of the tolerance (the radius, 0.2 m)
    pref = (0.1, 0.0)
    assert settled(CONFIG, at, goal, pref, pref)
    assert not settled(CONFIG, at, goal, pref, (0.0, -0.2))
    assert not settled(CONFIG, at, (0.06, 0.0), pref, pref)
    # A robot closing from behind that standing still would not leave room for.
    assert not settled(CONFIG, at, goal, pref, pref, [HalfPlane(0.05, 0.0, 0.0, -1.0)])
    tracking = UnicycleTracking()
    _, v, omega = tracking.command(CONFIG, at, MethodOutput(pref), pref, True, [], [],
                                   lambda hard: MethodOutput(pref), goal)
    assert v == 0.0 and omega == 0.0  # it does not turn to face a point 1 cm away
    _, v, omega = tracking.command(CONFIG, at, MethodOutput(pref), pref, True, [], [],
                                   lambda hard: MethodOutput(pref), None)
    assert omega < 0.0  # without its goal (a corner between) it turns as ever


def test_a_parked_unicycle_a_neighbour_counts_on_does_not_stand():
    """Its preferred velocity, towards its point 1 cm off, is also its share of making
    room for a robot squeezing past (the method's half-plane wants it moving at 0.05
    m/s or more): standing there kept the other 0.33 m short of its goal."""
    at = RobotState((0.0, 0.0), heading=0.0)
    goal, pref = (0.01, 0.0), (0.1, 0.0)
    share = MethodOutput(pref, half_planes=(HalfPlane(0.05, 0.0, 0.0, -1.0),))
    _, v, omega = UnicycleTracking().command(CONFIG, at, share, pref, True, [], [],
                                             lambda hard: MethodOutput(pref), goal)
    assert v > 0.0
