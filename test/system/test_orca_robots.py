"""Several robots' orca_nodes in one process (``orca_robots``): each still its own node,
in its own namespace, with its own parameters and topics."""

import math
import os
import signal
import subprocess

import pytest

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from helpers.executables import command  # noqa: E402  (the installed console script, run here)

pytestmark = pytest.mark.ros


def test_the_robots_come_from_the_command_line_without_the_ros_arguments(tmp_path):
    from orca_ros.nodes.orca_robots import robot_namespaces

    parameters = tmp_path / "f.yaml"
    parameters.write_text("/a/orca_node:\n  ros__parameters: {radius: 0.3}\n")
    argv = ["orca_robots", "--robots", "a", "/b", "--ros-args", "--params-file",
            str(parameters), "-p", "radius:=0.3"]
    assert robot_namespaces(argv) == ["a", "b"]
    for bad in (["orca_robots"], ["orca_robots", "--robots", "a", "a"],
                ["orca_robots", "--robots", "/"]):
        with pytest.raises(SystemExit):
            robot_namespaces(bad)


def test_two_robots_in_one_process_each_answer_on_their_own_topics(ros, tmp_path):
    import yaml
    from geometry_msgs.msg import PoseStamped, Twist
    from nav_msgs.msg import Odometry
    from rcl_interfaces.srv import GetParameters

    from orca_ros.nodes.ros_common import RELIABLE_10

    parameters = tmp_path / "robots.yaml"
    parameters.write_text(yaml.safe_dump({
        "/alpha/orca_node": {"ros__parameters": {"radius": 0.31, "max_speed": 1.0,
                                                 "neighbors": ["beta"]}},
        "/beta/orca_node": {"ros__parameters": {"radius": 0.42, "max_speed": 0.6,
                                                "neighbors": ["alpha"]}}}))
    process = subprocess.Popen(
        command("orca_robots", "--robots", "alpha", "beta", "--ros-args", "--params-file",
                str(parameters)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=os.environ.copy())
    try:
        probe = ros.node("robots_probe")
        assert ros.spin_until(lambda: {("orca_node", "/alpha"), ("orca_node", "/beta")} <= set(
            probe.get_node_names_and_namespaces()), timeout=30.0), process.poll()
        for namespace, radius, speed in (("alpha", 0.31, 1.0), ("beta", 0.42, 0.6)):
            client = probe.create_client(GetParameters, f"/{namespace}/orca_node/get_parameters")
            assert client.wait_for_service(timeout_sec=10.0)
            future = client.call_async(GetParameters.Request(names=["radius", "max_speed"]))
            assert ros.spin_until(future.done, timeout=10.0)
            assert [v.double_value for v in future.result().values] == [radius, speed]

        commands = {"alpha": [], "beta": []}
        for namespace in commands:
            probe.create_subscription(Twist, f"/{namespace}/cmd_vel",
                                      lambda msg, ns=namespace: commands[ns].append(msg),
                                      RELIABLE_10)
        odometry = {ns: probe.create_publisher(Odometry, f"/{ns}/odom", RELIABLE_10)
                    for ns in commands}
        goal = probe.create_publisher(PoseStamped, "/alpha/goal_pose", RELIABLE_10)
        starts = {"alpha": (0.0, 0.0), "beta": (0.0, 5.0)}

        def publish():
            for ns, (x, y) in starts.items():
                msg = Odometry()
                msg.header.stamp = probe.get_clock().now().to_msg()
                msg.header.frame_id = "world"  # the shared frame
                msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
                msg.pose.pose.orientation.w = 1.0
                odometry[ns].publish(msg)
            target = PoseStamped()
            target.header.frame_id = "world"  # the shared frame
            target.pose.position.x, target.pose.position.y = 0.0, -4.0
            target.pose.orientation.w = 1.0
            goal.publish(target)

        probe.create_timer(0.1, publish)

        def alpha_heads_for_its_goal():
            return any(m.linear.y < -0.2 and abs(m.linear.x) < -0.5 * m.linear.y
                       for m in commands["alpha"])
        assert ros.spin_until(alpha_heads_for_its_goal, timeout=20.0), commands["alpha"][-3:]
        # beta has no goal: it stands, on its own topic
        assert all(math.hypot(m.linear.x, m.linear.y) < 1e-9 for m in commands["beta"])
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err[-3000:]


def test_a_bad_parameter_of_one_hosted_robot_ends_the_process_with_status_2(tmp_path):
    import yaml

    parameters = tmp_path / "robots.yaml"
    parameters.write_text(yaml.safe_dump({
        "/alpha/orca_node": {"ros__parameters": {"radius": 0.3}},
        "/beta/orca_node": {"ros__parameters": {"radius": -1.0}}}))
    run = subprocess.run(
        command("orca_robots", "--robots", "alpha", "beta", "--ros-args", "--params-file",
                str(parameters)), capture_output=True, text=True, timeout=120,
        env=os.environ.copy())
    assert run.returncode == 2, run.stderr[-3000:]
    assert "radius" in run.stderr, run.stderr[-3000:]
