"""Launch a whole simulated fleet: fleet_sim, obstacle_server, one orca_node per robot.

    ros2 launch orca_ros fleet_sim.launch.py scenario:=corridor_wall kinematics:=diff_drive
    ros2 launch orca_ros fleet_sim.launch.py scenario:=crossing_4 method:=direct
    ros2 launch orca_ros fleet_sim.launch.py scenario:=crossing_4 robots_per_process:=1
    ros2 launch orca_ros fleet_sim.launch.py scenario:=crossing_4 supervisor:=true rviz:=true
    ros2 launch orca_ros fleet_sim.launch.py scenario:=crossing_4 odom_frame:=per_robot
    ros2 launch orca_ros fleet_sim.launch.py scenario:=corridor_wall kinematics:=diff_drive \
        engine:=mujoco
    ros2 launch orca_ros fleet_sim.launch.py scenario:=crossing_4 preferred_velocity:=topic \
        driver:=straight

The node list comes from orca_ros.fleet.plan.fleet_plan, the same plan `orca-ros sim` runs;
robots_per_process orca_nodes share one process (orca_robots), each still its own node.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from orca_ros.core.methods import method_names
from orca_ros.fleet.launch import launch_actions
from orca_ros.fleet.plan import (DEFAULT_ROBOTS_PER_PROCESS, DRIVERS, ENGINES, ODOM_FRAMES,
                                 PREFERRED_VELOCITY_SOURCES, FleetOptions, fleet_plan,
                                 process_plan, shutdown_grace)
from orca_ros.tools.rviz import rviz_actions

ARGUMENTS = {
    "scenario": ("crossing_4", "scenario file or built-in scenario name"),
    "kinematics": ("holonomic", "holonomic | diff_drive"),
    "method": ("orca", "avoidance method"),
    "planner": ("", "deprecated: planner:=direct is method:=direct"),
    "supervisor": ("false", "also run the cocoon supervisor"),
    "speed_factor": ("1.0", "sim seconds per wall second"),
    "enable_stamped_cmd_vel": ("true", "cmd_vel as TwistStamped (fleet_sim then times "
                               "each command from its stamp, not its arrival)"),
    "rviz": ("false", "also start RViz 2 with a configuration for this fleet "
                      "(obstacles, robots, ORCA markers, supervisor cocoons)"),
    "robots_per_process": (str(DEFAULT_ROBOTS_PER_PROCESS),
                           "orca_nodes per process (1: one process per robot)"),
    "odom_frame": ("shared", "shared: odometry in the shared frame; per_robot: each robot's "
                   "drifting odometry in '<robot>/odom', placed by a localization on "
                   "'<robot>/amcl_pose', the truth on '<robot>/ground_truth'"),
    "preferred_velocity": ("goal", "goal: fleet_sim sends each robot its goal; topic: each "
                           "orca_node in filter mode, its preferred velocity from "
                           "'/<robot>/cmd_vel_in' (nobody sends goals)"),
    "driver": ("none", "with preferred_velocity:=topic, straight: also start a naive driver "
                       "that publishes each cmd_vel_in straight at the robot's goal; none: "
                       "something else publishes them"),
    "scan_obstacles": ("false", "fleet_sim's lasers on ('/<robot>/scan'), and every "
                                "orca_node avoids what its laser sees that no map, wall "
                                "or neighbour explains"),
    "engine": ("kinematic", "what moves fleet_sim's robots: kinematic bodies, or mujoco (a "
                            "physics engine: mass, wheel slip, motor torque limits, contacts "
                            "that push; needs the 'physics' extra)"),
    "robot_model": ("", "with engine:=mujoco, the robots' MJCF file (empty: orca_ros's model "
                        "of their type, fitted to each robot's radius)"),
    "neighbor_cell_size": ("0.0", "neighbours' states from the floor's squares of this "
                           "side (m) near each robot, not every robot's on /orca/states "
                           "(orca_node's neighbor_cell_size); 0: off"),
}


CHOICES = {"method": method_names(ros=True), "odom_frame": ODOM_FRAMES,
           "preferred_velocity": PREFERRED_VELOCITY_SOURCES, "driver": DRIVERS,
           "engine": ENGINES}


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "on")


def _cells(text: str):
    size = float(text)
    return (("neighbor_cell_size", size),) if size else ()


def _nodes(context):
    value = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    chosen = LaunchConfiguration("sigterm_timeout", default="").perform(context)
    method = "direct" if value["planner"] == "direct" else value["method"]
    options = FleetOptions(method=method, kinematics=value["kinematics"],
                           speed_factor=float(value["speed_factor"]),
                           enable_stamped_cmd_vel=_truthy(value["enable_stamped_cmd_vel"]),
                           supervisor=_truthy(value["supervisor"]),
                           robot_parameters=_cells(value["neighbor_cell_size"]),
                           odom_frame=value["odom_frame"],
                           preferred_velocity=value["preferred_velocity"],
                           driver=value["driver"],
                           scan_obstacles=_truthy(value["scan_obstacles"]),
                           engine=value["engine"], robot_model=value["robot_model"])
    plan = fleet_plan(value["scenario"], options)
    processes = process_plan(plan, int(value["robots_per_process"]))
    # launch's own argument sigterm_timeout:=S wins; otherwise the fleet's size sets it.
    nodes = sum(max(1, len(process.hosted)) for process in processes)
    actions = launch_actions(processes, chosen or str(shutdown_grace(nodes)))
    return actions + (rviz_actions(plan) if _truthy(value["rviz"]) else [])


def generate_launch_description():
    arguments = [DeclareLaunchArgument(name, default_value=default, description=text,
                                       **({"choices": list(CHOICES[name])}
                                          if name in CHOICES else {}))
                 for name, (default, text) in ARGUMENTS.items()]
    return LaunchDescription(arguments + [OpaqueFunction(function=_nodes)])
