"""The orca_nodes of a Nav2 fleet (nav2.launch.py): one per robot namespace, in filter
mode between Nav2's velocity smoother and collision monitor; pure (no files written,
nothing launched).

    controller_server -> cmd_vel_nav -> velocity_smoother -> cmd_vel_smoothed
      -> orca_node (cmd_vel_in:=cmd_vel_smoothed, cmd_vel:=cmd_vel_orca)
      -> collision_monitor (cmd_vel_in_topic: cmd_vel_orca) -> cmd_vel

On Humble, whose chain has no collision monitor, orca_node commands the robot."""

from __future__ import annotations

from .gazebo import stamped_for_distro
from .nodespec import NodeSpec

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
