"""Timing benchmarks of the ORCA core, beside the RVO2 reference through pyrvo.

Nothing here is asserted in tests: the figures go into the README with the
command that produced them (``orca-ros bench-step``, ``orca-ros bench-scaling``).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence

from .core import AgentState, NeighborState, Segment, build_obstacle_edges, compute_new_velocity

try:  # the reference library is optional
    import pyrvo
except ImportError:  # pragma: no cover - depends on the environment
    pyrvo = None


@dataclass
class StepTiming:
    neighbors: int
    segments: int
    median_us: float
    p99_us: float
    rvo2_median_us: Optional[float]
    rvo2_p99_us: Optional[float]

    @property
    def ratio(self) -> Optional[float]:
        return self.median_us / self.rvo2_median_us if self.rvo2_median_us else None


def _percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(math.ceil(q * len(ordered))) - 1)]


def random_step_case(rng: random.Random, num_neighbors: int, num_segments: int):
    """An agent at the origin with neighbours in a 0.8-6 m ring and segments within reach."""
    agent = AgentState(position=(0.0, 0.0), velocity=(rng.uniform(-1, 1), rng.uniform(-1, 1)),
                       radius=0.3, max_speed=1.5, pref_velocity=(1.2, 0.0), time_horizon=2.0,
                       time_horizon_obst=2.0, neighbor_dist=10.0,
                       max_neighbors=max(num_neighbors, 1))
    neighbors = []
    for _ in range(num_neighbors):
        distance, bearing = rng.uniform(0.8, 6.0), rng.uniform(-math.pi, math.pi)
        neighbors.append(NeighborState(
            (distance * math.cos(bearing), distance * math.sin(bearing)),
            (rng.uniform(-1, 1), rng.uniform(-1, 1)), 0.3))
    segments = []
    for k in range(num_segments):
        bearing = 2 * math.pi * k / max(num_segments, 1)
        distance = rng.uniform(1.2, 3.0)
        cx, cy = distance * math.cos(bearing), distance * math.sin(bearing)
        tx, ty = -math.sin(bearing) * 0.4, math.cos(bearing) * 0.4  # tangent, 0.8 m long
        segments.append(Segment((cx - tx, cy - ty), (cx + tx, cy + ty)))
    return agent, neighbors, segments


def _time_ours(agent, neighbors, edges, repeats: int) -> List[float]:
    samples = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        start = clock()
        compute_new_velocity(agent, neighbors, edges, 0.1)
        samples.append((clock() - start) / 1000.0)
    return samples


def _time_rvo2(agent, neighbors, segments, repeats: int) -> List[float]:
    """RVO2 per agent: one ``doStep`` of the subject and its neighbours, divided by their number.

    Every agent in that step sees the same crowd, so the quotient is RVO2's
    cost of one ``computeNewVelocity`` (its k-d tree rebuild and the Python
    call shared out among them).
    """
    sim = pyrvo.RVOSimulator(0.1, agent.neighbor_dist, agent.max_neighbors, agent.time_horizon,
                             agent.time_horizon_obst, agent.radius, agent.max_speed)
    states = [(agent.position, agent.velocity)] + [(n.position, n.velocity) for n in neighbors]
    for position, velocity in states:
        index = sim.add_agent(position)
        sim.set_agent_velocity(index, velocity)
        sim.set_agent_pref_velocity(index, agent.pref_velocity)
    for segment in segments:
        sim.add_obstacle([segment.a, segment.b])
    sim.process_obstacles()
    samples = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        for index, (position, velocity) in enumerate(states):
            sim.set_agent_position(index, position)
            sim.set_agent_velocity(index, velocity)
        start = clock()
        sim.do_step()
        samples.append((clock() - start) / 1000.0 / len(states))
    return samples


def step_benchmark(neighbor_counts: Sequence[int] = (0, 5, 10, 20), num_segments: int = 10,
                   cases: int = 100, repeats: int = 50, seed: int = 1) -> List[StepTiming]:
    """Median and p99 time of one ``compute_new_velocity`` call, and RVO2's beside it."""
    rng = random.Random(seed)
    results = []
    for count in neighbor_counts:
        ours: List[float] = []
        theirs: List[float] = []
        for _ in range(cases):
            agent, neighbors, segments = random_step_case(rng, count, num_segments)
            edges = build_obstacle_edges(segments)
            ours.extend(_time_ours(agent, neighbors, edges, repeats))
            if pyrvo is not None:
                theirs.extend(_time_rvo2(agent, neighbors, segments, repeats))
        results.append(StepTiming(
            count, num_segments, statistics.median(ours), _percentile(ours, 0.99),
            statistics.median(theirs) if theirs else None,
            _percentile(theirs, 0.99) if theirs else None))
    return results


def format_step_table(results: Sequence[StepTiming]) -> str:
    lines = ["| neighbours | segments | median µs | p99 µs | RVO2 median µs | RVO2 p99 µs | ratio (median) |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        rvo2 = (f"{r.rvo2_median_us:.2f} | {r.rvo2_p99_us:.2f} | {r.ratio:.1f}x"
                if r.rvo2_median_us else "n/a | n/a | n/a")
        lines.append(f"| {r.neighbors} | {r.segments} | {r.median_us:.1f} | {r.p99_us:.1f} | {rvo2} |")
    return "\n".join(lines)
