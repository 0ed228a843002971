"""toio Core Cubes on a mat: the bridge plus one orca_node per cube.

    ros2 launch orca_ros toio.launch.py cubes:="[c1=ble:toio-a9R, c2=ble:E4:11:22:33:44:55]"
    ros2 launch orca_ros toio.launch.py scenario:=toio_ring_swap_6 simulated:=true rviz:=true

Real cubes run on wall time; simulated ones on the bridge's /clock. Send goals with
RViz "2D Goal Pose" to /<cube>/goal_pose, or pass a scenario with send_goals:=true.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from orca_ros.core.methods import method_names
from orca_ros.fleet.launch import launch_actions
from orca_ros.fleet.plan import DEFAULT_ROBOTS_PER_PROCESS, process_plan, shutdown_grace, toio_plan
from orca_ros.tools.rviz import rviz_actions

ARGUMENTS = {
    "cubes": ("[]", "cube entries: name=ble:<address or name fragment> (or name=simulated)"),
    "scenario": ("", "scenario (mat, cube names and starts, goals)"),
    "simulated": ("false", "simulate every scenario cube instead of using BLE"),
    "mat": ("collection_ring", "mat name"),
    "send_goals": ("false", "send the scenario's goals"),
    "method": ("orca", "avoidance method"),
    "rviz": ("false", "also start RViz 2 with a configuration for this fleet "
                      "(obstacles, robots, ORCA markers, supervisor cocoons)"),
    "robots_per_process": (str(DEFAULT_ROBOTS_PER_PROCESS),
                           "orca_nodes per process (1: one process per cube)"),
}


def _nodes(context):
    value = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    chosen = LaunchConfiguration("sigterm_timeout", default="").perform(context)
    cubes = [c.strip() for c in value["cubes"].strip("[]").split(",") if c.strip()]
    plan = toio_plan(cubes, scenario=value["scenario"] or None, mat=value["mat"],
                     simulated=value["simulated"].lower() == "true",
                     send_goals=value["send_goals"].lower() == "true", method=value["method"])
    processes = process_plan(plan, int(value["robots_per_process"]))
    nodes = sum(max(1, len(process.hosted)) for process in processes)
    # launch's own argument sigterm_timeout:=S wins; otherwise the fleet's size sets it.
    actions = launch_actions(processes, chosen or str(shutdown_grace(nodes)))
    return actions + (rviz_actions(plan) if value["rviz"].lower() == "true" else [])


def generate_launch_description():
    return LaunchDescription(
        [DeclareLaunchArgument(n, default_value=d, description=t,
                               **({"choices": list(method_names(ros=True))} if n == "method"
                                  else {}))
         for n, (d, t) in ARGUMENTS.items()] + [OpaqueFunction(function=_nodes)])
