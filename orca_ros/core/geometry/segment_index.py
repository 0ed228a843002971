"""Which walls are near: a spatial index over wall segments, so that a map's tens of
thousands of segments cost a robot what its neighbourhood's few do.

A map turned into walls (:mod:`orca_ros.core.maps`) has far more segments than a
hand-drawn scenario: a 40 m warehouse with a scanned map's speckle gives about 5,000,
a 200 m one 56,000. Asking every segment whether it is within a robot's reach, or
whether it blocks a straight line, is then the whole cost of a control period.
:class:`SegmentIndex` answers both from a Sort-Tile-Recursive R-tree (Leutenegger et
al. 1997; shapely's ``STRtree`` over GEOS) once there are more than
:data:`BRUTE_FORCE_SEGMENTS`; below that a numpy pass over all of them is cheaper and
gives the same answers. The numpy pass over a few segments is done in C
(``_orca2d.segment_min_distances``: the functions below, number for number, without
numpy's cost per call, which a robot's guidance paid about a millisecond a period for);
the functions below stay the reference, and serve the tree's candidate pairs.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..orca import _orca2d

BRUTE_FORCE_SEGMENTS = 128
"""Up to this many segments every query looks at all of them (no tree is built)."""

LINES_PER_QUERY = 50_000
"""Lines asked of the tree at once (bounds the memory of the candidate pairs)."""


def closest_points_on_segments(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The point of each segment ``a``-``b`` nearest each of ``points`` (broadcast)."""
    d = b - a
    length_sq = np.maximum((d * d).sum(-1), 1e-300)
    t = np.clip(((points - a) * d).sum(-1) / length_sq, 0.0, 1.0)
    return a + t[..., None] * d


def point_segment_distance(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from each of ``points`` to each segment ``a``-``b`` (broadcast)."""
    closest = closest_points_on_segments(points, a, b)
    return np.sqrt(((points - closest) ** 2).sum(-1))


def segment_distance(p: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance between segments ``p``-``q`` and ``a``-``b`` (numpy broadcasting over the
    leading axes): the least of the four endpoint-to-segment distances, zero where the
    two cross."""
    distance = np.minimum(np.minimum(point_segment_distance(p, a, b),
                                     point_segment_distance(q, a, b)),
                          np.minimum(point_segment_distance(a, p, q),
                                     point_segment_distance(b, p, q)))

    def cross(o, u, v):
        return (u[..., 0] - o[..., 0]) * (v[..., 1] - o[..., 1]) - \
            (u[..., 1] - o[..., 1]) * (v[..., 0] - o[..., 0])

    crossing = (cross(a, b, p) * cross(a, b, q) < 0) & (cross(p, q, a) * cross(p, q, b) < 0)
    return np.where(crossing, 0.0, distance)


def segments_min_distance(p: np.ndarray, q: np.ndarray, a: np.ndarray,
                          b: np.ndarray) -> np.ndarray:
    """Distance between segments p-q (N, 2) and a-b (E, 2), as an (N, E) array: the
    reference the C queries (``_orca2d.segment_min_distances``) are held to in the
    tests."""
    return segment_distance(p[:, None, :], q[:, None, :], a[None, :, :], b[None, :, :])


class SegmentIndex:
    """Segments ``a[i]``-``b[i]`` (arrays of shape (E, 2)) and the questions asked of them."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        self.a = np.ascontiguousarray(np.asarray(a, dtype=float).reshape(-1, 2))
        self.b = np.ascontiguousarray(np.asarray(b, dtype=float).reshape(-1, 2))
        self._tree = None
        if len(self.a) > BRUTE_FORCE_SEGMENTS:
            import shapely

            self._shapely = shapely
            self._tree = shapely.STRtree(shapely.linestrings(np.stack([self.a, self.b], 1)))

    def __len__(self) -> int:
        return len(self.a)

    @property
    def indexed(self) -> bool:
        """Whether the segments have a spatial index (more than
        :data:`BRUTE_FORCE_SEGMENTS`); without one every query looks at all of them."""
        return self._tree is not None

    def near(self, point, reach: float) -> np.ndarray:
        """Indices (ascending) of the segments within ``reach`` of ``point``; with the
        tree, possibly a few more (those its bounding boxes cannot tell apart)."""
        if self._tree is None:
            return np.arange(len(self.a))
        x, y = float(point[0]), float(point[1])
        box = self._shapely.box(x - reach, y - reach, x + reach, y + reach)
        return np.sort(self._tree.query(box))

    def blocked(self, p: np.ndarray, q: np.ndarray, clearance: float) -> np.ndarray:
        """For each straight line ``p[k]``-``q[k]``: whether a segment comes nearer to it
        than ``clearance``."""
        p = np.asarray(p, dtype=float).reshape(-1, 2)
        q = np.asarray(q, dtype=float).reshape(-1, 2)
        if len(self.a) == 0 or len(p) == 0:
            return np.zeros(len(p), dtype=bool)
        if self._tree is None:
            least = np.empty(len(p))
            _orca2d.segment_min_distances(np.ascontiguousarray(p), np.ascontiguousarray(q),
                                          self.a, self.b, len(p), len(self.a), least)
            return least < clearance
        blocked = np.zeros(len(p), dtype=bool)
        for start in range(0, len(p), LINES_PER_QUERY):
            part = slice(start, start + LINES_PER_QUERY)
            blocked[part] = self._blocked_by_tree(p[part], q[part], clearance)
        return blocked

    def _blocked_by_tree(self, p: np.ndarray, q: np.ndarray, clearance: float) -> np.ndarray:
        shapely = self._shapely
        lines = shapely.linestrings(np.stack([p, q], 1))
        degenerate = np.all(p == q, axis=1)
        if degenerate.any():
            lines[degenerate] = shapely.points(p[degenerate])
        line_index, segment_index = self._tree.query(lines, predicate="dwithin",
                                                     distance=clearance)
        blocked = np.zeros(len(p), dtype=bool)
        if len(line_index):
            # dwithin counts a distance equal to the clearance: only nearer blocks.
            close = segment_distance(p[line_index], q[line_index], self.a[segment_index],
                                     self.b[segment_index]) < clearance
            blocked[line_index[close]] = True
        return blocked

    def distances(self, points: np.ndarray, reach: Optional[float] = None) -> np.ndarray:
        """Distance from each of ``points`` (N, 2) to the nearest segment; infinite
        without segments, and, with ``reach``, where none is within ``reach`` (the
        search is then bounded, and much faster)."""
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        if len(self.a) == 0:
            return np.full(len(points), np.inf)
        if self._tree is None:
            points = np.ascontiguousarray(points)
            distance = np.empty(len(points))  # a point is a line from it to itself
            _orca2d.segment_min_distances(points, points, self.a, self.b, len(points),
                                          len(self.a), distance)
            return distance if reach is None else np.where(distance <= reach, distance, np.inf)
        which, nearest = self._tree.query_nearest(self._shapely.points(points),
                                                  max_distance=reach)
        distance = np.full(len(points), np.inf)
        np.minimum.at(distance, which,
                      point_segment_distance(points[which], self.a[nearest], self.b[nearest]))
        return distance

    def distance(self, point) -> float:
        """Distance from ``point`` to the nearest segment (infinite without segments)."""
        return float(self.distances(point)[0])
