"""How well a robot drove: figures computed from the positions it went through.

Everything here takes one robot's track, the times (s) and positions (m) it was seen
at, plus where it was going, and nothing else: the world's recorded frames
(``orca-ros bench``, :meth:`~orca_ros.core.sim.world.ScenarioRun.result`) feed it now,
and the same functions can be fed from the odometry an observer reads. Pure numpy, no
ROS. Positions may have two or three columns; headings and turning are taken in the
horizontal plane (the first two).

The figures, per robot (:class:`MotionQuality`):

- :func:`retreat`: the largest distance the robot went back from its goal after having
  been nearer (m), measured along the rest of its path (:func:`remaining_path_length`),
  on its way: until it first reached its goal;
- :func:`off_goal`: how far it was pushed off its goal after it had reached it (m);
- :func:`time_off_goal`: how long it stood beyond its goal tolerance after it had
  reached it (s), and whether it was at its goal at the end;
- :func:`stops`: how often a moving robot came to rest away from its goal
  (:data:`STOP_SPEED_MPS`, :data:`STOP_MIN_DURATION_S`);
- :func:`time_standing`: how long those rests lasted together (s);
- :func:`turn_reversals` and :func:`turn_reversals_per_minute`: how often its turning
  changed side (:data:`TURN_RATE_RAD_S`), per minute of moving time;
- :func:`steering_reversals`: how often its steering command changed side
  (:func:`steering_signal`, :data:`STEER_DEAD_BAND`), per minute of moving time: the
  controller's choice flipping, apart from honest turns along a curved route;
- :func:`turned_on_goal`: how far a robot with a body heading turned once it had
  arrived (degrees): spinning on its goal, or turning to come back to it;
- the social-navigation set the crowd-navigation benchmarks report (Francis et al.,
  *Principles and Guidelines for Evaluating Social Robot Navigation Algorithms*, 2023),
  taken on the way (from the start of the record to the robot's first arrival within
  its goal tolerance; its whole record if it never arrived), as one of their episodes
  ends when the robot reaches its goal: success (it arrived), :func:`timed_out`,
  :func:`failed_to_progress`, :func:`time_stalled`, :func:`path_length` and :func:`spl`
  (Anderson et al. 2018), and the mean and largest acceleration and jerk
  (:func:`accelerations_and_jerks`).

The path-length ratio (path driven over the planned polyline) is not here: the world
records it already (:attr:`~orca_ros.core.sim.world.RunResult.path_length_ratio`).

Where the crowd-navigation literature has a figure of the kind, it is named in the
function's docstring. None of them is the literature's exactly: the literature's are
defined for one robot among people, usually against a planned path; these are for
every robot of a fleet, from its track alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..geometry.frames import wrap_angle

STOP_SPEED_MPS = 0.05
"""Below this speed (m/s) a robot is at rest; at or above it, it moves."""
STOP_MIN_DURATION_S = 0.5
"""A rest counts as a stop when it lasts at least this long (s); shorter ones (a robot
that turns back passes through zero speed) are not stops."""
TURN_RATE_RAD_S = 0.1
"""A yaw rate (rad/s) must exceed this in magnitude on both sides of a sign change for
the change to count as a turn reversal; smaller wobbles are not counted."""
STEER_DEAD_BAND = 0.1
"""The steering signal (:func:`steering_signal`: rad/s for a unicycle's commanded turn
rate, rad for a holonomic robot's commanded direction off its preferred one) must exceed
this in magnitude on both sides of a sign change for the change to count as a steering
reversal: noise-level flips are not counted."""
PROGRESS_WINDOW_S = 10.0
""":func:`failed_to_progress` looks at the last this many seconds of a record (s)."""
PROGRESS_MIN_M = 0.1
"""Over :data:`PROGRESS_WINDOW_S` a robot must come at least this much (m) nearer to its
goal than it had ever been before for it to be making progress."""
MAX_TIME_SLACK_S = 1e-6
"""A record whose last time is within this (s) of the scenario's ``max_time`` ran to it."""


@dataclass(frozen=True)
class MotionQuality:
    """One robot's motion-quality figures (SI units).

    ``retreat_m``: :func:`retreat`; ``stops``: :func:`stops`; ``time_standing_s``:
    :func:`time_standing`; ``turn_reversals``: :func:`turn_reversals`;
    ``moving_time_s``: time spent moving (:func:`moving_time`);
    ``turn_reversals_per_min``: reversals per minute of moving time (None: it never
    moved); ``off_goal_m``: :func:`off_goal` (0: it never reached its goal, or stayed);
    ``time_off_goal_s``: :func:`time_off_goal`; ``at_goal_at_end``: within its goal
    tolerance at the last sample.

    The social-navigation set, on the way (to its first arrival): ``arrived``: it came
    within its goal tolerance (success); ``timed_out``: :func:`timed_out` (None: the
    scenario's ``max_time`` was not given); ``failed_to_progress``:
    :func:`failed_to_progress`; ``time_stalled_s``: :func:`time_stalled`;
    ``path_length_m``: :func:`path_length` on the way; ``shortest_path_m``: the
    scenario's reference polyline length (None: not given); ``spl``: :func:`spl`;
    ``acceleration_mean_mps2``, ``acceleration_max_mps2``, ``jerk_mean_mps3``,
    ``jerk_max_mps3``: the mean and largest magnitudes of
    :func:`accelerations_and_jerks` (None: too few samples).

    ``steering_reversals``: :func:`steering_reversals` of its recorded steering command on
    the way, and ``steering_reversals_per_min`` per minute of moving time (None: no
    steering command was recorded, or it never moved). ``turned_on_goal_deg``:
    :func:`turned_on_goal` (None: no body heading, or it never arrived).

    A figure that could not be computed is None, and ``unavailable`` names it with the
    reason (the figures are taken after a run from its record: one that fails must not
    cost the run or the other figures).
    """

    retreat_m: Optional[float]
    stops: Optional[int]
    time_standing_s: Optional[float]
    turn_reversals: Optional[int]
    moving_time_s: Optional[float]
    turn_reversals_per_min: Optional[float]
    off_goal_m: Optional[float] = 0.0
    unavailable: Mapping[str, str] = field(default_factory=dict)
    time_off_goal_s: Optional[float] = 0.0
    at_goal_at_end: Optional[bool] = None
    arrived: Optional[bool] = None
    timed_out: Optional[bool] = None
    failed_to_progress: Optional[bool] = None
    time_stalled_s: Optional[float] = None
    path_length_m: Optional[float] = None
    shortest_path_m: Optional[float] = None
    spl: Optional[float] = None
    acceleration_mean_mps2: Optional[float] = None
    acceleration_max_mps2: Optional[float] = None
    jerk_mean_mps3: Optional[float] = None
    jerk_max_mps3: Optional[float] = None
    steering_reversals: Optional[int] = None
    steering_reversals_per_min: Optional[float] = None
    turned_on_goal_deg: Optional[float] = None

    def as_dict(self) -> Dict[str, object]:
        figures = {"retreat_m": _round(self.retreat_m), "off_goal_m": _round(self.off_goal_m),
                   "stops": self.stops,
                   "time_standing_s": _round(self.time_standing_s),
                   "turn_reversals": self.turn_reversals,
                   "moving_time_s": _round(self.moving_time_s),
                   "turn_reversals_per_min": _round(self.turn_reversals_per_min),
                   "time_off_goal_s": _round(self.time_off_goal_s),
                   "at_goal_at_end": self.at_goal_at_end,
                   "steering_reversals": self.steering_reversals,
                   "steering_reversals_per_min": _round(self.steering_reversals_per_min),
                   "turned_on_goal_deg": _round(self.turned_on_goal_deg)}
        figures.update({name: getattr(self, name) for name in SOCIAL_FIGURES})
        for name in SOCIAL_FIGURES:
            if isinstance(figures[name], float):
                figures[name] = _round(figures[name])
        if self.unavailable:
            figures["unavailable"] = dict(self.unavailable)
        return figures


SOCIAL_FIGURES = ("arrived", "timed_out", "failed_to_progress", "time_stalled_s",
                  "path_length_m", "shortest_path_m", "spl", "acceleration_mean_mps2",
                  "acceleration_max_mps2", "jerk_mean_mps3", "jerk_max_mps3")
"""The social-navigation set of :class:`MotionQuality`, by field name."""
FIGURES = ("retreat_m", "off_goal_m", "stops", "time_standing_s", "turn_reversals",
           "moving_time_s", "turn_reversals_per_min", "time_off_goal_s",
           "at_goal_at_end") + SOCIAL_FIGURES
"""The figures of :class:`MotionQuality`, by field name."""


def unavailable_figures(reason: str) -> MotionQuality:
    """A robot none of whose figures could be computed, for ``reason``."""
    return MotionQuality(None, None, None, None, None, None, None,
                         {name: reason for name in FIGURES}, None, None)


def _reason(error: Exception) -> str:
    """An error as the reason a figure is unavailable: its type and message."""
    return f"{type(error).__name__}: {error}"


def _round(value: Optional[float], digits: int = 6) -> Optional[float]:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


# --- distance to go and retreat -------------------------------------------------------

CORNER_CLEARANCE_M = 0.001
"""How far (m) from each wall corner :class:`DistancesRoundWalls` turns round it: a path
round the walls is that much longer than the true shortest one at each corner it turns
(under a millimetre a corner)."""
EVERY_CORNER = 64
"""Up to this many corners a point's distance is tried through every corner it sees
(exact); beyond, through the :data:`NEAREST_CORNERS` nearest."""
NEAREST_CORNERS = 24
"""Past :data:`EVERY_CORNER` corners: how many, nearest first, a point's shortest way is
tried through."""
SAME_POINT_M = 1e-4
"""Positions nearer than this (m) are one point to :class:`DistancesRoundWalls` (a robot
standing still is measured once)."""
SIGHT_PAIRS_PER_QUERY = 50_000
"""Point-corner sight lines checked at once (bounds the memory of a long run)."""


class DistancesRoundWalls:
    """The shortest distance from any point to a target round the walls (m), for the
    distance still to go where walls stand between a robot and its goal: robots go
    round a block, and the straight distance to the goal grows while they do.

    The shortest way round polygonal walls runs straight from corner to corner: it is
    the shortest path in the visibility graph of the walls' convex corners (Lozano-Perez
    and Wesley, *An algorithm for planning collision-free paths among polyhedral
    obstacles*, 1979), here :class:`~orca_ros.core.robot.guidance.VisibilityRoadmap`
    with its corners :data:`CORNER_CLEARANCE_M` off the walls. A point that sees the
    target is its straight distance from it; one that does not, the least over the
    corners it sees of the distance to the corner plus the corner's along the graph
    (Dijkstra from the target, once per target). Exact but for a millimetre a corner
    turned where every corner is tried (up to :data:`EVERY_CORNER`); past that, the
    :data:`NEAREST_CORNERS` nearest each point are. So a robot pushed sideways in the
    open gives back what it really gives back, whichever way it goes. Round a map's
    walls :func:`round_walls_of` takes :class:`DistancesOnGrid` instead."""

    def __init__(self, outlines: Sequence[Sequence[Sequence[float]]]) -> None:
        from scipy.sparse import coo_matrix
        from scipy.spatial import cKDTree

        from ..geometry.obstacles import build_obstacle_edges
        from ..geometry.types import Polygon, Segment
        from ..robot.guidance import VisibilityRoadmap

        walls = [Segment(o[0][:2], o[1][:2]) if len(o) == 2 else
                 Polygon(tuple(tuple(v[:2]) for v in o)) for o in outlines]
        self.roadmap = VisibilityRoadmap(build_obstacle_edges(walls), CORNER_CLEARANCE_M)
        self.corners = self.roadmap.nodes
        self._links = coo_matrix(self.roadmap.node_graph)  # its links' lengths
        self._tree = cKDTree(self.corners) if len(self.corners) > EVERY_CORNER else None
        self.fields: dict = {}

    def _sees(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Whether each line ``p[k]``-``q[k]`` crosses no wall (checked in parts)."""
        from ..robot.guidance import SIGHT_LINE

        seen = np.zeros(len(p), dtype=bool)
        for start in range(0, len(p), SIGHT_PAIRS_PER_QUERY):
            part = slice(start, start + SIGHT_PAIRS_PER_QUERY)
            seen[part] = self.roadmap.visible(p[part], q[part], SIGHT_LINE)
        return seen

    def corner_distances(self, target: Sequence[float]) -> np.ndarray:
        """Each corner's shortest distance round the walls to ``target`` (inf where none)."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import dijkstra

        key = (float(target[0]), float(target[1]))
        field = self.fields.get(key)
        if field is None:
            m = len(self.corners)
            goal = np.array(key)
            sees = self._sees(self.corners, np.repeat(goal[None], m, 0))
            linked = np.flatnonzero(sees)
            length = np.linalg.norm(self.corners[linked] - goal, axis=1)
            rows = np.concatenate([self._links.row, np.full(len(linked), m)])
            cols = np.concatenate([self._links.col, linked])
            graph = csr_matrix((np.concatenate([self._links.data, length]), (rows, cols)),
                               shape=(m + 1, m + 1))
            field = dijkstra(graph, directed=False, indices=m)[:m] if m else np.zeros(0)
            self.fields[key] = field
        return field

    def __call__(self, positions: np.ndarray, target: Sequence[float]) -> np.ndarray:
        """The distance round the walls from each of ``positions`` (N, D) to ``target``;
        ``inf`` where walls cut the point off from it (:func:`remaining_path_length` then
        takes the straight distance)."""
        goal = np.asarray(target, dtype=float)[:2]
        points = np.asarray(positions, dtype=float)
        if not points.size:  # no position: nothing to measure (an empty leg of a path)
            return np.zeros(0)
        points = points.reshape(len(points), -1)[:, :2]
        # a robot standing still is one point, measured once
        _, first, back = np.unique(np.round(points / SAME_POINT_M).astype(np.int64), axis=0,
                                   return_index=True, return_inverse=True)
        unique = points[first]
        distance = np.full(len(unique), np.inf)
        straight = self._sees(unique, np.repeat(goal[None], len(unique), 0))
        distance[straight] = np.linalg.norm(unique[straight] - goal, axis=1)
        blind = np.flatnonzero(~straight)
        field = self.corner_distances(goal)
        if len(blind) and len(self.corners):
            if self._tree is None:
                corners = np.broadcast_to(np.arange(len(self.corners)),
                                          (len(blind), len(self.corners)))
            else:
                _, corners = self._tree.query(unique[blind], k=NEAREST_CORNERS)
            point = np.repeat(blind, corners.shape[1])
            corner = corners.reshape(-1)
            reachable = np.isfinite(field[corner])
            point, corner = point[reachable], corner[reachable]
            seen = self._sees(unique[point], self.corners[corner])
            point, corner = point[seen], corner[seen]
            total = np.linalg.norm(unique[point] - self.corners[corner], axis=1) + field[corner]
            np.minimum.at(distance, point, total)
        return distance[back.reshape(-1)]


MAX_GRID_CELLS = 4_000_000
"""The most cells :class:`DistancesOnGrid` lays over a floor."""


class DistancesOnGrid:
    """:class:`DistancesRoundWalls` round a map's walls (more than
    :data:`~orca_ros.core.robot.guidance.MAP_EDGES` edges, as guidance plans round them
    on a grid): a visibility graph over a 200 m map's 225,000 edges would take minutes.

    The floor is a grid of ``cell`` m (coarser where that would pass
    :data:`MAX_GRID_CELLS`) over the walls, the targets and ``margin`` m round them;
    cells a wall (a polygon or a segment, given as vertex lists) touches are blocked,
    grown by one cell so that no diagonal step slips through a thin wall. The
    distance is the least-cost path over the grid to the eight neighbours, each step
    costing its length (``skimage.graph.MCP_Geometric``): within 8% of the Euclidean,
    exact along rows, columns and diagonals, and never rising along a straight line
    towards the target in the open. It is read at the cell of each point (the nearest
    free cell for a point in a wall), so a robot's retreat round walls is known to a
    cell. Fields are computed once per target."""

    def __init__(self, outlines: Sequence[Sequence[Sequence[float]]],
                 targets: Sequence[Sequence[float]], cell: float = 0.1,
                 margin: float = 2.0) -> None:
        from scipy import ndimage
        from skimage.draw import line, polygon

        corners = np.array([p[:2] for outline in outlines for p in outline] +
                           [t[:2] for t in targets], dtype=float).reshape(-1, 2)
        span = corners.max(axis=0) - corners.min(axis=0) + 2.0 * margin
        # at most MAX_GRID_CELLS cells: a coarser grid over a large floor
        self.cell = max(float(cell), float(np.sqrt(span[0] * span[1] / MAX_GRID_CELLS)))
        self.low = corners.min(axis=0) - margin
        self.columns_rows = np.ceil((corners.max(axis=0) + margin - self.low)
                                    / self.cell).astype(int) + 1
        blocked = np.zeros(self.columns_rows[::-1], dtype=bool)  # rows: y, columns: x
        for outline in outlines:
            cells = self._cells(np.asarray(outline, dtype=float)[:, :2])
            if len(cells) >= 3:
                rr, cc = polygon(cells[:, 1], cells[:, 0], blocked.shape)
                blocked[rr, cc] = True
            for (c0, r0), (c1, r1) in zip(cells, np.roll(cells, -1, axis=0)):
                rr, cc = line(r0, c0, r1, c1)
                inside = (rr >= 0) & (rr < blocked.shape[0]) & (cc >= 0) & \
                    (cc < blocked.shape[1])
                blocked[rr[inside], cc[inside]] = True
        self.blocked = ndimage.binary_dilation(blocked)
        # for a point whose cell is blocked: the nearest free cell
        self.nearest_free = ndimage.distance_transform_edt(
            self.blocked, return_distances=False, return_indices=True)
        self.fields: dict = {}

    def _cells(self, points: np.ndarray) -> np.ndarray:
        """(column, row) of each point's cell."""
        return np.clip(np.round((points - self.low) / self.cell).astype(int), 0,
                       self.columns_rows - 1)

    def __call__(self, positions: np.ndarray, target: Sequence[float]) -> np.ndarray:
        """The distance round the walls from each of ``positions`` (N, D) to ``target``;
        ``inf`` where walls cut the point off from it (:func:`remaining_path_length` then
        takes the straight distance)."""
        from skimage.graph import MCP_Geometric

        key = (float(target[0]), float(target[1]))
        field = self.fields.get(key)
        if field is None:
            costs = np.where(self.blocked, np.inf, 1.0)
            col, row = self._cells(np.array([key]))[0]
            costs[row, col] = 1.0  # a target by a wall is still reached
            field, _ = MCP_Geometric(costs).find_costs([(row, col)])
            field = field * self.cell
            self.fields[key] = field
        points = np.asarray(positions, dtype=float)
        if not points.size:
            return np.zeros(0)
        cells = self._cells(points.reshape(len(points), -1)[:, :2])
        rows, cols = cells[:, 1], cells[:, 0]
        free_rows, free_cols = self.nearest_free[0][rows, cols], self.nearest_free[1][rows, cols]
        return field[free_rows, free_cols]


class RouteProgress:
    """Each robot's progress along its scenario route, for judging arrival from poses
    alone: the waypoint it heads for moves on past each waypoint but the goal that the
    robot comes within ``waypoint_tolerance`` of, in order, as its own path following
    moves on (:meth:`~orca_ros.core.robot.preferred_velocity.FollowsWaypoints.current_target`).
    A robot is at its goal only on its last leg: a route that passes its goal's point
    before its end (a shuttle back and forth, a loop) has not arrived there."""

    def __init__(self, routes: Sequence[Sequence[Sequence[float]]],
                 tolerances: Sequence[float]) -> None:
        self.routes = [np.asarray(r, dtype=float) for r in routes]
        self.tolerances = list(tolerances)
        self.index = [0] * len(self.routes)
        self.last = [len(r) - 1 for r in self.routes]
        self.moving_on = [k for k, last in enumerate(self.last) if last > 0]

    @classmethod
    def of(cls, scenario, names: Optional[Sequence[str]] = None) -> "RouteProgress":
        """The routes of ``scenario``'s robots (a :class:`~orca_ros.core.scenario.loader.Scenario`;
        of ``names``, in that order)."""
        agents = scenario.agents if names is None else [scenario.agent(n) for n in names]
        return cls([a.waypoints for a in agents],
                   [scenario.waypoint_tolerance_of(a) for a in agents])

    def on_last_leg(self, k: int, position: Sequence[float]) -> bool:
        """Robot ``k`` at ``position``: moved on past what it passed; whether it heads
        for its goal."""
        route, index, last = self.routes[k], self.index[k], self.last[k]
        while index < last and math.dist(position, route[index]) <= self.tolerances[k]:
            index += 1
        self.index[k] = index
        return index == last

    def on_last_legs(self, positions: np.ndarray) -> np.ndarray:
        """:meth:`on_last_leg` for every robot at once (``positions``: (N, D))."""
        for k in self.moving_on:
            if self.index[k] < self.last[k]:
                self.on_last_leg(k, positions[k])
        return np.array(self.index) == np.array(self.last)


def remaining_path_length(positions: np.ndarray, waypoints: Sequence[Sequence[float]],
                          waypoint_tolerance: float,
                          round_walls: Optional[DistancesRoundWalls] = None) -> np.ndarray:
    """The distance still to go at every position (m): to the waypoint being headed for,
    then along the remaining waypoints to the last one (the goal).

    The waypoint headed for moves on as the robots' own path following moves it
    (:meth:`~orca_ros.core.robot.preferred_velocity.FollowsWaypoints.current_target`):
    past every waypoint but the last that the robot came within ``waypoint_tolerance``
    (m) of, and never back (driving on to a waypoint already passed so is going away,
    by up to that tolerance). With one waypoint this is the straight distance to the
    goal. With ``round_walls`` the distance to the waypoint headed for is the distance
    round the walls (:class:`DistancesRoundWalls`), so going round a block is not
    moving away; without, it is the straight distance. The supervisor's detours are not
    waypoints.

    ``positions``: (T, D) in time order; ``waypoints``: (K, D), the last one the goal.
    """
    positions = np.asarray(positions, dtype=float)
    if not positions.size:
        return np.zeros(0)
    points = np.asarray(waypoints, dtype=float).reshape(-1, positions.shape[1])
    legs = np.linalg.norm(np.diff(points, axis=0), axis=1)
    # after[k]: the path's length from waypoint k to the goal
    after = np.concatenate([np.cumsum(legs[::-1])[::-1], [0.0]]) if len(legs) else \
        np.zeros(1)
    remaining = np.empty(len(positions))
    start = 0  # the first sample at which waypoint k is the one headed for
    for k, point in enumerate(points):
        end = len(positions)
        if k < len(points) - 1:  # passed at the first sample within tolerance of it
            near = np.flatnonzero(np.linalg.norm(positions[start:] - point, axis=1)
                                  <= waypoint_tolerance)
            if len(near):
                end = start + int(near[0])
        if end == start:  # already within tolerance of the next waypoint: an empty leg
            continue
        leg = np.linalg.norm(positions[start:end] - point, axis=1)
        if round_walls is not None:  # where walls cut a point off the grid: straight
            around = round_walls(positions[start:end], point)
            leg = np.where(np.isfinite(around), around, leg)
        remaining[start:end] = leg + after[k]
        start = end
        if start >= len(positions):
            break
    return remaining


def retreat(distance_to_go: Sequence[float]) -> float:
    """The largest distance a robot moved away from its goal after having been nearer
    (m): the maximum over time of ``d(t) - min(d(s) for s <= t)``, ``d`` the distance
    still to go (:func:`remaining_path_length`). 0 for a robot that never lost ground.

    A good driver gives way by slowing or stepping aside, not by backing off; this
    measures the backing off. It is close in spirit to the "failure to progress"
    of Francis et al., *Principles and Guidelines for Evaluating Social Robot
    Navigation Algorithms* (2023), which counts whether a robot stops getting nearer;
    this figure says how much ground it gave back.
    """
    d = np.asarray(distance_to_go, dtype=float)
    if not len(d):
        return 0.0
    return float(np.max(d - np.minimum.accumulate(d)))


def first_arrival(positions: np.ndarray, goal: Sequence[float], goal_tolerance: float
                  ) -> Optional[int]:
    """The index of the first position within ``goal_tolerance`` (m) of ``goal``, or None."""
    near = np.flatnonzero(np.linalg.norm(np.asarray(positions, dtype=float) -
                                         np.asarray(goal, dtype=float), axis=1)
                          <= goal_tolerance)
    return int(near[0]) if len(near) else None


def off_goal(positions: np.ndarray, goal: Sequence[float], goal_tolerance: float) -> float:
    """How far a robot was pushed off its goal after it had first come within
    ``goal_tolerance`` of it (m; 0 if it never did): :func:`retreat` of its distance to
    the goal from then on. A robot standing on its goal is pushed off by others passing
    through it; that is not turning back on the way (:func:`retreat` stops at the first
    arrival), and a scenario whose robots leave at their goals (``on_goal: remove``)
    has none."""
    arrived = first_arrival(positions, goal, goal_tolerance)
    if arrived is None:
        return 0.0
    return retreat(np.linalg.norm(np.asarray(positions, dtype=float)[arrived:] -
                                  np.asarray(goal, dtype=float), axis=1))


def time_off_goal(times: Sequence[float], positions: np.ndarray, goal: Sequence[float],
                  goal_tolerance: float) -> float:
    """How long a robot was beyond ``goal_tolerance`` of its goal after it had first come
    within it (s; 0 if it never did): each interval between samples counts by the sample
    that begins it. A goal held is one reached and not left for long; a robot pushed off
    that never comes back adds up to the end of the run."""
    arrived = first_arrival(positions, goal, goal_tolerance)
    if arrived is None:
        return 0.0
    times = np.asarray(times, dtype=float)[arrived:]
    away = np.linalg.norm(np.asarray(positions, dtype=float)[arrived:] -
                          np.asarray(goal, dtype=float), axis=1) > goal_tolerance
    return float(np.sum(np.diff(times)[away[:-1]]))


# --- speed, rests and stops ----------------------------------------------------------

def interval_speeds(times: Sequence[float], positions: np.ndarray) -> np.ndarray:
    """The speed over each interval between consecutive samples (m/s), (T-1,)."""
    times = np.asarray(times, dtype=float)
    positions = np.asarray(positions, dtype=float)
    if len(times) < 2:
        return np.zeros(0)
    dt = np.diff(times)
    step = np.linalg.norm(np.diff(positions, axis=0), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(dt > 0.0, step / np.where(dt > 0.0, dt, 1.0), 0.0)


def moving_time(times: Sequence[float], positions: np.ndarray,
                speed_threshold: float = STOP_SPEED_MPS) -> float:
    """Time spent moving (s): the intervals whose speed reached ``speed_threshold``."""
    speeds = interval_speeds(times, positions)
    return float(np.sum(np.diff(np.asarray(times, dtype=float))[speeds >= speed_threshold]))


def stops_and_rests(times: Sequence[float], positions: np.ndarray,
                    goal: Sequence[float], goal_tolerance: float,
                    speed_threshold: float = STOP_SPEED_MPS,
                    min_duration: float = STOP_MIN_DURATION_S) -> List[Tuple[float, float]]:
    """The stops of a track, as ``(start, end)`` times (s).

    A stop: a run of consecutive intervals at a speed below ``speed_threshold`` (m/s),
    each ending farther than ``goal_tolerance`` (m) from ``goal``, that lasts at least
    ``min_duration`` (s) and comes after the robot first moved at ``speed_threshold``
    or more. A robot that has not moved yet is waiting to start, not stopping; one
    still at rest when the track ends stopped there (stuck until the run's end).
    """
    times = np.asarray(times, dtype=float)
    positions = np.asarray(positions, dtype=float)
    speeds = interval_speeds(times, positions)
    if not len(speeds):
        return []
    away = np.linalg.norm(positions[1:] - np.asarray(goal, dtype=float), axis=1) > \
        goal_tolerance
    moving = speeds >= speed_threshold
    resting = ~moving & away & (np.cumsum(moving) > 0)  # at rest, away, after moving
    found = []
    start = None
    for k, rest in enumerate(resting.tolist() + [False]):
        if rest and start is None:
            start = k
        elif not rest and start is not None:
            begin, end = float(times[start]), float(times[k])
            if end - begin >= min_duration - 1e-9:
                found.append((begin, end))
            start = None
    return found


def stops(times: Sequence[float], positions: np.ndarray, goal: Sequence[float],
          goal_tolerance: float, speed_threshold: float = STOP_SPEED_MPS,
          min_duration: float = STOP_MIN_DURATION_S) -> int:
    """How often a moving robot came to rest away from its goal
    (:func:`stops_and_rests`: below :data:`STOP_SPEED_MPS` for at least
    :data:`STOP_MIN_DURATION_S`, farther than ``goal_tolerance`` from ``goal``).

    The count behind the "time not moving" of SEAN 2.0's metrics and the "stalled
    time" of Francis et al. (2023): how many times, not how long.
    """
    return len(stops_and_rests(times, positions, goal, goal_tolerance, speed_threshold,
                               min_duration))


def time_standing(times: Sequence[float], positions: np.ndarray, goal: Sequence[float],
                  goal_tolerance: float, speed_threshold: float = STOP_SPEED_MPS,
                  min_duration: float = STOP_MIN_DURATION_S) -> float:
    """Total time at rest away from the goal (s): the stops' durations added up
    (:func:`stops_and_rests`; waiting before the first move and standing on the goal
    are not counted).

    SEAN 2.0's "time not moving" and Francis et al.'s (2023) "stalled time" measure
    the same kind of time; SEAN 2.0's counts every moment without motion, this one
    only rests away from the goal that follow motion.
    """
    return float(sum(end - begin for begin, end in
                     stops_and_rests(times, positions, goal, goal_tolerance,
                                     speed_threshold, min_duration)))


# --- heading and turn reversals ------------------------------------------------------

def yaw_rates(times: Sequence[float], positions: np.ndarray,
              yaws: Optional[Sequence[float]] = None,
              speed_threshold: float = STOP_SPEED_MPS) -> np.ndarray:
    """The heading's rate of change (rad/s), NaN where it is not defined.

    With ``yaws`` (the body's yaw at every sample, rad: a differential-drive robot's
    heading, which the world records), the rate over each interval, (T-1,). Without,
    the heading is the direction of motion over each interval where the speed reaches
    ``speed_threshold`` in the horizontal plane (a holonomic robot has no body heading
    that matters; one that climbs or sinks straight up or down has none), and the rate
    is taken between consecutive intervals, over the time between their middles,
    (T-2,); NaN next to an interval at rest.
    """
    times = np.asarray(times, dtype=float)
    if yaws is not None:
        dt = np.diff(times)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(dt > 0.0, wrap_angle(np.diff(np.asarray(yaws, dtype=float))) /
                            np.where(dt > 0.0, dt, 1.0), np.nan)
    positions = np.asarray(positions, dtype=float)
    if len(times) < 3:
        return np.zeros(0)
    step = np.diff(positions[:, :2], axis=0)
    heading = np.arctan2(step[:, 1], step[:, 0])
    heading[interval_speeds(times, positions[:, :2]) < speed_threshold] = np.nan
    middles = 0.5 * (times[1:] + times[:-1])
    dt = np.diff(middles)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(dt > 0.0, wrap_angle(np.diff(heading)) / np.where(dt > 0.0, dt, 1.0),
                        np.nan)


def turn_reversals(rates: Sequence[float], rate_threshold: float = TURN_RATE_RAD_S) -> int:
    """Sign changes of the yaw rate (rad/s) whose magnitude exceeds ``rate_threshold``
    on both sides: the rates below it (and undefined ones) are skipped, and every
    change of sign between the remaining consecutive ones counts. A swerve out and
    back in is one or two; a robot that weaves counts one per change of side.

    A count of the kind behind "path irregularity" (SocNavBench; SEAN 2.0: the
    rotation beyond what the planned path needs) and arena-rosnav's evaluation's
    "angle over length" and "roughness": those add up how much a robot turns, this
    counts how often it turns back, which is what makes a robot look undecided.
    """
    r = np.asarray(rates, dtype=float)
    signs = np.sign(r[np.abs(r) > rate_threshold])  # NaN compares False: dropped
    return int(np.count_nonzero(signs[1:] != signs[:-1])) if len(signs) > 1 else 0


def turned_on_goal(yaws: Sequence[float], arrival: Optional[int]) -> Optional[float]:
    """How far a robot with a body heading turned (degrees, every turn added up, either
    way) from the sample of its first arrival (``arrival``) on: a unicycle that turns for
    the goal point itself spins on its goal; one pushed off it turns to come back.
    None when it never arrived."""
    if arrival is None:
        return None
    after = np.asarray(yaws, dtype=float)[arrival:]
    return float(np.degrees(np.nansum(np.abs(wrap_angle(np.diff(after)))))) \
        if len(after) > 1 else 0.0


def steering_signal(linear_command: bool, angular: float, velocity: Sequence[float],
                    preferred: Sequence[float],
                    speed_threshold: float = STOP_SPEED_MPS) -> float:
    """The side a robot's steering command turns it to, signed (left positive), for
    :func:`steering_reversals`: for a unicycle (``linear_command``) its commanded turn
    rate ``angular`` (rad/s); for a holonomic robot the angle (rad, in [-pi, pi]) from
    its preferred velocity to its commanded ``velocity`` (m/s), NaN where either is
    slower than ``speed_threshold`` (no direction to compare).

    Why not the heading: along a planned curve (guidance corners, waypoints) the
    heading turns honestly, and its rate changes sign at every bend; the preferred
    velocity follows the curve, so the command's angle off it does not. What stays is
    the avoidance's choice of side (ORCA's velocity left or right of the preferred
    one), whose flips are what make a robot look undecided."""
    if linear_command:
        return float(angular)
    vx, vy = float(velocity[0]), float(velocity[1])
    px, py = float(preferred[0]), float(preferred[1])
    if math.hypot(vx, vy) < speed_threshold or math.hypot(px, py) < speed_threshold:
        return math.nan
    return math.atan2(px * vy - py * vx, px * vx + py * vy)


def steering_reversals(signal: Sequence[float], dead_band: float = STEER_DEAD_BAND) -> int:
    """Sign changes of a steering signal (:func:`steering_signal`) whose magnitude exceeds
    ``dead_band`` on both sides, as :func:`turn_reversals` counts the yaw rate's: values
    within the dead band and undefined ones (NaN) are skipped."""
    return turn_reversals(signal, dead_band)


def turn_reversals_per_minute(reversals: int, moving_time_s: float) -> Optional[float]:
    """Turn reversals per minute of moving time; None for a robot that never moved."""
    if moving_time_s <= 0.0:
        return None
    return 60.0 * reversals / moving_time_s


# --- the social-navigation set ------------------------------------------------------

def path_length(positions: np.ndarray) -> float:
    """The length of the polyline through ``positions`` (m): the path driven."""
    positions = np.asarray(positions, dtype=float)
    if len(positions) < 2:
        return 0.0
    return float(np.sum(np.linalg.norm(np.diff(positions, axis=0), axis=1)))


def spl(arrived: bool, shortest: float, driven: float) -> float:
    """Success weighted by path length, one robot's term (Anderson et al., *On Evaluation
    of Embodied Navigation Agents*, 2018): ``S l / max(p, l)``, ``S`` 1 if it arrived
    else 0, ``l`` the shortest path (here the scenario's reference polyline, start
    through its waypoints to its goal), ``p`` the path it drove to its first arrival.
    A robot that arrived along its shortest path scores 1, one that drove 1.25 times it
    0.8, one that never arrived 0; a robot whose shortest and driven paths are both 0
    (it starts on its goal) scores ``S``. A run's SPL is the mean over its robots."""
    if not arrived:
        return 0.0
    longest = max(float(driven), float(shortest))
    return 1.0 if longest <= 0.0 else float(shortest) / longest


def timed_out(times: Sequence[float], arrived: bool, max_time: float) -> bool:
    """Whether a robot timed out: it had not arrived when its record reached the run's
    ``max_time`` (within :data:`MAX_TIME_SLACK_S`; the record's times are the run's
    clock, 0 at its start). A record that ends earlier (a run stopped by hand) has no
    time-outs; a robot that arrived did not time out."""
    times = np.asarray(times, dtype=float)
    return bool(not arrived and len(times) and times[-1] >= max_time - MAX_TIME_SLACK_S)


def failed_to_progress(times: Sequence[float], distance_to_go: Sequence[float],
                       arrived: bool, window: float = PROGRESS_WINDOW_S,
                       min_progress: float = PROGRESS_MIN_M) -> bool:
    """Whether a robot failed to progress: it never arrived, and over the last ``window``
    seconds of its record it came less than ``min_progress`` (m) nearer to its goal than
    it had ever been before them. ``distance_to_go`` is the distance still to go at each
    sample (:func:`remaining_path_length`, round the walls where there are some), so a
    robot going round a block is progressing. A robot that arrived, or whose record is
    shorter than ``window``, has not failed.

    Francis et al. (2023) name this outcome: "the robot has not made progress toward its
    goal for a pre-specified time"; it is judged here once, at the end of the record,
    so with :func:`timed_out` it tells a robot stuck (it failed to progress) from one
    still on its way when time ran out (timed out, not failed)."""
    times = np.asarray(times, dtype=float)
    d = np.asarray(distance_to_go, dtype=float)
    if arrived or not len(times) or times[-1] - times[0] < window:
        return False
    last = times >= times[-1] - window
    if last.all():
        return False
    return bool(np.min(d[last]) > np.min(d[~last]) - min_progress)


def time_stalled(times: Sequence[float], positions: np.ndarray, goal: Sequence[float],
                 goal_tolerance: float, speed_threshold: float = STOP_SPEED_MPS) -> float:
    """Time at rest away from the goal (s): every interval between samples whose speed is
    below ``speed_threshold`` (m/s) and which ends farther than ``goal_tolerance`` from
    ``goal``, however short, waiting before the first move included: the "stalled
    time" of Francis et al. (2023) and SEAN 2.0's "time not moving". (:func:`time_standing`
    counts only rests of :data:`STOP_MIN_DURATION_S` or more after the robot moved.)"""
    times = np.asarray(times, dtype=float)
    positions = np.asarray(positions, dtype=float)
    speeds = interval_speeds(times, positions)
    if not len(speeds):
        return 0.0
    away = np.linalg.norm(positions[1:] - np.asarray(goal, dtype=float), axis=1) > \
        goal_tolerance
    return float(np.sum(np.diff(times)[(speeds < speed_threshold) & away]))


def accelerations_and_jerks(times: Sequence[float], positions: np.ndarray
                            ) -> Tuple[np.ndarray, np.ndarray]:
    """The magnitudes of a track's acceleration (m/s^2) and jerk (m/s^3), by finite
    differences over the record's own times (which need not be evenly spaced):

    - velocity: first differences, ``v_k = (x_{k+1} - x_k) / (t_{k+1} - t_k)``, at the
      interval's middle ``m_k``;
    - acceleration: first differences of those (second-order differences of the
      positions), ``a_k = (v_{k+1} - v_k) / (m_{k+1} - m_k)``, at ``(m_k + m_{k+1}) / 2``;
    - jerk: first differences of the accelerations over their times (third-order).

    All exact for a polynomial track of the order: a track at constant acceleration
    has that acceleration at every sample and zero jerk. Samples at a time no later
    than the one before are left out. (T-2,) and (T-3,) values for T samples (none
    for fewer); positions may have any number of columns."""
    times = np.asarray(times, dtype=float).reshape(-1)
    positions = np.asarray(positions, dtype=float)
    if len(times) < 3 or not positions.size:
        return np.zeros(0), np.zeros(0)
    positions = positions.reshape(len(positions), -1)
    if len(times):
        keep = np.concatenate([[True], times[1:] > np.maximum.accumulate(times)[:-1]])
        times, positions = times[keep], positions[keep]
    if len(times) < 3:
        return np.zeros(0), np.zeros(0)
    velocity = np.diff(positions, axis=0) / np.diff(times)[:, None]
    middles = 0.5 * (times[1:] + times[:-1])
    acceleration = np.diff(velocity, axis=0) / np.diff(middles)[:, None]
    at = 0.5 * (middles[1:] + middles[:-1])
    jerk = np.diff(acceleration, axis=0) / np.diff(at)[:, None] if len(at) > 1 else \
        np.zeros((0, positions.shape[1]))
    return np.linalg.norm(acceleration, axis=1), np.linalg.norm(jerk, axis=1)


def _mean_max(values: np.ndarray) -> Tuple[Optional[float], Optional[float]]:
    if not len(values):
        return None, None
    return float(np.mean(values)), float(np.max(values))


# --- one robot, all figures ----------------------------------------------------------

def motion_quality(times: Sequence[float], positions: np.ndarray,
                   waypoints: Sequence[Sequence[float]], goal_tolerance: float,
                   waypoint_tolerance: float,
                   yaws: Optional[Sequence[float]] = None,
                   round_walls: Optional[DistancesRoundWalls] = None,
                   shortest_path: Optional[float] = None,
                   max_time: Optional[float] = None,
                   steering: Optional[Sequence[float]] = None) -> MotionQuality:
    """Every figure of one robot's track: ``times`` (T,) s, ``positions`` (T, D) m;
    samples with a non-finite position (a robot taken out at its goal) are left out.
    ``waypoints``: its path, the last one its goal; ``goal_tolerance`` and
    ``waypoint_tolerance`` (m) as its controller has them; ``yaws`` (T,) rad: its body
    yaw if it has one that matters (differential drive), else None. Turn reversals
    are counted on the way only: a rate whose interval (or, from the direction of
    motion, whose middle sample) ends within ``goal_tolerance`` of the goal is left
    out. ``shortest_path`` (m): its shortest way home for :func:`spl` (the scenario's
    reference polyline; None: SPL is None); ``max_time`` (s): the run's, for
    :func:`timed_out` (None: that is None). The social-navigation set is taken on the
    way: up to and with the sample of its first arrival within ``goal_tolerance``.
    ``steering`` (T,): the robot's :func:`steering_signal` at every sample (the command
    that brought it there; NaN where none), for :func:`steering_reversals`, counted
    where the robot is farther than ``goal_tolerance`` from its goal (None: those are
    None).

    Each figure is computed on its own: one that raises is None, named in
    :attr:`MotionQuality.unavailable` with the error, and the others stand. A track
    that cannot be read at all (times and positions of different lengths, positions
    that are not rows of coordinates) has every figure unavailable."""
    try:
        times = np.asarray(times, dtype=float).reshape(-1)
        positions = np.asarray(positions, dtype=float)
        positions = positions.reshape(len(positions), -1) if positions.size else \
            np.zeros((0, len(waypoints[-1])))
        if len(times) != len(positions):
            raise ValueError(f"{len(times)} times for {len(positions)} positions")
        keep = np.all(np.isfinite(positions), axis=1) & np.isfinite(times)
        times, positions = times[keep], positions[keep]
        if yaws is not None:
            yaws = np.asarray(yaws, dtype=float).reshape(-1)[keep]
        if steering is not None:
            steering = np.asarray(steering, dtype=float).reshape(-1)
            if len(steering) != len(keep):
                raise ValueError(f"{len(steering)} steering values for {len(keep)} times")
            steering = steering[keep]
        goal = np.asarray(waypoints[-1], dtype=float)
    except (ValueError, TypeError, IndexError) as error:
        return unavailable_figures(_reason(error))
    unavailable: Dict[str, str] = {}

    def figure(name: str, compute):
        try:
            return compute()
        except Exception as error:  # analysis after the run: reported, never fatal
            unavailable[name] = _reason(error)
            return None

    arrival = figure("arrived", lambda: first_arrival(positions, goal, goal_tolerance))
    arrived = None if "arrived" in unavailable else arrival is not None
    way = len(positions) if arrival is None else arrival + 1
    way_times, way_positions = times[:way], positions[:way]
    to_go = figure("retreat_m", lambda: remaining_path_length(
        way_positions, waypoints, waypoint_tolerance, round_walls))

    def progress_failed() -> Optional[bool]:
        if to_go is None:
            raise ValueError(f"distance to go: {unavailable['retreat_m']}")
        return None if arrived is None else \
            failed_to_progress(way_times, to_go, arrived)

    def driven() -> float:
        return path_length(way_positions)

    def success_weighted() -> Optional[float]:
        if shortest_path is None or arrived is None:
            return None
        return spl(arrived, shortest_path, path_length(way_positions))

    differences = figure("acceleration_mean_mps2",
                         lambda: accelerations_and_jerks(way_times, way_positions))
    if differences is None:
        for name in ("acceleration_max_mps2", "jerk_mean_mps3", "jerk_max_mps3"):
            unavailable[name] = unavailable["acceleration_mean_mps2"]
        acceleration = jerk = (None, None)
    else:
        acceleration, jerk = _mean_max(differences[0]), _mean_max(differences[1])

    def reversals_on_the_way() -> int:
        rates = yaw_rates(times, positions, yaws)
        # Only turning on the way counts: not on the goal (a unicycle settling there).
        away = np.linalg.norm(positions - goal, axis=1) > goal_tolerance
        rates[~away[1:1 + len(rates)]] = np.nan
        return turn_reversals(rates)

    def steering_on_the_way() -> int:
        away = np.linalg.norm(positions - goal, axis=1) > goal_tolerance
        return steering_reversals(np.where(away, steering, np.nan))

    moving = figure("moving_time_s", lambda: moving_time(times, positions))
    reversals = figure("turn_reversals", reversals_on_the_way)
    steered = None if steering is None else \
        figure("steering_reversals", steering_on_the_way)
    steered_per_minute = None if steered is None or moving is None else \
        turn_reversals_per_minute(steered, moving)
    rests = figure("stops", lambda: stops_and_rests(times, positions, goal, goal_tolerance))
    per_minute = None
    if reversals is not None and moving is not None:
        per_minute = turn_reversals_per_minute(reversals, moving)
    else:
        unavailable["turn_reversals_per_min"] = unavailable.get("turn_reversals") or \
            unavailable["moving_time_s"]
    if rests is None:
        unavailable["time_standing_s"] = unavailable["stops"]
    return MotionQuality(
        retreat_m=None if to_go is None else figure("retreat_m", lambda: retreat(to_go)),
        off_goal_m=figure("off_goal_m", lambda: off_goal(positions, goal, goal_tolerance)),
        stops=None if rests is None else len(rests),
        time_standing_s=None if rests is None else
        float(sum(end - begin for begin, end in rests)),
        turn_reversals=reversals, moving_time_s=moving,
        turn_reversals_per_min=per_minute, unavailable=unavailable,
        time_off_goal_s=figure("time_off_goal_s",
                               lambda: time_off_goal(times, positions, goal, goal_tolerance)),
        at_goal_at_end=figure("at_goal_at_end", lambda: bool(
            len(positions) and math.dist(positions[-1], goal) <= goal_tolerance)),
        arrived=arrived,
        timed_out=None if max_time is None or arrived is None else
        figure("timed_out", lambda: timed_out(times, arrived, max_time)),
        failed_to_progress=figure("failed_to_progress", progress_failed),
        time_stalled_s=figure("time_stalled_s", lambda: time_stalled(
            way_times, way_positions, goal, goal_tolerance)),
        path_length_m=figure("path_length_m", driven),
        shortest_path_m=None if shortest_path is None else float(shortest_path),
        spl=figure("spl", success_weighted),
        acceleration_mean_mps2=acceleration[0], acceleration_max_mps2=acceleration[1],
        jerk_mean_mps3=jerk[0], jerk_max_mps3=jerk[1],
        steering_reversals=steered, steering_reversals_per_min=steered_per_minute,
        turned_on_goal_deg=None if yaws is None or arrived is None else
        figure("turned_on_goal_deg", lambda: turned_on_goal(yaws, arrival)))


BODY_YAW_MIN_RANGE_RAD = 0.05
"""A body yaw that never moves further than this (rad) from where it started does not
say where the robot turns: :func:`body_yaw_turns`."""


def round_walls_of(scenario):
    """The distances round a floor scenario's solid walls: :class:`DistancesRoundWalls`,
    or on a map's walls :class:`DistancesOnGrid` (cells of at most half the smallest
    robot's radius); None without walls (the straight distance is the distance round them)."""
    outlines = scenario.solid_outlines if scenario.dimensions == 2 else []
    if not outlines:
        return None
    from ..robot.guidance import MAP_EDGES

    edges = sum(len(outline) if len(outline) > 2 else 1 for outline in outlines)
    if edges > MAP_EDGES:
        targets = [point for agent in scenario.agents for point in agent.waypoints]
        cell = min(0.1, 0.5 * min(agent.radius for agent in scenario.agents))
        return DistancesOnGrid(outlines, targets, cell=cell)
    return DistancesRoundWalls(outlines)


def body_yaw_turns(yaws: Sequence[float]) -> bool:
    """Whether a track's body yaw says how the robot turns: it moved more than
    :data:`BODY_YAW_MIN_RANGE_RAD` from its first value. A differential-drive robot's
    does; a holonomic robot's body may keep its yaw while it drives any way, and its
    turning is then the direction of motion's (what :func:`motion_quality` takes when it
    is given no yaws). For a reader of odometry that does not know the kinematics (the
    observer)."""
    yaws = np.asarray(yaws, dtype=float)
    yaws = yaws[np.isfinite(yaws)]
    if len(yaws) < 2:
        return False
    return bool(np.max(np.abs(wrap_angle(yaws - yaws[0]))) > BODY_YAW_MIN_RANGE_RAD)


class RobotTrack(NamedTuple):
    """One robot's recorded track: ``times`` (T,) s, ``positions`` (T, D) m and, where the
    record has them, body ``yaws`` (T,) rad and the ``steering`` command
    (:func:`steering_signal`) (T,)."""

    times: np.ndarray
    positions: np.ndarray
    yaws: Optional[np.ndarray] = None
    steering: Optional[np.ndarray] = None


def fleet_motion_quality(scenario, tracks: Mapping[str, "RobotTrack"],
                         waypoint_tolerances: Optional[Mapping[str, float]] = None
                         ) -> Dict[str, MotionQuality]:
    """Every robot's :func:`motion_quality` from its track, the one way the world, fleet_sim's
    record, the observer and ``orca-ros plot`` take them: distance to go along the
    scenario's waypoints (round its walls, :func:`round_walls_of`), passed within its
    ``waypoint_tolerance`` (or ``waypoint_tolerances[name]``: a controller told
    otherwise), its goal tolerance; turning is the body yaw's where it turns
    (:func:`body_yaw_turns`), the direction of motion's otherwise; SPL against its
    reference polyline (start, waypoints, goal), time-outs against the scenario's
    ``max_time``. Robots the scenario
    names with at least two samples; others are left out.

    Never raises for a track or the walls: what cannot be computed is unavailable with
    its reason (:attr:`MotionQuality.unavailable`); a failure to lay out the distances
    round the walls makes every robot's retreat unavailable, not its other figures."""
    walls_failed = None
    try:
        round_walls = round_walls_of(scenario)
    except Exception as error:  # analysis after the run: reported, never fatal
        round_walls, walls_failed = None, f"distances round the walls: {_reason(error)}"
    overrides = waypoint_tolerances or {}
    figures = {}
    for agent in scenario.agents:
        track = tracks.get(agent.name)
        if track is None or len(track.times) < 2:
            continue
        try:
            yaws = track.yaws if track.yaws is not None and body_yaw_turns(track.yaws) \
                else None
            quality = motion_quality(
                track.times, track.positions, agent.waypoints,
                scenario.goal_tolerance_of(agent),
                overrides.get(agent.name, scenario.waypoint_tolerance_of(agent)), yaws,
                round_walls, shortest_path=agent.reference_length,
                max_time=scenario.max_time, steering=track.steering)
        except Exception as error:  # analysis after the run: reported, never fatal
            quality = unavailable_figures(_reason(error))
        if walls_failed:
            quality = replace(quality, retreat_m=None, failed_to_progress=None,
                              unavailable={**quality.unavailable, "retreat_m": walls_failed,
                                           "failed_to_progress": walls_failed})
        figures[agent.name] = quality
    return figures


def run_motion_summary(figures: Dict[str, MotionQuality]) -> Dict[str, object]:
    """A run's motion-quality fields for its ``orca-ros bench`` row, from every robot's
    figures: ``retreat_max_m`` and ``retreat_robot`` (the worst; None when no robot
    gave ground back), ``off_goal_max_m`` and ``off_goal_robot`` (the robot pushed
    farthest off its goal after reaching it), ``stops`` and ``time_standing_s``
    (totals over the robots), ``turn_reversals_per_min`` (the mean over robots that moved) and
    ``turn_reversals_per_min_max`` with ``turn_reversals_robot`` (the worst),
    ``time_off_goal_s`` (the total over robots of time beyond their goal tolerance after
    reaching it) and ``at_goal_at_end`` (how many robots were at their goals at the
    end of the record); ``steering_reversals_per_min_median`` (the median over robots
    that moved of their steering reversals per minute, :func:`steering_reversals`) and
    ``steering_reversals_per_min_max`` with ``steering_reversals_robot`` (the worst);
    None where no steering command was recorded; ``turned_on_goal_max_deg`` with
    ``turned_on_goal_robot``: the most a robot with a body heading turned from its first
    arrival on (:func:`turned_on_goal`; None without body headings).

    The social-navigation set (each robot's on its way, :class:`MotionQuality`):
    ``spl`` (the mean over robots of their :func:`spl`, Anderson et al.'s SPL),
    ``path_length_mean_m`` (the mean over robots of the path driven to the first
    arrival), ``timeouts`` (robots that had not arrived when the record reached
    ``max_time``), ``failed_to_progress`` (robots that never arrived and had stopped
    getting nearer, :func:`failed_to_progress`; with ``timeouts`` they tell stuck from
    slow), ``time_stalled_s`` (the total of :func:`time_stalled`),
    ``acceleration_mean_mps2`` and ``jerk_mean_mps3`` (the mean over robots of each
    robot's mean magnitude), ``acceleration_max_mps2`` and ``jerk_max_mps3`` (the
    largest of any robot). Figures a robot has unavailable are left out of these, and
    ``motion_unavailable`` (present only then) gives ``{robot: {figure: reason}}``."""
    def worst(field_name: str):
        values = [(getattr(f, field_name), name) for name, f in figures.items()
                  if getattr(f, field_name) is not None]
        return max(values, key=lambda pair: pair[0]) if values else None

    def total(field_name: str):
        values = [getattr(f, field_name) for f in figures.values()
                  if getattr(f, field_name) is not None]
        return sum(values) if values or not figures else None

    retreat_worst, pushed, rate_worst = worst("retreat_m"), worst("off_goal_m"), \
        worst("turn_reversals_per_min")
    rates = [f.turn_reversals_per_min for f in figures.values()
             if f.turn_reversals_per_min is not None]
    stops_total, standing = total("stops"), total("time_standing_s")
    summary = {
        "retreat_max_m": _round(retreat_worst[0]) if retreat_worst else None,
        "retreat_robot": retreat_worst[1] if retreat_worst and retreat_worst[0] > 0.0
        else None,
        "off_goal_max_m": _round(pushed[0]) if pushed else None,
        "off_goal_robot": pushed[1] if pushed and pushed[0] > 0.0 else None,
        "stops": None if stops_total is None else int(stops_total),
        "time_standing_s": _round(standing),
        "turn_reversals_per_min": _round(float(np.mean(rates))) if rates else None,
        "turn_reversals_per_min_max": _round(rate_worst[0]) if rate_worst else None,
        "turn_reversals_robot": rate_worst[1] if rate_worst and rate_worst[0] > 0.0
        else None,
        "time_off_goal_s": _round(total("time_off_goal_s")),
        "at_goal_at_end": sum(1 for f in figures.values() if f.at_goal_at_end),
    }
    steer_worst = worst("steering_reversals_per_min")
    steer_rates = [f.steering_reversals_per_min for f in figures.values()
                   if f.steering_reversals_per_min is not None]
    summary.update({
        "steering_reversals_per_min_median": _round(float(np.median(steer_rates)))
        if steer_rates else None,
        "steering_reversals_per_min_max": _round(steer_worst[0]) if steer_worst else None,
        "steering_reversals_robot": steer_worst[1] if steer_worst and steer_worst[0] > 0.0
        else None,
    })
    turned_worst = worst("turned_on_goal_deg")
    summary.update({
        "turned_on_goal_max_deg": _round(turned_worst[0]) if turned_worst else None,
        "turned_on_goal_robot": turned_worst[1] if turned_worst and turned_worst[0] > 0.0
        else None,
    })

    def mean(field_name: str):
        values = [getattr(f, field_name) for f in figures.values()
                  if getattr(f, field_name) is not None]
        return _round(float(np.mean(values))) if values else None

    def count(field_name: str):
        values = [getattr(f, field_name) for f in figures.values()
                  if getattr(f, field_name) is not None]
        return sum(1 for v in values if v) if values else None

    acceleration_worst, jerk_worst = worst("acceleration_max_mps2"), worst("jerk_max_mps3")
    summary.update({
        "spl": mean("spl"), "path_length_mean_m": mean("path_length_m"),
        "timeouts": count("timed_out"), "failed_to_progress": count("failed_to_progress"),
        "time_stalled_s": _round(total("time_stalled_s")),
        "acceleration_mean_mps2": mean("acceleration_mean_mps2"),
        "acceleration_max_mps2": _round(acceleration_worst[0]) if acceleration_worst
        else None,
        "jerk_mean_mps3": mean("jerk_mean_mps3"),
        "jerk_max_mps3": _round(jerk_worst[0]) if jerk_worst else None,
    })
    missing = {name: dict(f.unavailable) for name, f in figures.items() if f.unavailable}
    if missing:
        summary["motion_unavailable"] = missing
    return summary
