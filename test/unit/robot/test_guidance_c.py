"""The preferred velocity's per-period geometry in C (``_guidance.detour_around_discs``,
``_guidance.door_share``), against the Python it replaced
(``test/helpers/guidance_reference.py``), value for value; and its errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot import _guidance
from orca_ros.core.robot.guidance import PASSAGE_SAMPLES_PER_WIDTH, detour_around_discs
from orca_ros.core.robot.preferred_velocity import door_share
from helpers import guidance_reference as reference

coordinate = st.floats(-6.0, 6.0)
point = st.tuples(coordinate, coordinate)
disc = st.tuples(point, st.floats(0.05, 2.0))
wall = st.tuples(point, point)


@st.composite
def discs_on_the_way(draw):
    """Discs, some on the straight line from the robot to its target and some repeated
    (a tie in the cluster's extent), with the robot and the target."""
    position, target = draw(point), draw(point)
    discs = draw(st.lists(disc, max_size=8))
    for share in draw(st.lists(st.floats(0.0, 1.0), max_size=4)):
        centre = (position[0] + share * (target[0] - position[0]),
                  position[1] + share * (target[1] - position[1]))
        discs.append((centre, draw(st.floats(0.05, 2.0))))
    if discs and draw(st.booleans()):
        discs.append(discs[draw(st.integers(0, len(discs) - 1))])
    return position, target, discs


@settings(max_examples=600, deadline=None)
@given(discs_on_the_way(), st.sampled_from([-1, 0, 1]), st.floats(0.0, 0.5),
       st.lists(wall, max_size=6), st.floats(0.0, 0.5), st.integers(-1, 12))
def test_the_way_round_standing_robots_is_the_former_pythons(case, side, offset, walls,
                                                               clearance, kept_for):
    position, target, discs = case
    got = detour_around_discs(position, target, discs, side, offset, walls, clearance,
                              kept_for)
    assert got == reference.detour_around_discs(position, target, discs, side, offset, walls,
                                                clearance, kept_for)


@settings(max_examples=400, deadline=None)
@given(st.floats(1.0, 3.0), st.floats(-1.0, 1.0), st.floats(0.3, 1.2), st.floats(-2.5, 2.5),
       st.sampled_from([-1, 1]), st.floats(0.2, 2.0), st.floats(0.0, 0.5), st.booleans())
def test_robots_in_a_corridor_are_gone_round_as_the_former_python_did(
        along, across, radius, spread, side, half_width, clearance, walled_in):
    """A standing robot near the line and one beside it (``spread`` across: the cluster
    reaches out to one side, so one way is the longer by any ratio), the side already
    taken either way (the longer way is kept up to 1.5 times the shorter), in a corridor
    or not: the walls then shut ways and wall the robot in."""
    walls = [((-1.0, half_width), (5.0, half_width)),
             ((-1.0, -half_width), (5.0, -half_width))] \
        if walled_in else []
    discs = [((along, across), radius), ((along, across + spread), radius)]
    args = ((0.0, 0.0), (4.0, 0.0), discs, side, 0.1, walls, clearance)
    assert detour_around_discs(*args) == reference.detour_around_discs(*args)


def test_the_way_round_takes_the_side_already_taken_unless_it_is_much_longer():
    """By hand: a disc a little left of the line to the target: the way right of it
    (clockwise, -1) is the shorter; the way left is kept once taken (not 1.5 times
    longer); the waypoint lies on the disc's edge pushed out by the offset."""
    discs = [((2.0, 0.3), 0.8)]
    shorter = detour_around_discs((0.0, 0.0), (4.0, 0.0), discs)
    assert shorter.side == -1 and shorter.waypoint[1] < 0.0 and shorter.blocker == 0
    kept = detour_around_discs((0.0, 0.0), (4.0, 0.0), discs, side=1)
    assert kept.side == 1 and kept.waypoint[1] > 0.0
    # the robot's centre ends up a disc's radius from the centre, pushed out by the offset
    pushed = detour_around_discs((0.0, 0.0), (4.0, 0.0), discs, offset=0.25)
    assert math.dist(pushed.waypoint, (2.0, 0.3)) == pytest.approx(0.8 + 0.25)


def test_malformed_discs_and_walls_are_named():
    with pytest.raises(ValueError, match=r"discs\[0\] has a negative radius"):
        detour_around_discs((0.0, 0.0), (4.0, 0.0), [((2.0, 0.0), -1.0)])
    with pytest.raises(TypeError, match=r"discs\[1\]"):
        detour_around_discs((0.0, 0.0), (4.0, 0.0), [((2.0, 0.0), 1.0), (2.0,)])
    with pytest.raises(TypeError, match=r"walls\[0\]"):
        detour_around_discs((0.0, 0.0), (4.0, 0.0), [((2.0, 0.0), 1.0)],
                            walls=[((0.0, 1.0), (1.0,))])


key = st.sampled_from(["a0", "a1", "a2", "b", "b0"])
traffic_item = st.tuples(point, st.tuples(st.floats(-1.5, 1.5), st.floats(-1.5, 1.5)), key)


@settings(max_examples=600, deadline=None)
@given(key, st.lists(st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0)), max_size=4),
       st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0)), st.floats(-math.pi, math.pi),
       st.lists(traffic_item, max_size=6), st.floats(0.05, 0.4), st.floats(0.1, 1.5))
def test_the_turn_at_doors_is_the_former_pythons(own_key, doors, position, heading, traffic,
                                                 radius, pref_speed):
    config = ControllerConfig(radius=radius, max_speed=1.5, pref_speed=pref_speed, time_step=0.1)
    unit = (math.cos(heading), math.sin(heading))
    assert door_share(config, own_key, doors, position, unit, traffic) == \
        reference.door_share(config, own_key, doors, position, unit, traffic)


def test_traffic_that_is_not_position_velocity_key_is_named():
    config = ControllerConfig(radius=0.2, max_speed=1.5, pref_speed=1.0, time_step=0.1)
    with pytest.raises(TypeError, match=r"traffic\[1\]"):
        door_share(config, "a1", [(1.0, 0.0)], (0.0, 0.0), (1.0, 0.0),
                   [((1.1, 0.0), (-1.0, 0.0), "a0"), ((1.1, 0.0), (-1.0, 0.0))])


# --- the gaps too narrow on a line of sight (_guidance.pinched) --------------------------

walls_near = st.lists(st.tuples(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0),
                                st.floats(-3.0, 3.0), st.floats(-3.0, 3.0)),
                      min_size=0, max_size=8)


@settings(max_examples=600, deadline=None)
@given(st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0)),
       st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0)), st.floats(0.05, 0.8),
       walls_near)
def test_a_pinched_line_of_sight_is_the_former_numpys(p, q, passage, walls):
    p, q = np.array(p), np.array(q)
    a = np.array([w[:2] for w in walls], dtype=float).reshape(-1, 2)
    b = np.array([w[2:] for w in walls], dtype=float).reshape(-1, 2)
    expected = reference.pinched(p, q, passage, PASSAGE_SAMPLES_PER_WIDTH, a, b)
    assert _guidance.pinched(float(p[0]), float(p[1]), float(q[0]), float(q[1]), passage,
                             PASSAGE_SAMPLES_PER_WIDTH, a, b, len(a)) is expected


@pytest.mark.parametrize("gap, pinched", [(0.5, True), (0.7, False)])
def test_a_line_through_a_door_narrower_than_two_passages_is_pinched(gap, pinched):
    """Two walls across x = 0 leave a door of ``gap`` round y = 0; the line from (-2, 0)
    to (2, 0) goes through it. With a passage of 0.3 the door must be 0.6 wide."""
    a = np.array([[0.0, 0.5 * gap], [0.0, -0.5 * gap]])
    b = np.array([[0.0, 3.0], [0.0, -3.0]])
    assert _guidance.pinched(-2.0, 0.0, 2.0, 0.0, 0.3, PASSAGE_SAMPLES_PER_WIDTH, a, b,
                             2) is pinched


def test_pinched_names_bad_walls_and_passage():
    a = np.zeros((1, 2))
    with pytest.raises(ValueError, match="b must hold 2 float64"):
        _guidance.pinched(0.0, 0.0, 1.0, 0.0, 0.3, 4, a, np.zeros(3), 1)
    with pytest.raises(TypeError, match="a must be a C-contiguous float64 array"):
        _guidance.pinched(0.0, 0.0, 1.0, 0.0, 0.3, 4, [0.0, 0.0], a, 1)
    with pytest.raises(ValueError, match="passage must be > 0"):
        _guidance.pinched(0.0, 0.0, 1.0, 0.0, 0.0, 4, a, a, 1)


# --- lines a robot can drive (_guidance.passable) ---------------------------------------

lines = st.lists(st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(-2.0, 2.0),
                           st.floats(-2.0, 2.0)), min_size=0, max_size=6)


@settings(max_examples=600, deadline=None)
@given(lines, st.floats(0.0, 0.5), st.one_of(st.none(), st.floats(0.05, 0.8)), walls_near)
def test_passable_lines_are_the_former_numpys(segments, clearance, passage, walls):
    p = np.array([s[:2] for s in segments], dtype=float).reshape(-1, 2)
    q = np.array([s[2:] for s in segments], dtype=float).reshape(-1, 2)
    a = np.array([w[:2] for w in walls], dtype=float).reshape(-1, 2)
    b = np.array([w[2:] for w in walls], dtype=float).reshape(-1, 2)
    expected = reference.passable(p, q, clearance, passage, PASSAGE_SAMPLES_PER_WIDTH, a, b)
    got = _guidance.passable(p, q, len(p), clearance, 0.0 if passage is None else passage,
                             PASSAGE_SAMPLES_PER_WIDTH, a, b, len(a))
    assert np.frombuffer(got, dtype=bool).tolist() == expected.tolist()


def test_lines_through_doors_among_a_few_walls():
    """WallQueries.passable over a few walls (no spatial index: the C call): a line
    through a door too narrow for the passage is not passable, one through a wide door
    is, one across a wall is not; without a passage only the clearance counts."""
    from orca_ros.core.geometry.obstacles import build_obstacle_edges
    from orca_ros.core.geometry.types import Segment
    from orca_ros.core.robot.guidance import WallQueries

    walls = [Segment((0.0, 0.25), (0.0, 3.0)), Segment((0.0, -0.25), (0.0, -3.0)),
             Segment((4.0, 0.5), (4.0, 3.0)), Segment((4.0, -0.5), (4.0, -3.0))]
    queries = WallQueries(build_obstacle_edges(walls), clearance=0.1)
    assert not queries.walls.indexed
    p = np.array([[-2.0, 0.0], [2.0, 0.0], [-2.0, 2.0]])
    q = np.array([[2.0, 0.0], [6.0, 0.0], [2.0, 2.0]])
    assert queries.passable(p, q, 0.1, passage=0.3).tolist() == [False, True, False]
    assert queries.passable(p, q, 0.1).tolist() == [True, True, False]


def test_passable_names_bad_lines():
    a = np.zeros((1, 2))
    with pytest.raises(ValueError, match="q must hold 4 float64"):
        _guidance.passable(np.zeros((2, 2)), np.zeros(3), 2, 0.1, 0.3, 4, a, a, 1)
    with pytest.raises(ValueError, match="n and e must be >= 0"):
        _guidance.passable(a, a, -1, 0.1, 0.3, 4, a, a, 1)
