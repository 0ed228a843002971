"""The engine's pieces that need no engine: walls as boxes, wheel odometry."""

import math

import pytest

from orca_ros.core.sim.physics import default_model, robot_kind
from orca_ros.core.sim.physics.odometry import WheelOdometry
from orca_ros.core.sim.physics.scene import (POLYGON_EDGE_THICKNESS, SEGMENT_THICKNESS,
                                             scene_mjcf, wall_boxes)


@pytest.mark.parametrize("square", [
    [(0, 0), (1, 0), (1, 1), (0, 1)],  # counter-clockwise
    [(0, 0), (0, 1), (1, 1), (1, 0)],  # clockwise
])
def test_polygon_edges_lie_inside_with_outer_faces_on_the_outline(square):
    boxes = wall_boxes([square])
    assert len(boxes) == 4
    half = POLYGON_EDGE_THICKNESS / 2
    for _, _, (cx, cy), half_length, thickness, _ in boxes:
        assert thickness == pytest.approx(half)
        assert half_length == pytest.approx(0.5)
        # every centre is half a thickness inside the unit square, off one edge
        assert 0.0 < cx < 1.0 and 0.0 < cy < 1.0
        assert min(cx, cy, 1 - cx, 1 - cy) == pytest.approx(half)


def test_a_segment_is_a_box_centred_on_it_and_degenerate_edges_are_left_out():
    boxes = wall_boxes([[(0, 0), (2, 0)], [(1, 1), (1, 1)]])
    assert len(boxes) == 1
    outline, edge, centre, half_length, half, yaw = boxes[0]
    assert (outline, edge) == (0, 0) and centre == pytest.approx((1.0, 0.0))
    assert half_length == pytest.approx(1.0) and half == pytest.approx(SEGMENT_THICKNESS / 2)
    assert yaw == pytest.approx(0.0)


def test_scene_names_each_wall_by_its_outline_and_refuses_a_bad_timestep():
    text = scene_mjcf([[(0, 0), (1, 0)], [(0, 2), (1, 2), (1, 3)]], 0.002)
    assert 'name="wall0_0"' in text and 'name="wall1_2"' in text
    with pytest.raises(ValueError, match="timestep"):
        scene_mjcf([], 0.0)


def test_wheel_odometry_drives_straight_and_turns_on_the_spot():
    odometry = WheelOdometry(wheel_radius=0.05, wheel_separation=0.4)
    odometry.update(0.0, 0.0, 0.0, 0.0)
    pose = odometry.update(10.0, 10.0, 1.0, 1.0)  # both wheels 10 rad: 0.5 m ahead
    assert (pose.x, pose.y, pose.yaw) == pytest.approx((0.5, 0.0, 0.0))
    assert odometry.twist == pytest.approx((0.05, 0.0, 0.0))
    # opposite turns: r (dr - dl) / b = 0.05 * 2 * 2 / 0.4 = 0.5 rad, no translation
    pose = odometry.update(8.0, 12.0, -1.0, 1.0)
    assert (pose.x, pose.y, pose.yaw) == pytest.approx((0.5, 0.0, 0.5))
    assert odometry.twist[2] == pytest.approx(0.25)


def test_wheel_odometry_follows_an_arc_to_second_order():
    """A quarter circle of radius 1 m in many small steps ends at (1, 1), facing +y."""
    r, b = 0.05, 0.4
    odometry = WheelOdometry(r, b)
    left = right = 0.0
    odometry.update(left, right, 0.0, 0.0)
    steps = 200
    for _ in range(steps):
        arc = (math.pi / 2) / steps  # rad of the circle per step
        left += arc * (1.0 - b / 2) / r
        right += arc * (1.0 + b / 2) / r
        pose = odometry.update(left, right, 0.0, 0.0)
    assert (pose.x, pose.y, pose.yaw) == pytest.approx((1.0, 1.0, math.pi / 2), abs=1e-4)


def test_robot_types_and_shipped_models():
    assert robot_kind("diff_drive", toio=False) == "diff_drive"
    assert robot_kind("diff_drive", toio=True) == "toio"
    assert robot_kind("holonomic", toio=True) == "holonomic"
    with pytest.raises(ValueError, match="kinematics"):
        robot_kind("tracked", toio=False)
    for kind in ("diff_drive", "holonomic", "toio"):
        assert default_model(kind).is_file()
    with pytest.raises(ValueError, match="wheel_radius"):
        WheelOdometry(0.0, 0.3)
