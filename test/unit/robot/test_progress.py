"""The "no progress" watch of a driving robot (core.robot.progress) and its diagnostics."""

from orca_ros.core.robot.progress import (ProgressWatch, goal_held_by, nearest_reason,
                                          remaining_path)
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


def parked(name, x, y):
    return Neighbor((x, y), (0.0, 0.0), 0.2, key=name)


def test_a_goal_between_two_parked_robots_is_held_by_them_only_when_too_close():
    # Two robots parked 0.55 m either side of the goal. Kept 0.6 m from each, the
    # point within 0.2 m of the goal farthest from both, (0, +-0.2), is 0.585 m from
    # them: no room. Kept 0.52 m, the goal itself is 0.55 m from both.
    parked_both = [parked("west", -0.55, 0.0), parked("east", 0.55, 0.0)]
    assert goal_held_by((0.0, 0.0), 0.2, parked_both, [0.6, 0.6]) == ("east", "west")
    assert goal_held_by((0.0, 0.0), 0.2, parked_both, [0.52, 0.52]) == ()
    # Kept 0.52 m from west and 0.6 m from east: room at the tolerance's edge, above
    # the goal and a little west of it, (-0.05, 0.19).
    assert goal_held_by((0.0, 0.0), 0.2, parked_both, [0.52, 0.6]) == ()


def test_a_goal_with_room_beside_a_parked_robot_is_not_held():
    # One robot on the goal itself: the far side of the tolerance is 0.74 m from it,
    # more than the 0.64 m it asks for; a robot far off plays no part.
    on_goal, far = parked("on", 0.0, 0.0), parked("far", 5.0, 0.0)
    assert goal_held_by((0.3, 0.0), 0.44, [on_goal, far], [0.64, 0.64]) == ()
    assert goal_held_by((0.3, 0.0), 0.2, [on_goal, far], [0.64, 0.64]) == ("on",)
