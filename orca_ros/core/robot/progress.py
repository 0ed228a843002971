"""Whether a driving robot gets nearer its goal, for the diagnostics (no ROS).

A robot can drive for ever without arriving: held back by a neighbour parked beside
its goal (whose disc its data's age has grown), wedged against a wall, or in a jam.
Its goal state then says "driving", which is true and tells nothing.
:class:`ProgressWatch` keeps how long a driving robot has got no nearer its goal
(along what is left of its path) by :data:`MIN_GAIN`; past ``no_progress_warn`` s the
diagnostics warn, naming what is nearest to it when the cycle last ran: the nearest
neighbour (its name and the gap between the discs) or wall.
"""

from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence

from ..geometry.vectors import point_segment_distance

MIN_GAIN = 0.05  # m nearer the goal that counts as progress


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
