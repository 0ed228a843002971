"""``orca-ros sim`` in a process of its own is real DDS: another process sees its topics."""

import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from geometry_msgs.msg import TwistStamped  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402

from orca_ros.nodes.ros_common import RELIABLE_10  # noqa: E402

pytestmark = pytest.mark.ros


def test_another_process_can_watch_a_running_sim_over_dds(ros):
    """`orca-ros sim` is real DDS: this test process sees its odom and cmd_vel."""
    import subprocess
    import sys

    runner = subprocess.Popen(
        [sys.executable, "-m", "orca_ros.tools.cli", "sim", "crossing_4", "--speed-factor", "1",
         "--no-progress", "--max-time", "6"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    try:
        watcher = ros.node("watcher")
        odoms, commands = [], []
        watcher.create_subscription(Odometry, "/north/odom", odoms.append, RELIABLE_10)
        watcher.create_subscription(TwistStamped, "/north/cmd_vel", commands.append,
                                    RELIABLE_10)
        assert ros.spin_until(lambda: len(odoms) >= 10 and len(commands) >= 5, 30.0), \
            (len(odoms), len(commands))
        assert any(abs(c.twist.linear.x) + abs(c.twist.linear.y) > 0.1 for c in commands)
        output, _ = runner.communicate(timeout=60)
        assert runner.returncode == 0, output
        assert "crossing_4: " in output and "robots arrived, 0 colliding pairs" in output
    finally:
        if runner.poll() is None:
            runner.kill()


def test_the_corridor_through_ros_nodes_has_no_turn_back_by_fleet_sim_and_the_observer():
    """corridor_wall through real orca_nodes (holonomic, speed factor 4): every robot
    passes the oncoming group without driving back towards its start, by fleet_sim's
    record and by the observer's odometry, which agree; before neighbours' age stopped
    growing the discs the method plans with, one robot drove 2-3 m back in every run
    (makespan 39.6 s in five of five)."""
    from orca_ros.fleet.plan import FleetOptions
    from orca_ros.tools.harness import run_fleet

    run = run_fleet("corridor_wall", FleetOptions(speed_factor=4.0), observer=True)
    summary, observer = run.summary, run.summary["observer"]
    assert summary["reached"] == 6 and summary["collisions"] == 0
    assert observer["colliding_pairs"] == 0, observer
    motion = observer["motion_quality"]
    assert set(motion["robots"]) == {"left0", "left1", "left2", "right0", "right1", "right2"}
    assert summary["retreat_max_m"] < 1.0 and motion["retreat_max_m"] < 1.0, \
        (summary["retreat_max_m"], motion)
    assert motion["retreat_max_m"] == pytest.approx(summary["retreat_max_m"], abs=0.1)
    assert summary["makespan"] < 30.0
