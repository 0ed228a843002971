"""The parts ``orca-ros sim`` attaches to a fleet run, and the run with them.

The in-process runner (:func:`orca_ros.fleet.runner.run_in_process`) knows none of them; each
is an :class:`~orca_ros.fleet.runner.Attachment` built here:

* :class:`FaultAttachment`: a :class:`~orca_ros.testing.faults.FaultInjector` (``--faults``);
* :class:`ObserverAttachment`: ``python -m orca_ros.testing.observer`` beside the run
  (``--observer``);
* :class:`RecorderAttachment`: a :class:`~orca_ros.tools.bag.Recorder` writing every topic
  into a bag (``--record``).

:func:`run_fleet` builds them from ``faults``, ``observer`` and ``record`` and hands them
to the runner; ``orca-ros sim`` and ``orca-ros fault-suite`` run through it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..core.scenario.loader import Scenario, resolve_scenario
from ..fleet.plan import SIMULATORS, FleetOptions, NodeSpec
from ..fleet.runner import Attachment, Fleet, SimRun
from ..fleet.runner import run_in_process
from ..testing.faults import FaultInjector, FaultSpec, filter_plan, parse_faults


def observer_available() -> bool:
    """Whether ``orca_ros.testing.observer`` (the independent observer process) is part of
    this build."""
    try:
        from ..testing import observer
    except ImportError:
        return False
    return hasattr(observer, "start_observer") and hasattr(observer, "stop_observer")


OBSERVER_FIELDS = ("colliding_pairs", "robot_pairs", "obstacle_pairs", "collisions",
                   "min_separation", "min_obstacle_gap", "deepest_penetration", "reached",
                   "arrived", "robots", "stamps_compared", "stamps_single", "odom_rate_hz_mean",
                   "link_crossings", "link_overstretches", "max_link_stretch",
                   "motion_quality")
OBSERVER_DRAIN_S = 1.0  # wall seconds between the end of a run and stopping the observer
OBSERVER_SETTLE_S = 1.0  # simulated seconds a watched run goes on after every robot arrived
RECORDER_SCAN_S = 1.0  # wall seconds between the recorder's looks for new topics


class FaultAttachment(Attachment):
    """A :class:`~orca_ros.testing.faults.FaultInjector` applying ``spec`` to the run: the
    plan loses the orca_nodes of foreign robots, the run also ends when every robot that
    still can has arrived (killed or jittering robots cannot), and the summary gets
    ``"faults"``."""

    key = "faults"
    shared_neighbor_odometry = False  # it drops and delays each receiving node's deliveries

    def __init__(self, spec: FaultSpec) -> None:
        self.spec = spec
        self.injector: Optional[FaultInjector] = None
        self.record = None

    def prepare(self, plan: List[NodeSpec], scenario: Scenario,
                options: FleetOptions) -> List[NodeSpec]:
        self.spec.check([a.name for a in scenario.agents], options.supervisor)
        return filter_plan(plan, self.spec)

    def attach(self, fleet: Fleet) -> None:
        options, record = fleet.options, fleet.record
        self.record = record
        sim_spec = next(s for s in fleet.plan if s.executable in SIMULATORS)
        self.injector = FaultInjector(self.spec, fleet.scenario, lambda: record.sim_time)
        self.injector.attach(
            fleet.context, fleet.executor, fleet.nodes, fleet.sim, fleet.robots,
            supervisor=fleet.supervisor, obstacle_server=fleet.obstacle_server,
            kinematics="diff_drive" if options.backend == "toio-sim"
            else (options.kinematics or "holonomic"),
            stamped_cmd=bool(sim_spec.parameters.get("enable_stamped_cmd_vel")),
            use_sim_time=options.use_sim_time)

    def poll(self) -> None:
        self.injector.poll()

    def finished(self, record) -> bool:
        return self.injector.finished(record)

    def report(self) -> Dict[str, Any]:
        return self.injector.report(self.record)

    def close(self) -> None:
        if self.injector is not None:
            self.injector.detach()  # the run's result keeps the injector, not the executor


class ObserverAttachment(Attachment):
    """``python -m orca_ros.testing.observer`` beside one run: started before the nodes,
    waited for until it listens, stopped after the run; its verdict is the summary's
    ``"observer"``. The run goes on :data:`OBSERVER_SETTLE_S` after every robot arrived."""

    key = "observer"
    settle_s = OBSERVER_SETTLE_S

    def __init__(self, scenario_path: str) -> None:
        self.scenario_path = scenario_path
        self.directory: Optional[str] = None
        self.json_path: Optional[str] = None
        self.status_path: Optional[str] = None
        self.proc = None
        self.ready: Optional[bool] = None
        self.pose_topic = "odom"

    def prepare(self, plan: List[NodeSpec], scenario: Scenario,
                options: FleetOptions) -> List[NodeSpec]:
        import os
        import tempfile

        if not observer_available():
            raise RuntimeError("--observer: orca_ros.testing.observer is not part of this build")
        from ..testing.observer import start_observer

        scenario_path = str(resolve_scenario(self.scenario_path))
        self.directory = tempfile.mkdtemp(prefix="orca_observer_")
        self.json_path = os.path.join(self.directory, "observer.json")
        self.status_path = os.path.join(self.directory, "status.json")
        from ..fleet.plan import truth_topic

        self.pose_topic = truth_topic(options)
        try:
            self.proc = start_observer(scenario_path, self.json_path,
                                       status_path=self.status_path,
                                       log_path=os.path.join(self.directory, "observer.log"),
                                       pose_topic=self.pose_topic)
        except TypeError:  # an observer without the optional arguments
            self.status_path = None
            self.proc = start_observer(scenario_path, self.json_path)
        return plan

    def attach(self, fleet: Fleet) -> None:
        self.wait_ready(fleet.sim, [f"/{a.name}/{self.pose_topic}"
                                    for a in fleet.scenario.agents])
        fleet.expect_node("orca_observer", "/")

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

        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


class RecorderAttachment(Attachment):
    """Every topic of the run into a ROS 2 bag at ``path`` (:class:`~orca_ros.tools.bag.Recorder`),
    topics that appear later (a fault's stand-in, ...) included; the summary gets
    ``"record"``."""

    key = "record"

    def __init__(self, path: str) -> None:
        self.path = path
        self.recorder = None
        self.executor = None
        self.next_scan: Optional[float] = None

    def attach(self, fleet: Fleet) -> None:
        from .bag import Recorder

        self.recorder = Recorder(fleet.context, self.path, use_sim_time=fleet.options.use_sim_time)
        self.recorder.scan()
        fleet.executor.add_node(self.recorder.node)
        self.executor = fleet.executor
        fleet.expect_node(self.recorder.node.get_name(), self.recorder.node.get_namespace())

    def poll(self) -> None:
        now = time.perf_counter()
        if self.next_scan is None:
            self.next_scan = now + RECORDER_SCAN_S
        elif now >= self.next_scan:
            self.recorder.scan()  # topics that appeared since (a fault's stand-in, ...)
            self.next_scan = time.perf_counter() + RECORDER_SCAN_S

    def stop(self) -> Dict[str, Any]:
        self.executor.remove_node(self.recorder.node)
        counts = self.recorder.close()
        self.recorder = None
        return {"path": str(self.path), "messages": sum(counts.values()), "topics": len(counts)}

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()  # a run that failed keeps what it recorded, in a valid file
            self.recorder = None
        self.executor = None


@dataclass
class HarnessRun(SimRun):
    """A :class:`~orca_ros.fleet.runner.SimRun`, and the run's fault injector."""

    injector: Optional[FaultInjector] = None  # with faults: its counters, drop log, nodes


def run_fleet(scenario_path: str, options: FleetOptions = FleetOptions(),
              progress: Optional[Callable[[float, int], Optional[bool]]] = None,
              max_time: Optional[float] = None, faults: Any = None,
              observer: Optional[bool] = None, record: Optional[str] = None) -> HarnessRun:
    """:func:`orca_ros.fleet.runner.run_in_process` with the harness's attachments.

    ``faults`` (a SPEC string or :class:`~orca_ros.testing.faults.FaultSpec`) are
    injected by a :class:`~orca_ros.testing.faults.FaultInjector`; the run then also
    ends when every robot that still can has arrived (killed or jittering
    robots cannot), and the summary gets ``"faults"``. ``observer`` runs
    ``orca_ros.testing.observer`` in its own process beside the run and puts its
    verdict in the summary (``"observer"``); None: on when there are faults.
    ``record`` (a ``.mcap`` path) records every topic of the run into a ROS 2 bag
    (:class:`orca_ros.tools.bag.Recorder`); the summary gets ``"record"``.
    """
    spec = faults if isinstance(faults, FaultSpec) or faults is None else parse_faults(faults)
    if spec is not None and spec.empty:
        spec = None
    # In this order: the recorder subscribes before the faults add their nodes, and the
    # summary's entries come as "faults" (report), the runner's "other_nodes_on_domain",
    # "observer", "record" (stop, last attached first).
    attachments: List[Attachment] = []
    if record:
        attachments.append(RecorderAttachment(record))
    injected = FaultAttachment(spec) if spec is not None else None
    if injected is not None:
        attachments.append(injected)
    if observer or (observer is None and spec is not None and observer_available()):
        attachments.append(ObserverAttachment(scenario_path))
    run = run_in_process(scenario_path, options, progress=progress, max_time=max_time,
                         attachments=attachments)
    return HarnessRun(**{f.name: getattr(run, f.name) for f in fields(SimRun)},
                      injector=injected.injector if injected is not None else None)
