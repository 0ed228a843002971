"""Guidance on a map: a navigation function over a grid (NF1, Latombe 1991), as Nav2's
NavFn plans on a costmap.

A map's walls are tens of thousands of segments, most of them speckle; a visibility
roadmap over their corners (:class:`~orca_ros.core.robot.guidance.VisibilityRoadmap`)
has hundreds of thousands of nodes and takes minutes to build on a 200 m map. Here the
walls are drawn into a grid instead:

1. every wall segment marks the cells it passes through (sampled every half cell);
2. a cell is free where its centre keeps the passage (the radius ORCA keeps a robot's
   centre from walls) from every wall: the Euclidean distance transform of the marked
   cells tells within about a cell, and where that leaves it in doubt the distance is
   measured to the walls themselves; a free cell nearer a wall than the clearance costs
   more per metre (a costmap's inflation);
3. for each goal, the cost to go from every free cell (Dijkstra over the 8-connected
   free cells, ``skimage.graph.MCP_Geometric``; metres), computed once and kept;
4. the way from the robot is the steepest descent of that field (from the nearest free
   cell it sees where its own is not free), and the robot heads for the farthest point
   of it, up to :data:`LOOKAHEAD` m along, that it can drive to in a straight line (the
   same check as the roadmap's:
   :meth:`~orca_ros.core.robot.guidance.WallQueries.passable`, on the walls themselves,
   not the grid).

The grid's cell is a third of the clearance, larger where the map would need more than
:data:`MAX_CELLS` cells.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Optional, Sequence

import numpy as np

from ..geometry.obstacles import ObstacleVertex
from ..geometry.types import Vector2
from .guidance import SIGHT_LINE, WallQueries

CELLS_PER_CLEARANCE = 3
"""Grid cells across the clearance (the cell is at most a third of it)."""

MAX_CELLS = 4_000_000
"""The most cells a grid has (a 200 m map at 10 cm); a larger map gets coarser cells."""

BORDER = 1.0
"""m of free grid beyond the walls' extent, besides the clearance."""

LOOKAHEAD = 8.0
"""m along the descent within which the robot heads for the farthest point it can drive
to in a straight line."""

KEEP_REACH = 2.0
"""m: a point headed for is kept until the robot is this near it
(:meth:`NavigationGrid.next_corner`)."""

CANDIDATES = 24
"""Points along the descent (about evenly spaced) tried as where to head."""

FIELD_BYTES = 1 << 30
"""Memory (bytes) the goals' cost-to-go fields may take together; the least recently
used goes first."""

NEAR_WALL_COST = 1.0
"""A cell at the passage from a wall costs this much more per metre than one at the
clearance."""

ESCAPE_REACH = 1.0
"""m: a robot whose own cell is not free (pressed against a wall, in a gap the grid
shuts) takes the way from the nearest free cell it sees within this distance."""

_NEIGHBOURS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


class NavigationGrid(WallQueries):
    """The way to a goal among a map's walls, for discs of one ``clearance``: the same
    questions as :class:`~orca_ros.core.robot.guidance.VisibilityRoadmap` answers
    (:meth:`next_corner`, :meth:`passable`, :meth:`wall_distance`)."""

    def __init__(self, edges: Sequence[ObstacleVertex], clearance: float,
                 passage: Optional[float] = None) -> None:
        super().__init__(edges, clearance)
        self.passage = self.check_clearance if passage is None else min(passage, clearance)
        a, b = self.walls.a, self.walls.b
        ends = np.concatenate([a, b]) if len(a) else np.zeros((1, 2))
        margin = clearance + BORDER
        low, high = ends.min(axis=0) - margin, ends.max(axis=0) + margin
        width, height = high - low
        self.cell = max(clearance / CELLS_PER_CLEARANCE, math.sqrt(width * height / MAX_CELLS))
        self.origin = low
        self.shape = (int(math.ceil(height / self.cell)), int(math.ceil(width / self.cell)))
        self.costs = self._costs(a, b)
        self.free = np.isfinite(self.costs)
        self._fields: "OrderedDict[tuple, np.ndarray]" = OrderedDict()

    def _costs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Each cell's cost per metre: infinite where its centre is nearer a wall than
        the passage, 1 from the clearance on, rising to 1 + :data:`NEAR_WALL_COST` in
        between (paths keep the clearance where there is room, as a costmap's inflation
        makes them).

        The distance transform of the cells the walls pass through (points every half
        cell along each wall) gives each cell's distance ``d`` to within a cell: the wall
        point nearest a cell's centre lies within a quarter cell of a point drawn, whose
        cell's centre is within half a diagonal of it, so the true distance is between
        ``d - (1/4 + 1/sqrt 2)`` cells and ``d + 1/sqrt 2`` cells. Where that range holds
        the passage, the distance is measured to the walls themselves: which cells are
        free is exact at their centres."""
        from scipy import ndimage  # where a map is planned on: a node starts light

        marked = np.zeros(self.shape, dtype=bool)
        if len(a):
            rows, cols = self._cells(_points_along(a, b, 0.5 * self.cell))
            marked[rows, cols] = True
        distance = ndimage.distance_transform_edt(~marked) * self.cell
        below, above = (0.25 + math.sqrt(0.5)) * self.cell, math.sqrt(0.5) * self.cell
        unsure = (distance + above >= self.passage) & (distance - below < self.passage)
        rows, cols = np.nonzero(unsure)
        distance[rows, cols] = self.walls.distances(
            self.origin + (np.column_stack([cols, rows]) + 0.5) * self.cell, self.clearance)
        near = np.clip((self.clearance - distance) / max(self.clearance - self.passage, 1e-9),
                       0.0, 1.0)
        costs = 1.0 + NEAR_WALL_COST * near
        costs[distance < self.passage] = np.inf
        return costs

    def _cells(self, points: np.ndarray):
        """Row and column of the cell under each point (clipped to the grid)."""
        cells = np.floor((np.asarray(points, dtype=float).reshape(-1, 2) - self.origin)
                         / self.cell).astype(int)
        return (np.clip(cells[:, 1], 0, self.shape[0] - 1),
                np.clip(cells[:, 0], 0, self.shape[1] - 1))

    def _inside(self, point: np.ndarray) -> bool:
        offset = (point - self.origin) / self.cell
        return bool(0.0 <= offset[0] < self.shape[1] and 0.0 <= offset[1] < self.shape[0])

    def next_corner(self, start: Vector2, goal: Vector2,
                    start_clearance: Optional[float] = None,
                    goal_clearance: Optional[float] = None,
                    passage: Optional[float] = None,
                    previous: Optional[Vector2] = None) -> Optional[Vector2]:
        """Where to head for ``goal`` from ``start``: the farthest point of the descent
        within :data:`LOOKAHEAD` m that ``start`` can drive to in a straight line
        (keeping ``start_clearance``, through no gap narrower than twice ``passage``:
        :meth:`passable`); the goal itself where the descent ends there and it is in
        reach. None where no way is known (outside the grid, the goal shut off).
        ``goal_clearance`` is the roadmap's parameter and not needed here: a goal nearer
        a wall than the passage is reached from the free cells near it that see it.

        ``previous`` (the point this robot headed for until now) is kept while it is
        farther than :data:`KEEP_REACH`, nearer the goal than ``start`` (less cost to go)
        and still in reach: the farthest point of the descent moves a cell to either side
        as the robot drifts across an aisle, and a unicycle aimed afresh every period
        turned left and right along it (27.7 turn reversals a minute on a 40 m map)."""
        start_arr = np.asarray(start, dtype=float)
        goal_arr = np.asarray(goal, dtype=float)
        if not (self._inside(start_arr) and self._inside(goal_arr)):
            return None
        field = self._goal_field(goal_arr)
        row, col = (int(v[0]) for v in self._cells(start_arr))
        if not np.isfinite(field[row, col]):
            escape = self._escape(start_arr, field)
            if escape is None:
                return None
            row, col = escape
        elif previous is not None and self._still_ahead(
                start_arr, np.asarray(previous, dtype=float), field, field[row, col],
                self._clearance(start_clearance), passage):
            return tuple(previous)
        way = np.array(self._descent(field, row, col))
        points = self.origin + (way[:, ::-1] + 0.5) * self.cell
        # every few cells (the last one always), and the goal where the way ends there
        points = points[np.unique(np.append(np.arange(0, len(points), max(
            1, len(points) // CANDIDATES)), len(points) - 1))]
        if field[tuple(way[-1])] == 0.0:
            points = np.vstack([points, goal_arr])
        return self._farthest_in_reach(start_arr, points, self._clearance(start_clearance),
                                       passage)

    def _still_ahead(self, start: np.ndarray, previous: np.ndarray, field: np.ndarray,
                     start_cost: float, clearance: float, passage: Optional[float]) -> bool:
        """Whether ``previous`` is still worth heading for (:meth:`next_corner`)."""
        if not self._inside(previous) or np.linalg.norm(previous - start) <= KEEP_REACH:
            return False
        row, col = (int(v[0]) for v in self._cells(previous))
        if not field[row, col] < start_cost:
            return False
        return bool(self.passable(start, tuple(previous), clearance, passage)[0])

    def _farthest_in_reach(self, start: np.ndarray, points: np.ndarray, clearance: float,
                           passage: Optional[float]) -> Optional[Vector2]:
        """The last of ``points`` more than a cell from ``start`` that it can drive to
        (:meth:`passable`); failing that (the robot already in a gap), the last it sees
        keeping ``clearance``; pressed against a wall, the first it sees at all (never one
        whose line grazes the wall); else None."""
        ahead = points[np.linalg.norm(points - start, axis=1) > self.cell]
        if len(ahead) == 0:
            return tuple(points[-1])
        starts = np.repeat(start[None], len(ahead), 0)
        seen = self.visible(starts, ahead, clearance)
        grazing = seen & ~self.visible(starts, ahead, passage) \
            if passage is not None and passage > clearance else np.zeros_like(seen)
        for k in np.flatnonzero(seen)[::-1]:
            if not grazing[k] or not self._pinched(start, ahead[k], passage):
                return tuple(ahead[k])
        if seen.any():
            return tuple(ahead[np.flatnonzero(seen)[-1]])
        seen = self.visible(starts, ahead, SIGHT_LINE)
        return tuple(ahead[np.flatnonzero(seen)[0]]) if seen.any() else None

    def _escape(self, start: np.ndarray, field: np.ndarray):
        """Back into free space: of the free cells within :data:`ESCAPE_REACH` that
        ``start`` sees (at a bare sight line), the nearest (within a cell), the one with
        the least cost to go among them; None if there is none. Not the one nearest the
        goal: a robot beside a speck was sent past it through a gap the grid shuts."""
        reach = int(math.ceil(ESCAPE_REACH / self.cell))
        row, col = (int(v[0]) for v in self._cells(start))
        r0, r1 = max(row - reach, 0), min(row + reach + 1, self.shape[0])
        c0, c1 = max(col - reach, 0), min(col + reach + 1, self.shape[1])
        rows, cols = np.nonzero(np.isfinite(field[r0:r1, c0:c1]))
        if len(rows) == 0:
            return None
        rows, cols = rows + r0, cols + c0
        centres = self.origin + (np.column_stack([cols, rows]) + 0.5) * self.cell
        seen = self.visible(np.repeat(start[None], len(centres), 0), centres, SIGHT_LINE)
        if not seen.any():
            return None
        distance = np.where(seen, np.linalg.norm(centres - start, axis=1), np.inf)
        nearest = np.flatnonzero(distance <= distance.min() + self.cell)
        best = nearest[np.argmin(field[rows[nearest], cols[nearest]])]
        return int(rows[best]), int(cols[best])

    def _descent(self, field: np.ndarray, row: int, col: int):
        """Cells from (``row``, ``col``) down the cost to go, to the goal or
        :data:`LOOKAHEAD` m along."""
        way = [(row, col)]
        for _ in range(int(LOOKAHEAD / self.cell) + 1):
            here = field[row, col]
            if here == 0.0:
                break
            best, step = here, None
            for dr, dc in _NEIGHBOURS:
                r, c = row + dr, col + dc
                if 0 <= r < self.shape[0] and 0 <= c < self.shape[1] and field[r, c] < best:
                    best, step = field[r, c], (r, c)
            if step is None:
                break
            row, col = step
            way.append(step)
        return way

    def _goal_field(self, goal: np.ndarray) -> np.ndarray:
        """The cost to go (m) to ``goal`` from every cell, infinite where there is no way:
        Dijkstra from the goal's cell or, where that is not free (a goal nearer a wall
        than the passage), from the free cells near it that see it. Kept per goal cell,
        within :data:`FIELD_BYTES`."""
        from skimage.graph import MCP_Geometric

        row, col = (int(v[0]) for v in self._cells(goal))
        key = (row, col)
        field = self._fields.get(key)
        if field is not None:
            self._fields.move_to_end(key)
            return field
        seeds = self._seeds(goal, row, col)
        if seeds:
            cost_to_go, _ = MCP_Geometric(self.costs, fully_connected=True).find_costs(seeds)
            field = (cost_to_go * self.cell).astype(np.float32)
            field[~self.free] = np.inf
            for r, c in seeds:
                field[r, c] = 0.0
        else:
            field = np.full(self.shape, np.inf, dtype=np.float32)
        self._fields[key] = field
        while len(self._fields) > max(1, FIELD_BYTES // field.nbytes):
            self._fields.popitem(last=False)
        return field

    def _seeds(self, goal: np.ndarray, row: int, col: int):
        if self.free[row, col]:
            return [(row, col)]
        reach = int(math.ceil((self.clearance + 2.0 * self.cell) / self.cell))
        r0, r1 = max(row - reach, 0), min(row + reach + 1, self.shape[0])
        c0, c1 = max(col - reach, 0), min(col + reach + 1, self.shape[1])
        rows, cols = np.nonzero(self.free[r0:r1, c0:c1])
        rows, cols = rows + r0, cols + c0
        centres = self.origin + (np.column_stack([cols, rows]) + 0.5) * self.cell
        near = np.linalg.norm(centres - goal, axis=1) <= reach * self.cell
        rows, cols, centres = rows[near], cols[near], centres[near]
        if len(rows) == 0:
            return []
        seen = self.visible(centres, np.repeat(goal[None], len(centres), 0), SIGHT_LINE)
        return [(int(r), int(c)) for r, c in zip(rows[seen], cols[seen])]


def _points_along(a: np.ndarray, b: np.ndarray, spacing: float) -> np.ndarray:
    """Points along each segment ``a[i]``-``b[i]``, both ends included, at most
    ``spacing`` apart."""
    length = np.linalg.norm(b - a, axis=1)
    count = np.maximum(np.ceil(length / spacing).astype(int), 1) + 1
    owner = np.repeat(np.arange(len(a)), count)
    start = np.cumsum(count) - count
    fraction = (np.arange(count.sum()) - start[owner]) / (count[owner] - 1)
    return a[owner] + fraction[:, None] * (b - a)[owner]
