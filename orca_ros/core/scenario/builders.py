"""Scenarios built in code: robots on a circle (fleet timing), dense crowds past blocks,
any scenario with linked pairs added, and aerial robots in 3D.

``orca-ros bench-ros`` runs :func:`circle_scenario_yaml` (or :func:`pairs_scenario_yaml`,
``--layout pairs``); the README's crowd
table runs :func:`block_crowd_scenario` (written to YAML, then ``orca-ros bench``);
``orca-ros link-pairs`` writes :func:`with_link_pairs`. The built-in 3D scenarios
``sphere_swap_3d`` and ``two_layers_crossing_3d`` were written by
:func:`sphere_swap_scenario` and :func:`two_layers_scenario`; :func:`rvo2_3d_sphere_scenario`
is RVO2-3D's own Sphere example at its size.
"""

from __future__ import annotations

import copy
import math
import random
from typing import List, Optional, Tuple

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


def pairs_scenario_yaml(robots: int, spacing_m: float = 12.0, swap_m: float = 4.0,
                        legs: int = 5, radius_m: float = 0.2, speed: float = 0.5,
                        time_step: float = 0.1, max_time: float = 120.0) -> str:
    """A scenario: ``robots`` robots in pairs spread over a floor, the pairs' centres on a
    square grid ``spacing_m`` apart, each pair swapping across ``swap_m`` and back,
    ``legs`` crossings in all, about 10 s each (an odd robot crosses alone). With the
    circle's 4 m ``neighbor_dist`` a robot meets its partner only, where on the circle
    every robot meets every other at the centre: the floor where neighbour cells
    (``neighbor_cell_size``) should pay."""
    pairs = (robots + 1) // 2
    side = max(1, math.ceil(math.sqrt(pairs)))
    lines = [f"name: pairs_{robots}", f"time_step: {time_step}", f"max_time: {max_time}",
             "on_goal: stay",
             f"defaults: {{radius: {radius_m}, max_speed: {speed}, pref_speed: {speed * 0.8}, "
             "neighbor_dist: 4.0, max_neighbors: 10, time_horizon: 3.0, time_horizon_obst: 1.0}",
             "agents:"]
    half = 0.5 * swap_m
    for k in range(robots):
        pair, second = divmod(k, 2)
        cx, cy = spacing_m * (pair % side), spacing_m * (pair // side)
        dy = 0.1 if second else -0.1  # (not exactly head-on)
        x0, x1 = (cx + half, cx - half) if second else (cx - half, cx + half)
        ends = [f"[{(x1, x0)[leg % 2]:.4f}, {cy + dy:.4f}]" for leg in range(legs)]
        waypoints = f", waypoints: [{', '.join(ends[:-1])}]" if legs > 1 else ""
        lines.append(f"  - {{name: r{k}, start: [{x0:.4f}, {cy + dy:.4f}]{waypoints}, "
                     f"goal: {ends[-1]}}}")
    lines.append("obstacles: []")
    return "\n".join(lines) + "\n"


FLEET_LAYOUTS = {"circle": circle_scenario_yaml, "pairs": pairs_scenario_yaml}
"""``orca-ros bench-ros --layout``: the scenario of N robots each builds."""


BLOCK_CROWDS = ("stream", "cross", "converge")


BLOCK_CROWD_MAX_TIME = {"stream": 120.0, "cross": 200.0, "converge": 270.0}
"""Seconds a block crowd runs: twice holonomic ORCA's slowest makespan over seeds 1-8,
rounded up to 10 s (stream 57.2 s, cross 98.2 s, converge 131.7 s; ``orca-ros bench``
of ``block_crowd_scenario(variant, seed=k)``, k = 1..8)."""


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
    ``max_time`` (:data:`BLOCK_CROWD_MAX_TIME`) is about twice the slowest of
    holonomic ORCA's makespans over seeds 1-8, rounded up to 10 s, as the public
    scenarios allow about twice their reference run's makespan (RVO2, the usual
    reference, leaves agents overlapping and short of their goals here).
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
        "time_step": 0.05, "max_time": BLOCK_CROWD_MAX_TIME[variant],
        "on_goal": "remove", "goal_tolerance": 1.25,
        "defaults": {"radius": 0.5, "max_speed": 1.33, "pref_speed": 1.3, "neighbor_dist": 10.0,
                     "max_neighbors": 10, "time_horizon": 2.0, "time_horizon_obst": 2.0},
        "agents": [{"name": f"a{k}", "start": [round(s[0], 3), round(s[1], 3)],
                    "goal": [g[0], g[1]]} for k, (s, g) in enumerate(plan)],
        "obstacles": [{"vertices": b} for b in blocks],
    }


DEFAULT_LINK_LENGTH_FACTOR = 3.0
"""``max_length`` of an added link, in combined radii of its pair (a tether a robot's
diameter longer than the gap of two robots side by side, for equal radii)."""


def link_pairs(scenario, length_factor: float = DEFAULT_LINK_LENGTH_FACTOR,
               max_length: Optional[float] = None) -> List[Tuple[str, str, float]]:
    """Pairs of ``scenario``'s agents a tether can join: ``(a, b, max_length)``.

    A tether must hold at both ends of the run, so a pair qualifies when the
    agents' starts and their goals are both within ``max_length`` (given, or
    ``length_factor`` times their combined radius). Closest pairs first (by the
    farther of the two distances), each agent in one pair at most, agents
    already in one of the scenario's links left out. Greedy, not a maximum
    matching: it keeps the tightest pairs, which is what makes a tether plausible.
    """
    linked = {name for link in scenario.links for name in link.agents}
    agents = [a for a in scenario.agents if a.name not in linked]
    candidates = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            length = max_length if max_length is not None else \
                length_factor * (a.radius + b.radius)
            apart = max(math.dist(a.start, b.start), math.dist(a.goal, b.goal))
            if apart <= length:
                candidates.append((apart, a.name, b.name, length))
    candidates.sort()
    taken, pairs = set(), []
    for _, a, b, length in candidates:
        if a not in taken and b not in taken:
            taken.update((a, b))
            pairs.append((a, b, length))
    return pairs


def with_link_pairs(raw: dict, where: str, length_factor: float = DEFAULT_LINK_LENGTH_FACTOR,
                    max_length: Optional[float] = None) -> Tuple[dict, int]:
    """The scenario ``raw`` (its YAML as read) with :func:`link_pairs` appended to its
    ``links:``, and how many pairs were added. The result is loaded once more, so it
    is a valid scenario (a public scenario with links, for the linked-robots table)."""
    from .loader import parse_scenario

    if length_factor <= 0.0 or (max_length is not None and max_length <= 0.0):
        raise ValueError("the link length (--length-factor, --max-length) must be positive")
    pairs = link_pairs(parse_scenario(raw, where), length_factor, max_length)
    linked = copy.deepcopy(raw)
    linked["links"] = list(linked.get("links") or []) + [
        {"agents": [a, b], "max_length": round(length, 6)} for a, b, length in pairs]
    parse_scenario(linked, where)
    return linked, len(pairs)


def sphere_swap_scenario(sphere_radius: float = 6.0, ring_step: float = 0.35,
                         ring_spacing: float = 2.1, radius: float = 0.3,
                         max_speed: float = 1.5, pref_speed: float = 1.0,
                         neighbor_dist: float = 5.0, max_neighbors: int = 10,
                         time_horizon: float = 2.0, time_step: float = 0.1,
                         max_time: float = 60.0, goal_tolerance: Optional[float] = None,
                         name: str = "sphere_swap_3d") -> dict:
    """Aerial robots on a sphere fly to the antipodes, laid out as RVO2-3D's Sphere
    example lays them (``examples/Sphere.cc``): rings at polar angles ``k ring_step``
    (``k ring_step < pi``) of radius ``r = R sin(k ring_step)``, on each ring about
    ``2 pi r / ring_spacing`` robots; every goal is minus the start. All pass near
    the centre at once. Sphere.cc puts ``ceil(2 pi r / ring_spacing)`` robots at
    azimuths ``j ring_spacing / r``, which on some rings leaves the last robot
    overlapping the first; here the count is rounded and the robots are spread
    evenly round the ring.
    """
    per_radian = ring_spacing / (2.0 * math.pi)
    agents = []
    k = 0
    while k * ring_step < math.pi:
        z = sphere_radius * math.cos(k * ring_step)
        ring = sphere_radius * math.sin(k * ring_step)
        count = round(ring / per_radian) if ring > 0.0 else 0
        for j in range(count):
            azimuth = j * 2.0 * math.pi / count
            start = [round(ring * math.cos(azimuth), 4), round(ring * math.sin(azimuth), 4),
                     round(z, 4)]
            agents.append({"name": f"d{len(agents)}", "start": start,
                           "goal": [-c + 0.0 for c in start]})
        k += 1
    scenario = {
        "name": name, "source": "orca_ros",
        "description": f"{len(agents)} aerial robots on a {sphere_radius:g} m sphere (RVO2-3D's "
                       f"Sphere layout) fly to the antipodes.",
        "dimensions": 3, "time_step": time_step, "max_time": max_time, "on_goal": "stay",
        "defaults": {"radius": radius, "max_speed": max_speed, "pref_speed": pref_speed,
                     "neighbor_dist": neighbor_dist, "max_neighbors": max_neighbors,
                     "time_horizon": time_horizon},
        "agents": agents,
    }
    if goal_tolerance is not None:
        scenario["goal_tolerance"] = goal_tolerance
    return scenario


def rvo2_3d_sphere_scenario() -> dict:
    """RVO2-3D's Sphere example (snape/RVO2-3D ``examples/Sphere.cc``) at its own size, the
    robots spread evenly round each ring (:func:`sphere_swap_scenario`; as Sphere.cc
    places them, some start overlapping, which the loader refuses): agents of radius 1.5
    on a sphere of radius 100, rings 0.1 rad apart with one agent per 2.5 m of ring
    radius, time step 0.125 s, neighbour distance 15, 10 neighbours, time horizon 10 s,
    top speed 2, preferred speed 1; the example stops when every agent is within two
    radii of its goal (goal tolerance 3 m)."""
    return sphere_swap_scenario(
        sphere_radius=100.0, ring_step=0.1, ring_spacing=2.5 * 2.0 * math.pi, radius=1.5,
        max_speed=2.0, pref_speed=1.0, neighbor_dist=15.0, max_neighbors=10,
        time_horizon=10.0, time_step=0.125, max_time=600.0, goal_tolerance=3.0,
        name="rvo2_3d_sphere")


def two_layers_scenario(grid: int = 4, spacing: float = 1.2, layer_gap: float = 4.0,
                        shift: float = 6.0, radius: float = 0.25, max_speed: float = 1.5,
                        pref_speed: float = 1.0, time_step: float = 0.1,
                        max_time: float = 60.0, name: str = "two_layers_crossing_3d") -> dict:
    """Two horizontal layers of ``grid`` x ``grid`` aerial robots, ``layer_gap`` apart in
    height, swap heights while sliding ``shift`` past each other along x (the upper layer
    to +x, the lower to -x): the layers cross through each other on the way."""
    agents = []
    half = (grid - 1) * spacing / 2.0
    for layer, (z0, z1, dx) in enumerate(((layer_gap / 2, -layer_gap / 2, shift / 2),
                                          (-layer_gap / 2, layer_gap / 2, -shift / 2))):
        for i in range(grid):
            for j in range(grid):
                x, y = -half + i * spacing, -half + j * spacing
                agents.append({"name": f"{'up' if layer == 0 else 'lo'}{i}{j}",
                               "start": [round(x - dx, 4), round(y, 4), z0],
                               "goal": [round(x + dx, 4), round(y, 4), z1]})
    return {
        "name": name, "source": "orca_ros",
        "description": f"Two layers of {grid * grid} aerial robots swap heights "
                       f"({layer_gap:g} m apart) while sliding {shift:g} m past each other: "
                       f"the layers cross.",
        "dimensions": 3, "time_step": time_step, "max_time": max_time, "on_goal": "stay",
        "defaults": {"radius": radius, "max_speed": max_speed, "pref_speed": pref_speed,
                     "neighbor_dist": 5.0, "max_neighbors": 10, "time_horizon": 2.0},
        "agents": agents,
    }
