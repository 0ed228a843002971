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
