"""``python -m orca_ros.launch_run``: a launch file through the real launch engine, judged by
the independent observer process, with its summary (the tool behind the fleet-scale
measurements; test_fleet_sim_launch.py holds the launch file itself)."""

import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("launch_ros", reason="launch_ros not installed "
                    "(scripts/setup_launch.sh installs it)")

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


def test_launch_run_reports_the_observers_verdict_and_every_exit(tmp_path):
    out = tmp_path / "launch.json"
    run = subprocess.run(
        [sys.executable, "-m", "orca_ros.launch_run", "fleet_sim.launch.py",
         "scenario:=crossing_4", "speed_factor:=2", "--json", str(out), "--wall-limit", "120"],
        cwd=str(REPO), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    summary = json.loads(out.read_text())
    report = "\n".join(run.stdout.splitlines()[-30:])
    observer = summary["observer"]
    assert observer["stamps_compared"] > 0, report
    assert observer["collisions"] == [], report
    assert observer["min_separation"] is not None and observer["min_separation"] >= 0, report
    assert summary["robots"] == 4 and summary["reached"] == summary["arrived"] == 4, report
    assert summary["stop_reason"].startswith("every robot at its goal"), report
    # fleet_sim, obstacle_server, one orca_robots process hosting the four robots
    assert summary["processes_started"] == 3, report
    assert summary["processes_exited"] == summary["processes_started"], report
    assert summary["nonzero_exits"] == [], report

