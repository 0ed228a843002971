"""RViz 2 configurations for a fleet, built from its node plan.

    python -m orca_ros.rviz crossing_4 --supervisor > config/fleet.rviz
    python -m orca_ros.rviz --nav2 robot1 robot2 robot3 > config/nav2_fleet.rviz

A configuration shows, in the fixed frame ``world``: the obstacles
(``/obstacles``, transient-local), the simulator's robots
(``/fleet_sim/robots``), each robot's odometry and its ORCA markers
(``/<robot>/orca/markers``: half-planes, preferred and chosen velocity,
neighbours) and the supervisor's cocoons and conflicts
(``/supervisor/markers``), each display only where the plan has the node
that publishes it; the "2D Goal Pose" tool sends to the first robot's
``goal_pose``. ``config/fleet.rviz`` is this for crossing_4 with the
supervisor; the launch files' ``rviz:=true`` writes one for the fleet they
start (:func:`rviz_actions`). A Nav2 fleet's (``--nav2``, nav2.launch.py's
``rviz:=true``) is in ``map``: each robot's footprint (``/<robot>/orca/footprint``)
and ORCA markers, which orca_node publishes in its shared frame, so the view needs
no robot's TF; their odometry is left out (each in its own ``odom``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence

import yaml

from ..fleet.nodespec import NodeSpec

FIXED_FRAME = "world"
DISPLAY_MESSAGE_TYPES = {
    # What RViz's default displays subscribe to (rviz_default_plugins).
    "rviz_default_plugins/Marker": "visualization_msgs/msg/Marker",
    "rviz_default_plugins/MarkerArray": "visualization_msgs/msg/MarkerArray",
    "rviz_default_plugins/Odometry": "nav_msgs/msg/Odometry",
    "rviz_default_plugins/Path": "nav_msgs/msg/Path",
    "rviz_default_plugins/Polygon": "geometry_msgs/msg/PolygonStamped",
}


def _topic(name: str, latched: bool = False, reliable: bool = True) -> Dict[str, Any]:
    return {"Depth": 5, "Durability Policy": "Transient Local" if latched else "Volatile",
            "History Policy": "Keep Last",
            "Reliability Policy": "Reliable" if reliable else "Best Effort", "Value": name}


def _display(kind: str, name: str, topic: str, latched: bool = False, **extra) -> Dict[str, Any]:
    return {"Class": f"rviz_default_plugins/{kind}", "Enabled": True, "Name": name,
            "Topic": _topic(topic, latched), "Value": True, **extra}


def _group(name: str, displays: List[Dict[str, Any]], enabled: bool = True) -> Dict[str, Any]:
    return {"Class": "rviz_common/Group", "Displays": displays, "Enabled": enabled,
            "Name": name, "Value": enabled}


def robots_of(plan: Sequence[NodeSpec]) -> List[str]:
    """The robots of a plan (its orca_nodes' namespaces, hosted ones included)."""
    names = []
    for spec in plan:
        for node in spec.hosted or (spec,):
            if node.executable == "orca_node" and node.namespace:
                names.append(node.namespace)
    return names


def rviz_config(plan: Sequence[NodeSpec], fixed_frame: str = FIXED_FRAME,
                odometry: bool = True) -> Dict[str, Any]:
    """The configuration (a dict, as RViz's YAML file holds it) for a plan's nodes, in
    ``fixed_frame`` (the fleet's shared frame). Each robot shows its footprint and ORCA
    markers, which are in the shared frame; ``odometry`` adds each robot's odometry,
    only for fleets whose odometry is in that frame too (a Nav2 robot's is in its own
    ``odom``, which the fleet's view has no TF for)."""
    executables = {node.executable for spec in plan for node in (spec.hosted or (spec,))}
    robots = robots_of(plan)
    displays: List[Dict[str, Any]] = [{
        "Class": "rviz_default_plugins/Grid", "Enabled": True, "Name": "Grid",
        "Cell Size": 0.5, "Plane Cell Count": 20, "Reference Frame": "<Fixed Frame>",
        "Color": "160; 160; 164", "Alpha": 0.5, "Value": True}]
    if "obstacle_server" in executables:
        displays.append(_display("Marker", "Obstacles", "/obstacles", latched=True))
    if "fleet_sim" in executables:
        displays.append(_display("MarkerArray", "Robots (fleet_sim)", "/fleet_sim/robots"))
    if robots and odometry:
        displays.append(_group("Odometry", [
            _display("Odometry", robot, f"/{robot}/odom", Shape={"Value": "Arrow"},
                     Keep=1, **{"Position Tolerance": 0.1, "Angle Tolerance": 0.1})
            for robot in robots]))
    if robots:
        displays.append(_group("Footprints", [
            _display("Polygon", robot, f"/{robot}/orca/footprint", Color="25; 255; 0")
            for robot in robots]))
        displays.append(_group("ORCA markers", [
            _display("MarkerArray", robot, f"/{robot}/orca/markers") for robot in robots]))
    if "supervisor_node" in executables:
        displays.append(_display("MarkerArray", "Supervisor cocoons", "/supervisor/markers"))
    goal_topic = f"/{robots[0]}/goal_pose" if robots else "/goal_pose"
    return {
        "Panels": [{"Class": "rviz_common/Displays", "Name": "Displays",
                    "Help Height": 0, "Property Tree Widget": {"Expanded": ["/ORCA markers1"]}},
                   {"Class": "rviz_common/Tool Properties", "Name": "Tool Properties"}],
        "Visualization Manager": {
            "Class": "", "Displays": displays, "Enabled": True, "Name": "root",
            "Global Options": {"Background Color": "48; 48; 48", "Fixed Frame": fixed_frame,
                               "Frame Rate": 30},
            "Tools": [{"Class": "rviz_default_plugins/Interact", "Hide Inactive Objects": True},
                      {"Class": "rviz_default_plugins/MoveCamera"},
                      {"Class": "rviz_default_plugins/Select"},
                      {"Class": "rviz_default_plugins/SetGoal",
                       "Topic": _topic(goal_topic)},
                      {"Class": "rviz_default_plugins/PublishPoint",
                       "Single click": True, "Topic": _topic("/clicked_point")}],
            "Value": True,
            "Views": {"Current": {"Class": "rviz_default_plugins/TopDownOrtho",
                                  "Name": "Current View", "Scale": 100, "X": 0, "Y": 0,
                                  "Angle": 0, "Target Frame": "<Fixed Frame>",
                                  "Value": "TopDownOrtho (rviz_default_plugins)"},
                      "Saved": None}},
        "Window Geometry": {"Height": 900, "Width": 1400, "Hide Left Dock": False,
                            "Displays": {"collapsed": False}},
    }


def config_text(plan: Sequence[NodeSpec], **options) -> str:
    """:func:`rviz_config` as the text of an .rviz file (``options``: its keywords)."""
    return ("# RViz 2 configuration for an orca_ros fleet (generated by orca_ros.tools.rviz).\n"
            + yaml.safe_dump(rviz_config(plan, **options), sort_keys=False,
                             default_flow_style=False))


NAV2_FRAME = "map"  # a Nav2 fleet's shared frame (config/nav2/orca_node.yaml's world_frame)


def nav2_plan(robots: Sequence[str]) -> List[NodeSpec]:
    """The orca_nodes nav2.launch.py starts for ``robots`` (namespaces)."""
    from ..fleet.nav2 import nav2_specs

    return nav2_specs(list(robots), stamped=None, use_sim_time=False)


def nav2_config_text(robots: Sequence[str]) -> str:
    """The configuration for a Nav2 fleet: in ``map``, footprints and ORCA markers (no
    odometry: each robot's is in its own ``odom``)."""
    return config_text(nav2_plan(robots), fixed_frame=NAV2_FRAME, odometry=False)


def displayed_topics(config: Dict[str, Any]) -> Dict[str, str]:
    """Topic -> message type of every display (groups included) of a configuration."""
    found: Dict[str, str] = {}

    def walk(displays):
        for display in displays or []:
            if display.get("Class") == "rviz_common/Group":
                walk(display.get("Displays"))
            elif display.get("Class") in DISPLAY_MESSAGE_TYPES:
                found[display["Topic"]["Value"]] = DISPLAY_MESSAGE_TYPES[display["Class"]]

    walk(config["Visualization Manager"]["Displays"])
    return found


def rviz_actions(plan: Sequence[NodeSpec], text: Optional[str] = None) -> List[Any]:
    """launch_ros actions: rviz2 with a configuration for ``plan`` (or ``text``, a
    configuration's text), written to a temporary file, as launch_ros does with
    parameter dictionaries."""
    from launch_ros.actions import Node

    handle = tempfile.NamedTemporaryFile("w", prefix="orca_ros_", suffix=".rviz", delete=False)
    with handle:
        handle.write(config_text(plan) if text is None else text)
    return [Node(package="rviz2", executable="rviz2", name="rviz2",
                 arguments=["-d", handle.name], output="screen")]


def main(argv: Optional[List[str]] = None) -> int:
    from ..fleet.plan import FleetOptions, fleet_plan

    parser = argparse.ArgumentParser(prog="python -m orca_ros.rviz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="?", help="scenario file or built-in name")
    parser.add_argument("--supervisor", action="store_true")
    parser.add_argument("--backend", default="sim", choices=["sim", "toio-sim"])
    parser.add_argument("--nav2", nargs="+", metavar="NAMESPACE",
                        help="a Nav2 fleet's robots instead of a scenario: in map, "
                             "no odometry (config/nav2_fleet.rviz: robot1 robot2 robot3)")
    args = parser.parse_args(argv)
    if args.nav2:
        sys.stdout.write(nav2_config_text(args.nav2))
        return 0
    if not args.scenario:
        parser.error("give a scenario, or --nav2 NAMESPACE ...")
    sys.stdout.write(config_text(fleet_plan(args.scenario, FleetOptions(
        supervisor=args.supervisor, backend=args.backend))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
