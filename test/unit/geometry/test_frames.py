"""Poses on the floor (orca_ros/core/geometry/frames.py): composed and inverted as TF does."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from orca_ros.core.geometry.frames import Pose2, interpolate, wrap_angle

coordinate = st.floats(-50.0, 50.0)
angle = st.floats(-math.pi, math.pi)
pose = st.builds(Pose2, coordinate, coordinate, angle)


def test_a_pose_maps_points_and_turns_velocities():
    odom_in_map = Pose2(2.0, 1.0, math.pi / 2)
    assert odom_in_map.apply((1.0, 0.0)) == pytest.approx((2.0, 2.0))
    assert odom_in_map.rotate((1.0, 0.0)) == pytest.approx((0.0, 1.0))
    robot_in_odom = Pose2(1.0, 0.0, 0.0)
    robot_in_map = odom_in_map.compose(robot_in_odom)
    assert tuple(robot_in_map) == pytest.approx((2.0, 2.0, math.pi / 2))


@given(pose, pose)
def test_composing_with_the_inverse_gives_back_the_other_pose(a, b):
    back = a.inverse().compose(a.compose(b))
    assert (back.x, back.y) == pytest.approx((b.x, b.y), abs=1e-9)
    assert wrap_angle(back.yaw - b.yaw) == pytest.approx(0.0, abs=1e-9)


def test_interpolation_turns_the_short_way():
    middle = interpolate(Pose2(0.0, 0.0, math.radians(170)), Pose2(2.0, 0.0, math.radians(-170)),
                         0.5)
    assert (middle.x, abs(middle.yaw)) == pytest.approx((1.0, math.pi))


def test_turning_into_the_body_frame_and_back_keeps_a_vector():
    from orca_ros.core.geometry.frames import body_to_world, world_to_body

    assert body_to_world(math.pi / 2, (1.0, 0.0)) == pytest.approx((0.0, 1.0))
    assert world_to_body(math.pi / 2, (0.0, 1.0)) == pytest.approx((1.0, 0.0))
    assert world_to_body(0.7, body_to_world(0.7, (0.3, -0.2))) == pytest.approx((0.3, -0.2))


@given(st.floats(-100.0, 100.0))
@example(float(np.nextafter(math.pi, 4.0)))  # just above pi: wraps to just above -pi
@example(float(np.nextafter(-math.pi, -4.0)))
def test_an_array_of_angles_wraps_as_each_angle_does(a):
    wrapped = wrap_angle(np.array([a, a + 2.0 * math.pi, math.pi, -math.pi]))
    for w in wrapped[:2]:  # the angle the scalar form gives (pi and -pi are one angle)
        assert abs(wrap_angle(float(w) - wrap_angle(a))) < 1e-9
    assert list(wrapped[2:]) == [math.pi, math.pi]
    assert all(-math.pi < w <= math.pi for w in wrapped)
