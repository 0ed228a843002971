"""Steady steering: a unicycle's turn that ends on its heading and does not turn back for
a wobble (orca_ros/core/robot/tracking.py), and the side of the preferred velocity the
method took kept against a marginal gain (orca_ros/core/robot/controller.py)."""

import math

import pytest

from orca_ros.core.methods import MethodOutput
from orca_ros.core.models.bodies import DiffDriveLimits
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.controller import (RobotController, held_side_preference,
                                            steer_side)
from orca_ros.core.robot.tracking import (TURN_BACK_DEAD_BAND_RAD, braking_turn_rate,
                                          unicycle_command)
from orca_ros.core.sim.motion_quality import steering_reversals

LIMITS = DiffDriveLimits(1.0, max_angular_speed=3.0, max_angular_accel=20.0)
DT = 0.05


def _turn(target_heading, steady, steps=40, wobble=0.0):
    """Closed loop of the heading alone: a unicycle at rest turning to ``target_heading``
    (rad), the target wobbling by +-``wobble`` every other period; the omegas."""
    heading, omega, turning, omegas = 0.0, 0.0, 0, []
    for k in range(steps):
        aim = target_heading + (wobble if k % 2 else -wobble)
        free = (math.cos(aim), math.sin(aim))
        _, omega = unicycle_command(free, free, heading, (0.0, omega), LIMITS, DT,
                                    steady=steady, turning=turning)
        if abs(omega) > 0.05:
            turning = 1 if omega > 0 else -1
        heading += omega * DT
        omegas.append(omega)
    return heading, omegas


def test_the_braking_rate_stops_the_turn_within_the_error_left():
    step = 20.0 * DT  # the turn rate lost per period at the acceleration limit
    for error in (0.01, 0.05, 0.3, 1.0, 2.5):
        rate = braking_turn_rate(error, 20.0, DT)
        m = rate / step
        assert step * DT * m * (m + 1) / 2.0 == pytest.approx(error)  # turned while braking
    assert braking_turn_rate(0.02, 20.0, DT) >= 0.02 / DT  # a small error: closed at once
    assert braking_turn_rate(-1.0, 20.0, DT) == braking_turn_rate(1.0, 20.0, DT)


def test_a_steady_turn_ends_on_its_heading_without_turning_back():
    heading, omegas = _turn(1.2, steady=False)
    assert steering_reversals(omegas) >= 1  # overshoots under the acceleration limit
    heading, omegas = _turn(1.2, steady=True)
    assert steering_reversals(omegas) == 0
    assert heading == pytest.approx(1.2, abs=0.02)
    assert max(abs(w) for w in omegas) == pytest.approx(3.0)  # it still turns at full rate


def test_a_wobbling_target_does_not_set_a_steady_unicycle_turning_left_and_right():
    wobble = 0.4 * TURN_BACK_DEAD_BAND_RAD  # its two extremes within the dead band
    _, omegas = _turn(0.5, steady=False, steps=60, wobble=wobble)
    assert steering_reversals(omegas[20:]) >= 5  # after the turn: left, right, left ...
    heading, omegas = _turn(0.5, steady=True, steps=60, wobble=wobble)
    assert steering_reversals(omegas) == 0
    assert abs(heading - 0.5) <= 2.0 * TURN_BACK_DEAD_BAND_RAD
    # beyond the dead band it turns back as it must
    _, omegas = _turn(0.5, steady=True, steps=60, wobble=2.0 * TURN_BACK_DEAD_BAND_RAD)
    assert steering_reversals(omegas[20:]) >= 1


def test_steady_steering_leaves_the_speed_alone():
    free = (math.cos(0.4), math.sin(0.4))
    plain = unicycle_command((0.5, 0.0), free, 0.0, (0.5, 2.5), LIMITS, DT)
    steady = unicycle_command((0.5, 0.0), free, 0.0, (0.5, 2.5), LIMITS, DT, steady=True)
    assert steady[0] == plain[0]
    assert abs(steady[1]) <= abs(plain[1])


def test_the_side_of_the_preferred_velocity():
    assert steer_side((1.0, 0.0), (1.0, 0.3)) == 1
    assert steer_side((1.0, 0.0), (1.0, -0.3)) == -1
    assert steer_side((1.0, 0.0), (1.0, 0.01)) == 0  # within the dead band
    assert steer_side((1.0, 0.0), (-1.0, 0.3)) == 0  # backwards: no side
    assert steer_side((0.0, 0.0), (1.0, 0.3)) == 0
    shifted = held_side_preference((2.0, 0.0), (1.0, 0.4))
    assert shifted == pytest.approx((2.0, 0.4))


class _TwoWays:
    """A method whose answer is the nearer of two velocities either side of the preferred
    one (two ways round a neighbour straight ahead), with a flag for the least
    violation."""

    def __init__(self, left, right, fallback=False):
        self.left, self.right, self.fallback, self.calls = left, right, fallback, 0

    def __call__(self, view):
        self.calls += 1
        pref = view.pref_velocity
        best = min((self.left, self.right), key=lambda v: math.dist(v, pref))
        return MethodOutput(best, (), self.fallback)


def _held(method, last, ratio=0.2):
    config = ControllerConfig(radius=0.3, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              steer_hold_ratio=ratio)
    controller = RobotController(config, key="a")
    controller.last_velocity = last
    controller._run_method = method
    view = _View((1.0, 0.0))
    return controller._hold_side(config, view, method(view)).velocity


class _View:
    def __init__(self, pref):
        self.pref_velocity = pref

    def _replace(self, pref_velocity):
        return _View(pref_velocity)


def test_the_side_taken_is_kept_against_a_marginal_gain_only():
    left, right = (0.9, 0.35), (0.9, -0.3)  # the right is 0.05 m/s nearer the preferred
    method = _TwoWays(left, right)
    assert _held(method, last=(0.9, 0.3)) == left  # it went left last period: stays left
    assert _held(method, last=(0.9, -0.3)) == right  # no flip: as the method says
    assert _held(method, last=(0.9, 0.3), ratio=0.0) == right  # no hold: flips
    far_right = (0.95, -0.05 - 0.06)
    assert _held(_TwoWays((0.7, 0.7), far_right), last=(0.9, 0.3)) == far_right  # much better
    # the least violation (no velocity meets every half-plane) is never second-guessed
    assert _held(_TwoWays(left, right, fallback=True), last=(0.9, 0.3)) == right


def test_orca_strict_neither_holds_its_side_nor_steadies_its_steering():
    strict = ControllerConfig(radius=0.3, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              method="orca_strict")
    assert not strict.method_spec.steer_hold
    assert ControllerConfig(radius=0.3, max_speed=1.0, pref_speed=1.0,
                            time_step=0.1).method_spec.steer_hold

