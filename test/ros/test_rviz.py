"""RViz configurations: config/fleet.rviz and the ones the launch files write name exactly
topics that the plan's nodes publish, with the message types RViz's displays expect."""

import pytest
import yaml

pytest.importorskip("rclpy", reason="rclpy not installed (pip install .[ros])")

from orca_ros.fleet.plan import FleetOptions, fleet_plan  # noqa: E402
from orca_ros.fleet.runner import instantiate  # noqa: E402
from orca_ros.tools.rviz import (config_text, displayed_topics, nav2_config_text,  # noqa: E402
                                 nav2_plan, robots_of, rviz_config)

from helpers.paths import REPO  # noqa: E402

pytestmark = pytest.mark.ros

CONFIG = REPO / "config" / "fleet.rviz"
MARKER_TYPES = {"visualization_msgs/msg/Marker", "visualization_msgs/msg/MarkerArray"}


def published(ros, plan):
    """Topic -> message types published by the plan's nodes, as the ROS graph reports them."""
    nodes = [ros.add(instantiate(spec, ros.context)) for spec in plan]
    ros.spin_for(0.3)
    topics = {}
    for node in nodes:
        for topic, types in node.get_publisher_names_and_types_by_node(
                node.get_name(), node.get_namespace()):
            topics.setdefault(topic, set()).update(types)
    return topics


def check(config, topics, plan, odometry=True, frame="world"):
    shown = displayed_topics(config)
    for topic, kind in shown.items():
        assert kind in topics.get(topic, ()), f"{topic} ({kind}) is published by no node"
    for topic, kinds in topics.items():  # every marker stream of the fleet is on screen
        if kinds & MARKER_TYPES:
            assert topic in shown, topic
    for robot in robots_of(plan):
        assert shown.get(f"/{robot}/orca/markers") == "visualization_msgs/msg/MarkerArray"
        assert shown.get(f"/{robot}/orca/footprint") == "geometry_msgs/msg/PolygonStamped"
        assert (shown.get(f"/{robot}/odom") == "nav_msgs/msg/Odometry") == odometry
    tools = config["Visualization Manager"]["Tools"]
    goal = next(t for t in tools if t["Class"] == "rviz_default_plugins/SetGoal")
    assert goal["Topic"]["Value"] == f"/{robots_of(plan)[0]}/goal_pose"
    assert config["Visualization Manager"]["Global Options"]["Fixed Frame"] == frame
    return shown


def test_fleet_rviz_shows_what_the_fleet_publishes(ros):
    config = yaml.safe_load(CONFIG.read_text())
    plan = fleet_plan("crossing_4", FleetOptions(supervisor=True))
    shown = check(config, published(ros, plan), plan)
    assert {"/obstacles", "/fleet_sim/robots", "/supervisor/markers"} <= set(shown)
    obstacles = next(d for d in config["Visualization Manager"]["Displays"]
                     if d.get("Topic", {}).get("Value") == "/obstacles")
    assert obstacles["Topic"]["Durability Policy"] == "Transient Local"  # it is latched


@pytest.mark.parametrize("scenario, options", [
    ("corridor_wall", FleetOptions(kinematics="diff_drive")),
    ("toio_ring_swap_6", FleetOptions(backend="toio-sim")),
])
def test_a_generated_configuration_fits_its_fleet(ros, scenario, options):
    plan = fleet_plan(scenario, options)
    config = yaml.safe_load(config_text(plan))
    assert config == rviz_config(plan)
    shown = check(config, published(ros, plan), plan)
    assert "/supervisor/markers" not in shown  # no supervisor in this plan


NAV2_CONFIG = REPO / "config" / "nav2_fleet.rviz"


def test_a_nav2_fleets_view_is_in_map_with_footprints_and_no_odometry(ros):
    """A Nav2 fleet's odometry is each in its own odom, which a fleet view has no TF for:
    the view is in map, where orca_node draws each robot's footprint and markers;
    config/nav2_fleet.rviz is that view for robot1..robot3."""
    robots = ["robot1", "robot2", "robot3"]
    assert NAV2_CONFIG.read_text() == nav2_config_text(robots)
    config = yaml.safe_load(NAV2_CONFIG.read_text())
    plan = nav2_plan(robots)
    shown = check(config, published(ros, plan), plan, odometry=False, frame="map")
    assert not any(topic.endswith("/odom") for topic in shown)
