"""``orca-ros bench`` (orca_ros/tools/cli/bench.py): every scenario's row is kept and
written as it completes, a failing one named."""

import json

from orca_ros.core.errors import INTERNAL_ERROR, REFUSED
from orca_ros.tools.cli import main


def _broken_scenario(tmp_path) -> str:
    path = tmp_path / "broken.yaml"
    path.write_text("name: broken\nagents: []\n")
    return str(path)


def test_bench_keeps_every_row_it_finished_and_names_the_one_that_failed(tmp_path, capsys,
                                                                        monkeypatch):
    """Three scenarios: the second's run raises (a bug), the third's file is broken; the
    first's row is in the table and the JSON, the JSON names both failures in order, and
    the status says there was a bug."""
    from orca_ros.tools import scenario_bench

    real = scenario_bench.run_world

    def run_world(scenario, world, options, progress=True, full_time=False):
        if scenario.name == "circle_swap_8":
            raise ValueError("cannot reshape array of size 0 into shape (0,newaxis)")
        return real(scenario, world, options, progress, full_time)

    monkeypatch.setattr(scenario_bench, "run_world", run_world)
    out = tmp_path / "rows.json"
    status = main(["bench", "crossing_4", "circle_swap_8", _broken_scenario(tmp_path),
                   "--no-progress", "--json", str(out)])
    captured = capsys.readouterr()
    assert status == INTERNAL_ERROR
    assert "| crossing_4 |" in captured.out
    rows = json.loads(out.read_text())
    assert [row["scenario"] for row in rows] == ["crossing_4", "circle_swap_8",
                                                 _broken_scenario(tmp_path)]
    assert rows[0]["reached"] == 4 and "error" not in rows[0]
    assert rows[1]["error"]["kind"] == "internal"
    assert "cannot reshape" in rows[1]["error"]["message"]
    assert rows[2]["error"]["kind"] == "refused"
    assert "Traceback" in captured.err and "circle_swap_8: internal error" in captured.err
    assert "1 of 3 runs gave their row" in captured.err


def test_bench_writes_each_row_as_it_completes(tmp_path, monkeypatch):
    """The JSON holds the first row while the second scenario still runs."""
    from orca_ros.tools import scenario_bench

    out = tmp_path / "rows.json"
    seen = []
    real = scenario_bench.run_world

    def run_world(scenario, world, options, progress=True, full_time=False):
        seen.append(json.loads(out.read_text()) if out.exists() else None)
        return real(scenario, world, options, progress, full_time)

    monkeypatch.setattr(scenario_bench, "run_world", run_world)
    assert main(["bench", "crossing_4", "crossing_4", "--no-progress", "--json", str(out)]) == 0
    assert seen[0] is None and [row["scenario"] for row in seen[1]] == ["crossing_4"]
    assert len(json.loads(out.read_text())) == 2


def test_bench_says_when_a_scenario_has_obstacles_only_a_laser_sees(tmp_path, capsys):
    """The world has no laser: a box on no map is driven into blind, and bench says so
    rather than leave its wall contacts unexplained."""
    scenario = tmp_path / "box.yaml"
    scenario.write_text(
        "name: box\ntime_step: 0.1\nmax_time: 3.0\n"
        "defaults: {radius: 0.2, max_speed: 1.0, pref_speed: 1.0}\n"
        "agents:\n  - {name: a, start: [0, 0], goal: [4, 0]}\n"
        "unmapped_obstacles:\n  - vertices: [[1.5, -0.5], [2.0, -0.5], [2.0, 0.5], [1.5, 0.5]]\n")
    rows = tmp_path / "rows.json"
    assert main(["bench", str(scenario), "--no-progress", "--json", str(rows)]) == 0
    assert "obstacles on no map, which only a laser sees, in box" in capsys.readouterr().err
    assert json.loads(rows.read_text())[0]["unmapped_obstacles"] == 1
    assert main(["bench", "crossing_4", "--no-progress"]) == 0
    assert "only a laser sees" not in capsys.readouterr().err


def test_bench_gives_every_robot_the_orca_node_parameters_asked_for(monkeypatch):
    """``--robot-param``: the world's robots run with the values given (-1 for
    max_reverse_speed: up to max_speed, as orca_node reads it), the rest as before."""
    from orca_ros.tools import scenario_bench

    configs = []
    real = scenario_bench.run_world

    def run_world(scenario, world, options, progress=True, full_time=False):
        configs.extend(controller.config for controller in world.controllers)
        return real(scenario, world, options, progress, full_time)

    monkeypatch.setattr(scenario_bench, "run_world", run_world)
    assert main(["bench", "crossing_4", "--kinematics", "diff_drive", "--no-progress",
                 "--robot-param", "stall_detour_time=0", "--robot-param",
                 "max_reverse_speed=-1"]) == 0
    assert len(configs) == 4
    for config in configs:
        assert config.stall_detour_time == 0.0 and config.max_reverse_speed is None
        assert config.stall_escape_deg == 75.0


def test_bench_refuses_a_robot_parameter_out_of_range_or_taken_from_the_scenario(capsys):
    for entry, named in (("stall_escape_deg=-5", "stall_escape_deg must be within"),
                         ("control_rate=20", "control_rate"),
                         ("no_such=1", "orca_node has no parameter no_such")):
        assert main(["bench", "crossing_4", "--no-progress", "--robot-param", entry]) == REFUSED
        assert named in capsys.readouterr().err
