"""The observer's same-stamp collision audit (orca_ros.testing.audit), without ROS."""

import math

import numpy as np
import pytest

from orca_ros.testing.audit import StampAudit, overlaps_at_stamp, polygon_signed_distance

SQUARE = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)]


def test_polygon_signed_distance_inside_outside_either_orientation():
    points = np.array([[1.0, 1.0], [3.0, 1.0], [1.0, -0.5], [3.0, 3.0]])
    expected = [-1.0, 1.0, 0.5, math.sqrt(2.0)]
    assert polygon_signed_distance(points, SQUARE) == pytest.approx(expected)
    assert polygon_signed_distance(points, SQUARE[::-1]) == pytest.approx(expected)


def test_pair_gap_is_centre_distance_minus_radii():
    gaps = overlaps_at_stamp({"a": (0.0, 0.0), "b": (0.5, 0.0)}, {"a": 0.2, "b": 0.2})
    assert gaps.min_separation == pytest.approx(0.1)
    assert gaps.contacts == []
    gaps = overlaps_at_stamp({"a": (0.0, 0.0), "b": (0.3, 0.0)}, {"a": 0.2, "b": 0.2})
    assert gaps.contacts == [("a", "b", pytest.approx(0.1))]
    assert gaps.min_separation == pytest.approx(-0.1)


def test_touching_within_tolerance_is_not_a_contact():
    gaps = overlaps_at_stamp({"a": (0.0, 0.0), "b": (0.4 - 5e-7, 0.0)}, {"a": 0.2, "b": 0.2})
    assert gaps.contacts == []


def test_robot_obstacle_gap():
    radii = {"a": 0.2, "b": 0.2}
    gaps = overlaps_at_stamp({"a": (2.1, 1.0), "b": (5.0, 5.0)}, radii, [SQUARE])
    assert gaps.contacts == [("a", "obstacle#0", pytest.approx(0.1))]
    assert gaps.min_obstacle_gap == pytest.approx(-0.1)
    gaps = overlaps_at_stamp({"a": (1.0, 1.0)}, {"a": 0.2}, [SQUARE])  # inside: depth + radius
    assert gaps.contacts == [("a", "obstacle#0", pytest.approx(1.2))]


def audit(**kwargs):
    names = ("a", "b")
    return StampAudit(radii={n: 0.2 for n in names}, goals={"a": (5.0, 0.0), "b": (-5.0, 0.0)},
                      goal_tolerance={n: 0.1 for n in names}, **kwargs)


def test_only_poses_with_the_same_stamp_are_compared():
    checker = audit()
    # a passes through the place b held one stamp earlier: never a contact.
    checker.add("a", 1_000, 0.0, 0.0)
    checker.add("b", 2_000, 0.0, 0.0)
    checker.add("a", 2_000, 1.0, 0.0)
    checker.add("b", 1_000, 3.0, 0.0)
    assert checker.stamps_compared == 2
    assert checker.contacts == {}
    assert checker.min_separation is None or checker.min_separation > 0


def test_contact_records_first_stamp_and_deepest_overlap():
    checker = audit()
    for k, gap in enumerate([0.1, -0.05, -0.2, -0.1, 0.3]):
        stamp = (k + 1) * 100_000_000
        checker.add("a", stamp, 0.0, 0.0)
        checker.add("b", stamp, 0.4 + gap, 0.0)
    report = checker.report()
    assert report["stamps_compared"] == 5
    assert report["colliding_pairs"] == 1
    (contact,) = report["collisions"]
    assert (contact["a"], contact["b"]) == ("a", "b")
    assert contact["first_stamp"] == pytest.approx(0.2)
    assert contact["deepest_overlap_m"] == pytest.approx(0.2)
    assert contact["stamps"] == 3
    assert report["min_separation"] == pytest.approx(-0.2)
    assert report["deepest_penetration"] == pytest.approx(0.2)


def test_a_contact_keeps_the_pairs_track_round_its_first_stamp():
    """How the pair met, for afterwards: the ``track_before`` compared stamps up to the
    first contact and ``track_after`` after it, positions of both."""
    checker = audit(track_before=3, track_after=2)
    for k in range(12):  # b passes a 0.3 to the side: centres closer than 0.4 from x = 0.2
        stamp = (k + 1) * 100_000_000
        checker.add("a", stamp, 0.0, 0.0)
        checker.add("b", stamp, 1.0 - 0.1 * k, 0.3)
    (contact,) = checker.report()["collisions"]
    assert contact["first_stamp"] == pytest.approx(0.9)
    assert [row[0] for row in contact["track"]] == pytest.approx([0.7, 0.8, 0.9, 1.0, 1.1])
    assert contact["track"][2] == pytest.approx([0.9, 0.0, 0.0, 0.2, 0.3])


def test_incomplete_stamps_settle_and_memory_stays_bounded():
    names = [f"r{k}" for k in range(3)]
    checker = StampAudit(radii={n: 0.1 for n in names}, goals={n: (0.0, 0.0) for n in names},
                         goal_tolerance={n: 0.1 for n in names}, settle=1.0, history=50)
    for k in range(1000):
        stamp = k * 100_000_000
        checker.add("r0", stamp, 0.0, 10.0)
        checker.add("r1", stamp, 10.0, 0.0)  # r2 never reports
    assert len(checker.pending) <= 12
    checker.flush()
    assert checker.stamps_compared == 1000
    assert len(checker.done_set) <= 50
    checker.add("r0", 999 * 100_000_000, 0.0, 10.0)  # a late duplicate
    assert checker.late_poses == 1


def test_arrival_uses_each_robots_latest_stamp():
    checker = audit()
    checker.add("a", 2_000, 4.95, 0.0)
    checker.add("a", 1_000, 0.0, 0.0)  # older, arriving late: not the latest pose
    checker.add("b", 2_000, 0.0, 0.0)
    assert checker.report()["arrived_robots"] == ["a"]


def test_a_robot_pushed_off_its_goal_has_reached_it_but_is_not_there_now():
    """toio_cross_4v4 with two busy loops beside: a cube touched its goal and was nudged
    off it; fleet_sim counted it arrived, the observer (at goals now) did not. The
    observer counts both: reached from any pose, even one whose stamp it never judges."""
    checker = audit()
    checker.add("a", 1_000, 4.95, 0.0)   # at its goal; b never reports this stamp
    checker.add("a", 2_000, 4.5, 0.0)    # pushed off
    checker.add("b", 2_000, 0.0, 0.0)
    report = checker.report()
    assert (report["reached"], report["arrived"]) == (1, 0)
    checker.add("b", 3_000, -5.0, 0.05)
    assert checker.report()["reached"] == 2


def test_a_lone_robot_is_judged_against_the_walls():
    """toio_b_wall and toio_v_wall have one cube: the observer compared no stamp there
    (a stamp needed two robots), so a cube in the wall went unseen."""
    checker = StampAudit(radii={"cube": 0.2}, goals={"cube": (5.0, 5.0)},
                         goal_tolerance={"cube": 0.1}, polygons=[SQUARE])
    checker.add("cube", 1_000, 3.0, 1.0)  # 0.8 m clear
    checker.add("cube", 2_000, 2.1, 1.0)  # 0.1 m into the square's right side
    report = checker.report()
    assert report["stamps_single"] == 2 and report["stamps_compared"] == 0
    assert [(c["a"], c["b"]) for c in report["collisions"]] == [("cube", "obstacle#0")]
    assert report["deepest_penetration"] == pytest.approx(0.1)
    assert report["min_obstacle_gap"] == pytest.approx(-0.1)


def test_a_map_is_judged_on_its_occupied_cells_and_its_contact_is_a_wall_contact():
    from orca_ros.core.maps import OccupancyMap

    occupied = np.zeros((20, 20), bool)
    occupied[10, 10] = True  # one cell: x and y in [1.0, 1.1]
    occupancy = OccupancyMap(occupied, 0.1)
    radii = {"a": 0.2, "b": 0.2}
    gaps = overlaps_at_stamp({"a": (0.85, 1.05), "b": (0.1, 0.1)}, radii,
                             occupancy=occupancy)
    assert gaps.contacts == [("a", "map", pytest.approx(0.05))]
    assert gaps.min_obstacle_gap == pytest.approx(-0.05)
    gaps = overlaps_at_stamp({"a": (0.75, 1.05)}, {"a": 0.2}, occupancy=occupancy)
    assert gaps.contacts == [] and gaps.min_obstacle_gap == pytest.approx(0.05)
    record = StampAudit(radii=radii, goals={"a": (0.0, 0.0), "b": (1.9, 1.9)},
                        goal_tolerance={"a": 0.1, "b": 0.1}, occupancy=occupancy)
    record.add("a", 1_000_000_000, 0.85, 1.05)
    record.add("b", 1_000_000_000, 0.1, 0.1)
    record.flush()
    report = record.report()
    assert report["obstacle_pairs"] == 1 and report["robot_pairs"] == 0
