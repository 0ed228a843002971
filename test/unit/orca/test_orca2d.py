"""ORCA for one agent (orca_ros.core.orca.orca2d, in C in orca_ros/core/orca/_orca2d.c)
against the former pure-Python code (test/helpers/orca_reference.py).

With the reference's vector length set to the C library's ``hypot``
(``c_library_hypot``), the C code must give the reference's numbers bit for bit:
velocity, every half-plane, their count, the number of obstacle half-planes and whether
the fallback ran. With Python's ``math.hypot`` they agree within 1e-12. Scenes hold
random neighbours (some on top of the agent or overlapping it), random star-shaped
(often non-convex) polygons and segments, hard, yielding and prebuilt agent
half-planes, and programs left infeasible by any of them.
"""

import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core import (AgentState, NeighborState, Polygon, Segment, build_obstacle_edges,
                           obstacle_orca_half_plane)
from orca_ros.core.geometry.linprog import HalfPlane
from orca_ros.core.geometry.obstacles import ObstacleVertex
from orca_ros.core.orca import _orca2d, orca2d
from orca_ros.core.orca.orca2d import OrcaOptions, OrcaResult

from helpers import orca_reference as ref

coord = st.floats(-8.0, 8.0, allow_nan=False, allow_infinity=False)
small = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
angle = st.floats(-math.pi, math.pi, allow_nan=False, allow_infinity=False)
radius = st.one_of(st.just(0.0), st.floats(0.0, 1.5))


def same(ours, theirs) -> bool:
    """Equal, element by element, NaN equal to NaN."""
    if isinstance(ours, float) and isinstance(theirs, float):
        return ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    if isinstance(ours, OrcaResult):
        return isinstance(theirs, OrcaResult) and all(
            same(getattr(ours, f), getattr(theirs, f))
            for f in ("velocity", "half_planes", "num_obstacle_half_planes", "used_fallback"))
    if isinstance(ours, tuple):
        return isinstance(theirs, tuple) and len(ours) == len(theirs) and \
            all(same(a, b) for a, b in zip(ours, theirs))
    return ours == theirs


def close(ours: OrcaResult, theirs: OrcaResult, tol: float = 1e-12) -> bool:
    def near(a, b):
        return a == b or abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    return (ours.num_obstacle_half_planes == theirs.num_obstacle_half_planes
            and ours.used_fallback == theirs.used_fallback
            and len(ours.half_planes) == len(theirs.half_planes)
            and all(near(a, b) for a, b in zip(ours.velocity, theirs.velocity))
            and all(near(a, b) for p, q in zip(ours.half_planes, theirs.half_planes)
                    for a, b in zip(p, q)))


@st.composite
def polygons(draw):
    """A star-shaped polygon (simple, often non-convex), or None when it degenerates."""
    cx, cy = draw(coord), draw(coord)
    count = draw(st.integers(3, 7))
    angles = sorted(draw(st.lists(st.floats(0.0, 2.0 * math.pi, exclude_max=True),
                                  min_size=count, max_size=count, unique=True)))
    radii = draw(st.lists(st.floats(0.2, 3.0), min_size=count, max_size=count))
    try:
        return Polygon([(cx + r * math.cos(a), cy + r * math.sin(a))
                        for a, r in zip(angles, radii)])
    except ValueError:
        return None


@st.composite
def obstacles(draw):
    found = []
    for kind in draw(st.lists(st.sampled_from(["polygon", "segment"]), max_size=4)):
        if kind == "polygon":
            polygon = draw(polygons())
            if polygon is not None:
                found.append(polygon)
        else:
            a, b = (draw(coord), draw(coord)), (draw(coord), draw(coord))
            if math.dist(a, b) >= 1e-6:
                found.append(Segment(a, b))
    return build_obstacle_edges(found)


@st.composite
def agents(draw, position=None):
    return AgentState(
        position=position or (draw(coord), draw(coord)), velocity=(draw(small), draw(small)),
        radius=draw(radius), max_speed=draw(st.one_of(st.just(0.0), st.floats(0.0, 3.0))),
        pref_velocity=(draw(small), draw(small)), time_horizon=draw(st.floats(0.1, 10.0)),
        time_horizon_obst=draw(st.floats(0.1, 10.0)), neighbor_dist=draw(st.floats(0.0, 20.0)),
        max_neighbors=draw(st.integers(0, 25)))


@st.composite
def neighbors_of(draw, agent, max_size=20):
    """Neighbours anywhere, exactly on the agent, or overlapping it."""
    px, py = agent.position
    position = st.one_of(st.tuples(coord, coord), st.just((px, py)),
                         st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5)).map(
                             lambda d: (px + d[0], py + d[1])))
    return draw(st.lists(st.builds(NeighborState, position, st.tuples(small, small), radius),
                         max_size=max_size))


@st.composite
def scenes(draw):
    agent = draw(agents())
    return (agent, draw(neighbors_of(agent)), draw(obstacles()),
            draw(st.sampled_from([0.05, 0.1, 0.25, 1.0])),
            OrcaOptions(draw(st.sampled_from([0.0, 0.05, 0.3]))))


@st.composite
def half_planes(draw, max_size=4):
    lines = []
    for _ in range(draw(st.integers(0, max_size))):
        a = draw(angle)
        lines.append(HalfPlane(draw(small), draw(small), math.cos(a), math.sin(a)))
    return lines


def test_the_package_has_no_python_orca():
    """One implementation: the half-planes and the programs are the compiled module's."""
    assert not _orca2d.__file__.endswith(".py")
    for name in ("is_already_covered", "_left_leg", "_right_leg", "_normalize"):
        assert not hasattr(orca2d, name)


@settings(max_examples=300, deadline=None)
@given(scenes())
def test_compute_new_velocity_equals_the_reference_bit_for_bit(scene):
    agent, neighbors, edges, time_step, options = scene
    ours = orca2d.compute_new_velocity(agent, neighbors, edges, time_step, options)
    with ref.c_library_hypot():
        theirs = ref.compute_new_velocity(agent, neighbors, edges, time_step, options)
    assert same(ours, theirs), (ours, theirs)
    assert all(type(line) is HalfPlane for line in ours.half_planes)


@settings(max_examples=200, deadline=None)
@given(scenes())
def test_compute_new_velocity_equals_the_python_reference_within_1e_12(scene):
    agent, neighbors, edges, time_step, options = scene
    ours = orca2d.compute_new_velocity(agent, neighbors, edges, time_step, options)
    theirs = ref.compute_new_velocity(agent, neighbors, edges, time_step, options)
    assert close(ours, theirs), (ours, theirs)


@st.composite
def solve_inputs(draw):
    """solve_orca's arguments: neighbour tuples with and without a share, or prebuilt agent
    half-planes; visible edges (as compute_new_velocity selects them) or every edge;
    hard and yielding half-planes, which may contradict each other."""
    agent = draw(agents())
    edges = draw(obstacles())
    if draw(st.booleans()):
        edges = ref.select_obstacle_neighbors(agent, edges)
    neighbors = []
    for n in draw(neighbors_of(agent, max_size=12)):
        row = (*n.position, *n.velocity, n.radius)
        neighbors.append(row + (draw(st.sampled_from([0.5, 1.0, 0.0])),)
                         if draw(st.booleans()) else row)
    prebuilt = draw(st.one_of(st.none(), half_planes(max_size=10)))
    return ((agent.position, agent.velocity, agent.radius, agent.max_speed,
             agent.pref_velocity, agent.time_horizon, agent.time_horizon_obst,
             draw(st.sampled_from([0.05, 0.1, 1.0])), neighbors, edges),
            dict(hard_half_planes=draw(half_planes()), agent_half_planes=prebuilt,
                 yielding_half_planes=draw(half_planes())))


def solve_both(args, kwargs):
    """Our solve_orca and the reference's, or the exception types both raised."""
    try:
        ours = orca2d.solve_orca(*args, **kwargs)
    except (ValueError, ZeroDivisionError) as error:
        ours = type(error)
    try:
        with ref.c_library_hypot():
            theirs = ref.solve_orca(*args, **kwargs)
    except (ValueError, ZeroDivisionError) as error:
        theirs = type(error)
    return ours, theirs


@settings(max_examples=400, deadline=None)
@given(solve_inputs())
def test_solve_orca_equals_the_reference_bit_for_bit(inputs):
    ours, theirs = solve_both(*inputs)
    assert same(ours, theirs), (ours, theirs)


def test_each_fallback_branch_equals_the_reference():
    """Contradicting hard half-planes (the fallback keeps obstacle ones only), yielding ones
    contradicting hard ones (relaxed with the agents'), agents contradicting yielding
    ones (yielding kept hard), and an obstacle half-plane in front of it all."""
    wall = build_obstacle_edges([Segment((1.0, -3.0), (1.0, 3.0))])
    below_half = HalfPlane(0.5, 0.0, 0.0, 1.0)       # v_x <= 0.5
    above_7 = HalfPlane(0.7, 0.0, 0.0, -1.0)         # v_x >= 0.7
    below_3 = HalfPlane(0.3, 0.0, 0.0, 1.0)          # v_x <= 0.3
    above_4 = HalfPlane(0.0, 0.4, 1.0, 0.0)          # v_y >= 0.4 (as an agent's)
    below_1 = HalfPlane(0.0, 0.1, -1.0, 0.0)         # v_y <= 0.1
    cases = [
        dict(hard_half_planes=[below_half, above_7]),
        dict(hard_half_planes=[below_half], yielding_half_planes=[above_7]),
        dict(hard_half_planes=[below_half], yielding_half_planes=[below_3, below_1],
             agent_half_planes=[above_4]),
        dict(yielding_half_planes=[below_1], agent_half_planes=[above_4, above_7]),
    ]
    fallbacks = 0
    for edges in ([], ref.select_visible_edges((0.0, 0.0), 5.0, wall)):
        for kwargs in cases:
            args = ((0.0, 0.0), (0.9, 0.2), 0.2, 1.0, (1.0, 0.0), 2.0, 2.0, 0.1,
                    [(0.6, 0.1, -0.5, 0.0, 0.3)], edges)
            ours, theirs = solve_both(args, kwargs)
            assert same(ours, theirs), (kwargs, ours, theirs)
            fallbacks += ours.used_fallback
    assert fallbacks == 2 * len(cases)


@settings(max_examples=300, deadline=None)
@given(agents(), obstacles(), half_planes(max_size=6))
def test_obstacle_half_plane_of_each_edge_equals_the_reference(agent, edges, earlier):
    inv_tau = 1.0 / agent.time_horizon_obst
    for edge in edges:
        args = (agent.position, agent.velocity, agent.radius, edge, inv_tau, earlier)
        try:
            ours = obstacle_orca_half_plane(*args)
        except ValueError as error:
            ours = type(error)
        try:
            with ref.c_library_hypot():
                theirs = ref.obstacle_orca_half_plane(*args)
        except ValueError as error:
            theirs = type(error)
        assert same(ours, theirs), (edge, ours, theirs)
        assert ours is None or ours is ValueError or type(ours) is HalfPlane


tiny = st.sampled_from([0.0, 5e-324, -5e-324, 1e-310, 1e-170])


@settings(max_examples=400, deadline=None)
@given(st.tuples(small, small), st.one_of(st.tuples(coord, coord), st.tuples(tiny, tiny)),
       st.one_of(st.tuples(small, small), st.tuples(tiny, tiny)), radius,
       st.floats(0.1, 10.0), st.floats(1.0, 20.0), st.sampled_from([0.5, 1.0]))
def test_agent_half_plane_equals_the_reference(velocity, rel, other_velocity, combined_radius,
                                               inv_tau, inv_dt, share):
    args = (velocity, rel, other_velocity, combined_radius, inv_tau, inv_dt, share)
    ours = orca2d.agent_orca_half_plane(*args)
    with ref.c_library_hypot():
        assert same(ours, ref.agent_orca_half_plane(*args))
    assert type(ours) is HalfPlane


@settings(max_examples=200, deadline=None)
@given(scenes())
def test_neighbour_selection_equals_the_reference(scene):
    agent, neighbors, edges, _, _ = scene
    assert orca2d.select_agent_neighbors(agent, neighbors) == \
        ref.select_agent_neighbors(agent, neighbors)
    assert orca2d.select_obstacle_neighbors(agent, edges) == \
        ref.select_obstacle_neighbors(agent, edges)


@settings(max_examples=100, deadline=None)
@given(scenes())
def test_edges_without_their_numbers_give_the_same_result(scene):
    """A vertex without ``orca_edge`` (not built by build_obstacle_edges) is read through
    its attributes, to the same result."""
    agent, neighbors, edges, time_step, options = scene
    expected = orca2d.compute_new_velocity(agent, neighbors, edges, time_step, options)
    saved = [edge.orca_edge for edge in edges]
    try:
        for edge in edges:
            edge.orca_edge = None
        assert same(orca2d.compute_new_velocity(agent, neighbors, edges, time_step, options),
                    expected)
    finally:
        for edge, numbers in zip(edges, saved):
            edge.orca_edge = numbers


def test_a_map_of_many_edges_goes_through_the_spatial_index_to_the_same_result():
    """More edges than BRUTE_FORCE_SEGMENTS: only those the index finds near reach C."""
    segments = [Segment((x * 0.5, 1.0 + 0.1 * (x % 3)), (x * 0.5 + 0.4, 1.2))
                for x in range(-100, 100)]
    edges = build_obstacle_edges(segments)
    agent = AgentState((0.1, 0.0), (0.2, 0.9), 0.3, 1.5, (0.0, 1.2), 2.0, 2.0, 10.0, 10)
    neighbors = [NeighborState((0.5, -0.5), (0.0, 0.5), 0.3)]
    ours = orca2d.compute_new_velocity(agent, neighbors, edges, 0.1)
    with ref.c_library_hypot():
        assert same(ours, ref.compute_new_velocity(agent, neighbors, edges, 0.1))
    assert ours.num_obstacle_half_planes > 0


def test_given_half_planes_come_back_as_the_same_objects():
    hard = HalfPlane(0.5, 0.0, 0.0, 1.0)
    agent_line = HalfPlane(0.0, -0.5, 1.0, 0.0)
    result = orca2d.solve_orca((0.0, 0.0), (0.0, 0.0), 0.2, 1.0, (1.0, 0.0), 2.0, 2.0, 0.1,
                               [], [], hard_half_planes=[hard],
                               agent_half_planes=[agent_line, (0.0, 0.9, -1.0, 0.0)])
    assert result.half_planes[0] is hard and result.half_planes[1] is agent_line
    assert type(result.half_planes[2]) is HalfPlane
    assert result.half_planes[2] == (0.0, 0.9, -1.0, 0.0)


def test_empty_input_gives_the_preferred_velocity_clipped_to_max_speed():
    result = orca2d.solve_orca((0.0, 0.0), (0.0, 0.0), 0.2, 1.0, (3.0, 4.0), 2.0, 2.0, 0.1,
                               [], [])
    assert result == OrcaResult((0.6, 0.8), (), 0, False)


def _solve(**changes):
    args = dict(position=(0.0, 0.0), velocity=(0.0, 0.0), radius=0.2, max_speed=1.0,
                pref_velocity=(1.0, 0.0), time_horizon=2.0, time_horizon_obst=2.0,
                time_step=0.1, neighbors=[(1.0, 0.0, 0.0, 0.0, 0.2)], obstacle_edges=[])
    args.update(changes)
    return orca2d.solve_orca(**args)


@pytest.mark.parametrize("changes, error, message", [
    (dict(neighbors=[(1.0, 0.0, 0.0, 0.0)]), ValueError,
     r"neighbors\[0\] must have 5 or 6 numbers .*got 4 items"),
    (dict(neighbors=[(1.0, 0.0, 0.0, 0.0, 0.2, 0.5, 9.0)]), ValueError,
     r"neighbors\[0\] must have 5 or 6 numbers"),
    (dict(neighbors=[(1.0, 0.0, 0.0, 0.0, 0.2), (1.0, 0.0, "0", 0.0, 0.2)]), TypeError,
     r"neighbors\[1\]\[2\] must be a number, not str"),
    (dict(neighbors=5), TypeError, "neighbors must be a sequence"),
    (dict(hard_half_planes=[(1.0, 2.0)]), ValueError,
     r"hard_half_planes\[0\] must have 4 numbers"),
    (dict(yielding_half_planes=[(1.0, 2.0, 3.0, object())]), TypeError,
     r"yielding_half_planes\[0\]\[3\] must be a number, not object"),
    (dict(agent_half_planes=[None]), TypeError,
     r"agent_half_planes\[0\] must be a sequence of 4 numbers"),
    (dict(obstacle_edges=[(0.0, 0.0)]), TypeError,
     "an obstacle edge must be an ObstacleVertex"),
    (dict(position=(0.0, 0.0, 0.0)), ValueError, "position must have 2 numbers"),
    (dict(radius="0.2"), TypeError, "radius must be a number, not str"),
    (dict(time_horizon_obst=0.0), ZeroDivisionError, "time_horizon_obst is 0"),
    (dict(time_step=0.0), ZeroDivisionError, "time_step is 0"),
])
def test_bad_input_is_refused_naming_the_problem(changes, error, message):
    with pytest.raises(error, match=message):
        _solve(**changes)


def test_bad_input_of_compute_new_velocity_is_refused_naming_the_problem():
    agent = AgentState((0.0, 0.0), (0.0, 0.0), 0.3, 1.0)
    with pytest.raises(AttributeError, match="position"):
        orca2d.compute_new_velocity(agent, [(1.0, 0.0)], [], 0.1)
    with pytest.raises(TypeError, match="an obstacle edge must be an ObstacleVertex"):
        orca2d.compute_new_velocity(agent, [], ["wall"], 0.1)
    lone = ObstacleVertex((1.0, 0.0), 0)  # never chained: no next
    with pytest.raises(TypeError, match="an obstacle edge must be an ObstacleVertex"):
        orca2d.compute_new_velocity(agent, [], [lone], 0.1)


def test_no_reference_is_leaked_on_success_or_failure():
    hard = HalfPlane(0.5, 0.0, 0.0, 1.0)
    neighbor = (0.6, 0.0, -1.0, 0.0, 0.3)
    edges = build_obstacle_edges([Polygon([(1.0, -1.0), (2.0, -1.0), (2.0, 1.0)])])
    before = sys.getrefcount(hard), sys.getrefcount(neighbor), sys.getrefcount(edges[0])
    for _ in range(500):
        _solve(neighbors=[neighbor], obstacle_edges=edges, hard_half_planes=[hard, hard])
        _solve(neighbors=[neighbor], obstacle_edges=edges, hard_half_planes=[hard],
               yielding_half_planes=[(0.7, 0.0, 0.0, -1.0)])  # the fallback
        with pytest.raises(TypeError):
            _solve(neighbors=[neighbor], obstacle_edges=edges,
                   hard_half_planes=[hard, (1.0, "a", 0.0, 1.0)])
        with pytest.raises(TypeError):
            _solve(neighbors=[neighbor], obstacle_edges=[*edges, 3])
    assert (sys.getrefcount(hard), sys.getrefcount(neighbor), sys.getrefcount(edges[0])) == \
        before


def test_a_number_that_empties_its_list_while_read_does_not_crash():
    """Reading a number may run Python code (``__float__``); the C code reads from its
    own copy of each sequence, so emptying the list meanwhile frees nothing it holds."""
    class Emptying:
        def __init__(self, victim):
            self.victim = victim

        def __float__(self):
            self.victim.clear()
            return 0.5

    hard = [HalfPlane(0.9, 0.0, 0.0, 1.0), None, HalfPlane(0.0, -0.5, 1.0, 0.0)]
    hard[1] = (Emptying(hard), 0.0, 0.0, 1.0)
    result = _solve(hard_half_planes=hard)
    expected = _solve(hard_half_planes=[HalfPlane(0.9, 0.0, 0.0, 1.0), (0.5, 0.0, 0.0, 1.0),
                                        HalfPlane(0.0, -0.5, 1.0, 0.0)])
    assert result == expected and hard == []
