"""The toio SDK Navigator's reference scenes as built-in scenarios (orca_ros.toio.scenes).

Expected numbers are worked out here by hand from shared/design/navigator.md
(mat units, degrees clockwise) with x = X s, y = -Y s, yaw = -angle and
s = 1.3625 mm per unit; they are not taken from the generator's output.
"""

import itertools
import math

import numpy as np
import pytest
import yaml

from orca_ros.core.geometry.polygons import (point_polygon_signed_distance,
                                             points_polygon_signed_distance)
from orca_ros.core.scenario.loader import builtin_scenario_dir, load_scenario, resolve_scenario
from orca_ros.toio import scenes

S = 1.3625 / 1000.0          # metres per mat unit
HEADER = "# orca_ros built-in scenario (Apache-2.0). Format: doc/scenario_format.md.\n"

NAMES = ["toio_a_to_target1", "toio_b_wall", "toio_c_intersect_lateral",
         "toio_c_intersect_longitudinal", "toio_d_to_target4", "toio_e_4v4_longitudinal",
         "toio_e_4v4_lateral", "toio_f_rearend", "toio_f_side_collision",
         "toio_boids_tutorial", "toio_cross_4v4", "toio_v_wall"]

_D = [(100, 100, 0), (140, 100, 45), (100, 140, 0), (150, 150, 270)]
# navigator.md's starts (x, y, heading degrees) where it gives them, per scenario.
SDK_STARTS = {
    "toio_b_wall": [(150, 150, 225)],
    "toio_d_to_target4": _D,
    "toio_e_4v4_longitudinal": _D + [(350, 350, 90), (400, 360, 135), (360, 400, 90),
                                     (400, 400, 180)],
    "toio_e_4v4_lateral": _D + [(360, 100, None), (400, 100, None), (350, 150, None),
                                (400, 140, None)],
    "toio_f_rearend": [(150, 200, 30), (180, 200, 0)],
    "toio_f_side_collision": [(100, 215, 350), (100, 185, 10)],
}
# Each cube's SDK target (mat units).
SDK_TARGETS = {
    "toio_a_to_target1": [(250, 250)],
    "toio_b_wall": [(130, 350)],
    "toio_c_intersect_lateral": [(380, 380), (120, 380)],
    "toio_c_intersect_longitudinal": [(400, 400), (100, 100)],
    "toio_d_to_target4": [(350, 350)] * 4,
    "toio_e_4v4_longitudinal": [(380, 380)] * 4 + [(120, 120)] * 4,
    "toio_e_4v4_lateral": [(380, 380)] * 4 + [(120, 380)] * 4,
    "toio_f_rearend": [(400, 150), (400, 250)],
    "toio_f_side_collision": [(350, 200)] * 2,
    "toio_boids_tutorial": [(400, 400)] * 6,
}


def world(x, y):
    return (x * S, -y * S)


def mat(point):
    return (point[0] / S, -point[1] / S)


def same_angle(a, b, tolerance=1e-5):
    return abs(math.remainder(a - b, 2.0 * math.pi)) < tolerance


def load(name):
    return load_scenario(resolve_scenario(name))


def raw(name):
    return yaml.safe_load((builtin_scenario_dir() / f"{name}.yaml").read_text(encoding="utf-8"))


def shoelace(vertices):
    return 0.5 * sum(x0 * y1 - x1 * y0
                     for (x0, y0), (x1, y1) in zip(vertices, vertices[1:] + vertices[:1]))


def segments_cross(p1, p2, q1, q2):
    def side(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (side(p1, p2, q1) * side(p1, p2, q2) < 0.0
            and side(q1, q2, p1) * side(q1, q2, p2) < 0.0)


def crosses_polygon(a, b, polygon, samples=2000):
    line = np.linspace(a, b, samples)
    return bool((points_polygon_signed_distance(line, polygon) < 0.0).any())


def shared_groups(name):
    """Indices of agents that share an SDK target, with that target, for groups of 2+."""
    groups = {}
    for i, target in enumerate(SDK_TARGETS[name]):
        groups.setdefault(target, []).append(i)
    return [(target, members) for target, members in groups.items() if len(members) > 1]


@pytest.mark.parametrize("name", NAMES)
def test_every_scene_is_a_builtin_scenario_that_loads(name):
    path = resolve_scenario(name)
    assert path.parent == builtin_scenario_dir()
    assert path.read_text(encoding="utf-8").startswith(HEADER)
    scenario = load_scenario(path)
    assert scenario.name == name
    assert (scenario.time_step, scenario.max_time, scenario.on_goal,
            scenario.goal_tolerance) == (0.05, 60.0, "stay", 0.01)
    assert scenario.toio == {"mat": "collection_ring", "mm_per_unit": 1.3625}
    agent = scenario.agents[0]
    assert (agent.pref_speed, agent.neighbor_dist, agent.max_neighbors, agent.time_horizon,
            agent.time_horizon_obst) == (0.1, 0.3, 10, 2.0, 1.0)
    expected_radius = {"toio_cross_4v4": 0.0225, "toio_f_rearend": 0.020,
                       "toio_f_side_collision": 0.020}.get(name, 0.023)
    assert all(a.radius == expected_radius for a in scenario.agents)
    assert all(a.max_speed == (0.15 if name == "toio_cross_4v4" else 0.12)
               for a in scenario.agents)
    if name in SDK_TARGETS:
        assert "toio SDK for Unity" in scenario.description
        assert "morikatron/toio-sdk-for-unity" in scenario.source
        assert len(scenario.agents) == len(SDK_TARGETS[name])
    else:
        assert scenario.source == "orca_ros"
    assert set(scenes.SCENES) == set(NAMES)


def test_committed_files_agree_with_the_generator(tmp_path):
    assert scenes.stale_files(builtin_scenario_dir()) == [], \
        "regenerate: python -m orca_ros.toio.scenes --write orca_ros/scenarios"
    for name in NAMES:
        mapping = scenes.scenario_mapping(scenes.SCENES[name])
        assert raw(name) == yaml.safe_load(yaml.safe_dump(mapping))
    assert scenes.main(["--check", str(builtin_scenario_dir())]) == 0
    assert scenes.main(["--write", str(tmp_path)]) == 0
    (tmp_path / "toio_b_wall.yaml").write_text(
        (tmp_path / "toio_b_wall.yaml").read_text().replace("0.204375", "0.2044"))
    assert scenes.stale_files(tmp_path) == ["toio_b_wall"]
    assert scenes.main(["--check", str(tmp_path)]) == 1


def test_hand_computed_conversions():
    a = load("toio_a_to_target1").agents[0]
    assert a.goal == pytest.approx((0.340625, -0.340625), abs=1e-9)       # mat (250, 250)
    assert a.start == pytest.approx((0.13625, -0.095375), abs=1e-9)       # home 0, (100, 70)
    assert same_angle(a.heading, -math.pi / 2)                            # 90 degrees cw
    b = load("toio_b_wall").agents[0]
    assert b.start == pytest.approx((0.204375, -0.204375), abs=1e-9)      # (150, 150)
    assert b.heading == pytest.approx(2.356194, abs=1e-6)                 # 225 cw = +135 ccw
    assert b.goal == pytest.approx((0.177125, -0.476875), abs=1e-9)       # (130, 350)
    lateral = load("toio_c_intersect_lateral").agents
    assert lateral[1].start == pytest.approx((0.545, -0.095375), abs=1e-9)  # home 3 (400, 70)
    assert same_angle(lateral[1].heading, math.radians(-130))
    longitudinal = load("toio_c_intersect_longitudinal").agents
    assert longitudinal[1].start == pytest.approx((0.545, -0.585875), abs=1e-9)  # (400, 430)
    assert same_angle(longitudinal[1].heading, math.radians(135))         # 225 cw
    assert same_angle(load("toio_e_4v4_longitudinal").agents[7].heading, math.pi)
    assert same_angle(load("toio_f_side_collision").agents[0].heading, math.radians(10))


@pytest.mark.parametrize("name", sorted(SDK_STARTS))
def test_sdk_starts_and_headings_are_kept(name):
    agents = load(name).agents
    assert len(agents) == len(SDK_STARTS[name])
    for agent, (x, y, heading) in zip(agents, SDK_STARTS[name]):
        assert agent.start == pytest.approx(world(x, y), abs=1e-6)
        if heading is not None:
            assert same_angle(agent.heading, -math.radians(heading))


@pytest.mark.parametrize("name", sorted(SDK_TARGETS))
def test_single_targets_are_goals_and_shared_ones_become_a_ring_around_them(name):
    scenario = load(name)
    radius = scenario.agents[0].radius
    shared = {i for _, members in shared_groups(name) for i in members}
    for i, target in enumerate(SDK_TARGETS[name]):
        if i not in shared:
            assert scenario.agents[i].goal == pytest.approx(world(*target), abs=1e-6)
    for target, members in shared_groups(name):
        centre = np.array(world(*target))
        goals = np.array([scenario.agents[i].goal for i in members])
        ring_centre = goals.mean(axis=0)
        distances = np.linalg.norm(goals - ring_centre, axis=1)
        assert np.ptp(distances) < 1e-5                       # all on one circle
        n = len(members)
        assert distances[0] == pytest.approx((2 * radius + 0.050) / (2 * math.sin(math.pi / n)),
                                             abs=1e-5)
        if math.dist(ring_centre, centre) > 2e-6:
            # moved off the SDK target only as far as needed to park 50 mm from the mat's edge
            s, inset = 1.3625e-3, radius + 0.050
            low, high = np.array([45 * s + inset, -455 * s + inset]), \
                np.array([455 * s - inset, -45 * s - inset])
            assert (goals >= low - 1e-6).all() and (goals <= high + 1e-6).all()
            for axis in (0, 1):  # along each axis it moved, it stops at the first goal's bound
                if abs(ring_centre[axis] - centre[axis]) > 1e-6:
                    assert np.isclose(goals[:, axis], low[axis], atol=1e-6).any() or \
                        np.isclose(goals[:, axis], high[axis], atol=1e-6).any()
        gaps = [math.dist(p, q) for p, q in itertools.combinations(goals, 2)]
        assert min(gaps) == pytest.approx(2 * radius + 0.050, abs=1e-5)
        starts = [scenario.agents[i].start for i in members]
        for (s1, g1), (s2, g2) in itertools.combinations(zip(starts, goals), 2):
            assert not segments_cross(s1, g1, s2, g2)


@pytest.mark.parametrize("name", sorted(n for n in SDK_TARGETS if shared_groups(n)))
def test_parked_cubes_of_a_shared_target_stand_outside_each_others_orca_margin(name):
    # Closer, ORCA sees two parked cubes overlap and pushes them apart: the goal dance.
    from orca_ros.core.robot.config import ControllerConfig
    from orca_ros.core.sim.world import CUBE_CONTROLLER

    scenario = load(name)
    for _, members in shared_groups(name):
        for i, j in itertools.combinations(members, 2):
            a, b = scenario.agents[i], scenario.agents[j]
            margins = [ControllerConfig(radius=agent.radius, max_speed=agent.max_speed,
                                        pref_speed=agent.pref_speed, time_step=scenario.time_step,
                                        **CUBE_CONTROLLER).avoidance_radius(agent.radius)
                       - agent.radius for agent in (a, b)]
            gap = math.dist(a.goal, b.goal) - a.radius - b.radius
            assert gap >= sum(margins) + 0.005, (a.name, b.name, gap, margins)


def test_the_shared_target_rule_on_a_case_worked_by_hand():
    # Two cubes side by side, approaching (350, 200) from -x: goals above and below it,
    # spacing / 2 away, the upper start (larger y) taking the upper goal.
    goals = scenes.shared_target_goals([(100, 215), (100, 185)], (350, 200), 40.0)
    assert goals[0] == pytest.approx((350, 220), abs=1e-9)
    assert goals[1] == pytest.approx((350, 180), abs=1e-9)
    # Four cubes: a square of side 40 around the target, turned 45 degrees from the approach.
    goals = scenes.shared_target_goals([(0, 0), (10, 0), (0, 10), (10, 10)], (100, 100), 40.0)
    r = 40.0 / math.sqrt(2.0)
    assert sorted(np.round(goals, 9).tolist()) == sorted(np.round(
        [(100 - r, 100), (100, 100 - r), (100 + r, 100), (100, 100 + r)], 9).tolist())
    assert scenes.shared_target_goals([(5, 5)], (7, 8), 40.0) == [(7, 8)]


@pytest.mark.parametrize("name", NAMES)
def test_starts_and_goals_lie_on_the_ring_mat_and_goals_are_apart(name):
    scenario = load(name)
    for agent in scenario.agents:
        for point in (agent.start, agent.goal):
            x, y = mat(point)
            assert 45.0 <= x <= 455.0 and 45.0 <= y <= 455.0, (agent.name, x, y)
    for a, b in itertools.combinations(scenario.agents, 2):
        assert math.dist(a.goal, b.goal) >= a.radius + b.radius
        assert math.dist(a.start, b.start) >= a.radius + b.radius


@pytest.mark.parametrize("name", ["toio_b_wall", "toio_v_wall"])
def test_walls_are_counter_clockwise_convex_polygons(name):
    obstacles = raw(name)["obstacles"]
    assert len(obstacles) == 2
    for obstacle in obstacles:
        vertices = [tuple(v) for v in obstacle["vertices"]]
        assert shoelace(vertices) > 0.0
        for a, b, c in zip(vertices, vertices[1:] + vertices[:1], vertices[2:] + vertices[:2]):
            assert (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) > 0.0


def test_b_wall_walls_follow_the_sdk_segments_with_its_margin():
    scenario = load("toio_b_wall")
    upper, lower = (p.vertices for p in scenario.obstacles)
    # The segments' middle points lie 10 units (the SDK margin) inside the polygons.
    assert point_polygon_signed_distance(world(75, 200), upper) == pytest.approx(-10 * S, abs=1e-5)
    assert point_polygon_signed_distance(world(75, 275), lower) == pytest.approx(-10 * S, abs=1e-5)
    for end in (world(0, 150), world(150, 250)):
        assert point_polygon_signed_distance(end, upper) <= 1e-6
    for end in (world(0, 300), world(150, 250)):
        assert point_polygon_signed_distance(end, lower) <= 1e-6
    # The joint does not reach further than the margin past the corner.
    assert point_polygon_signed_distance(world(160.5, 250), upper) > 0.0
    assert point_polygon_signed_distance(world(160.5, 250), lower) > 0.0
    agent = scenario.agents[0]
    assert any(crosses_polygon(agent.start, agent.goal, p) for p in (upper, lower))


def test_v_wall_start_is_45_mm_from_one_arm_and_the_straight_line_crosses_the_wall():
    scenario = load("toio_v_wall")
    agent = scenario.agents[0]
    polygons = [p.vertices for p in scenario.obstacles]
    clearances = [point_polygon_signed_distance(agent.start, p) for p in polygons]
    assert min(clearances) == pytest.approx(0.045, abs=0.001)
    near = int(np.argmin(clearances))
    goal_clearances = [point_polygon_signed_distance(agent.goal, p) for p in polygons]
    assert int(np.argmin(goal_clearances)) != near          # the goal is behind the other arm
    assert min(goal_clearances) > agent.radius
    assert any(crosses_polygon(agent.start, agent.goal, p) for p in polygons)
    # The cube faces along the arm it starts beside (into the wall or along it).
    heading = (math.cos(agent.heading), math.sin(agent.heading))
    arm = np.array(polygons[near])
    edges = np.roll(arm, -1, axis=0) - arm
    longest = edges[np.argmax(np.linalg.norm(edges, axis=1))]
    longest = longest / np.linalg.norm(longest)
    assert abs(heading[0] * longest[1] - heading[1] * longest[0]) < 1e-3


def test_v_wall_arm_thickness():
    polygons = [p.vertices for p in load("toio_v_wall").obstacles]
    # Middle of the arms (330, 250)-(170, 90) and (330, 250)-(170, 410): 2 units inside.
    assert point_polygon_signed_distance(world(250, 170), polygons[0]) == \
        pytest.approx(-2 * S, abs=1e-6)
    assert point_polygon_signed_distance(world(250, 330), polygons[1]) == \
        pytest.approx(-2 * S, abs=1e-6)


def test_cross_4v4_two_blocks_cross_to_goals_54_mm_apart():
    agents = load("toio_cross_4v4").agents
    assert len(agents) == 8
    group_a, group_b = agents[:4], agents[4:]
    for agent in group_a:
        x, y = mat(agent.start)
        assert 100 <= x <= 180 and 320 <= y <= 400            # lower left
        gx, gy = mat(agent.goal)
        assert gx > 300 and gy < 200                          # upper right
    for agent in group_b:
        x, y = mat(agent.start)
        assert x < 200 and y < 200                            # upper left
        gx, gy = mat(agent.goal)
        assert gx > 300 and gy > 300                          # lower right
    for group in (group_a, group_b):
        goals = [a.goal for a in group]
        nearest = [min(math.dist(g, h) for h in goals if h is not g) for g in goals]
        assert nearest == pytest.approx([0.054] * 4, abs=1e-6)
        for a, b in itertools.combinations(group, 2):
            assert not segments_cross(a.start, a.goal, b.start, b.goal)
    assert any(segments_cross(a.start, a.goal, b.start, b.goal)
               for a in group_a for b in group_b)             # the streams cross


def test_sdk_checks_in_metres():
    checks = scenes.SDK_CHECKS
    assert checks["toio_a_to_target1"] == pytest.approx((2.5, "error", 0.013625))
    assert checks["toio_d_to_target4"][:2] == (4.0, "centroid_error")
    assert checks["toio_d_to_target4"][2] == pytest.approx(0.0545)
    for name in ("toio_e_4v4_longitudinal", "toio_e_4v4_lateral"):
        assert checks[name][:2] == (5.5, "centroid_error")
        assert checks[name][2] == pytest.approx(0.08175)
    assert "toio_boids_tutorial" not in checks
    assert "toio_cross_4v4" not in checks and "toio_v_wall" not in checks
    for name, (time_s, _, threshold) in checks.items():
        description = load(name).description
        assert "D_Navigator.cs" in description and "SDK check" in description
        assert f"{time_s:g} s" in description
        assert f"{threshold / S:g} units" in description
