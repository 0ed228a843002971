"""An independent observer of a running fleet: a separate process that watches odometry.

    python -m orca_ros.testing.observer SCENARIO --json OUT [--duration WALL_S] [--status FILE]
        [--pose-topic odom|ground_truth]

It has its own rclpy context and subscribes every ``/<robot>/odom`` of the
scenario (reliable, depth 50), or ``/<robot>/ground_truth`` (``--pose-topic``) where
each robot's odometry is in a frame of its own and only the simulator knows the truth.
Poses are grouped by header stamp and only poses with the same stamp are compared
(``orca_ros.testing.audit``), so its verdict does not depend on the simulator's own
collision bookkeeping. It also listens to ``/diagnostics`` and notes fleet_sim's
``arrived`` value. From every pose it heard it reports how the robots drove
(``motion_quality``: retreat, stops, time standing, turn reversals, and the
social-navigation set: SPL, time-outs, failures to progress, stalled time, path length,
acceleration and jerk; see ``orca_ros.core.sim.motion_quality``); its colliding pairs
are split robot-robot (``robot_pairs``) and robot-wall (``obstacle_pairs``).
For a scenario with ``links:`` it judges the links at the same stamps
(:class:`LinkAudit`): ``link_crossings`` (robots whose disc touched another
group's link, the segment between two linked robots' centres) and
``link_overstretches`` (linked pairs ever farther apart than ``max_length``
+ 1 mm). For a 3D scenario (``dimensions: 3``, aerial robots) it reads each
pose's height too and judges spheres in 3D.

On SIGINT/SIGTERM, or after ``--duration`` wall seconds, it writes the JSON
report, prints one summary line and exits 0. With ``--status FILE`` it
rewrites a small JSON progress file every second (``launch_run`` stops a run
on it).

Other programs start and stop it with :func:`start_observer` and
:func:`stop_observer`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import signal
import subprocess
import sys
import time
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .audit import TOUCH, StampAudit
from ..core.geometry.vectors import point_segment_distance
from ..core.scenario.loader import LinkSpec, Scenario, load_scenario, resolve_scenario
from ..core.sim.motion_quality import (RobotTrack, RouteProgress, fleet_motion_quality,
                                      run_motion_summary)

ODOM_DEPTH = 50
STATUS_PERIOD = 1.0  # wall seconds between status files
LEVELS = {0: "OK", 1: "WARN", 2: "ERROR", 3: "STALE"}  # diagnostic_msgs levels
LINK_SLACK = 1e-3  # m a linked pair may exceed max_length before it counts as over-stretched


class LinkAudit:
    """The scenario's links judged at one instant after another (same-stamp poses).

    A crossing: a robot's disc touches (deeper than :data:`~orca_ros.testing.audit.TOUCH`)
    the segment between the centres of a linked pair of another group. An
    over-stretch: a linked pair farther apart than ``max_length`` + :data:`LINK_SLACK`.
    Each is counted once per (robot, link) or pair, with its first stamp, the stamps
    it lasted and its worst value. A pose that is missing at a stamp judges nothing
    that needs it.
    """

    def __init__(self, links: Sequence[LinkSpec], radii: Mapping[str, float],
                 slack: float = LINK_SLACK) -> None:
        self.radii = dict(radii)
        self.slack = slack
        self.pairs = [(a, b, link.max_length, k) for k, link in enumerate(links)
                      for a, b in link.pairs]
        self.group = {name: k for k, link in enumerate(links) for name in link.agents}
        self.crossings: Dict[Tuple[str, str, str], Dict[str, float]] = {}
        self.overstretches: Dict[Tuple[str, str], Dict[str, float]] = {}
        self.max_stretch: Optional[float] = None  # largest distance / max_length seen

    def judge(self, stamp_ns: int, positions: Mapping[str, Tuple[float, float]]) -> None:
        if not self.pairs:
            return
        stamp = stamp_ns * 1e-9
        for a, b, max_length, k in self.pairs:
            if a not in positions or b not in positions:
                continue
            apart = math.dist(positions[a], positions[b])
            ratio = apart / max_length
            self.max_stretch = ratio if self.max_stretch is None else max(self.max_stretch, ratio)
            if apart > max_length + self.slack:
                _note(self.overstretches, (a, b), stamp, apart - max_length)
            for robot, position in positions.items():
                if robot not in self.radii or self.group.get(robot) == k:
                    continue
                depth = self.radii[robot] - point_segment_distance(position, positions[a],
                                                                   positions[b])
                if depth > TOUCH:
                    _note(self.crossings, (robot, a, b), stamp, depth)

    def report(self) -> Dict[str, object]:
        return {
            "link_crossings": len(self.crossings),
            "link_overstretches": len(self.overstretches),
            "link_crossing_events": [{"robot": r, "a": a, "b": b, **_rounded(e)}
                                     for (r, a, b), e in sorted(self.crossings.items())],
            "link_overstretch_events": [{"a": a, "b": b, **_rounded(e)}
                                        for (a, b), e in sorted(self.overstretches.items())],
            "max_link_stretch": None if self.max_stretch is None
            else round(self.max_stretch, 6),
        }


def _note(events: Dict, key, stamp: float, value: float) -> None:
    event = events.get(key)
    if event is None:
        events[key] = {"first_stamp": stamp, "worst_m": value, "stamps": 1}
    else:
        event["first_stamp"] = min(event["first_stamp"], stamp)
        event["worst_m"] = max(event["worst_m"], value)
        event["stamps"] += 1


def _rounded(event: Dict[str, float]) -> Dict[str, float]:
    return {"first_stamp": round(event["first_stamp"], 6), "worst_m": event["worst_m"],
            "stamps": event["stamps"]}


class LinkedStampAudit(StampAudit):
    """A :class:`StampAudit` that also hands each compared stamp's poses to a
    :class:`LinkAudit`, and adds its figures to the report."""

    def __init__(self, *args, links: Sequence[LinkSpec] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.links = LinkAudit(links, self.radii)

    def _compare(self, stamp_ns: int) -> None:
        group = dict(self.pending.get(stamp_ns, {}))
        super()._compare(stamp_ns)
        self.links.judge(stamp_ns, group)

    def report(self) -> Dict[str, object]:
        return {**super().report(), **self.links.report()}


def audit_for(scenario: Scenario) -> StampAudit:
    """An empty audit for the scenario's robots, radii, goals, obstacles and links. A map
    (``map:``) is judged on its occupied cells, not on the walls made of it."""
    agents = scenario.agents
    return LinkedStampAudit(radii={a.name: a.radius for a in agents},
                            goals={a.name: a.goal for a in agents},
                            goal_tolerance={a.name: scenario.goal_tolerance_of(a)
                                            for a in agents},
                            polygons=[p.vertices for p in scenario.obstacles]
                            + [(e.a, e.b) for e in scenario.mat_edges]
                            + [p.vertices for p in scenario.unmapped_obstacles],
                            occupancy=scenario.occupancy, links=scenario.links,
                            route=RouteProgress.of(scenario))


class Watch:
    """The rclpy side: subscriptions that feed a :class:`StampAudit`, and wall-clock rates."""

    def __init__(self, scenario: Scenario, context, pose_topic: str = "odom") -> None:
        from diagnostic_msgs.msg import DiagnosticArray
        from nav_msgs.msg import Odometry
        from rclpy.node import Node
        from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

        self.audit = audit_for(scenario)
        self.aerial = scenario.dimensions == 3
        self.names = [a.name for a in scenario.agents]
        self.first_wall: Dict[str, float] = {}
        self.last_wall: Dict[str, float] = {}
        self.fleet_sim_arrived: Optional[int] = None
        self.fleet_sim_at_goal: Optional[int] = None  # robots on their goals now, by it
        self.fleet_sim_values: Dict[str, str] = {}  # fleet_sim's latest diagnostics
        self.sim_clock: List[Tuple[float, float]] = []  # (wall monotonic, fleet_sim sim_time)
        self.controllers: Dict[str, Dict[str, str]] = {}  # robot -> its latest diagnostics
        self.scenario = scenario
        # robot -> [(stamp s, x, y[, z], body yaw)], every pose heard: its motion figures
        self.tracks: Dict[str, List[Tuple[float, ...]]] = {name: [] for name in self.names}
        self.node = Node("orca_observer", context=context)
        qos = QoSProfile(depth=ODOM_DEPTH, reliability=ReliabilityPolicy.RELIABLE,
                         history=HistoryPolicy.KEEP_LAST)
        for name in self.names:
            self.node.create_subscription(Odometry, f"/{name}/{pose_topic.strip('/')}",
                                          lambda msg, name=name: self.on_odom(name, msg), qos)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self.on_diagnostics, 50)
        self.nodes_seen: set = set()  # every node met on the domain ("/namespace/name")

    def look_at_graph(self) -> None:
        """Note the nodes on the domain now: a run's harness tells its own from others',
        whose traffic (a second fleet's clock, odometry or states) can mix into the run."""
        try:
            for name, namespace in self.node.get_node_names_and_namespaces():
                self.nodes_seen.add(f"{namespace.rstrip('/')}/{name}")
        except Exception:  # the graph is gone (shutting down): nothing to learn
            pass

    def on_odom(self, name: str, msg) -> None:
        now = time.monotonic()
        self.first_wall.setdefault(name, now)
        self.last_wall[name] = now
        stamp = msg.header.stamp
        p = msg.pose.pose.position
        self.audit.add(name, stamp.sec * 1_000_000_000 + stamp.nanosec, p.x, p.y,
                       p.z if self.aerial else None)
        q = msg.pose.pose.orientation
        yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))
        self.tracks[name].append((stamp.sec + stamp.nanosec * 1e-9, p.x, p.y,
                                  *((p.z,) if self.aerial else ()), yaw))

    def motion_figures(self) -> Dict[str, object]:
        """How the robots drove, from the odometry heard
        (:mod:`~orca_ros.core.sim.motion_quality`, the figures ``orca-ros bench`` gives):
        the run's fields, and each robot's under ``robots``. Turning is the body yaw's
        where it turns (:func:`~orca_ros.core.sim.motion_quality.body_yaw_turns`), the
        direction of motion's otherwise; distance to go is along the scenario's
        waypoints, passed within its ``waypoint_tolerance``."""
        tracks = {}
        for name, rows in self.tracks.items():
            rows = np.array(sorted(set(rows)), dtype=float)
            if len(rows) >= 2:
                tracks[name] = RobotTrack(rows[:, 0], rows[:, 1:-1], rows[:, -1])
        figures = fleet_motion_quality(self.scenario, tracks)
        return {**run_motion_summary(figures),
                "robots": {name: f.as_dict() for name, f in figures.items()}}

    def on_diagnostics(self, msg) -> None:
        """fleet_sim's ``arrived`` and ``sim_time`` (with the wall time it was heard), and
        each orca_node's control-loop figures (its latest status)."""
        for status in msg.status:
            values = {kv.key: kv.value for kv in status.values}
            if status.name == "fleet_sim":
                self.fleet_sim_values = values
                try:
                    self.fleet_sim_arrived = int(values.get("arrived", ""))
                    self.fleet_sim_at_goal = int(values.get("at_goal", ""))
                except ValueError:
                    pass
                try:
                    sim_time = float(values.get("sim_time", ""))
                except ValueError:
                    continue
                self.sim_clock.append((time.monotonic(), sim_time))
            elif status.name.startswith("orca_node: "):
                stamp = msg.header.stamp  # the node's clock: simulated time under fleet_sim
                values["clock_s"] = str(stamp.sec + stamp.nanosec * 1e-9)
                level = status.level
                values["level"] = LEVELS.get(level[0] if isinstance(level, bytes) else level,
                                             str(level))
                self.controllers[status.name[len("orca_node: "):]] = values

    def control_figures(self, wall_s: float) -> Dict[str, object]:
        """The fleet's control loop as its orca_nodes report it on /diagnostics: late
        cycles over all cycles, the median robot's odom->cmd_vel p50 and the worst
        robot's p99 (ms), neighbour odometry delivered per wall second (all robots), the
        simulated clock's real-time factor (fleet_sim's sim_time over wall time), and the
        median robot's control rate (its cycles over its clock's time, Hz). Beside the
        worst wall p99, the worst robot's p99 of the CPU time its cycles took: what of
        the latency is the computation, not waiting for a core."""
        def numbers(key):
            out = []
            for values in self.controllers.values():
                try:
                    out.append(float(values.get(key, "")))
                except ValueError:
                    pass
            return out
        cycles, late = sum(numbers("control_cycles")), sum(numbers("late_control_cycles"))
        p50s, p99s = sorted(numbers("odom_to_cmd_ms_p50")), numbers("odom_to_cmd_ms_p99")
        cpu_p99s = numbers("odom_to_cmd_cpu_ms_p99")
        rates = []
        for values in self.controllers.values():
            try:
                robot_cycles = float(values["control_cycles"])
                clock = float(values["clock_s"])
            except (KeyError, ValueError):
                continue
            if clock > 0:
                rates.append(robot_cycles / clock)
        rates.sort()
        real_time = None
        if len(self.sim_clock) >= 2:
            (wall0, sim0), (wall1, sim1) = self.sim_clock[0], self.sim_clock[-1]
            real_time = round((sim1 - sim0) / (wall1 - wall0), 3) if wall1 > wall0 else None
        return {
            "robots_reporting": len(self.controllers),
            "late_cycle_share": round(late / cycles, 4) if cycles else None,
            "odom_to_cmd_ms_p50_median": p50s[len(p50s) // 2] if p50s else None,
            "odom_to_cmd_ms_p99_worst": max(p99s) if p99s else None,
            "odom_to_cmd_cpu_ms_p99_worst": max(cpu_p99s) if cpu_p99s else None,
            "neighbor_messages_per_s": round(self._neighbor_messages() / wall_s, 1)
            if wall_s > 0 else None,
            "real_time_factor": real_time,
            "control_rate_hz": round(rates[len(rates) // 2], 2) if rates else None,
        }

    def clock_diagnostics(self) -> Dict[str, Dict[str, str]]:
        """What each orca_node said last of the clocks (its neighbours' offsets, its own
        odometry's, its neighbours' data ages) and its diagnostics level then."""
        keys = ("clock_offsets", "own_odom_clock_offset_s", "neighbor_ages_s", "level")
        return {robot: {key: values[key] for key in keys if key in values}
                for robot, values in sorted(self.controllers.items())}

    def fleet_sim_commands(self) -> Dict[str, float]:
        """fleet_sim's last word on the commands: how many it took, the robot-steps braked
        because the latest had expired (``expired_command_steps``), how many it rejected
        as malformed, and its simulated time then."""
        out = {}
        for key in ("taken_commands", "expired_command_steps", "rejected_commands", "sim_time"):
            try:
                out[key] = float(self.fleet_sim_values[key])
            except (KeyError, ValueError):
                pass
        return out

    def _neighbor_messages(self) -> float:
        """Neighbours' odometry taken in by the fleet's processes: each orca_node reports
        its process's count and how many nodes share it (``neighbor_messages_shared_by``)."""
        total = 0.0
        for values in self.controllers.values():
            try:
                shared_by = max(1.0, float(values.get("neighbor_messages_shared_by") or 1))
                total += float(values.get("neighbor_messages", "")) / shared_by
            except ValueError:
                pass
        return total

    def rates(self) -> Dict[str, float]:
        """Odometry messages per wall second, per robot (first to last message)."""
        rates = {}
        for name in self.names:
            count = self.audit.poses.get(name, 0)
            span = self.last_wall.get(name, 0.0) - self.first_wall.get(name, 0.0)
            rates[name] = round((count - 1) / span, 3) if count > 1 and span > 0 else 0.0
        return rates

    def status(self) -> Dict[str, object]:
        others = len(self.names) - 1

        def seen(values):
            try:
                return int(values.get("neighbors_seen", 0))
            except ValueError:
                return 0
        return {"robots": len(self.names), "reached": len(self.audit.reached_goal),
                "arrived": len(self.audit.arrived()),
                "heard": len(self.first_wall),  # robots whose pose has come at least once
                # robots whose orca_node sees every other robot (its latest diagnostics)
                "neighbors_complete": sum(1 for v in self.controllers.values()
                                          if seen(v) >= others),
                "fleet_sim_arrived": self.fleet_sim_arrived,
                "fleet_sim_at_goal": self.fleet_sim_at_goal,
                "stamps_compared": self.audit.stamps_compared,
                "colliding_pairs": len(self.audit.contacts), "time": time.time()}

    def report(self, scenario_path: str, wall_s: float) -> Dict[str, object]:
        self.audit.flush()
        report = {"scenario": scenario_path, **self.audit.report(),
                  "fleet_sim_arrived": self.fleet_sim_arrived,
                  "fleet_sim_commands": self.fleet_sim_commands(),
                  "odom_rate_hz": self.rates(), "wall_time_s": round(wall_s, 3),
                  "control": self.control_figures(wall_s),
                  "clock_diagnostics": self.clock_diagnostics(),
                  "motion_quality": self.motion_figures(),
                  "nodes_seen": sorted(self.nodes_seen)}
        rates = list(report["odom_rate_hz"].values())
        report["odom_rate_hz_mean"] = round(sum(rates) / len(rates), 3) if rates else 0.0
        report["odom_rate_hz_min"] = min(rates) if rates else 0.0
        return report


def write_json(path: str, data: Dict[str, object]) -> None:
    """Write atomically (a reader never sees half a file)."""
    target = pathlib.Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, target)


def write_tracks(path: str, tracks: Mapping[str, Sequence[Tuple[float, ...]]],
                 aerial: bool = False) -> None:
    """Every pose heard, one CSV row each, by robot and then stamp: ``robot, stamp_s, x,
    y, [z,] yaw`` (the ground truth round a contact, to plot or replay)."""
    import csv

    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["robot", "stamp_s", "x", "y", *(("z",) if aerial else ()), "yaw"])
        for name, rows in tracks.items():
            for row in sorted(rows):
                writer.writerow([name, *(f"{value:.6f}" for value in row)])


def summary_line(report: Dict[str, object]) -> str:
    separation = report["min_separation"]
    return (f"observer: {report['stamps_compared']} stamps compared, "
            f"{report['colliding_pairs']} colliding pairs, "
            f"deepest overlap {report['deepest_penetration']:.4f} m, min separation "
            f"{'n/a' if separation is None else f'{separation:.4f} m'}, "
            f"reached their goals {report['reached']}/{report['robots']} (at them at the end "
            f"{report['arrived']}), "
            f"odom {report['odom_rate_hz_mean']:.1f} Hz per robot"
            + (f", link crossings {report['link_crossings']}, over-stretched links "
               f"{report['link_overstretches']}" if report.get("max_link_stretch") is not None
               else "")
            + f"; {motion_line(report.get('motion_quality'))}"
            + f"; {social_line(_social_figures(report))}")


def _social_figures(report: Dict[str, object]) -> Dict[str, object]:
    """The observer's motion figures with its colliding pairs split by kind."""
    return {**(report.get("motion_quality") or {}),
            "robot_collisions": report.get("robot_pairs"),
            "wall_collisions": report.get("obstacle_pairs")}


def motion_line(figures: Optional[Dict[str, object]]) -> str:
    """A run's motion-quality fields (:meth:`Watch.motion_figures`, or an ``orca-ros sim``
    summary's) on one line."""
    if not figures or "retreat_max_m" not in figures:
        return "motion: -"

    def number(key, digits=2):
        value = figures.get(key)
        return "-" if value is None else f"{value:.{digits}f}"
    return (f"motion: worst retreat {number('retreat_max_m')} m"
            + (f" ({figures['retreat_robot']})" if figures.get("retreat_robot") else "")
            + f", pushed off its goal {number('off_goal_max_m')} m"
            + (f" ({figures['off_goal_robot']})" if figures.get("off_goal_robot") else "")
            + f", {number('stops', 0)} stops, {number('time_standing_s', 1)} s standing, "
            f"turn reversals {number('turn_reversals_per_min', 1)}/min (worst "
            f"{number('turn_reversals_per_min_max', 1)}"
            + (f", {figures['turn_reversals_robot']}" if figures.get("turn_reversals_robot")
               else "") + ")")


def social_line(figures: Optional[Dict[str, object]]) -> str:
    """A run's social-navigation fields on one line: SPL, time-outs, failures to
    progress, stalled time, path length, acceleration and jerk
    (:func:`~orca_ros.core.sim.motion_quality.run_motion_summary`), and the colliding
    pairs split robot-robot and robot-wall where given."""
    if not figures or "spl" not in figures:
        return "social navigation: -"

    def number(key, digits=2):
        value = figures.get(key)
        return "-" if value is None else f"{value:.{digits}f}"
    pairs = ""
    if figures.get("robot_collisions") is not None:
        pairs = (f"colliding pairs robot-robot {figures['robot_collisions']}, robot-wall "
                 f"{figures.get('wall_collisions', 0)}, ")
    return (f"social navigation: {pairs}SPL {number('spl')}, "
            f"{number('timeouts', 0)} timed out, {number('failed_to_progress', 0)} failed to "
            f"progress, {number('time_stalled_s', 1)} s stalled, path "
            f"{number('path_length_mean_m')} m per robot, acceleration "
            f"{number('acceleration_mean_mps2')} mean / {number('acceleration_max_mps2')} max "
            f"m/s^2, jerk {number('jerk_mean_mps3', 1)} / {number('jerk_max_mps3', 1)} m/s^3")


def observe(scenario_path: str, json_path: str, duration: Optional[float] = None,
            status_path: Optional[str] = None, pose_topic: str = "odom",
            tracks_path: Optional[str] = None) -> Dict[str, object]:
    """Watch until SIGINT/SIGTERM or ``duration`` wall seconds; write and return the report
    (and with ``tracks_path`` every pose heard: :func:`write_tracks`)."""
    import rclpy
    from rclpy.context import Context
    from rclpy.signals import SignalHandlerOptions

    from ..nodes.ros_common import make_executor

    scenario = load_scenario(resolve_scenario(scenario_path))
    stop = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, frame: stop.append(number))
    context = Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    started = time.monotonic()
    watch = Watch(scenario, context, pose_topic)
    executor = make_executor(context)
    executor.add_node(watch.node)
    next_status = started
    try:
        while not stop and (duration is None or time.monotonic() - started < duration):
            executor.spin_once(timeout_sec=0.1)
            if status_path and time.monotonic() >= next_status:
                watch.look_at_graph()
                write_json(status_path, watch.status())
                next_status = time.monotonic() + STATUS_PERIOD
    finally:
        report = watch.report(scenario_path, time.monotonic() - started)
        write_json(json_path, report)
        if tracks_path:
            write_tracks(tracks_path, watch.tracks, watch.aerial)
        if status_path:
            write_json(status_path, watch.status())
        executor.shutdown()
        watch.node.destroy_node()
        rclpy.try_shutdown(context=context)
    return report


# -- as a subprocess of another program ---------------------------------------

def start_observer(scenario_path: str, json_path: str, status_path: Optional[str] = None,
                   duration: Optional[float] = None, log_path: Optional[str] = None,
                   env: Optional[Dict[str, str]] = None,
                   pose_topic: str = "odom",
                   tracks_path: Optional[str] = None) -> subprocess.Popen:
    """Start ``python -m orca_ros.testing.observer`` in its own process (same ROS_DOMAIN_ID)."""
    command: List[str] = [sys.executable, "-m", "orca_ros.testing.observer", str(scenario_path),
                          "--json", str(json_path), "--pose-topic", pose_topic]
    if tracks_path:
        command += ["--tracks", str(tracks_path)]
    if status_path:
        command += ["--status", str(status_path)]
    if duration is not None:
        command += ["--duration", str(duration)]
    output = open(log_path, "w", encoding="utf-8") if log_path else subprocess.DEVNULL
    try:
        return subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                env=env if env is not None else os.environ.copy())
    finally:
        if log_path:
            output.close()


def wait_ready(status_path: str, proc: subprocess.Popen, timeout: float = 30.0) -> bool:
    """True once the observer has written its first status file (it is subscribed)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(status_path):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def log_tail(path, lines: int = 40) -> str:
    """The last ``lines`` lines of a process's log ('' when it cannot be read): what a
    harness shows of a process that did not start, or died (a crash's stack)."""
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def read_status(status_path: str) -> Optional[Dict[str, object]]:
    try:
        return json.loads(pathlib.Path(status_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def stop_observer(proc: subprocess.Popen, json_path: str,
                  timeout: float = 60.0) -> Dict[str, object]:
    """SIGINT the observer, wait for it, and return its JSON report.

    The observer writes its report before it tears ROS down, so on a starved
    machine a report may exist although the process had to be killed
    afterwards; it is returned with ``"observer_killed": true``. Raises
    RuntimeError when there is no report.
    """
    killed = False
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            killed = True
    try:
        report = json.loads(pathlib.Path(json_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RuntimeError(f"observer (exit {proc.returncode}"
                           f"{', killed after ' + str(timeout) + ' s' if killed else ''}) "
                           f"wrote no report to {json_path}: {error}") from None
    report["observer_killed"] = killed
    report["observer_exit_code"] = proc.returncode
    return report


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orca_ros.testing.observer",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", help="scenario file or built-in scenario name")
    parser.add_argument("--json", required=True, help="where to write the report")
    parser.add_argument("--duration", type=float, default=None,
                        help="stop after this many wall seconds (default: at SIGINT/SIGTERM)")
    parser.add_argument("--status", default=None,
                        help="rewrite this JSON progress file every second")
    parser.add_argument("--pose-topic", default="odom", metavar="NAME",
                        help="each robot's true pose in the shared frame: /<robot>/NAME "
                             "(nav_msgs/Odometry; default odom; ground_truth when odometry "
                             "is in each robot's own frame)")
    parser.add_argument("--tracks", default=None, metavar="CSV",
                        help="also write every pose heard there (robot, stamp_s, x, y, yaw)")
    args = parser.parse_args(argv)
    report = observe(args.scenario, args.json, args.duration, args.status, args.pose_topic,
                     args.tracks)
    print(summary_line(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
