"""Scenarios built in code: robots on a circle (fleet timing), and dense crowds past blocks.

``orca-ros bench-ros`` runs :func:`circle_scenario_yaml`; the README's crowd
table runs :func:`block_crowd_scenario` (written to YAML, then ``orca-ros bench``).
"""

from __future__ import annotations

import math
import random
from typing import List, Tuple

def circle_scenario_yaml(robots: int, radius_m: float = 0.2, speed: float = 0.5,
                         time_step: float = 0.1, max_time: float = 120.0) -> str:
    """A scenario: ``robots`` robots evenly on a circle (1 m of arc each) swap to antipodes."""
    circle = max(1.5, robots * 1.0 / (2 * math.pi))
    lines = [f"name: circle_{robots}", f"time_step: {time_step}", f"max_time: {max_time}",
             "on_goal: stay",
             f"defaults: {{radius: {radius_m}, max_speed: {speed}, pref_speed: {speed * 0.8}, "
             "neighbor_dist: 4.0, max_neighbors: 10, time_horizon: 3.0, time_horizon_obst: 1.0}",
             "agents:"]
    for k in range(robots):
        a = 2 * math.pi * k / robots
        x, y = circle * math.cos(a), circle * math.sin(a)
        lines.append(f"  - {{name: r{k}, start: [{x:.4f}, {y:.4f}], goal: [{-x:.4f}, {-y:.4f}]}}")
    lines.append("obstacles: []")
    return "\n".join(lines) + "\n"


BLOCK_CROWDS = ("stream", "cross", "converge")


def block_crowd_scenario(variant: str = "stream", agents: int = 100, seed: int = 1) -> dict:
    """A dense crowd flowing between and around a 3 x 3 grid of square blocks, with shared goals.

    The blocks are 3 m squares 6 m apart (3 m lanes). ``stream``: every agent
    starts left of the blocks and heads for one of three goal points right of
    them. ``cross``: half come from the left, half from below, through the
    same lanes. ``converge``: agents come from three sides to two goal points
    just beside the central block, where the crowd presses against its walls.
    Agents are SteerSuite-sized (radius 0.5 m, 1.33 m/s) and leave at their
    goal (``on_goal: remove``, tolerance 1.25 m), as in the SteerSuite
    scenarios. Starts sit on a jittered 1.25 m grid, drawn with ``seed``.
    """
    if variant not in BLOCK_CROWDS:
        raise ValueError(f"variant must be one of {BLOCK_CROWDS}, got {variant!r}")
    rng = random.Random(seed)

    def region(x0: float, x1: float, y0: float, y1: float) -> List[Tuple[float, float]]:
        step = 1.25
        cells = [(x0 + (i + 0.5) * step, y0 + (j + 0.5) * step)
                 for i in range(int((x1 - x0) / step)) for j in range(int((y1 - y0) / step))]
        rng.shuffle(cells)
        return [(x + rng.uniform(-0.1, 0.1), y + rng.uniform(-0.1, 0.1)) for x, y in cells]

    left, below, above = region(-21.0, -10.0, -9.0, 9.0), region(-9.0, 9.0, -21.0, -10.0), \
        region(-9.0, 9.0, 10.0, 21.0)
    plan: List[Tuple[Tuple[float, float], Tuple[float, float]]] = []
    for k in range(agents):
        if variant == "stream":
            plan.append((left[k], (14.0, rng.choice((-6.0, 0.0, 6.0)))))
        elif variant == "cross":
            if k % 2 == 0:
                plan.append((left[k // 2], (14.0, rng.choice((-3.0, 3.0)))))
            else:
                plan.append((below[k // 2], (rng.choice((-3.0, 3.0)), 14.0)))
        else:
            source = (left, below, above)[k % 3]
            plan.append((source[k // 3], rng.choice(((3.0, 0.0), (0.0, 3.0)))))
    blocks = [[[cx - 1.5, cy - 1.5], [cx + 1.5, cy - 1.5], [cx + 1.5, cy + 1.5],
               [cx - 1.5, cy + 1.5]] for cx in (-6.0, 0.0, 6.0) for cy in (-6.0, 0.0, 6.0)]
    return {
        "name": f"crowd_blocks_{variant}", "source": "orca_ros",
        "description": block_crowd_scenario.__doc__.split("\n\n")[0].strip() +
        f" Variant {variant}, {agents} agents, seed {seed}.",
        "time_step": 0.05, "max_time": 120.0, "on_goal": "remove", "goal_tolerance": 1.25,
        "defaults": {"radius": 0.5, "max_speed": 1.33, "pref_speed": 1.3, "neighbor_dist": 10.0,
                     "max_neighbors": 10, "time_horizon": 2.0, "time_horizon_obst": 2.0},
        "agents": [{"name": f"a{k}", "start": [round(s[0], 3), round(s[1], 3)],
                    "goal": [g[0], g[1]]} for k, (s, g) in enumerate(plan)],
        "obstacles": [{"vertices": b} for b in blocks],
    }
