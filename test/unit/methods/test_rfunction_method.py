"""The ``rfunction`` method (orca_ros/core/methods/rfunction.py): its half-planes against
ORCA's, the paper's variant, the template backend, the world and the CLI (orca_node and
real nodes: test/ros/test_rfunction_nodes.py)."""

import json
import math

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from orca_ros.tools import cli
from orca_ros.core.methods import NeighborView, RobotView, method_names, method_spec
from orca_ros.core.methods.rfunction import (Rfunction, RfunctionParameters, rfunction_half_plane,
                                             rfunction_half_space)
from orca_ros.core.orca.orca2d import agent_orca_half_plane
from orca_ros.core.orca.rfunction import VoxelTemplate
from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
from orca_ros.core.sim.batch import rfunction_half_planes_batch
from orca_ros.core.sim.world import World, WorldOptions

coordinate = st.floats(-8.0, 8.0, allow_nan=False, allow_infinity=False)
speed = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
vector = st.tuples(coordinate, coordinate)
velocity = st.tuples(speed, speed)


def in_vo_exact(v, p, r, tau):
    """The test's own membership: the segment {t v : 0 <= t <= tau} comes within r of p."""
    vv = v[0] * v[0] + v[1] * v[1]
    t = 0.0 if vv == 0.0 else min(max((v[0] * p[0] + v[1] * p[1]) / vv, 0.0), tau)
    return math.hypot(t * v[0] - p[0], t * v[1] - p[1]), r


def _same_line(a, b, tolerance):
    assert a.direction_x == pytest.approx(b.direction_x, abs=tolerance)
    assert a.direction_y == pytest.approx(b.direction_y, abs=tolerance)
    assert a.point_x == pytest.approx(b.point_x, abs=tolerance)
    assert a.point_y == pytest.approx(b.point_y, abs=tolerance)


# --- the half-planes ----------------------------------------------------------------------------

def test_the_worked_example_gives_the_papers_orca_half_planes():
    """Design note: ORCA_A through (1.6036, 0.8964), normal (0.7071, -0.7071); ORCA_B
    through (2.8964, -1.3964), normal (-0.7071, 0.7071). The normal is the left of the
    half-plane's direction."""
    pa, pb, va, vb = (2.0, -3.0), (-2.0, 3.0), (1.5, 1.0), (3.0, -1.5)
    for me, other, vme, vother, point, normal in (
            (pa, pb, va, vb, (1.6036, 0.8964), (0.7071, -0.7071)),
            (pb, pa, vb, va, (2.8964, -1.3964), (-0.7071, 0.7071))):
        line = rfunction_half_plane(vme, (other[0] - me[0], other[1] - me[1]), vother, 2.0,
                                    0.5, 10.0)
        assert (line.point_x, line.point_y) == pytest.approx(point, abs=5e-5)
        assert (-line.direction_y, line.direction_x) == pytest.approx(normal, abs=5e-5)


def test_the_worked_example_in_the_papers_variant_takes_the_whole_u():
    """v is inside (the cut-off disc): the half-plane goes through v_A + u =
    (1.5 + 0.2071, 1.0 - 0.2071)."""
    line = rfunction_half_plane((1.5, 1.0), (-4.0, 6.0), (3.0, -1.5), 2.0, 0.5, 10.0,
                                variant="paper")
    assert (line.point_x, line.point_y) == pytest.approx((1.7071, 0.7929), abs=5e-5)
    assert (-line.direction_y, line.direction_x) == pytest.approx((0.7071, -0.7071), abs=5e-5)
    template = VoxelTemplate(slices=20, step=0.2, extent=8.0)
    same = rfunction_half_plane((1.5, 1.0), (-4.0, 6.0), (3.0, -1.5), 2.0, 0.5, 10.0,
                                variant="paper", template=template)
    _same_line(same, line, 1e-12)  # inside the disc: answered exactly


@settings(max_examples=2000, deadline=None)
@given(velocity, vector, velocity, st.floats(0.0, 3.0), st.floats(0.1, 10.0),
       st.sampled_from([0.5, 1.0]))
def test_the_orca_variant_is_orcas_half_plane(v, p, other_v, r, tau, share):
    """Over random pairs apart (|p| > r), the R-function geometry gives ORCA's half-plane
    (RVO2's Agent.cc formulas, agent_orca_half_plane) to rounding."""
    assume(math.hypot(*p) > r * (1.0 + 1e-9) + 1e-9)
    ours = rfunction_half_plane(v, p, other_v, r, 1.0 / tau, 10.0, share)
    theirs = agent_orca_half_plane(v, p, other_v, r, 1.0 / tau, 10.0, share)
    rel = (v[0] - other_v[0], v[1] - other_v[1])
    tolerance = 1e-9 * (1.0 + math.hypot(*v) + math.hypot(*rel) + r / tau)
    _same_line(ours, theirs, tolerance)


@settings(max_examples=300, deadline=None)
@given(velocity, st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5)), velocity,
       st.floats(0.05, 2.0), st.sampled_from([0.5, 1.0]))
# found with --hypothesis-seed=8: a subnormal relative velocity's "unit" vector was (-1, -1)
@example(v=(0.0, 0.0), p=(0.0, 0.0), other_v=(5e-324, 5e-324), r=1.0, share=0.5)
def test_overlapping_robots_take_orcas_collision_branch(v, p, other_v, r, share):
    """No cone when |p| <= r: ORCA's one-time-step branch (with the whole u the pair is r
    apart after one step of 0.1 s), the variant's share (paper: all of u)."""
    assume(p[0] * p[0] + p[1] * p[1] <= r * r)  # the code's test (RVO2's distSq), not hypot's
    rel = (v[0] - other_v[0], v[1] - other_v[1])
    for variant, taken in (("orca", share), ("paper", 1.0)):
        line = rfunction_half_plane(v, p, other_v, r, 0.5, 10.0, share, variant=variant)
        u = ((line.point_x - v[0]) / taken, (line.point_y - v[1]) / taken)
        after = (0.1 * (rel[0] + u[0]), 0.1 * (rel[1] + u[1]))
        assert math.dist(after, p) == pytest.approx(r, abs=1e-9)
        normal = (-line.direction_y, line.direction_x)  # the boundary's normal: along u
        assert abs(normal[0] * u[0] + normal[1] * u[1]) == pytest.approx(math.hypot(*u),
                                                                          abs=1e-9)


@settings(max_examples=1000, deadline=None)
@given(velocity, vector, velocity, st.floats(0.1, 3.0), st.floats(0.1, 10.0))
def test_the_papers_variant_constrains_only_inside_the_vo_with_the_whole_u(v, p, other_v, r,
                                                                           tau):
    assume(math.hypot(*p) > r * (1.0 + 1e-9) + 1e-9)
    rel = (v[0] - other_v[0], v[1] - other_v[1])
    distance, _ = in_vo_exact(rel, p, r, tau)
    assume(abs(distance - r) > 1e-9 * (1.0 + r))
    paper = rfunction_half_plane(v, p, other_v, r, 1.0 / tau, 10.0, 0.5, variant="paper")
    if distance > r:
        assert paper is None
    else:
        full = rfunction_half_plane(v, p, other_v, r, 1.0 / tau, 10.0, 1.0)
        assert paper == full
        # through v_A + u, and ORCA's half-plane goes through v_A + u/2
        half = agent_orca_half_plane(v, p, other_v, r, 1.0 / tau, 10.0, 0.5)
        tolerance = 1e-9 * (1.0 + math.hypot(*v) + math.hypot(*rel) + r / tau)
        assert paper.point_x - v[0] == pytest.approx(2.0 * (half.point_x - v[0]), abs=tolerance)
        assert paper.point_y - v[1] == pytest.approx(2.0 * (half.point_y - v[1]), abs=tolerance)


# --- the method ---------------------------------------------------------------------------------

def _view(neighbors, velocity=(1.0, 0.0), pref=(1.0, 0.0)):
    return RobotView((0.0, 0.0), velocity, 0.0, 0.3, 0.3, 1.0, pref, 0.1, tuple(neighbors),
                     key="me")


def test_registered_as_a_constrained_method_with_orcas_promise():
    spec = method_spec("rfunction")
    assert "rfunction" in method_names() and "rfunction" in method_names(ros=True)
    assert spec.takes_constraints and spec.collision_free and spec.safety_filter
    assert not spec.world_only and not spec.holonomic_only and not spec.strict


@pytest.mark.parametrize("field, value", [("variant", "reciprocal"), ("backend", "gpu"),
                                          ("time_horizon", 0.0), ("template_slices", 0),
                                          ("template_step", -1.0)])
def test_bad_parameters_are_refused_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        method_spec("rfunction").create(**{field: value})


def test_the_method_keeps_orcas_half_planes_and_the_hard_ones():
    head_on = NeighborView((2.0, 0.0), (-1.0, 0.0), 0.3, "b")
    behind = NeighborView((-3.0, 0.0), (0.0, 0.0), 0.3, "c")  # the relative velocity is clear
    hard = ((0.0, 0.5, -1.0, 0.0),)  # v_y <= 0.5
    view = _view([head_on, behind])._replace(hard_half_planes=hard)
    out = Rfunction().compute_velocity(view)
    expected = [agent_orca_half_plane((1.0, 0.0), n.position, n.velocity, 0.6, 0.5, 10.0)
                for n in (head_on, behind)]
    assert len(out.neighbor_half_planes) == 2
    for ours, theirs in zip(out.neighbor_half_planes, expected):
        _same_line(ours, theirs, 1e-12)
    assert out.half_planes[0] == hard[0]
    assert out.velocity[1] <= 0.5 + 1e-9
    paper = Rfunction(RfunctionParameters(variant="paper")).compute_velocity(view)
    assert paper.report["agent_half_planes"] == 1  # only the one whose VO holds v
    assert paper.neighbor_half_planes == ()


def test_a_neighbour_that_does_not_reciprocate_gets_the_whole_u():
    other = NeighborView((2.0, 0.0), (-1.0, 0.0), 0.3, "b", reciprocates=False)
    out = Rfunction().compute_velocity(_view([other]))
    _same_line(out.neighbor_half_planes[0],
               agent_orca_half_plane((1.0, 0.0), (2.0, 0.0), (-1.0, 0.0), 0.6, 0.5, 10.0, 1.0),
               1e-12)


def test_the_orca_variant_runs_a_world_exactly_as_orca():
    """crossing_4, 200 steps: the same positions as ``orca`` (its batch of RVO2's formulas)
    to rounding."""
    scenario = load_scenario(resolve_scenario("crossing_4"))
    ours = World(scenario, WorldOptions(method="rfunction"))
    orca = World(scenario, WorldOptions(method="orca"))
    for _ in range(200):
        ours.step()
        orca.step()
        assert abs(ours.positions - orca.positions).max() < 1e-9


@pytest.mark.parametrize("parameters", [(("variant", "paper"),), (("backend", "template"),),
                                        (("variant", "paper"), ("backend", "template"))])
@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_the_other_variant_and_the_template_get_a_crossing_through(parameters, kinematics):
    scenario = load_scenario(resolve_scenario("crossing_4"))
    result = World(scenario, WorldOptions(
        method="rfunction", kinematics=kinematics,
        controller=(("method_parameters", parameters),))).run()
    assert result.collisions == 0 and result.reached == result.agents


def test_the_template_backend_runs_near_the_exact_one():
    scenario = load_scenario(resolve_scenario("circle_swap_8"))
    exact = World(scenario, WorldOptions(method="rfunction"))
    looked_up = World(scenario, WorldOptions(
        method="rfunction", controller=(("method_parameters", (("backend", "template"),)),)))
    for _ in range(30):
        exact.step()
        looked_up.step()
    gap = abs(exact.positions - looked_up.positions).max()
    assert 0.0 < gap < 1e-2  # not the same numbers, nearly the same motion


# --- the command line ---------------------------------------------------------------------------

def test_bench_runs_both_variants(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "crossing_4", "--method", "rfunction", "--method-param",
                     "variant=paper", "--no-progress", "--json", str(out)]) == 0
    row = json.loads(out.read_text())[0]
    assert row["method"] == "rfunction" and row["reached"] == 4 and row["collisions"] == 0
    assert cli.main(["bench", "crossing_4", "--method", "rfunction", "--method-param",
                     "variant=sideways", "--no-progress"]) == 2
    assert "variant" in capsys.readouterr().err


def test_bench_rfunction_reports_the_templates_figures(capsys):
    assert cli.main(["bench-rfunction", "--queries", "2000", "--scene-queries", "500",
                     "--slices", "10", "--step", "0.2", "--extent", "8", "crossing_4"]) == 0
    text = capsys.readouterr().out
    for words in ("max error", "fallback", "MB", "build", "µs per query", "exact", "template",
                  "| crossing_4 | 4/4, 0, 10.3,"):
        assert words in text, words
    with pytest.raises(SystemExit) as refused:  # argparse: a count below 1
        cli.main(["bench-rfunction", "--slices", "0"])
    assert refused.value.code == 2
    assert "--slices: 0 is not >= 1" in capsys.readouterr().err


# --- 3D half-spaces -------------------------------------------------------------------------------

def segment_distance_3d(v, p, tau):
    vv = sum(x * x for x in v)
    t = 0.0 if vv == 0.0 else min(max(sum(a * b for a, b in zip(v, p)) / vv, 0.0), tau)
    return math.dist([t * x for x in v], p)


vector3 = st.tuples(coordinate, coordinate, coordinate)
velocity3 = st.tuples(speed, speed, speed)


@settings(max_examples=300, deadline=None)
@given(velocity3, vector3, velocity3, st.floats(0.1, 3.0), st.floats(0.2, 10.0),
       st.sampled_from([0.5, 1.0]), st.integers(0, 2 ** 32 - 1))
# v_rel 1.6e-11 off the axis at the cut-off sphere's centre: the meridian plane's e was
# taken from v - a axis, whose rounding (1e-16) is 1e-5 of so small an offset, so e leaned
# 1e-5 rad towards the axis and v_rel + u missed the VO's boundary by 1e-5 r.
@example(v=(1.0, 1.0, 0.0), p=(1.0, 1.0, 0.0), other_v=(0.0, 0.0, 1.574110692797729e-11),
         r=1.0, tau=1.0, share=0.5, seed=0)
def test_the_3d_half_space_is_the_supporting_plane_at_the_nearest_boundary_point(
        v, p, other_v, r, tau, share, seed):
    """v_rel + u lies on the exact 3D VO's boundary, and every sampled relative velocity in
    the exact VO lies on the forbidden side of the plane through it (VO is convex, so the
    plane supports it there); the half-space goes through v_A + share u."""
    import numpy as np

    assume(math.dist(p, (0.0, 0.0, 0.0)) > r * (1.0 + 1e-6))
    line = rfunction_half_space(v, p, other_v, r, 1.0 / tau, 10.0, share)
    u = [(line.point[k] - v[k]) / share for k in range(3)]
    rel = [v[k] - other_v[k] for k in range(3)]
    boundary = [rel[k] + u[k] for k in range(3)]
    scale = math.dist(p, (0.0, 0.0, 0.0)) / tau + r / tau
    assert segment_distance_3d(boundary, p, tau) == pytest.approx(r, abs=1e-9 * (1.0 + r))
    assert math.dist(line.normal, (0.0, 0.0, 0.0)) == pytest.approx(1.0, abs=1e-12)
    rng = np.random.default_rng(seed)
    samples = rng.uniform(-2.0 * scale, 2.0 * scale, size=(4000, 3))
    inside = [s for s in samples.tolist() if segment_distance_3d(s, p, tau) <= r]
    assume(len(inside) >= 10)  # a VO too thin for the samples says nothing
    for s in inside:
        assert sum((s[k] - boundary[k]) * line.normal[k] for k in range(3)) <= 1e-9 * scale


def _seam_velocity(p, r, tau, turn, exponent, side):
    """A relative velocity ``10**exponent`` rho from the cut-off centre c = p/tau, in the
    direction of a tangent point (where the cut-off arc meets a leg: ``side`` -1 right,
    +1 left, 0 straight back to the apex) turned by ``turn`` rad."""
    dist = math.hypot(*p)
    beta = math.asin(r / dist)
    bearing = math.atan2(p[1], p[0])
    # the tangent point seen from c: the leg's outward normal, at pi/2 + beta off the bearing
    angle = bearing + math.pi + (side * (math.pi / 2.0 - beta) if side else 0.0) + turn
    offset = 10.0 ** exponent * r / tau
    return (p[0] / tau + offset * math.cos(angle), p[1] / tau + offset * math.sin(angle))


@settings(max_examples=1000, deadline=None)
@given(vector, st.floats(0.1, 3.0), st.floats(0.2, 10.0), st.floats(-1e-3, 1e-3),
       st.floats(-15.0, -1.0), st.sampled_from([-1, 0, 1]), st.sampled_from([0.5, 1.0]))
def test_2d_half_planes_near_the_cut_off_centre_and_the_arc_leg_seam_touch_the_vo(
        p, r, tau, turn, exponent, side, share):
    """The seam of issue 32 in 2D: relative velocities very near the cut-off centre (where
    w = v - c is tiny and its direction is all rounding) and in the directions of the two
    tangent points (where the arc meets a leg). ORCA's half-plane (RVO2's formulas) and
    the R-function's both put v_rel + u on the exact VO's boundary, to rounding."""
    assume(math.hypot(*p) > r * (1.0 + 1e-6))
    rel = _seam_velocity(p, r, tau, turn, exponent, side)
    tolerance = 1e-9 * (1.0 + math.hypot(*p) + r)
    for line in (agent_orca_half_plane(rel, p, (0.0, 0.0), r, 1.0 / tau, 10.0, share),
                 rfunction_half_plane(rel, p, (0.0, 0.0), r, 1.0 / tau, 10.0, share)):
        boundary = (rel[0] + (line.point_x - rel[0]) / share,
                    rel[1] + (line.point_y - rel[1]) / share)
        distance, _ = in_vo_exact(boundary, p, r, tau)
        assert distance == pytest.approx(r, abs=tolerance)


@settings(max_examples=1000, deadline=None)
@given(vector3, st.floats(0.1, 3.0), st.floats(0.2, 10.0), st.floats(-1e-3, 1e-3),
       st.floats(-15.0, -1.0), st.sampled_from([-1, 0, 1]), st.floats(0.0, 2.0 * math.pi))
def test_3d_half_spaces_near_the_cut_off_centre_and_the_sphere_cone_seam_touch_the_vo(
        p, r, tau, turn, exponent, side, roll):
    """The same in 3D: the meridian plane through v_rel (issue 32's example sat 1.6e-11
    off the axis at the cut-off centre), any roll of it round the axis."""
    dist = math.dist(p, (0.0, 0.0, 0.0))
    assume(dist > r * (1.0 + 1e-6))
    from orca_ros.core.orca.orca3d import perpendicular

    axis = [x / dist for x in p]
    e1 = perpendicular(tuple(axis))
    e2 = (axis[1] * e1[2] - axis[2] * e1[1], axis[2] * e1[0] - axis[0] * e1[2],
          axis[0] * e1[1] - axis[1] * e1[0])
    e = [math.cos(roll) * e1[k] + math.sin(roll) * e2[k] for k in range(3)]
    a, b = _seam_velocity((dist, 0.0), r, tau, turn, exponent, side)
    rel = [a * axis[k] + b * e[k] for k in range(3)]
    space = rfunction_half_space(rel, p, (0.0, 0.0, 0.0), r, 1.0 / tau, 10.0, 1.0)
    boundary = space.point
    assert segment_distance_3d(boundary, p, tau) == pytest.approx(
        r, abs=1e-9 * (1.0 + dist + r))


@settings(max_examples=500, deadline=None)
@given(velocity, vector, velocity, st.floats(0.0, 3.0), st.floats(0.1, 10.0),
       st.sampled_from([0.5, 1.0]), st.sampled_from(["orca", "paper"]))
def test_the_3d_half_space_in_a_plane_is_the_2d_half_plane(v, p, other_v, r, tau, share,
                                                           variant):
    assume(math.hypot(*p) > r * (1.0 + 1e-9) + 1e-9)
    rel = (v[0] - other_v[0], v[1] - other_v[1])
    # not on the cone's axis: there every meridian plane is as near, and 3D takes any one
    assume(abs(p[0] * rel[1] - p[1] * rel[0]) > 1e-6 * (1.0 + math.hypot(*p) * math.hypot(*rel)))
    # not on the VO's boundary: there the paper's "only inside" is a matter of rounding
    # (v = (0, 2) on the leg of p = (1, 1), r = 1: in 2D inside by 0, in 3D outside by 1e-16)
    assume(variant == "orca" or abs(segment_distance_3d((*rel, 0.0), (*p, 0.0), tau) - r)
           > 1e-9 * (1.0 + r))
    flat = rfunction_half_plane(v, p, other_v, r, 1.0 / tau, 10.0, share, variant)
    space = rfunction_half_space((*v, 0.0), (*p, 0.0), (*other_v, 0.0), r, 1.0 / tau, 10.0,
                                 share, variant)
    if flat is None:
        assert space is None
        return
    tolerance = 1e-9 * (1.0 + math.hypot(*v) + math.hypot(*other_v) + r / tau)
    assert space.point == pytest.approx((flat.point_x, flat.point_y, 0.0), abs=tolerance)
    assert space.normal == pytest.approx((-flat.direction_y, flat.direction_x, 0.0),
                                         abs=tolerance)


@settings(max_examples=500, deadline=None)
@given(velocity3, vector3, velocity3, st.floats(0.1, 3.0), st.floats(0.2, 10.0))
def test_the_papers_3d_variant_constrains_only_inside_the_vo(v, p, other_v, r, tau):
    assume(math.dist(p, (0.0, 0.0, 0.0)) > r * (1.0 + 1e-9) + 1e-9)
    rel = [v[k] - other_v[k] for k in range(3)]
    distance = segment_distance_3d(rel, p, tau)
    assume(abs(distance - r) > 1e-9 * (1.0 + r))
    paper = rfunction_half_space(v, p, other_v, r, 1.0 / tau, 10.0, 0.5, "paper")
    if distance > r:
        assert paper is None
    else:  # through v_A + u, the whole u: v_rel + u on the exact VO's boundary
        boundary = [rel[k] + paper.point[k] - v[k] for k in range(3)]
        assert segment_distance_3d(boundary, p, tau) == pytest.approx(r, abs=1e-9 * (1.0 + r))


@settings(max_examples=300, deadline=None)
@given(velocity3, st.tuples(*[st.floats(-0.5, 0.5)] * 3), velocity3, st.floats(0.05, 2.0),
       st.sampled_from([0.5, 1.0]), st.sampled_from(["orca", "paper"]))
def test_overlapping_spheres_separate_within_one_time_step(v, p, other_v, r, share, variant):
    """ORCA's collision branch: with the whole u the pair is r apart after one step."""
    assume(math.dist(p, (0.0, 0.0, 0.0)) <= r)
    line = rfunction_half_space(v, p, other_v, r, 0.5, 10.0, share, variant)
    taken = share if variant == "orca" else 1.0
    rel = [v[k] - other_v[k] + (line.point[k] - v[k]) / taken for k in range(3)]
    assert math.dist([0.1 * x for x in rel], p) == pytest.approx(r, abs=1e-9)


# --- the world's batch ----------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["orca", "paper"])
@pytest.mark.parametrize("backend", ["exact", "template"])
def test_the_batch_builds_the_half_planes_one_by_one_would(variant, backend):
    """half_planes_batch over random pairs (apart, overlapping, coincident) against
    rfunction_half_plane for each."""
    import numpy as np

    from orca_ros.core.orca.rfunction import half_planes_batch

    rng = np.random.default_rng(12)
    n, k = 40, 9
    velocity = rng.uniform(-1.5, 1.5, (n, 2))
    rel = rng.uniform(-4.0, 4.0, (n, k, 2))
    rel[:, 0] *= 0.1  # some overlap
    rel[0, 1] = 0.0  # coincident
    other_velocity = rng.uniform(-1.5, 1.5, (n, k, 2))
    other_velocity[0, 1] = velocity[0]  # coincident and moving alike
    combined = rng.uniform(0.2, 1.2, (n, k))
    inv_tau = 1.0 / rng.uniform(0.5, 5.0, n)
    template = VoxelTemplate(slices=30, step=0.1, extent=12.0) if backend == "template" \
        else None
    lines, kept = half_planes_batch(velocity, rel, other_velocity, combined, inv_tau, 10.0,
                                    variant, template)
    assert not kept.all() if variant == "paper" else kept.all()
    for i in range(n):
        for j in range(k):
            one = rfunction_half_plane(tuple(velocity[i]), tuple(rel[i, j]),
                                       tuple(other_velocity[i, j]), combined[i, j],
                                       inv_tau[i], 10.0, 0.5, variant, template)
            assert kept[i, j] == (one is not None)
            if one is not None:
                assert tuple(lines[i, j]) == pytest.approx(tuple(one), abs=1e-9)


def test_the_world_batch_keeps_the_papers_rows_and_matches_the_robots_own_half_planes():
    import numpy as np

    scenario = load_scenario(resolve_scenario("circle_swap_8"))
    for parameters in ((("variant", "paper"),), (("backend", "template"),)):
        world = World(scenario, WorldOptions(method="rfunction",
                                             controller=(("method_parameters", parameters),)))
        compared = 0
        for _ in range(60):  # every step: the paper's rows come and go
            world.step()
            active = np.flatnonzero(world.active)
            neighbor_lists, _ = world._neighbors(active)
            batch = rfunction_half_planes_batch(world, active, neighbor_lists)
            for row, i in enumerate(active.tolist()):
                controller = world.controllers[i]
                view = _view([NeighborView(tuple(world.positions[j] - world.positions[i]),
                                           tuple(world.velocities[j]),
                                           controller.config.avoidance_radius(world.radius[j]))
                              for j in neighbor_lists[row]],
                             velocity=tuple(world.velocities[i]))._replace(
                    radius=controller.config.avoidance_radius(world.radius[i]),
                    time_step=world.dt)
                own = [line for line in controller.method.agent_half_planes(view) if line]
                assert len(own) == len(batch[row])
                for ours, theirs in zip(own, batch[row]):
                    _same_line(ours, theirs, 1e-9)
                compared += len(own)
        assert compared > 20, (parameters, compared)  # rows there were, and they matched


# --- rfunction in 3D ------------------------------------------------------------------------

def test_the_3d_method_flies_orcas_velocity_where_the_half_spaces_agree():
    """Variant orca in 3D: the same half-spaces as ORCA's (to rounding) in the same
    linear programs, so the same velocity, hard half-spaces included."""
    import numpy as np

    from orca_ros.core.geometry.linprog3d import HalfSpace
    from orca_ros.core.methods.base3d import NeighborView3D, RobotView3D
    from orca_ros.core.methods.orca3d import Orca3D
    from orca_ros.core.methods.orca import OrcaParameters
    from orca_ros.core.methods.rfunction import Rfunction3D

    rng = np.random.default_rng(3)
    ours, theirs = Rfunction3D(RfunctionParameters()), Orca3D(OrcaParameters())
    for _ in range(200):
        neighbors = [NeighborView3D(tuple(rng.uniform(-3.0, 3.0, 3)),
                                    tuple(rng.uniform(-1.0, 1.0, 3)), 0.3, f"n{k}",
                                    bool(rng.integers(2)))
                     for k in range(int(rng.integers(1, 6)))]
        neighbors = [n for n in neighbors if math.dist(n.position, (0.0, 0.0, 0.0)) > 0.7]
        hard = [HalfSpace((0.0, 0.0, 0.5), (0.0, 0.0, -1.0))]  # climb at most 0.5 m/s
        view = RobotView3D((0.0, 0.0, 0.0), tuple(rng.uniform(-1.0, 1.0, 3)), 0.35, 0.3, 1.0,
                           tuple(rng.uniform(-1.0, 1.0, 3)), 0.1, neighbors, hard)
        a, b = ours.compute_velocity(view), theirs.compute_velocity(view)
        assert math.dist(a.velocity, b.velocity) < 1e-9
        assert a.velocity[2] <= 0.5 + 1e-9


@pytest.mark.parametrize("p", [(0.0, 0.0, 2.0), (2.0, 0.0, 0.0), (0.0, -2.0, 0.0), (1.0, 1.0, 1.0)])
def test_head_on_in_3d_the_half_space_is_orcas_on_the_same_side(p):
    """A relative velocity exactly on the cone's axis (a pair sent head on) has every
    meridian plane; the half-space must be 3D ORCA's, not its mirror image: the 2D
    tie goes to the right leg, which in the plane's half ``b >= 0`` is the left one."""
    from orca_ros.core.methods.base3d import NeighborView3D, RobotView3D
    from orca_ros.core.methods.orca import OrcaParameters
    from orca_ros.core.methods.orca3d import Orca3D
    from orca_ros.core.methods.rfunction import Rfunction3D

    towards = tuple(0.4 * x for x in p)
    neighbor = NeighborView3D(p, tuple(-x for x in towards), 0.3, "n", True)
    view = RobotView3D((0.0, 0.0, 0.0), towards, 0.3, 0.3, 1.0, towards, 0.1, [neighbor], ())
    ours = Rfunction3D(RfunctionParameters()).compute_velocity(view)
    theirs = Orca3D(OrcaParameters()).compute_velocity(view)
    assert math.dist(ours.half_spaces[0].normal, theirs.half_spaces[0].normal) < 1e-12
    assert math.dist(ours.half_spaces[0].point, theirs.half_spaces[0].point) < 1e-12
    assert math.dist(ours.velocity, theirs.velocity) < 1e-9


@pytest.mark.parametrize("variant", ["orca", "paper"])
def test_both_variants_fly_the_3d_scenarios_without_contact(variant):
    from orca_ros.core.sim.world3d import World3D

    for name in ("octahedron_swap_3d", "two_layers_crossing_3d"):
        scenario = load_scenario(resolve_scenario(name))
        result = World3D(scenario, WorldOptions(method="rfunction", controller=(
            ("method_parameters", (("variant", variant),)),))).run()
        assert result.collisions == 0, (name, result.collision_pairs)
        assert result.reached == len(scenario.agents), name
