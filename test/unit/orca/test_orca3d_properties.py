"""Property tests of the 3D ORCA core (RVO2-3D's algorithm) over random, degenerate and
hostile input, and of its linear programs."""

import math
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from orca_ros.core.geometry.linprog3d import (HalfSpace, linear_program_3d_in_sphere,
                                              linear_program_3d_least_violation, solve_half_spaces)
from orca_ros.core.orca.orca3d import agent_orca_half_space, compute_new_velocity_3d
from orca_ros.core.robot.safety_filter import one_step_safety_half_space
from orca_ros.core.geometry.types import AgentState3D, NeighborState3D

coord = st.floats(-20, 20, allow_nan=False, allow_infinity=False)
small = st.floats(-3, 3, allow_nan=False, allow_infinity=False)
vec = st.tuples(coord, coord, coord)
vel = st.tuples(small, small, small)
radius = st.one_of(st.just(0.0), st.floats(0.0, 2.0))


@st.composite
def scenes(draw):
    position = draw(vec)
    agent = AgentState3D(
        position=position, velocity=draw(vel), radius=draw(radius),
        max_speed=draw(st.one_of(st.just(0.0), st.floats(0.0, 3.0))),
        pref_velocity=draw(vel), time_horizon=draw(st.floats(0.1, 10.0)),
        neighbor_dist=draw(st.floats(0.0, 30.0)), max_neighbors=draw(st.integers(0, 12)))
    # Neighbours: anywhere, on top of the agent, or overlapping it.
    near = st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5), st.floats(-0.5, 0.5)).map(
        lambda d: tuple(p + e for p, e in zip(position, d)))
    neighbor_position = st.one_of(vec, st.just(position), near)
    neighbors = draw(st.lists(st.builds(NeighborState3D, neighbor_position, vel, radius),
                              max_size=12))
    return agent, neighbors, draw(st.floats(0.01, 1.0))


@settings(max_examples=400, deadline=None)
@given(scenes())
def test_velocity_is_finite_and_within_max_speed(scene):
    agent, neighbors, time_step = scene
    velocity = compute_new_velocity_3d(agent, neighbors, time_step).velocity
    assert all(math.isfinite(c) for c in velocity)
    assert math.sqrt(sum(c * c for c in velocity)) <= agent.max_speed * (1 + 1e-9) + 1e-12


@settings(max_examples=400, deadline=None)
@given(scenes())
def test_feasible_program_satisfies_every_half_space(scene):
    agent, neighbors, time_step = scene
    result = compute_new_velocity_3d(agent, neighbors, time_step)
    assume(not result.used_fallback)
    scale = max([1.0] + [abs(c) for h in result.half_spaces for c in h.point])
    for half_space in result.half_spaces:
        assert half_space.violation(result.velocity) <= 1e-9 * scale


def random_half_spaces(rng, count, spread):
    spaces = []
    for _ in range(count):
        normal = [rng.gauss(0.0, 1.0) for _ in range(3)]
        norm = math.sqrt(sum(c * c for c in normal))
        spaces.append(HalfSpace(tuple(rng.uniform(-spread, spread) for _ in range(3)),
                                tuple(c / norm for c in normal)))
    return spaces


def sample_ball(rng, radius):
    while True:
        v = [rng.uniform(-radius, radius) for _ in range(3)]
        if sum(c * c for c in v) <= radius * radius:
            return tuple(v)


def test_feasible_program_is_optimal_against_samples_of_the_feasible_set():
    """Where the 3D program is feasible, no sampled feasible velocity is nearer the
    preferred one than its answer."""
    rng = random.Random(3)
    checked = 0
    for _ in range(300):
        spaces = random_half_spaces(rng, rng.randint(1, 6), 1.0)
        pref = tuple(rng.uniform(-3, 3) for _ in range(3))
        fail, velocity = linear_program_3d_in_sphere(spaces, 2.0, pref)
        if fail < len(spaces):
            continue
        checked += 1
        best = math.dist(velocity, pref)
        for _ in range(300):
            v = sample_ball(rng, 2.0)
            if all(h.violation(v) <= 0.0 for h in spaces):
                assert math.dist(v, pref) >= best - 1e-9
    assert checked >= 50


def test_least_violation_is_no_worse_than_any_sampled_velocity():
    """Where the half-spaces leave nothing, the fallback's largest violation is at
    most that of every sampled velocity in the speed ball (eq. 7's minimum)."""
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        spaces = random_half_spaces(rng, rng.randint(3, 10), 3.0)
        fail, partial = linear_program_3d_in_sphere(spaces, 1.0, (0.0, 0.0, 0.0))
        if fail == len(spaces):
            continue
        checked += 1
        velocity = linear_program_3d_least_violation(spaces, fail, 1.0, partial)
        assert math.sqrt(sum(c * c for c in velocity)) <= 1.0 + 1e-9
        worst = max(h.violation(velocity) for h in spaces)
        for _ in range(200):
            v = sample_ball(rng, 1.0)
            assert max(h.violation(v) for h in spaces) >= worst - 1e-7
    assert checked >= 50


def test_hard_half_spaces_hold_in_the_fallback_while_they_agree():
    # Two agent half-spaces that contradict each other, and a hard one: v_z <= -0.2.
    hard = HalfSpace((0.0, 0.0, -0.2), (0.0, 0.0, -1.0))
    left = HalfSpace((0.0, 0.5, 0.0), (0.0, 1.0, 0.0))
    right = HalfSpace((0.0, -0.5, 0.0), (0.0, -1.0, 0.0))
    velocity, fallback = solve_half_spaces([hard, left, right], 1.0, (0.0, 0.0, 1.0),
                                           num_hard=1)
    assert fallback
    assert velocity[2] <= -0.2 + 1e-12
    assert velocity[1] == pytest.approx(0.0, abs=1e-9)  # both violated equally


@settings(max_examples=120, deadline=None)
@given(offset_y=st.floats(-0.9, 0.9), offset_z=st.floats(-0.9, 0.9),
       speed=st.floats(0.2, 2.0), r1=st.floats(0.1, 0.6), r2=st.floats(0.1, 0.6),
       time_step=st.sampled_from([0.05, 0.1, 0.25]), time_horizon=st.floats(0.5, 5.0))
def test_two_reciprocal_agents_sent_head_on_never_overlap(offset_y, offset_z, speed, r1, r2,
                                                          time_step, time_horizon):
    positions = [(-5.0, 0.0, 0.0), (5.0, offset_y, offset_z)]
    velocities = [(0.0, 0.0, 0.0), (0.0, 0.0, 0.0)]
    radii = [r1, r2]
    goals = [(5.0, 0.0, 0.0), (-5.0, offset_y, offset_z)]
    closest = math.inf
    for _ in range(int(3.0 * 10.0 / speed / time_step)):
        new = []
        for me, other in ((0, 1), (1, 0)):
            to_goal = [g - p for g, p in zip(goals[me], positions[me])]
            dist = math.sqrt(sum(c * c for c in to_goal))
            pref = (0.0, 0.0, 0.0) if dist < 1e-9 else \
                tuple(c / dist * min(speed, dist / time_step) for c in to_goal)
            agent = AgentState3D(positions[me], velocities[me], radii[me], speed, pref,
                                 time_horizon, 20.0, 5)
            neighbor = NeighborState3D(positions[other], velocities[other], radii[other])
            new.append(compute_new_velocity_3d(agent, [neighbor], time_step).velocity)
        velocities = new
        positions = [tuple(p + v * time_step for p, v in zip(pos, vel))
                     for pos, vel in zip(positions, velocities)]
        closest = min(closest, math.dist(positions[0], positions[1]) - (r1 + r2))
    assert closest >= -1e-9
    if math.hypot(offset_y, offset_z) >= 0.05:
        # They pass each other rather than freeze. (Exactly mirrored agents do freeze
        # face to face in RVO2-3D too: nothing breaks the symmetry.)
        assert positions[0][0] > 0.0 and positions[1][0] < 0.0


@pytest.mark.parametrize("speed,r1,r2,time_step,time_horizon", [
    (0.9, 0.125, 0.1015625, 0.25, 0.5),  # rounding residue once sped this pair into contact
    (2.0, 0.6, 0.6, 0.25, 0.5), (0.5, 0.3, 0.2, 0.05, 5.0), (1.3, 0.1, 0.45, 0.1, 1.0)])
def test_a_pair_sent_exactly_head_on_passes_without_contact(speed, r1, r2, time_step,
                                                            time_horizon):
    """Exactly on each other's axis, the relative velocity lies on the cone's axis, where
    RVO2-3D's cone projection is 0 / 0 (near it, rounding residue): the limit is taken."""
    test_two_reciprocal_agents_sent_head_on_never_overlap.hypothesis.inner_test(
        0.0, 0.0, speed, r1, r2, time_step, time_horizon)


def test_degenerate_but_legal_input_gives_finite_bounded_velocity():
    cases = [
        # coincident agents moving alike (RVO2-3D divides by zero here)
        (AgentState3D((1.0, 1.0, 1.0), (0.5, 0.0, 0.0), 0.3, 1.0, (1.0, 0.0, 0.0)),
         [NeighborState3D((1.0, 1.0, 1.0), (0.5, 0.0, 0.0), 0.3)]),
        # coincident agents at rest, several of them
        (AgentState3D((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.3, 1.0, (0.0, 0.0, 1.0)),
         [NeighborState3D((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.3)] * 3),
        # zero max speed
        (AgentState3D((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.3, 0.0, (1.0, 0.0, 0.0)),
         [NeighborState3D((0.5, 0.0, 0.2), (-1.0, 0.0, 0.0), 0.3)]),
        # zero radii
        (AgentState3D((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0.0, 1.0, (1.0, 0.0, 0.0)),
         [NeighborState3D((2.0, 0.0, 0.0), (-1.0, 0.0, 0.0), 0.0)]),
        # relative velocity exactly along the axis, inside the cone (RVO2-3D: 0 / 0)
        (AgentState3D((0.0, 0.0, 0.0), (2.0, 0.0, 0.0), 0.5, 2.0, (2.0, 0.0, 0.0), 2.0),
         [NeighborState3D((4.0, 0.0, 0.0), (-2.0, 0.0, 0.0), 0.5)]),
        # coordinates of 1e6
        (AgentState3D((1e6, -1e6, 1e6), (1.0, 0.0, 0.0), 0.5, 2.0, (2.0, 0.0, 0.0)),
         [NeighborState3D((1e6 + 1.5, -1e6, 1e6), (-1.0, 0.0, 0.0), 0.5),
          NeighborState3D((1e6 + 0.2, -1e6, 1e6 + 0.1), (0.0, 0.0, -1.0), 0.5)]),
    ]
    for agent, neighbors in cases:
        result = compute_new_velocity_3d(agent, neighbors, 0.1)
        assert all(math.isfinite(c) for c in result.velocity), (agent, result)
        assert math.sqrt(sum(c * c for c in result.velocity)) <= \
            agent.max_speed * (1 + 1e-9) + 1e-12
        assert all(math.isfinite(c) for h in result.half_spaces for c in h.point + h.normal)


def test_axis_aligned_head_on_pair_turns_away_from_each_other():
    """Exactly head on (v_rel on the cone's axis), each agent's half-space still asks it
    to turn off the axis, so the pair does not fly straight into each other."""
    half_space = agent_orca_half_space((1.0, 0.0, 0.0), (4.0, 0.0, 0.0), (-1.0, 0.0, 0.0),
                                       1.0, 1.0 / 3.0, 10.0)
    assert half_space.violation((1.0, 0.0, 0.0)) > 0.0  # going straight on is forbidden
    assert math.isclose(math.dist(half_space.normal, (0.0, 0.0, 0.0)), 1.0)


def test_free_agent_takes_its_preferred_velocity_clipped_to_max_speed():
    agent = AgentState3D((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.3, 1.0, (0.0, 3.0, 4.0))
    assert compute_new_velocity_3d(agent, [], 0.1).velocity == pytest.approx((0.0, 0.6, 0.8))


def test_safety_half_space_keeps_both_from_closing_the_gap_in_one_step():
    gap, dt = 0.4, 0.1
    half_space = one_step_safety_half_space((0.0, 0.0, 1.0 + gap), 1.0, dt)
    # v . n <= g / (2 dt) = 2.0 along n = +z
    assert half_space.violation((0.0, 0.0, 2.0)) == pytest.approx(0.0, abs=1e-12)
    assert half_space.violation((0.0, 0.0, 2.1)) > 0.0
    assert half_space.violation((5.0, -5.0, 0.0)) < 0.0  # sideways is free


@pytest.mark.parametrize("field,kwargs", [
    ("position", dict(position=(0.0, math.nan, 0.0))),
    ("position", dict(position=(0.0, 0.0))),
    ("velocity", dict(velocity=(0.0, 0.0, math.inf))),
    ("pref_velocity", dict(pref_velocity=(1.0, 2.0, 3.0, 4.0))),
    ("radius", dict(radius=-0.1)),
    ("max_speed", dict(max_speed=-1.0)),
    ("time_horizon", dict(time_horizon=0.0)),
    ("max_neighbors", dict(max_neighbors=2.5)),
])
def test_bad_agent_input_raises_value_error_naming_the_field(field, kwargs):
    base = dict(position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0), radius=0.3, max_speed=1.0)
    base.update(kwargs)
    with pytest.raises(ValueError, match=field):
        AgentState3D(**base)


def test_bad_neighbor_input_and_time_step_raise_value_error():
    with pytest.raises(ValueError, match="neighbor position"):
        NeighborState3D((0.0, 0.0, math.nan), (0.0, 0.0, 0.0), 0.3)
    with pytest.raises(ValueError, match="neighbor radius"):
        NeighborState3D((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), -0.3)
    agent = AgentState3D((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.3, 1.0)
    with pytest.raises(ValueError, match="time_step"):
        compute_new_velocity_3d(agent, [], 0.0)


@pytest.mark.parametrize("tiny", [5e-324, 1e-310, 1e-170])
def test_a_subnormal_relative_velocity_keeps_its_direction_in_the_3d_collision_branch(tiny):
    """Coincident spheres, relative velocity a hair from zero along (-1, -1, 0): the
    half-space's normal is along it and u is r / time_step long (before, the squares of
    1e-170 underflowed to a zero length and the tie direction was taken; a subnormal one
    gave a normal of length 1.41)."""
    half_space = agent_orca_half_space((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (tiny, tiny, 0.0),
                                       1.0, 0.5, 10.0, 1.0)
    nx, ny, nz = half_space.normal
    assert (nx, ny, nz) == pytest.approx((-math.sqrt(0.5), -math.sqrt(0.5), 0.0), rel=1e-12)
    assert math.dist(half_space.point, (0.0, 0.0, 0.0)) == pytest.approx(10.0, rel=1e-12)
