"""Where a node process's CPU goes, callback by callback: the CPU time (the main
thread's, ``time.thread_time``) and the number of calls of every subscription's and
timer's callback, for finding what a robot costs in a running fleet.

Off unless the environment names a folder in :data:`ENVIRONMENT`
(``ORCA_ROS_CALLBACK_CPU=/tmp/cpu``): then :class:`~.ros_common.GuardedCallbacks`
times each callback it guards (about 1 us a call), and at exit the process writes
``<folder>/<pid>.json``: its callbacks' figures, its whole CPU time (every thread: the
DDS middleware's own receive threads are the rest), its main thread's, and its wall
time. ``orca-ros bench-ros --callback-cpu`` sets it for the fleet's robot processes
and prints :func:`callback_table` of what they wrote.

Light on purpose (every node imports it as it starts): no rclpy, no numpy, no json
until the figures are written.
"""

from __future__ import annotations

import atexit
import functools
import os
import time
from typing import Callable, Dict, Iterable, List, Optional

ENVIRONMENT = "ORCA_ROS_CALLBACK_CPU"


class CallbackCpu:
    """The process's callback figures: ``{key: [calls, cpu_ns]}``."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.figures: Dict[str, List[int]] = {}
        self.started = time.monotonic()

    def timed(self, callback: Callable, key: str) -> Callable:
        """``callback``, its calls counted and its CPU time added under ``key``; its
        signature is the callback's (rclpy hands a timer's callback its TimerInfo only
        if the callback takes an argument)."""
        entry = self.figures.setdefault(key, [0, 0])
        clock = time.thread_time_ns

        @functools.wraps(callback)
        def timed(*args):
            start = clock()
            try:
                return callback(*args)
            finally:
                entry[0] += 1
                entry[1] += clock() - start
        return timed

    def record(self) -> Dict[str, object]:
        """What the process writes at exit (see the module)."""
        return {"pid": os.getpid(), "wall_s": time.monotonic() - self.started,
                "process_cpu_s": time.process_time(), "main_thread_cpu_s": time.thread_time(),
                "callbacks": {key: {"calls": calls, "cpu_s": ns * 1e-9}
                              for key, (calls, ns) in self.figures.items()}}

    def write(self) -> None:
        import json  # only when the process ends: a node starts without it

        os.makedirs(self.folder, exist_ok=True)
        path = os.path.join(self.folder, f"{os.getpid()}.json")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(self.record(), out)


_accounting: Optional[CallbackCpu] = None


def accounting() -> Optional[CallbackCpu]:
    """The process's :class:`CallbackCpu` (made, and written at exit, on first asking)
    when :data:`ENVIRONMENT` names a folder; None otherwise."""
    global _accounting
    if _accounting is None and os.environ.get(ENVIRONMENT):
        _accounting = CallbackCpu(os.environ[ENVIRONMENT])
        atexit.register(_accounting.write)
    return _accounting


def callback_rows(records: Iterable[Dict[str, object]], robots: int) -> List[Dict[str, object]]:
    """The callbacks of some processes (their :meth:`CallbackCpu.record`), that ran
    ``robots`` robots between them, summed: per callback its calls a second per robot,
    its CPU per call (us) and its share of the processes' CPU; then the main thread's
    CPU outside the callbacks (the executor: waiting, taking each message, dispatching)
    and the other threads' (the middleware's), most CPU first within each part."""
    records = list(records)
    process = sum(r["process_cpu_s"] for r in records)
    main = sum(r["main_thread_cpu_s"] for r in records)
    wall = max((r["wall_s"] for r in records), default=0.0)
    sums: Dict[str, List[float]] = {}
    for record in records:
        for key, figure in record["callbacks"].items():
            entry = sums.setdefault(key, [0, 0.0])
            entry[0] += figure["calls"]
            entry[1] += figure["cpu_s"]
    if process <= 0.0 or wall <= 0.0 or robots <= 0:
        return []
    rows = [{"part": key, "calls_per_robot_s": calls / wall / robots,
             "us_per_call": cpu / calls * 1e6 if calls else None, "share": cpu / process}
            for key, (calls, cpu) in sorted(sums.items(), key=lambda kv: -kv[1][1])]
    inside = sum(cpu for _, cpu in sums.values())
    rows.append({"part": "main thread outside the callbacks", "calls_per_robot_s": None,
                 "us_per_call": None, "share": (main - inside) / process})
    rows.append({"part": "other threads", "calls_per_robot_s": None, "us_per_call": None,
                 "share": (process - main) / process})
    return rows


def callback_table(rows: Iterable[Dict[str, object]]) -> str:
    """:func:`callback_rows` as a Markdown table."""
    def number(value, fmt):
        return "-" if value is None else fmt.format(value)
    lines = ["| where | calls/s per robot | CPU µs per call | share of CPU |",
             "|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['part']} | {number(r['calls_per_robot_s'], '{:.1f}')} "
                     f"| {number(r['us_per_call'], '{:.1f}')} | {r['share']:.1%} |")
    return "\n".join(lines)
