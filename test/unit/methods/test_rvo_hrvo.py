"""The sampling RVO (``rvo_sampling``) and HRVO (``hrvo``) methods: hand-computed cases,
values from the reference snape/HRVO (commit 1a13e4d), linked robots, and worlds."""

import math

import pytest

from orca_ros.core.methods import LinkView, NeighborView, RobotView, TetherView, method_spec
from orca_ros.core.methods.hrvo import (Hrvo, HrvoParameters, agent_velocity_obstacle,
                                        select_velocity)
from orca_ros.core.methods.rvo_sampling import (RvoSampling, RvoSamplingParameters,
                                                build_cones, candidate_velocities)
from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.scenario.loader import parse_scenario
from orca_ros.core.geometry.types import Segment
from orca_ros.core.sim.world import World, WorldOptions


def _view(position=(0.0, 0.0), velocity=(0.0, 0.0), pref=(1.0, 0.0), neighbors=(),
          radius=0.3, max_speed=1.0, time_step=0.1, **more):
    return RobotView(position, velocity, 0.0, radius, radius, max_speed, pref, time_step,
                     tuple(neighbors), key="me", **more)


def _crosses(p, q, a, b):
    """Whether segment p-q properly crosses segment a-b (test's own geometry)."""
    def side(u, v, w):
        return (v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0])
    return side(a, b, p) * side(a, b, q) < 0.0 and side(p, q, a) * side(p, q, b) < 0.0


# --- registration and parameters ---------------------------------------------------------------

def test_both_methods_are_registered_as_filtered_methods_without_promises():
    for name in ("rvo_sampling", "hrvo"):
        spec = method_spec(name)
        assert not spec.takes_constraints and spec.safety_filter and not spec.collision_free
        assert not spec.world_only and not spec.strict


@pytest.mark.parametrize("field, value", [
    ("angle_step", 0.0), ("angle_count", 0), ("magnitude_count", 2.5),
    ("collision_weight", -1.0), ("radius_padding", float("nan")),
    ("distance_epsilon", -0.1), ("link_obstacles", "sometimes")])
def test_bad_sampling_parameters_are_refused_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        method_spec("rvo_sampling").create(**{field: value})


@pytest.mark.parametrize("field, value", [("uncertainty_offset", -0.5),
                                          ("link_obstacles", "never")])
def test_bad_hrvo_parameters_are_refused_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        method_spec("hrvo").create(**{field: value})


# --- the sampling RVO --------------------------------------------------------------------------

def test_sampling_alone_returns_the_desired_velocity_exactly():
    v_des = (0.37, -0.81)
    out = RvoSampling().compute_velocity(_view(pref=v_des, max_speed=1.2))
    assert out.velocity == v_des and not out.used_fallback


def test_the_candidate_fan_is_63_headings_by_5_speeds_and_the_desired_velocity():
    v_des = (0.6, 0.8)  # |v_des| = 1
    fan = candidate_velocities(v_des, 2.0)
    assert fan.shape == (63 * 5 + 1, 2)
    assert tuple(fan[-1]) == v_des
    speeds = sorted({round(math.hypot(*v), 9) for v in fan[:-1]})
    assert speeds == [0.02, 0.22, 0.42, 0.62, 0.82]
    headings = sorted({round(math.atan2(v[1], v[0]) % (2 * math.pi), 9) for v in fan[:-1]})
    assert len(headings) == 63 and headings[0] == 0.0 and headings[-1] == pytest.approx(6.2)


def test_sampling_head_on_takes_the_nearest_admissible_candidate_outside_the_rvo():
    """A at the origin moving (1, 0), B 2 m ahead moving (-1, 0), radii 0.3: the RVO apex
    is pA + (vA + vB)/2 = pA, half-angle asin(0.6/2.001) = 0.3045 rad. The candidates
    nearest (1, 0) outside it are 0.82 m/s at 0.4 rad and at 5.9 rad (-0.3832 rad); the
    latter is nearer v_des (|v - v_des|^2 = 1.6724 - 1.64 cos 0.3832 = 0.1514 < 0.1619)."""
    b = NeighborView((2.0, 0.0), (-1.0, 0.0), 0.3, "b")
    out = RvoSampling().compute_velocity(_view(velocity=(1.0, 0.0), neighbors=[b]))
    half = math.asin(0.6 / 2.001)
    assert abs(math.atan2(out.velocity[1], out.velocity[0])) >= half
    assert out.velocity == pytest.approx((0.82 * math.cos(5.9), 0.82 * math.sin(5.9)))


def test_sampling_without_admissible_candidates_minimises_the_time_to_collision_penalty():
    """Four candidates (0.5 m/s east, north, west, south) plus v_des = east, each inside
    one robot's cone (radii 0.45: R = 0.9); robots at rest (apex pA). tc = (d - R)/0.5 +
    0.001: east (d = 1.001) costs 0.2/0.203 + 0 = 0.985, north (d = 1.501) 0.2/1.203 +
    0.707 = 0.873, west and south more. North wins although east is v_des."""
    robots = [NeighborView((1.0, 0.0), (0.0, 0.0), 0.45, "e"),
              NeighborView((0.0, 1.5), (0.0, 0.0), 0.45, "n"),
              NeighborView((-1.0, 0.0), (0.0, 0.0), 0.45, "w"),
              NeighborView((0.0, -1.0), (0.0, 0.0), 0.45, "s")]
    params = RvoSamplingParameters(angle_step=math.pi / 2, angle_count=4, magnitude_count=1,
                                   min_magnitude=0.5)
    out = RvoSampling(params).compute_velocity(
        _view(pref=(0.5, 0.0), neighbors=robots, radius=0.45))
    assert out.used_fallback
    assert out.velocity == pytest.approx((0.0, 0.5), abs=1e-12)


def test_a_partner_gets_the_shared_centre_apex_and_a_stranger_the_rvo_apex():
    """A at (0, 0) moving (0.2, 0); B at (0.5, 0) moving (0.2, 0.1). As a stranger the
    apex is pA + (vA + vB)/2 = (0.2, 0.05); as a partner (pA + pB)/2 + (vA + vB)/2 =
    (0.45, 0.05)."""
    b = NeighborView((0.5, 0.0), (0.2, 0.1), 0.3, "b")
    stranger = _view(velocity=(0.2, 0.0), neighbors=[b])
    partner = stranger._replace(tethers=(TetherView("b", (0.5, 0.0), (0.2, 0.1), 0.3, 1.2),))
    params = RvoSamplingParameters()
    apex_stranger = build_cones(stranger, params).apex
    apex_partner = build_cones(partner, params).apex
    assert apex_stranger.shape == apex_partner.shape == (1, 2)  # the partner is not doubled
    assert tuple(apex_stranger[0]) == pytest.approx((0.2, 0.05))
    assert tuple(apex_partner[0]) == pytest.approx((0.45, 0.05))
    # A partner out of the neighbour list comes from its tether view.
    alone = _view(velocity=(0.2, 0.0),
                  tethers=(TetherView("b", (0.5, 0.0), (0.2, 0.1), 0.3, 1.2),))
    assert tuple(build_cones(alone, params).apex[0]) == pytest.approx((0.45, 0.05))


# --- links and walls ---------------------------------------------------------------------------

STATIC_LINK = LinkView((0.5, -2.0), (0.5, 2.0), (0.0, 0.0), (0.0, 0.0), ("l0", "l1"))


@pytest.mark.parametrize("method", [RvoSampling, Hrvo])
def test_a_robot_heading_across_a_static_link_never_crosses_it(method):
    """Straight at a link 0.5 m ahead at 1 m/s (it would cross within 6 periods of
    0.1 s without the method): stepping with the method's velocity, never across."""
    robot = method()
    position = (0.0, 0.3)
    for _ in range(60):
        out = robot.compute_velocity(_view(position=position, links=(STATIC_LINK,)))
        nxt = (position[0] + 0.1 * out.velocity[0], position[1] + 0.1 * out.velocity[1])
        assert not _crosses(position, nxt, STATIC_LINK.a, STATIC_LINK.b)
        assert nxt[0] < 0.5
        position = nxt
    assert position[0] > 0.0 or abs(position[1]) > 0.3  # it did not just stand still


@pytest.mark.parametrize("method, params", [(RvoSampling, RvoSamplingParameters),
                                            (Hrvo, HrvoParameters)])
def test_with_crossing_links_a_robot_beside_a_link_goes_on_unaffected(method, params):
    """Moving (1, 0) at y = 0.1, beside a link on y = 0 ahead (0.5 to 3 m): its path
    pA -> pA + v_des does not cross the link, so with ``crossing`` it is ignored; with
    ``always`` it deflects the robot (the sampling cone: apex at the link's end
    (0.5, 0), half-angle asin(0.3/0.51) = 36 deg around -11 deg holds pA + v - apex at
    +11 deg; HRVO: the link grown by the radius lies across the path)."""
    link = LinkView((0.5, 0.0), (3.0, 0.0), (0.0, 0.0), (0.0, 0.0), ("l0", "l1"))
    view = _view(position=(0.0, 0.1), links=(link,))
    assert method(params(link_obstacles="crossing")).compute_velocity(view).velocity == \
        (1.0, 0.0)
    assert method(params(link_obstacles="always")).compute_velocity(view).velocity != \
        (1.0, 0.0)
    crossing = view._replace(pref_velocity=(0.9, -0.15))  # across y = 0 at x = 0.6
    assert method(params(link_obstacles="crossing")).compute_velocity(crossing).velocity != \
        (0.9, -0.15)


@pytest.mark.parametrize("method", [RvoSampling, Hrvo])
def test_a_robot_driving_at_a_wall_is_held_off_it(method):
    """A wall 0.5 m ahead: the sampling RVO (apex at the wall's nearest point, as the
    seed) keeps the centre off the wall; HRVO (the wall grown by the radius) keeps the
    whole disc off it."""
    edges = build_obstacle_edges([Segment((0.5, -2.0), (0.5, 2.0))])
    robot = method()
    position = (0.0, 0.0)
    for _ in range(60):
        out = robot.compute_velocity(_view(position=position, obstacle_edges=edges))
        position = (position[0] + 0.1 * out.velocity[0], position[1] + 0.1 * out.velocity[1])
        assert position[0] < 0.5
        if method is Hrvo:
            assert position[0] <= 0.5 - 0.3 + 1e-9


# --- HRVO against the reference ----------------------------------------------------------------

# The robot at the origin, its neighbours (position, velocity = preferred velocity),
# radius 0.3 each, dt 0.1, max speed, and the velocity snape/HRVO 1a13e4d chose
# (computed with the reference library, the robot updated last so that every
# neighbour's preferred velocity is this step's; 400 random cases of up to 8
# neighbours agreed to 1e-4 when these were chosen).
REFERENCE = {
    "head-on, B above": ((1.0, 0.0), [((4.0, 0.2), (-1.0, 0.0))], 1.5,
                         (0.9698486, -0.2992406)),
    "head-on, B below": ((1.0, 0.0), [((4.0, -0.2), (-1.0, 0.0))], 1.5,
                         (0.9899495, 0.0997469)),
    "three": ((1.0, 0.0), [((2.0, 0.3), (-1.0, 0.0)), ((1.5, -1.2), (0.0, 1.0)),
                           ((2.5, 1.4), (-0.5, -0.8))], 1.5, (0.8411446, -0.5542201)),
    "crowded": ((1.0, 0.2), [((1.0, 0.8), (-0.3, 0.0)), ((1.2, -0.7), (-0.2, 0.1)),
                             ((1.6, 0.0), (-1.0, 0.0)), ((0.3, 1.0), (0.0, -1.0)),
                             ((0.3, -1.0), (0.0, 1.0))], 1.2, (-0.3322503, 0.0)),
    # No candidate outside every cone: the reference's fallback.
    "fallback, three": ((0.394, 0.24), [((-0.661, 0.177), (0.617, 0.015)),
                                        ((1.06, -0.061), (-0.512, 0.965)),
                                        ((0.58, 0.488), (-0.711, -0.689))], 1.0,
                        (0.6317008, 0.2981548)),
    "fallback, turned": ((0.739, 0.296), [((-0.562, -0.632), (0.887, 0.203)),
                                          ((0.071, 0.659), (0.367, -0.976)),
                                          ((0.724, -0.643), (0.458, 0.515))], 1.0,
                         (0.0740306, -0.7979087)),
}


@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_hrvo_chooses_what_the_reference_library_chooses(case):
    velocity, others, max_speed, expected = REFERENCE[case]
    neighbors = [NeighborView(p, v, 0.3, f"n{k}") for k, (p, v) in enumerate(others)]
    out = Hrvo().compute_velocity(_view(velocity=velocity, pref=velocity, neighbors=neighbors,
                                        max_speed=max_speed))
    assert out.velocity == pytest.approx(expected, abs=1e-5)
    assert out.used_fallback == case.startswith("fallback")


def test_hrvo_passes_on_the_side_the_reference_sign_rule_picks():
    """B 4 m ahead, 0.2 m above, head-on: det(p_rel, v_prefA - v_prefB) =
    det((4, 0.2), (2, 0)) = -0.4 < 0 with p_rel = pB - pA (the pre-2022 sign), so A takes
    the hybrid cone that favours its right: it passes with B on its left
    (det(p_rel, vA - vB) < 0). The other sign convention passes on the other side."""
    pa, pb, va, vb = (0.0, 0.0), (4.0, 0.2), (1.0, 0.0), (-1.0, 0.0)
    p_rel = (pb[0] - pa[0], pb[1] - pa[1])
    rule = p_rel[0] * (va[1] - vb[1]) - p_rel[1] * (va[0] - vb[0])
    assert rule == pytest.approx(-0.4)
    out = Hrvo().compute_velocity(_view(velocity=va, pref=va, max_speed=1.5,
                                        neighbors=[NeighborView(pb, vb, 0.3, "b")]))

    def passing(v):
        return p_rel[0] * (v[1] - vb[1]) - p_rel[1] * (v[0] - vb[0])

    assert passing(out.velocity) < 0.0  # right
    flipped = agent_velocity_obstacle(pa, va, va, pb, vb, vb, 0.6, 0.1, flip_side=True)
    other, found = select_velocity([flipped], va, 1.5)
    assert found and passing(other) > 0.0  # left


def test_hrvo_overlapping_robots_get_the_push_out_half_plane():
    """0.4 apart with R = 0.6, both at rest, dt 0.1: apex (vA + vB)/2 - (R - d)/(2 dt) n =
    (-1, 0); every velocity with x > -1 is inside, so A backs off at least 1 m/s."""
    vo = agent_velocity_obstacle((0.0, 0.0), (0.0, 0.0), (1.0, 0.0), (0.4, 0.0), (0.0, 0.0),
                                 (0.0, 0.0), 0.6, 0.1)
    assert vo.apex == pytest.approx((-1.0, 0.0))
    assert vo.contains((-0.9, 0.5)) and not vo.contains((-1.1, 0.0))
    v, found = select_velocity([vo], (1.0, 0.0), 2.0)
    assert found and v[0] <= -1.0 + 1e-9


def test_hrvo_alone_returns_the_preferred_velocity_clipped_to_the_speed():
    assert Hrvo().compute_velocity(_view(pref=(0.3, 0.4))).velocity == (0.3, 0.4)
    assert Hrvo().compute_velocity(_view(pref=(3.0, 4.0))).velocity == \
        pytest.approx((0.6, 0.8))


# --- worlds ------------------------------------------------------------------------------------

def _circle(n, circle_radius, radius=0.3, max_speed=1.0, pref_speed=1.0, time_step=0.1,
            max_time=60.0, links=None, **defaults):
    agents = []
    for i in range(n):
        angle = 2.0 * math.pi * i / n
        start = [round(circle_radius * math.cos(angle), 6),
                 round(circle_radius * math.sin(angle), 6)]
        agents.append({"name": f"a{i}", "start": start, "goal": [-start[0], -start[1]]})
    data = {"name": f"circle_{n}", "time_step": time_step, "max_time": max_time,
            "on_goal": "stay", "agents": agents,
            "defaults": {"radius": radius, "max_speed": max_speed, "pref_speed": pref_speed,
                         **defaults}}
    if links:
        data["links"] = links
    return parse_scenario(data)


@pytest.mark.parametrize("method", ["rvo_sampling", "hrvo"])
@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
@pytest.mark.parametrize("n", [2, 4])
def test_small_swaps_arrive_without_contact(method, kinematics, n):
    result = World(_circle(n, 3.0), WorldOptions(method=method, kinematics=kinematics)).run()
    assert result.reached == result.agents == n
    assert result.collisions == 0


def test_hrvo_gets_twenty_robots_across_the_reference_circle():
    """snape/HRVO's Circle example cut to 20 robots on a 30 m circle (radius 1.5, pref
    speed 1, max 2, dt 0.25, neighbour distance 15): the reference arrives in 351 steps
    (closest centres 2.49 m); here every robot arrives, without contact."""
    scenario = _circle(20, 30.0, radius=1.5, max_speed=2.0, pref_speed=1.0, time_step=0.25,
                       max_time=200.0, neighbor_dist=15.0, max_neighbors=10)
    result = World(scenario, WorldOptions(method="hrvo")).run()
    assert result.reached == 20 and result.collisions == 0
    assert result.steps < 500


@pytest.mark.parametrize("method", ["rvo_sampling", "hrvo"])
def test_linked_pairs_crossing_each_other_run(method):
    """Two linked pairs cross at right angles. Partners start 0.9 m apart: a robot
    (0.4 m across) would fit between them, so only the link keeps the other pair out;
    the tether is at most 1.1 m. By the world's own accounting every robot arrives,
    without contact, no robot crosses the other pair's link and no link stretches
    past its max_length (without the links given to the method, hrvo's robots ride
    through the other pair's link; without the tethers, rvo_sampling's pairs
    over-stretch)."""
    links = [{"agents": ["a0", "a1"], "max_length": 1.1},
             {"agents": ["a2", "a3"], "max_length": 1.1}]
    data = {"name": "linked", "time_step": 0.1, "max_time": 30.0, "on_goal": "stay",
            "defaults": {"radius": 0.2, "max_speed": 1.0, "pref_speed": 0.8},
            "agents": [{"name": "a0", "start": [-3.0, -0.45], "goal": [3.0, -0.45]},
                       {"name": "a1", "start": [-3.0, 0.45], "goal": [3.0, 0.45]},
                       {"name": "a2", "start": [-0.45, -3.0], "goal": [-0.45, 3.0]},
                       {"name": "a3", "start": [0.45, -3.0], "goal": [0.45, 3.0]}],
            "links": links}
    result = World(parse_scenario(data), WorldOptions(method=method)).run()
    assert result.linked and result.method == method
    assert result.reached == result.agents == 4, result.summary()
    assert result.collisions == 0, result.collision_pairs
    assert result.link_crossings == 0, result.link_crossing_pairs
    assert result.link_overstretches == 0, result.overstretched_links
    row = result.summary()  # what orca-ros bench --json reports of the run
    assert (row["link_crossings"], row["link_overstretches"]) == (0, 0)
