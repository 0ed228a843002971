"""Launch a whole simulated fleet: fleet_sim, obstacle_server, one orca_node per robot.

    ros2 launch orca_ros fleet_sim.launch.py scenario:=corridor_wall kinematics:=diff_drive
    ros2 launch orca_ros fleet_sim.launch.py scenario:=crossing_4 method:=direct

The node list comes from orca_ros.fleet.fleet_plan, the same plan `orca-ros sim` runs.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from orca_ros.core.methods import method_names
from orca_ros.fleet import FleetOptions, fleet_plan, shutdown_environment, shutdown_grace

ARGUMENTS = {
    "scenario": ("crossing_4", "scenario file or built-in scenario name"),
    "kinematics": ("holonomic", "holonomic | diff_drive"),
    "method": ("orca", "avoidance method"),
    "planner": ("", "deprecated: planner:=direct is method:=direct"),
    "supervisor": ("false", "also run the cocoon supervisor"),
    "speed_factor": ("1.0", "sim seconds per wall second"),
    "enable_stamped_cmd_vel": ("true", "cmd_vel as TwistStamped (fleet_sim then times "
                               "each command from its stamp, not its arrival)"),
}


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


def _nodes(context):
    value = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    chosen = LaunchConfiguration("sigterm_timeout", default="").perform(context)
    method = "direct" if value["planner"] == "direct" else value["method"]
    options = FleetOptions(method=method, kinematics=value["kinematics"],
                           speed_factor=float(value["speed_factor"]),
                           enable_stamped_cmd_vel=_truthy(value["enable_stamped_cmd_vel"]),
                           supervisor=_truthy(value["supervisor"]))
    plan = fleet_plan(value["scenario"], options)
    # launch's own argument sigterm_timeout:=S wins; otherwise the fleet's size sets it.
    grace = chosen or str(shutdown_grace(len(plan)))
    return [Node(package=spec.package, executable=spec.executable, name=spec.name,
                 namespace=spec.namespace or None, parameters=[spec.parameters],
                 remappings=list(spec.remappings), output="screen", sigterm_timeout=grace,
                 additional_env=shutdown_environment(grace))
            for spec in plan]


def generate_launch_description():
    arguments = [DeclareLaunchArgument(name, default_value=default, description=text,
                                       **({"choices": list(method_names(ros=True))}
                                          if name == "method" else {}))
                 for name, (default, text) in ARGUMENTS.items()]
    return LaunchDescription(arguments + [OpaqueFunction(function=_nodes)])
