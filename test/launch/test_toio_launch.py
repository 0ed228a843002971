"""toio.launch.py under launch_testing: six simulated toio cubes swap places on their ring
through toio_bridge and one orca_node per cube; every cube reaches its goal, an in-test
subscriber sees no contact, and every process exits 0 when launch shuts down."""

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

SCENARIO = "toio_ring_swap_6"
WALL_LIMIT_S = 150.0


@pytest.mark.launch_test
def generate_test_description():
    launch_file = os.path.join(get_package_share_directory("orca_ros"), "launch",
                               "toio.launch.py")
    return launch.LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(launch_file), launch_arguments={
            "scenario": SCENARIO, "simulated": "true", "send_goals": "true"}.items()),
        launch_testing.actions.ReadyToTest(),
    ]), {}


class TestToioThroughLaunch(unittest.TestCase):

    def test_cubes_reach_their_goals_without_contact(self, proc_output):
        watch = FleetWatch(SCENARIO, node_name="toio_launch_test_watch")
        try:
            watch.check_all_arrive_without_contact(self, WALL_LIMIT_S)
        finally:
            watch.close()


@launch_testing.post_shutdown_test()
class TestToioShutdown(unittest.TestCase):

    def test_every_process_exits_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)
        # toio_bridge, obstacle_server, one orca_robots process for the six cubes
        self.assertEqual(len(proc_info.process_names()), 3)
