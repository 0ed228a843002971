"""The node plan behind the launch files and `orca-ros sim`."""

import sys

import pytest

from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
from orca_ros.fleet.plan import FleetOptions, NodeSpec, fleet_plan

from helpers.launch_stubs import load_launch_file
from helpers.paths import REPO



def test_plan_has_the_simulator_the_obstacles_and_one_orca_node_per_robot():
    plan = fleet_plan("corridor_wall", FleetOptions(kinematics="diff_drive", speed_factor=3.0))
    executables = [spec.executable for spec in plan]
    assert executables[:2] == ["fleet_sim", "obstacle_server"]
    robots = [spec for spec in plan if spec.executable == "orca_node"]
    scenario = load_scenario(resolve_scenario("corridor_wall"))
    assert [r.namespace for r in robots] == [a.name for a in scenario.agents]
    first = robots[0].parameters
    assert first["kinematics"] == "diff_drive" and first["use_sim_time"] is True
    assert first["control_rate"] == pytest.approx(1.0 / scenario.time_step)
    # The fleet is heard by what it announces: no robot follows another's odom.
    assert first["neighbors"] == [""] and first["discover_odometry"] is False
    assert sorted(first["fleet_robots"]) == sorted(a.name for a in scenario.agents[1:])
    assert plan[0].parameters["speed_factor"] == 3.0
    assert plan[0].parameters["scenario"].endswith("corridor_wall.yaml")
    assert "supervisor_node" not in executables
    assert "supervisor_node" in [s.executable for s in
                                 fleet_plan("crossing_4", FleetOptions(supervisor=True))]


def test_robots_of_a_walled_scenario_wait_for_the_walls_source():
    """Issue 31: every robot holds until obstacle_server's walls are in (its marker ns);
    without walls nobody waits; the toio plan waits for the mat's edges."""
    from orca_ros.fleet.plan import toio_plan

    plan = fleet_plan("walls_swap_6")
    walls = next(s for s in plan if s.executable == "obstacle_server")
    robots = [s for s in plan if s.executable == "orca_node"]
    assert walls.marker_namespace == "obstacle_server"
    assert all(r.parameters["obstacle_sources"] == ["obstacle_server"] for r in robots)
    assert all("obstacle_sources" not in s.parameters for s in fleet_plan("crossing_4"))
    cubes = toio_plan(["c1=ble:toio-a9R"])
    assert cubes[-1].parameters["obstacle_sources"] == ["obstacle_server"]
    assert NodeSpec("obstacle_server", "walls", namespace="/robots").marker_namespace == \
        "robots/walls"


def test_plan_passes_each_neighbours_radius_and_the_goal_tolerance(tmp_path):
    scenario = tmp_path / "mixed.yaml"
    scenario.write_text(
        "name: mixed\ntime_step: 0.05\nmax_time: 10\ngoal_tolerance: 0.3\n"
        "defaults: {radius: 0.2, max_speed: 1.0}\nagents:\n"
        "  - {name: big, start: [0, 0], goal: [5, 0], radius: 0.5}\n"
        "  - {name: small, start: [0, 3], goal: [5, 3]}\n")
    small = next(s for s in fleet_plan(str(scenario)) if s.namespace == "small").parameters
    assert small["goal_tolerance"] == 0.3 and small["control_rate"] == pytest.approx(20.0)
    # A foreign robot (no orca_node, announces nothing) is followed by its odometry,
    # with its radius; the fleet's own robots by their announced states and footprints.
    from orca_ros.testing.faults import filter_plan, parse_faults

    plan = filter_plan(fleet_plan(str(scenario)), parse_faults("foreign=big"))
    assert [s.namespace for s in plan if s.executable == "orca_node"] == ["small"]
    small = next(s for s in plan if s.namespace == "small").parameters
    assert small["neighbors"] == ["big"] and small["neighbor_radii"] == [0.5]


def _load_fleet_launch(monkeypatch, arguments=None):
    return load_launch_file(monkeypatch, "fleet_sim.launch.py", arguments, "fleet_launch")


def test_process_plan_groups_robots_and_keeps_everything_else():
    from orca_ros.fleet.plan import NodeSpec, process_plan

    plan = fleet_plan("crossing_4", FleetOptions(supervisor=True))
    assert process_plan(plan, 1) == plan
    processes = process_plan(plan, 3)
    robots = [s for s in plan if s.executable == "orca_node"]
    assert [p for p in processes if not p.hosted] == [s for s in plan if s not in robots]
    hosts = [p for p in processes if p.hosted]
    assert [h.name for h in hosts] == ["orca_robots_0", "orca_robots_1"]
    assert [list(h.hosted) for h in hosts] == [robots[:3], robots[3:]]
    assert hosts[0].arguments == ["--robots"] + [r.namespace for r in robots[:3]]
    assert hosts[1].parameters_file() == {
        f"/{robots[3].namespace}/orca_node": {"ros__parameters": robots[3].parameters}}
    assert process_plan(plan, 10) == [s for s in plan if s not in robots] + [
        NodeSpec("orca_robots", "orca_robots_0", hosted=tuple(robots))]
    for bad in (0, -2, 1.5, True, "3"):
        with pytest.raises(ValueError, match="robots_per_process"):
            process_plan(plan, bad)
        with pytest.raises(ValueError, match="robots_per_process"):
            FleetOptions(robots_per_process=bad)


def _fleet_launch_nodes(monkeypatch, scenario, extra=()):
    module = _load_fleet_launch(monkeypatch, extra)
    context = {name: default for name, (default, _) in module.ARGUMENTS.items()}
    context["scenario"] = scenario
    return module.generate_launch_description()[-1].kwargs["function"](context)


def test_fleet_launch_gives_a_large_fleet_time_to_shut_down(monkeypatch, tmp_path):
    """42 processes on 2 cores took up to 10.8 s from SIGINT to exit; launch's own
    5 s + 5 s would SIGKILL the last ones, so the grace grows with the fleet."""
    from orca_ros.core.scenario.builders import circle_scenario_yaml

    circle = tmp_path / "circle_40.yaml"
    circle.write_text(circle_scenario_yaml(40))
    large = _fleet_launch_nodes(monkeypatch, str(circle), {"robots_per_process": "1"})
    assert len(large) == 42
    # Hosts of 10 robots destroy as many endpoints: the grace follows the nodes.
    hosted = _fleet_launch_nodes(monkeypatch, str(circle), {"robots_per_process": "10"})
    assert len(hosted) == 6
    assert {float(n.kwargs["sigterm_timeout"]) for n in hosted} == {21.0}
    assert {float(n.kwargs["sigterm_timeout"]) for n in large} == {21.0}
    # each node ends itself, status 0, 3 s before launch's SIGKILL (21 + 5 s)
    assert {n.kwargs["additional_env"]["ORCA_ROS_STOP_WITHIN"] for n in large} == {"23"}
    # a node that crashes in C code prints its Python stack into the launch log
    assert {n.kwargs["additional_env"]["PYTHONFAULTHANDLER"] for n in large} == {"1"}
    small = _fleet_launch_nodes(monkeypatch, "crossing_4")
    assert {float(n.kwargs["sigterm_timeout"]) for n in small} == {5.0}  # launch's default
    chosen = _fleet_launch_nodes(monkeypatch, str(circle), {"sigterm_timeout": "7",
                                                           "robots_per_process": "1"})
    assert {n.kwargs["sigterm_timeout"] for n in chosen} == {"7"}  # sigterm_timeout:=7 wins


def test_rviz_argument_adds_rviz2_with_a_configuration_for_the_fleet(monkeypatch):
    import yaml

    from orca_ros.tools.rviz import rviz_config

    nodes = _fleet_launch_nodes(monkeypatch, "corridor_wall", {"rviz": "true",
                                                                "supervisor": "true"})
    rviz = nodes[-1]
    assert (rviz.kwargs["package"], rviz.kwargs["executable"]) == ("rviz2", "rviz2")
    flag, path = rviz.kwargs["arguments"]
    assert flag == "-d"
    with open(path) as stream:
        assert yaml.safe_load(stream) == rviz_config(
            fleet_plan("corridor_wall", FleetOptions(supervisor=True)))
    assert "rviz2" not in [n.kwargs["executable"] for n in _fleet_launch_nodes(
        monkeypatch, "corridor_wall")]


def test_toio_plan_for_real_cubes_runs_on_wall_time_with_cube_settings():
    from orca_ros.fleet.plan import toio_plan

    plan = toio_plan(["c1=ble:toio-a9R", "c2=ble:E4:11:22:33:44:55"])
    bridge, walls, first, second = plan
    assert bridge.executable == "toio_bridge" and bridge.parameters["cubes"][0] == "c1=ble:toio-a9R"
    # No scenario: the mat's edges are still walls.
    assert walls.executable == "obstacle_server" and walls.parameters["toio_mat"] == \
        "collection_ring" and "scenario" not in walls.parameters
    assert (first.namespace, second.namespace) == ("c1", "c2")
    assert first.parameters["use_sim_time"] is False
    assert first.parameters["kinematics"] == "diff_drive"
    assert first.parameters["command_lag"] > 0 and first.parameters["neighbors"] == ["c2"]
    simulated = toio_plan([], scenario="toio_ring_swap_6", simulated=True)
    assert [s.executable for s in simulated] == ["toio_bridge", "obstacle_server"] + \
        ["orca_node"] * 6
    assert all(s.parameters["use_sim_time"] is True for s in simulated[1:])
    # Cubes of a scenario follow each other by name too: their predictions are per robot.
    cubes = [s for s in simulated if s.executable == "orca_node"]
    assert sorted(cubes[0].parameters["neighbors"]) == sorted(c.namespace for c in cubes[1:])
    assert simulated[1].parameters["scenario"] == simulated[0].parameters["scenario"]
    with pytest.raises(ValueError, match="no cubes"):
        toio_plan([])


@pytest.mark.parametrize("cubes, scenario", [(["c1=ble:toio-a9R", "c2=simulated"], None),
                                             ([], "toio_ring_swap_6")])
def test_toio_plan_bridge_and_orca_nodes_agree_on_the_cmd_vel_type(cubes, scenario):
    # One side on Twist and the other on TwistStamped never match: the cubes stand still.
    from orca_ros.fleet.plan import toio_plan

    plan = toio_plan(cubes, scenario=scenario, simulated=scenario is not None)
    bridge = plan[0]
    robots = [s for s in plan if s.executable == "orca_node"]
    assert robots and {bool(r.parameters["enable_stamped_cmd_vel"]) for r in robots} == \
        {bool(bridge.parameters.get("enable_stamped_cmd_vel", False))}


def test_toio_launch_file_builds_the_bridge_and_one_node_per_cube(monkeypatch):
    module = load_launch_file(monkeypatch, "toio.launch.py", {}, "toio_launch")
    actions = module.generate_launch_description()
    context = {name: default for name, (default, _) in module.ARGUMENTS.items()}
    context["cubes"] = "[c1=ble:toio-a9R, c2=ble:toio-b7Q]"
    nodes = actions[-1].kwargs["function"](dict(context, robots_per_process="1"))
    assert [(n.kwargs["executable"], n.kwargs["namespace"]) for n in nodes] == \
        [("toio_bridge", None), ("obstacle_server", None), ("orca_node", "c1"),
         ("orca_node", "c2")]
    hosted = actions[-1].kwargs["function"](context)
    assert [n.kwargs["executable"] for n in hosted] == \
        ["toio_bridge", "obstacle_server", "orca_robots"]
    assert hosted[-1].kwargs["arguments"] == ["--robots", "c1", "c2"]


def test_the_plans_need_no_ros_install():
    """fleet_plan and toio_plan are pure: with rclpy unimportable they still plan."""
    import subprocess

    code = ("import sys\n"
            "class NoRos:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('rclpy', 'rosidl_runtime_py'):\n"
            "            raise ImportError(name + ' is not installed here')\n"
            "sys.meta_path.insert(0, NoRos())\n"
            "from orca_ros.fleet.plan import FleetOptions, fleet_plan, toio_plan\n"
            "print(len(fleet_plan('crossing_4', FleetOptions(supervisor=True))),\n"
            "      len(toio_plan([], scenario='toio_ring_swap_6', simulated=True)),\n"
            "      'rclpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    assert out.stdout.split() == ["7", "8", "False"]


def test_getting_started_lists_every_argument_of_the_fleet_launch_with_its_default(monkeypatch):
    """doc/getting_started.md's table of fleet_sim.launch.py's arguments is the launch
    file's: no argument missing, none extra, each default as declared."""
    import re
    from pathlib import Path

    module = _load_fleet_launch(monkeypatch)
    page = (Path(__file__).resolve().parents[3] / "doc" / "getting_started.md").read_text()
    table = page[page.index("| argument | default | meaning |"):]
    table = table[:table.index("\n\n")]
    documented = dict(re.findall(r"^\| `(\w+)` \| (?:`([^`]*)`|empty) \|", table, re.M))
    assert set(documented) == set(module.ARGUMENTS)
    for name, (default, _) in module.ARGUMENTS.items():
        assert documented[name] == default, name



def test_a_cube_without_a_scenario_drives_as_a_scenes_cube():
    """One home for a cube's agent values: toio.launch.py's cube with no scenario gets the
    built-in toio scenes' speeds and radius (0.12 m/s, 0.1 preferred, 23 mm)."""
    from orca_ros.fleet.plan import toio_plan
    from orca_ros.toio.scenes import DEFAULTS

    cube = next(s for s in toio_plan(["c1=simulated"]) if s.executable == "orca_node")
    assert (cube.parameters["max_speed"], cube.parameters["pref_speed"],
            cube.parameters["radius"]) == (0.12, 0.1, 0.023)
    assert all(cube.parameters[key] == value for key, value in DEFAULTS.items())


def test_the_engine_reaches_fleet_sim_and_a_model_goes_to_its_robot_type():
    plan = fleet_plan("corridor_wall", FleetOptions(kinematics="diff_drive", engine="mujoco",
                                                    robot_model="/models/mine.xml"))
    simulator = next(s for s in plan if s.executable == "fleet_sim").parameters
    assert simulator["engine"] == "mujoco"
    assert simulator["robot_model_diff_drive"] == "/models/mine.xml"
    cubes = fleet_plan("toio_cross_4v4", FleetOptions(kinematics="diff_drive", engine="mujoco",
                                                      robot_model="/models/cube.xml"))
    assert next(s for s in cubes if s.executable == "fleet_sim").parameters[
        "robot_model_toio"] == "/models/cube.xml"
    kinematic = next(s for s in fleet_plan("crossing_4") if s.executable == "fleet_sim")
    assert "engine" not in kinematic.parameters  # fleet_sim's default
    with pytest.raises(ValueError, match="engine must be one of"):
        FleetOptions(engine="bullet")
    with pytest.raises(ValueError, match="needs engine 'mujoco'"):
        FleetOptions(robot_model="/models/mine.xml")
    with pytest.raises(ValueError, match="backend 'sim'"):
        FleetOptions(engine="mujoco", backend="toio-sim")
