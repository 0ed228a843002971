"""Avoidance methods behind one interface: the registry, the suite every method must pass,
the safety filter behind a method, and one registered here reaching the CLI, the world,
the fleet plan and the launch argument (orca_node: test/ros/test_nodes.py)."""

import json
import math

import pytest

from orca_ros.tools import cli
from orca_ros.core.robot.config import ControllerConfig
from orca_ros.core.robot.state import Neighbor, RobotState
from orca_ros.core.robot.controller import RobotController
from orca_ros.core.methods import (AvoidanceMethod, MethodOutput, MethodSpec, method_names,
                                   method_spec, register_method, unregister_method)
from orca_ros.core.geometry.obstacles import build_obstacle_edges
from orca_ros.core.geometry.types import Segment
from orca_ros.core.scenario.loader import load_scenario, resolve_scenario
from orca_ros.core.sim.world import World, WorldOptions
from orca_ros.fleet.plan import FleetOptions, fleet_plan

from helpers.launch_stubs import load_launch_file
from helpers.methods import Sidestep, SidestepParameters

PER_ROBOT = list(method_names(ros=True))


# --- a method registered by a test ----------------------------------------------------------

class StraightOn(AvoidanceMethod):
    """Test method with no avoidance of its own, run behind the safety filter."""

    def compute_velocity(self, view):
        return MethodOutput(view.pref_velocity)


@pytest.fixture
def sidestep():
    spec = register_method(MethodSpec("test_sidestep", "test: prefer a step to the left",
                                      Sidestep, SidestepParameters))
    yield spec
    unregister_method(spec.name)


@pytest.fixture
def straight_on():
    spec = register_method(MethodSpec("test_straight_on", "test: straight on, filtered",
                                      StraightOn, keep_right=False))
    yield spec
    unregister_method(spec.name)


# --- the registry ---------------------------------------------------------------------------

def test_the_built_in_methods_are_registered_in_order():
    assert method_names()[:3] == ("orca", "orca_strict", "direct")
    assert method_names()[-1] == "rvo2"  # the world backends after the methods
    assert "rvo2" not in method_names(ros=True)  # the reference library steps a whole world


def test_unknown_names_and_parameters_are_refused_with_what_there_is(sidestep):
    with pytest.raises(ValueError, match="orca_strict"):
        method_spec("orca_lite")
    with pytest.raises(ValueError, match="already registered"):
        register_method(sidestep)
    with pytest.raises(ValueError, match="letters"):
        register_method(MethodSpec("bad name", "", Sidestep))
    with pytest.raises(ValueError, match="sideways"):
        sidestep.create(sideway=1.0)
    with pytest.raises(ValueError, match="holonomic only"):
        ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                         kinematics="diff_drive", method="rvo2")


def test_a_method_gets_its_parameters_from_the_robot_settings_and_method_parameters(sidestep):
    config = ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0, time_step=0.1,
                              method="test_sidestep", method_parameters=(("sideways", 0.5),))
    controller = RobotController(config)
    assert controller.method.params.sideways == 0.5
    orca = RobotController(ControllerConfig(radius=0.2, max_speed=1.0, pref_speed=1.0,
                                            time_step=0.1, time_horizon=4.0))
    assert orca.method.params.time_horizon == 4.0


# --- the suite every method must pass ----------------------------------------------------------

def _controller(method, kinematics, key="me"):
    config = ControllerConfig(radius=0.3, max_speed=1.0, pref_speed=0.8, time_step=0.1,
                              kinematics=kinematics, method=method)
    controller = RobotController(config, key=key)
    controller.set_path([(5.0, 0.0)])
    return controller


DEGENERATE = {
    "alone": (RobotState((0.0, 0.0)), []),
    "coincident neighbour": (RobotState((0.0, 0.0)),
                             [Neighbor((0.0, 0.0), (0.0, 0.0), 0.3, "other")]),
    "overlapping, closing fast": (RobotState((0.0, 0.0), (1.0, 0.0)),
                                  [Neighbor((0.2, 0.0), (-1.0, 0.0), 0.3, "other")]),
    "zero radius neighbour": (RobotState((0.0, 0.0)),
                              [Neighbor((1.0, 0.0), (0.0, 0.0), 0.0, "other")]),
    "far from the origin": (RobotState((1e6, 1e6)),
                            [Neighbor((1e6 + 0.5, 1e6), (0.0, 0.0), 0.3, "other")]),
    "boxed in": (RobotState((0.0, 0.0)),
                 [Neighbor((0.61 * math.cos(a), 0.61 * math.sin(a)), (0.0, 0.0), 0.3, f"n{k}")
                  for k, a in enumerate(k * math.pi / 3 for k in range(6))]),
}


@pytest.mark.parametrize("method", PER_ROBOT)
@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
@pytest.mark.parametrize("case", sorted(DEGENERATE))
def test_every_method_answers_finite_within_max_speed(method, kinematics, case):
    state, neighbors = DEGENERATE[case]
    controller = _controller(method, kinematics)
    if case == "far from the origin":
        controller.set_path([(1e6 + 5.0, 1e6)])
    edges = build_obstacle_edges([Segment((2.0, -1.0), (2.0, 1.0))])
    command = controller.compute(state, neighbors, edges)
    for value in (*command.velocity, command.linear, command.angular):
        assert math.isfinite(value)
    assert math.hypot(*command.velocity) <= 1.0 + 1e-9
    assert abs(command.linear) <= 1.0 + 1e-9


@pytest.mark.parametrize("method", [m for m in PER_ROBOT if method_spec(m).collision_free])
@pytest.mark.parametrize("kinematics", ["holonomic", "diff_drive"])
def test_every_collision_free_method_gets_a_crossing_through_without_contact(method,
                                                                              kinematics):
    scenario = load_scenario(resolve_scenario("crossing_4"))
    result = World(scenario, WorldOptions(method=method, kinematics=kinematics)).run()
    assert result.collisions == 0 and result.reached == result.agents


# --- the safety filter behind a method ---------------------------------------------------------

def test_the_safety_filter_keeps_a_method_without_avoidance_from_contact(straight_on):
    """Four robots driving straight through each other: behind the one-step safety
    filter nobody touches; the same method with the filter off collides."""
    scenario = load_scenario(resolve_scenario("crossing_4"))
    filtered = World(scenario, WorldOptions(method="test_straight_on")).run()
    assert filtered.collisions == 0
    unfiltered = World(scenario, WorldOptions(
        method="test_straight_on", controller=(("safety_filter", "off"),))).run()
    assert unfiltered.collisions > 0


# --- one registration reaches every entry point ------------------------------------------------

def test_a_registered_method_runs_in_the_world(sidestep):
    scenario = load_scenario(resolve_scenario("crossing_4"))
    world = World(scenario, WorldOptions(method="test_sidestep"))
    world.step()
    assert all(isinstance(c.method, Sidestep) for c in world.controllers)
    for agent, velocity in zip(scenario.agents, world.velocities):
        to_goal = (agent.goal[0] - agent.start[0], agent.goal[1] - agent.start[1])
        # Keep-right turns 8 degrees right; the method steps 0.25 m/s left of that.
        assert to_goal[0] * velocity[1] - to_goal[1] * velocity[0] > 0.0
        assert math.hypot(*velocity) <= agent.max_speed + 1e-9


def test_a_registered_method_is_a_cli_choice(sidestep, tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "crossing_4", "--method", "test_sidestep", "--no-progress",
                     "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["method"] == "test_sidestep"
    assert "test_sidestep" in capsys.readouterr().out
    sim = cli.build_parser().parse_args(["sim", "crossing_4", "--method", "test_sidestep"])
    assert sim.method == "test_sidestep"
    for argv in (["bench", "crossing_4", "--method", "nothing_of_the_sort"],
                 ["sim", "crossing_4", "--method", "rvo2"]):  # rvo2: world only
        with pytest.raises(SystemExit):
            cli.build_parser().parse_args(argv)
    assert "invalid choice" in capsys.readouterr().err


def test_the_deprecated_planner_option_still_means_direct(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "crossing_4", "--planner", "direct", "--no-progress",
                     "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["method"] == "direct"
    assert "--planner is deprecated" in capsys.readouterr().err


def test_a_registered_method_reaches_every_orca_node_of_the_fleet_plan(sidestep):
    plan = fleet_plan("crossing_4", FleetOptions(method="test_sidestep", supervisor=True))
    robots = [s for s in plan if s.executable == "orca_node"]
    assert robots and all(s.parameters["method"] == "test_sidestep" for s in robots)
    supervisor = next(s for s in plan if s.executable == "supervisor_node")
    assert supervisor.parameters["with_orca"] is True  # it avoids: waits may lapse
    direct = fleet_plan("crossing_4", FleetOptions(method="direct", supervisor=True))
    assert next(s for s in direct if s.executable == "supervisor_node") \
        .parameters["with_orca"] is False
    with pytest.raises(ValueError, match="through ROS"):
        FleetOptions(method="rvo2")


@pytest.mark.parametrize("method, tracking", [("orca", "unicycle"), ("hlavoid", "move2target")])
def test_cubes_follow_the_navigator_with_the_sdks_follower(method, tracking):
    plan = fleet_plan("toio_ring_swap_6", FleetOptions(method=method, backend="toio-sim"))
    robots = [s for s in plan if s.executable == "orca_node"]
    assert robots and all(s.parameters["tracking"] == tracking for s in robots)
    fleet = fleet_plan("crossing_4", FleetOptions(method=method))
    assert all("tracking" not in s.parameters for s in fleet)  # other robots: the default


@pytest.mark.parametrize("file", ["fleet_sim.launch.py", "toio.launch.py"])
def test_the_method_launch_argument_offers_and_passes_a_registered_method(
        monkeypatch, sidestep, file):
    scenario = "crossing_4" if file == "fleet_sim.launch.py" else "toio_ring_swap_6"
    module = load_launch_file(monkeypatch, file, {"scenario": scenario, "simulated": "true",
                                                "method": "test_sidestep"})
    actions = module.generate_launch_description()
    method_argument = next(a for a in actions[:-1] if a.args[0] == "method")
    assert "test_sidestep" in method_argument.kwargs["choices"]
    assert "rvo2" not in method_argument.kwargs["choices"]
    context = {name: default for name, (default, _) in module.ARGUMENTS.items()}
    nodes = actions[-1].kwargs["function"](dict(context, robots_per_process="1"))
    robots = [n for n in nodes if n.kwargs["executable"] == "orca_node"]
    assert robots and all(n.kwargs["parameters"][0]["method"] == "test_sidestep"
                          for n in robots)
    # Several robots per process (the default): the method is in each robot's section of
    # its host's parameters file.
    import yaml

    hosts = [n for n in actions[-1].kwargs["function"](context)
             if n.kwargs["executable"] == "orca_robots"]
    sections = []
    for host in hosts:
        with open(host.kwargs["parameters"][0]) as stream:
            sections += list(yaml.safe_load(stream).values())
    assert len(sections) == len(robots)
    assert all(section["ros__parameters"]["method"] == "test_sidestep" for section in sections)


def test_orca_run_again_with_other_hard_half_planes_takes_its_neighbours_lines_as_they_are():
    """A unicycle's tracking runs ORCA a second time on the same view with its kinematic
    half-planes added: the neighbours' half-planes are not built again (the same
    objects), and the velocity is a fresh instance's to the last bit."""
    from orca_ros.core.geometry.linprog import HalfPlane
    from orca_ros.core.methods import NeighborView, RobotView
    from orca_ros.core.methods.orca import ORCA

    neighbors = [NeighborView((1.5, 0.2), (-0.8, 0.0), 0.4, "a"),
                 NeighborView((0.5, -1.4), (0.0, 0.9), 0.4, "b", reciprocates=False)]
    view = RobotView((0.0, 0.0), (0.8, 0.0), 0.0, 0.4, 0.3, 1.0, (1.0, 0.0), 0.1, neighbors)
    method = ORCA.create()
    first = method.compute_velocity(view)
    hard = [HalfPlane(0.0, 0.05, -1.0, 0.0), HalfPlane(0.0, -0.05, 1.0, 0.0)]
    again = method.compute_velocity(view._replace(hard_half_planes=hard))
    fresh = ORCA.create().compute_velocity(view._replace(hard_half_planes=hard))
    assert len(first.neighbor_half_planes) == 2
    assert all(a is b for a, b in zip(again.neighbor_half_planes, first.neighbor_half_planes))
    assert again.velocity == fresh.velocity and again.half_planes == fresh.half_planes
    moved = method.compute_velocity(view._replace(position=(0.1, 0.0)))  # a new state
    assert moved.neighbor_half_planes != first.neighbor_half_planes
