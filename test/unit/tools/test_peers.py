"""navground on our scenes (orca_ros/tools/peers.py): the same robots, driven home by its
behaviours; and its column beside ours in orca-ros bench-scaling."""

import numpy as np
import pytest

from orca_ros.core.scenario.loader import parse_scenario

pytest.importorskip("navground", reason="navground not installed (pip install .[peers])")

SWAP = {"name": "swap_4", "time_step": 0.1, "max_time": 30.0, "goal_tolerance": 0.2,
        "defaults": {"radius": 0.3, "max_speed": 1.2, "pref_speed": 1.0,
                     "neighbor_dist": 5.0, "time_horizon": 2.0},
        "agents": [{"name": "a", "start": [-3.0, 0.0], "goal": [3.0, 0.0]},
                   {"name": "b", "start": [3.0, 0.1], "goal": [-3.0, 0.1]},
                   {"name": "c", "start": [0.0, -3.0], "goal": [0.0, 3.0],
                    "waypoints": [[0.5, -1.0]]},
                   {"name": "d", "start": [0.1, 3.0], "goal": [0.1, -3.0], "radius": 0.4}]}


@pytest.mark.parametrize("behavior", ["orca", "hrvo", "hl"])
def test_a_navground_world_holds_our_robots_and_drives_them_home(behavior):
    from orca_ros.tools.peers import navground_world

    scenario = parse_scenario(SWAP)
    world = navground_world(scenario, behavior)
    assert [a.radius for a in world.agents] == pytest.approx([0.3, 0.3, 0.3, 0.4])
    assert np.allclose([a.position for a in world.agents], [a.start for a in scenario.agents])
    world.run(300, scenario.time_step)  # 30 s: each has 6 m to go at 1 m/s
    for robot, agent in zip(world.agents, scenario.agents):
        assert np.linalg.norm(robot.position - np.array(agent.goal)) < 0.3, agent.name
        assert np.linalg.norm(robot.velocity) <= 1.2 + 1e-6


def test_bench_scaling_prints_navgrounds_orca_beside_ours(capsys, monkeypatch):
    from orca_ros.tools import peers
    from orca_ros.tools.cli import main

    assert main(["bench-scaling", "--agents", "20", "--steps", "2"]) == 0
    rows = [line.split("|") for line in capsys.readouterr().out.splitlines()[2:]]
    assert [row[2].strip() for row in rows] == ["orca", "orca_strict"]
    assert all(float(row[6]) > 0.0 and row[7].strip().endswith("x") for row in rows)
    monkeypatch.setattr(peers, "navground_modules", lambda: None)  # not installed
    assert main(["bench-scaling", "--agents", "20", "--steps", "2"]) == 0
    assert "| n/a | n/a |" in capsys.readouterr().out


def test_navgrounds_orca_call_steers_as_ours_does_on_the_same_case():
    """bench-step's navground column times a real decision: alone it keeps the preferred
    velocity; against a robot head-on it turns aside, to the same side as ours."""
    from orca_ros.core import AgentState, NeighborState, compute_new_velocity
    from orca_ros.tools.peers import navground_orca_call

    agent = AgentState(position=(0.0, 0.0), velocity=(1.0, 0.0), radius=0.3, max_speed=1.5,
                       pref_velocity=(1.2, 0.0), time_horizon=2.0, time_horizon_obst=2.0,
                       neighbor_dist=10.0, max_neighbors=10)
    assert np.allclose(navground_orca_call(agent, [], [])().velocity, [1.2, 0.0])
    head_on = [NeighborState((2.0, 0.05), (-1.0, 0.0), 0.3)]
    theirs = navground_orca_call(agent, head_on, [])().velocity
    ours = compute_new_velocity(agent, head_on, [], 0.1).velocity
    assert abs(theirs[1]) > 0.1 and np.sign(theirs[1]) == np.sign(ours[1])


def test_the_step_table_has_navgrounds_column():
    from orca_ros.tools.timing import format_step_table, step_benchmark

    results = step_benchmark(neighbor_counts=(5,), cases=2, repeats=3)
    assert results[0].navground_median_us is not None and results[0].navground_median_us > 0
    header, _, row = format_step_table(results).splitlines()
    assert "| navground ORCA median µs | ratio |" in header
    assert f"| {results[0].navground_median_us:.2f} | {results[0].navground_ratio:.1f}x |" in row
    # the whole robot cycle, both kinematics, median and mean, in the last four columns
    assert header.endswith("| robot cycle median µs (holonomic) | (diff-drive) "
                           "| robot cycle mean µs (holonomic) | (diff-drive) |")
    timing = results[0]
    cycles = (timing.cycle_median_us, timing.cycle_diff_drive_median_us,
              timing.cycle_mean_us, timing.cycle_diff_drive_mean_us)
    assert all(t > 0 for t in cycles)
    assert row.endswith("| " + " | ".join(f"{t:.1f}" for t in cycles) + " |")
