"""Global guidance around obstacles: a visibility graph of inflated obstacle corners.

ORCA is local: an agent whose straight line to its waypoint runs through a
wall presses against the wall forever. When that line is blocked, the agent
instead heads for the first corner of the shortest path on a visibility graph
(Lozano-Pérez and Wesley 1979) whose nodes are the obstacles' convex corners
pushed out by ``clearance``. Segments (two-vertex obstacles) get two nodes
around each end; where two meet end to end (an outline drawn as segments), one node
outside the bend, as a polygon's corner would.

The way is found from a field of every corner's distance to the goal along the roadmap,
computed once per goal and kept: each period then only asks which corners the robot sees.
With thousands of corners the exact graph (every pair that sees each other) is out of
reach, so a large roadmap links corners only to nearby ones (:data:`ALL_PAIRS_NODES`). Which
walls block a line is asked of a spatial index
(:class:`~orca_ros.core.geometry.segment_index.SegmentIndex`). A map's walls (tens of
thousands of edges, most of them speckle) are planned round on a grid instead
(:mod:`~orca_ros.core.robot.navigation_grid`); both answer the questions of
:class:`WallQueries`.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import List, NamedTuple, Optional, Sequence

import numpy as np

from ..geometry.obstacles import ObstacleVertex
from ..geometry.segment_index import SegmentIndex, closest_points_on_segments
from ..geometry.types import Vector2
from . import _guidance

SIGHT_LINE = 1e-9
"""Clearance (m) of a line that merely must not cross or touch a wall."""


ALL_PAIRS_NODES = 400
"""Up to this many corners the roadmap links every pair that sees each other (the
exact visibility graph). A map's walls have thousands: then each corner is linked to
those within the link radius (:data:`LINK_RADIUS`, :data:`LINK_DEGREE`), its Delaunay
neighbours and theirs, where they see each other, and a path's long straight stretches
become chains of such links."""

LINK_RADIUS = 6.0
"""m: on a large roadmap, corners at most this near each other are linked where they see
each other; less where corners are dense (:data:`LINK_DEGREE`)."""

LINK_DEGREE = 24
"""On a large roadmap, the link radius is such that a corner has about this many others
within it, by the corners' mean density (at least 1 m)."""

LINK_NEAREST = 12
"""On a large roadmap, a path from a point may start with this many corners nearest to
it, besides those within the link radius and the corners linked to any of them."""

SAME_LENGTH = 1e-9
"""Ways whose lengths differ by less than this share (of at least a metre) are equally
short (:meth:`VisibilityRoadmap.next_corner`): rounding decides nothing."""

PASSED_CORNER = 0.01
"""m: a corner this near the robot is behind it, not ahead."""

PASSAGE_SAMPLES_PER_WIDTH = 4
"""Points per avoidance radius along a line at which :meth:`VisibilityRoadmap.passable`
measures the passage's width."""

DOOR_NODE_GRID = 0.01
"""m: door nodes (:meth:`VisibilityRoadmap._doors`) nearer each other than this are one."""

GOAL_FIELDS_KEPT = 256
"""Goals whose distance fields a roadmap keeps (a fleet's goals, reused every period)."""


MAP_EDGES = 1000
"""Walls of more edges than this are a map's: guidance plans round a map's lasting walls
only (:func:`guidance_walls`), on a grid
(:class:`~orca_ros.core.robot.navigation_grid.NavigationGrid`)."""


def guidance_walls(edges: Sequence[ObstacleVertex]) -> Sequence[ObstacleVertex]:
    """The walls guidance plans round: the lasting part of ``edges`` where they have one
    (an :class:`~orca_ros.core.geometry.obstacles.ObstacleEdges`' ``lasting``: a map, the
    scenario's walls, followed by a laser's short-lived walls), else all of them.

    A laser's walls change with every scan, and a planner is built once per set of walls:
    planned round, they would cost a new planner at every scan. ORCA and the safety filter
    avoid the short-lived walls, and a robot stalled at them goes round them
    (:func:`~orca_ros.core.robot.preferred_velocity.unplanned_wall_discs`)."""
    lasting = getattr(edges, "lasting", None)
    return edges if lasting is None else lasting


def unplanned_walls(edges: Sequence[ObstacleVertex]) -> Sequence[ObstacleVertex]:
    """The edges guidance does not plan round (:func:`guidance_walls`): the short-lived
    ones beside a map's; none where it plans round all."""
    lasting = getattr(edges, "lasting", None)
    if lasting is None or guidance_walls(edges) is not lasting:
        return ()
    return edges[len(lasting):]


def same_guidance_walls(before: Sequence[ObstacleVertex],
                        after: Sequence[ObstacleVertex]) -> bool:
    """Whether guidance plans round the same walls (the same list) after a change of the
    edges as before: a laser's new walls beside a map's; then the roadmaps built round
    them still hold, and are not built again (seconds on a map, at every scan)."""
    return guidance_walls(after) is guidance_walls(before)


_JOINT_DONE = ()


def _segment_joints(edges: Sequence[ObstacleVertex]) -> dict:
    """Where exactly two segments (two-vertex obstacles) meet end to end, as a map's
    contours do: the point, and the two segments' other ends."""
    ends: dict = {}
    for vertex in edges:
        if vertex.next is not None and vertex.next.next is vertex:
            ends.setdefault(vertex.point, []).append(vertex.next.point)
    return {point: tuple(others) for point, others in ends.items() if len(others) == 2}


def _joint_corner(point: Vector2, first: Vector2, second: Vector2,
                  clearance: float) -> List[Vector2]:
    """The roadmap node where two segments meet at ``point`` (their other ends ``first``
    and ``second``): on the bisector of the wide side, ``clearance`` from both; none
    where they run on in one line (a wall with no corner); where they fold back sharper
    than the node's cap (three clearances out), two nodes round each end, as for
    segments that do not meet."""
    p = np.asarray(point, dtype=float)
    u = np.asarray(first, dtype=float) - p
    w = np.asarray(second, dtype=float) - p
    u, w = u / np.hypot(*u), w / np.hypot(*w)
    outward = -(u + w)
    norm = float(np.hypot(*outward))
    if norm < 1e-9:
        return []
    half_sine = 0.5 * float(np.hypot(*(u - w)))  # sin of half the angle between them
    if half_sine < 1.0 / 3.0:  # the node would lie more than three clearances out
        nodes = []
        for along in (u, w):
            side = np.array([-along[1], along[0]])
            nodes += [tuple(p + clearance * (-along + sign * side)) for sign in (1.0, -1.0)]
        return nodes
    return [tuple(p + clearance / half_sine * outward / norm)]


def _segment_index(edges: Sequence[ObstacleVertex]) -> SegmentIndex:
    index = getattr(edges, "segment_index", None)
    if index is not None:
        return index
    return SegmentIndex(np.array([e.point for e in edges], dtype=float).reshape(-1, 2),
                        np.array([e.next.point for e in edges], dtype=float).reshape(-1, 2))


class WallQueries:
    """What guidance asks of the walls it plans round, whichever planner it uses: whether
    a robot can drive a straight line (:meth:`passable`), how far a point is from a wall.
    ``clearance``: the planner's; lines are checked at slightly less
    (``check_clearance``) so that its own paths, which run at exactly that distance,
    count as free."""

    def __init__(self, edges: Sequence[ObstacleVertex], clearance: float) -> None:
        self.clearance = clearance
        self.check_clearance = 0.98 * clearance
        self.walls = _segment_index(edges)

    def visible(self, p: np.ndarray, q: np.ndarray,
                clearance: Optional[float] = None) -> np.ndarray:
        """Whether each straight segment p-q keeps ``clearance`` (default:
        ``check_clearance``) from every edge."""
        return ~self.walls.blocked(p, q, self._clearance(clearance))

    def _clearance(self, clearance: Optional[float]) -> float:
        return self.check_clearance if clearance is None else clearance

    @property
    def door_nodes(self) -> np.ndarray:
        """Points in the middle of doors one robot wide that the planner routes through
        (:class:`VisibilityRoadmap`); none here."""
        return np.zeros((0, 2))

    def passable(self, p: np.ndarray, q: np.ndarray, clearance: float,
                 passage: Optional[float] = None) -> np.ndarray:
        """Whether a robot can drive each straight line ``p[k]``-``q[k]``: it keeps
        ``clearance`` from every wall (:meth:`visible`), and, with ``passage`` (the
        radius the robot keeps from walls when it avoids them), it goes through no gap
        narrower than ``2 passage`` (:meth:`_pinched`). A line that keeps ``passage``
        from every wall goes through none. Over walls without a spatial index (up to
        :data:`~orca_ros.core.geometry.segment_index.BRUTE_FORCE_SEGMENTS`), one call into
        C for all the lines (``_guidance.passable``)."""
        p = np.ascontiguousarray(np.asarray(p, dtype=float).reshape(-1, 2))
        q = np.ascontiguousarray(np.asarray(q, dtype=float).reshape(-1, 2))
        walls = self.walls
        if not walls.indexed:  # (its Python: _passable_lines, where near() is every wall)
            seen = _guidance.passable(p, q, len(p), clearance,
                                      0.0 if passage is None else passage,
                                      PASSAGE_SAMPLES_PER_WIDTH, walls.a, walls.b, len(walls))
            return np.frombuffer(seen, dtype=bool)
        return self._passable_lines(p, q, clearance, passage)

    def _passable_lines(self, p: np.ndarray, q: np.ndarray, clearance: float,
                        passage: Optional[float]) -> np.ndarray:
        """:meth:`passable` line by line, over walls with a spatial index: the visibility
        of all the lines, then the gaps of each line that grazes a wall."""
        seen = self.visible(p, q, clearance)
        if passage is None or passage <= clearance or not seen.any():
            return seen
        grazing = seen & ~self.visible(p, q, passage)
        for k in np.flatnonzero(grazing):
            seen[k] = not self._pinched(p[k], q[k], passage)
        return seen

    def _pinched(self, p: np.ndarray, q: np.ndarray, passage: float) -> bool:
        """Whether the line ``p``-``q`` (which crosses no wall) goes through a gap
        narrower than ``2 passage``: at a point along it, the nearest wall on its left
        and the nearest on its right are less than that apart (their distances summed;
        points every quarter ``passage``, those within ``passage`` of either end left
        out: the robot is already there, or the goal is). The walls near the line
        are tested in C (``_guidance.pinched``)."""
        length = float(np.hypot(*(q - p)))
        if length <= 2.0 * passage:
            return False
        local = self.walls.near(0.5 * (p + q), 0.5 * length + 2.0 * passage)
        a, b = self.walls.a[local], self.walls.b[local]
        return _guidance.pinched(  # (its Python: test/helpers/guidance_reference.py)
            float(p[0]), float(p[1]), float(q[0]), float(q[1]), passage,
            PASSAGE_SAMPLES_PER_WIDTH, a, b, len(a))

    def wall_distance(self, point: Vector2) -> float:
        """Distance from ``point`` to the nearest edge (infinite without edges)."""
        return self.walls.distance(point)


class VisibilityRoadmap(WallQueries):
    """Shortest collision-free polylines among obstacles for discs of one clearance.

    Nodes stand off the walls' convex corners by the ``clearance``; two nodes are linked
    where the straight line between them keeps it. A door narrower than twice the
    clearance but as wide as twice the ``passage`` (the distance the robot keeps from
    walls as it avoids them) has no pair of corner nodes that sees through it: such a
    door gets a node of its own in its middle, linked where lines keep the passage
    (:meth:`_doors`; none without ``passage``)."""

    def __init__(self, edges: Sequence[ObstacleVertex], clearance: float,
                 passage: Optional[float] = None) -> None:
        super().__init__(edges, clearance)
        self.passage = passage
        candidates: List[Vector2] = []
        joints = _segment_joints(edges)
        for vertex in edges:
            if not vertex.is_convex:
                continue
            px, py = vertex.point
            din, dout = vertex.prev.unit_dir, vertex.unit_dir
            nx, ny = din[1] + dout[1], -din[0] - dout[0]  # sum of the edges' outward normals
            norm = math.hypot(nx, ny)
            joint = joints.get(vertex.point) if norm < 1e-9 else None
            if joint is not None:  # where two segments meet: one node, or none
                if joint is not _JOINT_DONE:
                    candidates.extend(_joint_corner(vertex.point, *joint, clearance))
                    joints[vertex.point] = _JOINT_DONE
                continue
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
        nodes = nodes[~self.walls.blocked(nodes, nodes, self.check_clearance)]
        doors = self._doors(edges)
        self.doors = len(doors)  # the last nodes
        self._door_nodes: Optional[np.ndarray] = None  # those linked: door_nodes
        nodes = np.concatenate([nodes, doors])
        self.nodes = nodes
        m = len(nodes)
        self.linked_locally = m > ALL_PAIRS_NODES
        if self.linked_locally:
            from scipy.spatial import cKDTree  # scipy where guidance works: a node starts light

            self._kdtree = cKDTree(nodes)
            area = max(float(np.prod(nodes.max(axis=0) - nodes.min(axis=0))), 1e-9)
            self.link_radius = min(max(math.sqrt(LINK_DEGREE * area / (math.pi * m)), 1.0),
                                   LINK_RADIUS)
            i, j = self._local_pairs()
        else:
            i, j = np.triu_indices(m, 1)
        visible = self.visible(nodes[i], nodes[j])
        if self.doors:  # a link from a door keeps the passage from walls, not the clearance
            door = (i >= m - self.doors) | (j >= m - self.doors)
            visible[door] = self.passable(nodes[i[door]], nodes[j[door]], self.passage,
                                          self.passage)
        i, j = i[visible], j[visible]
        length = np.linalg.norm(nodes[i] - nodes[j], axis=1)
        from scipy.sparse import csr_matrix

        self.node_graph = csr_matrix((np.concatenate([length, length]),
                                      (np.concatenate([i, j]), np.concatenate([j, i]))),
                                     shape=(m, m))
        self._goal_fields: "OrderedDict[tuple, np.ndarray]" = OrderedDict()

    @property
    def door_nodes(self) -> np.ndarray:
        """The nodes in doors one robot wide (:meth:`_doors`) that lead somewhere: linked
        to two other nodes at least (a gap's middle inside a wall given as its outline's
        segments is linked to none)."""
        doors = self._door_nodes
        if doors is None:
            first = len(self.nodes) - self.doors
            links = np.asarray((self.node_graph[first:] > 0).sum(axis=1)).reshape(-1)
            doors = self._door_nodes = self.nodes[first:][links >= 2]
        return doors

    def _doors(self, edges: Sequence[ObstacleVertex]) -> np.ndarray:
        """Nodes in the middle of the gaps a robot passes but the roadmap's corners do not
        see through: from a wall's convex corner to the nearest point of each wall
        segment near it, at least ``2 passage`` and less than ``2 clearance`` apart, where
        the middle keeps the passage from every wall (a gap between the corner and its
        own wall's other side has its middle on or in that wall). Walls given as
        polygons or as their outlines' segments (``obstacle_server``) give the same
        doors. None without ``passage``."""
        if self.passage is None or self.passage >= self.clearance:
            return np.zeros((0, 2))
        doors = []
        a, b = self.walls.a, self.walls.b
        for vertex in edges:
            if not vertex.is_convex:
                continue
            point = np.asarray(vertex.point, dtype=float)
            near = self.walls.near(point, 2.0 * self.clearance)
            if not len(near):
                continue
            closest = closest_points_on_segments(point, a[near], b[near])
            gap = np.linalg.norm(closest - point, axis=1)
            across = (gap >= 2.0 * self.passage) & (gap < 2.0 * self.clearance)
            doors.extend(0.5 * (point + closest[across]))
        if not doors:
            return np.zeros((0, 2))
        doors = np.unique(np.round(np.array(doors) / DOOR_NODE_GRID) * DOOR_NODE_GRID, axis=0)
        return doors[~self.walls.blocked(doors, doors, 0.98 * self.passage)]

    def _local_pairs(self):
        """Corner pairs (i < j) to try linking: those within the link radius, the edges
        of the corners' Delaunay triangulation (neighbours in every direction, however
        far), and the pairs two triangulation edges apart (round a corner that a wall
        hides)."""
        from scipy.sparse import csr_matrix
        from scipy.spatial import Delaunay, QhullError

        m = len(self.nodes)
        pairs = [self._kdtree.query_pairs(self.link_radius, output_type="ndarray").reshape(-1, 2)]
        try:
            triangulation = Delaunay(self.nodes)
        except QhullError:  # every corner on one line
            order = np.argsort(self.nodes[:, 0] + self.nodes[:, 1] * 1e-6)
            pairs.append(np.stack([order[:-1], order[1:]], 1))
        else:
            indptr, neighbours = triangulation.vertex_neighbor_vertices
            own = np.repeat(np.arange(m), np.diff(indptr))
            adjacency = csr_matrix((np.ones(len(own)), (own, neighbours)), shape=(m, m))
            two_hops = (adjacency @ adjacency + adjacency).tocoo()
            pairs.append(np.stack([two_hops.row, two_hops.col], 1))
        pairs = np.concatenate(pairs)
        pairs = np.sort(pairs, axis=1)
        pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
        return pairs[:, 0], pairs[:, 1]

    def _around(self, point: np.ndarray) -> np.ndarray:
        """On a large roadmap, the corners a path from ``point`` may start with: those
        within the link radius, the :data:`LINK_NEAREST` nearest, and the corners
        linked to any of them; not one within :data:`PASSED_CORNER` of ``point``."""
        near = self._kdtree.query_ball_point(point, self.link_radius)
        _, nearest = self._kdtree.query(point, k=min(LINK_NEAREST, len(self.nodes)))
        around = np.union1d(np.asarray(near, dtype=int), np.atleast_1d(nearest))
        # and the corners those are linked to (a link may be longer than the radius)
        linked = self.node_graph[around].indices
        around = np.union1d(around, linked)
        # a corner the robot stands on is passed
        return around[np.linalg.norm(self.nodes[around] - point, axis=1) > PASSED_CORNER]

    def next_corner(self, start: Vector2, goal: Vector2,
                    start_clearance: Optional[float] = None,
                    goal_clearance: Optional[float] = None,
                    passage: Optional[float] = None,
                    previous: Optional[Vector2] = None) -> Optional[Vector2]:
        """The first corner of the shortest path from ``start`` to ``goal``, or None if none exists.

        ``start_clearance`` (default: the roadmap's) applies to the first leg,
        so that an agent brushing a wall can still see the corners around it, and
        with ``passage`` the first leg goes through no gap narrower than twice that
        (:meth:`passable`); ``goal_clearance`` to the last, so that a goal closer to
        a wall than the roadmap's clearance can still be seen. ``previous`` (the corner
        headed for until now) plays no part: a roadmap's corners stay where they are.
        """
        m = len(self.nodes)
        if m == 0:
            return None
        start = np.asarray(start, dtype=float)
        corners = self._corners_near(start)
        from_start = self.passable(np.repeat(start[None], len(corners), 0),
                                   self.nodes[corners], self._clearance(start_clearance),
                                   passage)
        if not from_start.any():
            return self._nearest_seen(start, corners)
        corners = corners[from_start]
        to_goal = self._goal_field(np.asarray(goal, dtype=float), goal_clearance)[corners]
        ahead = np.linalg.norm(self.nodes[corners] - start, axis=1)
        total = ahead + to_goal
        least = float(total.min())
        if not math.isfinite(least):
            return None
        # Of equally short ways, the farthest corner in sight: a corner on the straight
        # line to another (the robot beside it) is no turn to head for.
        shortest = np.flatnonzero(total <= least + SAME_LENGTH * max(1.0, least))
        return tuple(self.nodes[corners[shortest[np.argmax(ahead[shortest])]]])

    def _corners_near(self, point: np.ndarray) -> np.ndarray:
        """The corners a path from (or to) ``point`` may start (or end) with: every corner,
        or on a large roadmap those :meth:`_around` it; not one within
        :data:`PASSED_CORNER` of ``point`` (the robot stands on it: it is passed)."""
        if self.linked_locally:
            return self._around(point)
        return np.flatnonzero(np.linalg.norm(self.nodes - point, axis=1) > PASSED_CORNER)

    def _nearest_seen(self, start: np.ndarray, corners: np.ndarray) -> Optional[Vector2]:
        """Pressed against a wall, no corner is cleanly visible: the nearest of
        ``corners`` that the agent's centre can see at all (never one across a wall);
        with none, None (head for the goal itself)."""
        seen = self.visible(np.repeat(start[None], len(corners), 0), self.nodes[corners],
                            SIGHT_LINE)
        if not seen.any():
            return None
        candidates = corners[seen]
        nearest = candidates[np.argmin(np.linalg.norm(self.nodes[candidates] - start, axis=1))]
        return tuple(self.nodes[nearest])

    def _goal_field(self, goal: np.ndarray, goal_clearance: Optional[float]) -> np.ndarray:
        """Each corner's shortest distance to ``goal`` along the roadmap."""
        key = (float(goal[0]), float(goal[1]), goal_clearance)
        field = self._goal_fields.get(key)
        if field is not None:
            self._goal_fields.move_to_end(key)
            return field
        m = len(self.nodes)
        corners = self._corners_near(goal)
        sees_goal = self.visible(self.nodes[corners], np.repeat(goal[None], len(corners), 0),
                                 goal_clearance)
        corners = corners[sees_goal]
        length = np.linalg.norm(self.nodes[corners] - goal, axis=1)
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import dijkstra

        graph = self.node_graph.tocoo()
        rows = np.concatenate([graph.row, np.full(len(corners), m)])
        cols = np.concatenate([graph.col, corners])
        graph = csr_matrix((np.concatenate([graph.data, length]), (rows, cols)),
                           shape=(m + 1, m + 1))
        field = dijkstra(graph, directed=False, indices=m)[:m]
        self._goal_fields[key] = field
        if len(self._goal_fields) > GOAL_FIELDS_KEPT:
            self._goal_fields.popitem(last=False)
        return field


class Detour(NamedTuple):
    """A way round robots standing in the way (:func:`detour_around_discs`)."""

    waypoint: Vector2
    side: int  # clockwise -1, anticlockwise +1
    walled: bool = False  # walls leave no room either side of the blocker: a passage too
    # narrow to pass it
    blocker: int = -1  # the disc the straight line meets first (its index in ``discs``)
    kept: bool = False  # the ``side`` asked for was kept (not chosen afresh)


def detour_around_discs(position: Vector2, target: Vector2,
                        discs: Sequence[tuple], side: int = 0,
                        offset: float = 0.0, walls: Sequence[tuple] = (),
                        clearance: float = 0.0, kept_for: int = -1) -> Optional[Detour]:
    """Where to head to get round the robots standing between ``position`` and ``target``.

    ORCA is local: a robot whose target lies behind robots that stand still
    (parked on their goals, or jammed) finds no velocity that makes progress and
    stays there, the same local minimum as a wall without guidance. ``discs``
    are ``(centre, radius, ...)`` with the radius as the robot's centre must keep
    from that centre (the two robots' combined radius, a configuration-space
    disc). Discs closer together than their two radii leave no room between
    them and form one cluster. When the straight segment to ``target`` crosses
    a disc that does not contain ``target`` (a robot standing on the target
    itself is not a way round), the cluster's angular extent as seen from
    ``position`` gives two ways round, clockwise (side -1) and anticlockwise
    (+1); each heads for the tangent point of the disc that bounds the extent,
    pushed ``offset`` further out. The shorter way (``|w - p| + |t - w|``) is
    taken, or ``side`` if given, still open and not more than half as long again, while
    the disc ``kept_for`` (an index into ``discs``; -1: any) is in the cluster (a side
    chosen for one cluster is no choice for the next; ``kept`` says whether it was
    kept). A way is closed where a wall
    (``walls``: segments ``(a, b)``, which the robot's centre keeps ``clearance``
    from) leaves no room between itself and the disc the way goes round, on the
    way's side of that disc; where walls close both, both are taken as open
    (going straight at the cluster would strand the robot there). Where walls
    leave no room on either side of the ``blocker`` itself (the disc the straight
    line meets first), the robot stands in a passage too narrow to pass it, and the
    answer says so (``walled``: the caller may give way). Returns a :class:`Detour`,
    or None when the way is clear or the cluster surrounds the robot. Ties go to the
    disc listed first and to the clockwise way. In C (``_guidance.detour_around_discs``).
    """
    px, py = position
    tx, ty = target
    way = _guidance.detour_around_discs(  # (its Python: test/helpers/guidance_reference.py)
        px, py, tx, ty, discs, side, offset, walls, clearance, kept_for)
    return None if way is None else Detour((way[0], way[1]), way[2], way[3], way[4], way[5])
