"""fleet_sim.launch.py under launch_testing: crossing_4 through the real launch engine, one
process per node, or three robots per process hearing each other through neighbour cells
(``neighbor_cell_size:=2.0``); every orca_node runs with its plan's parameters, the robots
reach their goals, an in-test subscriber sees no contact, and every process exits 0 when
launch shuts down."""

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
from fleet_watch import FleetWatch, node_parameters  # noqa: E402

from orca_ros.fleet.plan import fleet_plan  # noqa: E402

SCENARIO = "crossing_4"
CHECKED = ("radius", "max_speed", "use_sim_time", "control_rate", "neighbors", "kinematics",
           "command_validity", "max_neighbors")
PROCESSES = {"1": 6, "3": 4}  # fleet_sim, obstacle_server and 4 orca_nodes | 2 orca_robots
WALL_LIMIT_S = 120.0


@pytest.mark.launch_test
@launch_testing.parametrize("robots_per_process, cells", [("1", "0.0"), ("3", "2.0")])
def generate_test_description(robots_per_process, cells):
    launch_file = os.path.join(get_package_share_directory("orca_ros"), "launch",
                               "fleet_sim.launch.py")
    return launch.LaunchDescription([
        IncludeLaunchDescription(PythonLaunchDescriptionSource(launch_file), launch_arguments={
            "scenario": SCENARIO, "speed_factor": "2.0",
            "robots_per_process": robots_per_process, "neighbor_cell_size": cells}.items()),
        launch_testing.actions.ReadyToTest(),
    ]), {}


class TestFleetThroughLaunch(unittest.TestCase):

    def test_robots_reach_their_goals_without_contact(self, proc_output, robots_per_process,
                                                      cells):
        watch = FleetWatch(SCENARIO)
        try:
            watch.check_all_arrive_without_contact(self, WALL_LIMIT_S)
            for spec in fleet_plan(SCENARIO):  # each hosted node its own name and parameters
                if spec.executable == "orca_node":
                    got = node_parameters(watch.node, f"/{spec.namespace}/orca_node",
                                          CHECKED + ("neighbor_cell_size",))
                    self.assertEqual(got, {**{k: spec.parameters[k] for k in CHECKED},
                                           "neighbor_cell_size": float(cells)})
        finally:
            watch.close()


@launch_testing.post_shutdown_test()
class TestFleetShutdown(unittest.TestCase):

    def test_every_process_exits_cleanly(self, proc_info, robots_per_process, cells):
        launch_testing.asserts.assertExitCodes(proc_info)
        self.assertEqual(len(proc_info.process_names()), PROCESSES[robots_per_process])
