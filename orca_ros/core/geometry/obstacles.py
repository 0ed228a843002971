"""Obstacle edges in RVO2's representation.

RVO2 stores an obstacle as a cyclic chain of vertices. Each vertex knows its
point, the unit direction to the next vertex, whether it is convex, and its
neighbours in the chain. The edge from a vertex to the next one is what ORCA
builds a half-plane against; the agent must be on the edge's right-hand side
(outside a counter-clockwise polygon) to see it.

A two-vertex obstacle (a line segment) is a chain of two vertices, both
convex, so it has an edge in each direction and blocks from both sides.
"""

from __future__ import annotations

import math
from typing import Iterable, List, Optional, Sequence, Union

import numpy as np

from .types import Polygon, Segment, Vector2


class ObstacleVertex:
    """One vertex of an obstacle chain (RVO2's ``Obstacle``).

    ``orca_edge`` holds the numbers ORCA's C code reads of the edge to ``next``
    (:func:`edge_numbers`), set once the chain is complete (:func:`build_obstacle_edges`);
    a vertex is not changed after that. Without it (None) the C code reads the
    attributes themselves, the same numbers more slowly.
    """

    __slots__ = ("point", "unit_dir", "is_convex", "next", "prev", "obstacle_id", "orca_edge")

    def __init__(self, point: Vector2, obstacle_id: int) -> None:
        self.point = point
        self.unit_dir: Vector2 = (0.0, 0.0)
        self.is_convex = True
        self.next: Optional["ObstacleVertex"] = None
        self.prev: Optional["ObstacleVertex"] = None
        self.obstacle_id = obstacle_id
        self.orca_edge: Optional[tuple] = None

    def __repr__(self) -> str:
        return f"ObstacleVertex({self.point}, convex={self.is_convex})"


def left_of(a: Vector2, b: Vector2, c: Vector2) -> float:
    """Positive when ``c`` lies to the left of the directed line a->b (RVO2's leftOf)."""
    return (a[0] - c[0]) * (b[1] - a[1]) - (a[1] - c[1]) * (b[0] - a[0])


def edge_numbers(vertex: ObstacleVertex) -> tuple:
    """The edge from ``vertex`` to its ``next`` as 14 floats, all that ORCA's obstacle
    half-plane (``orca_ros/core/orca/_orca2d.c``) reads of it, in one tuple so that it
    reads one attribute instead of a dozen: both end points, both vertices' unit
    directions, the directions of both vertices' ``prev``, both convexity flags (1.0/0.0).
    """
    a, b = vertex, vertex.next
    return (float(a.point[0]), float(a.point[1]), float(b.point[0]), float(b.point[1]),
            float(a.unit_dir[0]), float(a.unit_dir[1]), float(b.unit_dir[0]),
            float(b.unit_dir[1]), float(a.prev.unit_dir[0]), float(a.prev.unit_dir[1]),
            float(b.prev.unit_dir[0]), float(b.prev.unit_dir[1]),
            1.0 if a.is_convex else 0.0, 1.0 if b.is_convex else 0.0)


def _chain(points: Sequence[Vector2], obstacle_id: int) -> List[ObstacleVertex]:
    vertices = [ObstacleVertex(p, obstacle_id) for p in points]
    n = len(vertices)
    for i, vertex in enumerate(vertices):
        nxt = vertices[(i + 1) % n]
        prv = vertices[i - 1]
        vertex.next = nxt
        vertex.prev = prv
        dx = nxt.point[0] - vertex.point[0]
        dy = nxt.point[1] - vertex.point[1]
        length = math.hypot(dx, dy)
        vertex.unit_dir = (dx / length, dy / length)
        if n == 2:
            vertex.is_convex = True
        else:
            vertex.is_convex = left_of(prv.point, vertex.point, nxt.point) >= 0.0
    for vertex in vertices:
        vertex.orca_edge = edge_numbers(vertex)
    return vertices


class ObstacleEdges(list):
    """A list of obstacle vertices (each standing for the edge to its ``next``) that
    also answers which edges are near a point, from a spatial index built on first use
    (:class:`~orca_ros.core.geometry.segment_index.SegmentIndex`): a map's walls are
    tens of thousands of edges. Build a new one when the edges change.

    ``lasting``: when the list is lasting walls followed by short-lived ones (a laser's,
    replaced with every scan: :meth:`joined`), the lasting part on its own, whose index
    then serves every list it starts, so a new scan does not index a map's walls again.
    """

    _segment_index = None
    lasting: "Optional[ObstacleEdges]" = None

    @classmethod
    def joined(cls, lasting: "ObstacleEdges", short_lived: Sequence[ObstacleVertex]
               ) -> "ObstacleEdges":
        """``lasting`` then ``short_lived``, one list that remembers its lasting part."""
        edges = cls(lasting)
        edges.extend(short_lived)
        edges.lasting = lasting
        return edges

    @property
    def segment_index(self):
        """The edges ``point``-``next.point`` as a :class:`SegmentIndex`, in list order."""
        if self._segment_index is None or len(self._segment_index) != len(self):
            from .segment_index import SegmentIndex

            self._segment_index = SegmentIndex(
                [e.point for e in self] or np.zeros((0, 2)),
                [e.next.point for e in self] or np.zeros((0, 2)))
        return self._segment_index

    def near(self, position: Vector2, reach: float) -> np.ndarray:
        """Indices (ascending) of the edges within ``reach`` of ``position``, and perhaps a
        few more: from the index of the lasting part, and every short-lived edge."""
        if self.lasting is not None:
            return np.concatenate([self.lasting.segment_index.near(position, reach),
                                   np.arange(len(self.lasting), len(self))])
        return self.segment_index.near(position, reach)


def build_obstacle_edges(obstacles: Iterable[Union[Segment, Polygon]]) -> "ObstacleEdges":
    """Turn segments and counter-clockwise polygons into RVO2 vertex chains.

    Returns every vertex; each vertex stands for the edge to its ``next``.
    """
    edges = ObstacleEdges()
    for obstacle_id, obstacle in enumerate(obstacles):
        if isinstance(obstacle, Segment):
            edges.extend(_chain((obstacle.a, obstacle.b), obstacle_id))
        elif isinstance(obstacle, Polygon):
            edges.extend(_chain(obstacle.vertices, obstacle_id))
        else:
            raise TypeError(f"obstacle {obstacle_id} is neither a Segment nor a Polygon: "
                            f"{type(obstacle).__name__}")
    return edges


def dist_sq_point_segment(a: Vector2, b: Vector2, c: Vector2) -> float:
    """Squared distance from point ``c`` to segment a-b (RVO2's distSqPointLineSegment)."""
    abx = b[0] - a[0]
    aby = b[1] - a[1]
    r = ((c[0] - a[0]) * abx + (c[1] - a[1]) * aby) / (abx * abx + aby * aby)
    if r < 0.0:
        dx, dy = c[0] - a[0], c[1] - a[1]
    elif r > 1.0:
        dx, dy = c[0] - b[0], c[1] - b[1]
    else:
        dx, dy = c[0] - (a[0] + r * abx), c[1] - (a[1] + r * aby)
    return dx * dx + dy * dy
