"""Vectorised geometry for collision accounting: distances from points to polygons."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .types import Vector2


def points_polygon_signed_distance(points: np.ndarray, vertices: Sequence[Vector2]) -> np.ndarray:
    """Signed distance from each point (N, 2) to a polygon: negative inside, positive outside."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    a = np.asarray(vertices, dtype=float)
    b = np.roll(a, -1, axis=0)
    ab = b - a                                             # (E, 2)
    ap = points[:, None, :] - a[None, :, :]                # (N, E, 2)
    t = np.clip(np.einsum("nek,ek->ne", ap, ab) / np.einsum("ek,ek->e", ab, ab),
                0.0, 1.0)
    closest = a[None] + t[..., None] * ab[None]
    distance = np.sqrt(((points[:, None, :] - closest) ** 2).sum(-1)).min(axis=1)
    # Even-odd rule for inside.
    px, py = points[:, 0:1], points[:, 1:2]
    ay, by_ = a[None, :, 1], b[None, :, 1]
    crosses = (ay > py) != (by_ > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_at = a[None, :, 0] + (py - ay) * (b[None, :, 0] - a[None, :, 0]) / (by_ - ay)
    inside = (crosses & (px < x_at)).sum(axis=1) % 2 == 1
    return np.where(inside, -distance, distance)


def point_polygon_signed_distance(point: Vector2, vertices: Sequence[Vector2]) -> float:
    return float(points_polygon_signed_distance(np.asarray([point]), vertices)[0])


class PolygonIndex:
    """Which of many outlines (polygons; two vertices: a segment) each point must be
    judged against: a spatial index (shapely's ``STRtree``) over a map's thousands of
    walls, so that judging a fleet costs what its surroundings hold."""

    def __init__(self, outlines: Sequence[np.ndarray]) -> None:
        import shapely

        self._shapely = shapely
        geometries = []
        for vertices in outlines:
            vertices = np.asarray(vertices, dtype=float).reshape(-1, 2)
            if len(vertices) >= 3:
                geometries.append(shapely.Polygon(vertices))
            elif len(vertices) == 2:
                geometries.append(shapely.LineString(vertices))
            else:
                geometries.append(shapely.Point(vertices[0]))
        self._tree = shapely.STRtree(geometries)

    def candidates(self, points: np.ndarray, reach: np.ndarray):
        """``(point, outline)`` index pairs, by outline then point: every outline within
        ``reach[k]`` of point ``k``, and its nearest outlines (so the least signed
        distance over these is the least over all)."""
        points = self._shapely.points(np.asarray(points, dtype=float).reshape(-1, 2))
        near = self._tree.query(points, predicate="dwithin", distance=np.asarray(reach))
        nearest = self._tree.query_nearest(points, all_matches=True)
        pairs = np.unique(np.concatenate([near, nearest], axis=1).T[:, ::-1], axis=0)
        return pairs[:, 1], pairs[:, 0]
