"""The in-process runner behind ``orca-ros sim``: :func:`run_in_process` starts the nodes of a
fleet plan (:func:`~orca_ros.fleet.plan.fleet_plan`) as rclpy objects in this process
(they still talk over DDS, so another process can watch ``/<robot>/odom`` and
``/<robot>/cmd_vel``), spins them until every robot arrives, and sums the run up.

What else takes part in a run (faults, an observer, a recorder) the caller hands in as
:class:`Attachment` objects; this package imports none of them
(:mod:`orca_ros.tools.harness` builds them)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..core.errors import InputError
from ..core.scenario.loader import Scenario, load_scenario, resolve_scenario
from ..core.sim.motion_quality import run_motion_summary
from .plan import SIMULATORS, FleetOptions, NodeSpec, fleet_plan


def node_classes() -> Dict[str, Callable]:
    """Executable name -> node class, for running a plan in this process."""
    from ..nodes.fleet_sim import FleetSim
    from ..nodes.obstacle_server import ObstacleServer
    from ..nodes.orca_node import OrcaNode

    from ..nodes.straight_driver import StraightDriver

    classes = {"fleet_sim": FleetSim, "obstacle_server": ObstacleServer, "orca_node": OrcaNode,
               "straight_driver": StraightDriver}
    try:
        from ..nodes.toio_bridge import ToioBridge
    except ImportError:  # pragma: no cover - part of this package
        pass
    else:
        classes["toio_bridge"] = ToioBridge
    try:
        from ..nodes.supervisor_node import SupervisorNode
    except ImportError:
        pass
    else:
        classes["supervisor_node"] = SupervisorNode
    return classes


def instantiate(spec: NodeSpec, context, **extra) -> Any:
    """The node of ``spec``, in ``context``. A node that refuses its parameters (a value
    out of its range or of the wrong type, a combination it cannot run: the
    ``ValueError`` or rclpy ``ParameterException`` its executable exits 2 for) raises
    :class:`~orca_ros.core.errors.InputError` naming the node. ``extra``: more keyword
    arguments of the node class."""
    from rclpy.exceptions import ParameterException
    from rclpy.parameter import Parameter

    classes = node_classes()
    if spec.executable not in classes:
        raise RuntimeError(f"executable {spec.executable!r} is not part of this package build")
    overrides = [Parameter(key, value=value) for key, value in spec.parameters.items()]
    remaps = [part for source, target in spec.remappings
              for part in ("-r", f"{source}:={target}")]
    try:
        return classes[spec.executable](context=context, namespace=spec.namespace or None,
                                        parameter_overrides=overrides,
                                        cli_args=["--ros-args", *remaps] if remaps else None,
                                        **extra)
    except (ValueError, ParameterException) as error:
        where = f"{spec.namespace}/" if spec.namespace else ""
        raise InputError(f"{where}{spec.executable} refused its parameters: {error}") \
            from error


class Attachment:
    """A part a caller adds to a :func:`run_in_process` run (a fault injector, an observer
    process beside the run, a bag recorder, ...), so that the runner knows none of them.

    Every hook does nothing unless overridden. The runner calls them in this order:

    1. :meth:`prepare`, in the order handed in, before any node exists (it may change
       the plan);
    2. :meth:`attach`, in the order handed in, once the plan's nodes are in the executor
       and before anything spins;
    3. after every ``spin_once``: :meth:`poll` of each. The run ends when every robot is
       at its goal at once (:func:`all_held`), then goes on for the largest
       :attr:`settle_s`; it ends before that when
       :meth:`finished` says so;
    4. at the end of the run: :meth:`report` of each, in the order handed in, while every
       node still runs; the runner's last look at the ROS graph; :meth:`stop` of each,
       last attached first;
    5. :meth:`close`, last attached first, however the run ended (also after a failure,
       and whichever hooks were reached).

    What :meth:`report` or :meth:`stop` returns, unless None, goes in the run's summary
    under :attr:`key`.
    """

    key: str = ""  # its entry in the summary
    settle_s: float = 0.0  # simulated seconds the run goes on once every robot is at its goal
    # Whether the orca_nodes may share their neighbours' odometry (one subscription per
    # topic for the process, as orca_robots' nodes do); an attachment that acts on each
    # node's own deliveries (the fault injector) says no.
    shared_neighbor_odometry: bool = True

    def prepare(self, plan: List[NodeSpec], scenario: Scenario,
                options: FleetOptions) -> List[NodeSpec]:
        """Before any node exists: refuse what cannot run, and return the plan to run."""
        return plan

    def attach(self, fleet: Fleet) -> None:
        """The plan's nodes exist and are in ``fleet.executor``; nothing has spun yet."""

    def poll(self) -> None:
        """After every ``spin_once`` of the run."""

    def finished(self, record) -> bool:
        """Whether the run may end before every robot has arrived (some never will)."""
        return False

    def report(self) -> Optional[Dict[str, Any]]:
        """Its summary entry as the run ends, while every node still runs."""
        return None

    def stop(self) -> Optional[Dict[str, Any]]:
        """Stop at the end of a run that ended normally; its summary entry, if it has one
        only now (what a process beside the run saw, what a file holds)."""
        return None

    def close(self) -> None:
        """Let go of what it holds, however the run ended."""


@dataclass
class Fleet:
    """The nodes of one :func:`run_in_process` run, as its attachments see them."""

    context: Any  # the run's rclpy Context
    executor: Any
    nodes: List[Any]  # the run's own list: what is in it at the end, the runner destroys
    plan: List[NodeSpec]  # the specs of the first len(plan) nodes, in their order
    scenario: Scenario
    options: FleetOptions
    sim: Any  # the node that keeps the ground truth (fleet_sim or toio_bridge)
    record: Any  # its FleetRecord: sim time, arrivals, collisions
    robots: Dict[str, Any]  # robot name -> its orca_node
    supervisor: Any = None
    obstacle_server: Any = None
    expected: List[Tuple[str, str]] = field(default_factory=list)

    def expect_node(self, name: str, namespace: str = "/") -> None:
        """A node of this run outside :attr:`nodes` (its own, in this process or another):
        not a stranger on the ROS domain."""
        self.expected.append((name, namespace))


@dataclass
class SimRun:
    """What a ``run_in_process`` produced: the bench-like summary and the trajectory."""

    summary: Dict[str, Any]
    scenario: Scenario
    trajectory: Any
    frame_times: Any
    collision_points: List[Tuple[float, float]]
    deepest_penetration: float
    conflicts: List[Dict[str, Any]]


def run_in_process(scenario_path: str, options: FleetOptions = FleetOptions(),
              progress: Optional[Callable[[float, int], Optional[bool]]] = None,
              max_time: Optional[float] = None,
              attachments: Sequence[Attachment] = ()) -> SimRun:
    """Run the plan's nodes in this process until every robot arrives or ``max_time`` (sim s).

    fleet_sim sends each robot its goal on ``goal_pose`` (its waypoints on
    ``plan``) as a user would in RViz, once the robot's orca_node listens.

    ``progress(sim_time, arrived)`` is called after every step; a true return ends the
    run there. ``attachments`` (:class:`Attachment`) take part in the run; each may
    change the plan, hook into the nodes, end the run early or make it go on, and add
    an entry to the summary (:mod:`orca_ros.tools.harness`: faults, the observer, a
    bag).
    """
    import numpy as np
    import rclpy
    from rclpy.context import Context

    from ..nodes.ros_common import make_executor, share_clock

    attachments = list(attachments)
    plan = fleet_plan(scenario_path, options)
    scenario = load_scenario(resolve_scenario(scenario_path))
    limit = scenario.max_time if max_time is None else max_time
    context = None
    nodes = []
    executor = None
    try:
        for attachment in attachments:
            plan = attachment.prepare(plan, scenario, options)
        context = Context()
        rclpy.init(context=context)
        started = time.perf_counter()
        # The orca_nodes share their neighbours' odometry, one subscription per topic for
        # the process, as orca_robots' nodes do (node by node: N x N subscriptions).
        from ..nodes.neighbor_odometry import NeighborOdometry

        shared = {"neighbor_odometry": NeighborOdometry()} \
            if all(a.shared_neighbor_odometry for a in attachments) else {}
        nodes = [instantiate(spec, context, **(shared if spec.executable == "orca_node"
                                               else {})) for spec in plan]
        sim = next(n for n, spec in zip(nodes, plan) if spec.executable in SIMULATORS)
        robots = {spec.namespace: n for n, spec in zip(nodes, plan)
                  if spec.executable == "orca_node"}
        supervisor = next((n for n, spec in zip(nodes, plan)
                           if spec.executable == "supervisor_node"), None)
        executor = make_executor(context)
        if shared:  # and one /clock subscription, as orca_robots' nodes
            share_clock(list(robots.values()))
        for node in nodes:
            executor.add_node(node)
        record = sim.record
        fleet = Fleet(context, executor, nodes, list(plan), scenario, options, sim, record,
                      robots, supervisor=supervisor,
                      obstacle_server=next((n for n, s in zip(list(nodes), plan)
                                            if s.executable == "obstacle_server"), None))
        for attachment in attachments:
            attachment.attach(fleet)
        strangers = _GraphWatch(sim, nodes, fleet.expected)
        settle = max((attachment.settle_s for attachment in attachments), default=0.0)
        all_arrived_at: Optional[float] = None
        while record.sim_time < limit - 1e-9:
            executor.spin_once(timeout_sec=0.05)
            for attachment in attachments:
                attachment.poll()
            strangers.poll()
            arrived = record.arrived
            if progress is not None and progress(record.sim_time, arrived):
                break  # a true return asks to end here (orca-ros sim: SIGINT or SIGTERM)
            # Done when every robot is at its goal at once: one pushed off its goal after
            # arriving has to come back first (a goal is held, not only reached).
            if all_held(record, scenario) and settle > 0.0:
                # An attachment that judges the robots' odometry, which trails the
                # simulated truth (a cube reports its position 0.1-0.2 s late), gets
                # settle_s of simulated time to see the last arrival too.
                all_arrived_at = record.sim_time if all_arrived_at is None else all_arrived_at
                if record.sim_time - all_arrived_at >= settle - 1e-9:
                    break
            elif all_held(record, scenario) or any(attachment.finished(record)
                                                   for attachment in attachments):
                break
        wall_time = time.perf_counter() - started
        summary = _summary(scenario, record, options, wall_time)
        summary.update(_timing(robots.values(), record.sim_time))
        held = goals_held(robots)
        if held:
            summary["goals_held"] = held
        conflicts = supervisor.decisions if supervisor is not None else []
        if options.supervisor:
            summary["conflicts"] = conflicts
        for attachment in attachments:
            entry = attachment.report()
            if entry is not None:
                summary[attachment.key] = entry
        strangers.poll(force=True)
        if strangers.others:
            summary["other_nodes_on_domain"] = sorted(strangers.others)
        for attachment in reversed(attachments):
            entry = attachment.stop()
            if entry is not None:
                summary[attachment.key] = entry
        return SimRun(summary, scenario, np.array(record.trajectory),
                      np.array(record.frame_times), list(record.ledger.points),
                      record.ledger.deepest, conflicts)
    finally:
        for attachment in reversed(attachments):
            attachment.close()
        if executor is not None:
            executor.shutdown(timeout_sec=1.0)  # before the context (see nodes.ros_common.run_node)
        for node in reversed(nodes):  # the first orca_node, holding the shared neighbour
            node.destroy_node()  # subscriptions, last: they are never handed over
        if context is not None:
            rclpy.try_shutdown(context=context)


def all_held(record, scenario: Scenario) -> bool:
    """Whether every robot has reached its goal and, where robots stay on their goals
    (``on_goal: stay``), stands within its goal tolerance now."""
    everyone = len(scenario.agents)
    return record.arrived == everyone and (scenario.on_goal != "stay"
                                           or record.at_goal == everyone)


def goals_held(robots) -> Dict[str, List[str]]:
    """The robots (orca_nodes by name) that, stuck short of their goals at the run's end,
    found that the robots around the goal leave them no room
    (:func:`~orca_ros.core.robot.progress.goal_held_by`), each with those robots."""
    held = {name: list(node.core.goal_held_by(node.get_clock().now().nanoseconds * 1e-9))
            for name, node in sorted(robots.items())}
    return {name: by for name, by in held.items() if by}


def _timing(robots, sim_time: float) -> Dict[str, Any]:
    """Control-loop figures pooled over the orca_nodes of a run."""
    import numpy as np

    cycles = [r.timing.cycles for r in robots]
    late = sum(r.timing.late_cycles for r in robots)
    latencies = np.concatenate([np.asarray(r.timing.latencies_s) for r in robots] or [np.empty(0)])
    return {
        "control_rate_hz": round(float(np.mean(cycles)) / sim_time, 3) if sim_time > 0 else None,
        "late_cycle_share": round(late / sum(cycles), 4) if sum(cycles) else None,
        "odom_to_cmd_latency_ms_p50": round(float(np.percentile(latencies, 50)) * 1e3, 2)
        if len(latencies) else None,
        "odom_to_cmd_latency_ms_p99": round(float(np.percentile(latencies, 99)) * 1e3, 2)
        if len(latencies) else None,
    }


def _summary(scenario: Scenario, record, options: FleetOptions, wall_time: float) -> Dict[str, Any]:
    """The bench-like summary of a run from its :class:`~orca_ros.core.sim.metrics.FleetRecord`."""
    import numpy as np

    arrived = ~np.isnan(record.arrival_time)
    reference = np.array([a.reference_length for a in scenario.agents])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = record.path_length[arrived] / reference[arrived]
    ratios = ratios[np.isfinite(ratios)]

    def rounded(value):
        return None if value is None or not math.isfinite(value) else round(float(value), 6)

    summary = {
        "scenario": scenario.name, "method": options.method,
        "kinematics": "diff_drive" if options.backend == "toio-sim" else
        (options.kinematics or "holonomic"), "agents": len(scenario.agents),
        "reached": int(arrived.sum()), "collisions": len(record.ledger.pairs),
        "robot_collisions": len(record.ledger.pairs - record.ledger.wall_pairs),
        "wall_collisions": len(record.ledger.wall_pairs),
        "success_rate": rounded(float(arrived.mean())) if len(arrived) else None,
        "min_separation": rounded(record.ledger.min_separation),
        "makespan": rounded(float(np.nanmax(record.arrival_time))) if arrived.any() else None,
        "mean_time_to_goal": rounded(float(np.nanmean(record.arrival_time)))
        if arrived.any() else None,
        "path_length_ratio": rounded(float(ratios.mean())) if len(ratios) else None,
        "steps": record.steps, "wall_time_s": round(wall_time, 3),
        "speed_factor": options.speed_factor,
    }
    summary.update(run_motion_summary(record.motion_figures()))  # as orca-ros bench's rows
    if record.obstacles:  # the walls' share of the collisions, ground truth
        summary["wall_contacts"] = len(record.ledger.wall_pairs)
        summary["min_wall_gap"] = rounded(record.ledger.min_wall_gap)
    contacts = getattr(record, "engine_contacts", None)
    if contacts is not None:  # a physics engine's own contact list (fleet_sim engine mujoco)
        summary["engine"] = "mujoco"
        summary["engine_contacts"] = len(contacts.pairs)
        summary["engine_robot_contacts"] = len(contacts.robot_pairs)
        summary["engine_resets"] = list(contacts.resets)
        summary["engine_wall_contacts"] = len(contacts.wall_pairs)
        summary["engine_contact_pairs"] = sorted("-".join(p) for p in contacts.pairs)
    if scenario.links:  # as orca-ros bench's rows
        summary["link_crossings"] = len(record.link_ledger.crossings)
        summary["link_overstretches"] = len(record.link_ledger.overstretched)
    return summary


class _GraphWatch:
    """Nodes on this ROS domain that are not this run's (another process on the same
    ``ROS_DOMAIN_ID`` can mix its odometry, commands or obstacles into the run)."""

    PERIOD_S = 2.0  # wall seconds between looks at the graph

    def __init__(self, node, ours: List[Any], expected: Sequence[Tuple[str, str]] = ()) -> None:
        # ``ours`` is the run's own list: nodes a fault kills leave it. ``expected``: the
        # (name, namespace) of the run's nodes outside it (Fleet.expect_node).
        self.node, self.ours, self.expected = node, ours, expected
        self.next = time.perf_counter() + 1.0
        self.others: set = set()

    def poll(self, force: bool = False) -> None:
        from collections import Counter

        now = time.perf_counter()
        if not force and now < self.next:
            return
        self.next = now + self.PERIOD_S
        try:
            seen = Counter(self.node.get_node_names_and_namespaces())
        except Exception:  # the graph is not there any more: nothing to learn
            return
        mine = Counter((n.get_name(), n.get_namespace()) for n in self.ours)
        mine.update(self.expected)
        for name, namespace in (seen - mine):
            self.others.add(f"{namespace.rstrip('/')}/{name}")
