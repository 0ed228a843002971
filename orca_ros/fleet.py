"""The node plan of a fleet run, and the runner behind ``orca-ros sim``.

:func:`fleet_plan` decides once which nodes run, with which names, namespaces
and parameters. ``launch/fleet_sim.launch.py`` turns the plan into launch_ros
``Node`` actions; :func:`run_fleet` starts the very same nodes as rclpy
objects in this process (they still talk over DDS, so another process can
watch ``/<robot>/odom`` and ``/<robot>/cmd_vel``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .core.scenario import Scenario, load_scenario, resolve_scenario

PACKAGE = "orca_ros"
SIMULATORS = ("fleet_sim", "toio_bridge")  # the node that keeps the ground truth


@dataclass(frozen=True)
class NodeSpec:
    """One node of the plan, as ``ros2 launch`` or the runner starts it."""

    executable: str
    name: str
    namespace: str = ""
    parameters: Dict[str, Any] = field(default_factory=dict)
    remappings: Tuple[Tuple[str, str], ...] = ()
    package: str = PACKAGE


@dataclass(frozen=True)
class FleetOptions:
    planner: str = "orca"
    kinematics: Optional[str] = None  # None: holonomic
    speed_factor: float = 1.0
    enable_stamped_cmd_vel: bool = False
    supervisor: bool = False
    control_rate: Optional[float] = None  # None: 1 / the scenario's time step
    use_sim_time: bool = True
    backend: str = "sim"  # sim (fleet_sim) | toio-sim (simulated cubes behind toio_bridge)


def robot_parameters(scenario: Scenario, name: str, options: FleetOptions) -> Dict[str, Any]:
    """orca_node parameters for one scenario agent."""
    agent = scenario.agent(name)
    others = [a for a in scenario.agents if a.name != name]
    radius_overrides = [f"{a.name}={a.radius}" for a in others if a.radius != agent.radius]
    return {
        "use_sim_time": options.use_sim_time,
        "radius": agent.radius, "max_speed": agent.max_speed, "pref_speed": agent.pref_speed,
        "neighbor_dist": agent.neighbor_dist, "max_neighbors": agent.max_neighbors,
        "time_horizon": agent.time_horizon, "time_horizon_obst": agent.time_horizon_obst,
        "control_rate": options.control_rate or round(1.0 / scenario.time_step, 6),
        "kinematics": options.kinematics or "holonomic", "planner": options.planner,
        "goal_tolerance": scenario.goal_tolerance_of(agent),
        "lookahead": scenario.waypoint_tolerance_of(agent),
        "neighbors": [a.name for a in others] or [""],
        "neighbor_radius": agent.radius,
        "neighbor_radius_overrides": radius_overrides or [""],
        "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel,
    }


def fleet_plan(scenario_path: str, options: FleetOptions = FleetOptions()) -> List[NodeSpec]:
    """fleet_sim, obstacle_server, one orca_node per robot (and the supervisor when asked)."""
    path = str(resolve_scenario(scenario_path))
    scenario = load_scenario(path)
    if options.backend not in ("sim", "toio-sim"):
        raise ValueError(f"backend must be 'sim' or 'toio-sim', got {options.backend!r}")
    goal_subscribers = 2 if options.supervisor else 1
    if options.backend == "toio-sim":
        simulator = NodeSpec("toio_bridge", "toio_bridge", parameters={
            "scenario": path, "speed_factor": float(options.speed_factor),
            "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel, "send_goals": True,
            "goal_subscribers": goal_subscribers})
    else:
        simulator = NodeSpec("fleet_sim", "fleet_sim", parameters={
            "scenario": path, "kinematics": options.kinematics or "holonomic",
            "speed_factor": float(options.speed_factor), "publish_clock": True,
            "enable_stamped_cmd_vel": options.enable_stamped_cmd_vel, "send_goals": True,
            "goal_subscribers": goal_subscribers})
    plan = [
        simulator,
        NodeSpec("obstacle_server", "obstacle_server",
                 parameters={"scenario": path, "use_sim_time": options.use_sim_time}),
    ]
    if options.supervisor:
        plan.append(NodeSpec("supervisor_node", "supervisor", parameters={
            "scenario": path, "use_sim_time": options.use_sim_time,
            "rate": round(1.0 / scenario.time_step, 6),
            "with_orca": options.planner == "orca"}))
    for agent in scenario.agents:
        parameters = robot_parameters(scenario, agent.name, options)
        if options.backend == "toio-sim":
            parameters.update(TOIO_ROBOT)
        plan.append(NodeSpec("orca_node", "orca_node", namespace=agent.name,
                             parameters=parameters))
    return plan


TOIO_ROBOT = {
    # Cubes are unicycles that answer commands ~0.14 s late and brake hard.
    "kinematics": "diff_drive", "max_angular_speed": 4.0, "max_linear_accel": 1.0,
    "max_angular_accel": 20.0, "odom_timeout": 0.5, "command_lag": 0.14,
    "heading_time_constant": 0.3, "safety_margin_ratio": 0.5,
}


def node_classes() -> Dict[str, Callable]:
    """Executable name -> node class, for running a plan in this process."""
    from .nodes.fleet_sim import FleetSim
    from .nodes.obstacle_server import ObstacleServer
    from .nodes.orca_node import OrcaNode

    classes = {"fleet_sim": FleetSim, "obstacle_server": ObstacleServer, "orca_node": OrcaNode}
    try:
        from .nodes.toio_bridge import ToioBridge
    except ImportError:  # pragma: no cover - part of this package
        pass
    else:
        classes["toio_bridge"] = ToioBridge
    try:
        from .nodes.supervisor_node import SupervisorNode
    except ImportError:
        pass
    else:
        classes["supervisor_node"] = SupervisorNode
    return classes


def instantiate(spec: NodeSpec, context) -> Any:
    from rclpy.parameter import Parameter

    classes = node_classes()
    if spec.executable not in classes:
        raise RuntimeError(f"executable {spec.executable!r} is not part of this package build")
    overrides = [Parameter(key, value=value) for key, value in spec.parameters.items()]
    return classes[spec.executable](context=context, namespace=spec.namespace or None,
                                    parameter_overrides=overrides)


def make_executor(context):
    """EventsExecutor where this rclpy has it (about 2.3x the messages per core), else single-threaded."""
    try:
        from rclpy.experimental import EventsExecutor

        return EventsExecutor(context=context)
    except ImportError:
        from rclpy.executors import SingleThreadedExecutor

        return SingleThreadedExecutor(context=context)


@dataclass
class SimRun:
    """What a ``run_fleet`` produced: the bench-like summary and the trajectory."""

    summary: Dict[str, Any]
    scenario: Scenario
    trajectory: Any
    frame_times: Any
    collision_points: List[Tuple[float, float]]
    deepest_penetration: float
    conflicts: List[Dict[str, Any]]


def run_fleet(scenario_path: str, options: FleetOptions = FleetOptions(),
              progress: Optional[Callable[[float, int], None]] = None,
              max_time: Optional[float] = None) -> SimRun:
    """Run the plan's nodes in this process until every robot arrives or ``max_time`` (sim s).

    fleet_sim sends each robot its goal on ``goal_pose`` (its waypoints on
    ``plan``) as a user would in RViz, once the robot's orca_node listens.
    """
    import numpy as np
    import rclpy
    from rclpy.context import Context

    plan = fleet_plan(scenario_path, options)
    scenario = load_scenario(resolve_scenario(scenario_path))
    limit = scenario.max_time if max_time is None else max_time
    context = Context()
    rclpy.init(context=context)
    started = time.perf_counter()
    nodes = []
    try:
        nodes = [instantiate(spec, context) for spec in plan]
        sim = next(n for n, spec in zip(nodes, plan) if spec.executable in SIMULATORS)
        robots = {spec.namespace: n for n, spec in zip(nodes, plan)
                  if spec.executable == "orca_node"}
        supervisor = next((n for n, spec in zip(nodes, plan)
                           if spec.executable == "supervisor_node"), None)
        executor = make_executor(context)
        for node in nodes:
            executor.add_node(node)
        record = sim.record
        while record.sim_time < limit - 1e-9:
            executor.spin_once(timeout_sec=0.05)
            arrived = record.arrived
            if progress is not None:
                progress(record.sim_time, arrived)
            if arrived == len(scenario.agents):
                break
        wall_time = time.perf_counter() - started
        summary = _summary(scenario, record, options, wall_time)
        summary.update(_timing(robots.values(), record.sim_time))
        conflicts = supervisor.decisions if supervisor is not None else []
        if options.supervisor:
            summary["conflicts"] = conflicts
        return SimRun(summary, scenario, np.array(record.trajectory),
                      np.array(record.frame_times), list(record.ledger.points),
                      record.ledger.deepest, conflicts)
    finally:
        for node in nodes:
            node.destroy_node()
        rclpy.try_shutdown(context=context)


def _timing(robots, sim_time: float) -> Dict[str, Any]:
    """Control-loop figures pooled over the orca_nodes of a run."""
    import numpy as np

    cycles = [r.cycles for r in robots]
    late = sum(r.late_cycles for r in robots)
    latencies = np.concatenate([np.asarray(r.latencies_s) for r in robots] or [np.empty(0)])
    return {
        "control_rate_hz": round(float(np.mean(cycles)) / sim_time, 3) if sim_time > 0 else None,
        "late_cycle_share": round(late / sum(cycles), 4) if sum(cycles) else None,
        "odom_to_cmd_latency_ms_p50": round(float(np.percentile(latencies, 50)) * 1e3, 2)
        if len(latencies) else None,
        "odom_to_cmd_latency_ms_p99": round(float(np.percentile(latencies, 99)) * 1e3, 2)
        if len(latencies) else None,
    }


def _summary(scenario: Scenario, record, options: FleetOptions, wall_time: float) -> Dict[str, Any]:
    """The bench-like summary of a run from its :class:`~orca_ros.core.world.FleetRecord`."""
    import numpy as np

    arrived = ~np.isnan(record.arrival_time)
    reference = np.array([a.reference_length for a in scenario.agents])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = record.path_length[arrived] / reference[arrived]
    ratios = ratios[np.isfinite(ratios)]

    def rounded(value):
        return None if value is None or not math.isfinite(value) else round(float(value), 6)

    return {
        "scenario": scenario.name, "method": options.planner,
        "kinematics": "diff_drive" if options.backend == "toio-sim" else
        (options.kinematics or "holonomic"), "agents": len(scenario.agents),
        "reached": int(arrived.sum()), "collisions": len(record.ledger.pairs),
        "min_separation": rounded(record.ledger.min_separation),
        "makespan": rounded(float(np.nanmax(record.arrival_time))) if arrived.any() else None,
        "mean_time_to_goal": rounded(float(np.nanmean(record.arrival_time))) if arrived.any() else None,
        "path_length_ratio": rounded(float(ratios.mean())) if len(ratios) else None,
        "steps": record.steps, "wall_time_s": round(wall_time, 3),
        "speed_factor": options.speed_factor,
    }


TOIO_CUBE_DEFAULTS = {
    # A toio Core Cube: 31.8 mm square (a 22.5 mm disc covers it), about 0.32 m/s top speed.
    "radius": 0.023, "max_speed": 0.15, "pref_speed": 0.12, "neighbor_dist": 0.3,
    "max_neighbors": 10, "time_horizon": 2.0, "time_horizon_obst": 1.0, "control_rate": 20.0,
    "goal_tolerance": 0.01, "neighbor_radius": 0.023,
}


def toio_plan(cubes: Sequence[str], scenario: Optional[str] = None,
              mat: str = "collection_ring", simulated: bool = False,
              send_goals: bool = False) -> List[NodeSpec]:
    """toio_bridge and one orca_node per cube (``launch/toio.launch.py``).

    ``cubes`` are bridge entries (``name=ble:<address or name fragment>``,
    ``name=simulated``); with a scenario and ``simulated``, every scenario agent
    becomes a simulated cube. Real cubes run on wall time.
    """
    from .nodes.toio_bridge import parse_cube

    loaded = load_scenario(resolve_scenario(scenario)) if scenario else None
    entries = list(cubes)
    if not entries and loaded is not None and simulated:
        entries = [f"{a.name}=simulated" for a in loaded.agents]
    if not entries:
        raise ValueError("no cubes: give cube entries, or a scenario with simulated:=true")
    names = [parse_cube(entry)[0] for entry in entries]
    use_sim_time = all(parse_cube(entry)[1] == "sim" for entry in entries)
    bridge = {"cubes": entries, "mat": mat, "send_goals": send_goals,
              "goal_subscribers": 1}
    if loaded is not None:
        bridge["scenario"] = str(resolve_scenario(scenario))
    plan = [NodeSpec("toio_bridge", "toio_bridge", parameters=bridge)]
    options = FleetOptions(use_sim_time=use_sim_time, backend="toio-sim")
    for name in names:
        if loaded is not None and name in {a.name for a in loaded.agents}:
            parameters = robot_parameters(loaded, name, options)
        else:
            parameters = dict(TOIO_CUBE_DEFAULTS, use_sim_time=use_sim_time,
                              neighbors=[n for n in names if n != name] or [""])
        parameters.update(TOIO_ROBOT)
        plan.append(NodeSpec("orca_node", "orca_node", namespace=name, parameters=parameters))
    return plan
