"""The fault injector: a :class:`~orca_ros.testing.faults.spec.FaultSpec` applied to the
running nodes of one fleet run.

The nodes of a run are not changed. The injector hooks into them from the
outside once they exist: it wraps the ``callback`` of their rclpy
subscriptions and timers, removes and destroys nodes from the executor, and
adds nodes of its own (an intruding obstacle publisher, foreign drivers).

What each fault does:

* ``drop_odom``: every Odometry subscription of an orca_node (its own
  ``odom``, each neighbour's, including those discovery creates later, and the
  fleet's announced states on ``/orca/states``) is wrapped; a dropped delivery never
  reaches the callback. ``TARGET`` is the receiving robot.
* ``drop_cmd``: the simulator's ``/<robot>/cmd_vel`` subscriptions; ``TARGET``
  is the commanded robot.
* ``delay``: the same deliveries go into a queue and their callbacks run once
  the receiver's clock has advanced by S since they arrived, in arrival order
  (the runner releases them after every ``spin_once``): the simulator's for
  cmd_vel, the receiving orca_node's ROS clock (``/clock``) for odometry, so a
  delayed reading reaches a node whose clock says it is late, as over a slow
  network. The clocks move in scenario time steps, so the held time is S
  rounded up to a step. (Held by the simulator's clock alone, a reading
  reached its node before the node had heard the new ``/clock``: the node
  stamped its command a step early, and under ``delay=0.1`` every command
  expired before it could act.)
* ``starve``: the node gets a fraction F of a core. Its time is cut into
  control periods; at each tick of its control timer it gets the CPU for the
  coming period with probability F. Without the CPU the control step is
  skipped (no cmd_vel: the simulator applies the last command until it
  expires) and the node's message callbacks wait; at the next granted
  tick the waiting messages are delivered in order, then the control step
  runs. Other timers (discovery, diagnostics) are not starved. No sleeping:
  the rest of the process keeps its pace, as on a machine with more cores.
  A starved orca_node runs on its control timer (``control_trigger`` 'timer',
  set here), the ticks this model cuts the CPU by.
* ``kill``, ``kill_supervisor``, ``kill_obstacles``: at sim time T the node is
  removed from the executor and destroyed (a killed robot's deliveries still
  queued or held are discarded). The simulator stops the robot once its last
  command expires, and goes on publishing its odometry, so the others see it
  standing.
* ``bad_obstacles``: a node ``fault_intruder`` publishes on ``/obstacles``
  (transient-local, like obstacle_server) a LINE_LIST with ns ``intruder``:
  a point near the middle of the scenario, a NaN point, and one more.
* ``foreign``: the robot's orca_node is left out of the plan; a node
  ``/<robot>/foreign_driver`` publishes its cmd_vel (Twist or TwistStamped as
  the plan's simulator expects, stamped with the node clock) at the scenario's
  rate. ``straight``: at its scenario goal at its max speed, ignoring everyone,
  stopping within the goal tolerance. ``jitter``: forward speed +1e9 and -1e9
  m/s on alternate ticks; the simulator clamps it to the speed and
  acceleration limits, so the robot lurches along its heading.

Reproducibility: every random decision is a hash of the seed, the fault, the
stream and the message's place in it (``_uniform``), never a draw from a
shared generator. An odometry delivery is identified by its receiver, topic
and header stamp, so with the same seed the same odometry messages are dropped
in every run, whatever order DDS delivers the streams in. cmd_vel (a plain
Twist has no stamp) and control ticks are identified by their index in their
stream. The run as a whole is not bit-reproducible (DDS timing differs).
"""

from __future__ import annotations

import hashlib
import heapq
import math
import struct
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional, Tuple

from .actors import _ForeignDriver, _Intruder
from .spec import ALL, FaultSpec


def _uniform(seed: int, *key: Any) -> float:
    """A number in [0, 1) that depends only on the seed and the key (stable across processes)."""
    digest = hashlib.blake2b(repr((seed,) + key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0 ** 64


def filter_plan(plan: List[Any], spec: Optional[FaultSpec]) -> List[Any]:
    """The plan without the orca_nodes of foreign robots, and the others following
    those robots' odometry (``neighbors``, with their radii): a foreign robot announces
    nothing, as a user lists a robot of another fleet."""
    if spec is None or not spec.foreign:
        return list(plan)
    foreign = spec.foreign_robots
    radii = {s.namespace: s.parameters.get("radius", -1.0) for s in plan
             if s.executable == "orca_node" and s.namespace in foreign}
    kept = []
    for s in plan:
        if s.executable != "orca_node":
            kept.append(s)
        elif s.namespace not in foreign:
            names = [n for n in radii if n != s.namespace]
            kept.append(replace(s, parameters=dict(
                s.parameters, neighbors=names, neighbor_radii=[radii[n] for n in names])))
    return kept


# --- the injector ----------------------------------------------------------------

@dataclass
class _Tap:
    """One wrapped subscription: odometry into an orca_node, or cmd_vel into the simulator."""

    kind: str  # "odom" | "cmd"
    robot: str  # odom: the sender; cmd: the commanded robot
    owner: Optional[str]  # odom: the receiving robot's orca_node; cmd: None (the simulator)
    topic: str
    p_drop: float
    delay: float
    received: int = 0
    dropped: int = 0
    delayed: int = 0
    delivered: int = 0
    discarded: int = 0  # queued or held for a node that was killed meanwhile
    dropped_keys: List[int] = field(default_factory=list)  # header stamps (ns) or indices
    # Every key that reached the tap: subscriptions to states are latest-only, so
    # which messages arrive depends on timing; the seed decides what is dropped of those.
    received_keys: List[int] = field(default_factory=list)
    first_key: Optional[int] = None  # of the first and last message received
    last_key: Optional[int] = None


@dataclass
class _Gate:
    """A starved orca_node: open (has the CPU) or closed until its next granted tick."""

    robot: str
    fraction: float
    open: bool = True
    ticks: int = 0
    run: int = 0
    held: List[Tuple[float, _Tap, Any, Callable[[], None]]] = field(default_factory=list)
    messages_held: int = 0
    hold_total: float = 0.0
    hold_max: float = 0.0


@dataclass
class _Stats:
    count: int = 0
    total: float = 0.0
    max: float = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.max = max(self.max, value)

    def as_dict(self) -> Dict[str, Optional[float]]:
        return {"mean": round(self.total / self.count, 4) if self.count else None,
                "max": round(self.max, 4) if self.count else None, "count": self.count}


def _stamp_ns(msg) -> Optional[int]:
    """A stamped message's stamp (ns); a serialized one's (a raw subscription's bytes:
    its header comes first, the stamp after the 4 bytes of CDR encapsulation)."""
    if isinstance(msg, (bytes, bytearray, memoryview)):
        data = bytes(msg)
        if len(data) < 12 or data[1] not in (0, 1):
            return None
        sec, nanosec = struct.unpack_from("<iI" if data[1] == 1 else ">iI", data, 4)
        return sec * 1_000_000_000 + nanosec
    header = getattr(msg, "header", None)
    if header is None:
        return None
    return header.stamp.sec * 1_000_000_000 + header.stamp.nanosec


def _odometry_key(msg) -> Any:
    """What identifies an odometry delivery in its stream: its stamp; on the fleet's
    shared states topic (serialized bytes from many robots) the robot and its stamp."""
    if isinstance(msg, (bytes, bytearray, memoryview)):
        from ...nodes.ros_common import BadMessage, odometry_from_cdr

        try:
            parsed = odometry_from_cdr(bytes(msg))
        except BadMessage:
            return None
        return f"{parsed.child_frame_id}@{_stamp_ns(parsed)}"
    return _stamp_ns(msg)


class FaultInjector:
    """Applies a :class:`FaultSpec` to the running nodes of one fleet run.

    ``now`` is the simulator's clock (sim seconds). Use: construct,
    :meth:`attach` once the nodes exist and are in the executor, call
    :meth:`poll` after every ``spin_once`` (it releases delayed deliveries and
    carries out kills), and :meth:`report` at the end. Nodes the injector makes
    are appended to the runner's node list, and nodes it kills are taken out
    of it, so the runner destroys exactly what is left.
    """

    def __init__(self, spec: FaultSpec, scenario, now: Callable[[], float]) -> None:
        self.spec = spec
        self.scenario = scenario
        self.now = now
        self.names = [a.name for a in scenario.agents]
        self.queue: List[Tuple[float, int, _Tap, Any, Callable[[], None]]] = []
        self.sequence = 0
        self.taps: List[_Tap] = []
        self.tapped: set = set()
        self.gates: Dict[str, _Gate] = {}
        self.odom_age = _Stats()
        self.cmd_last: Dict[str, float] = {}  # robot -> sim time its last cmd_vel was sent
        self.cmd_after_kill: Dict[str, int] = {}
        self.killed: Dict[str, Dict[str, Any]] = {}  # what -> facts
        self.killed_robots: set = set()
        self.pending_kills: List[Tuple[float, str]] = []
        self.drivers: Dict[str, "_ForeignDriver"] = {}
        self.intruder = None
        self.executor = None
        self.nodes: List[Any] = []
        self.sim = None
        self.robots: Dict[str, Any] = {}
        self.supervisor = None
        self.obstacle_server = None

    # --- setting up ----------------------------------------------------------------

    def attach(self, context, executor, nodes: List[Any], sim, robots: Dict[str, Any],
               supervisor=None, obstacle_server=None, kinematics: str = "holonomic",
               stamped_cmd: bool = False, use_sim_time: bool = True) -> None:
        """Hook into the nodes of a run (already added to ``executor``)."""
        self.executor, self.nodes, self.sim = executor, nodes, sim
        self.robots, self.supervisor = dict(robots), supervisor
        self.obstacle_server = obstacle_server
        spec = self.spec
        for name, node in self.robots.items():
            fraction = spec.value("starve", name, 1.0)
            if any(target in (ALL, name) for target, _ in spec.starve):
                control = getattr(node, "control_timer", None)
                if control is None:
                    raise RuntimeError(f"starve: the orca_node of {name} has no control_timer")
                from rclpy.parameter import Parameter

                node.set_parameters([Parameter("control_trigger", value="timer")])
                gate = self.gates[name] = _Gate(name, fraction)
                control.callback = self._starved_tick(gate, control.callback)
            for timer in list(node.timers):
                timer.callback = self._adopting(name, timer.callback)
            self._adopt(name)
        for sub in list(sim.subscriptions):
            topic = sub.topic_name
            robot = topic.strip("/").split("/")[0]
            if topic.endswith("/cmd_vel") and robot in self.names:
                self._tap(sub, _Tap("cmd", robot, None, topic, spec.value("drop_cmd", robot),
                                    spec.value("delay", robot)))
        for robot, at in spec.kill:
            self.pending_kills.append((at, f"kill={robot}"))
        if spec.kill_supervisor is not None:
            if supervisor is None:
                raise RuntimeError("kill_supervisor: this run has no supervisor (--supervisor)")
            self.pending_kills.append((spec.kill_supervisor, "kill_supervisor"))
        if spec.kill_obstacles is not None:
            if obstacle_server is None:
                raise RuntimeError("kill_obstacles: this run has no obstacle_server")
            self.pending_kills.append((spec.kill_obstacles, "kill_obstacles"))
        self.pending_kills.sort()
        if spec.bad_obstacles is not None:
            self.intruder = _Intruder(context, self.scenario, spec.bad_obstacles, use_sim_time)
            self._add_node(self.intruder.node)
        for robot, mode in spec.foreign:
            driver = _ForeignDriver(context, self.scenario.agent(robot), self.scenario, mode,
                                    kinematics, stamped_cmd, use_sim_time)
            self.drivers[robot] = driver
            self._add_node(driver.node)

    def detach(self) -> None:
        """Let go of the executor and the queues at the end of a run.

        An executor that stays referenced keeps the DDS entities of its nodes
        alive after they are destroyed: a later run in the same process would
        still receive this run's latched markers.
        """
        self.executor = None
        self.queue.clear()
        for gate in self.gates.values():
            gate.held = []

    def _add_node(self, node) -> None:
        self.executor.add_node(node)
        self.nodes.append(node)

    def _adopt(self, robot: str) -> None:
        """Wrap the odometry subscriptions of ``robot``'s orca_node not wrapped yet."""
        from nav_msgs.msg import Odometry

        from ...nodes.neighbor_odometry import STATES_TOPIC

        if robot in self.killed_robots:
            return
        for sub in list(self.robots[robot].subscriptions):
            if id(sub) in self.tapped or getattr(sub, "msg_type", None) is not Odometry:
                continue
            topic = sub.topic_name
            sender = "*" if topic == STATES_TOPIC else topic.strip("/").split("/")[0]
            self._tap(sub, _Tap("odom", sender, robot, topic, self.spec.value("drop_odom", robot),
                                self.spec.value("delay", robot)))

    def _tap(self, sub, tap: _Tap) -> None:
        from rclpy.subscription import Subscription

        original = sub.callback
        self.taps.append(tap)
        self.tapped.add(id(sub))
        if getattr(sub, "_callback_type", None) is Subscription.CallbackType.WithMessageInfo:
            def wrapped_info(msg, info):
                self._receive(tap, msg, lambda: original(msg, info))
            sub.callback = wrapped_info
        else:
            def wrapped(msg):
                self._receive(tap, msg, lambda: original(msg))
            sub.callback = wrapped

    def _adopting(self, robot: str, original: Callable[[], None]) -> Callable[[], None]:
        """A timer callback that then wraps new subscriptions (neighbours found by discovery)."""
        def tick():
            if robot in self.killed_robots:
                return
            original()
            self._adopt(robot)
        return tick

    def _starved_tick(self, gate: _Gate, original: Callable[[], None]) -> Callable[[], None]:
        def tick():
            gate.ticks += 1
            if _uniform(self.spec.seed, "starve", gate.robot, gate.ticks) >= gate.fraction:
                gate.open = False  # no CPU until the next granted tick: messages wait
                return
            gate.open = True
            gate.run += 1
            held, gate.held = gate.held, []
            now = self.now()
            for since, tap, msg, call in held:
                wait = now - since
                gate.hold_total += wait
                gate.hold_max = max(gate.hold_max, wait)
                self._call(tap, msg, call)
            original()
        return tick

    # --- the message path ------------------------------------------------------------

    def _receive(self, tap: _Tap, msg, call: Callable[[], None]) -> None:
        now = self.now()
        index = tap.received
        tap.received += 1
        if tap.kind == "cmd":
            # When it was sent: its stamp (TwistStamped), else when it arrives. A command
            # sent just before its node was killed may arrive after (DDS delivers it
            # later on a busy machine); that is not a dead node talking.
            stamp_ns = _stamp_ns(msg)
            sent = now if stamp_ns is None else stamp_ns * 1e-9
            self.cmd_last[tap.robot] = max(sent, self.cmd_last.get(tap.robot, sent))
            killed = self.killed.get(f"kill={tap.robot}")
            if killed is not None and sent > killed["killed_at"]:
                self.cmd_after_kill[tap.robot] = self.cmd_after_kill.get(tap.robot, 0) + 1
        stamp = _odometry_key(msg) if tap.kind == "odom" else None
        key = index if stamp is None else stamp
        if tap.first_key is None:
            tap.first_key = key
        tap.last_key = key
        tap.received_keys.append(key)
        if tap.p_drop > 0.0:
            fault = "drop_odom" if tap.kind == "odom" else "drop_cmd"
            stream = tap.owner or "sim"
            if _uniform(self.spec.seed, fault, stream, tap.topic, key) < tap.p_drop:
                tap.dropped += 1
                tap.dropped_keys.append(key)
                return
        if tap.delay > 0.0:
            due = self._receiver_now(tap) + tap.delay
            heapq.heappush(self.queue, (due, self.sequence, tap, msg, call))
            self.sequence += 1
            tap.delayed += 1
            return
        self._arrive(tap, msg, call)

    def _receiver_now(self, tap: _Tap) -> float:
        """The receiver's time (s): the receiving orca_node's ROS clock for odometry (a
        killed node's: the simulator's), the simulator's for cmd_vel."""
        node = self.robots.get(tap.owner) if tap.owner is not None else None
        if node is None or tap.owner in self.killed_robots:
            return self.now()
        return node.get_clock().now().nanoseconds * 1e-9

    def _arrive(self, tap: _Tap, msg, call: Callable[[], None]) -> None:
        if tap.owner is not None:
            if tap.owner in self.killed_robots:
                tap.discarded += 1
                return
            gate = self.gates.get(tap.owner)
            if gate is not None and not gate.open:
                gate.held.append((self.now(), tap, msg, call))
                gate.messages_held += 1
                return
        self._call(tap, msg, call)

    def _call(self, tap: _Tap, msg, call: Callable[[], None]) -> None:
        if tap.owner is not None and tap.owner in self.killed_robots:
            tap.discarded += 1
            return
        if tap.kind == "odom":
            stamp = _stamp_ns(msg)
            if stamp is not None:  # as old as the receiving node finds it
                self.odom_age.add(max(0.0, self._receiver_now(tap) - stamp * 1e-9))
        tap.delivered += 1
        call()

    # --- each loop of the runner -------------------------------------------------------

    def poll(self) -> None:
        """Release due delayed deliveries (in order) and carry out due kills."""
        now = self.now()
        while self.queue and self.queue[0][0] <= self._receiver_now(self.queue[0][2]) + 1e-9:
            _, _, tap, msg, call = heapq.heappop(self.queue)
            self._arrive(tap, msg, call)
        while self.pending_kills and self.pending_kills[0][0] <= now + 1e-9:
            at, what = self.pending_kills.pop(0)
            self._kill(what, at, now)

    def _kill(self, what: str, at: float, now: float) -> None:
        if what.startswith("kill="):
            robot = what[len("kill="):]
            node = self.robots[robot]
            self.killed_robots.add(robot)
            gate = self.gates.get(robot)
            if gate is not None:
                for _, tap, _, _ in gate.held:
                    tap.discarded += 1
                gate.held = []
        elif what == "kill_supervisor":
            node = self.supervisor
        else:
            node = self.obstacle_server
        facts: Dict[str, Any] = {"at": at, "killed_at": round(now, 6),
                                 "wall_time": time.time()}
        if what == "kill_supervisor":
            facts["decisions_before"] = len(getattr(node, "decisions", []) or [])
        # The executor may already hold events of this node (a timer that fired, a
        # message taken): they must find callbacks that do nothing, not a destroyed
        # publisher.
        for timer in list(node.timers):
            timer.callback = _nothing
        for sub in list(node.subscriptions):
            sub.callback = _nothing_with
        self.executor.remove_node(node)
        node.destroy_node()
        if node in self.nodes:
            self.nodes.remove(node)
        self.killed[what] = facts

    def cannot_arrive(self, record) -> List[str]:
        """Robots that will not arrive any more: killed short of their goals, jittering."""
        out = []
        for k, name in enumerate(self.names):
            if not math.isnan(record.arrival_time[k]):
                continue
            if name in self.killed_robots or self.spec.foreign_robots.get(name) == "jitter":
                out.append(name)
        return out

    def finished(self, record) -> bool:
        """Every robot that can still arrive has arrived (and some cannot)."""
        if not self.killed_robots and "jitter" not in self.spec.foreign_robots.values():
            return False
        stuck = set(self.cannot_arrive(record))
        if not stuck:
            return False
        return all(not math.isnan(record.arrival_time[k]) or name in stuck
                   for k, name in enumerate(self.names))

    # --- the report ------------------------------------------------------------------

    def report(self, record=None) -> Dict[str, Any]:
        """What was injected and what happened, for the run summary (JSON-ready)."""
        spec = self.spec
        odom = [t for t in self.taps if t.kind == "odom"]
        cmd = [t for t in self.taps if t.kind == "cmd"]

        def totals(taps: List[_Tap]) -> Dict[str, int]:
            return {k: sum(getattr(t, k) for t in taps)
                    for k in ("received", "dropped", "delayed", "delivered", "discarded")}

        out: Dict[str, Any] = {"spec": str(spec), "seed": spec.seed,
                               "clock": "simulator sim time",
                               "odom": dict(totals(odom),
                                            age_at_callback_s=self.odom_age.as_dict()),
                               "cmd_vel": totals(cmd), "injected": []}
        injected = out["injected"]
        if any(p > 0 for _, p in spec.drop_odom):
            per_robot = {}
            for t in odom:
                row = per_robot.setdefault(t.owner, {"received": 0, "dropped": 0})
                row["received"] += t.received
                row["dropped"] += t.dropped
            injected.append({"fault": "drop_odom", "entries": _entries(spec, "drop_odom"),
                             "received": sum(t.received for t in odom),
                             "dropped": sum(t.dropped for t in odom), "per_robot": per_robot})
        if any(p > 0 for _, p in spec.drop_cmd):
            injected.append({"fault": "drop_cmd", "entries": _entries(spec, "drop_cmd"),
                             "received": sum(t.received for t in cmd),
                             "dropped": sum(t.dropped for t in cmd),
                             "per_robot": {t.robot: {"received": t.received, "dropped": t.dropped}
                                           for t in cmd}})
        if any(s > 0 for _, s in spec.delay):
            injected.append({"fault": "delay", "entries": _entries(spec, "delay"),
                             "odom_delayed": sum(t.delayed for t in odom),
                             "cmd_delayed": sum(t.delayed for t in cmd),
                             "still_queued_at_end": len(self.queue),
                             "odom_age_at_callback_s": self.odom_age.as_dict()})
        for robot, gate in sorted(self.gates.items()):
            injected.append({"fault": "starve", "robot": robot, "fraction": gate.fraction,
                             "control_ticks": gate.ticks, "ticks_run": gate.run,
                             "ticks_skipped": gate.ticks - gate.run,
                             "share_run": round(gate.run / gate.ticks, 4) if gate.ticks else None,
                             "messages_held": gate.messages_held,
                             "mean_hold_s": round(gate.hold_total / gate.messages_held, 4)
                             if gate.messages_held else None,
                             "max_hold_s": round(gate.hold_max, 4)})
        graph = self._graph()
        for robot, at in spec.kill:
            facts = self.killed.get(f"kill={robot}")
            item: Dict[str, Any] = {"fault": "kill", "robot": robot, "at": at,
                                    "killed_at": facts["killed_at"] if facts else None}
            if facts:
                item["commands_after_kill"] = self.cmd_after_kill.get(robot, 0)
                last = self.cmd_last.get(robot)
                item["last_command_at"] = None if last is None else round(last, 6)
                item["in_graph_at_end"] = graph is not None and ("orca_node", f"/{robot}") in graph
            item.update(self._arrival(record, robot))
            injected.append(item)
        if spec.kill_supervisor is not None:
            facts = self.killed.get("kill_supervisor") or {}
            injected.append({"fault": "kill_supervisor", "at": spec.kill_supervisor,
                             "killed_at": facts.get("killed_at"),
                             "decisions_before": facts.get("decisions_before")})
        if spec.kill_obstacles is not None:
            facts = self.killed.get("kill_obstacles") or {}
            injected.append({"fault": "kill_obstacles", "at": spec.kill_obstacles,
                             "killed_at": facts.get("killed_at"),
                             "obstacle_edges_at_end": self._edges()})
        if spec.bad_obstacles is not None:
            edges = self._edges()
            injected.append({
                "fault": "bad_obstacles", "period_s": spec.bad_obstacles,
                "published": self.intruder.published if self.intruder else 0,
                "rejected_by_orca_nodes": sum(
                    (getattr(n, "rejected", {}) or {}).get("/obstacles", 0)
                    for r, n in self.robots.items() if r not in self.killed_robots),
                "scenario_obstacles": len(self.scenario.obstacles),
                "obstacle_edges_at_end": edges,
                "robots_without_obstacles": sorted(r for r, e in edges.items() if e == 0)
                if self.scenario.obstacles else []})
        for robot, mode in spec.foreign:
            driver = self.drivers.get(robot)
            item = {"fault": "foreign", "robot": robot, "mode": mode,
                    "commands_published": driver.published if driver else 0}
            item.update(self._arrival(record, robot))
            injected.append(item)
        if record is not None:
            out["cannot_arrive"] = self.cannot_arrive(record)
        return out

    def _arrival(self, record, robot: str) -> Dict[str, Any]:
        if record is None:
            return {}
        t = record.arrival_time[self.names.index(robot)]
        return {"arrived": not math.isnan(t),
                "arrival_time": None if math.isnan(t) else round(float(t), 6)}

    def _edges(self) -> Dict[str, int]:
        return {r: len(getattr(n, "edges", []) or []) for r, n in self.robots.items()
                if r not in self.killed_robots}

    def _graph(self):
        try:
            return set(self.sim.get_node_names_and_namespaces())
        except Exception:  # the simulator may be gone already
            return None


def _nothing() -> None:
    """The timer callback of a killed node."""


def _nothing_with(msg) -> None:
    """The subscription callback of a killed node."""


def _entries(spec: FaultSpec, key: str) -> List[str]:
    return [e for e in spec.entries(with_seed=False) if e.startswith(f"{key}=")]
