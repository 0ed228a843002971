"""orca_nodes for robots in a running gz-sim, each behind its own ros_gz_bridge.

    ros2 launch orca_ros gazebo.launch.py robots:="robot1:0,0,0 robot2:4,0,3.1416"
    ros2 launch orca_ros gazebo.launch.py scenario:=crossing_4 params_file:=my_robot.yaml
    ros2 launch orca_ros gazebo.launch.py robots:="robot1:0,0,0" pose_source:=localization

Each robot is a gz model with the DiffDrive system (odometry on /model/<robot>/odometry
in <robot>/odom, from its spawn pose; commands on /model/<robot>/cmd_vel) and, for
observers and tests, the OdometryPublisher system with odom_frame set to the world's
frame and odom_topic /model/<robot>/ground_truth. The spawn poses place each robot's
odom frame in the shared one (or, pose_source:=localization, its amcl_pose does). With
scenario:= the robots are the scenario's agents (names, spawn poses = starts, radii,
speeds) and its walls are served on /obstacles; send goals on /<robot>/goal_pose.
Commands are TwistStamped from Kilted on, Twist before (enable_stamped_cmd_vel:=).
The node list comes from orca_ros.fleet.gazebo.gazebo_plan; the bridges' YAML files
(orca_ros.fleet.gazebo.bridge_files) are written here, in a temporary folder.
"""

import os
import tempfile

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from orca_ros.fleet.gazebo import (GazeboRobot, bridge_files, gazebo_plan,
                                   parameters_file_sections, parse_robots, stamped_for_distro)
from orca_ros.fleet.launch import launch_actions, write_yaml_files
from orca_ros.fleet.plan import shutdown_grace

ARGUMENTS = {
    "robots": ("", "the gz models to drive and their spawn poses: 'name:x,y,yaw ...'"),
    "scenario": ("", "a scenario: its agents are the robots (spawned at their starts), "
                     "its walls go on /obstacles"),
    "params_file": ("", "orca_node parameters: /**: for every robot, /<robot>/orca_node: "
                        "for one (ros__parameters:)"),
    "pose_source": ("odom_origin", "odom_origin (the spawn pose places odom) | "
                                   "localization (amcl_pose in the shared frame does)"),
    "preferred_velocity": ("goal", "goal | topic (filter mode: cmd_vel_in)"),
    "enable_stamped_cmd_vel": ("", "TwistStamped commands; '' = as Nav2 of ROS_DISTRO"),
    "bridge": ("true", "start ros_gz_bridge for each robot and for /clock"),
}


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


def _robots(value):
    """The robots, and each one's own parameters (from a scenario)."""
    if not value["scenario"]:
        if not value["robots"]:
            raise ValueError("gazebo.launch.py: give robots:='name:x,y,yaw ...' or scenario:=")
        return parse_robots(value["robots"]), {}, None
    from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
    from orca_ros.fleet.plan import FleetOptions, robot_parameters

    path = str(resolve_scenario(value["scenario"]))
    scenario = load_scenario(path)
    options = FleetOptions(kinematics="diff_drive")
    robots = [GazeboRobot(a.name, a.start[0], a.start[1], a.start_heading)
              for a in scenario.agents]
    keep = ("radius", "max_speed", "pref_speed", "neighbor_dist", "max_neighbors",
            "time_horizon", "time_horizon_obst", "goal_tolerance", "kinematics")
    own = {a.name: {k: v for k, v in robot_parameters(scenario, a.name, options).items()
                    if k in keep} for a in scenario.agents}
    return robots, own, path


def _nodes(context):
    value = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    chosen = LaunchConfiguration("sigterm_timeout", default="").perform(context)
    robots, own, scenario = _robots(value)
    extra, mine = {}, {}
    if value["params_file"]:
        extra, mine = parameters_file_sections(value["params_file"], [r.name for r in robots])
    # The argument, else the file's choice, else Nav2's of the distro: for the bridge too.
    stamped = _truthy(value["enable_stamped_cmd_vel"]) if value["enable_stamped_cmd_vel"] \
        else bool(extra["enable_stamped_cmd_vel"]) if "enable_stamped_cmd_vel" in extra \
        else stamped_for_distro(os.environ.get("ROS_DISTRO"))
    config_dir = tempfile.mkdtemp(prefix="orca_gz_")
    if _truthy(value["bridge"]):
        write_yaml_files(bridge_files(robots, stamped, config_dir))
    plan = gazebo_plan(robots, stamped, config_dir,
                       robot_parameters_extra=extra, per_robot=own, scenario=scenario,
                       bridge=_truthy(value["bridge"]),
                       localization=value["pose_source"] == "localization",
                       preferred_velocity=value["preferred_velocity"], file_per_robot=mine)
    return launch_actions(plan, chosen or str(shutdown_grace(len(plan))))


def generate_launch_description():
    return LaunchDescription(
        [DeclareLaunchArgument(n, default_value=d, description=t,
                               **({"choices": ["odom_origin", "localization"]}
                                  if n == "pose_source" else
                                  {"choices": ["goal", "topic"]}
                                  if n == "preferred_velocity" else {}))
         for n, (d, t) in ARGUMENTS.items()] + [OpaqueFunction(function=_nodes)])
