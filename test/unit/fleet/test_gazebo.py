"""Robots in gz-sim: the ros_gz_bridge configuration each robot gets, the orca_node
parameters and remappings, and launch/gazebo.launch.py through the real launch engine
(Gazebo itself cannot be installed here: test_fleet_frames runs the same orca_node
parameters against fleet_sim publishing under Gazebo's topic names and frames)."""

import importlib.util
import math
import pathlib

import pytest
import yaml

from helpers.paths import LAUNCH_DIR, REPO

from orca_ros.fleet.gazebo import (CLOCK_BRIDGE, GazeboRobot, bridge_config, bridge_files,
                                   gazebo_plan, parse_robots, stamped_for_distro)
from orca_ros.fleet.launch import write_yaml_files
from orca_ros.fleet.plan import FleetOptions, fleet_plan

LAUNCH_FILE = LAUNCH_DIR / "gazebo.launch.py"
# ros_gz_bridge's pairs (its README's table): the ROS type each gz type is bridged to here.
BRIDGED = {("nav_msgs/msg/Odometry", "gz.msgs.Odometry"),
           ("geometry_msgs/msg/Twist", "gz.msgs.Twist"),
           ("geometry_msgs/msg/TwistStamped", "gz.msgs.Twist"),
           ("rosgraph_msgs/msg/Clock", "gz.msgs.Clock")}


def test_robots_are_parsed_from_name_and_spawn_pose_and_bad_entries_are_named():
    robots = parse_robots("robot1:0,0,0 robot2:4,-1.5,3.1416;robot3:1,2")
    assert robots == [GazeboRobot("robot1", 0, 0, 0), GazeboRobot("robot2", 4, -1.5, 3.1416),
                      GazeboRobot("robot3", 1, 2, 0)]
    for bad in ("robot1", "robot1:0", "robot1:a,b", "robot1:1,2,3,4", "a:0,0 a:1,1",
                "ro/bot:0,0", "r:nan,0"):
        with pytest.raises(ValueError):
            parse_robots(bad)


def test_commands_are_twist_before_kilted_and_stamped_from_then_on():
    assert not stamped_for_distro("humble") and not stamped_for_distro("jazzy")
    assert stamped_for_distro("kilted") and stamped_for_distro("rolling")
    assert bridge_config("r", False)[2]["ros_type_name"] == "geometry_msgs/msg/Twist"
    assert bridge_config("r", True)[2]["ros_type_name"] == "geometry_msgs/msg/TwistStamped"


@pytest.mark.parametrize("stamped", [False, True])
def test_each_robots_bridge_yaml_is_valid_and_names_diffdrives_topics_and_types(
        tmp_path, stamped):
    robots = [GazeboRobot("robot1", 0.0, 0.0, 0.0), GazeboRobot("robot2", 4.0, 0.0, math.pi)]
    files = bridge_files(robots, stamped, str(tmp_path))
    assert not list(tmp_path.iterdir())  # the plan is pure: the launch side writes
    write_yaml_files(files)
    plan = gazebo_plan(robots, stamped, str(tmp_path))
    assert not set(files) - {str(p) for p in tmp_path.iterdir()}
    bridges = [s for s in plan if s.package == "ros_gz_bridge"]
    assert [b.parameters["config_file"] for b in bridges] == list(files)
    assert [b.executable for b in bridges] == ["parameter_bridge"] * 3
    for bridge in bridges:
        entries = yaml.safe_load(pathlib.Path(bridge.parameters["config_file"]).read_text())
        assert bridge.parameters["use_sim_time"] is True
        for entry in entries:
            assert set(entry) == {"ros_topic_name", "gz_topic_name", "ros_type_name",
                                  "gz_type_name", "direction"}
            assert (entry["ros_type_name"], entry["gz_type_name"]) in BRIDGED
            assert entry["direction"] in ("GZ_TO_ROS", "ROS_TO_GZ")
    loaded = yaml.safe_load((tmp_path / "bridge_robot2.yaml").read_text())
    by_ros = {e["ros_topic_name"]: e for e in loaded}
    assert by_ros["/model/robot2/odometry"]["direction"] == "GZ_TO_ROS"
    assert by_ros["/model/robot2/cmd_vel"]["direction"] == "ROS_TO_GZ"
    assert by_ros["/model/robot2/cmd_vel"]["gz_topic_name"] == "/model/robot2/cmd_vel"
    assert by_ros["/robot2/ground_truth"]["gz_topic_name"] == "/model/robot2/ground_truth"
    assert yaml.safe_load((tmp_path / "bridge_clock.yaml").read_text()) == CLOCK_BRIDGE
    robot2 = next(s for s in plan if s.executable == "orca_node" and s.namespace == "robot2")
    assert dict(robot2.remappings) == {"odom": "/model/robot2/odometry",
                                       "cmd_vel": "/model/robot2/cmd_vel"}
    assert robot2.parameters["pose_source"] == "odom_origin"
    assert robot2.parameters["odom_frame"] == "robot2/odom"
    assert robot2.parameters["odom_origin"] == [4.0, 0.0, math.pi]
    assert robot2.parameters["enable_stamped_cmd_vel"] is stamped


def test_the_fleet_rehearsal_gives_orca_node_the_same_parameters_as_the_gazebo_launch(tmp_path):
    rehearsal = fleet_plan("crossing_4", FleetOptions(kinematics="diff_drive", topics="gazebo"))
    sim = rehearsal[0]
    assert sim.parameters["topics"] == "gazebo" and sim.parameters["odom_frame"] == "per_robot"
    north = next(s for s in rehearsal if s.namespace == "north")
    gz = next(s for s in gazebo_plan([GazeboRobot("north", 0.1, 2.0, -math.pi / 2)], True,
                                     str(tmp_path)) if s.executable == "orca_node")
    for key in ("pose_source", "odom_frame", "enable_stamped_cmd_vel", "discover_odometry"):
        assert north.parameters[key] == gz.parameters[key], key
    assert north.parameters["odom_origin"] == pytest.approx(gz.parameters["odom_origin"])
    assert north.remappings == gz.remappings


def test_hosted_robots_get_their_remappings_as_rules_on_full_names():
    from orca_ros.fleet.plan import process_plan

    plan = fleet_plan("crossing_4", FleetOptions(kinematics="diff_drive", topics="gazebo"))
    host = next(p for p in process_plan(plan, 10) if p.hosted)
    arguments = host.arguments
    assert arguments[:5] == ["--robots", "north", "south", "east", "west"]
    assert arguments[5] == "--ros-args"
    assert "/north/odom:=/model/north/odometry" in arguments
    assert "/west/cmd_vel:=/model/west/cmd_vel" in arguments


@pytest.mark.ros  # the launch engine imports rclpy
def test_the_gazebo_launch_file_builds_its_nodes_with_the_real_launch_engine(monkeypatch):
    pytest.importorskip("launch_ros", reason="the launch engine is not installed "
                        "(scripts/setup_launch.sh)")
    from launch import LaunchContext
    from launch.actions import DeclareLaunchArgument

    spec = importlib.util.spec_from_file_location("gazebo_launch", LAUNCH_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    description = module.generate_launch_description()
    context = LaunchContext()
    for entity in description.entities:
        if isinstance(entity, DeclareLaunchArgument):
            context.launch_configurations[entity.name] = \
                "".join(s.perform(context) for s in entity.default_value)
    monkeypatch.setenv("ROS_DISTRO", "jazzy")
    context.launch_configurations["scenario"] = "crossing_4"
    nodes = description.entities[-1].execute(context)
    kinds = sorted((n.node_package, n.node_executable) for n in nodes)
    assert kinds.count(("ros_gz_bridge", "parameter_bridge")) == 5  # 4 robots and /clock
    assert kinds.count(("orca_ros", "orca_node")) == 4
    assert kinds.count(("orca_ros", "obstacle_server")) == 1
    context.launch_configurations.update(scenario="", robots="")
    with pytest.raises(ValueError, match="robots:="):
        description.entities[-1].execute(context)


@pytest.mark.ros  # the launch file imports the launch engine
def test_the_nav2_files_put_orca_node_between_the_smoother_and_the_collision_monitor():
    from orca_ros.nodes.params import check_values, table_by_name
    from orca_ros.nodes.params.orca_node import PARAMETERS

    config = REPO / "config" / "nav2"
    orca = yaml.safe_load((config / "orca_node.yaml").read_text())["/**"]["ros__parameters"]
    table = table_by_name(PARAMETERS)
    assert set(orca) - set(table) == {"use_sim_time"}  # no key orca_node does not know
    assert check_values(table, orca, started=False) is None  # every value a valid one
    assert orca["preferred_velocity"] == "topic" and orca["pose_source"] == "localization"
    assert (orca["world_frame"], orca["odom_frame"]) == ("map", "odom")
    overlay = yaml.safe_load((config / "nav2_params_overlay.yaml").read_text())
    from orca_ros.fleet.nav2 import nav2_specs

    robot = nav2_specs(["robot1"], False, False)[0]
    remaps = dict(robot.remappings)
    assert remaps["cmd_vel_in"] == "cmd_vel_smoothed"  # velocity_smoother's output
    assert remaps["cmd_vel"] == overlay["collision_monitor"]["ros__parameters"][
        "cmd_vel_in_topic"]


def test_the_shipped_bridge_example_is_what_the_launch_file_writes_for_robot1():
    shipped = REPO / "config" / "gazebo" / "robot1_bridge.yaml"
    assert yaml.safe_load(shipped.read_text()) == bridge_config("robot1", True) + CLOCK_BRIDGE


def test_a_parameters_file_sets_the_robots_but_cannot_unplace_them(tmp_path):
    """The documented config/orca_node.yaml as params_file: its limits reach every robot,
    a robot's own section reaches it alone, and the gz wiring (the spawn pose, simulated
    time, the odom frame) stays the launch's; with localization the shared frame is map
    (amcl_pose's), walls included."""
    from orca_ros.fleet.gazebo import parameters_file_sections

    documented = REPO / "config" / "orca_node.yaml"
    text = documented.read_text() + ("\n/robot2/orca_node:\n  ros__parameters:\n"
                                     "    max_speed: 0.11\n")
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    every, own = parameters_file_sections(str(path), ["robot1", "robot2"])
    assert every["world_frame"] == "world" and every["pose_source"] == "odom"
    assert own == {"robot2": {"max_speed": 0.11}}
    robots = [GazeboRobot("robot1", 1.0, 2.0, 0.5), GazeboRobot("robot2", 4.0, 0.0, math.pi)]
    plan = gazebo_plan(robots, True, str(tmp_path), robot_parameters_extra=every,
                       file_per_robot=own, bridge=False)
    first, second = [s.parameters for s in plan if s.executable == "orca_node"]
    assert first["odom_origin"] == [1.0, 2.0, 0.5] and first["pose_source"] == "odom_origin"
    assert first["odom_frame"] == "robot1/odom" and first["use_sim_time"] is True
    assert first["max_speed"] == every["max_speed"] and second["max_speed"] == 0.11
    localized = gazebo_plan(robots, True, str(tmp_path), robot_parameters_extra=every,
                            scenario="crossing_4", bridge=False, localization=True)
    walls = next(s for s in localized if s.executable == "obstacle_server")
    robot = next(s for s in localized if s.executable == "orca_node").parameters
    assert robot["pose_source"] == "localization" and robot["world_frame"] == "map"
    assert walls.parameters["world_frame"] == "map"
