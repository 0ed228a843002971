"""A fleet through the real ROS 2 launch engine, one process per node, judged by the observer.

``scripts/setup_launch.sh`` installs the vendored launch packages where
``launch_ros`` is missing and builds this package with colcon (into a
temporary workspace here); ``python -m orca_ros.launch_run`` then runs
``fleet_sim.launch.py`` as ``ros2 launch`` would, with the independent
observer (``orca_ros.observer``) in its own process.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("ORCA_ROS_SHARED", REPO.parent / "shared"))
VENDOR = SHARED / "vendor"


def launch_ros_importable() -> bool:
    return subprocess.run([sys.executable, "-c", "import launch_ros"],
                          capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def launch_env(tmp_path_factory):
    """Environment in which launch_run finds launch, launch_ros and the colcon install."""
    if not VENDOR.is_dir() and not launch_ros_importable():
        pytest.skip(f"launch_ros is not importable and the vendored launch packages "
                    f"({VENDOR}) are absent")
    workspace = tmp_path_factory.mktemp("colcon_ws")
    env = dict(os.environ, ORCA_ROS_VENV=sys.prefix, ORCA_ROS_COLCON_WS=str(workspace),
               ORCA_ROS_VENDOR=str(VENDOR))
    setup = subprocess.run(["bash", str(REPO / "scripts" / "setup_launch.sh")], env=env,
                           capture_output=True, text=True, timeout=900)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    prefix = workspace / "install" / "orca_ros"
    env["AMENT_PREFIX_PATH"] = os.pathsep.join(
        [str(prefix), sys.prefix] + [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(
            os.pathsep) if p])
    return env


@pytest.mark.parametrize("robots_per_process, processes", [
    ("1", 6),  # fleet_sim, obstacle_server, 4 orca_nodes
    ("3", 4),  # fleet_sim, obstacle_server, orca_robots hosting 3 and 1
])
def test_crossing_through_launch_is_collision_free_and_shuts_down_cleanly(
        launch_env, tmp_path, robots_per_process, processes):
    out = tmp_path / "launch.json"
    run = subprocess.run(
        [sys.executable, "-m", "orca_ros.launch_run", "fleet_sim.launch.py",
         "scenario:=crossing_4", "speed_factor:=2", f"robots_per_process:={robots_per_process}",
         "--json", str(out), "--wall-limit", "120"],
        env=launch_env, cwd=str(REPO), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    summary = json.loads(out.read_text())
    report = "\n".join(run.stdout.splitlines()[-30:])
    observer = summary["observer"]
    assert observer["stamps_compared"] > 0, report
    assert observer["collisions"] == [], report
    assert observer["min_separation"] is not None and observer["min_separation"] >= 0, report
    assert summary["robots"] == 4
    assert summary["arrived"] == summary["robots"], report
    assert summary["processes_started"] == processes, report
    assert summary["processes_exited"] == summary["processes_started"], report
    assert summary["nonzero_exits"] == [], report
