"""scripts/through_ros.py: the rows of doc/results.md's "Through ROS as in the world"."""

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "through_ros.py"


def _script():
    spec = importlib.util.spec_from_file_location("through_ros", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ros(makespan, reached=6, collisions=0, retreat=0.0, off=0.1):
    return {"scenario": "s", "agents": 6, "reached": reached, "collisions": collisions,
            "makespan": makespan, "retreat_max_m": retreat, "off_goal_max_m": off}


def test_a_row_gives_the_median_over_the_world_as_through_ros_and_the_ranges():
    row = _script().row("s", "diff_drive", {"makespan": 13.5, "retreat_max_m": 0.0},
                        {"makespan": 18.0},
                        [_ros(19.0), _ros(18.5, retreat=0.1), _ros(18.75, off=0.33)])
    assert row == ("| s | diff-drive | 13.5, 0.00 | 18 | all of 6, 0 | 18.5-19 (18.75) "
                   "| 1.04 | 0.00-0.10 | 0.10-0.33 |")


def test_robots_left_out_and_pairs_are_summed_over_the_runs():
    row = _script().row("s", "holonomic", {"makespan": 10.0, "retreat_max_m": 0.5},
                        {"makespan": 10.0}, [_ros(12.0, reached=5, collisions=2), _ros(12.0)])
    assert "| 11 of 12, 2 | 12 (12) | 1.20 |" in row


def test_the_table_reads_each_scenario_s_runs_from_the_folder(tmp_path):
    script = _script()
    for stem, makespan in (("world", 10.0), ("rt", 11.0)):
        (tmp_path / f"{stem}_holonomic.json").write_text(json.dumps(
            [{"scenario": "s", "makespan": makespan, "retreat_max_m": 0.0}]))
    for i, makespan in enumerate((11.0, 12.0, 13.0), start=1):
        (tmp_path / f"ros_s_holonomic_{i}.json").write_text(json.dumps(_ros(makespan)))
    [line] = script.table(tmp_path, ["/somewhere/s.yaml"], "holonomic", 3)
    assert line.startswith("| s | holonomic | 10, 0.00 | 11 | all of 6, 0 | 11-13 (12) | 1.09 |")
