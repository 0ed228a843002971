"""orca_node inside Nav2's velocity chain (filter mode), one per robot of a Nav2 fleet.

    ros2 launch orca_ros nav2.launch.py robots:="robot1 robot2"
    ros2 launch orca_ros nav2.launch.py namespace:=robot1 params_file:=my_orca_nav2.yaml

Arguments as Nav2's bringup names them: namespace (one robot; robots:= for several in one
launch, each then holding until it has heard the others), params_file, use_sim_time,
use_respawn, log_level, autostart; enable_stamped_cmd_vel; lifecycle:=true starts
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

from orca_ros.fleet.gazebo import stamped_for_distro
from orca_ros.fleet.plan import NodeSpec, shutdown_grace

SMOOTHED = "cmd_vel_smoothed"  # velocity_smoother's output
TO_COLLISION_MONITOR = "cmd_vel_orca"  # collision_monitor's cmd_vel_in_topic (the overlay)
TO_ROBOT = "cmd_vel"  # Humble: the chain ends at the smoother, straight to the robot
HUMBLE_NOTE = ("nav2.launch.py on Humble: Nav2's Humble bringup has no collision_monitor "
               "in its chain, and its velocity_smoother publishes cmd_vel itself "
               "(remapping cmd_vel_smoothed:=cmd_vel). Remove that remapping in your "
               "bringup so the smoother publishes cmd_vel_smoothed; orca_node then "
               "publishes cmd_vel to the robot. Left as it is, two nodes command the "
               "robot and orca_node's diagnostics say so.")


def chain_output(distro):
    """Where orca_node's command goes in Nav2's chain of ``distro``: to collision_monitor
    (Iron on), or, on Humble, whose chain has none, to the robot."""
    return TO_ROBOT if (distro or "").strip().lower() == "humble" else TO_COLLISION_MONITOR


def nav2_specs(robots, stamped, use_sim_time, distro="jazzy"):
    """One orca_node per robot namespace, remapped into Nav2's velocity chain (its
    parameters: these, over the parameters file's). ``stamped`` None: as the file says.
    Robots launched together each hold until they have heard the others
    (``fleet_robots``)."""
    specs = []
    for robot in robots:
        parameters = {"use_sim_time": use_sim_time}
        if stamped is not None:
            parameters["enable_stamped_cmd_vel"] = stamped
        others = [r for r in robots if r != robot]
        if others:
            parameters["fleet_robots"] = others
        specs.append(NodeSpec("orca_node", "orca_node", namespace=robot, parameters=parameters,
                              remappings=(("cmd_vel_in", SMOOTHED),
                                          ("cmd_vel", chain_output(distro)))))
    return specs


def stamped_choice(chosen, params_file, distro):
    """TwistStamped or not: the argument when given ('true'/'false'), else the parameters
    file's ``enable_stamped_cmd_vel`` (None: left to it), else as Nav2 of ``distro``."""
    if chosen.strip():
        return chosen.strip().lower() == "true"
    import yaml

    with open(params_file) as stream:
        document = yaml.safe_load(stream) or {}
    for section in document.values():
        if "enable_stamped_cmd_vel" in ((section or {}).get("ros__parameters") or {}):
            return None
    return stamped_for_distro(distro)


def robots_of(robots, namespace):
    """The robots to start: ``robots`` ('a b', or 'a,b'), or Nav2's one ``namespace``."""
    names = robots.replace(",", " ").split()
    namespace = namespace.strip().strip("/")
    if namespace and names and names != [namespace]:
        raise ValueError(f"nav2.launch.py: give namespace:= (one robot) or robots:= "
                         f"(several), not both (namespace {namespace!r}, robots {names})")
    names = names or ([namespace] if namespace else [])
    if not names:
        raise ValueError("nav2.launch.py: give namespace:=robot1, or robots:='robot1 "
                         "robot2 ...' (namespaces)")
    return names


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
    return actions


MANAGED = "orca_lifecycle_node"  # orca_node as a lifecycle node


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
        OpaqueFunction(function=_nodes),
    ])
