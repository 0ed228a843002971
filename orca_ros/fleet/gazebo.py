"""Robots in a running gz-sim as orca_ros robots: per robot, a ``ros_gz_bridge``
configuration and the orca_node that drives it (``launch/gazebo.launch.py``).

gz-sim's DiffDrive system publishes odometry on ``/model/<robot>/odometry`` in the frame
``<robot>/odom``, whose origin is the robot's spawn pose, and takes ``gz.msgs.Twist`` on
``/model/<robot>/cmd_vel``; its OdometryPublisher system, with ``odom_frame`` set to the
world's frame and ``odom_topic`` to ``/model/<robot>/ground_truth``, gives the truth in the
world frame. The bridge passes these on under the same names (the truth as
``/<robot>/ground_truth``, as fleet_sim names it) and ``/clock``. orca_node places its
odometry in the shared frame with the spawn pose (``pose_source: odom_origin``), or with
a localization when one runs (``pose_source: localization``)::

    world (the shared frame: goals, walls, every robot's announced state)
     +-- <robot>/odom          at the spawn pose (odom_origin); or map -> odom from AMCL
          +-- <robot>/chassis  DiffDrive's odometry

``fleet_sim`` with ``topics: gazebo`` publishes under the same names and frames, so the
parameters made here run in CI without Gazebo (``FleetOptions(topics="gazebo")``).
Nothing here imports rclpy.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .nodespec import NodeSpec

GZ_TWIST = "gz.msgs.Twist"
GZ_ODOMETRY = "gz.msgs.Odometry"
GZ_CLOCK = "gz.msgs.Clock"
ROS_ODOMETRY = "nav_msgs/msg/Odometry"
ROS_CLOCK = "rosgraph_msgs/msg/Clock"
STAMPED_FROM = ("kilted", "lyrical", "rolling")
"""Distributions whose Nav2 sends TwistStamped commands by default
(``enable_stamped_cmd_vel``); Humble and Jazzy send Twist."""


@dataclass(frozen=True)
class GazeboRobot:
    """A robot spawned in gz-sim: its model name (also its ROS namespace) and its spawn
    pose in the world frame (m, m, rad)."""

    name: str
    x: float
    y: float
    yaw: float = 0.0

    def __post_init__(self) -> None:
        if not self.name or "/" in self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(f"a robot's name is a ROS name without slashes, got {self.name!r}")
        if not all(math.isfinite(v) for v in (self.x, self.y, self.yaw)):
            raise ValueError(f"robot {self.name}: its spawn pose must be finite, "
                             f"got {(self.x, self.y, self.yaw)}")


def parse_robots(text: str) -> List[GazeboRobot]:
    """``robot1:0,0,0 robot2:4,0,3.1416`` (name:x,y[,yaw], separated by spaces or ``;``)
    -> robots. A malformed entry is refused, named."""
    robots = []
    for entry in text.replace(";", " ").split():
        name, sep, pose = entry.partition(":")
        try:
            values = [float(v) for v in pose.split(",")] if sep else []
        except ValueError:
            values = []
        if len(values) not in (2, 3):
            raise ValueError(f"robot entry {entry!r}: expected name:x,y or name:x,y,yaw")
        robots.append(GazeboRobot(name, *values))
    names = [r.name for r in robots]
    if len(set(names)) != len(names):
        raise ValueError(f"robot names must differ, got {names}")
    return robots


def stamped_for_distro(distro: Optional[str]) -> bool:
    """Whether commands are TwistStamped, as Nav2 of that distribution sends them
    (``ROS_DISTRO``; unknown or unset: stamped, the newer default)."""
    return (distro or "").strip().lower() not in ("humble", "iron", "jazzy")


def cmd_vel_type(stamped: bool) -> str:
    return "geometry_msgs/msg/TwistStamped" if stamped else "geometry_msgs/msg/Twist"


def bridge_config(robot: str, stamped: bool) -> List[Dict[str, str]]:
    """ros_gz_bridge's configuration (its YAML's entries) for one robot: DiffDrive's
    odometry and the world-frame truth from gz to ROS, commands from ROS to gz."""
    return [
        {"ros_topic_name": f"/model/{robot}/odometry", "gz_topic_name": f"/model/{robot}/odometry",
         "ros_type_name": ROS_ODOMETRY, "gz_type_name": GZ_ODOMETRY, "direction": "GZ_TO_ROS"},
        {"ros_topic_name": f"/{robot}/ground_truth",
         "gz_topic_name": f"/model/{robot}/ground_truth",
         "ros_type_name": ROS_ODOMETRY, "gz_type_name": GZ_ODOMETRY, "direction": "GZ_TO_ROS"},
        {"ros_topic_name": f"/model/{robot}/cmd_vel", "gz_topic_name": f"/model/{robot}/cmd_vel",
         "ros_type_name": cmd_vel_type(stamped), "gz_type_name": GZ_TWIST,
         "direction": "ROS_TO_GZ"},
    ]


CLOCK_BRIDGE = [{"ros_topic_name": "/clock", "gz_topic_name": "/clock",
                 "ros_type_name": ROS_CLOCK, "gz_type_name": GZ_CLOCK,
                 "direction": "GZ_TO_ROS"}]
"""gz-sim's simulated time for every node with ``use_sim_time``."""


def gazebo_wiring(robot: GazeboRobot, stamped: bool) -> Dict[str, Any]:
    """orca_node parameters for a robot in gz-sim: odometry in ``<robot>/odom`` placed by
    the spawn pose, commands of the distribution's type, on simulated time, neighbours
    from what they announce (their odometry is in frames of their own)."""
    return {"pose_source": "odom_origin", "odom_frame": f"{robot.name}/odom",
            "odom_origin": [robot.x, robot.y, robot.yaw],
            "enable_stamped_cmd_vel": stamped, "use_sim_time": True,
            "discover_odometry": False}


def parameters_file_sections(path: str, robots: Sequence[str]
                             ) -> Tuple[Dict[str, Any], Dict[str, Dict[str, Any]]]:
    """A ROS parameters file's orca_node parameters: those for every node (``/**``), and
    each robot's own (``/<robot>/orca_node``, also without the leading slash or as
    ``/<robot>/**``)."""
    import yaml

    with open(path, encoding="utf-8") as stream:
        loaded = yaml.safe_load(stream) or {}

    def section(key):
        return dict(((loaded.get(key) or {}).get("ros__parameters")) or {})
    every = section("/**")
    own = {}
    for robot in robots:
        mine = {}
        for key in (f"/{robot}/**", f"{robot}/**", f"/{robot}/orca_node", f"{robot}/orca_node"):
            mine.update(section(key))
        if mine:
            own[robot] = mine
    return every, own


def robot_remappings(name: str) -> Tuple[Tuple[str, str], ...]:
    """orca_node's ``odom`` and ``cmd_vel`` onto DiffDrive's topics, as bridged."""
    return (("odom", f"/model/{name}/odometry"), ("cmd_vel", f"/model/{name}/cmd_vel"))


def bridge_files(robots: Sequence[GazeboRobot], stamped: bool, config_dir: str
                 ) -> Dict[str, List[Dict[str, str]]]:
    """The ``parameter_bridge`` configurations :func:`gazebo_plan`'s bridges read, by the
    path of their YAML file in ``config_dir``: one for ``/clock``, one per robot. The
    caller writes them (:func:`orca_ros.fleet.launch.write_yaml_files`) before the nodes
    start."""
    return {os.path.join(config_dir, f"bridge_{name}.yaml"): entries
            for name, entries in [("clock", CLOCK_BRIDGE)]
            + [(robot.name, bridge_config(robot.name, stamped)) for robot in robots]}


def gazebo_plan(robots: Sequence[GazeboRobot], stamped: bool, config_dir: str,
                robot_parameters_extra: Optional[Dict[str, Any]] = None,
                per_robot: Optional[Dict[str, Dict[str, Any]]] = None,
                scenario: Optional[str] = None, bridge: bool = True,
                localization: bool = False, preferred_velocity: str = "goal",
                file_per_robot: Optional[Dict[str, Dict[str, Any]]] = None) -> List[NodeSpec]:
    """The nodes for robots in a running gz-sim: a ``parameter_bridge`` per robot and one
    for ``/clock`` (each reading its YAML in ``config_dir``, :func:`bridge_files`, which
    the caller writes: the plan itself writes nothing); an obstacle_server for a
    scenario's walls; an orca_node per robot.

    An orca_node's parameters, each layer over the one before: a parameters file's for
    every robot (``robot_parameters_extra``), the file's for that robot
    (``file_per_robot``), the scenario's for it (``per_robot``: radius, speeds), then
    what the launch itself must set for gz: the pose from the spawn pose (or, with
    ``localization``, from ``amcl_pose`` in ``map``, the shared frame then), simulated
    time, the command type (``stamped``, the bridge's too), the walls' source.
    A file cannot unplace the robots."""
    plan: List[NodeSpec] = []
    if bridge:
        for path in bridge_files(robots, stamped, config_dir):
            name = os.path.basename(path)[:-len(".yaml")]
            plan.append(NodeSpec("parameter_bridge", name, package="ros_gz_bridge",
                                 parameters={"config_file": path, "use_sim_time": True}))
    sources: List[str] = []
    if scenario:
        walls = NodeSpec("obstacle_server", "obstacle_server",
                         parameters={"scenario": scenario, "use_sim_time": True})
        plan.append(walls)
        sources = [walls.marker_namespace]
    for robot in robots:
        parameters = dict(robot_parameters_extra or {})
        parameters.update((file_per_robot or {}).get(robot.name, {}))
        parameters.update((per_robot or {}).get(robot.name, {}))
        wiring = gazebo_wiring(robot, stamped)
        if localization:
            wiring["pose_source"] = "localization"
            # AMCL's frame; a file's own choice of another stands (not the default world).
            chosen = parameters.get("world_frame", "world")
            wiring["world_frame"] = "map" if chosen == "world" else chosen
        parameters.update(wiring)
        if preferred_velocity != "goal":
            parameters["preferred_velocity"] = preferred_velocity
        if sources:
            parameters["obstacle_sources"] = sources
        plan.append(NodeSpec("orca_node", "orca_node", namespace=robot.name,
                             parameters=parameters, remappings=robot_remappings(robot.name)))
    if localization and scenario:
        # The scenario's walls in the shared frame of the localized robots (a map made
        # of the same world: its coordinates).
        walls.parameters["world_frame"] = plan[-1].parameters["world_frame"]
    return plan
