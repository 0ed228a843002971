"""The 3D world (aerial robots): arrivals and zero contact on our 3D scenarios, exact
collision accounting in 3D, the reference library in the same world, and what a 3D
scenario refuses."""

import json
import math
import random

import numpy as np
import pytest

from orca_ros.core.robot.aerial import AerialController, Neighbor3D
from orca_ros.core.sim.metrics import CollisionLedger
from orca_ros.core.orca.orca3d import compute_new_velocity_3d
from orca_ros.core.scenario.loader import load_scenario, parse_scenario, resolve_scenario
from orca_ros.core.geometry.types import AgentState3D, NeighborState3D
from orca_ros.core.sim.world import World, WorldOptions
from orca_ros.core.sim.world3d import World3D, create_world

from helpers.bench_fields import MOTION_FIELDS  # noqa: E402

SCENARIOS_3D = ["octahedron_swap_3d", "two_layers_crossing_3d", "sphere_swap_3d"]


def scenario_3d(name):
    return load_scenario(resolve_scenario(name))


@pytest.mark.parametrize("name", SCENARIOS_3D)
def test_our_3d_scenarios_arrive_without_contact(name):
    scenario = scenario_3d(name)
    result = create_world(scenario, WorldOptions()).run()
    assert result.collisions == 0, result.collision_pairs
    assert result.reached == len(scenario.agents)
    assert result.min_separation >= 0.0
    assert result.trajectory.shape[1:] == (len(scenario.agents), 3)


@pytest.mark.parametrize("name", ["two_layers_crossing_3d", "sphere_swap_3d"])
def test_without_avoidance_the_same_scenarios_collide(name):
    """The accounting sees 3D contact: flying straight, robots meet."""
    result = World3D(scenario_3d(name), WorldOptions(method="direct")).run()
    assert result.collisions > 0
    assert result.min_separation < 0.0


def test_collision_ledger_measures_in_3d():
    ledger = CollisionLedger()
    positions = np.array([[0.0, 0.0, 0.0],     # a
                          [0.0, 0.0, 0.5],     # b: above a, overlapping (0.5 < 0.6)
                          [3.0, 0.0, 0.0],     # c
                          [3.0, 0.0, 0.7]])    # d: above c, clear only in z
    ledger.update(positions, np.full(4, 0.3), ["a", "b", "c", "d"], [])
    assert ledger.pairs == {("a", "b")}
    assert ledger.deepest == pytest.approx(0.1)
    assert ledger.points == [(0.0, 0.0, 0.25)]


def test_the_strict_world_step_is_compute_new_velocity_3d():
    """One step of orca_strict in the world gives each agent RVO2-3D's velocity for
    the same state (the world's neighbour lists follow the same rule)."""
    scenario = scenario_3d("sphere_swap_3d")
    world = World3D(scenario, WorldOptions(method="orca_strict"))
    for _ in range(40):  # into the crowd
        world.step()
    before_p, before_v = world.positions.copy(), world.velocities.copy()
    prefs = [c.preferred_velocity(tuple(p)) for c, p in zip(world.controllers, before_p)]
    for c in world.controllers:  # preferred_velocity keeps state: reset it for the step
        c._last_position = None
    world.step()
    for i, agent in enumerate(scenario.agents):
        me = AgentState3D(before_p[i], before_v[i], agent.radius, agent.max_speed, prefs[i],
                          agent.time_horizon, agent.neighbor_dist, agent.max_neighbors)
        others = [NeighborState3D(before_p[j], before_v[j], scenario.agents[j].radius)
                  for j in range(len(scenario.agents)) if j != i]
        expected = compute_new_velocity_3d(me, others, scenario.time_step).velocity
        assert np.allclose(world.velocities[i], expected, atol=1e-12), i


def random_swap_3d(count=24, seed=1):
    """``count`` robots at random in a 8 m cube fly to the opposite points: a crowd with
    no symmetry (in symmetric scenes, ties and rounding pick different sides)."""
    rng = random.Random(seed)
    agents = []
    while len(agents) < count:
        start = [rng.uniform(-4.0, 4.0) for _ in range(3)]
        if all(math.dist(start, other["start"]) > 1.0 for other in agents):
            agents.append({"name": f"a{len(agents)}", "start": start,
                           "goal": [-c for c in start]})
    return parse_scenario({
        "name": "random_swap_3d", "dimensions": 3, "time_step": 0.1, "max_time": 30.0,
        "defaults": {"radius": 0.3, "max_speed": 1.5, "pref_speed": 1.0, "neighbor_dist": 5.0,
                     "max_neighbors": 6, "time_horizon": 2.0},
        "agents": agents})


def test_strict_world_follows_the_rvo2_3d_library_step_by_step():
    pytest.importorskip("rvo23d", reason="rvo23d (RVO2-3D bindings, jt-pyrvo23d) not installed")
    scenario = random_swap_3d()
    ours = World3D(scenario, WorldOptions(method="orca_strict"))
    reference = World3D(scenario, WorldOptions(method="rvo2"))
    for _ in range(40):
        ours.step()
        reference.step()
    # float64 against RVO2-3D's float32: equal up to rounding after 4 s in the crowd.
    assert np.abs(ours.positions - reference.positions).max() < 1e-3


def test_strict_rvo2_3d_lets_spheres_overlap_on_the_sphere_swap():
    strict = World3D(scenario_3d("sphere_swap_3d"), WorldOptions(method="orca_strict")).run()
    assert strict.collisions > 0  # RVO2-3D's least-violation fallback lets spheres touch


@pytest.mark.parametrize("options,message", [
    (dict(kinematics="diff_drive"), "holonomic only"),
    (dict(method="hlavoid"), "no 3D version"),
])
def test_a_3d_scenario_refuses_what_it_cannot_run(options, message):
    with pytest.raises(ValueError, match=message):
        World3D(scenario_3d("octahedron_swap_3d"), WorldOptions(**options))


def test_the_supervisor_and_the_2d_world_refuse_a_3d_scenario():
    from orca_ros.tools.scenario_bench import run_scenario

    with pytest.raises(ValueError, match="supervisor is 2D only"):
        run_scenario("octahedron_swap_3d", WorldOptions(), progress=False, supervisor=True)
    with pytest.raises(ValueError, match="dimensions: 3"):
        World(scenario_3d("octahedron_swap_3d"))
    with pytest.raises(ValueError, match="2D"):
        World3D(load_scenario(resolve_scenario("crossing_4")))


def test_bench_runs_a_3d_scenario_with_the_contract_fields_and_a_picture(tmp_path, capsys):
    from orca_ros.tools.cli import main

    out = tmp_path / "bench.json"
    assert main(["bench", "octahedron_swap_3d", "--json", str(out), "--plot", str(tmp_path),
                 "--no-progress"]) == 0
    rows = json.loads(out.read_text())
    assert [set(r) for r in rows] == [{
        "scenario", "method", "kinematics", "agents", "reached", "collisions", "min_separation",
        "makespan", "mean_time_to_goal", "path_length_ratio", "steps", "wall_time_s",
        "compute_us_per_agent_step"} | MOTION_FIELDS]
    assert rows[0]["reached"] == 6 and rows[0]["collisions"] == 0
    assert (tmp_path / "octahedron_swap_3d_orca_holonomic.png").stat().st_size > 20_000
    assert "| octahedron_swap_3d | orca | holonomic | 6/6 | 0 |" in capsys.readouterr().out


def test_bench_refuses_a_3d_scenario_with_diff_drive(capsys):
    from orca_ros.tools.cli import main

    assert main(["bench", "octahedron_swap_3d", "--kinematics", "diff_drive",
                 "--no-progress"]) == 2
    assert "holonomic only" in capsys.readouterr().err


def test_aerial_controller_flies_straight_at_its_goal_when_alone():
    from orca_ros.core.robot.config import ControllerConfig

    controller = AerialController(ControllerConfig(radius=0.3, max_speed=2.0, pref_speed=1.0,
                                                   time_step=0.1, keep_right_deg=0.0),
                                  key="me")
    controller.set_path([(0.0, 0.0, 4.0)])
    command = controller.compute((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), [])
    assert command.velocity == pytest.approx((0.0, 0.0, 1.0))


def test_aerial_controller_safety_half_spaces_hold_a_pair_apart_in_one_step():
    """Two robots 5 cm apart rushing at each other: each keeps to its one-step safety
    half-space, so after the step they have not touched."""
    from orca_ros.core.robot.config import ControllerConfig

    config = ControllerConfig(radius=0.3, max_speed=2.0, pref_speed=2.0, time_step=0.1,
                              keep_right_deg=0.0)
    a, b = AerialController(config, key="a"), AerialController(config, key="b")
    a.set_path([(5.0, 0.0, 0.0)])
    b.set_path([(-5.0, 0.0, 0.0)])
    pa, pb = (0.0, 0.0, 0.0), (0.65, 0.0, 0.0)
    va, vb = (2.0, 0.0, 0.0), (-2.0, 0.0, 0.0)
    ca = a.compute(pa, va, [Neighbor3D(pb, vb, 0.3, "b")])
    cb = b.compute(pb, vb, [Neighbor3D(pa, va, 0.3, "a")])
    after = [tuple(p + v * 0.1 for p, v in zip(pa, ca.velocity)),
             tuple(p + v * 0.1 for p, v in zip(pb, cb.velocity))]
    assert math.dist(*after) >= 0.6 - 1e-9


def test_rvo2_3d_sphere_builder_is_a_valid_scenario_at_the_examples_size():
    from orca_ros.core.scenario.builders import rvo2_3d_sphere_scenario

    scenario = parse_scenario(rvo2_3d_sphere_scenario())
    assert scenario.dimensions == 3 and len(scenario.agents) > 750
    assert all(math.isclose(math.dist(a.start, (0, 0, 0)), 100.0, rel_tol=1e-4)
               for a in scenario.agents)
