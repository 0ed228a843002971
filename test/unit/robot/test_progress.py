"""The "no progress" watch of a driving robot (core.robot.progress) and its diagnostics."""

from orca_ros.core.robot.progress import ProgressWatch, nearest_reason, remaining_path
from orca_ros.core.robot.state import Neighbor


def test_remaining_path_follows_the_waypoints_left():
    waypoints = [(0.0, 0.0), (3.0, 0.0), (3.0, 4.0)]
    assert remaining_path((0.0, 0.0), waypoints, 1) == 7.0
    assert remaining_path((3.0, 1.0), waypoints, 2) == 3.0
    assert remaining_path((1.0, 1.0), [], 0) is None


def test_the_watch_counts_time_without_getting_nearer_and_resets_on_progress():
    watch = ProgressWatch()
    watch.note(0.0, True, 5.0)
    watch.note(4.0, True, 4.98)  # less than MIN_GAIN nearer: no progress
    assert watch.stuck_for(4.0) == 4.0
    watch.note(5.0, True, 4.5)
    assert watch.stuck_for(6.0) == 1.0
    watch.note(7.0, False, None)  # not driving
    assert watch.stuck_for(9.0) == 0.0


def test_the_nearest_neighbour_or_wall_is_named():
    class Vertex:
        def __init__(self, point):
            self.point, self.next = point, None

    a, b = Vertex((0.0, 1.0)), Vertex((4.0, 1.0))
    a.next = b
    neighbors = [Neighbor((0.6, 0.0), (0.0, 0.0), 0.2, key="parked", uncertainty=0.1)]
    assert nearest_reason((0.0, 0.0), 0.2, neighbors, [a, b]) == "neighbor parked at 0.10 m"
    assert nearest_reason((2.0, 0.0), 0.2, [], [a, b]) == "a wall at 0.80 m"
    assert nearest_reason((2.0, 0.0), 0.2, [], []) == ""

