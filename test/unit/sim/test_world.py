"""The scenario world: collision accounting, kinematics, safety, guidance, end to end."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orca_ros.core import HalfPlane, linear_program_2d
from orca_ros.core.geometry.frames import wrap_angle
from orca_ros.core.models.bodies import DiffDriveLimits, unicycle_step
from orca_ros.core.robot.tracking import (kinematic_half_planes, tracking_error_bound,
                                          unicycle_command)
from orca_ros.core.robot.guidance import VisibilityRoadmap
from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.robot.safety_filter import (one_step_obstacle_half_plane,
                                               one_step_safety_half_plane)
from orca_ros.core.scenario.loader import load_scenario, parse_scenario, resolve_scenario
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.controller import RobotController
from orca_ros.core.robot.state import RobotState
from orca_ros.core.geometry.types import Polygon, Segment
from orca_ros.core.sim.metrics import CollisionLedger
from orca_ros.core.sim.world import World, WorldOptions

from helpers.bench_fields import MOTION_FIELDS  # noqa: E402


def satisfies(line: HalfPlane, v, tol=1e-12) -> bool:
    return line.direction_x * (line.point_y - v[1]) \
        - line.direction_y * (line.point_x - v[0]) <= tol


# --- collision accounting ---------------------------------------------------------------

def test_constructed_overlap_is_counted_once_with_its_depth():
    ledger = CollisionLedger()
    positions = np.array([[0.0, 0.0], [0.59, 0.0], [5.0, 5.0]])
    radii = np.array([0.3, 0.3, 0.3])
    for _ in range(3):  # the same pair on three steps is one pair
        ledger.update(positions, radii, ["a", "b", "c"], [])
    assert ledger.pairs == {("a", "b")}
    assert ledger.deepest == pytest.approx(0.01)
    assert ledger.min_separation == pytest.approx(-0.01)


def test_touching_at_exactly_the_sum_of_radii_is_not_a_collision():
    ledger = CollisionLedger()
    ledger.update(np.array([[0.0, 0.0], [0.75, 0.0]]), np.array([0.25, 0.5]), ["a", "b"], [])
    assert ledger.pairs == set()
    assert ledger.min_separation == pytest.approx(0.0, abs=1e-12)


def test_obstacle_penetration_is_counted_per_agent():
    box = np.array([[1.0, -1.0], [2.0, -1.0], [2.0, 1.0], [1.0, 1.0]])
    ledger = CollisionLedger()
    ledger.update(np.array([[0.8, 0.0], [0.7, 3.0], [1.5, 0.0]]), np.array([0.3, 0.3, 0.3]),
                  ["near", "far", "inside"], [box])
    assert ledger.pairs == {("near", "obstacle0"), ("inside", "obstacle0")}
    assert ledger.deepest == pytest.approx(0.8)  # centre 0.5 m inside, plus its radius


def test_wall_contacts_are_counted_apart_from_robot_pairs():
    """fleet_sim reports the walls' share on /diagnostics and orca-ros sim in its summary
    (issue 31: a run that drove into walls did not say so itself)."""
    box = np.array([[1.0, -1.0], [2.0, -1.0], [2.0, 1.0], [1.0, 1.0]])
    ledger = CollisionLedger()
    ledger.update(np.array([[0.8, 0.0], [0.8, 0.55], [5.0, 0.0]]), np.array([0.3, 0.3, 0.3]),
                  ["near", "twin", "far"], [box])
    assert ledger.pairs == {("near", "twin"), ("near", "obstacle0"), ("twin", "obstacle0")}
    assert ledger.wall_pairs == {("near", "obstacle0"), ("twin", "obstacle0")}
    assert ledger.deepest_wall == pytest.approx(0.1)
    assert ledger.min_wall_gap == pytest.approx(-0.1)
    assert ledger.deepest == pytest.approx(0.1)  # the robot pair overlaps 0.05 m only


# --- diff-drive -------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(heading=st.floats(-math.pi, math.pi), v_now=st.floats(0.0, 1.0),
       omega_now=st.floats(-2.0, 2.0), pref_angle=st.floats(-math.pi, math.pi),
       pref_speed=st.floats(0.0, 1.2), dt=st.sampled_from([0.05, 0.1, 0.25]))
def test_unicycle_stays_within_the_tracking_bound_of_the_planned_motion(
        heading, v_now, omega_now, pref_angle, pref_speed, dt):
    limits = DiffDriveLimits(max_linear_speed=1.0, max_angular_speed=2.0, max_linear_accel=4.0,
                             max_angular_accel=20.0, lateral_error=0.02)
    hard = kinematic_half_planes(heading, v_now, limits, dt)
    pref = (pref_speed * math.cos(pref_angle), pref_speed * math.sin(pref_angle))
    fail, planned = linear_program_2d(hard, limits.max_linear_speed, pref)
    assert fail == len(hard)  # the kinematic set is never empty
    assert all(satisfies(line, planned, 1e-9) for line in hard)
    v, omega = unicycle_command(planned, pref, heading, (v_now, omega_now), limits, dt)
    assert 0.0 <= v <= limits.max_linear_speed
    assert abs(omega) <= limits.max_angular_speed
    assert abs(v - v_now) <= limits.max_linear_accel * dt + 1e-12
    assert abs(omega - omega_now) <= limits.max_angular_accel * dt + 1e-12
    x, y, _ = unicycle_step(0.0, 0.0, heading, v, omega, dt)
    error = math.hypot(x - planned[0] * dt, y - planned[1] * dt)
    assert error <= tracking_error_bound(limits, dt) + 1e-9


def test_unicycle_step_integrates_arcs_exactly():
    # A quarter circle of radius 1 m: v = 1 m/s, omega = 1 rad/s for pi/2 s.
    x, y, heading = unicycle_step(0.0, 0.0, 0.0, 1.0, 1.0, math.pi / 2)
    assert (x, y, heading) == pytest.approx((1.0, 1.0, math.pi / 2))
    assert wrap_angle(3 * math.pi) == pytest.approx(math.pi)
    assert wrap_angle(-math.pi) == pytest.approx(math.pi)


# --- one-step safety ---------------------------------------------------------------------

@settings(max_examples=400, deadline=None)
@given(rel=st.tuples(st.floats(-2, 2), st.floats(-2, 2)), r=st.floats(0.05, 0.5),
       va=st.tuples(st.floats(-3, 3), st.floats(-3, 3)),
       vb=st.tuples(st.floats(-3, 3), st.floats(-3, 3)), dt=st.sampled_from([0.05, 0.1, 0.25]))
def test_pairs_keeping_their_one_step_half_planes_cannot_overlap_next_step(rel, r, va, vb, dt):
    if math.hypot(*rel) < 2 * r:
        return  # the guarantee is for pairs that do not overlap yet
    line_a = one_step_safety_half_plane(rel, 2 * r, dt)
    line_b = one_step_safety_half_plane((-rel[0], -rel[1]), 2 * r, dt)
    # Project both velocities into their half-planes the way the LP would.
    _, va = linear_program_2d([line_a], 10.0, va)
    _, vb = linear_program_2d([line_b], 10.0, vb)
    after = (rel[0] + (vb[0] - va[0]) * dt, rel[1] + (vb[1] - va[1]) * dt)
    assert math.hypot(*after) >= 2 * r - 1e-9
    assert satisfies(line_a, (0.0, 0.0))  # standing still is always allowed


def test_one_step_obstacle_half_plane_keeps_an_agent_off_the_wall():
    edges = build_obstacle_edges([Polygon([(1.0, -1.0), (2.0, -1.0), (2.0, 1.0), (1.0, 1.0)])])
    wall = next(e for e in edges if e.point == (1.0, 1.0))  # the edge facing the agent
    line = one_step_obstacle_half_plane((0.0, 0.0), 0.3, wall, 0.1)
    _, v = linear_program_2d([line], 20.0, (20.0, 0.0))
    assert v[0] * 0.1 <= 0.7 + 1e-12  # reaches the wall at most


# --- guidance -------------------------------------------------------------------------------------

def test_roadmap_routes_around_a_wall_and_sees_open_lines():
    wall = Polygon([(-0.1, -2.0), (0.1, -2.0), (0.1, 2.0), (-0.1, 2.0)])
    roadmap = VisibilityRoadmap(build_obstacle_edges([wall]), clearance=0.4)
    assert not roadmap.visible((-3.0, 0.0), (3.0, 0.0))[0]
    assert roadmap.visible((-3.0, 3.0), (3.0, 3.0))[0]
    corner = roadmap.next_corner((-3.0, 0.5), (3.0, 0.5))
    assert corner is not None and abs(corner[1]) > 2.0 and corner[0] < 0.0


def _box(half: float):
    corners = [(-half, -half), (half, -half), (half, half), (-half, half)]
    return [Segment(corners[i], corners[(i + 1) % 4]) for i in range(4)]


def test_a_goal_close_to_a_wall_is_headed_for_not_a_corner_across_the_wall():
    # A robot inside a walled box (a toio mat's edges), its goal 0.02 m from the
    # bottom wall: closer than the robot's 0.023 m radius. Guidance must lead
    # straight there (it once sent the robot to a corner outside the box).
    edges = build_obstacle_edges(_box(0.25))
    controller = RobotController(ControllerConfig(radius=0.023, max_speed=0.12, pref_speed=0.1,
                                                  time_step=0.05, keep_right_deg=0.0,
                                                  stall_escape_deg=0.0),
                                 key="cube")
    goal = (0.1, -0.23)
    controller.set_path([goal])
    state = RobotState((-0.15, -0.1), (0.0, 0.0), 0.0, 0.0, 0.0)
    pref = controller.preferred_velocity(state, edges)
    to_goal = np.subtract(goal, state.position)
    assert controller.path.guidance.corner is None
    assert np.dot(pref, to_goal) / (np.linalg.norm(pref) * np.linalg.norm(to_goal)) \
        == pytest.approx(1.0)


def test_a_robot_pressed_against_a_wall_never_heads_for_a_corner_across_it():
    # Inside the box, pressed against its left wall, with the goal behind a
    # wall inside the box: no corner is cleanly visible. The fallback corner
    # must be one the centre can see, inside the box.
    inner = Polygon([(-0.05, -0.1), (0.05, -0.1), (0.05, 0.1), (-0.05, 0.1)])
    roadmap = VisibilityRoadmap(build_obstacle_edges(_box(0.25) + [inner]), clearance=0.04)
    start = (-0.24, 0.2)
    assert not roadmap.visible(start, (0.2, 0.0), 1e-9)[0]
    corner = roadmap.next_corner(start, (0.2, 0.0), start_clearance=0.03)
    assert corner is not None
    assert max(abs(corner[0]), abs(corner[1])) < 0.25


def _rack_gap_scenario(kinematics_radius: float = 0.2):
    """Two racks with a 0.5 m gap between them (x in [-0.25, 0.25]), a robot above the
    gap, its goal below; the way round the racks is open."""
    return parse_scenario({
        "name": "rack_gap", "time_step": 0.1, "max_time": 60.0,
        "defaults": {"radius": kinematics_radius, "max_speed": 1.0, "pref_speed": 0.8},
        "obstacles": [{"vertices": [[-3.0, -0.2], [-0.25, -0.2], [-0.25, 0.2], [-3.0, 0.2]]},
                      {"vertices": [[0.25, -0.2], [3.0, -0.2], [3.0, 0.2], [0.25, 0.2]]}],
        "agents": [{"name": "r0", "start": [0.0, 1.0], "goal": [0.0, -1.5]}]})


def test_a_line_through_a_gap_narrower_than_twice_the_passage_is_not_passable():
    racks = build_obstacle_edges(_rack_gap_scenario().obstacles)
    roadmap = VisibilityRoadmap(racks, clearance=0.3)
    down, slanted = ((0.0, 1.0), (0.0, -1.5)), ((-0.1, 1.0), (0.1, -1.5))
    for p, q in (down, slanted):
        # it keeps the robot's radius from the walls, so it is visible at that
        assert roadmap.visible(p, q, 0.2)[0]
        # the gap is 0.5 m: a robot keeping 0.26 m from walls cannot go through
        assert not roadmap.passable(p, q, 0.2, passage=0.26)[0]
        assert roadmap.passable(p, q, 0.2, passage=0.24)[0]
    # along the racks, brushing their tops within the passage: one side only, passable
    assert roadmap.passable((-2.5, 0.42), (-0.6, 0.42), 0.2, passage=0.26)[0]


def test_a_unicycle_is_guided_round_a_gap_narrower_than_its_avoidance_radius_allows():
    # The gap is wider than the robot (0.4 m) but narrower than twice its avoidance
    # radius (margin and tracking error: 0.26 m): ORCA never lets its centre in. Guidance
    # checked the way there at the robot's radius and sent it at the gap, where it
    # stood for the rest of the run (a warehouse map's 50 cm gap between racks).
    scenario = _rack_gap_scenario()
    world = World(scenario, WorldOptions(kinematics="diff_drive"))
    config = world.controllers[0].config
    assert 2 * config.radius < 0.5 < 2 * config.avoidance_radius(config.radius)
    result = world.run()
    assert result.reached == 1 and result.collisions == 0
    # it went round a rack's end, not through the gap
    assert np.nanmax(np.abs(result.trajectory[:, 0, 0])) > 3.0
    # a holonomic robot (avoidance radius 0.22 m) still takes the gap
    holonomic = World(scenario, WorldOptions(kinematics="holonomic")).run()
    assert holonomic.reached == 1
    assert np.nanmax(np.abs(holonomic.trajectory[:, 0, 0])) < 0.25


# --- end to end ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["crossing_4", "corridor_wall", "circle_swap_8"])
@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_builtin_scenarios_arrive_without_collisions(name, kinematics):
    scenario = load_scenario(resolve_scenario(name))
    result = World(scenario, WorldOptions(kinematics=kinematics)).run()
    assert result.collisions == 0, result.collision_pairs
    assert result.reached == len(scenario.agents)
    assert result.min_separation >= 0.0


def test_strict_mode_deadlocks_where_ours_breaks_the_symmetry():
    data = {"name": "head_on", "time_step": 0.1, "max_time": 30.0, "on_goal": "stay",
            "defaults": {"radius": 0.3, "max_speed": 1.0},
            "agents": [{"name": "a", "start": [-3, 0], "goal": [3, 0]},
                       {"name": "b", "start": [3, 0], "goal": [-3, 0]}], "obstacles": []}
    scenario = parse_scenario(data)
    strict = World(scenario, WorldOptions(method="orca_strict")).run()
    ours = World(scenario, WorldOptions()).run()
    assert strict.reached == 0 and strict.collisions == 0
    assert ours.reached == 2 and ours.collisions == 0


def test_strict_world_reproduces_the_reference_library_step_by_step():
    pyrvo = pytest.importorskip("pyrvo", reason="pyrvo (RVO2 bindings) not installed")
    del pyrvo
    scenario = load_scenario(resolve_scenario("crossing_4"))
    ours = World(scenario, WorldOptions(method="orca_strict"))
    reference = World(scenario, WorldOptions(method="rvo2"))
    for _ in range(60):
        ours.step()
        reference.step()
    # float64 against RVO2's float32: equal up to rounding after 6 s of crossing traffic.
    assert np.abs(ours.positions - reference.positions).max() < 1e-3


def test_bench_writes_exactly_the_contract_fields_and_a_plot(tmp_path, capsys):
    from orca_ros.tools.cli import main

    out = tmp_path / "bench.json"
    assert main(["bench", "crossing_4", "--json", str(out), "--plot", str(tmp_path),
                 "--no-progress"]) == 0
    rows = json.loads(out.read_text())
    assert [set(r) for r in rows] == [{
        "scenario", "method", "kinematics", "agents", "reached", "collisions", "min_separation",
        "makespan", "mean_time_to_goal", "path_length_ratio", "steps", "wall_time_s",
        "compute_us_per_agent_step"} | MOTION_FIELDS]
    assert rows[0]["reached"] == 4 and rows[0]["collisions"] == 0
    assert (tmp_path / "crossing_4_orca_holonomic.png").stat().st_size > 10_000
    assert "| crossing_4 | orca | holonomic | 4/4 | 0 |" in capsys.readouterr().out



def test_bench_rows_carry_the_motion_quality_figures(tmp_path, capsys):
    from orca_ros.tools.cli import main
    from orca_ros.tools.scenario_bench import run_scenario

    out = tmp_path / "bench.json"
    assert main(["bench", "corridor_wall", "--kinematics", "diff_drive", "--json", str(out),
                 "--no-progress"]) == 0
    [row] = json.loads(out.read_text())
    assert MOTION_FIELDS <= set(row)
    names = {a.name for a in load_scenario(resolve_scenario("corridor_wall")).agents}
    assert row["reached"] == row["agents"] == len(names)
    # sane: a robot gives back less ground than the corridor is long, stands no longer
    # than the run lasts, and turns back fewer than once a second
    assert 0.0 <= row["retreat_max_m"] < 5.0
    assert (row["retreat_robot"] in names) == (row["retreat_max_m"] > 0.0)
    assert isinstance(row["stops"], int) and row["stops"] >= 0
    assert 0.0 <= row["time_standing_s"] <= len(names) * row["makespan"]
    assert (row["stops"] == 0) == (row["time_standing_s"] == 0.0)
    assert 0.0 <= row["turn_reversals_per_min"] <= row["turn_reversals_per_min_max"] < 60.0
    assert row["turn_reversals_robot"] in names | {None}
    # the steering command's reversals: the median robot's at most the worst's
    assert 0.0 <= row["steering_reversals_per_min_median"] <= \
        row["steering_reversals_per_min_max"] < 60.0
    assert row["steering_reversals_robot"] in names | {None}
    printed = capsys.readouterr().out
    assert "| corridor_wall | orca | diff_drive | 6/6 | 0 |" in printed
    # and in the table of how the robots drove, as in the row
    motion = [line for line in printed.splitlines() if line.startswith("| corridor_wall |")
              and "orca" not in line]
    assert motion == [f"| corridor_wall | {row['retreat_max_m']:.2f} | "
                      f"{row['retreat_robot'] or '-'} | {row['off_goal_max_m']:.2f} | "
                      f"{row['stops']} | {row['time_standing_s']:.1f} | "
                      f"{row['turn_reversals_per_min']:.1f} | "
                      f"{row['turn_reversals_per_min_max']:.1f} | "
                      f"{row['steering_reversals_per_min_median']:.1f} | "
                      f"{row['steering_reversals_per_min_max']:.1f} |"]
    # the row's figures are the robots': the worst retreat, the total of stops
    result = run_scenario("corridor_wall", WorldOptions(kinematics="diff_drive"),
                          progress=False)
    figures = result.motion_quality
    assert set(figures) == names
    assert row["retreat_max_m"] == pytest.approx(max(f.retreat_m for f in figures.values()),
                                                 abs=1e-6)
    assert row["stops"] == sum(f.stops for f in figures.values())

def test_jittered_starts_move_each_start_by_at_most_the_jitter_and_repeat_with_the_seed():
    from orca_ros.core.scenario.loader import jitter_starts

    scenario = load_scenario(resolve_scenario("crossing_4"))
    one, again, other = (jitter_starts(scenario, 0.01, seed) for seed in (1, 1, 2))
    assert [a.start for a in one.agents] == [a.start for a in again.agents]
    assert [a.start for a in one.agents] != [a.start for a in other.agents]
    for moved, agent in zip(one.agents, scenario.agents):
        assert moved.start != agent.start and moved.goal == agent.goal
        assert max(abs(moved.start[0] - agent.start[0]),
                   abs(moved.start[1] - agent.start[1])) <= 0.01
    with pytest.raises(ValueError, match="start jitter"):
        jitter_starts(scenario, -0.01, 1)


def test_bench_runs_a_scene_with_jittered_starts_and_sums_the_runs_up(tmp_path, capsys):
    from orca_ros.tools.cli import main

    out = tmp_path / "runs.json"
    assert main(["bench", "crossing_4", "--runs", "2", "--jitter-starts", "0.05",
                 "--full-time", "--json", str(out), "--no-progress"]) == 0
    rows = json.loads(out.read_text())
    assert [(r["run"], r["start_jitter"]) for r in rows] == [(1, 0.05), (2, 0.05)]
    assert rows[0]["makespan"] != rows[1]["makespan"]  # the starts differ
    scenario = load_scenario(resolve_scenario("crossing_4"))
    # On to max_time after all have arrived, and all still on their goals then.
    assert [r["steps"] for r in rows] == [round(scenario.max_time / scenario.time_step)] * 2
    assert [r["at_goal_at_end"] for r in rows] == [4, 4]
    printed = capsys.readouterr().out
    assert "| crossing_4 run 2 | orca | holonomic | 4/4 | 0 |" in printed
    assert "crossing_4: 2 runs, 8/8 arrived, 0 colliding pairs in 0 runs" in printed
    assert "8/8 on their goals at the end" in printed
    with pytest.raises(SystemExit) as refused:  # argparse: a count below 1
        main(["bench", "crossing_4", "--runs", "0", "--no-progress"])
    assert refused.value.code == 2


def test_bench_reports_bad_scenarios_without_a_traceback(tmp_path, capsys):
    from orca_ros.tools.cli import main

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\n")
    assert main(["bench", str(bad), "--no-progress"]) == 2
    assert "missing 'time_step'" in capsys.readouterr().err


SMALL_PUBLIC = [
    "crowdnav_circle_crossing_5h_case0", "crowdnav_square_crossing_5h_case0",
    "steersuite_3way_confusion", "steersuite_4way_confusion", "steersuite_crossing",
    "steersuite_crossing_2", "steersuite_cut_across", "steersuite_doorway_one_way",
    "steersuite_fan_in", "steersuite_fan_out", "steersuite_frogger", "steersuite_oncoming",
    "steersuite_oncoming_groups", "steersuite_oncoming_obstacle", "steersuite_overtake",
    "steersuite_similar_direction", "steersuite_simple_obstacle", "steersuite_simple_wall",
    "steersuite_squeeze", "steersuite_surprise_2",
]


@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
@pytest.mark.parametrize("name", SMALL_PUBLIC)
def test_small_public_scenarios_arrive_without_collisions(public_scenario, name, kinematics):
    scenario = load_scenario(public_scenario(name))
    result = World(scenario, WorldOptions(kinematics=kinematics)).run()
    assert result.collisions == 0, result.collision_pairs
    assert result.reached == len(scenario.agents)


@pytest.mark.parametrize("name", SMALL_PUBLIC)
def test_the_supervisor_on_top_of_orca_makes_nothing_worse(public_scenario, name):
    from orca_ros.tools.scenario_bench import run_scenario

    result = run_scenario(str(public_scenario(name)), WorldOptions(),
                          progress=False, supervisor=True)
    assert result.collisions == 0, result.collision_pairs
    assert result.reached == result.agents
    assert result.conflicts is not None  # the supervisor did run


def test_simulated_bodies_respect_speed_and_acceleration_limits():
    from orca_ros.core.models.bodies import Body, step_body

    limits = DiffDriveLimits(max_linear_speed=1.0, max_angular_speed=2.0, max_linear_accel=2.0,
                             max_angular_accel=10.0)
    body = Body(0.0, 0.0, 0.0)
    body = step_body(body, (5.0, 5.0, 0.0), "holonomic", limits, 0.1)
    assert math.hypot(body.vx, body.vy) == pytest.approx(0.2)  # accel-limited: 2 m/s^2 * 0.1 s
    for _ in range(20):
        body = step_body(body, (5.0, 5.0, 0.0), "holonomic", limits, 0.1)
    assert math.hypot(body.vx, body.vy) == pytest.approx(1.0)  # capped at max speed
    assert body.vx == pytest.approx(body.vy)  # in the commanded direction
    unicycle = step_body(Body(0.0, 0.0, 0.0, vx=1.0, omega=2.0), (1.0, 3.0, 2.0), "diff_drive",
                         limits, 0.5)
    assert unicycle.vy == 0.0 and unicycle.omega == pytest.approx(2.0)
    assert (unicycle.x, unicycle.y) == pytest.approx(unicycle_step(0, 0, 0, 1.0, 2.0, 0.5)[:2])


def test_the_worlds_neighbour_lists_follow_the_one_neighbour_rule():
    """World._neighbors (k-d tree, for N up to thousands) picks what
    perception.select_neighbors picks, capped at max_neighbors."""
    from orca_ros.core.robot.state import Neighbor
    from orca_ros.core.robot.perception import select_neighbors

    rng = np.random.default_rng(4)
    grid = [(x, y) for x in range(8) for y in range(8)]  # 1 m apart, jittered
    agents = [{"name": f"a{i}", "start": [x + float(dx), y + float(dy)], "goal": [x, y + 0.5]}
              for i, ((x, y), (dx, dy)) in enumerate(zip(grid, rng.uniform(-0.3, 0.3, (64, 2))))]
    scenario = parse_scenario({
        "name": "cloud", "time_step": 0.1, "max_time": 1.0,
        "defaults": {"radius": 0.1, "max_speed": 1.0, "neighbor_dist": 2.5,
                     "max_neighbors": 6}, "agents": agents})
    world = World(scenario)
    active = np.arange(len(agents))
    lists, _ = world._neighbors(active)
    for i, listed in enumerate(lists):
        others = [Neighbor(tuple(world.positions[j]), (0.0, 0.0), 0.1, world.names[j])
                  for j in active if j != i]
        expected = select_neighbors(tuple(world.positions[i]), others, 2.5)[:6]
        assert [world.names[j] for j in listed] == [n.key for n in expected]


def test_timed_as_through_ros_no_robot_of_the_corridor_turns_back():
    """corridor_wall with the ROS path's timing (every neighbour heard a period late):
    every robot passes the oncoming group without driving back towards its start. When
    the robots planned with the discs grown by their data's age and a pair heard each
    other unequally late, one robot gave way for both and was pushed 2.9 m back at the
    other's speed (makespan 39.2 s, against 20.0 s with ideal timing)."""
    scenario = load_scenario(resolve_scenario("corridor_wall"))
    result = World(scenario, WorldOptions(ros_timing=True)).run()
    summary = result.summary()
    assert summary["reached"] == 6 and summary["collisions"] == 0
    assert summary["retreat_max_m"] < 0.5, summary
    assert summary["makespan"] < 25.0


def test_a_robot_taken_out_on_arrival_is_recorded_where_it_arrived():
    """on_goal: remove: the record keeps the frame of the step it arrived in (within its
    goal tolerance), then none; the motion figures read it as arrived. When the
    arrival's frame was left out too, every SteerSuite file showed an SPL of 0."""
    scenario = parse_scenario({
        "name": "leaves", "time_step": 0.1, "max_time": 20.0, "on_goal": "remove",
        "goal_tolerance": 0.5, "defaults": {"radius": 0.2, "max_speed": 1.0,
                                            "pref_speed": 1.0},
        "agents": [{"name": "a", "start": [0.0, 0.0], "goal": [4.0, 0.0]},
                   {"name": "b", "start": [0.0, 3.0], "goal": [8.0, 3.0]}]})
    result = World(scenario, WorldOptions()).run()
    track = np.asarray(result.trajectory)[:, 0, :]
    last = np.flatnonzero(np.isfinite(track[:, 0]))[-1]
    assert np.isnan(track[last + 1:]).all() and last < len(track) - 1  # b drives on
    assert np.linalg.norm(track[last] - (4.0, 0.0)) <= 0.5
    assert np.linalg.norm(track[last - 1] - (4.0, 0.0)) > 0.5  # the step before: short
    quality = result.motion_quality["a"]
    assert quality.arrived and quality.spl > 0.9
