"""The safety filter's C code (``orca_ros/core/orca/_orca2d.c``) gives the very numbers of
the former Python (``test/helpers/safety_reference.py``), over random robots,
neighbours and walls, holonomic and braking; its lengths are Python's ``math.hypot``."""

import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from orca_ros.core import Segment, build_obstacle_edges
from orca_ros.core.orca import _orca2d
from orca_ros.core.robot import safety_filter
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.safety_filter import SafetyFilter
from orca_ros.core.robot.state import Neighbor, RobotState
from helpers import safety_reference as reference

coord = st.floats(-5, 5, allow_nan=False, allow_infinity=False)
small = st.floats(-2, 2, allow_nan=False, allow_infinity=False)
vec = st.tuples(coord, coord)
vel = st.one_of(st.just((0.0, 0.0)), st.tuples(small, small))
any_float = st.floats(allow_nan=True, allow_infinity=True)


@st.composite
def configs(draw):
    kinematics = draw(st.sampled_from(["holonomic", "diff_drive"]))
    max_speed = draw(st.floats(0.1, 2.0))
    return ControllerConfig(
        radius=draw(st.floats(0.05, 0.5)), max_speed=max_speed, pref_speed=max_speed,
        time_step=draw(st.sampled_from([0.05, 0.1, 0.25])), kinematics=kinematics,
        accel_limited=draw(st.booleans()), max_linear_accel=draw(st.floats(0.5, 5.0)),
        command_validity=draw(st.one_of(st.none(), st.floats(0.05, 0.5))),
        command_lag=draw(st.sampled_from([0.0, 0.0, 0.1])))


@st.composite
def scenes(draw):
    config = draw(configs())
    position = draw(vec)
    state = RobotState(position, draw(vel), draw(st.floats(-math.pi, math.pi)))
    near = st.tuples(st.floats(-0.6, 0.6), st.floats(-0.6, 0.6)).map(
        lambda d: (position[0] + d[0], position[1] + d[1]))
    neighbor_position = st.one_of(vec, near, st.just(position))
    neighbors = draw(st.lists(st.builds(
        Neighbor, neighbor_position, vel, st.floats(0.05, 0.5),
        st.sampled_from(["", "a", "m", "z"]), st.one_of(st.just(0.0), st.floats(0.0, 0.3)),
        st.booleans(), st.one_of(st.just(0.0), st.floats(0.0, 0.4))), max_size=8))
    segments = [Segment(a, b) for a, b in draw(st.lists(st.tuples(vec, vec), max_size=4))
                if math.dist(a, b) >= 1e-6]
    return (config, draw(st.sampled_from(["", "b", "n"])), state, neighbors,
            build_obstacle_edges(segments), draw(st.one_of(st.just(0.0), st.floats(0.0, 0.2))),
            draw(st.one_of(st.just(0.0), st.floats(0.0, 0.2))),
            draw(st.one_of(st.just(0.0), st.floats(0.0, 0.3))))


@settings(max_examples=600, deadline=None)
@given(scenes())
def test_within_one_step_and_half_planes_equal_the_reference(scene):
    config, key, state, neighbors, edges, own_uncertainty, drift, localization = scene
    compiled, python = SafetyFilter(config, key), reference.SafetyFilterReference(config, key)
    close = compiled.within_one_step(state, neighbors, own_uncertainty)
    assert close == python.within_one_step(state, neighbors, own_uncertainty)
    assert all(a is b for a, b in zip(close, python.within_one_step(state, neighbors,
                                                                    own_uncertainty)))
    lines, inside = compiled.half_planes(state, neighbors, list(edges), own_uncertainty, drift,
                                         localization)
    expected_lines, expected_inside = python.half_planes(state, neighbors, list(edges),
                                                         own_uncertainty, drift, localization)
    assert lines == expected_lines and inside == expected_inside
    assert compiled.pair_distances(neighbors, own_uncertainty, localization) == \
        python.pair_distances(neighbors, own_uncertainty, localization)
    assert all(type(line) is type(expected) for line, expected in zip(lines, expected_lines))
    for n in neighbors:
        for towards in ((1.0, 0.0), (0.6, -0.8)):
            assert compiled.closing_distance(n.velocity, towards) == \
                python.closing_distance(n.velocity, towards)


@settings(max_examples=600, deadline=None)
@given(vec, st.floats(0.0, 1.0), st.sampled_from([0.05, 0.1]),
       st.sampled_from([(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0)]),
       st.one_of(st.none(), st.floats(0.1, 5.0)), st.one_of(st.none(), st.floats(0.0, 1.0)),
       st.one_of(st.none(), st.floats(0.01, 0.5)), st.one_of(st.none(), vel))
@example((0.0, 0.0), 0.5, 0.1, (1.0, 0.0), 2.0, 0.4, 0.2, (1.0, 0.5))
def test_single_half_planes_equal_the_reference(rel, combined, dt, tie, braking, contact,
                                                horizon, other_velocity):
    assert safety_filter.one_step_safety_half_plane(
        rel, combined, dt, tie, braking, contact, horizon, other_velocity) == \
        reference.one_step_safety_half_plane(rel, combined, dt, tie, braking, contact,
                                             horizon, other_velocity)
    for edge in build_obstacle_edges([Segment((-1.0, 0.5), (2.0, 0.5)),
                                      Segment((0.0, 0.0), (0.0, 0.0 + 1e-3))]):
        assert safety_filter.one_step_obstacle_half_plane(
            rel, combined, edge, dt, braking, contact, horizon) == \
            reference.one_step_obstacle_half_plane(rel, combined, edge, dt, braking, contact,
                                                   horizon)


@settings(max_examples=2000, deadline=None)
@given(any_float, any_float)
@example(5.8259945705595e-311, -6.820962203352e-311)
@example(3.0, 4.0)
def test_lengths_are_pythons_hypot(x, y):
    expected = math.hypot(x, y)
    got = _orca2d.python_hypot(x, y)
    assert got == expected or (math.isnan(got) and math.isnan(expected))


def test_a_neighbour_without_an_age_part_counts_all_its_uncertainty_as_age():
    # An object with a Neighbor's attributes but no age_uncertainty (a 6-tuple, say):
    # its whole uncertainty is added, not met in quadrature (the larger distance).
    class Plain:
        position, velocity, radius, key, uncertainty, reciprocates = \
            (1.0, 0.0), (0.0, 0.0), 0.2, "b", 0.06, True

    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1)
    safety = SafetyFilter(config, "a")
    as_tuple = ((1.0, 0.0), (0.0, 0.0), 0.2, "b", 0.06, True)
    fixed = Neighbor((1.0, 0.0), (0.0, 0.0), 0.2, "b", 0.06, True, 0.0)
    added, = safety.pair_distances([Plain()], 0.06, 0.06)
    assert safety.pair_distances([as_tuple], 0.06, 0.06) == [added]
    assert added == safety.pair_distances([fixed], 0.06, 0.0)[0]
    assert safety.pair_distances([fixed], 0.06, 0.06)[0] < added - 0.03
