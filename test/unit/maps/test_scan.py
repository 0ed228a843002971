"""Laser scans to local walls (orca_ros/core/maps/scan.py): invalid rays left out and
counted, neighbours' returns removed, the rest fitted as segments."""

import math

import numpy as np
import pytest

from orca_ros.core.maps.scan import scan_points, scan_segments, unexplained
from orca_ros.core.sim.laser import LaserSpec, cast


def test_nan_inf_and_out_of_range_rays_are_left_out_and_counted():
    ranges = [1.0, float("nan"), float("inf"), 0.05, 9.0, 2.0]
    found = scan_points(ranges, 0.0, math.pi / 3, 0.12, 3.5, (1.0, 2.0, math.pi / 2))
    assert (found.ignored, found.not_finite) == (4, 2)
    # ray 0 along the robot's heading (+y here), ray 5 at 300 degrees from it
    assert found.points[0] == pytest.approx((1.0, 3.0))
    assert found.points[1] == pytest.approx((1.0 + 2.0 * math.cos(math.pi / 2 + 5 * math.pi / 3),
                                             2.0 + 2.0 * math.sin(math.pi / 2 + 5 * math.pi / 3)))


def test_a_wall_seen_by_the_laser_becomes_a_segment_on_it_and_a_neighbour_is_left_out():
    spec = LaserSpec(rays=360, range_max=3.5, noise=0.01)
    wall = np.array([[[1.0, -1.0], [1.0, 1.0]]])
    neighbour = (-1.0, 0.0, 0.2)
    ranges = cast((0.0, 0.0), 0.0, spec, wall, np.array([neighbour]),
                  np.random.default_rng(2))
    found = scan_points(ranges, 0.0, spec.angle_increment, spec.range_min, spec.range_max,
                        (0.0, 0.0, 0.0))
    keep = unexplained(found.points, [neighbour], margin=0.05)
    assert keep.sum() < len(keep)  # the neighbour's returns
    segments = scan_segments(found.points[keep], (0.0, 0.0), 0.2, 0.05)
    assert 1 <= len(segments) <= 3
    for s in segments:  # on the wall, within noise and tolerance
        assert abs(s.a[0] - 1.0) < 0.08 and abs(s.b[0] - 1.0) < 0.08
    ys = [y for s in segments for y in (s.a[1], s.b[1])]
    assert min(ys) < -0.9 and max(ys) > 0.9


def test_a_lone_return_is_a_short_wall_across_its_ray_and_the_scan_closes_round_zero():
    [post] = scan_segments(np.array([[2.0, 0.0]]), (0.0, 0.0), 0.2, 0.05)
    assert post.a == pytest.approx((2.0, -0.05)) and post.b == pytest.approx((2.0, 0.05))
    # returns at angles 350..359 and 0..10 degrees of a wall ahead: one cluster, not two
    angles = np.radians(np.r_[0:11, 350:360])
    points = np.column_stack([np.full(len(angles), 2.0), 2.0 * np.tan(angles)])
    assert len(scan_segments(points, (0.0, 0.0), 0.2, 0.05)) == 1
    assert scan_segments(np.zeros((0, 2)), (0.0, 0.0), 0.2, 0.05) == []


def test_scan_walls_leaves_a_neighbours_returns_out_and_fits_the_rest_from_the_laser():
    """The whole way from a scan to walls: a wall 1 m ahead of a laser mounted 0.2 m
    ahead of the robot's centre and a neighbour 1 m behind; the neighbour's returns
    (within its disc and the margin) are no wall."""
    from orca_ros.core.maps.scan import neighbour_margin, scan_walls

    spec = LaserSpec(rays=360, noise=0.0)
    laser = (0.2, 0.0, 0.0)
    ranges = cast(laser[:2], laser[2], spec, np.array([[[1.2, -0.4], [1.2, 0.4]]]),
                  np.array([[-0.8, 0.0, 0.25]]))
    walls, found = scan_walls(ranges, 0.0, spec.angle_increment, spec.range_min,
                              spec.range_max, laser, [(-0.8, 0.0, 0.25)], 0.2, 0.05)
    assert found.ignored == int(np.sum(~np.isfinite(ranges)))
    assert walls and all(abs(w.a[0] - 1.2) < 0.06 and abs(w.b[0] - 1.2) < 0.06 for w in walls)
    # without the neighbour known, its returns are a wall of their own
    blind, _ = scan_walls(ranges, 0.0, spec.angle_increment, spec.range_min, spec.range_max,
                          laser, [], 0.2, 0.05)
    assert any(w.a[0] < 0.0 for w in blind)
    assert neighbour_margin(0.05) == pytest.approx(0.1) and neighbour_margin(0.0) == 0.05
