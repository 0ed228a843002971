"""Scenario loading: the public format, and clear rejection of impossible files."""

import pathlib

import numpy as np
import pytest
import yaml

from orca_ros.core.scenario.loader import (ScenarioError, builtin_scenario_dir, load_scenario,
                                           parse_scenario, public_scenario_dir,
                                           resolve_scenario)

BASE = {
    "name": "t", "time_step": 0.1, "max_time": 10.0, "on_goal": "stay",
    "defaults": {"radius": 0.3, "max_speed": 1.0},
    "agents": [{"name": "a", "start": [0, 0], "goal": [5, 0]},
               {"name": "b", "start": [0, 2], "goal": [5, 2]}],
    "obstacles": [{"vertices": [[2, 4], [3, 4], [3, 5], [2, 5]]}],
}


def write(tmp_path, data, name="case.yaml") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def variant(**changes):
    data = yaml.safe_load(yaml.safe_dump(BASE))
    for key, value in changes.items():
        data[key] = value
    return data


def test_valid_file_loads_with_defaults_waypoints_and_tolerances(tmp_path):
    data = variant()
    data["agents"][0]["waypoints"] = [[2, 1], [5, 0]]
    data["agents"][1]["radius"] = 0.2
    scenario = load_scenario(write(tmp_path, data))
    a, b = scenario.agents
    assert a.waypoints == ((2.0, 1.0), (5.0, 0.0))
    assert b.waypoints == ((5.0, 2.0),)
    assert (a.radius, b.radius, a.pref_speed) == (0.3, 0.2, 1.0)
    assert scenario.goal_tolerance_of(b) == 0.2  # absent tolerance = the agent's radius
    assert a.reference_length == pytest.approx(5 ** 0.5 + 10 ** 0.5)  # (0,0)-(2,1)-(5,0)


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: d.update(colour="red"), r"case.yaml: unknown top-level key\(s\) \['colour'\]"),
    (lambda d: d["agents"][0].update(speed=2), r"agent 'a': unknown key\(s\) \['speed'\]"),
    (lambda d: d["agents"][1].update(radius=-0.1), r"agent 'b': radius must be positive"),
    (lambda d: d["agents"][0].update(max_speed=0), r"agent 'a': max_speed must be positive"),
    (lambda d: d["agents"][1].update(start=[0.1, 0.1]), r"agent 'b': start overlaps agent 'a'"),
    (lambda d: d["agents"][1].update(start=[2.5, 4.5]), r"agent 'b': start .* obstacle #0"),
    (lambda d: d["agents"][1].update(name="a"), r"agent names must be unique"),
    (lambda d: d["agents"][0].pop("goal"), r"agent 'a': missing 'goal'"),
    (lambda d: d["agents"][0].update(start=[float("nan"), 0]), r"agent 'a': start must be finite"),
    (lambda d: d.update(on_goal="vanish"), r"on_goal must be 'stay' or 'remove'"),
    (lambda d: d["defaults"].update(radiuss=1), r"defaults: unknown key"),
    (lambda d: d["obstacles"].append({"vertices": [[0, 9], [0, 9], [1, 9]]}), r"obstacle #1"),
])
def test_impossible_files_are_rejected_naming_file_agent_and_field(tmp_path, mutate, expected):
    data = variant()
    mutate(data)
    with pytest.raises(ScenarioError, match=expected):
        load_scenario(write(tmp_path, data))


def test_unreadable_and_malformed_files_are_reported(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("agents: [unclosed\n")
    with pytest.raises(ScenarioError, match="bad.yaml: not valid YAML"):
        load_scenario(bad)


def test_builtin_scenarios_load_and_resolve_by_name():
    names = sorted(p.stem for p in builtin_scenario_dir().glob("*.yaml"))
    assert {"circle_swap_8", "corridor_wall", "crossing_4", "toio_ring_swap_6"} <= set(names)
    for name in names:
        assert load_scenario(resolve_scenario(name)).name == name
    with pytest.raises(ScenarioError, match="no built-in or public scenario"):
        resolve_scenario("no_such_scenario")


def test_shipped_public_scenarios_load_resolve_by_name_and_say_where_they_came_from():
    folder = public_scenario_dir()
    files = sorted(folder.rglob("*.yaml"))
    assert {p.stem for p in files} >= {"rvo2_circle", "rvo2_blocks", "menge_circle",
                                       "crowdnav_circle_crossing_5h_case0",
                                       "crowdnav_square_crossing_5h_case0"}
    assert len(list((folder / "cocoon").glob("*.yaml"))) >= 5
    assert not [p for p in files if "steersuite" in p.name]  # GPL-3.0: never shipped
    notice = (folder / "NOTICE.md").read_text(encoding="utf-8")
    for path in files:
        scenario = load_scenario(path)
        assert scenario.name == path.stem
        assert resolve_scenario(path.stem) == path
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert raw["source"]
        if path.parent == folder:  # each third-party scene is in NOTICE.md
            assert f"`{path.name}`" in notice


def test_every_public_scenario_loads(shared_dir):
    files = sorted((shared_dir / "scenarios").rglob("*.yaml"))
    assert len(files) >= 25
    for path in files:
        scenario = load_scenario(path)
        assert scenario.name == path.stem
        assert all(a.radius > 0 and a.max_speed > 0 for a in scenario.agents)


@pytest.mark.parametrize("variant", ["stream", "cross", "converge"])
def test_block_crowds_are_valid_dense_and_share_their_goals(variant):
    from orca_ros.core.scenario.builders import block_crowd_scenario

    data = block_crowd_scenario(variant, agents=100, seed=1)
    scenario = parse_scenario(data, variant)  # refuses overlapping starts and starts in blocks
    assert len(scenario.agents) == 100 and len(scenario.obstacles) == 9
    goals = {agent.goal for agent in scenario.agents}
    assert len(goals) <= 4  # many agents per goal
    starts = np.array([agent.start for agent in scenario.agents])
    gaps = np.linalg.norm(starts[:, None] - starts[None], axis=-1) + np.eye(100) * 1e9
    assert gaps.min() > 2 * 0.5  # apart, and dense: neighbours about 1.25 m apart
    assert np.median(gaps.min(axis=1)) < 1.5
    assert block_crowd_scenario(variant, seed=1) == data  # reproducible from the seed
    with pytest.raises(ValueError, match="variant"):
        block_crowd_scenario("spiral")


def test_an_agent_may_say_where_it_faces_at_the_start():
    from orca_ros.core.sim.world import World, WorldOptions

    data = dict(BASE, agents=[{"name": "a", "start": [0, 0], "goal": [5, 0], "heading": 2.5},
                              {"name": "b", "start": [0, 3], "goal": [0, 8]}])
    scenario = parse_scenario(data)
    world = World(scenario, WorldOptions(kinematics="diff_drive"))
    assert world.headings[0] == pytest.approx(2.5)            # as given
    assert world.headings[1] == pytest.approx(np.pi / 2)      # facing its first waypoint
    bad = dict(BASE, agents=[{"name": "a", "start": [0, 0], "goal": [5, 0], "heading": "nan"}])
    with pytest.raises(ScenarioError, match="agent 'a'.*heading"):
        parse_scenario(bad)


# The collection ring mat spans 45..455 mat units of 1.3625 mm: x 0.0613..0.6199 m,
# y -0.6199..-0.0613 m in the world frame.
ON_RING_MAT = dict(BASE, obstacles=[], toio={"mat": "collection_ring", "mm_per_unit": 1.3625},
                   defaults={"radius": 0.023, "max_speed": 0.12})


def test_a_toio_mats_edges_are_walls_counted_like_obstacles():
    from orca_ros.core.sim.metrics import FleetRecord
    from orca_ros.core.sim.world import World

    data = dict(ON_RING_MAT, agents=[{"name": "cube", "start": [0.3, -0.3], "goal": [0.4, -0.3]}])
    scenario = parse_scenario(data)
    assert len(scenario.mat_edges) == 4
    xs = [p[0] for edge in scenario.mat_edges for p in (edge.a, edge.b)]
    assert (min(xs), max(xs)) == pytest.approx((45 * 1.3625e-3, 455 * 1.3625e-3))
    assert len(World(scenario).edges) == 8          # each edge a two-sided segment, as RVO2's
    record = FleetRecord(scenario, np.array([[0.3, -0.3]]))
    record.record(0.1, np.array([[0.0613 + 0.013, -0.3]]))  # 10 mm over the left edge
    assert len(record.ledger.pairs) == 1
    assert record.ledger.deepest == pytest.approx(0.010, abs=2e-4)
    assert parse_scenario(dict(BASE, agents=data["agents"])).mat_edges == ()  # no mat, no edges



def test_the_independent_observer_counts_contact_with_a_toio_mats_edge():
    # The observer judges from its own geometry (orca_ros.testing.audit), not the world's.
    from orca_ros.testing.audit import overlaps_at_stamp
    from orca_ros.testing.observer import audit_for

    data = dict(ON_RING_MAT, agents=[{"name": "cube", "start": [0.3, -0.3], "goal": [0.4, -0.3]}])
    audit = audit_for(parse_scenario(data))
    clear = overlaps_at_stamp({"cube": (0.3, -0.3)}, audit.radii, audit.polygons)
    assert clear.contacts == []
    over = overlaps_at_stamp({"cube": (0.0613 + 0.013, -0.3)}, audit.radii, audit.polygons)
    assert len(over.contacts) == 1 and over.contacts[0][2] == pytest.approx(0.010, abs=2e-4)


@pytest.mark.parametrize("field, point", [("start", [0.07, -0.3]), ("goal", [0.4, -0.05]),
                                           ("goal", [0.4, -0.63])])
def test_a_start_or_goal_off_the_mat_or_within_a_radius_of_its_edge_is_refused(field, point):
    agent = {"name": "cube", "start": [0.3, -0.3], "goal": [0.4, -0.3]}
    agent[field] = point
    with pytest.raises(ScenarioError, match=f"agent 'cube'.*{field}.*mat's edge"):
        parse_scenario(dict(ON_RING_MAT, agents=[agent]))


# --- dimensions: 3 (aerial robots) --------------------------------------------------------

BASE_3D = {
    "name": "t3", "dimensions": 3, "time_step": 0.1, "max_time": 10.0,
    "defaults": {"radius": 0.3, "max_speed": 1.0},
    "agents": [{"name": "a", "start": [0, 0, 1], "goal": [5, 0, 1]},
               {"name": "b", "start": [0, 0, 2], "goal": [5, 0, 3], "waypoints": [[2, 0, 3]]}],
}


def variant_3d(**changes):
    data = yaml.safe_load(yaml.safe_dump(BASE_3D))
    data.update(changes)
    return data


def test_3d_file_loads_with_three_component_points(tmp_path):
    scenario = load_scenario(write(tmp_path, variant_3d()))
    a, b = scenario.agents
    assert scenario.dimensions == 3
    assert (a.start, a.goal) == ((0.0, 0.0, 1.0), (5.0, 0.0, 1.0))
    assert b.waypoints == ((2.0, 0.0, 3.0), (5.0, 0.0, 3.0))
    assert b.reference_length == pytest.approx(5 ** 0.5 + 3.0)
    assert load_scenario(write(tmp_path, variant())).dimensions == 2  # the default


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: d["agents"][0].update(start=[0, 0]),
     r"case.yaml: agent 'a': start must be three numbers \(x, y, z\)"),
    (lambda d: d["agents"][1].update(goal=[1, 2, float("nan")]),
     r"agent 'b': goal must be finite"),
    (lambda d: d["agents"][1].update(waypoints=[[1, 2]]), r"agent 'b': waypoints\[0\] must be"),
    (lambda d: d["agents"][1].update(start=[0, 0, 1.5]), r"agent 'b': start overlaps agent 'a'"),
    (lambda d: d.update(dimensions=4), r"case.yaml: dimensions must be 2 or 3, got 4"),
    (lambda d: d.update(dimensions=True), r"dimensions must be 2 or 3"),
    (lambda d: d.update(obstacles=[{"vertices": [[2, 4], [3, 4], [3, 5]]}]),
     r"'obstacles': a 3D scenario \(dimensions: 3\) has none"),
    (lambda d: d.update(links=[{"agents": ["a", "b"], "max_length": 3.0}]),
     r"'links': a 3D scenario"),
    (lambda d: d.update(toio={"mat": "collection_ring"}), r"'toio': a 3D scenario"),
    (lambda d: d["agents"][0].update(heading=1.0), r"agent 'a': heading: a 3D scenario"),
    (lambda d: d["defaults"].update(time_horizon_obst=2.0), r"defaults: time_horizon_obst"),
])
def test_malformed_3d_files_are_rejected_naming_file_agent_and_field(tmp_path, mutate, expected):
    data = variant_3d()
    mutate(data)
    with pytest.raises(ScenarioError, match=expected):
        load_scenario(write(tmp_path, data))


def test_a_2d_file_with_3d_points_says_how_to_make_it_3d(tmp_path):
    data = variant()
    data["agents"][0]["start"] = [0, 0, 1]
    with pytest.raises(ScenarioError, match=r"agent 'a': start .*says dimensions: 3"):
        load_scenario(write(tmp_path, data))


def test_3d_starts_apart_in_height_do_not_overlap(tmp_path):
    data = variant_3d()
    data["agents"][1]["start"] = [0, 0, 1.61]  # same x, y as a; 0.61 m above it
    assert len(load_scenario(write(tmp_path, data)).agents) == 2


@pytest.mark.parametrize("name", ["octahedron_swap_3d", "two_layers_crossing_3d",
                                  "sphere_swap_3d"])
def test_builtin_3d_scenarios_load(name):
    scenario = load_scenario(resolve_scenario(name))
    assert scenario.dimensions == 3 and not scenario.obstacles
    assert all(len(a.start) == 3 and len(a.goal) == 3 for a in scenario.agents)
