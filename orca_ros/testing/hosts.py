"""A fleet run with every robot on a host of its own, each host's clock off by its own
offset: what a fleet of robot computers meets that one process cannot show.

    sudo python -m orca_ros.testing.hosts crossing_4 --clock-offsets 0.5 --json out.json
    sudo orca-ros sim crossing_4 --hosts --clock-offsets 0.5     # the same, through the CLI

Hosts are Linux network namespaces (``ip netns``) on one bridge, each with an address of
its own, its loopback up and a multicast route: DDS finds its peers by multicast
discovery and talks to them over UDPv4 only (``FASTDDS_BUILTIN_TRANSPORTS=UDPv4``: no
shared memory, which would pass data between the namespaces behind the network's back).
The processes come from the fleet plan (:func:`~orca_ros.fleet.plan.fleet_plan`):

- host ``sim``: fleet_sim and obstacle_server in one process (the world, on the true
  clock), and the independent observer (:mod:`.observer`) beside them, judging contact
  from fleet_sim's odometry (``/<robot>/world_odom``);
- one host per robot: its orca_node and its driver (:class:`OdometryDriver`) in one
  process, under libfaketime (``faketime``) with the robot's clock offset, so that
  everything that process stamps (the robot's odometry, the states it announces, its
  commands) is on that robot's clock, as on a robot whose computer's clock is off.

Everything runs on wall time (``use_sim_time`` off, fleet_sim at speed factor 1):
a simulated clock (``/clock``) would be one clock for every host. fleet_sim stamps every
robot's odometry with its own (simulated) clock; a real robot's driver stamps its
odometry with the robot computer's clock. So fleet_sim's odometry of each robot goes to
``/<robot>/world_odom`` (remapped), and on each robot host the driver republishes it on
``/<robot>/odom`` stamped with the host's clock: what that robot's orca_node reads, and
what any other orca_node reads of it (one that follows a neighbour's odometry once the
neighbour's orca_node has gone). The commands go straight
to fleet_sim, which times a command stamped by a clock other than its own from its
arrival (:mod:`orca_ros.nodes.fleet_sim`).

It needs root (network namespaces), iproute2 (``ip``) and libfaketime (``faketime``);
:func:`unavailable` names what is missing. Namespaces and bridge are removed however the
run ends (an error, SIGINT, SIGTERM); a Ctrl-C ends the run with the summary so far.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..core.errors import InputError

DRIVER = "odometry_driver"  # the executable name of the driver node in a host's specs
WORLD_TOPIC = "world_odom"  # where fleet_sim publishes a robot's odometry on its own clock
SIM_HOST = "sim"
STATUS_PERIOD = 0.5  # wall s between the sim host's status files
OBSERVER_CATCH_UP = 3.0  # wall s the observer gets to see what fleet_sim counts
STOP_TIMEOUT = 15.0  # wall s the host processes get to end after SIGINT before SIGKILL
OBSERVER_TIMEOUT = 20.0  # wall s the observer gets to write its report after SIGINT
WIND_DOWN = 2 * STOP_TIMEOUT + OBSERVER_TIMEOUT + 10.0
"""Wall s this process may take from a SIGINT/SIGTERM to its end (``ORCA_ROS_STOP_WITHIN``,
:mod:`orca_ros.nodes.stop`): the hosts stop in order, then namespaces and bridge go.
Its host processes keep the usual deadline."""
MULTICAST = "224.0.0.0/4"


# -- clock offsets -------------------------------------------------------------------

def parse_clock_offsets(text: str, robots: Sequence[str]) -> Dict[str, float]:
    """Each robot's clock offset (s; positive: its clock runs ahead of the true one).

    ``text`` is either per robot, ``north=0.5,south=-0.5`` (robots not named: 0), or a
    spread ``S`` or ``S:N``: the first ``N`` robots of the scenario (all by default)
    alternately ``+S`` and ``-S``, the others 0 (``2:4`` on six robots: four of six
    clocks off by 2 s). Empty: every clock true."""
    offsets = {name: 0.0 for name in robots}
    text = (text or "").strip()
    if not text:
        return offsets
    if "=" not in text:
        size, _, count = text.partition(":")
        try:
            spread = float(size)
            n = len(robots) if not count else int(count)
        except ValueError:
            raise InputError(f"--clock-offsets {text!r}: a spread is S or S:N (seconds, "
                             f"robots), or give NAME=SECONDS,...") from None
        if not 0 <= n <= len(robots):
            raise InputError(f"--clock-offsets {text!r}: {n} robots, the scenario has "
                             f"{len(robots)}")
        for k, name in enumerate(robots[:n]):
            offsets[name] = spread if k % 2 == 0 else -spread
        return offsets
    for item in text.split(","):
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in offsets:
            raise InputError(f"--clock-offsets: {item!r} is not ROBOT=SECONDS with a robot "
                             f"of the scenario ({', '.join(robots)})")
        try:
            offsets[name] = float(value)
        except ValueError:
            raise InputError(f"--clock-offsets: {item!r}: {value!r} is not a number of "
                             f"seconds") from None
    return offsets


def faketime_env(offset: float) -> Dict[str, str]:
    """The environment that puts a process's wall clock (CLOCK_REALTIME, which ROS time
    reads) ``offset`` s off through libfaketime, its monotonic clock left alone (timers,
    DDS leases). Empty for no offset."""
    if offset == 0.0:
        return {}
    return {"LD_PRELOAD": _faketime_library(), "FAKETIME": f"{offset:+.6f}",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1"}


def _faketime_library() -> str:
    """libfaketime's thread-safe library (rclpy runs threads), as the faketime package
    installs it."""
    for folder in ("/usr/lib/x86_64-linux-gnu/faketime", "/usr/lib/aarch64-linux-gnu/faketime",
                   "/usr/lib/faketime", "/usr/local/lib/faketime"):
        path = pathlib.Path(folder, "libfaketimeMT.so.1")
        if path.exists():
            return str(path)
    raise HostsUnavailable("libfaketime (libfaketimeMT.so.1) not found: install faketime "
                           "(apt-get install faketime)")


class HostsUnavailable(RuntimeError):
    """This machine cannot run the hosts (not root, no ``ip``, no libfaketime)."""


def unavailable(need_faketime: bool = True) -> Optional[str]:
    """Why this machine cannot run the hosts, or None when it can."""
    if not sys.platform.startswith("linux"):
        return "network namespaces are Linux only"
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2 ('ip') is not installed"
    if need_faketime:
        try:
            _faketime_library()
        except HostsUnavailable as error:
            return str(error)
    probe = f"orcaprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"'ip netns add' failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


# -- the network ---------------------------------------------------------------------

@dataclass
class HostNetwork:
    """Network namespaces on one bridge (one per host, an address each), made by
    :meth:`up` and removed by :meth:`down` (as far as they were made)."""

    hosts: List[str]
    tag: str = field(default_factory=lambda: str(os.getpid()))
    subnet: str = ""  # 10.X.Y: picked free in up()
    made: List[str] = field(default_factory=list)  # namespaces and links to remove

    @property
    def bridge(self) -> str:
        return f"obr{self.tag}"[:15]

    def namespace(self, host: str) -> str:
        return f"orca{self.tag}_{self.hosts.index(host)}"

    def address(self, host: str) -> str:
        return f"{self.subnet}.{self.hosts.index(host) + 2}"

    def up(self) -> None:
        sweep_stale()
        self.subnet = self.subnet or _free_subnet()
        _ip("link", "add", self.bridge, "type", "bridge")
        self.made.append(f"link:{self.bridge}")
        # No IGMP snooping: DDS discovery's multicast reaches every port unasked.
        _ip("link", "set", self.bridge, "type", "bridge", "mcast_snooping", "0", check=False)
        _ip("link", "set", self.bridge, "up")
        for k, host in enumerate(self.hosts):
            ns, veth = self.namespace(host), f"oh{self.tag}_{k}"[:15]
            _ip("netns", "add", ns)
            self.made.append(f"netns:{ns}")
            _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            # Removed before its namespace: the kernel drops a namespace's veth pairs
            # some time after the namespace goes, so this end would outlive the run.
            self.made.append(f"link:{veth}")
            _ip("link", "set", veth, "master", self.bridge, "up")
            _ip("-n", ns, "addr", "add", f"{self.address(host)}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "route", "add", MULTICAST, "dev", "eth0")

    def down(self) -> None:
        """Remove what :meth:`up` made, last first (each veth before its namespace)."""
        for item in reversed(self.made):
            kind, name = item.split(":", 1)
            if kind == "netns":
                _ip("netns", "del", name, check=False)
            else:
                _ip("link", "del", name, check=False)
        self.made.clear()

    def command(self, host: str, argv: Sequence[str]) -> List[str]:
        return ["ip", "netns", "exec", self.namespace(host), *argv]


def sweep_stale() -> List[str]:
    """Remove the namespaces and bridges of runs whose process is gone (one killed before
    it could clean up: SIGKILL, a power cut); returns what it removed."""
    import re

    removed = []
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    for kind, pattern, text in (("netns", r"^orca(\d+)_\d+", names),
                                ("link", r"^\d+: (oh(\d+)_\d+)[:@]", links),
                                ("link", r"^\d+: (obr(\d+))[:@]", links)):
        for line in text.splitlines():
            match = re.match(pattern, line.strip())
            if not match:
                continue
            name, pid = (match.group(0), match.group(1)) if kind == "netns" \
                else (match.group(1), match.group(2))
            if not pathlib.Path(f"/proc/{pid}").exists() and _ip(
                    *(("netns", "del", name) if kind == "netns" else ("link", "del", name)),
                    check=False):  # a veth goes with its peer: that one is gone already
                removed.append(name)
    return removed


def _ip(*args: str, check: bool = True) -> bool:
    """``ip`` with ``args``; whether it succeeded (``check``: raise if not)."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise HostsUnavailable(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.returncode == 0


def _free_subnet() -> str:
    """A 10.X.Y subnet no interface of this machine is on."""
    used = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True).stdout
    for k in range(os.getpid() % 200, os.getpid() % 200 + 200):
        candidate = f"10.{201 + (k // 250) % 50}.{k % 250}"
        if f" {candidate}." not in used:
            return candidate
    raise HostsUnavailable("no free 10.x.y.0/24 subnet for the bridge")


def host_environment(offset: float) -> Dict[str, str]:
    """A host process's environment: DDS over UDPv4 with multicast discovery across the
    subnet, and the host's clock offset."""
    from ..nodes.stop import STOP_WITHIN_ENV

    env = dict(os.environ)
    for key in (STOP_WITHIN_ENV, "ROS_LOCALHOST_ONLY", "ROS_STATIC_PEERS", "ROS_DISCOVERY_SERVER",
                "FASTRTPS_DEFAULT_PROFILES_FILE", "FASTDDS_DEFAULT_PROFILES_FILE", "LD_PRELOAD"):
        env.pop(key, None)
    env.update(FASTDDS_BUILTIN_TRANSPORTS="UDPv4", ROS_AUTOMATIC_DISCOVERY_RANGE="SUBNET",
               PYTHONUNBUFFERED="1")
    env.update(faketime_env(offset))
    return env


# -- the plan on hosts ---------------------------------------------------------------

def host_plan(plan: Sequence[Any]) -> Dict[str, List[Dict[str, Any]]]:
    """The plan's nodes by host: every orca_node on its robot's host beside the driver
    of its odometry, the rest on :data:`SIM_HOST`, fleet_sim's odometry of each robot
    on :data:`WORLD_TOPIC`. Each node as a dict of its
    :class:`~orca_ros.fleet.nodespec.NodeSpec` fields."""
    hosts: Dict[str, List[Dict[str, Any]]] = {SIM_HOST: []}
    robots = [spec.namespace for spec in plan if spec.executable == "orca_node"]
    for spec in plan:
        if spec.hosted:
            raise InputError("the hosts run one orca_node per process, not orca_robots")
        if spec.remappings:
            raise InputError(f"{spec.namespace}/{spec.name}: the hosts' drivers publish "
                             f"'odom'; remapped topics ({spec.remappings}) are not run on "
                             f"hosts")
        if spec.executable == "fleet_sim":
            spec = replace(spec, remappings=tuple((f"/{name}/odom", f"/{name}/{WORLD_TOPIC}")
                                                  for name in robots))
        if spec.executable != "orca_node":
            hosts[SIM_HOST].append(_spec_dict(spec))
            continue
        hosts[spec.namespace] = [
            _spec_dict(spec),
            {"executable": DRIVER, "name": "odometry_driver", "namespace": spec.namespace,
             "parameters": {}, "remappings": []}]
    return hosts


def _spec_dict(spec) -> Dict[str, Any]:
    data = asdict(spec)
    data.pop("hosted", None)
    data["remappings"] = [list(pair) for pair in spec.remappings]
    return data


def wall_time_options(options):
    """The fleet options on wall time: every host's own clock, the world at real time."""
    return replace(options, use_sim_time=False, speed_factor=1.0)


# -- one host's process --------------------------------------------------------------

def odometry_driver_class():
    """The driver node class (rclpy imported only here)."""
    from nav_msgs.msg import Odometry
    from rclpy.node import Node

    from ..nodes.ros_common import RELIABLE_10

    class OdometryDriver(Node):
        """A robot's driver as far as its odometry goes: fleet_sim's odometry of this
        robot (:data:`WORLD_TOPIC`) republished on ``odom`` stamped by this host's clock
        at its arrival, as a driver stamps what it measures."""

        def __init__(self, **kwargs) -> None:
            super().__init__("odometry_driver", **kwargs)
            self.publisher = self.create_publisher(Odometry, "odom", RELIABLE_10)
            self.create_subscription(Odometry, WORLD_TOPIC, self._on_odom, RELIABLE_10)

        def _on_odom(self, msg) -> None:
            msg.header.stamp = self.get_clock().now().to_msg()
            self.publisher.publish(msg)

    return OdometryDriver


def run_host(specs: List[Dict[str, Any]], status_path: Optional[str] = None,
             summary_path: Optional[str] = None, faults: str = "", scenario: str = "",
             faults_path: Optional[str] = None) -> int:
    """Run one host's nodes until SIGINT/SIGTERM. On the sim host, fleet_sim's progress goes
    to ``status_path`` every :data:`STATUS_PERIOD` s, and the run's summary (ground truth:
    arrivals, makespan, contacts) to ``summary_path`` at the end. ``faults`` (a fault
    spec of ``scenario``) are injected into this host's nodes, their count written to
    ``faults_path`` at the end (:func:`host_injector`)."""
    from ..nodes import stop

    stop.install()
    harness_gone = _harness_watch()
    import rclpy
    from rclpy.context import Context
    from rclpy.signals import SignalHandlerOptions

    from ..fleet.nodespec import NodeSpec
    from ..fleet.runner import _summary, all_held, instantiate
    from ..nodes.ros_common import make_executor

    context = Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    nodes, executor = [], None
    started = time.perf_counter()
    try:
        for data in specs:
            if data["executable"] == DRIVER:
                nodes.append(odometry_driver_class()(context=context,
                                                     namespace=data["namespace"]))
                continue
            spec = NodeSpec(data["executable"], data["name"], data["namespace"],
                            data["parameters"], tuple(tuple(p) for p in data["remappings"]))
            nodes.append(instantiate(spec, context))
        executor = make_executor(context)
        for node in nodes:
            executor.add_node(node)
        sim = next((n for n in nodes if hasattr(n, "record")), None)
        injector = host_injector(faults, scenario, context, executor, nodes, specs, sim)
        next_status = 0.0
        while not stop.requested():
            if harness_gone():
                os.kill(os.getpid(), signal.SIGTERM)  # stop as on the harness's SIGTERM
            executor.spin_once(timeout_sec=0.05)
            if injector is not None:
                injector.poll()
            if sim is not None and status_path and time.perf_counter() >= next_status:
                next_status = time.perf_counter() + STATUS_PERIOD
                record = sim.record
                _write_json(status_path, {"sim_time": record.sim_time,
                                          "arrived": record.arrived,
                                          "at_goal": record.at_goal,
                                          "held": all_held(record, sim.scenario)})
        if sim is not None and summary_path:
            from ..fleet.plan import FleetOptions

            kinematics = next(d["parameters"].get("kinematics") for d in specs
                              if d["executable"] == "fleet_sim")
            summary = _summary(sim.scenario, sim.record,
                               FleetOptions(kinematics=kinematics, speed_factor=1.0),
                               time.perf_counter() - started)
            _write_json(summary_path, summary)
        if injector is not None and faults_path:
            _write_json(faults_path, fault_counts(injector))
        return 0
    finally:
        if executor is not None:
            executor.shutdown(timeout_sec=1.0)
        for node in reversed(nodes):
            node.destroy_node()
        rclpy.try_shutdown(context=context)


HOST_FAULTS = ("drop_odom", "drop_cmd", "delay")
"""The faults a host injects (into its own nodes' deliveries; see
:mod:`orca_ros.testing.faults.injector`): the others act on the run as one process."""


def check_host_faults(text: str, robots: Sequence[str]):
    """The fault spec ``text`` as the hosts run it; refuses, naming them, faults other than
    :data:`HOST_FAULTS` and robots not in the scenario."""
    from .faults import parse_faults

    spec = parse_faults(text)
    spec.check(list(robots), False)
    others = [entry for entry in spec.entries(with_seed=False)
              if entry.split("=")[0].split("@")[0] not in HOST_FAULTS]
    if others:
        raise InputError(f"faults {', '.join(others)}: the hosts inject only "
                         f"{', '.join(HOST_FAULTS)} (each host into its own nodes)")
    return spec


class _NoSimulator:
    """The simulator a robot host does not have: no cmd_vel subscriptions to tap."""

    subscriptions: List[Any] = []


def host_injector(faults: str, scenario: str, context, executor, nodes: List[Any],
                  specs: List[Dict[str, Any]], sim):
    """The fault injector of one host, hooked into its nodes, or None without faults: on
    the sim host fleet_sim's cmd_vel deliveries (``drop_cmd``, ``delay``), on a robot's
    host its orca_node's odometry and announced states (``drop_odom``, ``delay``, held by
    the robot's own clock)."""
    if not faults:
        return None
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from .faults.injector import FaultInjector

    loaded = load_scenario(resolve_scenario(scenario))
    spec = check_host_faults(faults, [a.name for a in loaded.agents])
    robots = {data["namespace"]: node for data, node in zip(specs, nodes)
              if data["executable"] == "orca_node"}
    if sim is not None:
        def now():
            return sim.record.sim_time
    else:
        robot = next(iter(robots.values()))

        def now():
            return robot.get_clock().now().nanoseconds * 1e-9
    injector = FaultInjector(spec, loaded, now)
    injector.attach(context, executor, nodes, sim if sim is not None else _NoSimulator(),
                    robots)
    return injector


def fault_counts(injector) -> Dict[str, Dict[str, int]]:
    """Deliveries received, dropped, delayed and passed on, by kind (odom, cmd)."""
    counts: Dict[str, Dict[str, int]] = {}
    for tap in injector.taps:
        kind = counts.setdefault(tap.kind, {"received": 0, "dropped": 0, "delayed": 0,
                                            "delivered": 0})
        for key in kind:
            kind[key] += getattr(tap, key)
    return counts


def _write_json(path: str, data: Dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    pathlib.Path(tmp).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: str) -> Optional[Dict[str, Any]]:
    try:
        return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# -- the whole run -------------------------------------------------------------------

@dataclass
class HostProcess:
    host: str
    proc: subprocess.Popen
    log: str


def run_hosts(scenario_path: str, options=None, clock_offsets: str = "",
              max_time: Optional[float] = None, wall_limit: Optional[float] = None,
              keep_dir: Optional[str] = None, faults: str = "",
              should_stop: Callable[[], bool] = lambda: False,
              progress: Optional[Callable[[Dict[str, Any]], None]] = None) -> Dict[str, Any]:
    """Run ``scenario_path`` with every robot on its own host (module docstring); the
    summary: fleet_sim's (arrivals, makespan, contacts: ground truth), the observer's
    verdict, each robot's clock offset and what its orca_node's diagnostics said of its
    neighbours' clocks. Ends when every robot is at its goal, at ``max_time`` (s of the
    run), at ``wall_limit``, when a host process dies, or when ``should_stop()``."""
    from ..core.scenario.loader import load_scenario, resolve_scenario
    from ..fleet.plan import FleetOptions, fleet_plan

    options = wall_time_options(options or FleetOptions())
    scenario = load_scenario(resolve_scenario(scenario_path))
    robots = [a.name for a in scenario.agents]
    offsets = parse_clock_offsets(clock_offsets, robots)
    check_host_faults(faults, robots)
    hosts = host_plan(fleet_plan(scenario_path, options))
    reason = unavailable(need_faketime=any(offsets.values()))
    if reason:
        raise HostsUnavailable(reason)
    limit = scenario.max_time if max_time is None else max_time
    wall_limit = wall_limit if wall_limit is not None else limit + 60.0
    network = HostNetwork(list(hosts))
    from ..nodes.stop import STOP_WITHIN_ENV

    former_stop_within = os.environ.get(STOP_WITHIN_ENV)
    os.environ[STOP_WITHIN_ENV] = str(WIND_DOWN)  # read at the first signal
    folder = keep_dir or tempfile.mkdtemp(prefix="orca_hosts_")
    os.makedirs(folder, exist_ok=True)
    processes: List[HostProcess] = []
    observer = None
    try:
        network.up()
        status_path = os.path.join(folder, "sim_status.json")
        summary_path = os.path.join(folder, "sim_summary.json")
        observer_status = os.path.join(folder, "observer_status.json")
        observer_json = os.path.join(folder, "observer.json")
        observer = _start(network, SIM_HOST, folder, "observer", host_environment(0.0), [
            "-m", "orca_ros.testing.observer", str(resolve_scenario(scenario_path)),
            "--json", observer_json, "--status", observer_status,
            "--pose-topic", WORLD_TOPIC])
        from .observer import wait_ready

        if not wait_ready(observer_status, observer.proc, timeout=60.0):
            raise HostsUnavailable(f"the observer did not start: {_tail(observer.log)}")
        for host, specs in hosts.items():
            spec_path = os.path.join(folder, f"{host}.json")
            _write_json(spec_path, {"nodes": specs, "faults": faults,
                                    "scenario": str(resolve_scenario(scenario_path))})
            extra = ["--status", status_path, "--summary", summary_path] \
                if host == SIM_HOST else []
            if faults:
                extra += ["--faults-out", os.path.join(folder, f"{host}_faults.json")]
            processes.append(_start(network, host, folder, host,
                                    host_environment(offsets.get(host, 0.0)),
                                    ["-m", "orca_ros.testing.hosts", "host", spec_path,
                                     *extra]))
        started = time.monotonic()
        stop_reason, done_at = None, None
        while stop_reason is None:
            time.sleep(0.2)
            status = _read_json(status_path) or {}
            seen = _read_json(observer_status) or {}
            if progress is not None:
                progress(status)
            now = time.monotonic()
            dead = [p for p in processes + [observer] if p.proc.poll() is not None]
            if should_stop():
                stop_reason = "interrupted"
            elif dead:
                stop_reason = (f"{dead[0].host} process ended (exit {dead[0].proc.returncode}):"
                               f" {_tail(dead[0].log)}")
            elif status.get("held"):
                done_at = done_at or now
                if seen.get("arrived") == len(robots) or now - done_at >= OBSERVER_CATCH_UP:
                    stop_reason = "every robot at its goal"
            elif status.get("sim_time", 0.0) >= limit:
                stop_reason = f"time limit {limit:g} s"
            elif now - started >= wall_limit:
                stop_reason = f"wall limit {wall_limit:g} s"
        wall_s = time.monotonic() - started
        _stop(processes[1:])  # the robots first, together
        _stop(processes[:1])  # then the world
        from .observer import stop_observer

        report = stop_observer(observer.proc, observer_json, timeout=OBSERVER_TIMEOUT)
        summary = _read_json(summary_path) or {"error": f"no summary from the sim host: "
                                                        f"{_tail(processes[0].log)}"}
        summary.update({"hosts": len(hosts), "clock_offsets_s": offsets,
                        "stop_reason": stop_reason, "run_wall_time_s": round(wall_s, 3),
                        "observer": _observer_entry(report),
                        "diagnostics": report.get("clock_diagnostics", {}),
                        "exit_codes": {p.host: p.proc.returncode for p in processes}})
        if faults:
            summary["faults"] = {"spec": faults, **_fault_totals(folder, hosts)}
        if stop_reason == "interrupted":
            summary["interrupted"] = True
        return summary
    finally:
        for process in processes + ([observer] if observer is not None else []):
            _kill(process)
        network.down()
        if keep_dir is None:
            shutil.rmtree(folder, ignore_errors=True)
        if former_stop_within is None:
            os.environ.pop(STOP_WITHIN_ENV, None)
        else:
            os.environ[STOP_WITHIN_ENV] = former_stop_within


def _fault_totals(folder: str, hosts: Dict[str, Any]) -> Dict[str, Dict[str, int]]:
    """The hosts' fault counts summed by kind."""
    totals: Dict[str, Dict[str, int]] = {}
    for host in hosts:
        for kind, counts in (_read_json(os.path.join(folder, f"{host}_faults.json"))
                             or {}).items():
            into = totals.setdefault(kind, {})
            for key, value in counts.items():
                into[key] = into.get(key, 0) + value
    return totals


def _start(network: HostNetwork, host: str, folder: str, label: str, env: Dict[str, str],
           python_args: List[str]) -> HostProcess:
    """A Python process on ``host`` in its own session (a Ctrl-C reaches this process
    alone, which stops the hosts in order)."""
    log = os.path.join(folder, f"{label}.log")
    repo = str(pathlib.Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([repo] + [p for p in env.get("PYTHONPATH", "")
                                                  .split(os.pathsep) if p and p != repo])
    env[HARNESS_ENV] = str(os.getpid())  # ip netns exec runs the program in its place
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(network.command(host, [sys.executable, *python_args]),
                                stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, preexec_fn=_ends_with_us())
    return HostProcess(host, proc, log)


PR_SET_PDEATHSIG = 1  # linux/prctl.h
HARNESS_ENV = "ORCA_ROS_HOSTS_HARNESS"
"""The harness's pid, in its host processes' environment (:func:`_harness_watch`)."""


def _harness_watch() -> Callable[[], bool]:
    """For a host process: whether the harness that started it is gone (this process's
    parent is no longer the pid in :data:`HARNESS_ENV`). The kernel's parent-death
    signal (:func:`_ends_with_us`) did not always come: in 1 of 3 runs of
    test_hosts.py a host process went on spinning after its harness was killed. The
    host's loop asks this as well, every pass."""
    expected = os.environ.get(HARNESS_ENV)
    if not expected:
        return lambda: False
    parent = int(expected)
    return lambda: os.getppid() != parent


def _ends_with_us() -> Callable[[], None]:
    """What a host process runs before its program: ask the kernel for SIGTERM when
    this process dies (``prctl(PR_SET_PDEATHSIG)``). Each host process has a session of
    its own, so a harness killed from outside (SIGKILL, out of memory), which cannot
    stop them, would otherwise leave them running. ``ip netns exec`` runs the program
    in its own place (no fork), so the request reaches it; SIGTERM is a stop request
    to every orca_ros program."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls it
    parent = os.getpid()

    def request() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # this process died before the request was made
            os.kill(os.getpid(), signal.SIGTERM)
    return request


def _stop(processes: List[HostProcess]) -> None:
    """SIGINT to each, then up to :data:`STOP_TIMEOUT` s for them all; SIGKILL after."""
    for process in processes:
        if process.proc.poll() is None:
            _signal(process, signal.SIGINT)
    end = time.monotonic() + STOP_TIMEOUT
    for process in processes:
        try:
            process.proc.wait(timeout=max(0.1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(process)


def _kill(process: HostProcess) -> None:
    if process.proc.poll() is None:
        _signal(process, signal.SIGKILL)
        process.proc.wait()


def _signal(process: HostProcess, signum: int) -> None:
    """``signum`` to the process's own session (``ip netns exec`` and its child)."""
    try:
        os.killpg(process.proc.pid, signum)
    except ProcessLookupError:
        pass


def _tail(path: str) -> str:
    from .observer import log_tail

    return log_tail(path, 20) or "(no log)"


def _observer_entry(report: Dict[str, Any]) -> Dict[str, Any]:
    keys = ("robots", "reached", "arrived", "colliding_pairs", "robot_pairs",
            "obstacle_pairs", "min_separation", "min_obstacle_gap", "deepest_penetration",
            "stamps_compared", "odom_rate_hz_mean", "fleet_sim_commands")
    return {key: report.get(key) for key in keys}


def summary_text(summary: Dict[str, Any]) -> str:
    """The summary in a few lines."""
    observer = summary.get("observer", {})
    lines = [f"{summary.get('scenario')} on {summary.get('hosts')} hosts: "
             f"{summary.get('reached')}/{summary.get('agents')} robots arrived, "
             f"{summary.get('collisions')} colliding pairs (fleet_sim), makespan "
             f"{summary.get('makespan')} s, min separation {summary.get('min_separation')} m "
             f"(stop: {summary.get('stop_reason')})",
             f"  observer: {observer.get('colliding_pairs')} colliding pairs, min separation "
             f"{observer.get('min_separation')} m, {observer.get('reached')}/"
             f"{observer.get('robots')} reached their goals",
             "  clocks: " + ", ".join(f"{name} {offset:+g} s" for name, offset
                                      in summary.get("clock_offsets_s", {}).items())]
    if "faults" in summary:
        lines.append(f"  faults {summary['faults']['spec']}: " + "; ".join(
            f"{kind} " + ", ".join(f"{k} {v}" for k, v in counts.items())
            for kind, counts in summary["faults"].items() if kind != "spec"))
    for robot, values in sorted(summary.get("diagnostics", {}).items()):
        lines.append(f"  {robot} sees: {values.get('clock_offsets') or '-'}"
                     + (f" [{values['level']}]" if values.get("level") else ""))
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["host"]:  # one host's process, started by run_hosts
        parser = argparse.ArgumentParser(prog="python -m orca_ros.testing.hosts host")
        parser.add_argument("specs")
        parser.add_argument("--status")
        parser.add_argument("--summary")
        parser.add_argument("--faults-out")
        args = parser.parse_args(argv[1:])
        data = json.loads(pathlib.Path(args.specs).read_text(encoding="utf-8"))
        return run_host(data["nodes"], args.status, args.summary, data.get("faults", ""),
                        data.get("scenario", ""), args.faults_out)
    parser = argparse.ArgumentParser(prog="python -m orca_ros.testing.hosts",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", help="scenario file or built-in name")
    parser.add_argument("--kinematics", default=None)
    parser.add_argument("--clock-offsets", default="", metavar="SPEC",
                        help="per robot NAME=S,... or a spread S[:N] (N robots alternately "
                             "+S and -S)")
    parser.add_argument("--faults", default="", metavar="SPEC",
                        help="drop_odom, drop_cmd, delay (orca_ros/testing/faults/spec.py), "
                             "each host into its own nodes")
    parser.add_argument("--max-time", type=float, default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--keep", default=None, metavar="DIR",
                        help="keep every host's log and the run's files here")
    args = parser.parse_args(argv)
    from ..fleet.plan import FleetOptions
    from ..nodes import stop

    stop.install()
    try:
        summary = run_hosts(args.scenario, FleetOptions(kinematics=args.kinematics),
                            args.clock_offsets, args.max_time, keep_dir=args.keep,
                            faults=args.faults,
                            should_stop=stop.requested)
    except (InputError, HostsUnavailable, ValueError) as error:
        print(f"hosts: {error}", file=sys.stderr)
        return 2
    print(summary_text(summary))
    if args.json:
        _write_json(args.json, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
