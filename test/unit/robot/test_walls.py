"""A robot's walls (core.robot.walls): sources' updates, the laser's walls and the
guidance roadmaps dropped only when the walls guidance plans round change."""

import math

import pytest

from orca_ros.core.geometry.frames import Pose2
from orca_ros.core.robot.obstacle_registry import (ObstacleAction, ObstacleUpdate,
                                                   ObstacleUpdateError)
from orca_ros.core.robot.state import RobotState
from orca_ros.core.robot.walls import RobotWalls, scan_problem

WALL = ((0.0, 2.0), (4.0, 2.0))


def wall(ns="map", points=WALL, lifetime=0.0):
    return ObstacleUpdate(ns, 0, ObstacleAction.ADD, points, lifetime)


def test_a_scan_in_the_shared_or_odom_frame_or_with_infinite_limits_is_refused():
    frames = ("map", "odom")
    assert scan_problem("laser", frames, -1.0, 0.01, 0.1, 10.0) is None
    assert scan_problem("", frames, -1.0, 0.01, 0.1, 10.0) is None
    assert "a laser's own frame is expected" in scan_problem("odom", frames, -1.0, 0.01, 0.1,
                                                             10.0)
    assert "not finite" in scan_problem("laser", frames, -1.0, math.nan, 0.1, 10.0)
    assert "not finite" in scan_problem("laser", frames, -1.0, 0.01, 0.1, math.inf)


def test_new_lasting_walls_drop_the_roadmaps_and_short_lived_ones_keep_them():
    roadmaps = {"built": 1}
    walls = RobotWalls("me", roadmaps)
    assert walls.apply(wall(), 0.0) and roadmaps == {}
    assert len(walls.edges) == 2 and walls.edges is walls.registry.edges
    roadmaps["built"] = 2
    assert walls.apply(wall("me/scan", ((1.0, 1.0), (1.0, 1.5)), lifetime=0.5), 0.0)
    assert roadmaps == {"built": 2} and len(walls.edges) == 4
    assert walls.expire(1.0) and len(walls.edges) == 2 and roadmaps == {"built": 2}
    assert walls.apply(wall("map", ((0.0, 3.0), (4.0, 3.0))), 1.0) and roadmaps == {}


def test_a_bad_update_changes_nothing():
    walls = RobotWalls("me", {})
    walls.apply(wall(), 0.0)
    before = walls.edges
    with pytest.raises(ObstacleUpdateError):
        walls.apply(wall("other", ((0.0, 0.0), (0.0, 0.0))), 0.0)
    assert walls.edges is before


def test_a_scan_of_a_wall_ahead_becomes_the_lasers_wall_and_its_figures():
    walls = RobotWalls("me", {})
    # The robot at (0, 0) facing +y, the laser 0.1 m ahead of it; a wall at y = 1.1.
    state = RobotState((0.0, 0.0), (0.0, 0.0), math.pi / 2)
    angles = [-0.5 + 0.01 * i for i in range(101)]
    ranges = [1.0 / math.cos(a) for a in angles] + [math.nan, math.inf]
    changed = walls.scan(ranges, -0.5, 0.01, 0.05, 10.0, state, Pose2(0.1, 0.0, 0.0),
                         lambda: [], 0.3, 0.02, 0.5, 0.0)
    assert changed
    [segment] = walls.registry.segments_of(walls.scan_key)
    assert segment.a[1] == pytest.approx(1.1, abs=0.02)
    assert segment.b[1] == pytest.approx(1.1, abs=0.02)
    report = walls.scan_report()
    assert (report["scans"], report["scan_rays_ignored"], report["scan_rays_not_finite"],
            report["scan_segments"]) == (1, 2, 2, 1)
    assert report["scan_ms_median"] != ""


def test_returns_a_neighbour_explains_are_no_wall():
    walls = RobotWalls("me", {})
    state = RobotState((0.0, 0.0), (0.0, 0.0), 0.0)
    angles = [-0.1 + 0.01 * i for i in range(21)]
    ranges = [1.0] * len(angles)
    walls.scan(ranges, -0.1, 0.01, 0.05, 10.0, state, Pose2(), lambda: [(1.0, 0.0, 0.3)],
               0.3, 0.02, 0.5, 0.0)
    assert not walls.registry.segments_of(walls.scan_key)
    assert walls.scan_report()["scan_segments"] == 0
