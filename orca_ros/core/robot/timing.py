"""When a robot's control cycles run and what they cost (no ROS): cycles and late
cycles, the odometry that starts a cycle, and the time from the odometry used to the
command sent (wall and CPU), for diagnostics and ``orca-ros bench-ros``."""

from __future__ import annotations

import collections
import contextlib
import time
from typing import Dict, Iterator, Optional, Sequence

LATE_PERIODS = 1.5  # a cycle this many periods after the previous one is late


def percentiles_ms(seconds: Sequence[float], key: str = "odom_to_cmd_ms") -> Dict[str, object]:
    """p50 and p99 of durations in seconds, as ``<key>_p50`` and ``<key>_p99`` (ms,
    rounded to 0.01; '' when there is none yet): the values at ``int(q n)`` in
    ascending order. Found by partial ordering (``numpy.partition``), not a sort: a
    robot's diagnostics ask every second over up to 10,000 latencies (about 0.1 ms
    against 0.8 ms sorted)."""
    import numpy as np

    count = len(seconds)
    if not count:
        return {f"{key}_p50": "", f"{key}_p99": ""}
    at = [min(count - 1, int(q * count)) for q in (0.5, 0.99)]
    ordered = np.partition(np.fromiter(seconds, float, count), at)
    return {f"{key}_p50": round(1e3 * float(ordered[at[0]]), 2),
            f"{key}_p99": round(1e3 * float(ordered[at[1]]), 2)}


class CycleTiming:
    """Counts and times a robot's control cycles (node clock, ns; wall and thread CPU
    clocks for the latencies)."""

    def __init__(self, keep: int = 10_000) -> None:
        self.cycles = 0
        self.late_cycles = 0  # came more than LATE_PERIODS after the previous one
        self.last_cycle_ns: Optional[int] = None
        self.trigger_stamp_ns = -(1 << 62)  # stamp of the odometry that last started a cycle
        self.odom_wall_ns = 0
        self.latencies_s: collections.deque = collections.deque(maxlen=keep)
        # CPU time of each cycle run by the own odometry's callback: how much of the wall
        # latency is the cycle's own work, garbage collection included (the rest is
        # waiting for a core).
        self.cycle_cpu_start_ns: Optional[int] = None
        self.cycle_cpu_s: collections.deque = collections.deque(maxlen=keep)

    def start(self, now_ns: int, period_ns: float, counts_late: bool = True) -> None:
        """A cycle starts at ``now_ns``; ``counts_late``: whether it may count as late
        (not while the robot waits for its first odometry)."""
        self.cycles += 1
        if self.last_cycle_ns is not None and now_ns - self.last_cycle_ns > \
                LATE_PERIODS * period_ns and counts_late:
            self.late_cycles += 1
        self.last_cycle_ns = now_ns

    def due(self, now_ns: int, periods: float, period_ns: float) -> bool:
        """Whether ``periods`` control periods have passed since the last cycle."""
        return self.last_cycle_ns is None or now_ns - self.last_cycle_ns >= periods * period_ns

    def odometry_heard(self) -> None:
        """The own odometry came now (wall clock): a command's latency counts from here."""
        self.odom_wall_ns = time.perf_counter_ns()

    def odometry_heard_within(self, wall_ns: float) -> bool:
        """Whether the own odometry came within the last ``wall_ns`` (wall clock)."""
        return self.odom_wall_ns > 0 and time.perf_counter_ns() - self.odom_wall_ns < wall_ns

    def odometry_starts(self, stamp_ns: int, spacing_ns: float) -> bool:
        """Whether odometry stamped ``stamp_ns`` starts a cycle: at least ``spacing_ns``
        after the one that started the last (by the odometry's own stamps)."""
        if stamp_ns - self.trigger_stamp_ns < spacing_ns:
            return False
        self.trigger_stamp_ns = stamp_ns
        return True

    @contextlib.contextmanager
    def cpu(self) -> Iterator[None]:
        """Around a cycle run by the own odometry's callback: its CPU time is counted."""
        self.cycle_cpu_start_ns = time.thread_time_ns()
        try:
            yield
        finally:
            self.cycle_cpu_start_ns = None

    def command_sent(self) -> None:
        """A command went out: its wall latency, and its CPU time if its odometry's
        callback ran the cycle (a watchdog cycle has no odometry of its own)."""
        self.latencies_s.append((time.perf_counter_ns() - self.odom_wall_ns) * 1e-9)
        if self.cycle_cpu_start_ns is not None:
            self.cycle_cpu_s.append((time.thread_time_ns() - self.cycle_cpu_start_ns) * 1e-9)

    def figures(self) -> Dict[str, object]:
        """The latencies' percentiles, wall (``odom_to_cmd_ms``) and CPU
        (``odom_to_cmd_cpu_ms``)."""
        return {**percentiles_ms(self.latencies_s),
                **percentiles_ms(self.cycle_cpu_s, "odom_to_cmd_cpu_ms")}
