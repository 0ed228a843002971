"""The observer process (orca_ros.observer) judges odometry it receives over DDS."""

import os
import time

import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402

from orca_ros.observer import start_observer, stop_observer, wait_ready  # noqa: E402

ROBOTS = ("north", "south", "east", "west")  # crossing_4, radius 0.2, goals at (±0.1, ∓2) ...
GOALS = {"north": (0.1, -2.0), "south": (-0.1, 2.0), "east": (-2.0, -0.1), "west": (2.0, 0.1)}


def odom(sec: int, x: float, y: float) -> Odometry:
    msg = Odometry()
    msg.header.stamp.sec = sec
    msg.header.frame_id = "world"
    msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
    msg.pose.pose.orientation.w = 1.0
    return msg


def test_observer_reports_same_stamp_overlap_and_arrivals(ros, tmp_path):
    report_path, status_path = str(tmp_path / "obs.json"), str(tmp_path / "status.json")
    proc = start_observer("crossing_4", report_path, status_path=status_path,
                          log_path=str(tmp_path / "obs.log"), env=dict(os.environ))
    try:
        assert wait_ready(status_path, proc), (tmp_path / "obs.log").read_text()
        node = ros.node("fake_fleet")
        qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        pubs = {name: node.create_publisher(Odometry, f"/{name}/odom", qos) for name in ROBOTS}
        assert ros.spin_until(lambda: all(p.get_subscription_count() for p in pubs.values()), 20)
        far = {"north": (0.0, 5.0), "south": (0.0, -5.0), "east": (5.0, 0.0), "west": (-5.0, 0.0)}
        # Stamp 1: north and south overlap by 0.1 m.
        frame1 = dict(far, north=(0.0, 0.0), south=(0.3, 0.0))
        # Stamps 2 and 3: east stands where west will be one stamp later (no contact).
        frame2 = dict(far, east=(1.0, 1.0), west=(3.0, 3.0))
        frame3 = dict(far, east=(3.0, -3.0), west=(1.0, 1.0))
        frames = [frame1, frame2, frame3, GOALS]  # stamp 4: everyone at the goal
        for sec, frame in enumerate(frames, start=1):
            for name in ROBOTS:
                pubs[name].publish(odom(sec, *frame[name]))
        ros.spin_for(1.0)
        time.sleep(1.0)
    finally:
        report = stop_observer(proc, report_path)
    assert proc.returncode == 0
    assert report["stamps_compared"] == 4
    assert report["poses_per_robot"] == {name: 4 for name in ROBOTS}
    assert [(c["a"], c["b"]) for c in report["collisions"]] == [("north", "south")]
    assert report["collisions"][0]["first_stamp"] == pytest.approx(1.0)
    assert report["deepest_penetration"] == pytest.approx(0.1)
    assert report["arrived"] == 4
