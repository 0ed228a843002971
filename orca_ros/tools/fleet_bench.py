"""``orca-ros bench-ros``: a fleet through real ROS 2 nodes, in processes as launch runs them.

For each fleet size, N robots on a circle swap to antipodes
(:func:`~orca_ros.core.scenario.builders.circle_scenario_yaml`, or in pairs over a floor,
``--layout pairs``). The node plan is
the launch files' (:func:`~orca_ros.fleet.plan.fleet_plan`, split by
:func:`~orca_ros.fleet.plan.process_plan` into ``robots_per_process`` orca_nodes
per ``orca_robots`` process, 1 = one process per orca_node), started as
separate processes with the same executables, parameters files and shutdown
environment that launch gives them. The independent observer
(:mod:`orca_ros.testing.observer`) judges collisions and arrivals from the odometry
alone and gathers the orca_nodes' control-loop figures from ``/diagnostics``.
The run ends when every robot is at its goal at once or at the wall limit; then every
process gets SIGINT (SIGTERM and SIGKILL after launch's timeouts) and its exit
code is kept.

Per size it reports: arrivals and colliding pairs (observer), the achieved
control rate, the share of late control cycles, odom->cmd_vel p50 (median
robot) and p99 (worst robot), the simulated clock's real-time factor,
neighbour odometry delivered per second, CPU (share of one core) and resident
memory per robot over the orca processes, fleet_sim's CPU, the share of
fleet_sim's robot-steps braked for want of a valid command, and non-zero exits;
with ``callback_cpu``, where the robot processes' CPU went, callback by callback
(:mod:`orca_ros.nodes.callback_cpu`).
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import yaml

from ..fleet.launch import shutdown_environment
from ..nodes.callback_cpu import ENVIRONMENT as CALLBACK_CPU_ENVIRONMENT, callback_rows
from ..fleet.plan import (DEFAULT_ROBOTS_PER_PROCESS, FleetOptions, NodeSpec, fleet_plan,
                          process_plan, shutdown_grace, truth_topic)
from ..testing.observer import (log_tail, read_status, start_observer, stop_observer,
                                wait_ready)
from ..core.scenario.builders import FLEET_LAYOUTS

POLL = 0.5  # wall seconds between looks at the observer's status
SIGKILL_AFTER = 5.0  # s after SIGTERM, launch's sigkill_timeout


def process_command(spec: NodeSpec, folder: str) -> List[str]:
    """The command line of one process of the plan, as launch_ros builds it: the
    executable, its arguments, then ``--ros-args`` with the node's name, namespace
    and a parameters file (written to ``folder``) keyed by the full node name."""
    script = (f"import sys; from orca_ros.nodes import scripts; "
              f"sys.argv[0] = {spec.executable!r}; scripts.{spec.executable}()")
    path = pathlib.Path(folder, f"{spec.name}_{spec.namespace or 'root'}.yaml")
    if spec.hosted:
        parameters = spec.parameters_file()
        remaps: List[str] = []
    else:
        full_name = f"/{spec.namespace}/{spec.name}" if spec.namespace else f"/{spec.name}"
        parameters = {full_name: {"ros__parameters": dict(spec.parameters)}}
        remaps = ["-r", f"__node:={spec.name}"]
        if spec.namespace:
            remaps += ["-r", f"__ns:=/{spec.namespace}"]
        for source, target in spec.remappings:
            remaps += ["-r", f"{source}:={target}"]
    path.write_text(yaml.safe_dump(parameters), encoding="utf-8")
    return [sys.executable, "-c", script, *spec.arguments, "--ros-args", *remaps,
            "--params-file", str(path)]


@dataclass
class ProcessUsage:
    """CPU seconds and resident memory of one process, read from /proc."""

    cpu_s: float = 0.0
    rss_mb: float = 0.0

    @staticmethod
    def read(pid: int) -> "ProcessUsage":
        try:
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            status = pathlib.Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return ProcessUsage()
        ticks = os.sysconf("SC_CLK_TCK")
        cpu = (int(stat[11]) + int(stat[12])) / ticks  # utime, stime (fields 14, 15)
        rss = next((int(line.split()[1]) for line in status.splitlines()
                    if line.startswith("VmRSS:")), 0)
        return ProcessUsage(cpu, rss / 1024.0)


LOG_TAIL_LINES = 40  # lines of a failed process's log a bench row keeps


@dataclass
class PlanProcesses:
    """The plan's processes, started and stopped as launch does."""

    specs: Sequence[NodeSpec]
    folder: str
    procs: List[subprocess.Popen] = field(default_factory=list)
    exit_codes: Dict[str, Optional[int]] = field(default_factory=dict)
    logs: Dict[str, pathlib.Path] = field(default_factory=dict)  # by the exit codes' names
    shutdown_s: float = 0.0

    def __post_init__(self) -> None:
        self.folder = os.path.abspath(self.folder)  # the processes' working directory

    def start(self, callback_cpu: Optional[str] = None) -> None:
        """Start every process, in the plan's folder; ``callback_cpu``: the folder the
        robot processes write their callbacks' CPU to (:mod:`orca_ros.nodes.callback_cpu`).

        In the folder, not where the bench was started: a process runs ``python -c``,
        which imports first from its working directory, so started in a checkout it
        would run that checkout's code whatever ``PYTHONPATH`` says (as launch's
        processes would not)."""
        grace = shutdown_grace(len(self.specs))
        env = {**os.environ, **shutdown_environment(str(grace))}
        env.pop(CALLBACK_CPU_ENVIRONMENT, None)
        timed = {**env, CALLBACK_CPU_ENVIRONMENT: callback_cpu} if callback_cpu else env
        for spec in self.specs:
            path = pathlib.Path(self.folder, f"{spec.name}_{spec.namespace}.log")
            self.logs[_process_name(spec)] = path
            log = open(path, "w", encoding="utf-8")
            with log:
                self.procs.append(subprocess.Popen(process_command(spec, self.folder),
                                                   stdout=log, stderr=subprocess.STDOUT,
                                                   cwd=self.folder,
                                                   env=timed if _is_robot_process(spec)
                                                   else env))

    def usage(self) -> List[ProcessUsage]:
        return [ProcessUsage.read(p.pid) for p in self.procs]

    def stop(self) -> None:
        """SIGINT to every process; SIGTERM after launch's ``sigterm_timeout``
        (:func:`~orca_ros.fleet.plan.shutdown_grace`), SIGKILL 5 s later."""
        started = time.monotonic()
        grace = shutdown_grace(len(self.specs))
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for signal_after, action in ((grace, "terminate"), (grace + SIGKILL_AFTER, "kill")):
            while time.monotonic() - started < signal_after and \
                    any(p.poll() is None for p in self.procs):
                time.sleep(0.1)
            for proc in self.procs:
                if proc.poll() is None:
                    getattr(proc, action)()
        for spec, proc in zip(self.specs, self.procs):
            proc.wait()
            self.exit_codes[_process_name(spec)] = proc.returncode
        self.shutdown_s = time.monotonic() - started

    def failed_logs(self, lines: int = LOG_TAIL_LINES) -> Dict[str, str]:
        """The end of the log of every process that exited non-zero: a crash's stack
        (rclpy's EventsExecutor turns Python's fault handler on) is there."""
        return {name: log_tail(self.logs[name], lines)
                for name, code in self.exit_codes.items() if code and name in self.logs}


def _process_name(spec: NodeSpec) -> str:
    return f"{spec.namespace}/{spec.name}".lstrip("/")


def _is_robot_process(spec: NodeSpec) -> bool:
    return spec.executable in ("orca_node", "orca_robots")


def run_size(robots: int, robots_per_process: int, folder: str, wall_limit: float,
             speed_factor: float = 1.0, kinematics: str = "holonomic",
             control_trigger: Optional[str] = None,
             neighbor_cell_size: float = 0.0, odom_frame: str = "shared",
             robot_parameters: tuple = (), engine: str = "kinematic",
             callback_cpu: bool = False, tracks: bool = False,
             layout: str = "circle") -> Dict[str, object]:
    """One fleet size: start, watch until all arrive or ``wall_limit``, stop; the row.
    ``control_trigger``: the orca_nodes' (default: the fleet plan's, ``odom``);
    ``neighbor_cell_size``: theirs (m; 0: each neighbour's odom topic); ``odom_frame``:
    ``per_robot`` puts each robot's odometry in its own frame, so the robots know each
    other from their announced states alone (``shared``: from those and each other's
    odometry topics); ``robot_parameters``: more orca_node parameters for every robot;
    ``engine``: what moves fleet_sim's robots (``kinematic`` or ``mujoco``);
    ``callback_cpu``: the row's ``callback_cpu`` says where the robot processes' CPU
    went, callback by callback (:func:`~orca_ros.nodes.callback_cpu.callback_rows`, over
    each process's whole life); ``tracks``: the observer writes every pose it heard to
    ``tracks_<robots>.csv`` in ``folder``; ``layout``: the robots swap on a circle or in
    pairs spread over a floor (:data:`~orca_ros.core.scenario.builders.FLEET_LAYOUTS`)."""
    scenario = pathlib.Path(folder, f"{layout}_{robots}.yaml")
    scenario.write_text(FLEET_LAYOUTS[layout](robots), encoding="utf-8")
    overrides = () if control_trigger is None else (("control_trigger", control_trigger),)
    if neighbor_cell_size:
        overrides += (("neighbor_cell_size", float(neighbor_cell_size)),)
    overrides += tuple(robot_parameters)
    options = FleetOptions(kinematics=kinematics, speed_factor=speed_factor,
                           robots_per_process=robots_per_process, robot_parameters=overrides,
                           odom_frame=odom_frame, engine=engine)
    plan = fleet_plan(str(scenario), options)
    specs = process_plan(plan, robots_per_process)
    status_path = os.path.join(folder, f"status_{robots}.json")
    report_path = os.path.join(folder, f"observer_{robots}.json")
    observer = start_observer(str(scenario), report_path, status_path=status_path,
                              log_path=os.path.join(folder, f"observer_{robots}.log"),
                              pose_topic=truth_topic(options),
                              tracks_path=os.path.join(folder, f"tracks_{robots}.csv")
                              if tracks else None)
    processes = PlanProcesses(specs, folder)
    try:
        if not wait_ready(status_path, observer):
            raise RuntimeError("the observer did not start: " + log_tail(
                os.path.join(folder, f"observer_{robots}.log")))
        started = time.monotonic()
        cpu_folder = os.path.join(folder, f"callback_cpu_{robots}") if callback_cpu else None
        processes.start(cpu_folder)
        before = processes.usage()
        stop_reason = f"wall limit {wall_limit:g} s"
        heard_s = discovered_s = None
        while time.monotonic() - started < wall_limit:
            time.sleep(POLL)
            status = read_status(status_path) or {}
            if heard_s is None and status.get("heard") == robots:
                heard_s = time.monotonic() - started
            if discovered_s is None and status.get("neighbors_complete") == robots:
                discovered_s = time.monotonic() - started
            if status.get("robots") and robots in (status.get("arrived"),
                                                     status.get("fleet_sim_at_goal")):
                stop_reason = "every robot at its goal"
                break
            if all(p.poll() is not None for p in processes.procs):
                stop_reason = "every process ended"
                break
        wall_s = time.monotonic() - started
        after = processes.usage()
    finally:
        if processes.procs:
            processes.stop()
        report = stop_observer(observer, report_path) if os.path.exists(status_path) else {}
        if observer.poll() is None:
            observer.kill()
            observer.wait()
    robot_cpu = sum(a.cpu_s - b.cpu_s for spec, a, b in zip(specs, after, before)
                    if _is_robot_process(spec))
    robot_rss = sum(a.rss_mb for spec, a in zip(specs, after) if _is_robot_process(spec))
    sim_cpu = sum(a.cpu_s - b.cpu_s for spec, a, b in zip(specs, after, before)
                  if spec.executable == "fleet_sim")
    control = report.get("control") or {}
    commands = report.get("fleet_sim_commands") or {}
    time_step = yaml.safe_load(scenario.read_text(encoding="utf-8"))["time_step"]
    robot_steps = robots * commands.get("sim_time", 0.0) / time_step
    extra = {}
    if cpu_folder:
        pids = {p.pid for spec, p in zip(specs, processes.procs) if _is_robot_process(spec)}
        extra["callback_cpu"] = callback_rows(
            [json.loads(path.read_text()) for path in pathlib.Path(cpu_folder).glob("*.json")
             if int(path.stem) in pids], robots)
    return {
        "robots": robots, "layout": layout, "robots_per_process": robots_per_process,
        "processes": len(specs),
        "control_trigger": next(s.parameters.get("control_trigger", "timer") for s in plan
                                if s.executable == "orca_node"),
        "neighbor_cell_size": float(neighbor_cell_size), "odom_frame": odom_frame,
        "engine": engine, "robot_parameters": {name: value for name, value in robot_parameters},
        # wall s from the start of the processes: until the observer had heard every
        # robot; until every orca_node saw every other robot (its diagnostics, each second)
        "all_heard_s": None if heard_s is None else round(heard_s, 1),
        "all_discovered_s": None if discovered_s is None else round(discovered_s, 1),
        "arrived": report.get("arrived"), "colliding_pairs": report.get("colliding_pairs"),
        "min_separation": report.get("min_separation"), "stop_reason": stop_reason,
        "wall_s": round(wall_s, 1),
        "control_rate_hz": control.get("control_rate_hz"),
        "late_cycle_share": control.get("late_cycle_share"),
        "latency_ms_p50": control.get("odom_to_cmd_ms_p50_median"),
        "latency_ms_p99": control.get("odom_to_cmd_ms_p99_worst"),
        "cycle_cpu_ms_p99": control.get("odom_to_cmd_cpu_ms_p99_worst"),
        "real_time_factor": control.get("real_time_factor"),
        "neighbor_messages_per_s": control.get("neighbor_messages_per_s"),
        "cpu_per_robot": round(robot_cpu / wall_s / robots, 4) if wall_s > 0 else None,
        "rss_mb_per_robot": round(robot_rss / robots, 1),
        "fleet_sim_cpu": round(sim_cpu / wall_s, 3) if wall_s > 0 else None,
        "expired_command_share": round(commands["expired_command_steps"] / robot_steps, 4)
        if robot_steps > 0 and "expired_command_steps" in commands else None,
        "odom_rate_hz_mean": report.get("odom_rate_hz_mean"),
        "nonzero_exits": {name: code for name, code in processes.exit_codes.items() if code},
        "nonzero_exit_logs": processes.failed_logs(),
        "other_nodes_on_domain": foreign_nodes(report.get("nodes_seen", ()), specs),
        "shutdown_s": round(processes.shutdown_s, 1),
        **extra,
    }


def foreign_nodes(seen: Sequence[str], specs: Sequence[NodeSpec]) -> List[str]:
    """The nodes ``seen`` on the domain that are neither the plan's (its processes and the
    orca_nodes they host) nor the observer: another run's, whose clock, odometry or
    states may have mixed into this one (set ``ROS_DOMAIN_ID`` apart)."""
    ours = {"/orca_observer"}
    for spec in specs:
        for node in (spec, *spec.hosted):
            ours.add(f"/{node.namespace}/{node.name}" if node.namespace else f"/{node.name}")
    return sorted(name for name in seen if name not in ours)


def plan_benchmark(counts: Sequence[int], robots_per_process: int = DEFAULT_ROBOTS_PER_PROCESS,
                   wall_limit: float = 150.0, speed_factor: float = 1.0,
                   kinematics: str = "holonomic", keep: Optional[str] = None,
                   progress=None, control_trigger: Optional[str] = None,
                   neighbor_cell_size: float = 0.0, odom_frame: str = "shared",
                   robot_parameters: tuple = (), engine: str = "kinematic",
                   callback_cpu: bool = False, layout: str = "circle"
                   ) -> List[Dict[str, object]]:
    """:func:`run_size` for each fleet size in turn (files in ``keep``, the observer's
    tracks among them, or a temporary folder)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_ros_") as scratch:
        folder = keep or scratch
        os.makedirs(folder, exist_ok=True)
        for count in counts:
            row = run_size(count, robots_per_process, folder, wall_limit, speed_factor,
                           kinematics, control_trigger, neighbor_cell_size, odom_frame,
                           robot_parameters, engine, callback_cpu, tracks=keep is not None,
                           layout=layout)
            rows.append(row)
            if progress is not None:
                progress(row)
    return rows


def _cell(value, fmt: str = "{}") -> str:
    return "-" if value is None else fmt.format(value)


def _percent(value, digits: int = 1) -> str:
    return "-" if value is None else f"{100 * value:.{digits}f}%"


def format_plan_table(rows: Sequence[Dict[str, object]], target_hz: float = 10.0) -> str:
    lines = [f"| robots | layout | per process | neighbour cells m | odom frame | processes "
             "| arrived "
             f"| colliding pairs | all heard s | all discovered s | wall s "
             f"| control Hz (target {target_hz:g}) | late cycles | odom→cmd_vel p50 ms "
             "| p99 ms | cycle CPU p99 ms | real-time factor | neighbour odom msgs/s "
             "| CPU per robot "
             "| RSS per robot MB | fleet_sim CPU | expired commands | non-zero exits |",
             "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
             "---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['robots']} | {r.get('layout', 'circle')} | {r['robots_per_process']} "
            f"| {r.get('neighbor_cell_size') or '-'} | {r.get('odom_frame', 'shared')} "
            f"| {r['processes']} "
            f"| {_cell(r['arrived'])}/{r['robots']} | {_cell(r['colliding_pairs'])} "
            f"| {_cell(r.get('all_heard_s'))} | {_cell(r.get('all_discovered_s'))} "
            f"| {r['wall_s']} | {_cell(r['control_rate_hz'])} "
            f"| {_percent(r['late_cycle_share'])} "
            f"| {_cell(r['latency_ms_p50'])} | {_cell(r['latency_ms_p99'])} "
            f"| {_cell(r.get('cycle_cpu_ms_p99'))} "
            f"| {_cell(r['real_time_factor'])} | {_cell(r['neighbor_messages_per_s'])} "
            f"| {_percent(r['cpu_per_robot'])} "
            f"| {r['rss_mb_per_robot']} "
            f"| {_percent(r['fleet_sim_cpu'], 0)} "
            f"| {_percent(r.get('expired_command_share'), 2)} "
            f"| {len(r['nonzero_exits'])} |")
    return "\n".join(lines)
