"""What a node costs to start: whole-process CPU time and peak memory.

Each program runs in a fresh Python process (the bytecode compiled first, as an install
leaves it); :func:`os.wait4` gives the child's user + system CPU time, and the program
reports its own peak resident memory (``VmHWM``) as it ends. Three programs, so the
node's own share can be read off:

- ``empty``: rclpy, one node with nothing on it: what any rclpy node costs here;
- ``floor``: rclpy, numpy and the message packages orca_node uses, one node with the
  same publishers and subscriptions as a default orca_node: the libraries' share;
- ``orca_node``: import :mod:`orca_ros.nodes.orca_node` and make one node with its
  defaults (the ``orca`` method).

Every program makes its node, then ends; no spinning, so the figure is the start alone.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Dict, List, Sequence

EMPTY = """\
import rclpy
rclpy.init()
node = rclpy.create_node("start_cost_empty")
node.destroy_node()
rclpy.shutdown()
"""

FLOOR = """\
import numpy
import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PolygonStamped, PoseStamped, Twist
from nav_msgs.msg import Odometry, Path
from sensor_msgs.msg import LaserScan
from std_msgs.msg import Float64
from visualization_msgs.msg import MarkerArray
rclpy.init()
node = rclpy.create_node("start_cost_floor")
node.create_publisher(Twist, "cmd_vel", 10)
node.create_publisher(DiagnosticArray, "/diagnostics", 10)
node.create_publisher(MarkerArray, "orca/markers", 10)
node.create_publisher(PolygonStamped, "orca/footprint", 10)
node.create_publisher(Path, "orca/plan", 10)
node.create_publisher(Float64, "orca/speed", 10)
node.create_subscription(Odometry, "odom", lambda m: None, 10)
node.create_subscription(Odometry, "/orca/states", lambda m: None, 10)
node.create_subscription(PoseStamped, "goal_pose", lambda m: None, 10)
node.create_subscription(LaserScan, "scan", lambda m: None, 10)
node.destroy_node()
rclpy.shutdown()
"""

ORCA_NODE = """\
import rclpy
import orca_ros.nodes.orca_node as orca_node
rclpy.init()
node = orca_node.OrcaNode()
node.destroy_node()
rclpy.shutdown()
"""

PROGRAMS: Dict[str, str] = {"empty": EMPTY, "floor": FLOOR, "orca_node": ORCA_NODE}


@dataclass(frozen=True)
class StartCost:
    """One program's figures over its runs: median and largest CPU seconds and peak MB."""

    program: str
    runs: int
    cpu_s_median: float
    cpu_s_max: float
    rss_mb_median: float
    rss_mb_max: float


# Printed by every program as it ends: its own peak memory. The rusage's ru_maxrss
# would not do: Linux carries a process's peak across exec, so a child forked from a
# large parent (a test run) would report the parent's size.
PEAK = """
for _line in open("/proc/self/status"):
    if _line.startswith("VmHWM:"):
        print("VmHWM_kB", _line.split()[1])
"""


def run_once(source: str, env: Dict[str, str]) -> tuple:
    """(CPU seconds, peak resident MB) of one fresh process running ``source``; a
    program that fails raises RuntimeError with its stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errors:
        child = subprocess.Popen([sys.executable, "-c", source + PEAK], env=env,
                                 stdout=out, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        errors.seek(0)
        printed, error_text = out.read().decode(errors="replace"), errors.read().decode(
            errors="replace")
    if child.returncode != 0:
        raise RuntimeError(f"start program failed ({child.returncode}): "
                           f"{error_text.strip()[-400:]}")
    peak_kb = [int(line.split()[1]) for line in printed.splitlines()
               if line.startswith("VmHWM_kB ")]
    return usage.ru_utime + usage.ru_stime, peak_kb[-1] / 1024.0


def measure(programs: Sequence[str] = tuple(PROGRAMS), runs: int = 9) -> List[StartCost]:
    """Every program ``runs`` times, interleaved (so a busy moment falls on all alike),
    after one unmeasured run each that compiles the bytecode."""
    unknown = [p for p in programs if p not in PROGRAMS]
    if unknown:
        raise ValueError(f"unknown start programs {unknown}; known: {sorted(PROGRAMS)}")
    env = dict(os.environ)
    samples: Dict[str, List[tuple]] = {p: [] for p in programs}
    for program in programs:
        run_once(PROGRAMS[program], env)
    for _ in range(runs):
        for program in programs:
            samples[program].append(run_once(PROGRAMS[program], env))
    costs = []
    for program in programs:
        cpu = [s[0] for s in samples[program]]
        rss = [s[1] for s in samples[program]]
        costs.append(StartCost(program, runs, statistics.median(cpu), max(cpu),
                               statistics.median(rss), max(rss)))
    return costs


def format_table(costs: Sequence[StartCost]) -> str:
    """The figures as a Markdown table, one row per program."""
    lines = ["| program | runs | CPU s median | CPU s max | peak MB median | peak MB max |",
             "|---|---:|---:|---:|---:|---:|"]
    for c in costs:
        lines.append(f"| {c.program} | {c.runs} | {c.cpu_s_median:.3f} | {c.cpu_s_max:.3f} | "
                     f"{c.rss_mb_median:.1f} | {c.rss_mb_max:.1f} |")
    return "\n".join(lines)
