"""Robots as people have them, through the real launch engine with one process per robot
(``robots_per_process:=1``): ``fleet_sim.launch.py odom_frame:=per_robot`` (each robot's
drifting odometry in its own frame, placed by fleet_sim's localization stand-in), holonomic
and diff-drive, and ``preferred_velocity:=topic driver:=straight`` (orca_node in filter
mode behind a driver blind to everyone). The test's own subscriber judges every pair at
each ground-truth stamp (``/<robot>/ground_truth``); every process exits 0 when launch
shuts down."""

import os
import sys
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # launch_test FILE too
from fleet_watch import FleetWatch  # noqa: E402

SCENARIO = "crossing_4"
WALL_LIMIT_S = 120.0
CASES = {
    "per_robot_holonomic": {"odom_frame": "per_robot"},
    "per_robot_diff_drive": {"odom_frame": "per_robot", "kinematics": "diff_drive"},
    "filter_mode": {"odom_frame": "per_robot", "preferred_velocity": "topic",
                    "driver": "straight"},
}


@pytest.mark.launch_test
@launch_testing.parametrize("case", list(CASES))
def generate_test_description(case):
    launch_file = os.path.join(get_package_share_directory("orca_ros"), "launch",
                               "fleet_sim.launch.py")
    arguments = dict(CASES[case], scenario=SCENARIO, robots_per_process="1")
    return launch.LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(launch_file),
                                 launch_arguments=arguments.items()),
        launch_testing.actions.ReadyToTest()]), {}


class TestFramesThroughLaunch(unittest.TestCase):

    def test_every_robot_arrives_without_contact_by_the_ground_truth(self, proc_output, case):
        watch = FleetWatch(SCENARIO, pose_topic="ground_truth")
        try:
            watch.check_all_arrive_without_contact(self, WALL_LIMIT_S)
        finally:
            watch.close()


@launch_testing.post_shutdown_test()
class TestFramesShutdown(unittest.TestCase):

    def test_every_process_exits_cleanly(self, proc_info, case):
        launch_testing.asserts.assertExitCodes(proc_info)
        # fleet_sim, obstacle_server, one orca_node per robot (and the driver)
        expected = 6 + (1 if CASES[case].get("driver") == "straight" else 0)
        self.assertEqual(len(proc_info.process_names()), expected)
