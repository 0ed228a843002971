"""Property tests of the ORCA core over random, degenerate and hostile input."""

import math

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from orca_ros.core import (AgentState, NeighborState, Polygon, Segment, build_obstacle_edges,
                           compute_new_velocity)
from orca_ros.core.orca.orca2d import OrcaOptions

coord = st.floats(-20, 20, allow_nan=False, allow_infinity=False)
small = st.floats(-3, 3, allow_nan=False, allow_infinity=False)
vec = st.tuples(coord, coord)
vel = st.tuples(small, small)
radius = st.one_of(st.just(0.0), st.floats(0.0, 2.0))


@st.composite
def scenes(draw):
    position = draw(vec)
    agent = AgentState(
        position=position, velocity=draw(vel), radius=draw(radius),
        max_speed=draw(st.one_of(st.just(0.0), st.floats(0.0, 3.0))),
        pref_velocity=draw(vel), time_horizon=draw(st.floats(0.1, 10.0)),
        time_horizon_obst=draw(st.floats(0.1, 10.0)), neighbor_dist=draw(st.floats(0.0, 30.0)),
        max_neighbors=draw(st.integers(0, 12)))
    # Neighbours: anywhere, on top of the agent, or overlapping it.
    neighbor_position = st.one_of(vec, st.just(position),
                                  st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5)).map(
                                      lambda d: (position[0] + d[0], position[1] + d[1])))
    neighbors = draw(st.lists(st.builds(NeighborState, neighbor_position, vel, radius),
                              max_size=10))
    segments = []
    for a, b in draw(st.lists(st.tuples(vec, vec), max_size=5)):
        if math.dist(a, b) >= 1e-9:
            segments.append(Segment(a, b))
    time_step = draw(st.floats(0.01, 1.0))
    return agent, neighbors, build_obstacle_edges(segments), time_step


def violation(line, velocity):
    """How far ``velocity`` lies on the forbidden (right) side of the half-plane."""
    return line.direction_x * (line.point_y - velocity[1]) - \
        line.direction_y * (line.point_x - velocity[0])


# Two robots on top of the agent whose half-planes are nearly opposite and cannot both
# hold: the third linear program intersects lines just above RVO2's 1e-5 parallel
# threshold, and the rounding that division magnifies left the result 1.85e-9 over the
# speed limit.
OPPOSED = (AgentState(position=(0.0, 0.0), velocity=(-0.5, 0.0), radius=0.0, max_speed=1.0,
                      pref_velocity=(0.0, 0.0), time_horizon=1.0, time_horizon_obst=1.0,
                      neighbor_dist=1.0, max_neighbors=2),
           [NeighborState((0.0, 0.0), (0.0, 0.0), 0.0),
            NeighborState((0.0, 0.0), (-1.25, 6.103515625e-05), 2.0)], [], 1.0)


@settings(max_examples=400, deadline=None)
@given(scenes())
@example(OPPOSED)
def test_velocity_is_finite_and_within_max_speed(scene):
    """Within the speed limit to rounding (relative 1e-8): the third linear program's
    division by near-parallel lines' determinant magnifies it (``OPPOSED``: 1.85e-9)."""
    agent, neighbors, edges, time_step = scene
    result = compute_new_velocity(agent, neighbors, edges, time_step)
    vx, vy = result.velocity
    assert math.isfinite(vx) and math.isfinite(vy)
    assert math.hypot(vx, vy) <= agent.max_speed * (1 + 1e-8) + 1e-12


@settings(max_examples=400, deadline=None)
@given(scenes())
def test_feasible_program_satisfies_every_half_plane(scene):
    agent, neighbors, edges, time_step = scene
    result = compute_new_velocity(agent, neighbors, edges, time_step)
    assume(not result.used_fallback)
    scale = max(1.0, max((abs(c) for h in result.half_planes for c in h), default=1.0))
    for line in result.half_planes:
        assert violation(line, result.velocity) <= 1e-9 * scale


@settings(max_examples=150, deadline=None)
@given(offset=st.floats(-0.9, 0.9), speed=st.floats(0.2, 2.0), r1=st.floats(0.1, 0.6),
       r2=st.floats(0.1, 0.6), time_step=st.sampled_from([0.05, 0.1, 0.25]),
       time_horizon=st.floats(0.5, 5.0))
def test_two_reciprocal_agents_sent_head_on_never_overlap(offset, speed, r1, r2, time_step,
                                                          time_horizon):
    positions = [(-5.0, 0.0), (5.0, offset)]
    velocities = [(0.0, 0.0), (0.0, 0.0)]
    radii = [r1, r2]
    goals = [(5.0, 0.0), (-5.0, offset)]
    closest = math.inf
    for _ in range(int(3.0 * 10.0 / speed / time_step)):
        new = []
        for me, other in ((0, 1), (1, 0)):
            gx, gy = goals[me][0] - positions[me][0], goals[me][1] - positions[me][1]
            dist = math.hypot(gx, gy)
            pref = (0.0, 0.0) if dist < 1e-9 else (gx / dist * min(speed, dist / time_step),
                                                    gy / dist * min(speed, dist / time_step))
            agent = AgentState(positions[me], velocities[me], radii[me], speed, pref,
                               time_horizon, time_horizon, 20.0, 5)
            neighbor = NeighborState(positions[other], velocities[other], radii[other])
            new.append(compute_new_velocity(agent, [neighbor], [], time_step).velocity)
        velocities = new
        positions = [(p[0] + v[0] * time_step, p[1] + v[1] * time_step)
                     for p, v in zip(positions, velocities)]
        gap = math.dist(positions[0], positions[1]) - (r1 + r2)
        closest = min(closest, gap)
    assert closest >= -1e-9
    if abs(offset) >= 0.05:
        # They pass each other rather than freeze. (Exactly mirrored agents do
        # freeze face to face in strict RVO2 mode: nothing breaks the symmetry.)
        assert positions[0][0] > 0.0 and positions[1][0] < 0.0


def test_degenerate_but_legal_input_gives_finite_bounded_velocity():
    cases = [
        # coincident agents
        (AgentState((1.0, 1.0), (0.5, 0.0), 0.3, 1.0, (1.0, 0.0)),
         [NeighborState((1.0, 1.0), (0.5, 0.0), 0.3)], []),
        # zero max speed
        (AgentState((0.0, 0.0), (0.0, 0.0), 0.3, 0.0, (1.0, 0.0)),
         [NeighborState((0.5, 0.0), (-1.0, 0.0), 0.3)], [Segment((1, -1), (1, 1))]),
        # coordinates of 1e6
        (AgentState((1e6, -1e6), (1.0, 0.0), 0.5, 2.0, (2.0, 0.0)),
         [NeighborState((1e6 + 1.5, -1e6), (-1.0, 0.0), 0.5)],
         [Segment((1e6 + 1.0, -1e6 - 2.0), (1e6 + 1.0, -1e6 + 2.0))]),
        # agent inside an obstacle polygon
        (AgentState((0.0, 0.0), (0.2, 0.1), 0.3, 1.0, (1.0, 0.0)), [],
         [Polygon([(-1, -1), (1, -1), (1, 1), (-1, 1)])]),
    ]
    for agent, neighbors, obstacles in cases:
        result = compute_new_velocity(agent, neighbors, build_obstacle_edges(obstacles), 0.1)
        assert all(math.isfinite(c) for c in result.velocity)
        assert math.hypot(*result.velocity) <= agent.max_speed * (1 + 1e-9) + 1e-12


def test_free_agent_takes_its_preferred_velocity_clipped_to_max_speed():
    agent = AgentState((0.0, 0.0), (0.0, 0.0), 0.3, 1.0, (3.0, 4.0))
    assert compute_new_velocity(agent, [], [], 0.1).velocity == pytest.approx((0.6, 0.8))


@pytest.mark.parametrize("field,kwargs", [
    ("position", dict(position=(math.nan, 0.0))),
    ("velocity", dict(velocity=(0.0, math.inf))),
    ("pref_velocity", dict(pref_velocity=(math.nan, 0.0))),
    ("radius", dict(radius=-0.1)),
    ("max_speed", dict(max_speed=-1.0)),
    ("max_speed", dict(max_speed=math.nan)),
    ("time_horizon", dict(time_horizon=0.0)),
    ("time_horizon_obst", dict(time_horizon_obst=-2.0)),
    ("max_neighbors", dict(max_neighbors=-1)),
    ("max_neighbors", dict(max_neighbors=2.5)),
])
def test_bad_agent_input_raises_value_error_naming_the_field(field, kwargs):
    base = dict(position=(0.0, 0.0), velocity=(0.0, 0.0), radius=0.3, max_speed=1.0)
    base.update(kwargs)
    with pytest.raises(ValueError, match=field):
        AgentState(**base)


def test_bad_neighbor_and_obstacle_input_raise_value_error():
    with pytest.raises(ValueError, match="neighbor radius"):
        NeighborState((0, 0), (0, 0), -1.0)
    with pytest.raises(ValueError, match="neighbor position"):
        NeighborState((math.nan, 0), (0, 0), 1.0)
    with pytest.raises(ValueError, match="zero length"):
        Segment((1.0, 2.0), (1.0, 2.0))
    with pytest.raises(ValueError, match="zero length"):
        Segment((0.0, 0.0), (0.0, 1e-277))
    with pytest.raises(ValueError, match="zero-length edge"):
        Polygon([(0, 0), (1, 0), (1, 0), (0, 1)])
    with pytest.raises(ValueError, match="time_step"):
        compute_new_velocity(AgentState((0, 0), (0, 0), 0.3, 1.0), [], [], 0.0)
    with pytest.raises(ValueError, match="safety_margin"):
        OrcaOptions(safety_margin=-0.1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(vel, st.lists(st.tuples(st.one_of(st.tuples(small, small),
                                                            st.just((0.0, 0.0))),
                                                  vel, st.floats(0.0, 1.5)),
                                        min_size=3, max_size=3),
                          st.floats(0.1, 5.0)), min_size=1, max_size=6),
       st.floats(0.01, 0.5))
@example([((0.0, 0.0), [((0.0, 0.0), (5e-324, 5e-324), 1.0), ((1e-170, 0.0), (0.0, 0.0), 0.5),
                        ((3.0, 0.0), (0.0, 0.0), 1.0)], 1.0)], 0.1)
def test_batch_agent_half_planes_equal_the_scalar_ones(rows, time_step):
    import numpy as np

    from orca_ros.core.orca.orca2d import agent_orca_half_plane, agent_orca_half_planes_batch

    velocity = np.array([r[0] for r in rows])
    rel = np.array([[n[0] for n in r[1]] for r in rows])
    other_velocity = np.array([[n[1] for n in r[1]] for r in rows])
    radius = np.array([[n[2] for n in r[1]] for r in rows])
    inv_tau = np.array([1.0 / r[2] for r in rows])
    batch = agent_orca_half_planes_batch(velocity, rel, other_velocity, radius, inv_tau,
                                         1.0 / time_step)
    for i, row in enumerate(rows):
        for k, (p, v, r) in enumerate(row[1]):
            scalar = agent_orca_half_plane(row[0], p, v, r, inv_tau[i], 1.0 / time_step)
            assert batch[i, k] == pytest.approx(scalar, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("tiny", [5e-324, 1e-310, 1e-170])
def test_a_subnormal_relative_velocity_keeps_its_direction_in_the_collision_branch(tiny):
    """Coincident robots whose relative velocity is a hair from zero along (-1, -1): u
    points along it and is r / time_step long, so the pair is exactly r apart after one
    step (before, w / |w| of a subnormal w was (-1, -1) and u 1.41 times too long)."""
    from orca_ros.core.orca.orca2d import agent_orca_half_plane

    line = agent_orca_half_plane((0.0, 0.0), (0.0, 0.0), (tiny, tiny), 1.0, 0.5, 10.0, 1.0)
    assert math.hypot(line.point_x, line.point_y) == pytest.approx(10.0, rel=1e-12)
    assert line.point_x == pytest.approx(-10.0 / math.sqrt(2.0), rel=1e-12)
    assert line.point_y == pytest.approx(line.point_x, rel=1e-12)
    assert math.hypot(line.direction_x, line.direction_y) == pytest.approx(1.0, rel=1e-12)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(vel, st.lists(st.tuples(
    st.one_of(vec, st.just((0.0, 0.0)), st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5))),
    vel, st.floats(0.0, 2.0)), min_size=3, max_size=3), st.floats(0.1, 10.0)),
    min_size=1, max_size=4), st.floats(0.01, 0.5))
@example([((0.0, 0.0), [((0.0, 0.0), (5e-324, 5e-324), 1.0), ((1e-170, 0.0), (0.0, 0.0), 0.5),
                        ((3.0, 0.0), (0.0, 0.0), 1.0)], 1.0)], 0.1)
def test_the_c_rows_are_the_former_numpy_batch_bit_for_bit(rows, time_step):
    """The world's batch (``agent_orca_half_plane_rows``, C) gives the very numbers of the
    numpy batch it replaced (``test/helpers/orca_reference.py``)."""
    import numpy as np

    from helpers import orca_reference
    from orca_ros.core.orca.orca2d import agent_orca_half_plane_rows

    velocity = np.array([r[0] for r in rows])
    rel = np.array([[n[0] for n in r[1]] for r in rows])
    other_velocity = np.array([[n[1] for n in r[1]] for r in rows])
    radius = np.array([[n[2] for n in r[1]] for r in rows])
    inv_tau = np.array([1.0 / r[2] for r in rows])
    with np.errstate(all="ignore"):
        expected = orca_reference.agent_orca_half_planes_batch(velocity, rel, other_velocity,
                                                               radius, inv_tau, 1.0 / time_step)
    got = agent_orca_half_plane_rows(velocity, rel, other_velocity, radius, inv_tau,
                                     1.0 / time_step)
    assert np.array_equal(np.array(got), expected, equal_nan=True)
