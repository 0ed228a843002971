"""The safety filter stage on its own: the constraints of a period and the projection
of a method's output onto them."""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from orca_ros.core import Segment, build_obstacle_edges
from orca_ros.core.methods import MethodOutput
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.safety_filter import SafetyConstraints, SafetyFilter, filter_output
from orca_ros.core.robot.state import Neighbor, RobotState
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.sim.world import WorldOptions
from orca_ros.core.sim.world3d import create_world

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


@st.composite
def braking_pairs(draw):
    """A robot that brakes (a unicycle or an accel-limited body), its velocity within its
    speed limit, and a reciprocating neighbour somewhere around it, moving any way."""
    max_speed = draw(st.floats(0.1, 2.0))
    config = ControllerConfig(
        radius=draw(st.floats(0.05, 0.5)), max_speed=max_speed, pref_speed=max_speed,
        time_step=draw(st.sampled_from([0.05, 0.1, 0.25])),
        kinematics=draw(st.sampled_from(["holonomic", "diff_drive"])), accel_limited=True,
        max_linear_accel=draw(st.floats(0.5, 5.0)),
        command_validity=draw(st.one_of(st.none(), st.floats(0.05, 0.5))))
    speed, course = draw(st.floats(0.0, max_speed)), draw(st.floats(-math.pi, math.pi))
    state = RobotState((0.0, 0.0), (speed * math.cos(course), speed * math.sin(course)))
    distance, bearing = draw(st.floats(0.2, 4.0)), draw(st.floats(-math.pi, math.pi))
    their_speed, their_course = draw(st.floats(0.0, 2.0)), draw(st.floats(-math.pi, math.pi))
    neighbor = Neighbor((distance * math.cos(bearing), distance * math.sin(bearing)),
                        (their_speed * math.cos(their_course),
                         their_speed * math.sin(their_course)),
                        draw(st.floats(0.05, 0.5)), "b", draw(st.floats(0.0, 0.2)))
    return config, state, neighbor, draw(st.floats(0.0, 0.2))


@settings(max_examples=500, deadline=None)
@given(braking_pairs())
def test_a_neighbour_enters_the_close_list_before_its_half_plane_binds(pair):
    """A neighbour the filter leaves out has a half-plane the robot's velocity keeps already:
    its constraint starts loose and tightens as the gap closes. Counted only while the two
    robots' braking distances added up to more than the gap, a robot behind one moving its
    way entered the list already breaking the half-plane, braked at once, left, and came
    back (a unicycle's turn command changing side every few periods)."""
    config, state, neighbor, own_uncertainty = pair
    safety = SafetyFilter(config, "a")
    assume(not safety.within_one_step(state, [neighbor], own_uncertainty))
    lines, _ = safety.half_planes(state, [neighbor], [], own_uncertainty)
    assert _allows(lines[0], state.velocity)


def test_a_unicycle_behind_one_moving_its_way_steers_steadily():
    """Two unicycles head the same way, the leader a metre ahead and converging on the
    follower's line. The follower keeps its distance with its turn command on one side
    (before the close list matched the half-planes, it changed side 166 times a
    minute)."""
    scenario = parse_scenario({
        "name": "platoon", "time_step": 0.05, "max_time": 20.0, "on_goal": "stay",
        "defaults": {"radius": 0.5, "max_speed": 1.33, "pref_speed": 1.3,
                     "neighbor_dist": 10.0, "max_neighbors": 10, "time_horizon": 2.0,
                     "time_horizon_obst": 2.0},
        "agents": [{"name": "follower", "start": [0.0, 0.0], "goal": [0.0, 20.0]},
                   {"name": "leader", "start": [1.2, 0.9], "goal": [0.5, 20.9]}],
        "obstacles": []}, "<platoon>")
    result = create_world(scenario, WorldOptions(kinematics="diff_drive")).run()
    summary = result.summary()
    assert result.reached == 2 and result.collisions == 0
    assert summary["steering_reversals_per_min_max"] < 15.0


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


def test_two_localization_margins_add_in_quadrature_and_ages_add_up():
    # Robots of radius 0.2 (holonomic: no tracking error) with 6 cm localization margins
    # each: 0.4 m of radii and sqrt(0.06**2 + 0.06**2) = 8.49 cm, not 12 cm.
    safety = SafetyFilter(CONFIG, "a")
    bare = 0.4 + 2 * 1e-4  # radii and their rounding margins
    fixed = Neighbor((1.0, 0.0), (0.0, 0.0), 0.2, "b", uncertainty=0.06)
    assert safety.pair_distances([fixed], 0.06, own_localization=0.06) == \
        pytest.approx([bare + math.hypot(0.06, 0.06)])
    # Data 0.1 s old adds its 2 cm in full on either side; so does an own uncertainty
    # given without saying how much of it is the fix's.
    aged = fixed._replace(uncertainty=0.08, age_uncertainty=0.02)
    assert safety.pair_distances([aged], 0.09, own_localization=0.06) == \
        pytest.approx([bare + 0.03 + 0.02 + math.hypot(0.06, 0.06)])
    assert safety.pair_distances([fixed], 0.06) == pytest.approx([bare + 0.12])
    # The half-plane holds the pair at that distance: 1 cm inside it, standing is fine
    # but closing in is not; 1 cm outside the linear sum's, closing in a little is.
    inside = fixed._replace(position=(bare + math.hypot(0.06, 0.06) - 0.01, 0.0))
    lines = safety.constraints(RobotState((0.0, 0.0)), [inside], [], 0.06,
                               own_localization=0.06).safety
    assert all(_allows(line, (0.0, 0.0)) for line in lines)
    assert not any(_allows(line, (0.05, 0.0)) for line in lines)
    between = fixed._replace(position=(bare + 0.11, 0.0))
    lines = safety.constraints(RobotState((0.0, 0.0)), [between], [], 0.06,
                               own_localization=0.06).safety
    assert all(_allows(line, (0.05, 0.0)) for line in lines)
    assert not any(_allows(line, (0.05, 0.0)) for line in safety.constraints(
        RobotState((0.0, 0.0)), [between], [], 0.06).safety)


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
