"""What a run measured: exact collision accounting and a fleet's ground-truth record.

:class:`CollisionLedger` counts overlaps and :class:`LinkLedger` crossed and
over-stretched links for the world (``orca-ros bench``) and, inside
:class:`FleetRecord`, for fleet_sim and toio_bridge (``orca-ros sim``), so
both report the same figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np
from scipy.spatial import cKDTree

from ..geometry.polygons import PolygonIndex, points_polygon_signed_distance
from ..methods.links import disc_crosses_moving_segment
from ..scenario.loader import Scenario
from .motion_quality import MotionQuality, RobotTrack, RouteProgress, fleet_motion_quality

INDEXED_OUTLINES = 64
"""Above this many walls, each robot is judged only against those a spatial index finds
near it (and its nearest); the figures are the same."""

OVERLAP_TOLERANCE = 1e-6
"""Overlaps deeper than this (m) count as collisions; touching does not."""


@dataclass
class CollisionLedger:
    """Exact collision accounting over a run.

    A pair of agents collides when their centres are closer than the sum of
    their radii by more than :data:`OVERLAP_TOLERANCE`; an agent collides with
    an obstacle when its centre is closer to the polygon than its radius by
    more than that (or inside it). Distinct pairs are counted once; the
    deepest penetration and the smallest separation are kept. ``pairs`` holds
    both kinds (``(robot, "obstacle<k>")`` for a wall); ``wall_pairs``,
    ``deepest_wall`` and ``min_wall_gap`` are the walls' share of them. With an
    ``occupancy`` map, a robot also collides with the map where it overlaps an occupied
    cell, judged on the grid itself (``(robot, "map")``): the map's walls are segments
    within a cell of the cells, and contact is what the cells say.
    """

    pairs: Set[Tuple[str, str]] = field(default_factory=set)
    deepest: float = 0.0
    min_separation: float = math.inf
    points: List[Tuple[float, float]] = field(default_factory=list)
    wall_pairs: Set[Tuple[str, str]] = field(default_factory=set)
    deepest_wall: float = 0.0
    min_wall_gap: float = math.inf
    occupancy: Optional[object] = None  # an OccupancyMap whose occupied cells are walls too
    _index: Optional[tuple] = field(default=None, repr=False)

    def update(self, positions: np.ndarray, radii: np.ndarray, names: Sequence[str],
               obstacles: Sequence[np.ndarray]) -> None:
        n = len(positions)
        if n == 0:
            return
        if n > 1:
            reach = 2.0 * float(radii.max()) + 1.0
            pairs = cKDTree(positions).query_pairs(reach, output_type="ndarray")
            if len(pairs):
                i, j = pairs[:, 0], pairs[:, 1]
                gap = np.linalg.norm(positions[i] - positions[j], axis=1) - radii[i] - radii[j]
                self.min_separation = min(self.min_separation, float(gap.min()))
                for k in np.flatnonzero(gap < -OVERLAP_TOLERANCE):
                    a, b = sorted((names[i[k]], names[j[k]]))
                    self.pairs.add((a, b))
                    self.deepest = max(self.deepest, float(-gap[k]))
                    self.points.append(tuple((positions[i[k]] + positions[j[k]]) / 2.0))
        if len(obstacles) > INDEXED_OUTLINES:
            robot, outline = self._outline_index(obstacles).candidates(positions, radii)
            for index in np.unique(outline):
                near = robot[outline == index]
                gap = points_polygon_signed_distance(positions[near], obstacles[index]) - \
                    radii[near]
                self._wall_gaps(gap, positions[near], [names[k] for k in near],
                                f"obstacle{index}")
        else:
            for index, polygon in enumerate(obstacles):
                gap = points_polygon_signed_distance(positions, polygon) - radii
                self._wall_gaps(gap, positions, names, f"obstacle{index}")
        if self.occupancy is not None:
            gap = self.occupancy.occupied_distance(positions, float(radii.max()) + 1.0) - radii
            self._wall_gaps(gap, positions, names, "map")

    def _wall_gaps(self, gap: np.ndarray, positions: np.ndarray, names: Sequence[str],
                   wall: str) -> None:
        """Robots' gaps to one wall (``obstacle<k>``, or ``map``: the occupied cells)."""
        self.min_separation = min(self.min_separation, float(gap.min()))
        self.min_wall_gap = min(self.min_wall_gap, float(gap.min()))
        for k in np.flatnonzero(gap < -OVERLAP_TOLERANCE):
            pair = (names[k], wall)
            self.pairs.add(pair)
            self.wall_pairs.add(pair)
            self.deepest = max(self.deepest, float(-gap[k]))
            self.deepest_wall = max(self.deepest_wall, float(-gap[k]))
            self.points.append(tuple(positions[k]))

    def _outline_index(self, obstacles: Sequence[np.ndarray]) -> PolygonIndex:
        if self._index is None or self._index[0] is not obstacles:
            self._index = (obstacles, PolygonIndex(obstacles))
        return self._index[1]


def link_name(a: str, b: str) -> str:
    """A link's name in the accounting: its two robots, ``"a0-a1"``."""
    return f"{a}-{b}"


def linked_pairs(scenario: Scenario) -> Tuple[List[Tuple[int, int, float]], np.ndarray]:
    """The scenario's linked pairs as ``(i, j, max_length)`` agent indices, and each
    agent's link group (its index in ``scenario.links``; -1: none), as
    :meth:`LinkLedger.update` takes them."""
    index = {agent.name: i for i, agent in enumerate(scenario.agents)}
    pairs: List[Tuple[int, int, float]] = []
    group = np.full(len(scenario.agents), -1)
    for g, link in enumerate(scenario.links):
        for a, b in link.pairs:
            pairs.append((index[a], index[b], link.max_length))
            group[index[a]] = group[index[b]] = g
    return pairs, group


@dataclass
class LinkLedger:
    """Accounting of linked robots (scenario ``links:``) over a run.

    ``crossings``: distinct ``(robot, link)`` pairs in which a robot of another
    group crossed or touched a link (the segment between two linked robots'
    centres) by more than :data:`OVERLAP_TOLERANCE`, at the end of a step or
    within it (:func:`~orca_ros.core.methods.links.disc_crosses_moving_segment`).
    ``overstretched``: distinct links whose length exceeded their ``max_length``
    by more than :data:`OVERLAP_TOLERANCE` at the end of some step. ``longest``:
    the largest ratio of length to ``max_length`` seen.
    """

    crossings: Set[Tuple[str, str]] = field(default_factory=set)
    overstretched: Set[str] = field(default_factory=set)
    longest: float = 0.0

    def update(self, previous: np.ndarray, positions: np.ndarray, radii: np.ndarray,
               names: Sequence[str], active: np.ndarray,
               links: Sequence[Tuple[int, int, float]], group: np.ndarray) -> None:
        """One step: ``previous`` and ``positions`` (N, 2) at its start and end, every
        agent's ``radii``, ``active`` mask, ``links`` as ``(i, j, max_length)`` and each
        agent's link ``group`` (-1: none)."""
        if not len(links):
            return
        moved = np.linalg.norm(positions - previous, axis=1)
        reach = float(moved.max()) if len(moved) else 0.0
        for i, j, max_length in links:
            if not (active[i] and active[j]):
                continue
            name = link_name(names[i], names[j])
            length = float(np.linalg.norm(positions[j] - positions[i]))
            self.longest = max(self.longest, length / max_length)
            if length > max_length + OVERLAP_TOLERANCE:
                self.overstretched.add(name)
            a0, b0, a1, b1 = previous[i], previous[j], positions[i], positions[j]
            others = np.flatnonzero(active & (group != group[i]))
            if not len(others):
                continue
            # candidates: near the segment at the end of the step (a crossing within the
            # step passes within the step's largest motion of it)
            ab = b1 - a1
            length_sq = float(ab @ ab)
            rel = positions[others] - a1
            s = np.clip(rel @ ab / length_sq, 0.0, 1.0) if length_sq > 0.0 else \
                np.zeros(len(others))
            distance = np.linalg.norm(rel - s[:, None] * ab, axis=1)
            near = distance < radii[others] + 3.0 * reach + OVERLAP_TOLERANCE
            for k in others[near]:
                if disc_crosses_moving_segment(
                        tuple(previous[k]), tuple(positions[k]), float(radii[k]), tuple(a0),
                        tuple(b0), tuple(a1), tuple(b1), OVERLAP_TOLERANCE):
                    self.crossings.add((names[k], name))

    def by_link(self) -> Dict[str, List[str]]:
        """Robots that crossed each link."""
        crossed: Dict[str, List[str]] = {}
        for robot, link in sorted(self.crossings):
            crossed.setdefault(link, []).append(robot)
        return crossed


class FleetRecord:
    """Ground truth of a simulated fleet over time: collisions, paths, arrivals, trajectory.

    What fleet_sim and the toio bridge's simulated cubes keep, so that
    ``orca-ros sim`` reports the same figures as ``orca-ros bench``.
    """

    def __init__(self, scenario: Scenario, positions: np.ndarray,
                 yaws: Optional[Sequence[float]] = None) -> None:
        """``positions`` at time 0; ``yaws`` (rad): the bodies' yaws then, for a
        simulator whose bodies have one (then :meth:`record` takes them every step)."""
        self.scenario = scenario
        self.names = [a.name for a in scenario.agents]
        self.radii = np.array([a.radius for a in scenario.agents])
        self.goals = np.array([a.goal for a in scenario.agents], dtype=float)
        self.goal_tolerance = np.array([scenario.goal_tolerance_of(a) for a in scenario.agents])
        self.route = RouteProgress.of(scenario)  # at a goal only once past the waypoints
        self.obstacles = [np.array(w) for w in scenario.solid_outlines]
        self.ledger = CollisionLedger(occupancy=scenario.occupancy)
        self.link_ledger = LinkLedger()
        self.link_pairs, self.link_group = linked_pairs(scenario)
        self.trajectory: List[np.ndarray] = [np.array(positions, dtype=float)]
        self.frame_times: List[float] = [0.0]
        self.yaws: Optional[List[np.ndarray]] = \
            None if yaws is None else [np.array(yaws, dtype=float)]
        self.path_length = np.zeros(len(self.names))
        self.arrival_time = np.full(len(self.names), np.nan)
        self.at_goal_now = np.zeros(len(self.names), dtype=bool)
        self.sim_time = 0.0
        self.steps = 0
        # a physics engine's own contacts (fleet_sim engine mujoco: its ContactTally)
        self.engine_contacts = None

    def record(self, sim_time: float, positions: np.ndarray,
               yaws: Optional[Sequence[float]] = None) -> None:
        positions = np.array(positions, dtype=float)
        if self.yaws is not None:
            self.yaws.append(np.array(yaws, dtype=float))
        self.path_length += np.linalg.norm(positions - self.trajectory[-1], axis=1)
        self.ledger.update(positions, self.radii, self.names, self.obstacles)
        if self.link_pairs:
            self.link_ledger.update(self.trajectory[-1], positions, self.radii, self.names,
                                    np.ones(len(self.names), dtype=bool), self.link_pairs,
                                    self.link_group)
        self.at_goal_now = (np.linalg.norm(positions - self.goals, axis=1)
                            <= self.goal_tolerance) & self.route.on_last_legs(positions)
        self.arrival_time[self.at_goal_now & np.isnan(self.arrival_time)] = sim_time
        self.trajectory.append(positions)
        self.frame_times.append(sim_time)
        self.sim_time = sim_time
        self.steps += 1

    @property
    def arrived(self) -> int:
        """Robots that have reached their goals (at some step)."""
        return int(np.sum(~np.isnan(self.arrival_time)))

    @property
    def at_goal(self) -> int:
        """Robots at their goals now (within goal tolerance at the last step): a robot
        pushed off its goal has arrived but is not at it until it comes back."""
        return int(np.sum(self.at_goal_now))

    def motion_figures(self) -> Dict[str, MotionQuality]:
        """Every robot's motion-quality figures from the recorded poses, as ``orca-ros
        bench`` has them (:func:`~orca_ros.core.sim.motion_quality.fleet_motion_quality`)."""
        trajectory, times = np.array(self.trajectory), np.array(self.frame_times)
        yaws = None if self.yaws is None else np.array(self.yaws)
        return fleet_motion_quality(self.scenario, {
            agent.name: RobotTrack(times, trajectory[:, i], None if yaws is None else yaws[:, i])
            for i, agent in enumerate(self.scenario.agents)})
