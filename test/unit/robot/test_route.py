"""The route on its own: the supervisor's detour first, then the robot's own path."""

from orca_ros.core.robot.preferred_velocity import Route


def test_the_supervisors_detour_comes_before_the_path_and_the_goal_stays_the_tasks():
    route = Route([(5.0, 0.0), (5.0, 5.0)], ((0.0, 3.0),))
    assert route.points == [(0.0, 3.0), (5.0, 0.0), (5.0, 5.0)]
    assert route.goal == (5.0, 5.0)


def test_without_a_path_a_detour_leads_nowhere():
    assert Route(detour=((0.0, 3.0),)).points == []
    assert Route().goal is None


def test_a_new_path_or_detour_is_followed_from_its_first_point():
    from orca_ros.core.robot.config import ControllerConfig
    from orca_ros.core.robot.preferred_velocity import PreferredVelocity

    path = PreferredVelocity(ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0,
                                              time_step=0.1))
    path.set_path([(1.0, 0.0), (2.0, 0.0)])
    path.current_target((1.0, 0.0))  # the first point reached
    assert path.waypoint_index == 1 and path.waypoints == path.route.points
    path.set_detour([(0.0, 1.0)])
    assert path.waypoints == [(0.0, 1.0), (1.0, 0.0), (2.0, 0.0)] and path.waypoint_index == 0
    assert path.goal == (2.0, 0.0) == path.route.goal
