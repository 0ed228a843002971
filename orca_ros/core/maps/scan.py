"""Laser scans to local walls: what a robot sees that no map and no neighbour explains.

A ``sensor_msgs/LaserScan`` (its ranges, first angle and increment) is placed at the
laser's pose in the shared frame (the robot's pose and where the laser sits on it). Rays
that read no valid range are left out and counted: NaN, ``inf`` (no return), or outside
``[range_min, range_max]`` (REP 117). The points a known neighbour's disc explains
(within its radius and a margin of its centre: :func:`neighbour_margin`) are removed:
robots are avoided as robots. What is left is split into clusters where consecutive
points lie farther apart than ``cluster_gap`` (a scan is ordered by angle, so a cluster
is a run of rays along one surface), and each cluster's polyline is simplified within
``tolerance`` (Douglas-Peucker, shapely) into segments. A cluster of one point becomes a
segment of length ``2 tolerance`` across its ray, so a thin post is still a wall.
:func:`scan_walls` does all of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Sequence, Tuple

import numpy as np

from ..geometry.types import Segment


@dataclass(frozen=True)
class ScanPoints:
    """A scan's valid returns in the shared frame (N, 2), in ray order, and how many rays
    were left out (``ignored``: NaN, ``inf``, or outside the laser's ranges; of those,
    ``not_finite``: NaN or infinite)."""

    points: np.ndarray
    ignored: int
    not_finite: int


def scan_points(ranges: Sequence[float], angle_min: float, angle_increment: float,
                range_min: float, range_max: float,
                pose: Tuple[float, float, float]) -> ScanPoints:
    """The returns of a scan taken at ``pose`` (x, y, yaw in the shared frame)."""
    ranges = np.asarray(ranges, dtype=float)
    finite = np.isfinite(ranges)
    valid = finite & (ranges >= range_min) & (ranges <= range_max)
    angles = pose[2] + angle_min + angle_increment * np.arange(len(ranges))
    r = ranges[valid]
    points = np.column_stack([pose[0] + r * np.cos(angles[valid]),
                              pose[1] + r * np.sin(angles[valid])])
    return ScanPoints(points, int(len(ranges) - valid.sum()), int((~finite).sum()))


def unexplained(points: np.ndarray, discs: Sequence[Tuple[float, float, float]],
                margin: float) -> np.ndarray:
    """Which ``points`` no disc ``(x, y, radius)`` explains: farther than its radius plus
    ``margin`` from every disc's centre (boolean mask)."""
    keep = np.ones(len(points), dtype=bool)
    if len(points) and len(discs):
        discs = np.asarray(discs, dtype=float).reshape(-1, 3)
        distance = np.linalg.norm(points[:, None, :] - discs[None, :, :2], axis=2)
        keep = ~np.any(distance <= discs[None, :, 2] + margin, axis=1)
    return keep


def scan_segments(points: np.ndarray, origin: Tuple[float, float], cluster_gap: float,
                  tolerance: float) -> List[Segment]:
    """Segments through ``points`` (N, 2, in ray order, seen from ``origin``): clusters
    split where consecutive points are farther apart than ``cluster_gap``, each simplified
    within ``tolerance``. A scan round the full circle closes: its last and first points
    join one cluster when they lie close."""
    from shapely.geometry import LineString

    points = np.asarray(points, dtype=float).reshape(-1, 2)
    if not len(points):
        return []
    gaps = np.linalg.norm(np.diff(points, axis=0), axis=1) > cluster_gap
    clusters = np.split(points, np.flatnonzero(gaps) + 1)
    if len(clusters) > 1 and math.dist(points[-1], points[0]) <= cluster_gap:
        clusters[0] = np.vstack([clusters.pop(), clusters[0]])  # round past angle 0
    segments: List[Segment] = []
    for cluster in clusters:
        if len(cluster) == 1:
            x, y = cluster[0]
            ray = math.atan2(y - origin[1], x - origin[0])
            dx, dy = -math.sin(ray) * tolerance, math.cos(ray) * tolerance
            segments.append(Segment((x - dx, y - dy), (x + dx, y + dy)))
            continue
        line = np.asarray(LineString(cluster).simplify(tolerance, preserve_topology=False)
                          .coords)
        for a, b in zip(line[:-1], line[1:]):
            if math.dist(a, b) > 1e-9:
                segments.append(Segment((float(a[0]), float(a[1])),
                                        (float(b[0]), float(b[1]))))
    return segments


NEIGHBOUR_MARGIN_MIN = 0.05
"""m: the least margin round a known neighbour's disc within which a return is the
neighbour's (:func:`neighbour_margin`)."""


def neighbour_margin(tolerance: float) -> float:
    """How far beyond a known neighbour's disc a return is still taken as the neighbour's:
    twice the fitting ``tolerance``, at least :data:`NEIGHBOUR_MARGIN_MIN` (the
    neighbour's reading is a little old, its disc a little off)."""
    return max(2.0 * tolerance, NEIGHBOUR_MARGIN_MIN)


def scan_walls(ranges: Sequence[float], angle_min: float, angle_increment: float,
               range_min: float, range_max: float, laser_pose: Tuple[float, float, float],
               neighbours: Sequence[Tuple[float, float, float]], cluster_gap: float,
               tolerance: float) -> Tuple[List[Segment], ScanPoints]:
    """A scan's walls and its returns: the valid returns at ``laser_pose`` (x, y, yaw in
    the shared frame, :func:`scan_points`), less those a known neighbour's disc
    ``(x, y, radius)`` explains (:func:`unexplained`, :func:`neighbour_margin`), split
    and fitted (:func:`scan_segments`) as seen from the laser."""
    found = scan_points(ranges, angle_min, angle_increment, range_min, range_max, laser_pose)
    keep = unexplained(found.points, neighbours, margin=neighbour_margin(tolerance))
    walls = scan_segments(found.points[keep], (laser_pose[0], laser_pose[1]), cluster_gap,
                          tolerance)
    return walls, found
