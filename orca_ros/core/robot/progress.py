"""Whether a driving robot gets nearer its goal, for the diagnostics (no ROS).

A robot can drive for ever without arriving: held back by a neighbour parked beside
its goal (whose disc its data's age has grown), wedged against a wall, or in a jam.
Its goal state then says "driving", which is true and tells nothing.
:class:`ProgressWatch` keeps how long a driving robot has got no nearer its goal
(along what is left of its path) by :data:`MIN_GAIN`; past ``no_progress_warn`` s the
diagnostics warn, naming what is nearest to it when the cycle last ran: the nearest
neighbour (its name and the gap between the discs) or wall, and, when its goal has no
room left for it, the neighbours that take that room (:func:`goal_held_by`).
"""

from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence, Tuple

import numpy as np

from ..geometry.vectors import point_segment_distance

MIN_GAIN = 0.05  # m nearer the goal that counts as progress

GOAL_RINGS = ((0.0, 1), (1.0 / 3.0, 8), (2.0 / 3.0, 16), (1.0, 24))
"""Where :func:`goal_held_by` looks for room: the goal, then rings at these shares of the
goal tolerance, with this many points each."""


def _goal_points(goal: Sequence[float], tolerance: float) -> np.ndarray:
    rows = []
    for share, count in GOAL_RINGS:
        angles = np.arange(count) * (2.0 * np.pi / count)
        rows.append(np.column_stack([goal[0] + share * tolerance * np.cos(angles),
                                     goal[1] + share * tolerance * np.sin(angles)]))
    return np.concatenate(rows)


def remaining_path(position: Sequence[float], waypoints: Sequence[Sequence[float]],
                   index: int) -> Optional[float]:
    """How far ``position`` is from the goal along ``waypoints`` from the one headed for
    (``index``); None without waypoints."""
    if not waypoints:
        return None
    index = min(max(index, 0), len(waypoints) - 1)
    distance = math.dist(position[:2], waypoints[index][:2])
    for a, b in zip(waypoints[index:], waypoints[index + 1:]):
        distance += math.dist(a[:2], b[:2])
    return distance


def nearest_reason(position: Sequence[float], radius: float, neighbors: Iterable,
                   walls: Iterable) -> str:
    """What is nearest to a robot of ``radius`` at ``position``: ``neighbor NAME at G m``
    (``neighbors``: :class:`~.state.Neighbor`, their gap to its disc, their
    uncertainty counted) or ``a wall at G m`` (``walls``: obstacle vertices, each with
    ``point`` and ``next``); '' when there is neither."""
    best, reason = math.inf, ""
    for n in neighbors:
        gap = math.dist(position, n.position) - radius - n.radius - n.uncertainty
        if gap < best:
            best, reason = gap, f"neighbor {n.key} at {max(gap, 0.0):.2f} m"
    for vertex in walls:
        following = getattr(vertex, "next", None)
        if following is None:
            continue
        gap = point_segment_distance(position, vertex.point, following.point) - radius
        if gap < best:
            best, reason = gap, f"a wall at {max(gap, 0.0):.2f} m"
    return reason


def goal_held_by(goal: Sequence[float], tolerance: float, neighbors: Sequence,
                 distances: Sequence[float]) -> Tuple[str, ...]:
    """The neighbours that leave a robot no room at its goal, as they stand; () while
    there is room.

    The hard safety layer keeps the robot's centre ``distances[i]`` from each neighbour
    ``neighbors[i]`` (:class:`~.state.Neighbor`;
    :meth:`~.safety_filter.SafetyFilter.pair_distances`). The goal has room when
    some point within ``tolerance`` of it is that far from every neighbour; looked for
    at the goal and on the rings of :data:`GOAL_RINGS` (so a gap narrower than the
    rings' spacing can go unseen: the answer errs towards "held"). Held, the
    neighbours named are those nearer than their distance to some point looked at,
    sorted by name. Goals packed closer than their robots' safety distances (their
    radii, tracking errors and localization margins) cannot all be held: this says
    which robots stand in the way."""
    points = _goal_points(goal, tolerance)
    names, reach, where = [], [], []
    for n, distance in zip(neighbors, distances):
        if math.dist(goal[:2], n.position) < tolerance + distance:
            names.append(n.key)
            reach.append(distance)
            where.append(n.position)
    if not names:
        return ()
    gaps = np.linalg.norm(points[:, None, :] - np.asarray(where)[None, :, :], axis=2)
    excluded = gaps < np.asarray(reach)[None, :]
    if not excluded.any(axis=1).all():
        return ()
    return tuple(sorted(name for name, hit in zip(names, excluded.any(axis=0)) if hit))


class ProgressWatch:
    """How long a driving robot has got no nearer its goal (:meth:`stuck_for`), and what
    was nearest to it then (:attr:`reason`)."""

    def __init__(self) -> None:
        self.best: Optional[float] = None  # the least remaining distance while driving
        self.since = 0.0  # s: when it was last got :data:`MIN_GAIN` nearer
        self.reason = ""

    def note(self, now: float, driving: bool, remaining: Optional[float],
             reason: str = "") -> None:
        """One control period at ``now`` (s): whether the robot drives, how far its goal
        still is (None: no goal), what is nearest to it."""
        if not driving or remaining is None:
            self.best, self.reason = None, ""
            return
        if self.best is None or remaining < self.best - MIN_GAIN:
            self.best, self.since = remaining, now
        self.reason = reason

    def stuck_for(self, now: float) -> float:
        """s without progress (0 while it makes some, or does not drive)."""
        return 0.0 if self.best is None else max(now - self.since, 0.0)
