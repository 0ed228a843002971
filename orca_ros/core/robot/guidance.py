"""Global guidance around obstacles: a visibility graph of inflated obstacle corners.

ORCA is local: an agent whose straight line to its waypoint runs through a
wall presses against the wall forever. When that line is blocked, the agent
instead heads for the first corner of the shortest path on a visibility graph
(Lozano-Pérez and Wesley 1979) whose nodes are the obstacles' convex corners
pushed out by ``clearance``. Segments (two-vertex obstacles) get two nodes
around each end.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence

import numpy as np
from scipy.sparse.csgraph import dijkstra

from ..geometry.obstacles import ObstacleVertex
from ..geometry.types import Vector2

SIGHT_LINE = 1e-9
"""Clearance (m) of a line that merely must not cross or touch a wall."""


def segments_min_distance(p: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance between segments p-q (N, 2) and a-b (E, 2), as an (N, E) array."""
    def point_segment(points, s0, s1):
        d = s1 - s0
        length_sq = np.maximum((d * d).sum(-1), 1e-300)
        t = np.clip(((points - s0) * d).sum(-1) / length_sq, 0.0, 1.0)
        closest = s0 + t[..., None] * d
        return np.sqrt(((points - closest) ** 2).sum(-1))

    P, Q = p[:, None, :], q[:, None, :]
    A, B = a[None, :, :], b[None, :, :]
    distance = np.minimum(np.minimum(point_segment(P, A, B), point_segment(Q, A, B)),
                          np.minimum(point_segment(A, P, Q), point_segment(B, P, Q)))

    def cross(o, u, v):
        return (u[..., 0] - o[..., 0]) * (v[..., 1] - o[..., 1]) - \
            (u[..., 1] - o[..., 1]) * (v[..., 0] - o[..., 0])

    d1, d2 = cross(A, B, P), cross(A, B, Q)
    d3, d4 = cross(P, Q, A), cross(P, Q, B)
    crossing = (d1 * d2 < 0) & (d3 * d4 < 0)
    return np.where(crossing, 0.0, distance)


class VisibilityRoadmap:
    """Shortest collision-free polylines among obstacles for discs of one clearance."""

    def __init__(self, edges: Sequence[ObstacleVertex], clearance: float) -> None:
        self.clearance = clearance
        self.check_clearance = 0.98 * clearance
        self.seg_a = np.array([e.point for e in edges], dtype=float).reshape(-1, 2)
        self.seg_b = np.array([e.next.point for e in edges], dtype=float).reshape(-1, 2)
        candidates: List[Vector2] = []
        for vertex in edges:
            if not vertex.is_convex:
                continue
            px, py = vertex.point
            din, dout = vertex.prev.unit_dir, vertex.unit_dir
            nx, ny = din[1] + dout[1], -din[0] - dout[0]  # sum of the edges' outward normals
            norm = math.hypot(nx, ny)
            if norm < 1e-9:  # the end of a segment: two nodes around the tip
                back = (-dout[0], -dout[1])
                side = (-dout[1], dout[0])
                for sign in (1.0, -1.0):
                    candidates.append((px + clearance * (back[0] + sign * side[0]),
                                       py + clearance * (back[1] + sign * side[1])))
                continue
            cos_half = norm / 2.0
            offset = min(clearance / max(cos_half, 1e-9), 3.0 * clearance)
            candidates.append((px + offset * nx / norm, py + offset * ny / norm))
        nodes = np.array(candidates, dtype=float).reshape(-1, 2)
        if len(nodes) and len(self.seg_a):
            keep = segments_min_distance(nodes, nodes, self.seg_a, self.seg_b).min(axis=1) \
                >= self.check_clearance
            nodes = nodes[keep]
        self.nodes = nodes
        m = len(nodes)
        self.node_graph = np.zeros((m, m))
        if m:
            i, j = np.triu_indices(m, 1)
            visible = self.visible(nodes[i], nodes[j])
            length = np.linalg.norm(nodes[i] - nodes[j], axis=1)
            self.node_graph[i[visible], j[visible]] = length[visible]
            self.node_graph[j[visible], i[visible]] = length[visible]

    def visible(self, p: np.ndarray, q: np.ndarray,
                clearance: Optional[float] = None) -> np.ndarray:
        """Whether each straight segment p-q keeps ``clearance`` from every edge.

        The default is slightly less than the roadmap's own clearance, so that
        the graph's edges, which run at exactly that distance, count as free.
        """
        p = np.asarray(p, dtype=float).reshape(-1, 2)
        q = np.asarray(q, dtype=float).reshape(-1, 2)
        if len(self.seg_a) == 0:
            return np.ones(len(p), dtype=bool)
        limit = self.check_clearance if clearance is None else clearance
        return segments_min_distance(p, q, self.seg_a, self.seg_b).min(axis=1) >= limit

    def wall_distance(self, point: Vector2) -> float:
        """Distance from ``point`` to the nearest edge (infinite without edges)."""
        if len(self.seg_a) == 0:
            return math.inf
        p = np.asarray(point, dtype=float).reshape(1, 2)
        return float(segments_min_distance(p, p, self.seg_a, self.seg_b).min())

    def next_corner(self, start: Vector2, goal: Vector2,
                    start_clearance: Optional[float] = None,
                    goal_clearance: Optional[float] = None) -> Optional[Vector2]:
        """The first corner of the shortest path from ``start`` to ``goal``, or None if none exists.

        ``start_clearance`` (default: the roadmap's) applies to the first leg,
        so that an agent brushing a wall can still see the corners around it;
        ``goal_clearance`` to the last, so that a goal closer to a wall than
        the roadmap's clearance can still be seen.
        """
        m = len(self.nodes)
        if m == 0:
            return None
        start_arr = np.asarray(start, dtype=float)
        goal_arr = np.asarray(goal, dtype=float)
        graph = np.zeros((m + 2, m + 2))
        graph[:m, :m] = self.node_graph
        from_start = self.visible(np.repeat(start_arr[None], m, 0), self.nodes, start_clearance)
        to_goal = self.visible(self.nodes, np.repeat(goal_arr[None], m, 0), goal_clearance)
        graph[m, :m] = np.where(from_start, np.linalg.norm(self.nodes - start_arr, axis=1), 0.0)
        graph[:m, m + 1] = np.where(to_goal, np.linalg.norm(self.nodes - goal_arr, axis=1), 0.0)
        if not from_start.any():
            # Pressed against a wall: no corner is cleanly visible. Head for the
            # nearest corner that the agent's centre can see at all (never one
            # across a wall); with none, for the goal itself.
            seen = self.visible(np.repeat(start_arr[None], m, 0), self.nodes, SIGHT_LINE)
            if not seen.any():
                return None
            candidates = np.flatnonzero(seen)
            nearest = candidates[np.argmin(np.linalg.norm(self.nodes[candidates] - start_arr,
                                                          axis=1))]
            return tuple(self.nodes[nearest])
        distances, predecessors = dijkstra(graph, directed=True, indices=m,
                                           return_predecessors=True)
        if not np.isfinite(distances[m + 1]):
            return None
        node = m + 1
        while predecessors[node] != m:
            node = predecessors[node]
        return tuple(self.nodes[node]) if node < m else None


def _nearest_on_segment(a: Vector2, b: Vector2, c: Vector2) -> Vector2:
    """The point of the segment ``a``-``b`` nearest to point ``c``."""
    abx, aby = b[0] - a[0], b[1] - a[1]
    length_sq = abx * abx + aby * aby
    t = 0.0 if length_sq < 1e-24 else \
        min(max(((c[0] - a[0]) * abx + (c[1] - a[1]) * aby) / length_sq, 0.0), 1.0)
    return (a[0] + t * abx, a[1] + t * aby)


def _segment_point_distance(a: Vector2, b: Vector2, c: Vector2) -> float:
    """Distance from point ``c`` to the segment ``a``-``b``."""
    return math.dist(_nearest_on_segment(a, b, c), c)


def detour_around_discs(position: Vector2, target: Vector2,
                        discs: Sequence[tuple], side: int = 0,
                        offset: float = 0.0, walls: Sequence[tuple] = (),
                        clearance: float = 0.0) -> Optional[tuple]:
    """Where to head to get round the robots standing between ``position`` and ``target``.

    ORCA is local: a robot whose target lies behind robots that stand still
    (parked on their goals, or jammed) finds no velocity that makes progress and
    stays there, the same local minimum as a wall without guidance. ``discs``
    are ``(centre, radius)`` with the radius as the robot's centre must keep
    from that centre (the two robots' combined radius, a configuration-space
    disc). Discs closer together than their two radii leave no room between
    them and form one cluster. When the straight segment to ``target`` crosses
    a disc that does not contain ``target`` (a robot standing on the target
    itself is not a way round), the cluster's angular extent as seen from
    ``position`` gives two ways round, clockwise (side -1) and anticlockwise
    (+1); each heads for the tangent point of the disc that bounds the extent,
    pushed ``offset`` further out. The shorter way (``|w - p| + |t - w|``) is
    taken, or ``side`` if given and still open. A way is closed where a wall
    (``walls``: segments ``(a, b)``, which the robot's centre keeps ``clearance``
    from) leaves no room between itself and the disc the way goes round, on the
    way's side of that disc; where walls close both, both are taken as open
    (going straight at the cluster instead stranded robots: rvo2_blocks
    diff-drive 87 of 100). Returns ``(waypoint, side)``, or None when the way is
    clear or the cluster surrounds the robot.
    """
    px, py = position
    tx, ty = target
    centres = [(float(c[0]), float(c[1])) for c, _ in discs]
    radii = [float(r) for _, r in discs]
    blocking = [i for i, (c, r) in enumerate(zip(centres, radii))
                if math.dist(c, target) > r and _segment_point_distance(position, target, c) < r]
    if not blocking:
        return None
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
    for i in cluster:
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
        ways[way] = ((wx, wy), length, _shut_by_a_wall((cx, cy), radii[i], (wx, wy), walls,
                                                       clearance))
    if not all(way[2] for way in ways.values()):
        ways = {s: way for s, way in ways.items() if not way[2]}
    if side in ways and (-side not in ways or ways[side][1] <= 1.5 * ways[-side][1]):
        return ways[side][0], side
    way = min(ways, key=lambda s: ways[s][1])
    return ways[way][0], way


def _shut_by_a_wall(centre: Vector2, radius: float, waypoint: Vector2,
                    walls: Sequence[tuple], clearance: float) -> bool:
    """Whether a wall leaves the robot no room to pass the disc (``centre``,
    ``radius``: where the robot's centre may not go) on the side of its ``waypoint``:
    the wall's nearest point is nearer the centre than ``radius + clearance``, and on
    the waypoint's side of the disc."""
    cx, cy = centre
    for a, b in walls:
        wx, wy = _nearest_on_segment(a, b, centre)
        nx, ny = wx - cx, wy - cy
        if math.hypot(nx, ny) < radius + clearance and \
                nx * (waypoint[0] - cx) + ny * (waypoint[1] - cy) > 0.0:
            return True
    return False
