"""Python's cycle collector set for a control loop: start-up frozen, young collections rare.

A control period allocates thousands of short-lived containers (readings, half-planes,
views, commands, messages' tuples) that die by reference counting within the period.
CPython's cycle collector counts them all the same: with its defaults it runs a young
collection every 700 allocations net of deallocations, an older one every tenth of
those, and now and then a full one that walks every object the process holds (its
modules, configuration, roadmaps, maps and the world's robots). Those collections find
next to nothing in a robot's loop, whose data holds no reference cycles, and they cost a
third of a world step at 1,000 robots (doc/results.md, "Speed").

Two remedies, both in CPython's :mod:`gc`:

- :func:`gc.freeze` once start-up is done: everything made until then moves to a
  permanent generation the collector no longer walks. Reference counting still frees
  those objects; only a cycle among them would stay.
- a young threshold of :data:`YOUNG_THRESHOLD` allocations instead of 700, so a
  collection comes every few control periods rather than several times in each, with
  the older generations' thresholds as they were. Cycles are still collected, later;
  what can wait is bounded by the threshold (a few megabytes of containers).

:func:`settle` does both for the rest of a process (the ROS executables, once their nodes
are made); :func:`steady_loop` for the span of a loop, restoring what was there (the
world's :meth:`~orca_ros.core.sim.world.ScenarioRun.run`, the benchmarks).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

YOUNG_THRESHOLD = 50_000
"""Allocations (net of deallocations) between two young collections."""


def settle(young: int = YOUNG_THRESHOLD) -> None:
    """Start-up is done: freeze what it made and make young collections rare (module
    docstring). With the collector disabled (``gc.disable()``) nothing changes."""
    if not gc.isenabled():
        return
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(max(int(young), 1), older, oldest)


@contextmanager
def steady_loop(young: int = YOUNG_THRESHOLD) -> Iterator[None]:
    """:func:`settle` for the span of a ``with`` block; on leaving it the collector's
    thresholds are as they were and the objects frozen at its start are its again."""
    thresholds = gc.get_threshold()
    already = gc.get_freeze_count()
    settle(young)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if not already:  # a process settled before keeps its frozen start-up
            gc.unfreeze()
