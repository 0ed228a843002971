"""A unicycle's tracking in C (``_orca2d.kinematic_half_planes``,
``_orca2d.unicycle_command``, behind :mod:`orca_ros.core.robot.tracking`) against the
Python it replaced (``test/helpers/tracking_reference.py``), value for value."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.models.bodies import DiffDriveLimits
from orca_ros.core.orca import _orca2d
from orca_ros.core.robot.tracking import kinematic_half_planes, unicycle_command
from helpers import tracking_reference as reference

limits = st.builds(DiffDriveLimits, st.floats(0.1, 3.0), st.floats(0.5, 4.0),
                   st.floats(0.5, 8.0), st.floats(1.0, 30.0), st.floats(0.005, 0.1))
speed = st.floats(-3.0, 3.0)
angle = st.floats(-10.0, 10.0)
pair = st.tuples(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
period = st.floats(0.02, 0.5)


@settings(max_examples=800, deadline=None)
@given(angle, speed, limits, period, st.sampled_from([-1, 1]), st.floats(0.0, 1.0))
def test_the_kinematic_half_planes_are_the_former_pythons(heading, linear_speed, lim, dt,
                                                          direction, reverse_speed):
    assert kinematic_half_planes(heading, linear_speed, lim, dt, direction, reverse_speed) \
        == reference.kinematic_half_planes(heading, linear_speed, lim, dt, direction,
                                           reverse_speed)


@settings(max_examples=1500, deadline=None)
@given(pair, pair, angle, st.tuples(speed, st.floats(-4.0, 4.0)), limits, period,
       st.one_of(st.just(0.0), st.floats(0.0, 1.0)), st.sampled_from([-1, 1]),
       st.floats(0.0, 1.0))
def test_the_unicycle_command_is_the_former_pythons(planned, free, heading, current, lim,
                                                    dt, time_constant, direction,
                                                    reverse_speed):
    got = unicycle_command(planned, free, heading, current, lim, dt, time_constant,
                           direction, reverse_speed)
    assert got == reference.unicycle_command(planned, free, heading, current, lim, dt,
                                             time_constant, direction, reverse_speed)


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e-5, 1e-5), st.floats(-1e-5, 1e-5), angle, limits, period)
def test_a_free_velocity_too_small_to_turn_after_is_the_former_pythons(fx, fy, heading,
                                                                       lim, dt):
    """Below 1e-6 m/s the robot does not turn after it (``omega`` 0, then the limits)."""
    got = unicycle_command((0.1, 0.0), (fx, fy), heading, (0.0, 0.5), lim, dt)
    assert got == reference.unicycle_command((0.1, 0.0), (fx, fy), heading, (0.0, 0.5),
                                             lim, dt)


def test_a_half_turn_is_taken_by_the_shorter_side_at_the_braking_rate():
    """Facing +x, asked for -x rotated a hair to the left: it turns left, at the rate
    its braking still stops by then, and within its acceleration step."""
    lim = DiffDriveLimits(1.0, max_angular_speed=3.0, max_angular_accel=8.0)
    v, omega = unicycle_command((0.0, 0.0), (-1.0, 1e-3), 0.0, (0.0, 0.0), lim, 0.1)
    assert v == 0.0 and omega == pytest.approx(8.0 * 0.1)
    assert math.isfinite(omega) and omega > 0.0


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="heading must be a number"):
        _orca2d.kinematic_half_planes("east", 0.0, 0.02, 2.0, 1.0, 0.1, 1, 0.0)
    with pytest.raises(ZeroDivisionError, match="dt is 0"):
        _orca2d.unicycle_command(*([0.0] * 11), 0.0, 0.0, 1, 0.0)
    with pytest.raises(TypeError, match="takes 15 positional arguments"):
        _orca2d.unicycle_command(0.0)
