"""Run a launch file through the real ROS 2 launch engine, watched by the independent observer.

    python -m orca_ros.launch_run fleet_sim.launch.py scenario:=crossing_4 speed_factor:=2 \\
        --json out/launch.json [--observer SCENARIO] [--wall-limit 120] [--stress 2]

This is what ``ros2 launch`` does (``launch.LaunchService`` in the main
thread, one process per node), plus:

- the observer (``orca_ros.testing.observer``) in a separate process, judging
  collisions from ``/<robot>/odom`` alone (``/<robot>/ground_truth`` with
  ``odom_frame:=per_robot``, where odometry is in each robot's own frame; the scenario is
  ``--observer``, or
  the launch file's ``scenario:=`` argument);
- optionally ``--stress N`` busy-loop processes, to judge safety on a loaded
  machine;
- a stop when every robot is at its goal at once (the observer's count, from each
  robot's latest odometry within goal tolerance; or fleet_sim's ``at_goal`` on
  /diagnostics): one pushed off its goal after reaching it must come back first; or at
  ``--wall-limit``, then launch's own
  shutdown (SIGINT to every process, escalating after launch's timeouts);
- every process's exit code (``OnProcessExit``) and the last lines of its
  stderr (``OnProcessIO``).

The summary goes to stdout and ``--json``. The exit status is 0 whenever the
run happened, collisions or not; 2 when it could not start.

A launch file given by name is looked up in the ``orca_ros`` share directory
of the colcon install (``scripts/setup_launch.sh`` builds it into
``build/colcon_ws``; that prefix and the venv are put on AMENT_PREFIX_PATH
here when missing).
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Deque, Dict, List, Optional, Tuple

from .observer import (log_tail, read_status, start_observer, stop_observer, wait_ready,
                       write_json)

PACKAGE = "orca_ros"
REPO = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_PREFIX = REPO / "build" / "colcon_ws" / "install" / PACKAGE
STDERR_LINES = 15
POLL = 0.5  # wall seconds between looks at the observer's status
# Wall seconds the observer gets to see what fleet_sim already counts as arrived: its
# odometry comes over DDS, behind fleet_sim's own count on a busy machine, and
# stopping at fleet_sim's word once reported 3 of 8 at their goals where fleet_sim had
# 8 reached (toio_cross_4v4, two busy loops beside).
OBSERVER_CATCH_UP = 3.0


class SetupError(RuntimeError):
    """The run cannot start (no launch engine, no install, bad arguments)."""


# -- environment -----------------------------------------------------------------

def _prefix_ok(prefix: pathlib.Path) -> bool:
    return (prefix / "lib" / PACKAGE / "orca_node").exists() and \
        (prefix / "share" / "ament_index" / "resource_index" / "packages" / PACKAGE).exists()


def ensure_ament_prefix(prefix: Optional[pathlib.Path] = None) -> pathlib.Path:
    """Make sure AMENT_PREFIX_PATH finds an install of this package with its executables.

    Keeps a working prefix already on the path; otherwise puts ``prefix``
    (default: the colcon workspace of scripts/setup_launch.sh) and the venv in front.
    """
    paths = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    if prefix is None:
        found = next((pathlib.Path(p) for p in paths if _prefix_ok(pathlib.Path(p))), None)
        if found is not None:
            return found
        prefix = DEFAULT_PREFIX
    if not _prefix_ok(prefix):
        raise SetupError(f"{prefix} holds no colcon install of {PACKAGE}: "
                         "run scripts/setup_launch.sh first")
    front = [str(prefix)] + ([sys.prefix] if sys.prefix not in paths else [])
    os.environ["AMENT_PREFIX_PATH"] = os.pathsep.join(front + [p for p in paths
                                                               if p != str(prefix)])
    return prefix


def resolve_launch_file(name: str) -> pathlib.Path:
    """A path as given, or a file in the package's share/launch directory."""
    path = pathlib.Path(name)
    if path.exists():
        return path
    from ament_index_python.packages import get_package_share_directory

    shared = pathlib.Path(get_package_share_directory(PACKAGE)) / "launch" / path.name
    if not shared.exists():
        raise SetupError(f"{name}: no such file, nor in {shared.parent}")
    return shared


def split_launch_arguments(items: List[str]) -> List[Tuple[str, str]]:
    pairs = []
    for item in items:
        if ":=" not in item:
            raise SetupError(f"launch arguments are name:=value, got {item!r}")
        name, value = item.split(":=", 1)
        pairs.append((name, value))
    return pairs


def declared_default(launch_path: pathlib.Path, name: str) -> Optional[str]:
    """The default value of a launch file's ``DeclareLaunchArgument``, if it has one."""
    import launch
    from launch.launch_description_sources import get_launch_description_from_any_launch_file
    from launch.utilities import perform_substitutions

    description = get_launch_description_from_any_launch_file(str(launch_path))
    for argument in description.get_launch_arguments():
        if argument.name == name and argument.default_value is not None:
            return perform_substitutions(launch.LaunchContext(), argument.default_value)
    return None


# -- CPU hogs ----------------------------------------------------------------------

def start_hogs(count: int) -> List[subprocess.Popen]:
    """``count`` busy-loop processes (our own, ended by pid in :func:`stop_hogs`)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(count)]


def stop_hogs(hogs: List[subprocess.Popen]) -> None:
    for hog in hogs:
        if hog.poll() is None:
            hog.terminate()
    for hog in hogs:
        try:
            hog.wait(timeout=5)
        except subprocess.TimeoutExpired:
            hog.kill()
            hog.wait()


# -- the launch run ------------------------------------------------------------------

@dataclass
class LaunchRecord:
    """What launch told us about its processes."""

    exits: List[Dict[str, object]] = field(default_factory=list)
    stderr: Dict[str, Deque[str]] = field(default_factory=dict)
    started: int = 0

    def on_start(self, event, context) -> None:
        self.started += 1

    def on_exit(self, event, context) -> None:
        self.exits.append({"name": event.process_name, "pid": event.pid,
                           "returncode": event.returncode, "at": time.monotonic()})

    def on_stderr(self, event) -> None:
        tail = self.stderr.setdefault(event.process_name, collections.deque(maxlen=STDERR_LINES))
        for line in event.text.decode(errors="replace").splitlines():
            if line.strip():
                tail.append(line)

    def processes(self, stopped_at: Optional[float]) -> List[Dict[str, object]]:
        """Exits in order, with the seconds from the shutdown to each (None: before it).

        The times are when launch's event loop handled each exit, which on a
        starved machine can be long after the process really ended.
        """
        rows = []
        for e in sorted(self.exits, key=lambda e: e["at"]):
            after = None if stopped_at is None or e["at"] < stopped_at else e["at"] - stopped_at
            rows.append({"name": e["name"], "pid": e["pid"], "returncode": e["returncode"],
                         "exit_after_shutdown_s": None if after is None else round(after, 3)})
        return rows

    def failures(self, stopped_at: Optional[float]) -> List[Dict[str, object]]:
        return [dict(e, stderr_tail=list(self.stderr.get(e["name"], ())))
                for e in self.processes(stopped_at) if e["returncode"] != 0]


class Stopper:
    """A thread that shuts launch down when every robot is at its goal at once (reached and
    not pushed off), or at the wall limit."""

    def __init__(self, service, status_path: str, wall_limit: float) -> None:
        self.service, self.status_path, self.wall_limit = service, status_path, wall_limit
        self.reason = "launch ended by itself"
        self.finished = threading.Event()
        self.started = time.monotonic()
        self.stopped_at: Optional[float] = None
        self.fleet_sim_done: Optional[float] = None  # when fleet_sim first had every robot
        self.observer_done: Optional[float] = None  # when the observer first had every robot
        self.thread = threading.Thread(target=self._watch, name="launch_run.stopper", daemon=True)

    def start(self) -> None:
        self.started = time.monotonic()
        self.thread.start()

    def _watch(self) -> None:
        while not self.finished.wait(POLL):
            reason = self._why_stop()
            if reason:
                self.reason = reason
                self.stopped_at = time.monotonic()
                self.service.shutdown()
                return

    def _why_stop(self) -> Optional[str]:
        status = read_status(self.status_path) or {}
        robots = status.get("robots")
        now = time.monotonic()
        # Done when every robot is at its goal at once (one pushed off after arriving
        # must come back first), by the observer's odometry or fleet_sim's truth.
        theirs = status.get("fleet_sim_at_goal")
        if robots and status.get("arrived") == robots:
            # fleet_sim's count comes with its diagnostics, once a second: it gets as
            # long to agree as the observer gets the other way round.
            self.observer_done = self.observer_done or now
            if theirs is None or theirs == robots or \
                    now - self.observer_done >= OBSERVER_CATCH_UP:
                return "every robot at its goal (observer)"
        elif robots and theirs == robots:
            self.fleet_sim_done = self.fleet_sim_done or now
            if now - self.fleet_sim_done >= OBSERVER_CATCH_UP:
                return "every robot at its goal (fleet_sim /diagnostics)"
        if now - self.started >= self.wall_limit:
            return f"wall limit {self.wall_limit:g} s"
        return None


def run_launch(launch_path: pathlib.Path, arguments: List[Tuple[str, str]], status_path: str,
               wall_limit: float, sigterm_timeout: Optional[float] = None
               ) -> Tuple[LaunchRecord, Stopper, int, float]:
    """``ros2 launch`` in this (main) thread until the stopper shuts it down.

    ``sigterm_timeout``: seconds between launch's SIGINT and its SIGTERM
    (launch's default, 5 s, when None; SIGKILL follows 5 s after SIGTERM).
    """
    import launch
    from launch.actions import (IncludeLaunchDescription, RegisterEventHandler,
                                SetLaunchConfiguration)
    from launch.event_handlers import OnProcessExit, OnProcessIO, OnProcessStart
    from launch.launch_description_sources import AnyLaunchDescriptionSource

    record = LaunchRecord()
    service = launch.LaunchService(argv=[f"{n}:={v}" for n, v in arguments])
    timeouts = [] if sigterm_timeout is None else [
        SetLaunchConfiguration("sigterm_timeout", str(sigterm_timeout))]
    service.include_launch_description(launch.LaunchDescription(timeouts + [
        RegisterEventHandler(OnProcessStart(on_start=record.on_start)),
        RegisterEventHandler(OnProcessExit(on_exit=record.on_exit)),
        RegisterEventHandler(OnProcessIO(on_stderr=record.on_stderr)),
        IncludeLaunchDescription(AnyLaunchDescriptionSource(str(launch_path)),
                                 launch_arguments=arguments),
    ]))
    stopper = Stopper(service, status_path, wall_limit)
    stopper.start()
    try:
        code = service.run()
    finally:
        stopper.finished.set()
    ended = time.monotonic()
    shutdown_s = ended - stopper.stopped_at if stopper.stopped_at else 0.0
    return record, stopper, code, shutdown_s


# -- the summary ---------------------------------------------------------------------

def summarize(launch_path, arguments, scenario, observer: Dict[str, object], record: LaunchRecord,
              stopper: Stopper, launch_code: int, shutdown_s: float, wall_s: float,
              stress: int) -> Dict[str, object]:
    return {
        "launch_file": str(launch_path), "arguments": dict(arguments), "scenario": scenario,
        "robots": observer.get("robots"), "reached": observer.get("reached"),
        "arrived": observer.get("arrived"),
        "fleet_sim_arrived": observer.get("fleet_sim_arrived"),
        "stop_reason": stopper.reason, "wall_time_s": round(wall_s, 3),
        "shutdown_s": round(shutdown_s, 3), "stress_processes": stress,
        "colliding_pairs": observer.get("colliding_pairs"),
        "deepest_penetration": observer.get("deepest_penetration"),
        "min_separation": observer.get("min_separation"),
        "stamps_compared": observer.get("stamps_compared"),
        "odom_rate_hz": observer.get("odom_rate_hz"),
        "odom_rate_hz_mean": observer.get("odom_rate_hz_mean"),
        "odom_rate_hz_min": observer.get("odom_rate_hz_min"),
        "control": observer.get("control") or {},
        "processes_started": record.started, "processes_exited": len(record.exits),
        "exit_codes": dict(collections.Counter(str(e["returncode"]) for e in record.exits)),
        "processes": record.processes(stopper.stopped_at),
        "nonzero_exits": record.failures(stopper.stopped_at),
        "launch_return_code": launch_code, "observer": observer,
    }


def _arrivals(summary: Dict[str, object]) -> str:
    """The observer's count of robots that reached their goals, fleet_sim's where it
    differs, and how many stood at their goals at the end (where not all that reached)."""
    robots, reached = summary["robots"], summary.get("reached")
    theirs = summary.get("fleet_sim_arrived")
    text = f"{reached}/{robots} reached their goals"
    if theirs is not None and theirs != reached:
        text += f" by the observer, {theirs}/{robots} by fleet_sim"
    if summary["arrived"] != reached:
        text += f", {summary['arrived']}/{robots} at them at the end"
    return text


def summary_text(summary: Dict[str, object]) -> str:
    lines = [
        f"launch_run: {_arrivals(summary)} "
        f"(stop: {summary['stop_reason']}), wall {summary['wall_time_s']} s, "
        f"shutdown {summary['shutdown_s']} s, stress {summary['stress_processes']}",
        f"  observer: {summary['colliding_pairs']} colliding pairs, deepest overlap "
        f"{summary['deepest_penetration']}, min separation {summary['min_separation']}, "
        f"{summary['stamps_compared']} stamps compared, odom {summary['odom_rate_hz_mean']} Hz "
        f"per robot (min {summary['odom_rate_hz_min']})",
        "  control (orca_nodes' /diagnostics): " + ", ".join(
            f"{key} {value}" for key, value in summary["control"].items()),
        f"  processes: {summary['processes_started']} started, {summary['processes_exited']} "
        f"exited, {len(summary['nonzero_exits'])} with a non-zero exit code "
        f"(exit codes: {summary['exit_codes']})",
    ]
    for failure in summary["nonzero_exits"]:
        lines.append(f"    {failure['name']} (pid {failure['pid']}): exit {failure['returncode']}")
        lines += [f"      | {line}" for line in failure["stderr_tail"][-5:]]
    return "\n".join(lines)


def run(launch_file: str, launch_arguments: List[str], json_path: Optional[str],
        scenario: Optional[str] = None, wall_limit: float = 300.0, stress: int = 0,
        keep_dir: Optional[str] = None,
        sigterm_timeout: Optional[float] = None) -> Dict[str, object]:
    """The whole run; returns the summary (also written to ``json_path``)."""
    try:
        import launch  # noqa: F401
        import launch_ros  # noqa: F401
    except ImportError as error:
        raise SetupError(f"the ROS 2 launch engine is not importable ({error}): "
                         "run scripts/setup_launch.sh") from None
    ensure_ament_prefix()
    launch_path = resolve_launch_file(launch_file)
    arguments = split_launch_arguments(launch_arguments)
    scenario = scenario or dict(arguments).get("scenario") or declared_default(launch_path,
                                                                               "scenario")
    if not scenario:
        raise SetupError("no scenario to observe: give --observer SCENARIO or scenario:=")
    if keep_dir:
        os.makedirs(keep_dir, exist_ok=True)
        summary = _run_in(keep_dir, launch_path, arguments, scenario, wall_limit, stress,
                          sigterm_timeout)
    else:
        with tempfile.TemporaryDirectory(prefix="launch_run_") as folder:
            summary = _run_in(folder, launch_path, arguments, scenario, wall_limit, stress,
                              sigterm_timeout)
    if json_path:
        write_json(json_path, summary)
    return summary


def pose_topic_of(arguments: List[Tuple[str, str]]) -> str:
    """Where the observer reads each robot's true pose: ``ground_truth`` when the launch
    puts each robot's odometry in a frame of its own (``odom_frame:=per_robot``), else
    ``odom``."""
    return "ground_truth" if dict(arguments).get("odom_frame") == "per_robot" else "odom"


def _run_in(folder: str, launch_path: pathlib.Path, arguments: List[Tuple[str, str]],
            scenario: str, wall_limit: float, stress: int,
            sigterm_timeout: Optional[float]) -> Dict[str, object]:
    """Observer (and hogs) up, launch until the stop, everything down; the summary."""
    status_path = os.path.join(folder, "observer_status.json")
    observer_json = os.path.join(folder, "observer.json")
    hogs = start_hogs(stress)
    observer = start_observer(scenario, observer_json, status_path=status_path,
                              log_path=os.path.join(folder, "observer.log"),
                              pose_topic=pose_topic_of(arguments))
    try:
        if not wait_ready(status_path, observer):
            raise SetupError("the observer did not start: "
                             + log_tail(os.path.join(folder, "observer.log")))
        started = time.monotonic()
        record, stopper, code, shutdown_s = run_launch(launch_path, arguments, status_path,
                                                       wall_limit, sigterm_timeout)
        wall_s = time.monotonic() - started
        report = stop_observer(observer, observer_json)
    finally:
        if observer.poll() is None:
            observer.kill()
            observer.wait()
        stop_hogs(hogs)
    return summarize(launch_path, arguments, scenario, report, record, stopper, code,
                     shutdown_s, wall_s, stress)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orca_ros.launch_run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("launch_file", help="a launch file, or its name in orca_ros's share/launch")
    parser.add_argument("launch_arguments", nargs="*", metavar="name:=value")
    parser.add_argument("--observer", default=None, metavar="SCENARIO",
                        help="scenario the observer checks (default: the scenario:= argument)")
    parser.add_argument("--json", default=None, help="write the summary here")
    parser.add_argument("--wall-limit", type=float, default=300.0,
                        help="shut down after this many wall seconds (default 300)")
    parser.add_argument("--stress", type=int, default=0, metavar="N",
                        help="run N busy-loop processes alongside")
    parser.add_argument("--sigterm-timeout", type=float, default=None, metavar="S",
                        help="seconds from launch's SIGINT to its SIGTERM (launch's default: 5)")
    parser.add_argument("--keep", default=None, metavar="DIR",
                        help="keep the observer's files here (default: a temporary folder)")
    args = parser.parse_intermixed_args(argv)
    try:
        summary = run(args.launch_file, args.launch_arguments, args.json, args.observer,
                      args.wall_limit, args.stress, args.keep, args.sigterm_timeout)
    except SetupError as error:
        print(f"launch_run: {error}", file=sys.stderr)
        return 2
    print(summary_text(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
