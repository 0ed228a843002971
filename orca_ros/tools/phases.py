"""Where a world step's time goes, phase by phase (``orca-ros bench-scaling --phases``).

A profiler charges its own cost to every Python call, so it inflates the share of the
small functions the robot cycle is made of. This times the phases of one world step
instead, with a clock read on entering and leaving each: the neighbour search, the
half-planes built in a batch, each robot's inputs, and within each robot's cycle the
preferred velocity, the safety filter's constraints, the method and, for a unicycle,
tracking. Times are exclusive: a phase called inside another (the method a unicycle's
tracking asks again) counts once, in the inner phase. The clock reads cost time too,
about a microsecond per robot-step: the instrumented step is that much slower than the
plain one :func:`~orca_ros.tools.timing.scaling_benchmark` times.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Sequence, Tuple

from ..core.collector import steady_loop

PHASES: Tuple[Tuple[str, str], ...] = (
    ("neighbors", "neighbour search (k-d tree)"),
    ("batch", "half-planes of the whole crowd in a batch"),
    ("inputs", "each robot's inputs (readings handed to its cycle)"),
    ("preferred", "robot cycle: preferred velocity"),
    ("safety", "robot cycle: safety filter's constraints"),
    ("method", "robot cycle: the method (ORCA's linear programs)"),
    ("tracking", "robot cycle: tracking (unicycles)"),
    ("cycle", "robot cycle: the rest (perception, glue, the command)"),
    ("world", "the world's own (bodies, records, contacts)"),
)
"""The phases, in the order of a step: (key, what it is)."""


@dataclass(frozen=True)
class PhaseTimes:
    """One instrumented run: µs per agent-step by phase key (exclusive), their total."""

    agents: int
    kinematics: str
    steps: int
    us: Dict[str, float]

    @property
    def total_us(self) -> float:
        return sum(self.us.values())


class _Stopwatch:
    """Exclusive times of nested calls: each wrapped call's time less that of the
    wrapped calls inside it, by key."""

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = {key: 0.0 for key, _ in PHASES}
        self._inner: List[float] = []  # per open call: the time of the calls inside it

    def wrap(self, key: str, function: Callable) -> Callable:
        seconds, inner, clock = self.seconds, self._inner, time.perf_counter

        def timed(*args, **kwargs):
            inner.append(0.0)
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = clock() - start
                seconds[key] += elapsed - inner.pop()
                if inner:
                    inner[-1] += elapsed
        return timed

    def wrap_inputs(self, inputs: Callable[..., Iterator]) -> Callable[..., Iterator]:
        """A timing's ``inputs`` generator, its time between the items counted as
        ``inputs`` (less the neighbour search and the batch it calls)."""
        timed = self.wrap("inputs", next)

        def generate(*args):
            iterator = inputs(*args)
            while True:
                try:
                    item = timed(iterator)
                except StopIteration:
                    return
                yield item
        return generate


@contextmanager
def _instrumented(world, watch: _Stopwatch) -> Iterator[None]:
    """The world's phases wrapped in ``watch`` for the span of the block; the safety
    filter's class method restored after."""
    from ..core.robot.safety_filter import SafetyFilter

    world._neighbors = watch.wrap("neighbors", world._neighbors)
    if world._batch is not None:
        world._batch = watch.wrap("batch", world._batch)
    world.timing.inputs = watch.wrap_inputs(world.timing.inputs)
    for cycle in world.cycles:
        cycle.step = watch.wrap("cycle", cycle.step)
        controller = cycle.controller
        controller.preferred.step = watch.wrap("preferred", controller.preferred.step)
        controller._run_method = watch.wrap("method", controller._run_method)
        controller.tracking.command = watch.wrap("tracking", controller.tracking.command)
    constraints = SafetyFilter.constraints
    SafetyFilter.constraints = watch.wrap("safety", constraints)
    try:
        yield
    finally:
        SafetyFilter.constraints = constraints


def world_phases(count: int, steps: int = 30, kinematics: str = "holonomic",
                 method: str = "orca") -> PhaseTimes:
    """Time the phases of ``steps`` world steps of ``count`` agents on
    :func:`~orca_ros.tools.timing.scaling_benchmark`'s circle, after one of warm-up."""
    from ..core.sim.world import World, WorldOptions
    from .timing import _crowd_circle

    world = World(_crowd_circle(count), WorldOptions(method=method, kinematics=kinematics))
    world.step()
    watch = _Stopwatch()
    with _instrumented(world, watch), steady_loop():
        step = watch.wrap("world", world.step)
        for _ in range(steps):
            step()
    scale = 1e6 / steps / count
    return PhaseTimes(count, kinematics, steps,
                      {key: watch.seconds[key] * scale for key, _ in PHASES})


def format_phases(runs: Sequence[PhaseTimes]) -> str:
    """One column per run: µs per agent-step by phase, and the instrumented total."""
    heads = " | ".join(f"{r.agents} {r.kinematics}" for r in runs)
    lines = [f"| phase (µs per agent-step) | {heads} |",
             "|---|" + "---:|" * len(runs)]
    for key, label in PHASES:
        lines.append(f"| {label} | " + " | ".join(f"{r.us[key]:.1f}" for r in runs) + " |")
    lines.append("| total, instrumented | " + " | ".join(f"{r.total_us:.1f}" for r in runs)
                 + " |")
    return "\n".join(lines)
