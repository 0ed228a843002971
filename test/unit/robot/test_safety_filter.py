"""The safety filter stage on its own: the constraints of a period and the projection
of a method's output onto them."""

import pytest

from orca_ros.core import Segment, build_obstacle_edges
from orca_ros.core.methods import MethodOutput
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.safety_filter import SafetyConstraints, SafetyFilter, filter_output
from orca_ros.core.robot.state import Neighbor, RobotState

CONFIG = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1)


def _allows(line, velocity):
    """Whether ``velocity`` is on the permitted side (left) of the half-plane's line."""
    return (velocity[0] - line.point_x) * line.direction_y - \
        (velocity[1] - line.point_y) * line.direction_x <= 1e-9


def test_a_close_neighbour_gets_a_half_plane_a_far_one_none():
    state = RobotState((0.0, 0.0))
    near = Neighbor((0.5, 0.0), (0.0, 0.0), 0.2, "b")
    far = Neighbor((20.0, 0.0), (0.0, 0.0), 0.2, "c")
    constraints = SafetyFilter(CONFIG, "a").constraints(state, [near, far], [])
    assert isinstance(constraints, SafetyConstraints)
    assert len(constraints.safety) == 1 and constraints.driving == []
    assert _allows(constraints.safety[0], (0.0, 0.0))  # standing still is always safe
    assert not _allows(constraints.safety[0], (1.0, 0.0))  # straight at it is not


def test_a_unicycle_inside_the_tracking_margin_gets_driving_limits():
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              kinematics="diff_drive")
    touching = Neighbor((0.2 + 0.2 + config.safety_radius(0.2) - 0.2, 0.0), (0.0, 0.0),
                        0.2, "b")
    constraints = SafetyFilter(config, "a").constraints(RobotState((0.0, 0.0)), [touching], [])
    assert constraints.safety and constraints.driving


def test_an_output_inside_every_half_plane_passes_unchanged():
    output = MethodOutput((0.3, 0.0), waypoint=(1.0, 0.0))
    assert filter_output(output, 1.0, []) is output


def test_an_output_outside_is_projected_and_loses_its_waypoint():
    near = Neighbor((0.45, 0.0), (0.0, 0.0), 0.2, "b")
    safety = SafetyFilter(CONFIG, "a").constraints(RobotState((0.0, 0.0)), [near], []).safety
    output = MethodOutput((1.0, 0.0), waypoint=(1.0, 0.0), waypoint_speed=1.0)
    filtered = filter_output(output, 1.0, safety)
    assert filtered.velocity[0] < 1.0 and _allows(safety[0], filtered.velocity)
    assert filtered.waypoint is None and filtered.waypoint_speed is None


def test_without_half_planes_the_filter_caps_the_speed():
    filtered = filter_output(MethodOutput((3.0, 4.0)), 1.0, [])
    assert filtered.velocity == pytest.approx((0.6, 0.8))


def test_a_robot_inside_its_own_uncertainty_of_a_wall_is_pushed_back_out():
    # Outside its true radius (0.2 m) but nearer the wall than that plus its 6 cm of
    # localization uncertainty: it must move away from the wall, not only stop closing.
    wall = Segment((-5.0, -0.25), (5.0, -0.25))  # 0.25 m below: 5 cm clear of its body
    state = RobotState((0.0, 0.0))
    safety = SafetyFilter(CONFIG, "a").constraints(state, [], list(build_obstacle_edges([wall])),
                                                    own_uncertainty=0.06).safety
    assert safety
    assert not any(_allows(line, (0.0, 0.0)) for line in safety)  # standing still is not enough
    assert all(_allows(line, (0.0, 0.2)) for line in safety)  # away from the wall is


def test_without_uncertainty_a_robot_clear_of_a_wall_may_stand():
    wall = Segment((-5.0, -0.25), (5.0, -0.25))
    safety = SafetyFilter(CONFIG, "a").constraints(RobotState((0.0, 0.0)), [],
                                                    list(build_obstacle_edges([wall]))).safety
    assert all(_allows(line, (0.0, 0.0)) for line in safety)


def test_robots_side_by_side_within_their_uncertainty_may_stand():
    # 2 cm apart, inside each other's grown discs but clear of their true ones: a crowd
    # placed side by side must not be pushed apart in every direction at once.
    near = Neighbor((0.42, 0.0), (0.0, 0.0), 0.2, "b", uncertainty=0.06)
    safety = SafetyFilter(CONFIG, "a").constraints(RobotState((0.0, 0.0)), [near], [],
                                                    own_uncertainty=0.06).safety
    assert safety and all(_allows(line, (0.0, 0.0)) for line in safety)
    assert not any(_allows(line, (0.5, 0.0)) for line in safety)  # but not closer


def test_drift_since_the_last_fix_grows_the_disc_against_walls_only():
    # 5 cm clear of the wall and of a neighbour: a drift of 6 cm pushes it off the wall
    # but leaves it free to stand beside the robot.
    wall = Segment((-5.0, -0.25), (5.0, -0.25))
    edges = list(build_obstacle_edges([wall]))
    state = RobotState((0.0, 0.0))
    without = SafetyFilter(CONFIG, "a").constraints(state, [], edges).safety
    drifted = SafetyFilter(CONFIG, "a").constraints(state, [], edges, drift=0.06).safety
    assert all(_allows(line, (0.0, 0.0)) for line in without)
    assert not any(_allows(line, (0.0, 0.0)) for line in drifted)
    near = Neighbor((0.45, 0.0), (0.0, 0.0), 0.2, "b")
    beside = SafetyFilter(CONFIG, "a").constraints(state, [near], [], drift=0.06).safety
    assert beside == SafetyFilter(CONFIG, "a").constraints(state, [near], []).safety
