"""orca_node in a Nav2 robot's chain, through the real launch engine: fleet_sim's four
crossing robots as Nav2 has them (diff-drive, odometry in each robot's own drifting
``<robot>/odom``, AMCL-like fixes in ``map``), nav2.launch.py with ``lifecycle:=true
autostart:=false`` and a parameters file with a section per robot, and a stand-in Nav2
(nav2_stand_in.py): controllers behind the smoother, one driving its route backwards, a
BackUp of 0.3 m, a collision monitor, a teleop and a lifecycle manager. Checked:

* silent while unconfigured and inactive, and while active but holding before any
  ``cmd_vel_in``: a teleop on ``cmd_vel`` drives the robot meanwhile;
* BackUp's reversing command passes unchanged and the robot backs 0.3 m;
* a controller that reverses along its path is carried through the crossing;
* a deactivated node sends one stop, then nothing, and drives again once reactivated;
* every robot arrives, no contact (the test's own observer, on ground truth);
* cleanup and shutdown through the lifecycle services; every process exits 0."""

import os
import sys
import tempfile
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
from launch_ros.actions import Node  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # launch_test FILE too
from fleet_watch import FleetWatch  # noqa: E402
from nav2_stand_in import BACKUP_SPEED, Nav2StandIn  # noqa: E402

SCENARIO = "crossing_4"
ROBOTS = ("north", "south", "east", "west")
REVERSING = "east"  # its controller drives the route backwards
TELEOP = {"before": "north", "holding": "west"}
PAUSED = "south"  # deactivated for a while on its way
WALL_LIMIT_S = 120.0


def _params_file():
    """The shipped config/nav2/orca_node.yaml, and a section per robot naming its odometry
    frame (fleet_sim's '<robot>/odom'), as a fleet's parameters file would."""
    share = get_package_share_directory("orca_ros")
    with open(os.path.join(share, "config", "nav2", "orca_node.yaml")) as stream:
        document = yaml.safe_load(stream)
    for robot in ROBOTS:
        document[f"/{robot}/orca_node"] = {"ros__parameters": {"odom_frame": f"{robot}/odom"}}
    handle = tempfile.NamedTemporaryFile("w", prefix="orca_nav2_", suffix=".yaml", delete=False)
    with handle:
        yaml.safe_dump(document, handle)
    return handle.name


@pytest.mark.launch_test
def generate_test_description():
    share = get_package_share_directory("orca_ros")
    return launch.LaunchDescription([
        Node(package="orca_ros", executable="fleet_sim", name="fleet_sim", output="screen",
             parameters=[{"scenario": SCENARIO, "kinematics": "diff_drive",
                          "odom_frame": "per_robot", "world_frame": "map",
                          "enable_stamped_cmd_vel": False}]),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(os.path.join(share, "launch", "nav2.launch.py")),
            launch_arguments={"robots": " ".join(ROBOTS), "lifecycle": "true",
                              "autostart": "false", "enable_stamped_cmd_vel": "false",
                              "params_file": _params_file()}.items()),
        launch_testing.actions.ReadyToTest(),
    ])


class TestNav2Chain(unittest.TestCase):

    def test_reverse_passes_silent_while_inactive_or_holding_no_contact(self, proc_output):
        from lifecycle_msgs.msg import Transition as T

        watch = FleetWatch(SCENARIO, node_name="nav2_chain_watch", pose_topic="ground_truth")
        nav2 = Nav2StandIn(list(ROBOTS), watch.goal, reversing=(REVERSING,),
                           arrive_within=0.5 * min(watch.tolerance.values()))
        try:
            self.assertTrue(nav2.services_ready(60.0), "no lifecycle services or no truth")

            # Unconfigured: a teleop drives north; no orca_node says a word.
            start, since = nav2.position(TELEOP["before"]), time.monotonic()
            nav2.set_teleop(TELEOP["before"], 0.15)
            time.sleep(2.0)
            nav2.set_teleop(TELEOP["before"], on=False)
            self.assertGreater(_moved(nav2, TELEOP["before"], start), 0.1, "teleop fought")
            for robot in ROBOTS:
                self.assertTrue(nav2.transition(robot, T.TRANSITION_CONFIGURE), robot)
            time.sleep(1.0)
            self.assertEqual(_all_commands(nav2, since), {}, "commands while not active")

            # Active, holding before any cmd_vel_in: silent; the teleop on west drives.
            for robot in ROBOTS:
                self.assertTrue(nav2.transition(robot, T.TRANSITION_ACTIVATE), robot)
                self.assertEqual(nav2.state(robot), "active")
            start, since = nav2.position(TELEOP["holding"]), time.monotonic()
            nav2.set_teleop(TELEOP["holding"], 0.15)
            time.sleep(2.0)
            nav2.set_teleop(TELEOP["holding"], on=False)
            self.assertGreater(_moved(nav2, TELEOP["holding"], start), 0.1, "teleop fought")
            self.assertEqual(_all_commands(nav2, since), {}, "commands while holding")

            # BackUp 0.3 m: the reversing command passes unchanged.
            backing = [r for r in ROBOTS if r != REVERSING]
            starts, since = {r: nav2.position(r) for r in backing}, time.monotonic()
            for robot in backing:
                nav2.set_mode(robot, "backup")
            self.assertTrue(nav2.wait_for(lambda: all(nav2.mode[r] == "idle" for r in backing),
                                          30.0), f"BackUp unfinished: {nav2.mode}")
            for robot in backing:
                passed = [c for c in nav2.commands(robot, since) if c[1] == -BACKUP_SPEED]
                self.assertGreater(len(passed), 10, f"{robot}: BackUp's command never passed")
                self.assertAlmostEqual(_moved(nav2, robot, starts[robot]), 0.3, delta=0.08)

            # Drive: east backwards all the way; south paused on its way, then resumed.
            since = time.monotonic()
            for robot in ROBOTS:
                nav2.set_mode(robot, "drive")
            time.sleep(6.0)
            self.assertTrue(nav2.transition(PAUSED, T.TRANSITION_DEACTIVATE))
            paused = time.monotonic()
            time.sleep(3.0)
            after = nav2.commands(PAUSED, paused)
            self.assertLessEqual(len(after), 1, f"{PAUSED} spoke while inactive: {after}")
            self.assertTrue(all(c[1] == 0.0 and c[2] == 0.0 for c in after))
            self.assertTrue(nav2.transition(PAUSED, T.TRANSITION_ACTIVATE))
            watch.check_all_arrive_without_contact(self, WALL_LIMIT_S)
            backwards = [c for c in nav2.commands(REVERSING, since) if c[1] < -0.05]
            self.assertGreater(len(backwards), 30, "the reversing controller was not carried")
            self.assertGreater(len(nav2.commands(PAUSED, paused + 3.0)), 10,
                               f"{PAUSED} did not drive again once reactivated")

            # Nav2 brought down: cleanup and shutdown through the services.
            for robot in ROBOTS:
                self.assertTrue(nav2.transition(robot, T.TRANSITION_DEACTIVATE), robot)
                self.assertTrue(nav2.transition(robot, T.TRANSITION_CLEANUP), robot)
                self.assertEqual(nav2.state(robot), "unconfigured")
                self.assertTrue(nav2.transition(robot, T.TRANSITION_UNCONFIGURED_SHUTDOWN))
                self.assertEqual(nav2.state(robot), "finalized")
        finally:
            nav2.close()
            watch.close()


def _moved(nav2, robot, start):
    import math

    return math.dist(nav2.position(robot), start)


def _all_commands(nav2, since):
    return {r: nav2.commands(r, since) for r in ROBOTS if nav2.commands(r, since)}


@launch_testing.post_shutdown_test()
class TestNav2ChainShutdown(unittest.TestCase):

    def test_every_process_exits_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)
