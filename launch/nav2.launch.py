"""orca_node inside Nav2's velocity chain (filter mode), one per robot of a Nav2 fleet.

    ros2 launch orca_ros nav2.launch.py robots:="robot1 robot2"
    ros2 launch orca_ros nav2.launch.py robots:=robot1 params_file:=my_orca_nav2.yaml

In each robot's namespace orca_node takes velocity_smoother's output as its preferred
velocity and hands collision_monitor what avoidance leaves of it:

    controller_server -> cmd_vel_nav -> velocity_smoother -> cmd_vel_smoothed
      -> orca_node (cmd_vel_in:=cmd_vel_smoothed, cmd_vel:=cmd_vel_orca)
      -> collision_monitor (cmd_vel_in_topic: cmd_vel_orca) -> cmd_vel

Merge config/nav2/nav2_params_overlay.yaml into your Nav2 parameters so that the
collision monitor reads cmd_vel_orca. Frames and topics are Nav2's multi-robot bringup's
(config/nav2/orca_node.yaml): odom in odom, amcl_pose in map. Commands are Twist on
Jazzy and TwistStamped from Kilted on, as Nav2's enable_stamped_cmd_vel defaults.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from orca_ros.fleet.gazebo import stamped_for_distro
from orca_ros.fleet.plan import NodeSpec, shutdown_grace

SMOOTHED = "cmd_vel_smoothed"  # velocity_smoother's output
TO_COLLISION_MONITOR = "cmd_vel_orca"  # collision_monitor's cmd_vel_in_topic (the overlay)


def nav2_specs(robots, stamped, use_sim_time):
    """One orca_node per robot namespace, remapped into Nav2's velocity chain (its
    parameters: these, over the parameters file's)."""
    return [NodeSpec("orca_node", "orca_node", namespace=robot, parameters={
        "enable_stamped_cmd_vel": stamped, "use_sim_time": use_sim_time},
        remappings=(("cmd_vel_in", SMOOTHED), ("cmd_vel", TO_COLLISION_MONITOR)))
        for robot in robots]


def _nodes(context):
    from launch_ros.actions import Node

    from orca_ros.fleet.launch import shutdown_environment

    robots = LaunchConfiguration("robots").perform(context).replace(",", " ").split()
    if not robots:
        raise ValueError("nav2.launch.py: give robots:='robot1 robot2 ...' (namespaces)")
    chosen = LaunchConfiguration("enable_stamped_cmd_vel").perform(context)
    stamped = chosen.strip().lower() == "true" if chosen else \
        stamped_for_distro(os.environ.get("ROS_DISTRO"))
    use_sim_time = LaunchConfiguration("use_sim_time").perform(context).lower() == "true"
    params_file = LaunchConfiguration("params_file").perform(context)
    grace = str(shutdown_grace(len(robots)))
    actions = []
    for spec in nav2_specs(robots, stamped, use_sim_time):
        actions.append(Node(package=spec.package, executable=spec.executable, name=spec.name,
                            namespace=spec.namespace, output="screen",
                            parameters=[params_file, spec.parameters],
                            remappings=list(spec.remappings), sigterm_timeout=grace,
                            additional_env=shutdown_environment(grace)))
    return actions


def generate_launch_description():
    default = os.path.join(get_package_share_directory("orca_ros"), "config", "nav2",
                           "orca_node.yaml")
    return LaunchDescription([
        DeclareLaunchArgument("robots", default_value="",
                              description="the Nav2 robots' namespaces, 'robot1 robot2 ...'"),
        DeclareLaunchArgument("params_file", default_value=default,
                              description="orca_node parameters (/**: ros__parameters:)"),
        DeclareLaunchArgument("enable_stamped_cmd_vel", default_value="",
                              description="TwistStamped in and out; '' = as Nav2 of "
                                          "ROS_DISTRO (Jazzy: Twist; Kilted on: stamped)"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="true under Gazebo"),
        OpaqueFunction(function=_nodes),
    ])
