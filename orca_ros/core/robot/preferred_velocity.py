"""The preferred velocity: where the robot wants to go before it avoids anyone (Menge's
preferred-velocity concept, kept apart from the avoidance method).

Each control period :class:`PreferredVelocity` points at the current waypoint (or,
when an obstacle blocks the straight line, at the next corner of a
:class:`~orca_ros.core.robot.guidance.VisibilityRoadmap` path, or on a map where a
:class:`~orca_ros.core.robot.navigation_grid.NavigationGrid` leads) at ``pref_speed``,
capped so as not to overshoot, and turned right by :func:`keep_right_angle`: a small
constant turn breaks the symmetry of head-on meetings, and a robot that has stalled
turns further (the stall escape). Stalled behind robots standing in its way (or walls
that guidance does not plan round: a laser's beside a map's), it heads round them
(:class:`StandingRobotsDetour`); stuck near its goal, it lets its planning margin go so
it can pass between robots parked on theirs (:class:`MarginHold`); met in a passage one
robot wide, one of the two backs out (:class:`GiveWay`); before a door one robot wide,
one waits for the other (:func:`door_share`). The supervisor's detour, when one is in
force, comes first on the path (:class:`Route`).

Each behaviour is a part holding its own state; :class:`PreferredVelocity` composes
them in the order :meth:`PreferredVelocity.compute` runs them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..geometry.obstacles import ObstacleEdges, ObstacleVertex
from ..geometry.segment_index import BRUTE_FORCE_SEGMENTS, point_segment_distance
from ..geometry.types import Vector2
from . import _guidance
from .guidance import (MAP_EDGES, SIGHT_LINE, Detour, VisibilityRoadmap, WallQueries,
                       detour_around_discs, guidance_walls, unplanned_walls)
from .navigation_grid import NavigationGrid

DOOR_CLOSING_SHARE = 0.1
"""A robot heads into a door when it closes on the door's node faster than this share of
the preferred speed (:func:`door_share`)."""


def keep_right_angle(stalled_time, base_deg: float, escape_deg: float, escape_time: float):
    """Clockwise turn (degrees) of the preferred velocity: symmetry breaking and stall escape.

    Every agent turns its preferred velocity ``base_deg`` to the right, so two
    agents meeting head-on both veer right rather than freeze face to face.
    An agent stalled for ``stalled_time`` seconds turns further, linearly up to
    ``escape_deg`` after ``escape_time``: because all agents turn the same way,
    a jammed group starts to circulate instead of pressing inwards. Works on
    floats and numpy arrays alike.
    """
    if isinstance(stalled_time, np.ndarray):
        fraction = np.clip(stalled_time / escape_time, 0.0, 1.0) if escape_time > 0 else 1.0
    else:  # plain floats: np.clip on a scalar costs microseconds per call
        fraction = min(max(stalled_time / escape_time, 0.0), 1.0) if escape_time > 0 else 1.0
    return base_deg + (escape_deg - base_deg) * fraction


class FollowsWaypoints:
    """A robot's progress along its ``waypoints`` (2D or 3D points; the last is the goal):
    ``waypoint_index``, and ``config``'s ``lookahead_m`` and
    ``goal_tolerance_m``. Shared by :class:`PreferredVelocity` and the 3D
    :class:`~orca_ros.core.robot.aerial.AerialController`."""

    waypoints: list
    waypoint_index: int
    config: object  # a ControllerConfig

    def at_goal(self, position: Sequence[float]) -> bool:
        return (bool(self.waypoints) and self.waypoint_index == len(self.waypoints) - 1
                and math.dist(position, self.waypoints[-1]) <= self.config.goal_tolerance_m)

    def current_target(self, position: Sequence[float]):
        """The waypoint to head for, moving on past those already within tolerance."""
        if not self.waypoints:
            return None
        tolerance = self.config.lookahead_m
        while self.waypoint_index < len(self.waypoints) - 1 and \
                math.dist(position, self.waypoints[self.waypoint_index]) <= tolerance:
            self.waypoint_index += 1
        return self.waypoints[self.waypoint_index]


@dataclass
class StallClock:
    """How long the robot has stalled (:attr:`stalled_time`, s): its position moved
    slower than a tenth of the preferred speed since the last period
    (:meth:`displacement_speed`)."""

    stalled_time: float = 0.0
    last_position: Optional[Vector2] = None

    def count(self, c, stalled: bool) -> None:
        """One period more stalled, or none if it was not (``c``: the configuration)."""
        self.stalled_time = self.stalled_time + c.time_step if stalled else 0.0

    def displacement_speed(self, c, state) -> float:
        """How fast the robot's position moved since the last period (m/s).

        Stalled means this stays below a tenth of the preferred speed. It is
        measured from positions, not from the velocity estimate: a cube that
        spins in place under lag reports speeds of several cm/s from its
        rounded readings while it goes nowhere. (For a robot whose velocity is
        exactly its displacement, as in the world, the two are the same; the
        first period, with no position before it, uses the estimate.)
        """
        last, self.last_position = self.last_position, state.position
        if last is None:
            return math.hypot(*state.velocity)
        return math.dist(last, state.position) / c.time_step


@dataclass
class ProgressClock:
    """How long the robot has got no nearer its target (:attr:`unprogressed_time`, s)."""

    unprogressed_time: float = 0.0  # s since the robot last got a radius nearer its target
    mark: Optional[Tuple[Vector2, float]] = None  # (target, best distance)

    def note(self, c, target: Vector2, distance: float) -> None:
        """Count :attr:`unprogressed_time`: reset whenever the robot is a radius nearer
        ``target`` (its waypoint or guidance corner) than ever since it took it."""
        mark = self.mark
        if mark is None or mark[0] != target or distance < mark[1] - c.radius \
                or distance <= c.goal_tolerance_m:
            self.mark = (target, distance)
            self.unprogressed_time = 0.0
        else:
            self.unprogressed_time += c.time_step

    def stuck(self, c, ahead: float = 0.0) -> bool:
        """No nearer the target for ``progress_escape_time`` (``ahead`` s from now)."""
        return c.progress_escape_time > 0.0 and \
            self.unprogressed_time + ahead >= c.progress_escape_time

    def reset(self) -> None:
        self.unprogressed_time = 0.0
        self.mark = None


@dataclass
class Route:
    """The points :class:`PreferredVelocity` follows: the robot's own path
    (:attr:`base_path`, its task, the last point its goal) with the supervisor's detour
    (:attr:`detour`, the virtual cocoon's way round a robot that yields) gone through
    first. Kept as two so that a detour lifted leaves the robot on its own path."""

    base_path: List[Vector2] = field(default_factory=list)
    detour: Tuple[Vector2, ...] = ()  # the supervisor's, gone through first
    points: List[Vector2] = field(init=False)  # the detour's, then the path's (take)

    def __post_init__(self) -> None:
        self.take(self.base_path, self.detour)

    @property
    def goal(self) -> Optional[Vector2]:
        """The goal of the robot's own task (not counting any detour)."""
        return self.base_path[-1] if self.base_path else None

    def take(self, base_path: Sequence[Vector2], detour: Sequence[Vector2]) -> None:
        """The path and the detour from now on: :attr:`points` are the detour's points,
        then the path's; none without a path."""
        self.base_path = [(float(x), float(y)) for x, y in base_path]
        self.detour = tuple((float(x), float(y)) for x, y in detour)
        self.points = list(self.detour) + self.base_path if self.base_path else []


@dataclass
class Guidance:
    """Roadmap guidance: where the robot heads while a wall blocks the straight line to
    its waypoint, the next corner (:attr:`corner`) of a shortest way round the walls.

    ORCA sees walls only over its obstacle time horizon and has no notion of a way
    round them: a robot whose goal lies behind a wall stands in front of it (a local
    minimum). A visibility roadmap (:class:`~orca_ros.core.robot.guidance.VisibilityRoadmap`,
    shortest paths run through the obstacles' corners), on a map a
    :class:`~orca_ros.core.robot.navigation_grid.NavigationGrid`, gives the corner to
    head for; it is planned again every ``guidance_period`` periods, or when the corner
    is reached. :attr:`roadmaps`: the planners built, one for each set of walls and
    robot size (shared by the robots of one size in a world).
    """

    roadmaps: Dict[tuple, WallQueries] = field(default_factory=dict)
    corner: Optional[Vector2] = None  # the roadmap corner headed for, if any
    planned_for: Optional[Vector2] = None  # the target the last plan was made for
    # The planner last asked for, with the configuration and walls it was asked for
    # (held, so neither object's identity can pass to another) and its key in
    # ``roadmaps``: asked again each period.
    _last: Optional[tuple] = field(default=None, repr=False, compare=False)

    def planner(self, config, edges: Sequence[ObstacleVertex]) -> WallQueries:
        """The planner for these walls and ``config``'s robot, built once for them: a
        visibility roadmap; on a map (more than
        :data:`~orca_ros.core.robot.guidance.MAP_EDGES` edges) a navigation grid: a
        roadmap over a 200 m map's 225,000 edges took 150 s. The roadmap has nodes in
        the doors a robot passes, kept at the passage ORCA keeps from walls
        (:meth:`~orca_ros.core.robot.guidance.VisibilityRoadmap._doors`)."""
        edges = guidance_walls(edges)
        last = self._last
        if last is not None and last[0] is config and last[1] is edges and \
                last[2] == len(edges) and self.roadmaps.get(last[4]) is last[3]:
            return last[3]  # (not dropped since: the walls did not change)
        c = config
        clearance = round(c.avoidance_radius(c.radius) + c.guidance_clearance_ratio * c.radius, 3)
        passage = 0.98 * c.avoidance_radius(c.radius)  # what ORCA keeps from walls
        key = (clearance, round(passage, 3), len(edges), id(edges[0]) if edges else 0)
        roadmap = self.roadmaps.get(key)
        if roadmap is None:
            if len(edges) > MAP_EDGES:
                roadmap = NavigationGrid(edges, clearance, passage)
            else:
                roadmap = VisibilityRoadmap(edges, clearance, passage)
            self.roadmaps[key] = roadmap
        self._last = (config, edges, len(edges), roadmap, key)
        return roadmap

    def target(self, config, replan: bool, position: Vector2, target: Vector2,
               edges: Sequence[ObstacleVertex]) -> Vector2:
        """``target``, or the next roadmap corner when an obstacle blocks the way to it.
        Between plans (``replan`` false) the corner is kept until the robot is within
        half ``lookahead_m`` of it. A new ``target`` (the next waypoint) is planned for
        at once: heading straight for it until the next plan, a robot passing a
        waypoint by a wall's end turned into the wall for a period and back (an honest
        route's steering reversed twice at each such waypoint)."""
        c = config
        if not replan and target == self.planned_for:
            if self.corner is not None and math.dist(position, self.corner) > 0.5 * c.lookahead_m:
                return self.corner
            if self.corner is None:
                return target
        roadmap = self.planner(c, edges)
        self.planned_for = target
        # The straight line is free if it keeps the robot's radius from every
        # wall, or, for a goal closer to a wall than that, the goal's distance,
        # and goes through no gap too narrow for the robot as ORCA keeps it off
        # walls (a gap under twice its avoidance radius is closed to it).
        target_clearance = 0.98 * roadmap.wall_distance(target)
        passage = 0.98 * c.avoidance_radius(c.radius)
        if roadmap.passable(position, target, max(min(c.radius, target_clearance), SIGHT_LINE),
                            passage)[0]:
            self.corner = None
            return target
        self.corner = roadmap.next_corner(
            position, target, c.radius,
            max(min(roadmap.check_clearance, target_clearance), SIGHT_LINE), passage,
            previous=self.corner)
        return target if self.corner is None else self.corner


@dataclass
class MarginHold:
    """The share of its planning margin the robot keeps (:attr:`held`, 0..1): released
    while it is stuck near its goal or near the point it heads for, taken back once it
    moves on.

    The margin covers tracking error, which comes with speed; a robot that has stood
    for longer than ``stall_escape_time``, or got no nearer its target for
    ``progress_escape_time`` (:class:`ProgressClock`), has little. Within one time
    horizon (``time_horizon * pref_speed``) of its goal it may need the margin's room to
    pass between robots parked on their goals, whose margins can overlap its goal; within
    one time horizon of its current target (a waypoint or a guidance corner), where the
    ways of many robots meet (the mouth of a door), to get in between robots that hold
    each other at their planning distance. :attr:`held` then falls to 0 over
    ``stall_escape_time`` and comes back at the same rate once the robot moves. The
    neighbours keep their own margins, so they give way; the hard safety half-planes
    keep true radii throughout. Only near those points: released in traffic, stalled
    robots would press into the crowd. What is held scales the margin in ORCA's
    combined radius
    (:meth:`~orca_ros.core.robot.config.ControllerConfig.pair_margin_shortfall`).

    Unicycles at the 2.4 m door of SteerSuite's ``bottleneck-evacuation`` (200 robots)
    stood four at its mouth, each held by the others, with the release near the goal
    alone: 29-95 of them through the door by 200 s over eight starts, 117-148 with it
    near the target too (doc/results.md).
    """

    held: float = 1.0

    def update(self, c, stalled: bool, stall: StallClock, progress: ProgressClock,
               goal: Optional[Vector2], position: Vector2,
               target: Optional[Vector2]) -> None:
        """One period: ``stalled`` this period, the robot's clocks, its goal, position and
        the point it heads for now (``target``: a waypoint, a guidance corner or the goal)."""
        if c.stall_escape_time <= 0.0:
            return
        step = c.time_step / c.stall_escape_time
        reach = c.time_horizon * c.pref_speed
        near = any(point is not None and math.dist(point, position) <= reach
                   for point in (goal, target))
        stuck = stall.stalled_time > c.stall_escape_time or progress.stuck(c)
        if stuck and near:
            self.held = max(0.0, self.held - step)
        elif not stalled and not stuck:
            self.held = min(1.0, self.held + step)


class StandingRobot(NamedTuple):
    """A neighbour standing in the way (:meth:`StandingRobotsDetour.standing`): the disc
    its centre makes for the robot's centre, and its name."""

    centre: Vector2
    radius: float  # the two robots' combined radius as the method sees them
    key: str = ""


@dataclass
class StandingRobotsDetour:
    """The way round robots standing in the robot's way, and the side of them it takes
    (:attr:`side`).

    Robots parked on their goals (or jammed) are a wall that roadmap guidance does not
    know: a robot whose target lies behind them finds no velocity that makes progress.
    Once the detour is due (:meth:`PreferredVelocity.detour_due`: stalled for
    ``stall_detour_time``, or no nearer its target for ``progress_escape_time``), the
    robot heads round the cluster of standing robots in its way
    (:func:`~orca_ros.core.robot.guidance.detour_around_discs`) and keeps to the side it
    chose while the robot it chose it for (:attr:`chosen_for`) is still part of the
    cluster in its way (``kept_for``). A cluster further on is a new choice: its shorter
    way may lie on the other side of the line, and the side kept from the first cluster
    would take the robot round its far side.

    A way between a standing robot and a wall (``edges``) too close for the robot to
    pass is closed (see :func:`detour_around_discs`), so the robot is not sent into a
    gap it cannot drive through. Walls that guidance does not plan round (a laser's
    beside a map's, see :func:`~orca_ros.core.robot.guidance.guidance_walls`) stand in
    the way the same way and are gone round the same way (:func:`unplanned_wall_discs`).
    Where walls leave no room on either side of the robot in the way, the way found is
    ``walled``, and the robot may give way instead (:class:`GiveWay`).
    """

    side: int = 0  # the way round being taken: clockwise -1, anticlockwise +1, none 0
    chosen_for: str = ""  # the standing robot in the way when the side was chosen
    # the planned walls as (start, end) pairs, kept while they are the same list
    # (:meth:`_walls`): ``(walls, their length, the pairs)``
    _pairs: tuple = field(default=(None, -1, []), repr=False, compare=False)

    def on(self, c, due: bool) -> bool:
        """Whether the robot goes round standing robots this period: the detour is
        ``due``, or the robot is on its way round already."""
        return c.stall_detour_time > 0.0 and (self.side != 0 or due)

    def standing(self, c, due: bool, own_radius: float, neighbors: Sequence,
                 views: Callable[[], Sequence]) -> List[StandingRobot]:
        """The neighbours slower than half the preferred speed, as discs the robot's
        centre must keep out of (its own and the neighbour's radius as the method sees
        them, ``views()``), when :meth:`way` may need them (:meth:`on`); else none."""
        if c.strict or not self.on(c, due):
            return []
        return [StandingRobot(n.position, own_radius + view.radius, n.key)
                for n, view in zip(neighbors, views())
                if math.hypot(*n.velocity) < 0.5 * c.pref_speed]

    def way(self, c, position: Vector2, target: Vector2, standing: Sequence[tuple],
            edges: Sequence[ObstacleVertex], due: bool) -> Tuple[Optional[Detour], list]:
        """The way round the ``standing`` robots and the unplanned walls in ``edges``
        towards ``target`` (``None`` where none is needed or none is found; the side
        is then given up), and the discs it went round."""
        if not self.on(c, due):
            self.side = 0
            return None, []
        discs = list(standing) + unplanned_wall_discs(
            edges, position, c.time_horizon_obst * c.max_speed + c.avoidance_radius(c.radius),
            c.avoidance_radius(c.radius))
        if not discs:
            self.side = 0
            return None, discs
        walls = self._walls(c, edges, position, discs)
        side, kept_for = self.side, -1
        if side != 0 and self.chosen_for:
            found = next((i for i, disc in enumerate(discs)
                          if len(disc) > 2 and disc[2] == self.chosen_for), None)
            # no longer standing, or out of sight: the side is chosen afresh
            side, kept_for = (0, -1) if found is None else (side, found)
        way = detour_around_discs(position, target, discs, side, offset=0.25 * c.radius,
                                  walls=walls, clearance=c.avoidance_radius(c.radius),
                                  kept_for=kept_for)
        if way is None:
            self.side, self.chosen_for = 0, ""
            return None, discs
        if not way.kept or not self.chosen_for:
            blocker = discs[way.blocker]
            self.chosen_for = blocker[2] if len(blocker) > 2 else ""
        self.side = way.side
        return way, discs

    def _walls(self, c, edges: Sequence[ObstacleVertex], position: Vector2,
               discs: Sequence[tuple]) -> List[Tuple[Vector2, Vector2]]:
        """The planned walls (:func:`~orca_ros.core.robot.guidance.guidance_walls`) that
        can close a way round ``discs``, as ``(start, end)`` pairs: of a map's, those
        within reach of the farthest disc; of up to
        :data:`~orca_ros.core.geometry.segment_index.BRUTE_FORCE_SEGMENTS` edges, all of
        them, the pairs made once for as long as the walls are the same list (a stalled
        robot asks every period)."""
        planned = guidance_walls(edges)
        if len(planned) > BRUTE_FORCE_SEGMENTS and isinstance(planned, ObstacleEdges):
            reach = max(math.dist(position, centre) + radius for centre, radius, *_ in discs)
            near = planned.near(position, reach + c.avoidance_radius(c.radius))
            return [(edge.point, edge.next.point) for edge in map(planned.__getitem__, near)
                    if edge.next is not None]
        kept, length, pairs = self._pairs
        if kept is not planned or length != len(planned):
            pairs = [(edge.point, edge.next.point) for edge in planned if edge.next is not None]
            self._pairs = (planned, len(planned), pairs)
        return pairs


@dataclass
class GiveWay:
    """Backing out of a passage one robot wide (:attr:`backing`: where the robot backs
    to, and for how many seconds more).

    In a passage one robot wide neither robot has a way round the other
    (:class:`StandingRobotsDetour` finds the way ``walled``), and without a rule both
    press on for good; the names give both robots the same answer (:meth:`due`). The
    robot backs out along its way (:func:`_way_back`) for twice ``time_horizon``, then
    looks at its target again with its clocks started over. Measured: doc/results.md,
    "Giving way in a passage one robot wide".
    """

    backing: Optional[Tuple[Vector2, float]] = None  # (where it backs to, seconds left)

    @staticmethod
    def due(c, key: str, blocker: tuple, unprogressed_time: float) -> bool:
        """Whether the robot named ``key`` backs out of a passage that ``blocker``
        blocks (the standing robot its straight line meets first, walls leaving no room
        on either side of it), once it has made no progress for twice
        ``progress_escape_time``: when the blocker's name sorts before its own (both
        robots see both names), or, after twice that again, whatever the names (the
        blocker may be boxed in and unable to back out).

        Why that late: jams that clear by themselves (holonomic robots pass each other
        slowly in such a gap) would otherwise be backed out of."""
        blocker_key = blocker[2] if len(blocker) > 2 else ""
        patience = 2.0 * c.progress_escape_time
        if not blocker_key or c.progress_escape_time <= 0.0 or unprogressed_time < patience:
            return False
        return (bool(key) and blocker_key < key) or unprogressed_time >= 2.0 * patience

    def begin(self, c, key: str, position: Vector2, target: Vector2, discs: Sequence[tuple],
              blocker: int, unprogressed_time: float) -> bool:
        """Start backing out if it is :meth:`due` for the disc ``discs[blocker]`` and there
        is room behind (:func:`_way_back`, two of the pair's combined radii); whether it
        started."""
        if not self.due(c, key, discs[blocker], unprogressed_time):
            return False
        back = _way_back(position, target, 2.0 * discs[blocker][1], discs)
        if back is None:
            return False
        self.backing = (back, 2.0 * c.time_horizon)
        return True

    def keep(self, c, target: Vector2, stall: StallClock, progress: ProgressClock) -> Vector2:
        """The point the robot backs to, one period less; once the time is out
        ``target`` again, with the ``stall`` and ``progress`` clocks started over."""
        back, left = self.backing
        left -= c.time_step
        if left <= 0.0:
            self.backing = None
            stall.stalled_time = 0.0
            progress.reset()
            return target
        self.backing = (back, left)
        return back


def door_share(c, key: str, doors: Sequence[Vector2], position: Vector2, heading: Vector2,
               traffic: Sequence) -> float:
    """Turns at doors: how much of its preferred speed the robot named ``key`` keeps
    before a door one robot wide (one of ``doors``, the door nodes of the roadmap,
    :class:`~orca_ros.core.robot.guidance.VisibilityRoadmap`) that another robot of
    ``traffic`` (``position``, ``velocity``, ``key``) goes through first: 1 with none;
    else it slows to stand three avoidance radii short of the door.

    Another robot goes first if it is in the door (within this robot's radius of the
    door's node), or if its name sorts before this robot's and it is within six
    avoidance radii of the door and heading into it (closing on it faster than
    :data:`DOOR_CLOSING_SHARE` of the preferred speed: not one held up behind this
    robot). A robot in the door itself goes on. The order is by name because both
    robots see both names the same way; an order by distance to the door can change as
    they move and leave both waiting. Measured: doc/results.md, "Doors one robot wide".
    A function, not a part with state: the turn is decided afresh each period.
    In C (``_guidance.door_share``)."""
    return _guidance.door_share(  # (its Python: test/helpers/guidance_reference.py)
        key, doors, position[0], position[1], heading[0], heading[1], traffic, c.radius,
        c.avoidance_radius(c.radius), c.pref_speed, DOOR_CLOSING_SHARE)


@dataclass
class PreferredVelocity(FollowsWaypoints):
    """One robot's path and its preferred velocity along it, composed of its behaviours,
    each a part with its own state, in the order :meth:`compute` runs them:

    - the waypoints (:class:`FollowsWaypoints`) of its :attr:`route`
      (:class:`Route`: its own path, the supervisor's detour first);
    - roadmap :attr:`guidance` round walls (:class:`Guidance`);
    - how long it has stalled (:attr:`stall`, :class:`StallClock`) or made no progress
      (:attr:`progress`, :class:`ProgressClock`);
    - the share of its planning margin it holds (:attr:`margin`, :class:`MarginHold`);
    - the way round robots standing in its way (:attr:`round_standing`,
      :class:`StandingRobotsDetour`), or backing out of a passage one robot wide
      (:attr:`give_way`, :class:`GiveWay`);
    - turns at doors one robot wide (:func:`door_share`);
    - keep-right and the stall escape (:func:`keep_right_angle`, :meth:`escape_time`).

    ``config`` is the robot's own configuration; the methods that take ``c`` take the
    effective one (the supervisor's speed limit applied). ``key``: the robot's name, who
    goes first through a door or backs out of a passage.
    """

    config: object  # ControllerConfig
    waypoint_index: int = 0
    key: str = ""
    route: Route = field(default_factory=Route)
    guidance: Guidance = field(default_factory=Guidance)
    stall: StallClock = field(default_factory=StallClock)
    progress: ProgressClock = field(default_factory=ProgressClock)
    margin: MarginHold = field(default_factory=MarginHold)
    round_standing: StandingRobotsDetour = field(default_factory=StandingRobotsDetour)
    give_way: GiveWay = field(default_factory=GiveWay)
    goal_reached: bool = False  # within tolerance of the goal at some period of this path
    periods: int = 0  # control periods computed (guidance re-plans every guidance_period)
    target: Optional[Vector2] = None  # where the last preferred velocity pointed

    @property
    def waypoints(self) -> List[Vector2]:
        """The points followed (:attr:`Route.points`: the detour's, then the path's)."""
        return self.route.points

    def set_path(self, waypoints: Sequence[Vector2]) -> None:
        """Follow these points in order; the last one is the goal. Empty: stand still."""
        self.route.take(waypoints, self.route.detour)
        self._follow()

    def set_detour(self, detour: Sequence[Vector2]) -> None:
        """Go through ``detour`` first (the supervisor's); empty: straight on again."""
        detour = tuple((float(x), float(y)) for x, y in detour)
        if detour != self.route.detour:
            self.route.take(self.route.base_path, detour)
            self._follow()

    def _follow(self) -> None:
        """A new path: every behaviour starts over (the planners are kept)."""
        self.waypoint_index = 0
        self.guidance.corner = None
        self.stall = StallClock()
        self.progress.reset()
        self.margin = MarginHold()
        self.round_standing = StandingRobotsDetour()
        self.give_way = GiveWay()
        self.goal_reached = False

    @property
    def stalled_time(self) -> float:
        """How long the robot has stalled (s, :class:`StallClock`)."""
        return self.stall.stalled_time

    @stalled_time.setter
    def stalled_time(self, value: float) -> None:
        self.stall.stalled_time = value

    @property
    def unprogressed_time(self) -> float:
        """How long the robot has got no nearer its target (s, :class:`ProgressClock`)."""
        return self.progress.unprogressed_time

    @unprogressed_time.setter
    def unprogressed_time(self, value: float) -> None:
        self.progress.unprogressed_time = value

    @property
    def goal(self) -> Optional[Vector2]:
        return self.waypoints[-1] if self.waypoints else None

    def step(self, c, state, edges: Sequence[ObstacleVertex], own_radius: float,
             neighbors: Sequence, views: Callable[[], Sequence]) -> Tuple[Vector2, bool]:
        """One control period's stage: the preferred velocity (:meth:`compute`, round the
        :meth:`standing` ``neighbors``, ``views()`` the method's view of them) and whether
        the robot is at its goal, counted as a period of this path (``periods``, and
        ``goal_reached`` once it is). ``c``: the effective configuration."""
        pref = self.compute(c, state, edges, self.standing(c, state, own_radius, neighbors, views),
                            neighbors)
        self.periods += 1
        arrived = self.at_goal(state.position)
        self.goal_reached = self.goal_reached or arrived
        return pref, arrived

    def compute(self, c, state, edges: Sequence[ObstacleVertex] = (),
                standing: Sequence[Tuple[Vector2, float]] = (),
                traffic: Sequence = ()) -> Vector2:
        """Towards the current waypoint (or guidance corner) at ``pref_speed``, with the
        behaviours that keep-right brings (:meth:`_when_stuck`: the clocks, the margin,
        the way round the ``standing`` robots, ``(centre, combined radius)``), slowed
        before a door another robot of ``traffic`` (the neighbours: anything with a
        ``position``, ``velocity`` and ``key``, as :class:`~.state.Neighbor`) goes through
        first, turned by keep-right and the stall escape. ``c``: the effective
        configuration."""
        position = state.position
        target = self.current_target(position)
        guided = target is not None and not c.strict and c.guidance and bool(edges)
        if guided:
            target = self.guidance.target(self.config, self.periods % c.guidance_period == 0,
                                          position, target, edges)
        if target is None:
            self.target = None
            return (0.0, 0.0)
        keep_right = c.method_spec.keep_right
        if keep_right:
            target = self._when_stuck(c, state, target, standing, edges)
        self.target = target
        dx, dy = target[0] - position[0], target[1] - position[1]
        distance = math.hypot(dx, dy)
        if distance < 1e-12:
            return (0.0, 0.0)
        speed = min(c.pref_speed, distance / c.time_step)
        doors = self.guidance.planner(self.config, edges).door_nodes if guided and traffic \
            else ()
        if len(doors):
            speed *= door_share(c, self.key, doors, position, (dx / distance, dy / distance),
                                [(n.position, n.velocity, n.key) for n in traffic])
        px, py = dx / distance * speed, dy / distance * speed
        if not keep_right:
            return (px, py)
        angle = -math.radians(keep_right_angle(self.escape_time(c), c.keep_right_deg,
                                               c.stall_escape_deg, c.stall_escape_time))
        cos_a, sin_a = math.cos(angle), math.sin(angle)
        return (cos_a * px - sin_a * py, sin_a * px + cos_a * py)

    def _when_stuck(self, c, state, target: Vector2, standing: Sequence[tuple],
                    edges: Sequence[ObstacleVertex]) -> Vector2:
        """Count the clocks, hold or release the margin, and head round the ``standing``
        robots or back out of a passage (:class:`GiveWay`): ``target``, or the point to
        head for instead."""
        position = state.position
        distance = math.dist(target, position)
        stalled = self.stall.displacement_speed(c, state) < 0.1 * c.pref_speed and \
            distance > c.goal_tolerance_m
        self.stall.count(c, stalled)
        self.progress.note(c, target, distance)
        self.margin.update(c, stalled, self.stall, self.progress, self.goal, position, target)
        if self.give_way.backing is not None:
            return self.give_way.keep(c, target, self.stall, self.progress)
        way, discs = self.round_standing.way(c, position, target, standing, edges,
                                             self.detour_due(c, 0.0, position))
        if way is None:
            return target
        if way.walled and self.give_way.begin(c, self.key, position, target, discs,
                                              way.blocker, self.unprogressed_time):
            self.round_standing.side = 0
            return self.give_way.keep(c, target, self.stall, self.progress)
        return way.waypoint

    def escape_time(self, c) -> float:
        """How long the stall escape counts the robot stalled (:func:`keep_right_angle`):
        :attr:`stalled_time`, started over after every twice ``stall_escape_time``, so
        a robot stalled for long looks at its target again.

        Why it starts over: held at the full turn, a robot keeps pressing sideways, and
        where a jam cannot circulate (every neighbour inside its safety distance, so
        ORCA leaves only ``v = 0``) it never looks at its target again. The same holds
        near a goal it reached (:meth:`held_by_goal`): robots pushed off their goals in
        a crowd still need the escape to get back.
        """
        if c.stall_escape_time > 0.0:
            return self.stalled_time % (2.0 * c.stall_escape_time)
        return self.stalled_time

    def held_by_goal(self, c, position: Vector2) -> bool:
        """Whether the robot reached its goal on this path and stands within two radii
        of it (pushed off by others, or coming back)."""
        return self.goal_reached and bool(self.waypoints) and \
            math.dist(position, self.waypoints[-1]) <= 2.0 * c.radius

    def detour_due(self, c, ahead: float, position: Vector2) -> bool:
        """Whether the robot should go round the robots standing in its way ``ahead``
        seconds from now (:class:`StandingRobotsDetour`): stalled for
        ``stall_detour_time``, or, farther than two radii beyond its goal tolerance from
        the goal, no nearer its target for ``progress_escape_time`` though it moves (a
        unicycle that wiggles sideways behind a parked robot is never stalled by its
        displacement). Not that near the goal, where a robot that just missed it and
        comes back is no nearer for a while without being in anyone's way."""
        if self.stalled_time + ahead >= c.stall_detour_time:
            return True
        goal = self.goal
        return self.progress.stuck(c, ahead) and (
            goal is None or math.dist(goal, position) > 2.0 * c.radius + c.goal_tolerance_m)

    def standing(self, c, state, own_radius: float, neighbors: Sequence,
                 views: Callable[[], Sequence]) -> List[StandingRobot]:
        """The neighbours standing in the robot's way, when the way round them may be
        needed (:meth:`StandingRobotsDetour.standing`)."""
        return self.round_standing.standing(
            c, self.detour_due(c, c.time_step, state.position), own_radius, neighbors, views)


def _way_back(position: Vector2, target: Vector2, distance: float,
              standing: Sequence[tuple]) -> Optional[Vector2]:
    """The point ``distance`` behind ``position`` (away from ``target``), if no standing
    robot's centre lies within its disc's radius of the way there: backing into a queue
    frees no passage, and presses the robot into those behind it."""
    ahead = (target[0] - position[0], target[1] - position[1])
    norm = math.hypot(*ahead)
    if norm < 1e-9:
        return None
    back = (position[0] - distance * ahead[0] / norm, position[1] - distance * ahead[1] / norm)
    centres = np.array([robot[0] for robot in standing], dtype=float).reshape(-1, 2)
    radii = np.array([robot[1] for robot in standing], dtype=float)
    behind = (centres - position) @ np.array(ahead) < 0.0
    in_the_way = point_segment_distance(centres, np.array(position), np.array(back)) < radii
    return None if np.any(behind & in_the_way) else back


SEEN_PLANNED_WALL_M = 0.1
"""m: a laser's wall piece this near a wall guidance plans round is that wall seen again
(:func:`unplanned_wall_discs`): a scan wall strays up to ``scan_tolerance`` (5 cm) from
its returns, a map's segments up to a cell (5 cm) from its cells."""


def unplanned_wall_discs(edges: Sequence[ObstacleVertex], position: Vector2, reach: float,
                         avoidance_radius: float) -> List[Tuple[Vector2, float]]:
    """The walls among ``edges`` that guidance does not plan round (the short-lived part
    of an :class:`~orca_ros.core.geometry.obstacles.ObstacleEdges` whose lasting part is
    all guidance sees), within ``reach`` of ``position``, as ``(centre, radius)`` discs
    the robot's centre must keep out of, for
    :func:`~orca_ros.core.robot.guidance.detour_around_discs`: each wall cut into pieces
    no longer than ``avoidance_radius``, a disc round each piece grown by that radius.
    None where guidance sees every wall.

    A piece within :data:`SEEN_PLANNED_WALL_M` of a planned wall is left out: a laser
    sees the map's walls too, and their discs joined the box in an aisle and the racks
    on both sides into one cluster round the robot, which then had no way round the box
    (40 m warehouse map, ``--scan-obstacles``: a robot stood at a box on no map to the
    end of the run)."""
    centres, radii = [], []
    for edge in unplanned_walls(edges):
        if edge.next is None:
            continue
        a, b = np.asarray(edge.point, dtype=float), np.asarray(edge.next.point, dtype=float)
        length = float(np.hypot(*(b - a)))
        pieces = max(1, int(math.ceil(length / avoidance_radius)))
        for k in range(pieces):
            centre = a + (k + 0.5) / pieces * (b - a)
            if math.dist(centre, position) <= reach:
                centres.append(centre)
                radii.append(avoidance_radius + 0.5 * length / pieces)
    if not centres:
        return []
    planned = guidance_walls(edges)
    if isinstance(planned, ObstacleEdges) and len(planned):
        unseen = planned.segment_index.distances(np.array(centres)) > SEEN_PLANNED_WALL_M
    else:
        unseen = np.ones(len(centres), dtype=bool)
    return [((float(c[0]), float(c[1])), r)
            for c, r, keep in zip(centres, radii, unseen) if keep]

