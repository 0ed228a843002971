"""The route on its own: the supervisor's detour first, then the robot's own path."""

from orca_ros.core.robot.preferred_velocity import Route


def test_the_supervisors_detour_comes_before_the_path_and_the_goal_stays_the_tasks():
    route = Route([(5.0, 0.0), (5.0, 5.0)], ((0.0, 3.0),))
    assert route.waypoints() == [(0.0, 3.0), (5.0, 0.0), (5.0, 5.0)]
    assert route.goal == (5.0, 5.0)


def test_without_a_path_a_detour_leads_nowhere():
    assert Route(detour=((0.0, 3.0),)).waypoints() == []
    assert Route().goal is None
