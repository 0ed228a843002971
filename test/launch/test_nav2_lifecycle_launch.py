"""nav2.launch.py under launch_testing with lifecycle:=true autostart:=false: the
managed orca_node in Nav2's chain, driven through its lifecycle services as Nav2's
lifecycle_manager drives its nodes. Fed as Nav2 feeds it (odometry in odom, amcl_pose
in map, the smoother's cmd_vel_smoothed), it is silent until activated, passes the
input on cmd_vel_orca while active, sends one stop when deactivated and then nothing."""

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
from ament_index_python.packages import get_package_share_directory  # noqa: E402
from launch.actions import IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402

NAMESPACE = "robot9"


@pytest.mark.launch_test
def generate_test_description():
    launch_file = f"{get_package_share_directory('orca_ros')}/launch/nav2.launch.py"
    return launch.LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(launch_file), launch_arguments={
            "namespace": NAMESPACE, "lifecycle": "true", "autostart": "false",
            "enable_stamped_cmd_vel": "false"}.items()),
        launch_testing.actions.ReadyToTest(),
    ])


class TestNav2Lifecycle(unittest.TestCase):

    def test_silent_until_active_then_the_input_then_one_stop(self, proc_output):
        import rclpy
        from geometry_msgs.msg import PoseWithCovarianceStamped, Twist
        from lifecycle_msgs.msg import Transition
        from lifecycle_msgs.srv import ChangeState
        from nav_msgs.msg import Odometry
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        context = Context()
        rclpy.init(context=context)
        node = rclpy.create_node("nav2_lifecycle_test", context=context)
        odom = node.create_publisher(Odometry, f"/{NAMESPACE}/odom", 10)
        fix = node.create_publisher(PoseWithCovarianceStamped, f"/{NAMESPACE}/amcl_pose", 10)
        smoothed = node.create_publisher(Twist, f"/{NAMESPACE}/cmd_vel_smoothed", 10)
        commands = []
        node.create_subscription(Twist, f"/{NAMESPACE}/cmd_vel_orca", commands.append, 10)
        change = node.create_client(ChangeState, f"/{NAMESPACE}/orca_node/change_state")
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        running = True

        def nav2():  # the robot standing at the map's origin; the smoother sends 0.1 m/s
            while running:
                stamp = node.get_clock().now().to_msg()
                msg = Odometry()
                msg.header.stamp, msg.header.frame_id = stamp, "odom"
                msg.pose.pose.orientation.w = 1.0
                odom.publish(msg)
                pose = PoseWithCovarianceStamped()
                pose.header.stamp, pose.header.frame_id = stamp, "map"
                pose.pose.pose.orientation.w = 1.0
                pose.pose.covariance[0] = pose.pose.covariance[7] = 1e-4
                fix.publish(pose)
                command = Twist()
                command.linear.x = 0.1
                smoothed.publish(command)
                time.sleep(0.05)

        def spin(seconds):
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                executor.spin_once(timeout_sec=0.05)

        def transition(id_):
            future = change.call_async(ChangeState.Request(transition=Transition(id=id_)))
            end = time.monotonic() + 10.0
            while time.monotonic() < end and not future.done():
                executor.spin_once(timeout_sec=0.05)
            self.assertTrue(future.done() and future.result().success, f"transition {id_}")

        thread = threading.Thread(target=nav2, daemon=True)
        thread.start()
        try:
            end = time.monotonic() + 60.0
            while time.monotonic() < end and not change.service_is_ready():
                executor.spin_once(timeout_sec=0.1)
            self.assertTrue(change.service_is_ready(), "no lifecycle service")
            spin(2.0)
            self.assertEqual(commands, [], "commands before it was configured")
            transition(Transition.TRANSITION_CONFIGURE)
            spin(1.0)
            self.assertEqual(commands, [], "commands while inactive")
            transition(Transition.TRANSITION_ACTIVATE)
            end = time.monotonic() + 20.0
            while time.monotonic() < end and not any(c.linear.x > 0.05 for c in commands):
                executor.spin_once(timeout_sec=0.1)
            self.assertTrue(any(abs(c.linear.x - 0.1) < 1e-9 for c in commands),
                            f"the input never passed: {commands[-3:]}")
            transition(Transition.TRANSITION_DEACTIVATE)
            spin(0.5)
            count = len(commands)
            self.assertEqual(commands[-1].linear.x, 0.0, "no stop when deactivated")
            spin(1.0)
            self.assertEqual(len(commands), count, "commands while deactivated")
        finally:
            running = False
            thread.join(timeout=2)
            executor.shutdown(timeout_sec=1.0)
            node.destroy_node()
            rclpy.try_shutdown(context=context)


@launch_testing.post_shutdown_test()
class TestNav2LifecycleShutdown(unittest.TestCase):

    def test_the_managed_node_exits_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)
