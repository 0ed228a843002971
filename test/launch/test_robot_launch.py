"""robot.launch.py under launch_testing: one orca_node in a namespace with a parameters
file, fed by this test's odometry and a goal as a robot and a user would; it answers on
cmd_vel, within the speed its parameters file sets."""

import os
import tempfile
import threading
import time
import unittest

import pytest

pytest.importorskip("launch_testing", reason="launch_testing not installed "
                    "(scripts/setup_launch.sh installs it)")

import launch  # noqa: E402
import launch_testing  # noqa: E402
import launch_testing.actions  # noqa: E402
import launch_testing.asserts  # noqa: E402
import yaml  # noqa: E402
from ament_index_python.packages import get_package_share_directory  # noqa: E402
from launch.actions import IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402

NAMESPACE = "robot7"
MAX_SPEED = 0.15  # m/s in the parameters file; config/orca_node.yaml says 0.22


@pytest.mark.launch_test
def generate_test_description():
    with open(os.path.join(get_package_share_directory("orca_ros"), "config",
                           "orca_node.yaml")) as stream:
        parameters = yaml.safe_load(stream)
    parameters["/**"]["ros__parameters"].update(
        max_speed=MAX_SPEED, pref_speed=0.12, neighbors=["other"], control_rate=10.0)
    handle = tempfile.NamedTemporaryFile("w", prefix="robot7_", suffix=".yaml", delete=False)
    with handle:
        yaml.safe_dump(parameters, handle)
    launch_file = os.path.join(get_package_share_directory("orca_ros"), "launch",
                               "robot.launch.py")
    return launch.LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(launch_file), launch_arguments={
            "namespace": NAMESPACE, "params_file": handle.name}.items()),
        launch_testing.actions.ReadyToTest(),
    ]), {"params_file": handle.name}


class TestRobotLaunch(unittest.TestCase):

    def test_it_answers_odometry_and_a_goal_with_cmd_vel(self, proc_output):
        import rclpy
        from geometry_msgs.msg import PoseStamped, Twist
        from nav_msgs.msg import Odometry
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        context = Context()
        rclpy.init(context=context)
        node = rclpy.create_node("robot_launch_test", context=context)
        odom = node.create_publisher(Odometry, f"/{NAMESPACE}/odom", 10)
        goal = node.create_publisher(PoseStamped, f"/{NAMESPACE}/goal_pose", 10)
        commands = []
        node.create_subscription(Twist, f"/{NAMESPACE}/cmd_vel", commands.append, 10)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        running = True

        def robot():  # the robot at the origin facing +x, its odometry at 20 Hz
            while running:
                msg = Odometry()
                msg.header.stamp = node.get_clock().now().to_msg()
                msg.header.frame_id = "world"
                msg.child_frame_id = "base_link"
                msg.pose.pose.orientation.w = 1.0
                odom.publish(msg)
                time.sleep(0.05)

        thread = threading.Thread(target=robot, daemon=True)
        thread.start()
        try:
            end = time.monotonic() + 60.0
            while time.monotonic() < end and goal.get_subscription_count() == 0:
                executor.spin_once(timeout_sec=0.1)
            self.assertGreater(goal.get_subscription_count(), 0, "orca_node never subscribed "
                               f"/{NAMESPACE}/goal_pose")
            target = PoseStamped()
            target.header.frame_id = "world"
            target.header.stamp = node.get_clock().now().to_msg()
            target.pose.position.x, target.pose.orientation.w = 2.0, 1.0
            goal.publish(target)
            end = time.monotonic() + 30.0
            while time.monotonic() < end and sum(c.linear.x > 0.05 for c in commands) < 5:
                executor.spin_once(timeout_sec=0.1)
            forward = [c.linear.x for c in commands if c.linear.x > 0.05]
            self.assertGreaterEqual(len(forward), 5, f"commands: {commands[-5:]}")
            self.assertLessEqual(max(c.linear.x for c in commands), MAX_SPEED + 1e-9)
            names = node.get_node_names_and_namespaces()
            self.assertIn(("orca_node", f"/{NAMESPACE}"), names)
        finally:
            running = False
            thread.join(timeout=2)
            executor.shutdown(timeout_sec=1.0)
            node.destroy_node()
            rclpy.try_shutdown(context=context)


@launch_testing.post_shutdown_test()
class TestRobotShutdown(unittest.TestCase):

    def test_orca_node_exits_cleanly(self, proc_info, params_file):
        launch_testing.asserts.assertExitCodes(proc_info)
        self.assertEqual(len(proc_info.process_names()), 1)
        os.unlink(params_file)
