"""``orca-ros bench --compare``: the peers' rows beside ours (orca_ros/tools/compare.py),
navground's recorded tracks judged by our ledger (orca_ros/tools/peers.py)."""

import importlib.util

import numpy as np
import pytest

from orca_ros.core.scenario.loader import parse_scenario

ROW_FIELDS = {"scenario", "method", "kinematics", "agents", "reached", "collisions",
              "robot_collisions", "wall_collisions", "success_rate", "min_separation",
              "makespan", "spl", "timeouts", "failed_to_progress", "time_stalled_s",
              "retreat_max_m", "turn_reversals_per_min", "acceleration_mean_mps2",
              "acceleration_max_mps2", "jerk_mean_mps3", "jerk_max_mps3",
              "path_length_mean_m"}

PAIR_BY_A_WALL = {
    "name": "pair_by_a_wall", "time_step": 0.1, "max_time": 10.0, "goal_tolerance": 0.1,
    "defaults": {"radius": 0.3, "max_speed": 1.0, "pref_speed": 1.0},
    "obstacles": [{"vertices": [[-1.0, 1.0], [1.0, 1.0], [1.0, 1.2], [-1.0, 1.2]]}],
    "agents": [{"name": "a", "start": [-2.0, 0.0], "goal": [2.0, 0.0]},
               {"name": "b", "start": [2.0, 0.0], "goal": [-2.0, 0.0]}]}


def test_a_track_with_a_forced_overlap_is_counted_by_our_ledger():
    """Built by hand: a and b 0.5 m apart (radii 0.3: 0.1 m overlap) at one step, then b
    0.8 m from the wall's lower side (0.1 m into it) at another: one robot-robot and one
    robot-wall pair, the deepest overlap 0.1 m; a reaches its goal, b does not."""
    from orca_ros.tools.peers import judge_tracks

    scenario = parse_scenario(PAIR_BY_A_WALL)
    times = np.arange(5) * 0.1
    trajectory = np.array([
        [[-2.0, 0.0], [2.0, 0.0]],
        [[-0.25, 0.0], [0.25, 0.0]],  # 0.5 m apart: overlap 0.1 m
        [[0.5, 0.0], [0.0, 0.8]],  # b 0.2 m from the wall's side at y = 1: overlap 0.1 m
        [[1.5, 0.0], [0.0, 0.0]],
        [[2.0, 0.0], [0.0, 0.0]]])
    run = judge_tracks(scenario, times, trajectory, "navground-orca")
    row = run.summary()
    assert (row["collisions"], row["robot_collisions"], row["wall_collisions"]) == (2, 1, 1)
    assert set(run.collision_pairs) == {("a", "b"), ("b", "obstacle0")}
    assert row["min_separation"] == pytest.approx(-0.1)
    assert run.deepest_penetration == pytest.approx(0.1)
    assert (row["reached"], row["makespan"]) == (1, pytest.approx(0.4))
    assert ROW_FIELDS <= set(row)
    assert row["spl"] == pytest.approx(0.5 * 1.0)  # a: 4 m straight, b: never home


def test_a_robot_that_left_is_judged_no_more():
    """on_goal: remove: NaN after it left: no contact with where it was, no path."""
    from orca_ros.tools.peers import judge_tracks

    scenario = parse_scenario({**PAIR_BY_A_WALL, "on_goal": "remove", "obstacles": []})
    trajectory = np.array([[[-2.0, 0.0], [2.0, 0.0]], [[1.95, 0.0], [1.0, 0.0]],
                           [[np.nan, np.nan], [1.95, 0.0]]])
    row = judge_tracks(scenario, np.arange(3) * 0.1, trajectory, "peer").summary()
    assert row["collisions"] == 0 and row["reached"] == 1


navground = pytest.mark.skipif(importlib.util.find_spec("navground") is None,
                               reason="navground not installed (pip install .[peers])")


@navground
def test_a_navground_track_with_robots_forced_to_overlap_is_counted_by_our_ledger():
    """navground's world with b put 0.3 m from a (radii 0.3): its push-apart is off, so
    they still overlap after its step, and our ledger counts the pair from the recorded
    positions; a whole navground run of the scene is judged the same way."""
    from orca_ros.tools.peers import judge_tracks, navground_run, navground_world

    scenario = parse_scenario(PAIR_BY_A_WALL)
    world = navground_world(scenario, "orca")
    assert world.ignore_collisions and len(world.walls) == 4  # the box's four sides
    world.agents[0].position = np.array([0.0, 0.0])
    world.agents[1].position = np.array([0.3, 0.0])  # forced: overlapping by 0.3 m
    frames = [np.array([a.start for a in scenario.agents])]
    world.update(scenario.time_step)
    frames.append(np.array([a.position for a in world.agents], dtype=float))
    row = judge_tracks(scenario, [0.0, scenario.time_step], np.array(frames),
                       "navground-orca").summary()
    assert row["robot_collisions"] == 1 and row["min_separation"] < -0.1
    whole = navground_run(scenario, "orca").summary()
    assert whole["method"] == "navground-orca" and whole["steps"] >= 1
    assert ROW_FIELDS <= set(whole)


@navground
def test_the_comparison_on_crossing_4_has_a_row_per_behaviour_with_the_fields(capsys):
    from orca_ros.tools.cli import main
    from orca_ros.tools.compare import compare

    rows = compare(["crossing_4"], [{"scenario": "crossing_4", "method": "orca"}],
                   ["navground"]).rows
    assert [r["method"] for r in rows] == ["orca", "navground-orca", "navground-hrvo",
                                           "navground-hl"]
    for row in rows[1:]:
        assert ROW_FIELDS <= set(row), row["method"]
        assert row["agents"] == 4 and row["kinematics"] == "holonomic"
    peers = ["navground"] + (["rvo2"] if importlib.util.find_spec("pyrvo") else [])
    assert main(["bench", "crossing_4", "--compare", *peers, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "| robot-robot pairs | robot-wall pairs |" in out
    for method in ["orca", "navground-orca", "navground-hrvo", "navground-hl"] + \
            (["rvo2"] if "rvo2" in peers else []):
        assert f"| crossing_4 | {method} | holonomic | 4/4 |" in out


def test_without_navground_the_bench_says_so_and_prints_ours(capsys, monkeypatch):
    from orca_ros.tools import peers
    from orca_ros.tools.cli import main

    monkeypatch.setattr(peers, "navground_modules", lambda: None)
    assert main(["bench", "crossing_4", "--compare", "navground", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "navground is not installed" in captured.err
    assert "| crossing_4 | orca | holonomic | 4/4 | 0 | 0 |" in captured.out  # ours alone
    assert "navground-orca" not in captured.out


def test_compare_runs_each_file_once_as_it_is(capsys):
    from orca_ros.tools.cli import main

    assert main(["bench", "crossing_4", "--compare", "navground", "--runs", "2",
                 "--no-progress"]) == 2
    assert "--compare runs each file once" in capsys.readouterr().err


@navground
def test_a_navground_run_past_its_wall_limit_says_where_it_stopped(capsys):
    """A run still going after ``--compare-wall-limit`` s gives no figures (judged half
    way it would count the robots on their way as left out): its row says how far it
    came."""
    from orca_ros.tools.cli import main
    from orca_ros.tools.peers import PeerTimeout, navground_run

    with pytest.raises(PeerTimeout, match=r"after 1e-09 s of wall time, 0.1 of 20 s"):
        navground_run(parse_scenario(PAIR_BY_A_WALL | {"max_time": 20.0}), "orca", 1e-9)
    assert main(["bench", "crossing_4", "--compare", "navground", "--compare-wall-limit",
                 "1e-9", "--no-progress"]) == 0
    out = capsys.readouterr().out
    for behavior in ("orca", "hrvo", "hl"):
        assert f"| crossing_4 | navground-{behavior} | holonomic | stopped after 1e-09 s " \
               "of wall time, 0.1 of 60 s simulated | - |" in out

