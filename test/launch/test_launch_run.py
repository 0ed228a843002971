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
    assert summary["robots"] == 4 and summary["arrived"] == 4, report
    assert summary["stop_reason"].startswith("every robot arrived"), report
    # fleet_sim, obstacle_server, one orca_robots process hosting the four robots
    assert summary["processes_started"] == 3, report
    assert summary["processes_exited"] == summary["processes_started"], report
    assert summary["nonzero_exits"] == [], report


def test_a_stop_on_fleet_sims_word_gives_the_observer_time_to_see_it(tmp_path, monkeypatch):
    """toio_cross_4v4 with two busy loops beside: launch_run stopped the moment fleet_sim
    counted 8 of 8 arrived and reported the observer's 3 of 8, which trailed it. Now the
    observer gets OBSERVER_CATCH_UP wall seconds first (its own count stops the run at
    once), and the summary gives both counts where they differ."""
    import json

    from orca_ros import launch_run

    clock = [100.0]
    monkeypatch.setattr(launch_run.time, "monotonic", lambda: clock[0])
    status = tmp_path / "status.json"
    stopper = launch_run.Stopper(service=None, status_path=str(status), wall_limit=600.0)
    status.write_text(json.dumps({"robots": 8, "arrived": 3, "fleet_sim_arrived": 8}))
    assert stopper._why_stop() is None
    clock[0] += launch_run.OBSERVER_CATCH_UP - 0.5
    assert stopper._why_stop() is None
    clock[0] += 0.5
    assert stopper._why_stop() == "every robot arrived (fleet_sim /diagnostics)"
    status.write_text(json.dumps({"robots": 8, "arrived": 8, "fleet_sim_arrived": 8}))
    assert stopper._why_stop() == "every robot arrived (observer)"

    assert launch_run._fleet_sim_count({"robots": 8, "arrived": 3, "fleet_sim_arrived": 8}) \
        == " by the observer, 8/8 by fleet_sim"
    assert launch_run._fleet_sim_count({"robots": 8, "arrived": 8, "fleet_sim_arrived": 8}) == ""
