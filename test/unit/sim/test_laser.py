"""fleet_sim's simulated laser (orca_ros/core/sim/laser.py): ranges against walls and
discs where geometry puts them, no return beyond range, the robot's own disc unseen,
noise of the stated size."""

import math

import numpy as np
import pytest

from orca_ros.core.sim.laser import LDS, FleetLasers, LaserSpec, cast, segments_within


def test_rays_meet_walls_and_discs_where_geometry_puts_them():
    spec = LaserSpec(rays=4, range_max=5.0, noise=0.0)  # ahead, left, behind, right
    walls = np.array([[[2.0, -1.0], [2.0, 1.0]]])  # 2 m ahead, across
    discs = np.array([[0.0, 3.0, 0.5]])  # 3 m to the left, 0.5 m radius
    ranges = cast((0.0, 0.0), 0.0, spec, walls, discs)
    assert ranges[0] == pytest.approx(2.0) and ranges[1] == pytest.approx(2.5)
    assert math.isinf(ranges[2]) and math.isinf(ranges[3])  # nothing behind or right
    turned = cast((0.0, 0.0), math.pi / 2, spec, walls, discs)  # the laser turns with it
    assert turned[0] == pytest.approx(2.5) and turned[3] == pytest.approx(2.0)


def test_beyond_range_is_no_return_and_far_walls_are_left_out_first():
    spec = LaserSpec(rays=8, range_max=1.5, noise=0.0)
    walls = np.array([[[2.0, -1.0], [2.0, 1.0]], [[1.0, -1.0], [1.0, 1.0]]])
    assert len(segments_within(walls, np.zeros(2), 1.5)) == 1
    ranges = cast((0.0, 0.0), 0.0, spec, walls)
    assert ranges[0] == pytest.approx(1.0) and np.isinf(ranges[4])
    assert np.isinf(cast((0.0, 0.0), 0.0, spec, walls[:1])[0])  # 2 m: beyond 1.5 m


def test_noise_has_the_stated_deviation_and_a_fleet_does_not_see_its_own_disc():
    spec = LaserSpec(rays=3600, range_max=10.0, noise=0.01)
    ring = np.array([[[5 * math.cos(a), 5 * math.sin(a)],
                      [5 * math.cos(a + 0.01), 5 * math.sin(a + 0.01)]]
                     for a in np.arange(0.0, 2 * math.pi, 0.01)])
    ranges = cast((0.0, 0.0), 0.0, spec, ring, rng=np.random.default_rng(3))
    errors = ranges - 5.0
    assert abs(errors.mean()) < 0.002 and 0.005 < errors.std() < 0.015  # chords: < 0.1 mm
    lasers = FleetLasers(LDS, [((1.0, -1.0), (1.0, 1.0))], seed=1)
    positions = np.array([[0.0, 0.0], [-1.0, 0.0]])
    first = lasers.scan(positions, [0.0, 0.0], [0.2, 0.2], 0)
    assert first[0] == pytest.approx(1.0, abs=0.05)  # the wall ahead
    assert first[180] == pytest.approx(0.8, abs=0.05)  # the other robot behind, not itself
    with pytest.raises(ValueError, match="range_min < range_max"):
        LaserSpec(range_min=4.0, range_max=3.5)


def test_among_a_maps_thousands_of_walls_the_laser_reads_what_casting_at_every_wall_reads():
    """A map's walls are looked up in a spatial index before the rays are cast: the same
    ranges as casting at all of them."""
    rng = np.random.default_rng(3)
    starts = rng.uniform(0.0, 20.0, (2000, 2))
    outlines = [(tuple(a), tuple(a + rng.normal(0.0, 0.4, 2))) for a in starts]
    spec = LaserSpec(noise=0.0)
    lasers = FleetLasers(spec, outlines)
    positions = np.array([[10.0, 10.0], [3.0, 4.0], [15.5, 2.5]])
    for k in range(len(positions)):
        every = cast(positions[k], 0.3 * k, spec, lasers.segments,
                     np.column_stack([np.delete(positions, k, axis=0), np.full(2, 0.2)]))
        ranges = lasers.scan(positions, [0.0, 0.3, 0.6], [0.2, 0.2, 0.2], k)
        assert np.isfinite(ranges).sum() > 100
        np.testing.assert_array_equal(ranges, every)


def test_a_laser_mounted_off_the_centre_casts_from_its_mount_turned_with_the_robot():
    """``mount`` (the laser's x, y, yaw on the robot): rays leave from there, angle 0
    along the mount's yaw; robot and mount turn together."""
    spec = LaserSpec(rays=4, range_max=5.0, noise=0.0, mount=(0.3, -0.1, math.pi / 2))
    lasers = FleetLasers(spec, [((2.0, -3.0), (2.0, 3.0))])  # a wall at x = 2
    # facing +x: the laser sits at (0.3, -0.1), its straight ahead is +y, its right +x
    ranges = lasers.scan(np.array([[0.0, 0.0]]), [0.0], [0.2], 0)
    assert ranges[3] == pytest.approx(1.7) and math.isinf(ranges[0])
    # facing +y from (0, 0): the laser sits at (0.1, 0.3), its straight ahead is -x
    turned = lasers.scan(np.array([[0.0, 0.0]]), [math.pi / 2], [0.2], 0)
    assert turned[2] == pytest.approx(1.9) and math.isinf(turned[0])
    with pytest.raises(ValueError, match="mount must be"):
        LaserSpec(mount=(0.0, 0.0))
