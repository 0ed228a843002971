"""orca_node inside Nav2's velocity chain (filter mode), one per robot of a Nav2 fleet.

    ros2 launch orca_ros nav2.launch.py robots:="robot1 robot2"
    ros2 launch orca_ros nav2.launch.py namespace:=robot1 params_file:=my_orca_nav2.yaml

Arguments as Nav2's bringup names them: namespace (one robot; robots:= for several in one
launch, each then holding until it has heard the others), params_file, use_sim_time,
use_respawn, log_level, autostart; enable_stamped_cmd_vel; rviz; lifecycle:=true starts
orca_lifecycle_node, a managed node (silent until active), activated at once with
autostart:=true or left to a lifecycle manager.

In each robot's namespace orca_node takes velocity_smoother's output as its preferred
velocity and hands collision_monitor what avoidance leaves of it:

    controller_server -> cmd_vel_nav -> velocity_smoother -> cmd_vel_smoothed
      -> orca_node (cmd_vel_in:=cmd_vel_smoothed, cmd_vel:=cmd_vel_orca)
      -> collision_monitor (cmd_vel_in_topic: cmd_vel_orca) -> cmd_vel

Merge config/nav2/nav2_params_overlay.yaml into your Nav2 parameters so that the
collision monitor reads cmd_vel_orca. On Humble, whose chain has no collision monitor,
orca_node publishes cmd_vel to the robot, and the smoother must publish
cmd_vel_smoothed (remove its cmd_vel_smoothed:=cmd_vel remapping in your bringup).
Frames and topics are Nav2's multi-robot bringup's
(config/nav2/orca_node.yaml): odom in odom, amcl_pose in map. Commands are Twist on
Jazzy and TwistStamped from Kilted on, as Nav2's enable_stamped_cmd_vel defaults,
unless the parameters file or the argument says.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from orca_ros.fleet.nav2 import (HUMBLE_NOTE, TO_ROBOT, chain_output, nav2_specs,  # noqa: F401
                                 robots_of, stamped_choice)
from orca_ros.fleet.plan import shutdown_grace

MANAGED = "orca_lifecycle_node"  # orca_node as a lifecycle node


def _nodes(context):
    from launch_ros.actions import LifecycleNode, Node

    from orca_ros.fleet.launch import shutdown_environment

    def argument(name):
        return LaunchConfiguration(name).perform(context)

    from launch.actions import LogInfo

    robots = robots_of(argument("robots"), argument("namespace"))
    params_file = argument("params_file")
    distro = os.environ.get("ROS_DISTRO")
    stamped = stamped_choice(argument("enable_stamped_cmd_vel"), params_file, distro)
    use_sim_time = argument("use_sim_time").lower() == "true"
    respawn = argument("use_respawn").lower() == "true"
    grace = str(shutdown_grace(len(robots)))
    managed = argument("lifecycle").lower() == "true"
    autostart = argument("autostart").lower() == "true"
    actions = [LogInfo(msg=HUMBLE_NOTE)] if chain_output(distro) == TO_ROBOT else []
    for spec in nav2_specs(robots, stamped, use_sim_time, distro):
        common = dict(package=spec.package, name=spec.name, namespace=spec.namespace,
                      output="screen", parameters=[params_file, spec.parameters],
                      remappings=list(spec.remappings), sigterm_timeout=grace,
                      respawn=respawn, respawn_delay=2.0,
                      arguments=["--ros-args", "--log-level", argument("log_level")],
                      additional_env=shutdown_environment(grace))
        if not managed:
            actions.append(Node(executable=spec.executable, **common))
            continue
        node = LifecycleNode(executable=MANAGED, **common)
        actions.append(node)
        if autostart:  # configure, then activate once inactive: as lifecycle_manager would
            actions += _autostart(node)
    if argument("rviz").lower() == "true":
        from orca_ros.tools.rviz import nav2_config_text, rviz_actions

        actions += rviz_actions([], text=nav2_config_text(robots))
    return actions


def _autostart(node):
    from launch.actions import EmitEvent, RegisterEventHandler
    from launch.events import matches_action
    from launch_ros.event_handlers import OnStateTransition
    from launch_ros.events.lifecycle import ChangeState
    from lifecycle_msgs.msg import Transition

    def change(transition):
        return EmitEvent(event=ChangeState(lifecycle_node_matcher=matches_action(node),
                                           transition_id=transition))
    return [RegisterEventHandler(OnStateTransition(
                target_lifecycle_node=node, goal_state="inactive",
                entities=[change(Transition.TRANSITION_ACTIVATE)])),
            change(Transition.TRANSITION_CONFIGURE)]


def generate_launch_description():
    default = os.path.join(get_package_share_directory("orca_ros"), "config", "nav2",
                           "orca_node.yaml")
    return LaunchDescription([
        DeclareLaunchArgument("namespace", default_value="",
                              description="the robot's namespace, as Nav2's bringup"),
        DeclareLaunchArgument("robots", default_value="",
                              description="several robots' namespaces, 'robot1 robot2 ...' "
                                          "(instead of namespace)"),
        DeclareLaunchArgument("params_file", default_value=default,
                              description="orca_node parameters (/**: ros__parameters:)"),
        DeclareLaunchArgument("enable_stamped_cmd_vel", default_value="",
                              description="TwistStamped in and out; '' = as the "
                                          "params_file says, else as Nav2 of ROS_DISTRO "
                                          "(Jazzy: Twist; Kilted on: stamped)"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="true under Gazebo"),
        DeclareLaunchArgument("use_respawn", default_value="false",
                              description="restart an orca_node that ends, after 2 s"),
        DeclareLaunchArgument("log_level", default_value="info", description="log level"),
        DeclareLaunchArgument("lifecycle", default_value="false",
                              description="true: orca_lifecycle_node, a managed node for "
                                          "Nav2's lifecycle_manager (bond_timeout: 0.0)"),
        DeclareLaunchArgument("autostart", default_value="true",
                              description="with lifecycle: configure and activate at once "
                                          "(false: leave it to a lifecycle manager)"),
        DeclareLaunchArgument("rviz", default_value="false",
                              description="also start RViz 2 in map: every robot's "
                                          "footprint and ORCA markers "
                                          "(config/nav2_fleet.rviz for robot1..robot3)"),
        OpaqueFunction(function=_nodes),
    ])
