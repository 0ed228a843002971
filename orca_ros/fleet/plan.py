"""The node plan of a fleet run: which nodes run, with which names, namespaces and
parameters.

:func:`fleet_plan` decides it once for a simulated fleet, :func:`toio_plan` for toio
cubes; :func:`process_plan` groups the orca_nodes into processes. The launch files turn
the plan into launch_ros ``Node`` actions (:mod:`orca_ros.fleet.launch`);
:func:`orca_ros.fleet.runner.run_in_process` starts the very same nodes as rclpy objects in
one process. Nothing here imports rclpy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core.errors import InputError
from ..core.models.toio_cube import CUBE_AGENT_DEFAULTS, CUBE_ROBOT_PARAMETERS
from ..core.robot.config import COMMAND_VALIDITY_PERIODS
from ..core.robot.link_groups import links_text
from ..core.methods import method_names, method_spec
from ..core.scenario.loader import Scenario, load_scenario, resolve_scenario
from .nodespec import NodeSpec

SIMULATORS = ("fleet_sim", "toio_bridge")  # the node that keeps the ground truth


DEFAULT_ROBOTS_PER_PROCESS = 10
"""orca_nodes per process under launch (see :func:`process_plan`)."""

ODOM_FRAMES = ("shared", "per_robot")
TOPIC_NAMES = ("ros", "gazebo")
PREFERRED_VELOCITY_SOURCES = ("goal", "topic")
DRIVERS = ("none", "straight")
ENGINES = ("kinematic", "mujoco")


def _check_robots_per_process(value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"robots_per_process must be an integer >= 1, got {value!r}")


@dataclass(frozen=True)
class FleetOptions:
    method: str = "orca"  # a registered method that runs in orca_node (orca_ros.core.methods)
    kinematics: Optional[str] = None  # None: holonomic
    speed_factor: float = 1.0
    enable_stamped_cmd_vel: bool = True  # stamped commands: the simulator can tell their age
    supervisor: bool = False
    control_rate: Optional[float] = None  # None: 1 / the scenario's time step
    use_sim_time: bool = True
    backend: str = "sim"  # sim (fleet_sim) | toio-sim (simulated cubes behind toio_bridge)
    robot_parameters: Tuple[Tuple[str, Any], ...] = ()  # orca_node parameters for every robot
    robots_per_process: int = DEFAULT_ROBOTS_PER_PROCESS  # under launch (process_plan)
    # shared: odometry in the shared frame; per_robot: each robot's own drifting odom frame,
    # placed by a localization (fleet_sim's stand-in for AMCL)
    odom_frame: str = "shared"
    # goal: each robot drives to its goal; topic: filter mode, from /<robot>/cmd_vel_in
    preferred_velocity: str = "goal"
    driver: str = "none"  # straight: a naive driver publishes each cmd_vel_in (topic mode)
    topics: str = "ros"  # gazebo: fleet_sim under gz-sim's topic names and frames
    # fleet_sim's lasers on, and every orca_node reads its scan for walls nobody told of
    scan_obstacles: bool = False
    # what moves fleet_sim's robots: kinematic bodies, or the MuJoCo physics engine
    engine: str = "kinematic"
    robot_model: str = ""  # engine mujoco: the robots' MJCF file (empty: orca_ros's)

    def __post_init__(self) -> None:
        _check_robots_per_process(self.robots_per_process)
        for name, allowed in (("odom_frame", ODOM_FRAMES), ("topics", TOPIC_NAMES),
                              ("preferred_velocity", PREFERRED_VELOCITY_SOURCES),
                              ("driver", DRIVERS), ("engine", ENGINES)):
            if getattr(self, name) not in allowed:
                raise InputError(f"{name} must be one of {', '.join(allowed)}, "
                                 f"got {getattr(self, name)!r}")
        if self.driver != "none" and self.preferred_velocity != "topic":
            raise InputError(f"driver {self.driver!r} publishes cmd_vel_in: it needs "
                             f"preferred_velocity 'topic', not {self.preferred_velocity!r}")
        if self.scan_obstacles and self.backend != "sim":
            raise InputError("scan_obstacles needs fleet_sim's lasers (backend 'sim'), not "
                             f"{self.backend!r}")
        if self.engine != "kinematic" and self.backend != "sim":
            raise InputError(f"engine {self.engine!r} moves fleet_sim's robots (backend "
                             f"'sim'), not {self.backend!r}")
        if self.robot_model and self.engine != "mujoco":
            raise InputError(f"robot_model {self.robot_model!r} is a MuJoCo model: it needs "
                             f"engine 'mujoco', not {self.engine!r}")
        if self.topics == "gazebo" and self.backend != "sim":
            raise InputError("topics 'gazebo' rehearses gz-sim with fleet_sim "
                             f"(backend 'sim'), not {self.backend!r}")
        if self.method not in method_names(ros=True):
            raise InputError(f"method must be one of {method_names(ros=True)} (through ROS), "
                             f"got {self.method!r}")


def robot_parameters(scenario: Scenario, name: str, options: FleetOptions) -> Dict[str, Any]:
    """orca_node parameters for one scenario agent (``links``: the scenario's link groups,
    all of them, when it has any)."""
    agent = scenario.agent(name)
    others = [a for a in scenario.agents if a.name != name]
    control_rate = options.control_rate or round(1.0 / scenario.time_step, 6)
    parameters = {
        "use_sim_time": options.use_sim_time,
        "radius": agent.radius, "max_speed": agent.max_speed, "pref_speed": agent.pref_speed,
        "neighbor_dist": agent.neighbor_dist, "max_neighbors": agent.max_neighbors,
        "time_horizon": agent.time_horizon, "time_horizon_obst": agent.time_horizon_obst,
        "control_rate": control_rate,
        "command_validity": command_validity(control_rate),
        "kinematics": options.kinematics or "holonomic", "method": options.method,
        "goal_tolerance": scenario.goal_tolerance_of(agent),
        "lookahead": scenario.waypoint_tolerance_of(agent),
        # The fleet's robots are heard by what they announce (/orca/states, their radius
        # on /orca/footprints), not by each one's odom besides: half the messages, and
        # per process two subscriptions instead of one per robot (DDS discovery).
        "neighbors": [""], "neighbor_radii": [-1.0], "discover_odometry": False,
        "fleet_robots": [a.name for a in others] or [""],  # hold until each is heard
        "scan_obstacles": options.scan_obstacles,
        "neighbor_radius": agent.radius,
        "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel,
    }
    if options.topics == "gazebo":
        from .gazebo import GazeboRobot, gazebo_wiring

        spawn = GazeboRobot(name, agent.start[0], agent.start[1], agent.start_heading)
        parameters.update(gazebo_wiring(spawn, options.enable_stamped_cmd_vel))
    elif options.odom_frame == "per_robot":
        # Odometry in the robot's own frame, placed in the shared one by its localization.
        parameters.update(pose_source="localization", odom_frame=f"{name}/odom",
                          localization_topic="amcl_pose")
    if options.preferred_velocity == "topic":
        parameters["preferred_velocity"] = "topic"
    if scenario.links:
        # Every robot gets all groups: its own partners, and the links it must keep off.
        parameters["links"] = links_text(scenario.links)
    if scenario.dimensions == 3:
        parameters["dimensions"] = 3  # an aerial robot
    return parameters


def check_3d_fleet(scenario: Scenario, options: FleetOptions) -> None:
    """Refuse, naming it, what a 3D scenario (aerial robots) cannot run with through ROS:
    toio cubes, unicycles, the supervisor, a method without a 3D version."""
    where = scenario.path or scenario.name
    if options.backend != "sim":
        raise InputError(f"{where}: a 3D scenario (dimensions: 3) runs on fleet_sim "
                         f"(--backend sim), not {options.backend}")
    if (options.kinematics or "holonomic") != "holonomic":
        raise InputError(f"{where}: a 3D scenario (dimensions: 3) is run holonomic only, "
                         f"not with kinematics {options.kinematics!r}")
    if options.supervisor:
        raise InputError(f"{where}: the supervisor is 2D only; a 3D scenario "
                         f"(dimensions: 3) runs without it")
    if options.method not in method_names(ros=True, dimensions=3):
        raise InputError(f"{where}: method {options.method!r} has no 3D version; in 3D "
                         f"through ROS: {', '.join(method_names(ros=True, dimensions=3))}")


def command_validity(control_rate: float) -> float:
    """How long a command may act (s): :data:`COMMAND_VALIDITY_PERIODS` control periods.
    orca_node plans over it; the simulator enforces it."""
    return round(COMMAND_VALIDITY_PERIODS / control_rate, 6)


def shutdown_grace(processes: int) -> float:
    """Seconds ``ros2 launch`` should wait between its SIGINT and its SIGTERM (``sigterm_timeout``).

    A node ends by destroying its DDS endpoints one by one, each announced to
    every other participant. With all processes of a fleet doing that at once
    on a loaded machine it takes seconds: 42 processes (40 robots) on 2 cores
    needed up to 5.3 s inside ``destroy_node`` and up to 10.8 s from SIGINT to
    exit, more than launch's default 5 s + 5 s before SIGKILL. Half a second
    per process, at least launch's 5 s; SIGKILL still follows 5 s after SIGTERM.
    """
    return max(5.0, 0.5 * processes)


def fleet_plan(scenario_path: str, options: FleetOptions = FleetOptions()) -> List[NodeSpec]:
    """fleet_sim, obstacle_server, one orca_node per robot (and the supervisor when asked)."""
    path = str(resolve_scenario(scenario_path))
    scenario = load_scenario(path)
    if options.backend not in ("sim", "toio-sim"):
        raise InputError(f"backend must be 'sim' or 'toio-sim', got {options.backend!r}")
    if scenario.dimensions == 3:
        check_3d_fleet(scenario, options)
    goal_subscribers = 2 if options.supervisor else 1
    if options.backend == "toio-sim":
        simulator = NodeSpec("toio_bridge", "toio_bridge", parameters={
            "scenario": path, "speed_factor": float(options.speed_factor),
            "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel, "send_goals": True,
            "goal_subscribers": goal_subscribers,
            "command_validity": TOIO_ROBOT["command_validity"]})
    else:
        simulator = NodeSpec("fleet_sim", "fleet_sim", parameters={
            "scenario": path, "kinematics": options.kinematics or "holonomic",
            "speed_factor": float(options.speed_factor), "publish_clock": True,
            "command_validity": command_validity(
                options.control_rate or round(1.0 / scenario.time_step, 6)),
            "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel,
            "send_goals": options.preferred_velocity == "goal",
            "goal_subscribers": goal_subscribers, "laser": options.scan_obstacles,
            **_simulator_frames(options), **_engine(scenario, options)})
    walls = NodeSpec("obstacle_server", "obstacle_server",
                     parameters={"scenario": path, "use_sim_time": options.use_sim_time})
    plan = [simulator, walls]
    if options.supervisor:
        plan.append(NodeSpec("supervisor_node", "supervisor", parameters={
            "scenario": path, "use_sim_time": options.use_sim_time,
            "rate": round(1.0 / scenario.time_step, 6),
            "with_orca": method_spec(options.method).avoids}))
    for agent in scenario.agents:
        parameters = robot_parameters(scenario, agent.name, options)
        if options.backend == "toio-sim":
            parameters.update(TOIO_ROBOT, tracking=method_spec(options.method).cube_tracking)
        elif options.control_rate is None:
            # fleet_sim publishes odometry at the control rate: plan as each arrives.
            parameters["control_trigger"] = "odom"
        if scenario.obstacles or scenario.mat_edges or scenario.map_file:
            parameters["obstacle_sources"] = [walls.marker_namespace]
        parameters.update(dict(options.robot_parameters))
        remappings = ()
        if options.topics == "gazebo":
            from .gazebo import robot_remappings

            remappings = robot_remappings(agent.name)
        plan.append(NodeSpec("orca_node", "orca_node", namespace=agent.name,
                             parameters=parameters, remappings=remappings))
    if options.driver == "straight":
        plan.append(NodeSpec("straight_driver", "straight_driver", parameters={
            "scenario": path, "use_sim_time": options.use_sim_time,
            "kinematics": options.kinematics or "holonomic",
            "pose_topic": truth_topic(options),
            "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel}))
    return plan


def truth_topic(options: FleetOptions) -> str:
    """The topic (in each robot's namespace) with its true pose in the shared frame, for
    observers and the straight driver: ``odom`` while odometry is in the shared frame,
    ``ground_truth`` when each robot's odometry is in a frame of its own."""
    return "ground_truth" if options.odom_frame == "per_robot" or options.topics == "gazebo" \
        else "odom"


def _engine(scenario: Scenario, options: FleetOptions) -> Dict[str, Any]:
    """fleet_sim's engine parameters: none for the kinematic one (its default); the
    robots' model file, when one is given, as the parameter of their robot type."""
    if options.engine == "kinematic":
        return {}
    parameters: Dict[str, Any] = {"engine": options.engine}
    if options.robot_model:
        from ..core.sim.physics import robot_kind

        kind = robot_kind(options.kinematics or "holonomic", bool(scenario.toio))
        parameters[f"robot_model_{kind}"] = options.robot_model
    return parameters


def _simulator_frames(options: FleetOptions) -> Dict[str, Any]:
    """fleet_sim's frames and topic names for ``options`` (see :class:`FleetOptions`). Under
    gz-sim's names the odometry is DiffDrive's: in the robot's own frame from its spawn
    pose, as exact as a simulated wheel's (no drift, no localization needed)."""
    if options.topics == "gazebo":
        return {"odom_frame": "per_robot", "topics": "gazebo", "odom_scale_error": 0.0,
                "odom_heading_drift": 0.0}
    return {"odom_frame": options.odom_frame}


def process_plan(plan: Sequence[NodeSpec], robots_per_process: int) -> List[NodeSpec]:
    """The processes that run ``plan``: its nodes, but the orca_nodes in groups of
    ``robots_per_process`` (the last group smaller), each group one ``orca_robots``
    process (``orca_robots_0``, ...) whose robots keep their own node name, namespace
    and parameters. 1: one process per orca_node, as :func:`fleet_plan` lists them."""
    _check_robots_per_process(robots_per_process)
    robots = [spec for spec in plan if spec.executable == "orca_node"]
    others = [spec for spec in plan if spec.executable != "orca_node"]
    if robots_per_process == 1:
        return list(plan)
    groups = [tuple(robots[i:i + robots_per_process])
              for i in range(0, len(robots), robots_per_process)]
    return others + [NodeSpec("orca_robots", f"orca_robots_{k}", hosted=group)
                     for k, group in enumerate(groups)]


TOIO_ROBOT = dict(CUBE_ROBOT_PARAMETERS)
"""orca_node parameters of a toio cube (one source: :mod:`orca_ros.core.models.toio_cube`, which the
world's ``kinematics="toio"`` uses too). toio_bridge times motor commands to end when
the command's validity does; the plan gives the bridge the same value."""


TOIO_CUBE_DEFAULTS = {  # a cube that runs without a scenario: a scene's cube
    **CUBE_AGENT_DEFAULTS, "control_rate": 20.0, "goal_tolerance": 0.01,
    "neighbor_radius": CUBE_AGENT_DEFAULTS["radius"],
}


def toio_plan(cubes: Sequence[str], scenario: Optional[str] = None,
              mat: str = "collection_ring", simulated: bool = False,
              send_goals: bool = False, method: str = "orca") -> List[NodeSpec]:
    """toio_bridge, obstacle_server (the mat's edges, and a scenario's walls) and one
    orca_node per cube (``launch/toio.launch.py``).

    ``cubes`` are bridge entries (``name=ble:<address or name fragment>``,
    ``name=simulated``); with a scenario and ``simulated``, every scenario agent
    becomes a simulated cube. Real cubes run on wall time. Commands are
    TwistStamped on both sides, so the bridge can tell a command's age.
    """
    from ..toio.transport import parse_cube

    loaded = load_scenario(resolve_scenario(scenario)) if scenario else None
    entries = list(cubes)
    if not entries and loaded is not None and simulated:
        entries = [f"{a.name}=simulated" for a in loaded.agents]
    if not entries:
        raise InputError("no cubes: give cube entries, or a scenario with simulated:=true")
    names = [parse_cube(entry)[0] for entry in entries]
    use_sim_time = all(parse_cube(entry)[1] == "sim" for entry in entries)
    options = FleetOptions(method=method, use_sim_time=use_sim_time, backend="toio-sim")
    bridge = {"cubes": entries, "mat": mat, "send_goals": send_goals,
              "goal_subscribers": 1, "command_validity": TOIO_ROBOT["command_validity"],
              "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel}
    plan = [NodeSpec("toio_bridge", "toio_bridge", parameters=bridge)]
    walls = {"toio_mat": mat, "use_sim_time": use_sim_time}  # the mat's edges, at least
    if loaded is not None:
        bridge["scenario"] = walls["scenario"] = str(resolve_scenario(scenario))
    server = NodeSpec("obstacle_server", "obstacle_server", parameters=walls)
    plan.append(server)
    for name in names:
        if loaded is not None and name in {a.name for a in loaded.agents}:
            parameters = robot_parameters(loaded, name, options)
        else:
            parameters = dict(TOIO_CUBE_DEFAULTS, use_sim_time=use_sim_time, method=method,
                              enable_stamped_cmd_vel=options.enable_stamped_cmd_vel)
        # Cubes follow each other by name: their orca/prediction (share_predictions,
        # the cubes' 0.14 s lag) is subscribed per followed robot.
        parameters.update(neighbors=[n for n in names if n != name] or [""],
                          neighbor_radii=[-1.0])
        parameters.update(TOIO_ROBOT, tracking=method_spec(method).cube_tracking,
                          obstacle_sources=[server.marker_namespace])  # the mat's edges
        plan.append(NodeSpec("orca_node", "orca_node", namespace=name, parameters=parameters))
    return plan
