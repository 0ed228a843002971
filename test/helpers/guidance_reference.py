"""The preferred velocity's per-period geometry in pure Python: the former bodies of
:func:`~orca_ros.core.robot.guidance.detour_around_discs` (with its helpers
``_shut_by_a_wall`` and ``_walls_either_side``),
:func:`~orca_ros.core.robot.preferred_velocity.door_share` and the test of
``WallQueries._pinched`` on the walls near the line (:func:`pinched`), which
``orca_ros/core/robot/_guidance.c`` replaced. The one change: the cluster's discs are
visited in index order (``sorted``), so a tie in the cluster's extent goes to the lower
index, as in C; the former code visited a set's order. The tests' reference for the C
code (``test/unit/robot/test_guidance_c.py``). Nothing in the package imports this module.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from orca_ros.core.geometry.segment_index import closest_points_on_segments, segments_min_distance
from orca_ros.core.geometry.types import Vector2
from orca_ros.core.geometry.vectors import closest_point_on_segment, point_segment_distance
from orca_ros.core.robot.guidance import Detour
from orca_ros.core.robot.preferred_velocity import DOOR_CLOSING_SHARE


def detour_around_discs(position: Vector2, target: Vector2,
                        discs: Sequence[tuple], side: int = 0,
                        offset: float = 0.0, walls: Sequence[tuple] = (),
                        clearance: float = 0.0, kept_for: int = -1) -> Optional[Detour]:
    """guidance.detour_around_discs as it was in Python (with ``kept_for``)."""
    px, py = position
    tx, ty = target
    centres = [(float(d[0][0]), float(d[0][1])) for d in discs]
    radii = [float(d[1]) for d in discs]
    blocking = [i for i, (c, r) in enumerate(zip(centres, radii))
                if math.dist(c, target) > r and point_segment_distance(c, position, target) < r]
    if not blocking:
        return None
    blocker = min(blocking, key=lambda i: math.dist(position, centres[i]) - radii[i])
    cluster, frontier = set(blocking), list(blocking)
    while frontier:
        i = frontier.pop()
        for j in range(len(centres)):
            if j not in cluster and math.dist(centres[i], centres[j]) < radii[i] + radii[j]:
                cluster.add(j)
                frontier.append(j)
    bearing = math.atan2(ty - py, tx - px)
    low, high = math.inf, -math.inf
    low_disc = high_disc = -1
    for i in sorted(cluster):  # (ties: the lower index, as in C)
        cx, cy = centres[i]
        distance = math.hypot(cx - px, cy - py)
        if distance < 1e-12:
            return None
        half = math.pi / 2 if distance <= radii[i] else math.asin(radii[i] / distance)
        relative = math.atan2(cy - py, cx - px) - bearing
        relative = math.atan2(math.sin(relative), math.cos(relative))
        if relative - half < low:
            low, low_disc = relative - half, i
        if relative + half > high:
            high, high_disc = relative + half, i
    if high - low >= 1.9 * math.pi:
        return None
    ways = {}
    for way, angle, i in ((-1, low, low_disc), (1, high, high_disc)):
        cx, cy = centres[i]
        distance = math.hypot(cx - px, cy - py)
        reach = math.sqrt(max(distance * distance - radii[i] * radii[i], 0.0))
        heading = bearing + angle
        wx, wy = px + reach * math.cos(heading), py + reach * math.sin(heading)
        ox, oy = wx - cx, wy - cy
        norm = math.hypot(ox, oy)
        if norm > 1e-12:
            wx, wy = wx + offset * ox / norm, wy + offset * oy / norm
        length = math.hypot(wx - px, wy - py) + math.hypot(tx - wx, ty - wy)
        ways[way] = ((wx, wy), length, _shut_by_a_wall(position, (cx, cy), radii[i], (wx, wy),
                                                       walls, clearance))
    if not all(way[2] for way in ways.values()):
        ways = {s: way for s, way in ways.items() if not way[2]}
    walled = _walls_either_side(centres[blocker], bearing, radii[blocker] + clearance, walls)
    if side in ways and (kept_for < 0 or kept_for in cluster) and \
            (-side not in ways or ways[side][1] <= 1.5 * ways[-side][1]):
        return Detour(ways[side][0], side, walled, blocker, True)
    way = min(ways, key=lambda s: ways[s][1])
    return Detour(ways[way][0], way, walled, blocker, False)




def _walls_either_side(centre: Vector2, bearing: float, reach: float,
                       walls: Sequence[tuple]) -> bool:
    """Whether walls come within ``reach`` of ``centre`` on both sides across ``bearing``."""
    ux, uy = math.cos(bearing), math.sin(bearing)
    sides = set()
    for a, b in walls:
        (wx, wy), _ = closest_point_on_segment(centre, a, b)
        dx, dy = wx - centre[0], wy - centre[1]
        if math.hypot(dx, dy) < reach:
            across, along = ux * dy - uy * dx, ux * dx + uy * dy
            if abs(across) > abs(along):
                sides.add(across > 0.0)
    return len(sides) == 2


def _shut_by_a_wall(position: Vector2, centre: Vector2, radius: float, waypoint: Vector2,
                    walls: Sequence[tuple], clearance: float) -> bool:
    """Whether a wall leaves no room to pass the disc on the waypoint's side."""
    px, py = position
    cx, cy = centre
    ax, ay = cx - px, cy - py
    side = ax * (waypoint[1] - py) - ay * (waypoint[0] - px)
    for a, b in walls:
        (wx, wy), _ = closest_point_on_segment(centre, a, b)
        if math.hypot(wx - cx, wy - cy) < radius + clearance and \
                (ax * (wy - py) - ay * (wx - px)) * side > 0.0:
            return True
    return False


def door_share(c, key: str, doors: Sequence[Vector2], position: Vector2, heading: Vector2,
               traffic: Sequence) -> float:
    """preferred_velocity.door_share as it was in Python."""
    if not len(doors):
        return 1.0
    if min(math.dist(position, door) for door in doors) < c.radius:
        return 1.0  # in a door (of the nodes across a thick door, near any): go on
    radius = c.avoidance_radius(c.radius)
    reach, hold = 6.0 * radius, 3.0 * radius
    share = 1.0
    for door in doors:
        ox, oy = door[0] - position[0], door[1] - position[1]
        own = math.hypot(ox, oy)
        if own > reach or ox * heading[0] + oy * heading[1] <= 0.0:
            continue  # no door ahead
        for other in traffic:
            position_o, velocity_o, key_o = other
            tx, ty = door[0] - position_o[0], door[1] - position_o[1]
            theirs = math.hypot(tx, ty)
            closing = (tx * velocity_o[0] + ty * velocity_o[1]) / max(theirs, 1e-9)
            first = theirs < c.radius or (key_o < key and theirs <= reach
                                          and closing > DOOR_CLOSING_SHARE * c.pref_speed)
            if first:
                share = min(share, max(0.0, min(1.0, (own - hold) / hold)))
    return share


def pinched(p: np.ndarray, q: np.ndarray, passage: float, samples_per_width: float,
            a: np.ndarray, b: np.ndarray) -> bool:
    """guidance.WallQueries._pinched as it was in numpy, on the walls ``a``-``b`` it took
    near the line."""
    direction = q - p
    length = float(np.hypot(*direction))
    if length <= 2.0 * passage:
        return False
    samples = np.linspace(passage, length - passage,
                          max(2, int(math.ceil((length - 2.0 * passage)
                                               * samples_per_width / passage)) + 1))
    unit = direction / length
    points = p + samples[:, None] * unit
    if len(a) == 0:
        return False
    offset = closest_points_on_segments(points[:, None], a[None], b[None]) - points[:, None]
    distance = np.hypot(offset[..., 0], offset[..., 1])
    side = unit[0] * offset[..., 1] - unit[1] * offset[..., 0]  # > 0: on the left
    left = np.where(side > 0.0, distance, np.inf).min(axis=1)
    right = np.where(side < 0.0, distance, np.inf).min(axis=1)
    return bool(np.any(left + right < 2.0 * passage))


def passable(p: np.ndarray, q: np.ndarray, clearance: float, passage: Optional[float],
             samples_per_width: float, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """guidance.WallQueries.passable as it was in numpy over walls without a spatial index:
    each line keeps ``clearance`` from every wall, and one nearer a wall than ``passage``
    goes through no gap narrower than twice that (:func:`pinched`, over all the walls)."""
    if len(a) == 0 or len(p) == 0:
        return np.ones(len(p), dtype=bool)
    least = segments_min_distance(p, q, a, b).min(axis=1)
    seen = ~(least < clearance)
    if passage is None or passage <= clearance or not seen.any():
        return seen
    grazing = seen & (least < passage)
    for k in np.flatnonzero(grazing):
        seen[k] = not pinched(p[k], q[k], passage, samples_per_width, a, b)
    return seen
