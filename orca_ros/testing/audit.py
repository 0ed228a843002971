"""An independent collision audit of timestamped robot poses (pure numpy/scipy, no ROS).

The observer process (``orca_ros.testing.observer``) feeds it every ``/<robot>/odom``
pose it receives. Poses are grouped by their header stamp and only poses
that carry the same stamp are compared, so two robots are never judged at
different instants. This deliberately shares no code with the simulator's
ground truth (``core/world.py``): it is a second opinion on it.

- :func:`polygon_signed_distance` and :func:`overlaps_at_stamp` judge one
  instant: pairwise gaps (centre distance minus the sum of radii) and
  robot-obstacle gaps (distance to the polygon's edges minus the radius,
  negative inside).
- :class:`StampAudit` keeps the stamps still open, compares each one once
  (as soon as every robot has reported it, or when it is ``settle`` seconds
  older than the newest stamp), forgets it, and accumulates the results.

Aerial robots (``dimensions: 3``) report a height too (``add(..., z=...)``):
then the gaps are between spheres, in 3D.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

TOUCH = 1e-6  # an overlap deeper than this (m) is a contact, as in the bench's accounting
NEAR = 1.0    # gaps up to this (m) count towards the minimum separation


def polygon_signed_distance(points: np.ndarray, vertices: Sequence[Sequence[float]]) -> np.ndarray:
    """Distance from each point (N, 2) to a polygon's boundary, negative inside.

    Inside is decided by the winding number (sum of the angles the edges
    subtend), which holds for either vertex order.
    """
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    start = np.asarray(vertices, dtype=float).reshape(-1, 2)
    end = np.concatenate([start[1:], start[:1]])
    edge = end - start                                          # (E, 2)
    rel = points[:, None, :] - start[None, :, :]                # (N, E, 2)
    length2 = np.maximum((edge * edge).sum(axis=1), 1e-300)
    t = np.clip((rel * edge[None]).sum(axis=2) / length2, 0.0, 1.0)
    nearest = start[None] + t[..., None] * edge[None]
    distance = np.hypot(*(points[:, None, :] - nearest).transpose(2, 0, 1)).min(axis=1)
    to_start = start[None] - points[:, None, :]
    to_end = end[None] - points[:, None, :]
    cross = to_start[..., 0] * to_end[..., 1] - to_start[..., 1] * to_end[..., 0]
    dot = (to_start * to_end).sum(axis=2)
    winding = np.arctan2(cross, dot).sum(axis=1) / (2.0 * math.pi)
    inside = np.abs(winding) > 0.5
    return np.where(inside, -distance, distance)


@dataclass
class StampGaps:
    """What one instant shows: contacts, and the smallest gaps."""

    contacts: List[Tuple[str, str, float]] = field(default_factory=list)  # (a, b, overlap > 0)
    min_separation: Optional[float] = None   # robot pairs within NEAR of touching
    min_obstacle_gap: Optional[float] = None  # robots within NEAR of an obstacle


MAP_LABEL = "map"
"""A contact with the occupied cells of the scenario's map (``occupancy`` of
:func:`overlaps_at_stamp`: judged on the grid, not on the walls made of it)."""


def obstacle_label(index: int) -> str:
    return f"obstacle#{index}"


def is_wall(label: str) -> bool:
    """Whether a contact's second name is a wall (an obstacle, the map), not a robot."""
    return label.startswith("obstacle#") or label == MAP_LABEL


def overlaps_at_stamp(positions: Mapping[str, Sequence[float]], radii: Mapping[str, float],
                      polygons: Sequence[Sequence[Sequence[float]]] = (),
                      near: float = NEAR, occupancy=None) -> StampGaps:
    """Judge the robots' positions at one instant.

    ``positions`` and ``radii`` are keyed by robot name; ``polygons`` are
    obstacle vertex lists; ``occupancy``: a map
    (:class:`~orca_ros.core.maps.OccupancyMap`) whose occupied cells the robots must
    not touch (contact ``(robot, "map")``). Robot pairs are found with a k-d tree within
    ``2·max_radius + near``; a contact is an overlap deeper than :data:`TOUCH`.
    Robot-robot contacts are named ``(a, b)`` with ``a < b``; robot-obstacle
    contacts ``(robot, "obstacle#k")``. Positions of three components (aerial
    robots) are judged in 3D (there are no obstacles in 3D).
    """
    names = sorted(positions)
    result = StampGaps()
    if not names:
        return result
    xy = np.array([positions[n] for n in names], dtype=float).reshape(len(names), -1)
    r = np.array([radii[n] for n in names], dtype=float)
    if len(names) > 1:
        _robot_pairs(names, xy, r, near, result)
    for k, vertices in enumerate(polygons):
        gaps = polygon_signed_distance(xy[:, :2], vertices) - r
        _keep_min(result, "min_obstacle_gap", gaps[gaps <= near])
        for i in np.flatnonzero(gaps < -TOUCH):
            result.contacts.append((names[i], obstacle_label(k), float(-gaps[i])))
    if occupancy is not None:
        gaps = occupancy.occupied_distance(xy[:, :2], float(r.max()) + near) - r
        _keep_min(result, "min_obstacle_gap", gaps[gaps <= near])
        for i in np.flatnonzero(gaps < -TOUCH):
            result.contacts.append((names[i], MAP_LABEL, float(-gaps[i])))
    return result


def _robot_pairs(names: List[str], xy: np.ndarray, r: np.ndarray, near: float,
                 result: StampGaps) -> None:
    from scipy.spatial import cKDTree

    pairs = cKDTree(xy).query_pairs(2.0 * float(r.max()) + near, output_type="ndarray")
    if len(pairs) == 0:
        return
    i, j = pairs[:, 0], pairs[:, 1]
    gaps = np.sqrt(((xy[i] - xy[j]) ** 2).sum(axis=1)) - r[i] - r[j]
    _keep_min(result, "min_separation", gaps[gaps <= near])
    for k in np.flatnonzero(gaps < -TOUCH):
        a, b = sorted((names[i[k]], names[j[k]]))
        result.contacts.append((a, b, float(-gaps[k])))


def _keep_min(result: StampGaps, name: str, values: np.ndarray) -> None:
    if values.size:
        low = float(values.min())
        current = getattr(result, name)
        setattr(result, name, low if current is None else min(current, low))


@dataclass
class Contact:
    """One colliding pair over the run, and the pair's positions round its first contact
    (``track``: rows ``[stamp s, a's x, y(, z), b's x, y(, z)]``), to tell afterwards how
    they met: braking, turning, or running on."""

    first_stamp: float
    deepest: float
    stamps: int = 1
    track: List[list] = field(default_factory=list)
    track_left: int = 0  # stamps after the first contact still to add to the track


class StampAudit:
    """Groups poses by stamp, compares each stamp once, and keeps the totals.

    Memory stays bounded: a stamp is forgotten once compared; at most
    ``history`` compared stamps are remembered to recognise late duplicates.
    """

    def __init__(self, radii: Mapping[str, float], goals: Mapping[str, Sequence[float]],
                 goal_tolerance: Mapping[str, float],
                 polygons: Sequence[Sequence[Sequence[float]]] = (), settle: float = 3.0,
                 occupancy=None,
                 history: int = 10000, track_before: int = 30, track_after: int = 10,
                 route=None) -> None:
        """``track_before``/``track_after``: compared stamps kept before a pair's first
        contact and added after it, in :attr:`Contact.track`. ``route``: the robots'
        :class:`~orca_ros.core.sim.metrics.RouteProgress`, in the order of ``radii``
        (a robot is then at its goal only once past its waypoints; None: no waypoints)."""
        self.radii = dict(radii)
        self.route = route
        self.route_row = {name: k for k, name in enumerate(self.radii)}
        self.last_leg = {name: route is None or route.index[k] == route.last[k]
                         for name, k in self.route_row.items()}
        self.goals = {n: np.asarray(g, dtype=float) for n, g in goals.items()}
        self.goal_tolerance = dict(goal_tolerance)
        self.polygons = [np.asarray(p, dtype=float) for p in polygons]
        self.occupancy = occupancy  # a map's occupied cells, judged as walls
        self.settle = settle
        self.pending: Dict[int, Dict[str, Tuple[float, float]]] = {}
        self.done: deque = deque(maxlen=history)
        self.done_set: set = set()
        self.newest = -math.inf
        self.latest: Dict[str, Tuple[int, Tuple[float, float]]] = {}
        self.reached_goal: set = set()  # robots any pose of which was within goal tolerance
        self.poses = {n: 0 for n in self.radii}
        self.unknown_poses = 0
        self.late_poses = 0
        self.stamps_compared = 0
        self.stamps_single = 0
        self.contacts: Dict[Tuple[str, str], Contact] = {}
        self.min_separation: Optional[float] = None
        self.min_obstacle_gap: Optional[float] = None
        self.deepest = 0.0
        self.recent: deque = deque(maxlen=max(1, track_before))  # (stamp_ns, group)
        self.track_after = track_after

    # -- input -------------------------------------------------------------
    def add(self, robot: str, stamp_ns: int, x: float, y: float,
            z: Optional[float] = None) -> None:
        """One pose (``z``: an aerial robot's height); compares its stamp when every robot
        has reported it."""
        if robot not in self.radii:
            self.unknown_poses += 1
            return
        self.poses[robot] += 1
        pose = (float(x), float(y)) if z is None else (float(x), float(y), float(z))
        if robot not in self.latest or stamp_ns >= self.latest[robot][0]:
            self.latest[robot] = (stamp_ns, pose)
        if not self.last_leg[robot]:
            self.last_leg[robot] = self.route.on_last_leg(self.route_row[robot], pose)
        if robot not in self.reached_goal and self.last_leg[robot] and \
                math.dist(pose, self.goals[robot]) <= self.goal_tolerance[robot]:
            self.reached_goal.add(robot)
        if stamp_ns in self.done_set:
            self.late_poses += 1
            return
        group = self.pending.setdefault(stamp_ns, {})
        group[robot] = pose
        self.newest = max(self.newest, stamp_ns)
        if len(group) == len(self.radii):
            self._compare(stamp_ns)
        self._settle()

    def flush(self) -> None:
        """Compare every stamp still open (at the end of a run)."""
        for stamp_ns in sorted(self.pending):
            self._compare(stamp_ns)

    # -- bookkeeping -------------------------------------------------------
    def _settle(self) -> None:
        horizon = self.newest - self.settle * 1e9
        for stamp_ns in [s for s in self.pending if s < horizon]:
            self._compare(stamp_ns)

    def _compare(self, stamp_ns: int) -> None:
        group = self.pending.pop(stamp_ns)
        if len(self.done) == self.done.maxlen:
            self.done_set.discard(self.done[0])
        self.done.append(stamp_ns)
        self.done_set.add(stamp_ns)
        if len(group) < 2:
            # One robot at this stamp (a lone robot's run, or the others' poses lost):
            # no pair to compare, but the walls still are.
            self.stamps_single += 1
            if not self.polygons and self.occupancy is None:
                return
        else:
            self.stamps_compared += 1
            self.recent.append((stamp_ns, group))
            for (a, b), contact in self.contacts.items():
                if contact.track_left > 0 and a in group and b in group:
                    contact.track.append(_track_row(stamp_ns, group[a], group[b]))
                    contact.track_left -= 1
        gaps = overlaps_at_stamp(group, self.radii, self.polygons, occupancy=self.occupancy)
        self.min_separation = _min(self.min_separation, gaps.min_separation)
        self.min_obstacle_gap = _min(self.min_obstacle_gap, gaps.min_obstacle_gap)
        for a, b, overlap in gaps.contacts:
            self.deepest = max(self.deepest, overlap)
            contact = self.contacts.get((a, b))
            if contact is None:
                track = [_track_row(s, g[a], g[b]) for s, g in self.recent
                         if a in g and b in g]  # obstacles (b) have no track
                self.contacts[(a, b)] = Contact(stamp_ns * 1e-9, overlap, track=track,
                                                track_left=self.track_after if track else 0)
            else:
                contact.deepest = max(contact.deepest, overlap)
                contact.first_stamp = min(contact.first_stamp, stamp_ns * 1e-9)
                contact.stamps += 1

    # -- output ------------------------------------------------------------
    def arrived(self) -> List[str]:
        """Robots within goal tolerance at their latest stamp, past their waypoints: at
        their goals now."""
        return sorted(n for n, (_, xy) in self.latest.items() if self.last_leg[n]
                      and math.dist(xy, self.goals[n]) <= self.goal_tolerance[n])

    def report(self) -> Dict[str, object]:
        arrived = self.arrived()
        collisions = [{"a": a, "b": b, "first_stamp": round(c.first_stamp, 6),
                       "deepest_overlap_m": c.deepest, "stamps": c.stamps,
                       **({"track": c.track} if c.track else {})}
                      for (a, b), c in sorted(self.contacts.items())]
        last = max((s for s, _ in self.latest.values()), default=None)
        return {
            "robots": len(self.radii), "arrived": len(arrived), "arrived_robots": arrived,
            "reached": len(self.reached_goal),
            "collisions": collisions,
            "colliding_pairs": len(collisions),
            "robot_pairs": sum(1 for c in collisions if not is_wall(c["b"])),
            "obstacle_pairs": sum(1 for c in collisions if is_wall(c["b"])),
            "min_separation": self.min_separation, "min_obstacle_gap": self.min_obstacle_gap,
            "deepest_penetration": self.deepest,
            "stamps_compared": self.stamps_compared, "stamps_single": self.stamps_single,
            "stamps_open": len(self.pending), "late_poses": self.late_poses,
            "unknown_poses": self.unknown_poses, "poses_per_robot": dict(self.poses),
            "last_stamp": None if last is None else last * 1e-9,
        }


def _track_row(stamp_ns: int, a: Sequence[float], b: Sequence[float]) -> list:
    return [round(stamp_ns * 1e-9, 6)] + [round(float(v), 6) for v in (*a, *b)]


def _min(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if a is None:
        return b
    return a if b is None else min(a, b)
