"""The in-process runner behind ``orca-ros sim``: :func:`run_fleet` starts the nodes of a
fleet plan (:func:`~orca_ros.fleet.plan.fleet_plan`) as rclpy objects in this process
(they still talk over DDS, so another process can watch ``/<robot>/odom`` and
``/<robot>/cmd_vel``), spins them until every robot arrives, and sums the run up."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..core.scenario.loader import Scenario, load_scenario, resolve_scenario
from .plan import SIMULATORS, FleetOptions, NodeSpec, fleet_plan


def node_classes() -> Dict[str, Callable]:
    """Executable name -> node class, for running a plan in this process."""
    from ..nodes.fleet_sim import FleetSim
    from ..nodes.obstacle_server import ObstacleServer
    from ..nodes.orca_node import OrcaNode

    classes = {"fleet_sim": FleetSim, "obstacle_server": ObstacleServer, "orca_node": OrcaNode}
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


def instantiate(spec: NodeSpec, context) -> Any:
    from rclpy.parameter import Parameter

    classes = node_classes()
    if spec.executable not in classes:
        raise RuntimeError(f"executable {spec.executable!r} is not part of this package build")
    overrides = [Parameter(key, value=value) for key, value in spec.parameters.items()]
    return classes[spec.executable](context=context, namespace=spec.namespace or None,
                                    parameter_overrides=overrides)


def make_executor(context):
    """The executor the package's processes spin
    (:func:`orca_ros.nodes.ros_common.make_executor`)."""
    from ..nodes.ros_common import make_executor as events_or_single_threaded

    return events_or_single_threaded(context)


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
    injector: Any = None  # the FaultInjector of a run with faults (its counters, drop log)


def run_fleet(scenario_path: str, options: FleetOptions = FleetOptions(),
              progress: Optional[Callable[[float, int], Optional[bool]]] = None,
              max_time: Optional[float] = None, faults: Any = None,
              observer: Optional[bool] = None, record: Optional[str] = None) -> SimRun:
    """Run the plan's nodes in this process until every robot arrives or ``max_time`` (sim s).

    fleet_sim sends each robot its goal on ``goal_pose`` (its waypoints on
    ``plan``) as a user would in RViz, once the robot's orca_node listens.

    ``faults`` (a SPEC string or :class:`~orca_ros.testing.faults.FaultSpec`) are
    injected by a :class:`~orca_ros.testing.faults.FaultInjector`; the run then also
    ends when every robot that still can has arrived (killed or jittering
    robots cannot), and the summary gets ``"faults"``. ``observer`` runs
    ``orca_ros.testing.observer`` in its own process beside the run and puts its
    verdict in the summary (``"observer"``); None: on when there are faults.
    ``record`` (a ``.mcap`` path) records every topic of the run into a ROS 2 bag
    (:class:`orca_ros.tools.bag.Recorder`); the summary gets ``"record"``.
    """
    import numpy as np
    import rclpy
    from rclpy.context import Context

    from ..testing.faults import FaultInjector, FaultSpec, filter_plan, parse_faults

    spec = faults if isinstance(faults, FaultSpec) or faults is None else parse_faults(faults)
    if spec is not None and spec.empty:
        spec = None
    plan = fleet_plan(scenario_path, options)
    scenario = load_scenario(resolve_scenario(scenario_path))
    limit = scenario.max_time if max_time is None else max_time
    if spec is not None:
        spec.check([a.name for a in scenario.agents], options.supervisor)
        plan = filter_plan(plan, spec)
    watcher = _Observer(str(resolve_scenario(scenario_path))) \
        if _observer_wanted(observer, spec) else None
    injector = None
    recorder = None
    context = Context()
    rclpy.init(context=context)
    started = time.perf_counter()
    nodes = []
    executor = None
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
        if record:
            from ..tools.bag import Recorder

            recorder = Recorder(context, record, use_sim_time=options.use_sim_time)
            recorder.scan()
            executor.add_node(recorder.node)
        record_path, record = record, sim.record
        if spec is not None:
            sim_spec = next(s for s in plan if s.executable in SIMULATORS)
            injector = FaultInjector(spec, scenario, lambda: record.sim_time)
            injector.attach(
                context, executor, nodes, sim, robots, supervisor=supervisor,
                obstacle_server=next((n for n, s in zip(list(nodes), plan)
                                      if s.executable == "obstacle_server"), None),
                kinematics="diff_drive" if options.backend == "toio-sim"
                else (options.kinematics or "holonomic"),
                stamped_cmd=bool(sim_spec.parameters.get("enable_stamped_cmd_vel")),
                use_sim_time=options.use_sim_time)
        if watcher is not None:
            watcher.wait_ready(sim, [f"/{a.name}/odom" for a in scenario.agents])
        strangers = _GraphWatch(sim, nodes, observer=watcher is not None,
                                also=[recorder.node] if recorder else [])
        next_scan = time.perf_counter() + 1.0
        all_arrived_at: Optional[float] = None
        while record.sim_time < limit - 1e-9:
            executor.spin_once(timeout_sec=0.05)
            if injector is not None:
                injector.poll()
            strangers.poll()
            if recorder is not None and time.perf_counter() >= next_scan:
                recorder.scan()  # topics that appeared since (a fault's stand-in, ...)
                next_scan = time.perf_counter() + 1.0
            arrived = record.arrived
            if progress is not None and progress(record.sim_time, arrived):
                break  # a true return asks to end here (orca-ros sim: SIGINT or SIGTERM)
            if arrived == len(scenario.agents) and watcher is not None:
                # The observer judges the robots' odometry, which trails the simulated
                # truth (a cube reports its position 0.1-0.2 s late): it gets
                # OBSERVER_SETTLE_S of simulated time to see the last arrival too.
                all_arrived_at = record.sim_time if all_arrived_at is None else all_arrived_at
                if record.sim_time - all_arrived_at >= OBSERVER_SETTLE_S - 1e-9:
                    break
            elif arrived == len(scenario.agents) or (injector is not None
                                                     and injector.finished(record)):
                break
        wall_time = time.perf_counter() - started
        summary = _summary(scenario, record, options, wall_time)
        summary.update(_timing(robots.values(), record.sim_time))
        conflicts = supervisor.decisions if supervisor is not None else []
        if options.supervisor:
            summary["conflicts"] = conflicts
        if injector is not None:
            summary["faults"] = injector.report(record)
        strangers.poll(force=True)
        if strangers.others:
            summary["other_nodes_on_domain"] = sorted(strangers.others)
        if watcher is not None:
            summary["observer"] = watcher.stop()
        if recorder is not None:
            executor.remove_node(recorder.node)
            counts = recorder.close()
            recorder = None
            summary["record"] = {"path": str(record_path), "messages": sum(counts.values()),
                                 "topics": len(counts)}
        return SimRun(summary, scenario, np.array(record.trajectory),
                      np.array(record.frame_times), list(record.ledger.points),
                      record.ledger.deepest, conflicts, injector)
    finally:
        if recorder is not None:
            recorder.close()  # a run that failed keeps what it recorded, in a valid file
        if watcher is not None:
            watcher.close()
        if injector is not None:
            injector.detach()  # SimRun keeps the injector; it must not keep the executor
        if executor is not None:
            executor.shutdown(timeout_sec=1.0)  # before the context (see nodes.ros_common.run_node)
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
        "min_separation": rounded(record.ledger.min_separation),
        "makespan": rounded(float(np.nanmax(record.arrival_time))) if arrived.any() else None,
        "mean_time_to_goal": rounded(float(np.nanmean(record.arrival_time)))
        if arrived.any() else None,
        "path_length_ratio": rounded(float(ratios.mean())) if len(ratios) else None,
        "steps": record.steps, "wall_time_s": round(wall_time, 3),
        "speed_factor": options.speed_factor,
    }
    if record.obstacles:  # the walls' share of the collisions, ground truth
        summary["wall_contacts"] = len(record.ledger.wall_pairs)
        summary["min_wall_gap"] = rounded(record.ledger.min_wall_gap)
    if scenario.links:  # as orca-ros bench's rows
        summary["link_crossings"] = len(record.link_ledger.crossings)
        summary["link_overstretches"] = len(record.link_ledger.overstretched)
    return summary


class _GraphWatch:
    """Nodes on this ROS domain that are not this run's (another process on the same
    ``ROS_DOMAIN_ID`` can mix its odometry, commands or obstacles into the run)."""

    PERIOD_S = 2.0  # wall seconds between looks at the graph

    def __init__(self, node, ours: List[Any], observer: bool = False,
                 also: Sequence[Any] = ()) -> None:
        # ``ours`` is the run's own list: nodes a fault kills leave it
        self.node, self.ours, self.observer, self.also = node, ours, observer, list(also)
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
        mine = Counter((n.get_name(), n.get_namespace()) for n in self.ours + self.also)
        if self.observer:
            mine[("orca_observer", "/")] += 1
        for name, namespace in (seen - mine):
            self.others.add(f"{namespace.rstrip('/')}/{name}")


def observer_available() -> bool:
    """Whether ``orca_ros.testing.observer`` (the independent observer process) is part of
    this build."""
    try:
        from ..testing import observer
    except ImportError:
        return False
    return hasattr(observer, "start_observer") and hasattr(observer, "stop_observer")


def _observer_wanted(observer: Optional[bool], spec) -> bool:
    if observer is None:
        return spec is not None and observer_available()
    if observer and not observer_available():
        raise RuntimeError("--observer: orca_ros.testing.observer is not part of this build")
    return observer


OBSERVER_FIELDS = ("colliding_pairs", "robot_pairs", "obstacle_pairs", "collisions",
                   "min_separation", "min_obstacle_gap", "deepest_penetration", "reached",
                   "arrived", "robots", "stamps_compared", "stamps_single", "odom_rate_hz_mean",
                   "link_crossings", "link_overstretches", "max_link_stretch")
OBSERVER_DRAIN_S = 1.0  # wall seconds between the end of a run and stopping the observer
OBSERVER_SETTLE_S = 1.0  # simulated seconds a watched run goes on after every robot arrived


class _Observer:
    """``python -m orca_ros.testing.observer`` beside one run: started first, stopped after
    the run."""

    def __init__(self, scenario_path: str) -> None:
        import os
        import tempfile

        from ..testing.observer import start_observer

        self.directory = tempfile.mkdtemp(prefix="orca_observer_")
        self.json_path = os.path.join(self.directory, "observer.json")
        self.status_path = os.path.join(self.directory, "status.json")
        try:
            self.proc = start_observer(scenario_path, self.json_path,
                                       status_path=self.status_path,
                                       log_path=os.path.join(self.directory, "observer.log"))
        except TypeError:  # an observer without the optional arguments
            self.status_path = None
            self.proc = start_observer(scenario_path, self.json_path)
        self.ready: Optional[bool] = None

    def wait_ready(self, graph_node=None, topics: Sequence[str] = (),
                   timeout: float = 30.0) -> None:
        """Wait until the observer has subscribed (its first status file), and until
        ``graph_node`` sees its subscription on every one of ``topics`` (DDS matching)."""
        from ..testing import observer

        end = time.monotonic() + timeout
        if self.status_path and hasattr(observer, "wait_ready"):
            self.ready = observer.wait_ready(self.status_path, self.proc, timeout)
        if graph_node is None or self.ready is False:
            return
        waiting = list(topics)
        while waiting and time.monotonic() < end and self.proc.poll() is None:
            waiting = [t for t in waiting if not any(
                info.node_name == "orca_observer"
                for info in graph_node.get_subscriptions_info_by_topic(t))]
            if waiting:
                time.sleep(0.05)
        self.ready = not waiting

    def stop(self) -> Dict[str, Any]:
        """SIGINT it and return the main figures of its report (or ``{"error": ...}``)."""
        from ..testing.observer import stop_observer

        time.sleep(OBSERVER_DRAIN_S)  # let it take in the last poses in flight
        try:
            report = stop_observer(self.proc, self.json_path)
        except RuntimeError as error:
            return {"error": str(error)}
        result = {key: report[key] for key in OBSERVER_FIELDS if key in report}
        if self.ready is False:
            result["warning"] = "the observer was not ready when the run started"
        return result

    def close(self) -> None:
        import shutil

        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
