"""Reproducible fault injection for fleet runs: ``orca-ros sim SCENARIO --faults SPEC``.

The nodes of a run are not changed. The injector hooks into them from the
outside once they exist: it wraps the ``callback`` of their rclpy
subscriptions and timers, removes and destroys nodes from the executor, and
adds nodes of its own (an intruding obstacle publisher, foreign drivers).

SPEC grammar (comma-separated entries, no spaces needed; ``none`` or an empty
string is no fault)::

    SPEC    := ENTRY ("," ENTRY)*
    ENTRY   := "drop_odom=" [TARGET ":"] P     each odometry delivery to an orca_node
                                               (own and neighbours') dropped with p = P
             | "drop_cmd=" [TARGET ":"] P      each cmd_vel delivery to the simulator dropped
             | "delay=" [TARGET ":"] S         odometry and cmd_vel deliveries held S sim s
             | "starve=" [TARGET ":"] F        the orca_node gets the CPU for a fraction F
                                               of its control periods
             | "kill=" ROBOT "@" T             at sim time T the robot's orca_node is removed
             | "kill_supervisor@" T            ... the supervisor (needs --supervisor)
             | "kill_obstacles@" T             ... the obstacle_server
             | "bad_obstacles=" PERIOD         a second /obstacles publisher, every PERIOD
                                               sim s, a LINE_LIST of 3 points, one NaN
             | "foreign=" ROBOT [":" MODE]     no orca_node: a driver that does not
                                               reciprocate (MODE straight (default) | jitter)
             | "seed=" N                       integer >= 0 (default 0)
    TARGET  := ROBOT | "all"                   (default all; a robot's own entry wins over all)

``P`` is in [0, 1], ``S`` in [0, 60], ``F`` in (0, 1], ``T`` >= 0, ``PERIOD`` > 0;
``kill_supervisor=T`` and ``kill_obstacles=T`` are accepted too.
``drop_odom``, ``drop_cmd``, ``delay`` and ``starve`` may appear once per
target, ``kill`` and ``foreign`` once per robot, the others once.

Time is the simulator's clock (``record.sim_time``, the ground truth that
``/clock`` carries), so a delay or a kill time means the same thing at any
``--speed-factor`` and on a slow machine.

What each fault does:

* ``drop_odom``: every Odometry subscription of an orca_node (its own
  ``odom`` and each neighbour's, including those discovery creates later) is
  wrapped; a dropped delivery never reaches the callback. ``TARGET`` is the
  receiving robot.
* ``drop_cmd``: the simulator's ``/<robot>/cmd_vel`` subscriptions; ``TARGET``
  is the commanded robot.
* ``delay``: the same deliveries go into a queue and their callbacks run once
  the simulator's clock has advanced by S since they arrived, in arrival order
  (the runner releases them after every ``spin_once``). The clock moves in
  scenario time steps, so the held time is S rounded up to a step.
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
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

FOREIGN_MODES = ("straight", "jitter")
JITTER_SPEED = 1e9  # m/s, alternating sign; the simulator clamps it to the robot's limits
TARGETED = ("drop_odom", "drop_cmd", "delay", "starve")
ONCE = ("kill_supervisor", "kill_obstacles", "bad_obstacles", "seed")
KEYS = TARGETED + ("kill", "foreign") + ONCE
ALL = "all"
INTRUDER_NS = "intruder"


class FaultSpecError(ValueError):
    """A fault specification that cannot be used; the message names every problem."""


@dataclass(frozen=True)
class FaultSpec:
    """Which faults a run gets. Build it with :func:`parse_faults`.

    Targeted faults are ``(target, value)`` pairs, the target a robot name or
    ``"all"``; :meth:`value` resolves them for one robot.
    """

    drop_odom: Tuple[Tuple[str, float], ...] = ()
    drop_cmd: Tuple[Tuple[str, float], ...] = ()
    delay: Tuple[Tuple[str, float], ...] = ()
    starve: Tuple[Tuple[str, float], ...] = ()
    kill: Tuple[Tuple[str, float], ...] = ()  # (robot, sim time)
    kill_supervisor: Optional[float] = None
    kill_obstacles: Optional[float] = None
    bad_obstacles: Optional[float] = None  # period, sim s
    foreign: Tuple[Tuple[str, str], ...] = ()  # (robot, mode)
    seed: int = 0

    def value(self, key: str, robot: str, default: float = 0.0) -> float:
        """The targeted fault ``key`` for ``robot``: its own entry, else ``all``'s, else default."""
        entries = dict(getattr(self, key))
        return entries.get(robot, entries.get(ALL, default))

    @property
    def empty(self) -> bool:
        return not self.entries(with_seed=False)

    def entries(self, with_seed: bool = True) -> List[str]:
        """The canonical SPEC entries (parsing their join gives this spec back)."""
        out: List[str] = []
        for key in TARGETED:
            for target, value in getattr(self, key):
                out.append(f"{key}={value:g}" if target == ALL else f"{key}={target}:{value:g}")
        out += [f"kill={robot}@{at:g}" for robot, at in self.kill]
        if self.kill_supervisor is not None:
            out.append(f"kill_supervisor@{self.kill_supervisor:g}")
        if self.kill_obstacles is not None:
            out.append(f"kill_obstacles@{self.kill_obstacles:g}")
        if self.bad_obstacles is not None:
            out.append(f"bad_obstacles={self.bad_obstacles:g}")
        out += [f"foreign={robot}" if mode == "straight" else f"foreign={robot}:{mode}"
                for robot, mode in self.foreign]
        if with_seed and out:
            out.append(f"seed={self.seed}")
        return out

    def __str__(self) -> str:
        return ",".join(self.entries()) or "none"

    @property
    def foreign_robots(self) -> Dict[str, str]:
        return dict(self.foreign)

    def robots_named(self) -> List[str]:
        names = [t for key in TARGETED for t, _ in getattr(self, key) if t != ALL]
        return names + [r for r, _ in self.kill] + [r for r, _ in self.foreign]

    def check(self, robots: Sequence[str], supervisor: bool) -> None:
        """Raise :class:`FaultSpecError` for robots the scenario lacks, or a missing supervisor."""
        known = list(robots)
        problems = []
        unknown = sorted({r for r in self.robots_named() if r not in known})
        if unknown:
            problems.append(f"unknown robot(s) {', '.join(unknown)} (the scenario has: "
                            f"{', '.join(known)})")
        if self.kill_supervisor is not None and not supervisor:
            problems.append("kill_supervisor needs the supervisor (--supervisor)")
        if problems:
            raise FaultSpecError(f"bad fault spec {','.join(self.entries(with_seed=False))!r}: "
                                 + "; ".join(problems))


def _number(text: str, what: str, low: float, high: float, low_open: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise FaultSpecError(f"{what!r}: {text!r} is not a number") from None
    if not math.isfinite(value) or value > high or value < low or (low_open and value <= low):
        if math.isinf(high):
            rule = f"> {low:g}" if low_open else f">= {low:g}"
        else:
            rule = f"in {'(' if low_open else '['}{low:g}, {high:g}]"
        raise FaultSpecError(f"{what!r}: {text!r} must be a number {rule}")
    return value


LIMITS = {  # key -> (low, high, low excluded)
    "drop_odom": (0.0, 1.0, False), "drop_cmd": (0.0, 1.0, False),
    "delay": (0.0, 60.0, False), "starve": (0.0, 1.0, True),
    "bad_obstacles": (0.0, 3600.0, True),
}


def parse_faults(text: Optional[str]) -> FaultSpec:
    """Parse a SPEC (module docstring) into a :class:`FaultSpec`.

    Every problem is collected; one :class:`FaultSpecError` names them all
    (unknown keys, bad values, repeated entries, conflicting robots).
    """
    text = (text or "").strip()
    if text.lower() in ("", "none"):
        return FaultSpec()
    problems: List[str] = []
    targeted: Dict[str, Dict[str, float]] = {key: {} for key in TARGETED}
    kills: Dict[str, float] = {}
    foreign: Dict[str, str] = {}
    once: Dict[str, Any] = {}
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            problems.append("empty entry (two commas in a row?)")
            continue
        if "=" in entry:
            key, _, value = entry.partition("=")
        elif "@" in entry:
            key, _, value = entry.partition("@")
            if key.strip() in KEYS and key.strip() not in ("kill_supervisor", "kill_obstacles"):
                problems.append(f"{entry!r}: only kill_supervisor@T and kill_obstacles@T "
                                "take '@' without '='")
                continue
        else:
            key, value = entry, None
        key = key.strip()
        if key not in KEYS:
            problems.append(f"unknown fault {key!r} in {entry!r} (known: {', '.join(KEYS)})")
            continue
        if value is None or not value.strip():
            problems.append(f"{entry!r}: {key} needs a time ({key}@T)"
                            if key in ("kill_supervisor", "kill_obstacles") else
                            f"{entry!r}: {key} needs a value ({key}=...)")
            continue
        value = value.strip()
        try:
            if key in TARGETED:
                target, sep, number = value.rpartition(":")
                target = target.strip() if sep else ALL
                if not target:
                    raise FaultSpecError(f"{entry!r}: empty robot name before ':'")
                low, high, low_open = LIMITS[key]
                parsed = _number(number.strip(), entry, low, high, low_open)
                if target in targeted[key]:
                    raise FaultSpecError(f"{entry!r}: {key} for {target} given twice")
                targeted[key][target] = parsed
            elif key == "kill":
                robot, sep, at = value.partition("@")
                if not sep or not robot.strip():
                    raise FaultSpecError(f"{entry!r}: kill needs ROBOT@T")
                robot = robot.strip()
                if robot in kills:
                    raise FaultSpecError(f"{entry!r}: {robot} is killed twice")
                kills[robot] = _number(at.strip(), entry, 0.0, math.inf)
            elif key == "foreign":
                robot, sep, mode = value.partition(":")
                robot, mode = robot.strip(), (mode.strip() if sep else "straight")
                if not robot:
                    raise FaultSpecError(f"{entry!r}: foreign needs a robot name")
                if mode not in FOREIGN_MODES:
                    raise FaultSpecError(f"{entry!r}: foreign mode {mode!r} is not one of "
                                         f"{', '.join(FOREIGN_MODES)}")
                if robot in foreign:
                    raise FaultSpecError(f"{entry!r}: {robot} is foreign twice")
                foreign[robot] = mode
            else:
                if key in once:
                    raise FaultSpecError(f"{entry!r}: {key} given twice")
                if key == "seed":
                    try:
                        seed = int(value)
                    except ValueError:
                        raise FaultSpecError(f"{entry!r}: seed must be an integer >= 0") from None
                    if seed < 0:
                        raise FaultSpecError(f"{entry!r}: seed must be an integer >= 0")
                    once[key] = seed
                elif key == "bad_obstacles":
                    low, high, low_open = LIMITS[key]
                    once[key] = _number(value, entry, low, high, low_open)
                else:  # kill_supervisor, kill_obstacles
                    once[key] = _number(value.lstrip("@"), entry, 0.0, math.inf)
        except FaultSpecError as error:
            problems.append(str(error))
    for robot in foreign:
        if robot in kills:
            problems.append(f"{robot} is both killed and foreign (a foreign robot has no "
                            "orca_node to kill)")
        for key in ("drop_odom", "starve"):
            if robot in targeted[key]:
                problems.append(f"{key}={robot}:... names a foreign robot, which has no orca_node")
    if problems:
        raise FaultSpecError(f"bad fault spec {text!r}: " + "; ".join(problems))
    return FaultSpec(
        **{key: tuple(targeted[key].items()) for key in TARGETED},
        kill=tuple(kills.items()), kill_supervisor=once.get("kill_supervisor"),
        kill_obstacles=once.get("kill_obstacles"), bad_obstacles=once.get("bad_obstacles"),
        foreign=tuple(foreign.items()), seed=once.get("seed", 0))


def _uniform(seed: int, *key: Any) -> float:
    """A number in [0, 1) that depends only on the seed and the key (stable across processes)."""
    digest = hashlib.blake2b(repr((seed,) + key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0 ** 64


def filter_plan(plan: List[Any], spec: Optional[FaultSpec]) -> List[Any]:
    """The plan without the orca_nodes of foreign robots."""
    if spec is None or not spec.foreign:
        return list(plan)
    foreign = spec.foreign_robots
    return [s for s in plan if not (s.executable == "orca_node" and s.namespace in foreign)]


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
    header = getattr(msg, "header", None)
    if header is None:
        return None
    return header.stamp.sec * 1_000_000_000 + header.stamp.nanosec


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

        if robot in self.killed_robots:
            return
        for sub in list(self.robots[robot].subscriptions):
            if id(sub) in self.tapped or getattr(sub, "msg_type", None) is not Odometry:
                continue
            topic = sub.topic_name
            sender = topic.strip("/").split("/")[0]
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
        stamp = _stamp_ns(msg) if tap.kind == "odom" else None
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
            heapq.heappush(self.queue, (now + tap.delay, self.sequence, tap, msg, call))
            self.sequence += 1
            tap.delayed += 1
            return
        self._arrive(tap, msg, call)

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
            if stamp is not None:
                self.odom_age.add(max(0.0, self.now() - stamp * 1e-9))
        tap.delivered += 1
        call()

    # --- each loop of the runner -------------------------------------------------------

    def poll(self) -> None:
        """Release due delayed deliveries (in order) and carry out due kills."""
        now = self.now()
        while self.queue and self.queue[0][0] <= now + 1e-9:
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


def result_lines(report: Dict[str, Any]) -> List[str]:
    """One human line per injected fault (what ``orca-ros sim`` prints)."""
    lines = []
    for item in report.get("injected", []):
        fault = item["fault"]
        if fault in ("drop_odom", "drop_cmd"):
            what = "odometry deliveries to orca_nodes" if fault == "drop_odom" else \
                "cmd_vel deliveries to the simulator"
            lines.append(f"{','.join(item['entries'])}: dropped {item['dropped']} of "
                         f"{item['received']} {what}")
        elif fault == "delay":
            age = item["odom_age_at_callback_s"]
            lines.append(f"{','.join(item['entries'])}: delayed {item['odom_delayed']} odometry "
                         f"and {item['cmd_delayed']} cmd_vel deliveries (sim time); odometry age "
                         f"at the callback mean {age['mean']} s, max {age['max']} s")
        elif fault == "starve":
            lines.append(f"starve={item['robot']}:{item['fraction']:g}: control ran "
                         f"{item['ticks_run']} of {item['control_ticks']} ticks; "
                         f"{item['messages_held']} messages held (mean {item['mean_hold_s']} s)")
        elif fault == "kill":
            if item["killed_at"] is None:
                lines.append(f"kill={item['robot']}@{item['at']:g}: not reached (run ended first)")
            else:
                lines.append(f"kill={item['robot']}@{item['at']:g}: orca_node destroyed at "
                             f"{item['killed_at']:.2f} s; {item['commands_after_kill']} commands "
                             f"sent after that reached the simulator (last sent at "
                             f"{item['last_command_at']}); "
                             f"arrived: {item.get('arrived')}")
        elif fault in ("kill_supervisor", "kill_obstacles"):
            killed = item["killed_at"]
            lines.append(f"{fault}@{item['at']:g}: " + ("not reached (run ended first)"
                                                         if killed is None else
                                                         f"destroyed at {killed:.2f} s"))
        elif fault == "bad_obstacles":
            lines.append(f"bad_obstacles={item['period_s']:g}: {item['published']} bad markers "
                         f"published; orca_nodes rejected {item['rejected_by_orca_nodes']} "
                         f"/obstacles messages; robots left without obstacles: "
                         f"{', '.join(item['robots_without_obstacles']) or 'none'}")
        elif fault == "foreign":
            lines.append(f"foreign={item['robot']}:{item['mode']}: {item['commands_published']} "
                         f"commands published; arrived: {item.get('arrived')}")
    return lines


# --- nodes of the injector ----------------------------------------------------------

def _plain_node(name: str, context, namespace: Optional[str], use_sim_time: bool):
    from rclpy.node import Node
    from rclpy.parameter import Parameter

    return Node(name, namespace=namespace, context=context,
                parameter_overrides=[Parameter("use_sim_time", value=use_sim_time)])


class _Intruder:
    """A second ``/obstacles`` publisher: every ``period`` s a LINE_LIST of 3 points, one NaN."""

    def __init__(self, context, scenario, period: float, use_sim_time: bool) -> None:
        from visualization_msgs.msg import Marker

        from ..nodes.ros_common import LATCHED

        self.node = _plain_node("fault_intruder", context, None, use_sim_time)
        self.publisher = self.node.create_publisher(Marker, "/obstacles", LATCHED)
        points = [a.start for a in scenario.agents] + [a.goal for a in scenario.agents]
        self.centre = (sum(p[0] for p in points) / len(points),
                       sum(p[1] for p in points) / len(points))
        self.published = 0
        self.node.create_timer(period, self.publish)

    def marker(self):
        from geometry_msgs.msg import Point
        from visualization_msgs.msg import Marker

        cx, cy = self.centre
        marker = Marker()
        marker.header.frame_id = "world"
        marker.header.stamp = self.node.get_clock().now().to_msg()
        marker.ns = INTRUDER_NS
        marker.id = 0
        marker.type = Marker.LINE_LIST
        marker.action = Marker.ADD
        marker.pose.orientation.w = 1.0
        marker.scale.x = 0.03
        marker.color.r = marker.color.a = 1.0
        marker.points = [Point(x=cx, y=cy, z=0.0), Point(x=math.nan, y=cy, z=0.0),
                         Point(x=cx + 0.5, y=cy + 0.5, z=0.0)]
        return marker

    def publish(self) -> None:
        self.publisher.publish(self.marker())
        self.published += 1


class _ForeignDriver:
    """Drives one robot in place of its orca_node, without reciprocating.

    ``straight``: at the scenario goal at the robot's max speed, ignoring
    everyone, stopping within the goal tolerance. ``jitter``: forward speed
    alternating between +1e9 and -1e9 m/s every control period (the simulator
    clamps it). Listens on ``goal_pose`` and ``plan`` as the orca_node would, so
    the simulator's goal sender counts it, but drives to the scenario goal.
    """

    def __init__(self, context, agent, scenario, mode: str, kinematics: str, stamped: bool,
                 use_sim_time: bool) -> None:
        from geometry_msgs.msg import PoseStamped, Twist, TwistStamped
        from nav_msgs.msg import Odometry, Path

        from ..nodes.ros_common import RELIABLE_10

        self.agent, self.mode, self.kinematics, self.stamped = agent, mode, kinematics, stamped
        self.dt = scenario.time_step
        self.tolerance = scenario.goal_tolerance_of(agent)
        self.node = _plain_node("foreign_driver", context, agent.name, use_sim_time)
        self.publisher = self.node.create_publisher(TwistStamped if stamped else Twist, "cmd_vel",
                                                    RELIABLE_10)
        self.pose: Optional[Tuple[float, float, float]] = None
        self.node.create_subscription(Odometry, "odom", self._on_odom, RELIABLE_10)
        self.node.create_subscription(PoseStamped, "goal_pose", lambda msg: None, RELIABLE_10)
        self.node.create_subscription(Path, "plan", lambda msg: None, RELIABLE_10)
        self.node.create_timer(self.dt, self.tick)
        self.published = 0
        self.sign = 1.0

    def _on_odom(self, msg) -> None:
        from ..nodes.ros_common import yaw_from_quaternion

        p = msg.pose.pose.position
        self.pose = (p.x, p.y, yaw_from_quaternion(msg.pose.pose.orientation))

    def command(self) -> Tuple[float, float, float]:
        """Body-frame ``(vx, vy, omega)`` for this tick."""
        if self.mode == "jitter":
            self.sign = -self.sign
            return (-self.sign * JITTER_SPEED, 0.0, 0.0)
        x, y, yaw = self.pose
        gx, gy = self.agent.goal
        dx, dy = gx - x, gy - y
        distance = math.hypot(dx, dy)
        if distance <= self.tolerance:
            return (0.0, 0.0, 0.0)
        speed = min(self.agent.max_speed, distance / self.dt)
        if self.kinematics == "diff_drive":
            turn = math.atan2(dy, dx) - yaw
            error = math.atan2(math.sin(turn), math.cos(turn))
            return (speed * max(0.0, math.cos(error)), 0.0, error / self.dt)
        wx, wy = speed * dx / distance, speed * dy / distance
        c, s = math.cos(yaw), math.sin(yaw)
        return (c * wx + s * wy, -s * wx + c * wy, 0.0)

    def tick(self) -> None:
        from ..nodes.ros_common import twist_message

        if self.pose is None:
            return
        vx, vy, omega = self.command()
        self.publisher.publish(twist_message(vx, vy, omega, self.stamped,
                                             self.node.get_clock().now().to_msg(),
                                             f"{self.agent.name}/base_link"))
        self.published += 1


# --- the standard suite (``orca-ros fault-suite``) --------------------------------------

def kill_time(scenario) -> float:
    """When the suite kills things: 40% of the first robot's straight-line time, in sim s."""
    agent = scenario.agents[0]
    return round(0.4 * agent.reference_length / max(agent.pref_speed, 1e-6), 1)


def standard_faults(scenario, seed: int, at: Optional[float] = None) -> List[Tuple[str, str, bool]]:
    """``(label, spec, supervisor)`` rows of the suite: no fault, then each standard fault."""
    first = scenario.agents[0].name
    t = kill_time(scenario) if at is None else at
    rows = [("none", "", False)]
    for entry in ("drop_odom=0.1", "drop_cmd=0.1", "delay=0.1", "starve=all:0.3",
                  f"kill={first}@{t:g}"):
        rows.append((entry, f"{entry},seed={seed}", False))
    rows.append(("none (--supervisor)", "", True))
    rows.append((f"kill_supervisor@{t:g} (--supervisor)", f"kill_supervisor@{t:g},seed={seed}",
                 True))
    for entry in (f"kill_obstacles@{t:g}", "bad_obstacles=0.5", f"foreign={first}"):
        rows.append((entry, f"{entry},seed={seed}", False))
    return rows


def suite_table(rows: List[Dict[str, Any]]) -> str:
    """Markdown table of suite results (each row: label, supervisor, summary)."""
    baseline: Dict[bool, Optional[float]] = {}
    for row in rows:
        if not row["spec"] and row["supervisor"] not in baseline:
            baseline[row["supervisor"]] = row["summary"].get("makespan")
    lines = ["| fault | arrived | colliding pairs (fleet_sim) | observer colliding pairs | "
             "min separation m | makespan s | makespan vs no fault |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        s = row["summary"]
        observer = s.get("observer") or {}
        observed = observer.get("colliding_pairs", "-") if "error" not in observer else "error"
        base = baseline.get(row["supervisor"])
        makespan = s.get("makespan")
        ratio = f"{makespan / base:.2f}x" if makespan and base and row["spec"] else \
            ("1.00x" if makespan and not row["spec"] else "-")
        if makespan is not None and s["reached"] < s["agents"] and row["spec"]:
            ratio += " (arrived only)"
        separation = s.get("min_separation")
        mark = " (*)" if s.get("other_nodes_on_domain") else ""
        lines.append(f"| {row['label']}{mark} | {s['reached']}/{s['agents']} | {s['collisions']} | "
                     f"{observed} | {'-' if separation is None else f'{separation:.3f}'} | "
                     f"{'-' if makespan is None else f'{makespan:.1f}'} | {ratio} |")
    if any(row["summary"].get("other_nodes_on_domain") for row in rows):
        lines.append("\n(*) another process had nodes on this ROS domain during the run: "
                     "its traffic may have mixed in.")
    return "\n".join(lines)
