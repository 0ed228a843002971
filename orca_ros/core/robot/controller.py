"""One robot's avoidance controller: from its state, neighbours and goal to a command.

This is what an ``orca_node`` runs for its robot and what the scenario world
runs for each agent, so the benchmarks measure what robots do. Each control
period:

1. the preferred velocity points at the current waypoint (or, when an
   obstacle blocks the straight line, at the next corner of a
   :class:`~orca_ros.core.robot.guidance.VisibilityRoadmap` path) at ``pref_speed``,
   capped so as not to overshoot, and turned right by
   :func:`~orca_ros.core.models.bodies.keep_right_angle` (symmetry breaking, stall escape);
2. the robot's avoidance method (:mod:`orca_ros.core.methods`, ``orca`` by
   default: :func:`~orca_ros.core.orca.orca2d.solve_orca`) picks the velocity, within
   the hard one-step safety half-planes against close neighbours and walls
   (the safety filter: inside ORCA's linear program, or a projection after
   any other method, :func:`~orca_ros.core.methods.base.filter_velocity`);
3. a unicycle additionally keeps to its kinematic half-planes and gets
   ``(v, omega)`` from :func:`~orca_ros.core.models.bodies.unicycle_command`.

Methods whose :class:`~orca_ros.core.methods.base.MethodSpec` is ``strict``
(``orca_strict``: exactly RVO2) run with none of the shared additions: no
turn, no guidance, no safety half-planes, no margin.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..models.toio_cube import CUBE_RADIUS_UNITS, move_to_target
from ..models.bodies import (KINEMATICS, DiffDriveLimits, drive_direction, keep_right_angle,
                             kinematic_half_planes, tracking_error_bound, unicycle_command,
                             unicycle_step)
from .guidance import SIGHT_LINE, VisibilityRoadmap, detour_around_discs
from ..geometry.linprog import HalfPlane
from ..methods import (TRACKING, AvoidanceMethod, MethodOutput, MethodSpec, NeighborView, LinkView,
                       RobotView, TetherView, filter_velocity, method_spec)
from ..geometry.obstacles import ObstacleVertex
from ..orca.orca2d import (one_step_obstacle_half_plane, one_step_safety_half_plane,
                           select_visible_edges)
from ..geometry.types import Vector2, as_finite

SAFETY_HAIR = 1e-4
"""m added to true radii in the hard safety half-planes, so rounding never makes contact."""
TURN_FLOOR = 0.02
"""A unicycle on its goal, or within two radii of a goal it has reached, whose avoidance
velocity is under this share of its top speed turns to its preferred velocity instead (see
:meth:`RobotController.compute`)."""


@dataclass(frozen=True)
class ControllerConfig:
    """Everything that shapes one robot's behaviour, in SI units."""

    radius: float
    max_speed: float
    pref_speed: float
    time_step: float
    neighbor_dist: float = 10.0
    max_neighbors: int = 10
    time_horizon: float = 2.0
    time_horizon_obst: float = 2.0
    kinematics: str = "holonomic"
    method: str = "orca"  # a registered avoidance method, see orca_ros.core.methods
    method_parameters: Tuple[Tuple[str, object], ...] = ()  # beyond the fields named here
    safety_margin_ratio: float = 0.1
    margin_speed_ratio: float = 0.0  # full margin at this share of max_speed apart; 0: always
    keep_right_deg: float = 8.0
    stall_escape_deg: float = 75.0
    stall_escape_time: float = 3.0
    stall_detour_time: float = 0.5  # s stalled before detouring round standing robots; 0: never
    # s moving without getting a radius nearer the target before that counts as stuck too
    # (detours, the margin release near the goal); 0: never
    progress_escape_time: float = 3.0
    one_step_safety: Optional[bool] = None  # the safety filter; None: as the method says
    guidance: bool = True
    guidance_clearance_ratio: float = 0.25
    guidance_period: int = 5
    goal_tolerance: Optional[float] = None  # None: the radius
    waypoint_tolerance: Optional[float] = None  # None: the radius
    max_angular_speed: float = 3.0
    max_linear_accel: float = 4.0
    max_angular_accel: float = 20.0
    heading_time_constant: float = 0.0  # s; 0 = one control period
    tracking: str = "unicycle"  # how a unicycle follows: unicycle (NH-ORCA) | move2target
    command_lag: float = 0.0  # s from command to motion (toio cubes: ~0.14)
    lag_error: Optional[float] = None  # m a prediction over command_lag may miss (tracking_error)
    command_validity: Optional[float] = None  # s a command may act; None: one time_step
    accel_limited: bool = False  # holonomic body changes velocity at most at max_linear_accel
    lateral_speed_ratio: float = 0.25
    lateral_error_max_ratio: float = 0.15
    # m/s a unicycle may back off at (drive.drive_direction); 0: never; None: max_speed
    max_reverse_speed: Optional[float] = 0.0

    def __post_init__(self) -> None:
        for name in ("radius", "max_speed", "pref_speed", "time_step", "time_horizon",
                     "time_horizon_obst", "max_angular_speed", "max_linear_accel",
                     "max_angular_accel", "lateral_speed_ratio", "lateral_error_max_ratio"):
            as_finite(getattr(self, name), name, strictly_positive=True)
        for name in ("neighbor_dist", "safety_margin_ratio", "margin_speed_ratio",
                     "keep_right_deg", "command_lag",
                     "heading_time_constant",
                     "stall_escape_deg", "stall_escape_time", "stall_detour_time",
                     "progress_escape_time", "guidance_clearance_ratio"):
            as_finite(getattr(self, name), name, minimum=0.0)
        if self.kinematics not in KINEMATICS:
            raise ValueError(f"kinematics must be one of {KINEMATICS}, got {self.kinematics!r}")
        if self.tracking not in TRACKING:
            raise ValueError(f"tracking must be one of {TRACKING}, got {self.tracking!r}")
        if self.method_spec.holonomic_only and self.kinematics != "holonomic":
            raise ValueError(f"method {self.method} is holonomic only, "
                             f"got kinematics {self.kinematics!r}")
        if self.max_neighbors < 0 or self.guidance_period < 1:
            raise ValueError("max_neighbors must be >= 0 and guidance_period >= 1")
        if self.lag_error is not None:
            as_finite(self.lag_error, "lag_error", minimum=0.0)
        if self.max_reverse_speed is not None:
            as_finite(self.max_reverse_speed, "max_reverse_speed", minimum=0.0)
        for name in ("goal_tolerance", "waypoint_tolerance", "command_validity"):
            if getattr(self, name) is not None:
                as_finite(getattr(self, name), name, strictly_positive=True)

    @cached_property
    def method_spec(self) -> MethodSpec:
        """The registered method (a ValueError names the registered ones)."""
        return method_spec(self.method)

    @property
    def strict(self) -> bool:
        """The method reproduces a reference exactly: none of the shared additions."""
        return self.method_spec.strict

    @property
    def safety_filter(self) -> bool:
        """Whether the one-step safety filter runs: ``one_step_safety``, or by default
        what the method's :class:`MethodSpec` says."""
        return self.method_spec.safety_filter if self.one_step_safety is None \
            else bool(self.one_step_safety)

    def method_arguments(self) -> Dict[str, object]:
        """The method's parameters: the fields of this configuration that its parameter
        dataclass names (``time_horizon``, ...), then ``method_parameters``."""
        own = {f.name for f in dataclasses.fields(self.method_spec.parameters)}
        values = {name: getattr(self, name) for name in own if hasattr(self, name)}
        values.update(dict(self.method_parameters))
        return values

    @property
    def diff_drive(self) -> bool:
        return self.kinematics == "diff_drive"

    @property
    def command_horizon(self) -> float:
        """How long a command can act before the robot brakes (s), at least one period.

        In the world a new command comes every ``time_step``. Through ROS a
        command is valid for ``command_validity`` after its stamp; the robot's
        driver (fleet_sim, toio_bridge) brakes once it has none that is valid.
        """
        if self.command_validity is None:
            return self.time_step
        return max(self.command_validity, self.time_step)

    @property
    def reverse_speed(self) -> float:
        """How fast a unicycle may back off (m/s): ``max_reverse_speed`` (None:
        ``max_speed``); 0, the default, for a robot that never reverses."""
        return self.max_speed if self.max_reverse_speed is None else \
            min(self.max_reverse_speed, self.max_speed)

    @property
    def braking_accel(self) -> Optional[float]:
        """Deceleration the safety half-planes plan with; None: the velocity changes at once."""
        return self.max_linear_accel if self.diff_drive or self.accel_limited else None

    @cached_property
    def limits(self) -> DiffDriveLimits:
        # The lateral budget E_lat: planned velocities may stray sideways of the heading
        # by lateral_speed_ratio * max_speed for one control period, but E_lat stays
        # below lateral_error_max_ratio of the radius, since it enlarges the robot.
        lateral = min(self.lateral_speed_ratio * self.max_speed * self.time_step,
                      self.lateral_error_max_ratio * self.radius)
        return DiffDriveLimits(self.max_speed, self.max_angular_speed, self.max_linear_accel,
                               self.max_angular_accel, lateral)

    @cached_property
    def tracking_error(self) -> float:
        """How far the robot may be from where it planned to be, one period on (m).

        A unicycle's tracking bound E (0 for holonomic robots), plus, with a
        ``command_lag``, the error of predicting its motion over the lag:
        ``lag_error`` when the caller replays the commands already sent
        (:class:`~orca_ros.core.robot.perception.SentCommands`), else the error of a
        constant-velocity guess while speed and heading may change at their
        acceleration and turn limits: ``a lag**2 / 2 + v_max omega_max lag**2 / 2``.
        """
        error = tracking_error_bound(self.limits, self.time_step) if self.diff_drive else 0.0
        lag = self.command_lag
        if lag > 0.0 and self.lag_error is not None:
            error += self.lag_error
        elif lag > 0.0:
            error += self.lag_guess_error
        return error

    @property
    def lag_guess_error(self) -> float:
        """How far a constant-velocity guess over ``command_lag`` may miss (m):
        ``a lag**2 / 2`` (``+ v_max omega_max lag**2 / 2`` for a unicycle)."""
        lag = self.command_lag
        error = 0.5 * self.max_linear_accel * lag * lag
        if self.diff_drive:
            error += 0.5 * self.max_speed * self.max_angular_speed * lag * lag
        return error

    @cached_property
    def margin_ratio(self) -> float:
        return 0.0 if self.strict else self.safety_margin_ratio

    def avoidance_radius(self, radius: float) -> float:
        """A disc's radius as this robot reasons about it in ORCA (margin and tracking error)."""
        return radius * (1.0 + self.margin_ratio) + self.tracking_error

    def pair_margin_shortfall(self, own_radius: float, other_radius: float,
                              relative_speed: float, held: float = 1.0) -> float:
        """How much less than the full planning margins (m) a pair moving at
        ``relative_speed`` apart keeps in ORCA's combined radius.

        With ``margin_speed_ratio`` ``k > 0`` the margin grows with the pair's
        relative speed ``|v_a - v_b|``, from none to full at ``k v_max``:
        ``(1 - min(1, |v_a - v_b| / (k v_max))) m (r_a + r_b)``. Two robots at rest
        side by side then plan only with their true radii and tracking errors, the
        distance the hard layer keeps, so goals closer than the full margins
        allow can all be held. ``k = 0``: the full margin at any speed.
        ``held`` (0..1) scales what is left: the share of its margin the robot
        still holds (:attr:`RobotController.margin_held`, released when it is
        stalled near its goal).
        """
        if self.margin_ratio <= 0.0:
            return 0.0
        scale = 1.0 if self.margin_speed_ratio <= 0.0 else \
            min(1.0, relative_speed / (self.margin_speed_ratio * self.max_speed))
        return (1.0 - scale * held) * self.margin_ratio * (own_radius + other_radius)

    def safety_radius(self, radius: float) -> float:
        """A disc's radius in the hard one-step safety half-planes (true size, tracking error)."""
        return radius + self.tracking_error + SAFETY_HAIR

    @property
    def goal_tolerance_m(self) -> float:
        return self.radius if self.goal_tolerance is None else self.goal_tolerance

    @property
    def waypoint_tolerance_m(self) -> float:
        return self.radius if self.waypoint_tolerance is None else self.waypoint_tolerance


def _along_heading(heading: float, line: HalfPlane,
                   may_reverse: bool = False) -> Optional[HalfPlane]:
    """A safety half-plane ``v . n <= L`` applied to what a unicycle really drives.

    A unicycle commanded ``u`` moves at ``(u . h) h`` along its heading ``h``;
    the lateral part of ``u`` (up to ``E_lat / dt``) is only covered by the
    tracking margin, which a robot already inside the margin no longer has.
    So the motion itself keeps to the limit: ``(u . h)(h . n) <= L``, a
    half-plane in ``u`` when the robot faces the other (``h . n > 0``: a limit
    on driving forward) or, if it ``may_reverse``, turns its back to it
    (``h . n < 0``: a limit on backing). ``u = 0`` satisfies it whenever ``L >= 0``.
    """
    hx, hy = math.cos(heading), math.sin(heading)
    nx, ny = line.direction_y, -line.direction_x  # the normal towards the other
    facing = hx * nx + hy * ny
    if facing < 0.1 and not (may_reverse and facing < -0.1):
        return None
    limit = (line.point_x * nx + line.point_y * ny) / facing
    if facing < 0.0:  # its back to the other: backing towards it is what is limited
        return HalfPlane(hx * limit, hy * limit, hy, -hx)
    return HalfPlane(hx * limit, hy * limit, -hy, hx)


def _edge_distance(position: Vector2, edge: ObstacleVertex) -> float:
    """Distance from a point to an obstacle edge (the segment to the next vertex)."""
    (ax, ay), (bx, by) = edge.point, edge.next.point
    abx, aby = bx - ax, by - ay
    length2 = abx * abx + aby * aby
    t = 0.0 if length2 == 0.0 else ((position[0] - ax) * abx + (position[1] - ay) * aby) / length2
    t = min(max(t, 0.0), 1.0)
    return math.hypot(ax + t * abx - position[0], ay + t * aby - position[1])


class RobotState(NamedTuple):
    """The robot as measured: pose, world-frame velocity, and unicycle speeds."""

    position: Vector2
    velocity: Vector2 = (0.0, 0.0)
    heading: float = 0.0
    linear_speed: float = 0.0
    angular_speed: float = 0.0


class Neighbor(NamedTuple):
    """Another robot as seen now; ``key`` orders coincident pairs consistently.

    ``uncertainty`` (m): how far it may be from ``position`` because its data
    is old (see :mod:`orca_ros.core.robot.perception`); it enlarges the disc.
    ``reciprocates``: False for a robot that does not avoid us (we then take
    the whole avoidance effort).
    """

    position: Vector2
    velocity: Vector2
    radius: float
    key: str = ""
    uncertainty: float = 0.0
    reciprocates: bool = True


def predict_state(state: RobotState, lag: float, unicycle: bool = False) -> RobotState:
    """Where a robot will be when a command sent now takes effect, ``lag`` s from now.

    Constant velocity; a ``unicycle`` moves along its arc (``linear_speed``,
    ``angular_speed``). This is lag compensation, as toio SDK for Unity does for
    its cubes.
    """
    if lag <= 0.0:
        return state
    if unicycle:
        x, y, heading = unicycle_step(state.position[0], state.position[1], state.heading,
                                      state.linear_speed, state.angular_speed, lag)
        return state._replace(position=(x, y), heading=heading)
    return state._replace(position=(state.position[0] + state.velocity[0] * lag,
                                    state.position[1] + state.velocity[1] * lag))


@dataclass
class Command:
    """What the controller decided this period, with what it saw (for markers and diagnostics)."""

    velocity: Vector2  # the planned world-frame velocity
    linear: float  # unicycle v (for holonomic robots: the speed)
    angular: float  # unicycle omega (0 for holonomic robots)
    pref_velocity: Vector2
    free_velocity: Vector2
    output: Optional[MethodOutput]  # what the method reported (half-planes to draw, ...)
    arrived: bool
    guidance_target: Optional[Vector2] = None
    stalled_time: float = 0.0


class FollowsWaypoints:
    """A robot's progress along its ``waypoints`` (2D or 3D points; the last is the goal):
    ``waypoint_index``, and ``config``'s ``waypoint_tolerance_m`` and
    ``goal_tolerance_m``. Shared by :class:`RobotController` and the 3D
    :class:`~orca_ros.core.robot.aerial.AerialController`."""

    waypoints: list
    waypoint_index: int
    config: ControllerConfig

    def at_goal(self, position: Sequence[float]) -> bool:
        return (bool(self.waypoints) and self.waypoint_index == len(self.waypoints) - 1
                and math.dist(position, self.waypoints[-1]) <= self.config.goal_tolerance_m)

    def current_target(self, position: Sequence[float]):
        """The waypoint to head for, moving on past those already within tolerance."""
        if not self.waypoints:
            return None
        tolerance = self.config.waypoint_tolerance_m
        while self.waypoint_index < len(self.waypoints) - 1 and \
                math.dist(position, self.waypoints[self.waypoint_index]) <= tolerance:
            self.waypoint_index += 1
        return self.waypoints[self.waypoint_index]


@dataclass
class RobotController(FollowsWaypoints):
    """Per-robot controller state: the path being followed, stall time, guidance, and the
    supervisor's directive (a speed limit and/or a detour) if one is in force."""

    config: ControllerConfig
    key: str = ""
    waypoints: List[Vector2] = field(default_factory=list)
    waypoint_index: int = 0
    stalled_time: float = 0.0
    margin_held: float = 1.0  # share of the planning margin kept, see _hold_margin
    goal_reached: bool = False  # within tolerance of the goal at some period of this path
    unprogressed_time: float = 0.0  # s since the robot last got a radius nearer its target
    _progress_mark: Optional[Tuple[Vector2, float]] = None  # (target, best distance)
    roadmaps: Dict[float, VisibilityRoadmap] = field(default_factory=dict)
    base_path: List[Vector2] = field(default_factory=list)
    detour: Tuple[Vector2, ...] = ()
    speed_limit: Optional[float] = None
    _guide_target: Optional[Vector2] = None
    _periods: int = 0
    _last_position: Optional[Vector2] = None
    _method: Optional[AvoidanceMethod] = None
    _method_key: Optional[tuple] = None
    _method_config: Optional[ControllerConfig] = None
    _pref_target: Optional[Vector2] = None
    _detour_side: int = 0  # the way round standing robots being taken (see _detour)
    drive_sign: int = 1  # a unicycle drives forward (+1) or in reverse (-1), see drive_direction

    def set_path(self, waypoints: Sequence[Vector2]) -> None:
        """Follow these points in order; the last one is the goal. Empty: stand still."""
        self.base_path = [(float(x), float(y)) for x, y in waypoints]
        self._follow(list(self.detour) + self.base_path if self.base_path else [])

    def _follow(self, waypoints: List[Vector2]) -> None:
        self.waypoints = waypoints
        self.waypoint_index = 0
        self._guide_target = None
        self._last_position = None
        self.stalled_time = 0.0
        self.margin_held = 1.0
        self._detour_side = 0
        self.goal_reached = False
        self.unprogressed_time = 0.0
        self._progress_mark = None

    def set_directive(self, speed_limit: Optional[float] = None,
                      detour: Sequence[Vector2] = ()) -> None:
        """The supervisor's word: cap the speed (0 stops) and/or go through ``detour`` first.

        ``set_directive()`` with no arguments lifts it; the robot heads straight
        for the rest of its path again.
        """
        self.speed_limit = None if speed_limit is None else max(0.0, float(speed_limit))
        detour = tuple((float(x), float(y)) for x, y in detour)
        if detour != self.detour:
            self.detour = detour
            self._follow(list(detour) + self.base_path if self.base_path else [])

    @property
    def effective_config(self) -> ControllerConfig:
        """The configuration with the supervisor's speed limit applied."""
        if self.speed_limit is None or self.speed_limit >= self.config.max_speed:
            return self.config
        speed = max(self.speed_limit, 1e-6)
        return replace(self.config, max_speed=speed, pref_speed=min(self.config.pref_speed, speed))

    @property
    def goal(self) -> Optional[Vector2]:
        return self.waypoints[-1] if self.waypoints else None

    @property
    def goal_of_base_path(self) -> Optional[Vector2]:
        """The goal of the robot's own task (not counting any detour)."""
        return self.base_path[-1] if self.base_path else None

    def _roadmap(self, edges: Sequence[ObstacleVertex]) -> VisibilityRoadmap:
        c = self.config
        clearance = round(c.avoidance_radius(c.radius) + c.guidance_clearance_ratio * c.radius, 3)
        key = (clearance, len(edges), id(edges[0]) if edges else 0)
        roadmap = self.roadmaps.get(key)
        if roadmap is None:
            roadmap = self.roadmaps[key] = VisibilityRoadmap(edges, clearance)
        return roadmap

    def _guided(self, position: Vector2, target: Vector2,
                edges: Sequence[ObstacleVertex]) -> Vector2:
        """``target``, or the next roadmap corner when an obstacle blocks the way to it."""
        c = self.config
        if self._periods % c.guidance_period != 0:
            if self._guide_target is not None and \
                    math.dist(position, self._guide_target) > 0.5 * c.waypoint_tolerance_m:
                return self._guide_target
            if self._guide_target is None:
                return target
        roadmap = self._roadmap(edges)
        # The straight line is free if it keeps the robot's radius from every
        # wall, or, for a goal closer to a wall than that, the goal's distance.
        target_clearance = 0.98 * roadmap.wall_distance(target)
        if roadmap.visible(position, target, max(min(c.radius, target_clearance), SIGHT_LINE))[0]:
            self._guide_target = None
            return target
        self._guide_target = roadmap.next_corner(
            position, target, c.radius,
            max(min(roadmap.check_clearance, target_clearance), SIGHT_LINE))
        return target if self._guide_target is None else self._guide_target

    def preferred_velocity(self, state: RobotState,
                           edges: Sequence[ObstacleVertex] = (),
                           standing: Sequence[Tuple[Vector2, float]] = ()) -> Vector2:
        """Towards the current waypoint (or guidance corner) at ``pref_speed``, turned
        by keep-right and the stall escape; round the ``standing`` robots
        (``(centre, combined radius)``, see :meth:`_detour`) once stalled."""
        c = self.effective_config
        target = self.current_target(state.position)
        if target is not None and not c.strict and c.guidance and edges:
            target = self._guided(state.position, target, edges)
        if target is None:
            self._pref_target = None
            return (0.0, 0.0)
        distance = math.dist(target, state.position)
        keep_right = c.method_spec.keep_right
        if keep_right:
            stalled = self._displacement_speed(state) < 0.1 * c.pref_speed and \
                distance > c.goal_tolerance_m
            self.stalled_time = self.stalled_time + c.time_step if stalled else 0.0
            self._note_progress(target, distance)
            self._hold_margin(stalled, state.position)
            target = self._detour(state.position, target, standing, edges)
        self._pref_target = target
        dx, dy = target[0] - state.position[0], target[1] - state.position[1]
        distance = math.hypot(dx, dy)
        if distance < 1e-12:
            return (0.0, 0.0)
        speed = min(c.pref_speed, distance / c.time_step)
        px, py = dx / distance * speed, dy / distance * speed
        if not keep_right:
            return (px, py)
        escape_time = self._escape_time()
        angle = -math.radians(keep_right_angle(escape_time, c.keep_right_deg,
                                               c.stall_escape_deg, c.stall_escape_time))
        cos_a, sin_a = math.cos(angle), math.sin(angle)
        return (cos_a * px - sin_a * py, sin_a * px + cos_a * py)

    def _escape_time(self) -> float:
        """How long the stall escape counts the robot stalled (:func:`keep_right_angle`):
        :attr:`stalled_time`, started over after every twice ``stall_escape_time``, so
        a robot stalled for long looks at its target again.

        Held at the full turn, robots pressed sideways for good where a jam cannot
        circulate: in block crowd ``converge`` diff-drive seed 5 robots headed
        elsewhere stood on the shared goal in the lane beside the central block and
        those headed for it pressed round them, each boxed in by neighbours inside
        its safety distance (ORCA then leaves only ``v = 0``), motionless from about
        t = 80 s: 50 of 100 arrived in 300 s. Starting over, all 100 arrive in
        178 s. Over seeds 1-8, diff-drive: ``cross`` 885 -> 785 s summed (the
        slowest 167 -> 110 s), ``stream`` unchanged, ``converge`` slower where it
        was not stuck (956 -> 1086 s summed over the seven). Near a goal it
        reached (:meth:`_held_by_goal`) the same restart had been needed first:
        the turn pointed a unicycle pushed 31 mm off its goal into a parked
        neighbour for the rest of the run (toio_cross_4v4 through fleet_sim, 2 of
        6 runs). Not turning there at all slowed menge_circle diff-drive (42.9 ->
        52.0 s): pushed off their goals in the crowd, robots need the escape to
        circulate.
        """
        c = self.effective_config
        if c.stall_escape_time > 0.0:
            return self.stalled_time % (2.0 * c.stall_escape_time)
        return self.stalled_time

    def _held_by_goal(self, position: Vector2) -> bool:
        """Whether the robot reached its goal on this path and stands within two radii
        of it (pushed off by others, or coming back)."""
        return self.goal_reached and bool(self.waypoints) and \
            math.dist(position, self.waypoints[-1]) <= 2.0 * self.effective_config.radius

    def _detour(self, position: Vector2, target: Vector2,
                standing: Sequence[Tuple[Vector2, float]],
                edges: Sequence[ObstacleVertex] = ()) -> Vector2:
        """``target``, or the way round the robots standing in front of it.

        Robots parked on their goals (or jammed) are a wall that roadmap guidance
        does not know: a robot whose target lies behind them finds no velocity
        that makes progress (toio_cross_4v4: a cube pushed out of its group's
        2 x 2 block of goals stood 10 cm from its own, on the far side of two
        parked cubes, for the rest of the run). After ``stall_detour_time``
        stalled, the robot heads round the cluster of standing robots in its way
        (:func:`~orca_ros.core.robot.guidance.detour_around_discs`) and keeps to the
        side it chose until the straight line is clear.

        A way between a standing robot and a wall (``edges``) too close for the
        robot to pass is closed (see :func:`detour_around_discs`): a cube sent
        round a parked cube's far side stood for 25 s between it and the mat's
        edge, its preferred velocity into the edge (toio_e_4v4_lateral through
        fleet_sim, 2 of 8 runs).
        """
        c = self.effective_config
        if c.stall_detour_time <= 0.0 or not standing or \
                (self._detour_side == 0 and not self._detour_due(0.0, position)):
            self._detour_side = 0
            return target
        walls = [(edge.point, edge.next.point) for edge in edges if edge.next is not None]
        way = detour_around_discs(position, target, standing, self._detour_side,
                                  offset=0.25 * c.radius, walls=walls,
                                  clearance=c.avoidance_radius(c.radius))
        if way is None:
            self._detour_side = 0
            return target
        waypoint, self._detour_side = way
        return waypoint

    def _detour_due(self, ahead: float, position: Vector2) -> bool:
        """Whether the robot should go round the robots standing in its way ``ahead``
        seconds from now: stalled for ``stall_detour_time``, or, farther than two radii
        beyond its goal tolerance from the goal, no nearer its target for
        ``progress_escape_time`` though it moves (a unicycle that wiggles sideways behind a
        parked robot is never stalled by its displacement). Not that near the goal, where
        a robot that just missed it and comes back is no nearer for a while
        (toio_d_to_target4 through toio_bridge, 10 runs each: a cube short of its goal at
        the end of the minute in 3 runs with the rule near the goal, 1 without)."""
        c = self.effective_config
        if self.stalled_time + ahead >= c.stall_detour_time:
            return True
        goal = self.goal
        return self._unprogressed(ahead) and (
            goal is None or math.dist(goal, position) > 2.0 * c.radius + c.goal_tolerance_m)

    def _unprogressed(self, ahead: float = 0.0) -> bool:
        """No nearer the target for ``progress_escape_time`` (``ahead`` s from now)."""
        c = self.effective_config
        return c.progress_escape_time > 0.0 and \
            self.unprogressed_time + ahead >= c.progress_escape_time

    def _note_progress(self, target: Vector2, distance: float) -> None:
        """Count :attr:`unprogressed_time`: reset whenever the robot is a radius nearer
        ``target`` (its waypoint or guidance corner) than ever since it took it."""
        c = self.effective_config
        mark = self._progress_mark
        if mark is None or mark[0] != target or distance < mark[1] - c.radius \
                or distance <= c.goal_tolerance_m:
            self._progress_mark = (target, distance)
            self.unprogressed_time = 0.0
        else:
            self.unprogressed_time += c.time_step

    def _standing(self, state: RobotState, own_radius: float, neighbors: Sequence[Neighbor],
                  seen: Sequence[NeighborView]) -> List[Tuple[Vector2, float]]:
        """The neighbours slower than half the preferred speed, as ``(centre, combined
        radius)`` discs the robot's centre must keep out of (its own and the
        neighbour's radius as the method sees them), when :meth:`_detour` may need
        them (the robot is stalled or on its way round); else none."""
        c = self.effective_config
        if c.strict or c.stall_detour_time <= 0.0 or (
                self._detour_side == 0 and not self._detour_due(c.time_step, state.position)):
            return []
        views = seen or [self._neighbor_view(state, own_radius, n) for n in neighbors]
        return [(n.position, own_radius + view.radius) for n, view in zip(neighbors, views)
                if math.hypot(*n.velocity) < 0.5 * c.pref_speed]

    def _hold_margin(self, stalled: bool, position: Vector2) -> None:
        """Release the planning margin while stuck near the goal; take it back once moving on.

        The margin covers tracking error, which comes with speed; a robot that has
        stood for longer than ``stall_escape_time``, or got no nearer its target for
        ``progress_escape_time`` (:attr:`unprogressed_time`), within one time horizon of its goal
        (``time_horizon * pref_speed``) has little, and may need the margin's
        room to pass between robots parked on their goals (menge_circle diff-drive:
        one robot stood 0.94 m short of its goal for 20 s, inside the margins of two
        parked neighbours 0.50 m away). :attr:`margin_held` then falls to 0 over
        ``stall_escape_time`` and comes back at the same rate once the robot moves.
        The neighbours keep their own margins, so they give way; the hard safety
        half-planes keep true radii throughout. Only near the goal: released in
        traffic, stalled robots press into the crowd (block crowd ``cross``
        diff-drive 99 -> 77 of 100 when released anywhere).
        """
        c = self.effective_config
        if c.stall_escape_time <= 0.0:
            return
        step = c.time_step / c.stall_escape_time
        goal = self.goal
        near_goal = goal is not None and math.dist(goal, position) <= c.time_horizon * c.pref_speed
        stuck = self.stalled_time > c.stall_escape_time or self._unprogressed()
        if stuck and near_goal:
            self.margin_held = max(0.0, self.margin_held - step)
        elif not stalled and not stuck:
            self.margin_held = min(1.0, self.margin_held + step)

    def _displacement_speed(self, state: RobotState) -> float:
        """How fast the robot's position moved since the last period (m/s).

        Stalled means this stays below a tenth of the preferred speed. It is
        measured from positions, not from the velocity estimate: a cube that
        spins in place under lag reports speeds of several cm/s from its
        rounded readings while it goes nowhere. (For a robot whose velocity is
        exactly its displacement, as in the world, the two are the same; the
        first period, with no position before it, uses the estimate.)
        """
        last, self._last_position = self._last_position, state.position
        if last is None:
            return math.hypot(*state.velocity)
        return math.dist(last, state.position) / self.effective_config.time_step

    def within_one_step(self, state: RobotState, candidates: Sequence[Neighbor],
                        own_uncertainty: float = 0.0) -> List[Neighbor]:
        """The candidates close enough that the pair could meet before both have stopped.

        Robots that change velocity at once stop within one command:
        ``2 v_max T`` covers the pair. A robot that brakes at ``a`` (unicycles,
        accel-limited bodies) keeps moving along its direction of travel while
        it stops, so the pair is also covered while the two
        :meth:`closing_distance` (each towards the other) add up to more than
        their gap: the safety half-planes' braking envelope then applies
        before the pair can no longer stop, not only once it is one command
        apart. (Counted from full speeds instead of the closing parts, a
        crossing crowd of unicycles stalled: block crowd ``cross`` 51/100.)
        """
        c = self.effective_config
        horizon = c.command_horizon
        own = c.safety_radius(c.radius) + own_uncertainty
        travel = 2.0 * c.max_speed * horizon
        px, py = state.position
        close = []
        for n in candidates:
            rx, ry = n.position[0] - px, n.position[1] - py
            distance = math.hypot(rx, ry)
            nx, ny = (rx / distance, ry / distance) if distance > 1e-12 else (1.0, 0.0)
            reach = own + c.safety_radius(n.radius) + n.uncertainty + max(
                travel, self.closing_distance(state.velocity, (nx, ny))
                + self.closing_distance(n.velocity, (-nx, -ny)))
            if not n.reciprocates:
                reach += math.hypot(*n.velocity) * horizon
            if distance < reach:
                close.append(n)
        return close

    def closing_distance(self, velocity: Vector2, towards: Vector2) -> float:
        """How far a robot moving at ``velocity`` may still go along the unit vector
        ``towards`` before it stands (m), braking straight along its direction of
        travel ``d``: one period's speed-up, the command held for its horizon
        ``T``, then braking at ``a``: ``(d . n)+ (v T + v**2 / (2 a))`` with
        ``v = min(speed + a dt, v_max)``. Zero for a robot that stops at once."""
        c = self.effective_config
        braking = c.braking_accel
        speed = math.hypot(*velocity)
        if braking is None or speed < 1e-12:
            return 0.0
        facing = (velocity[0] * towards[0] + velocity[1] * towards[1]) / speed
        if facing <= 0.0:
            return 0.0
        v = min(speed + braking * c.time_step, c.max_speed)
        return facing * (v * c.command_horizon + v * v / (2.0 * braking))

    def safety_half_planes(self, state: RobotState, close: Sequence[Neighbor],
                           edges: Sequence[ObstacleVertex],
                           own_uncertainty: float = 0.0) -> List[HalfPlane]:
        """Hard half-planes against every close neighbour and visible wall, over the
        time the command can act (:attr:`ControllerConfig.command_horizon`), and for a
        unicycle inside a tracking margin what its forward motion may do
        (:meth:`driving_half_planes`)."""
        lines, inside = self._safety_lines(state, close, edges, own_uncertainty)
        return lines + self.driving_half_planes(state, inside)

    def driving_half_planes(self, state: RobotState,
                            inside: Sequence[HalfPlane]) -> List[HalfPlane]:
        """For a unicycle inside the tracking margin of the walls or robots behind
        ``inside`` (their safety half-planes): the limit on its forward motion
        (:func:`_along_heading`); the margin no longer covers the lateral part.
        These bind what the robot drives, not where it turns to: a robot facing
        a wall it may not drive towards still turns to the velocity avoidance
        wants (a lone robot whose stall escape pointed into a block's wall, 13°
        off its heading, stood there for the rest of a crowd run)."""
        if not self.effective_config.diff_drive:
            return []
        may_reverse = self.effective_config.reverse_speed > 0.0
        driving = (_along_heading(state.heading, line, may_reverse) for line in inside)
        return [line for line in driving if line is not None]

    def _safety_lines(self, state: RobotState, close: Sequence[Neighbor],
                      edges: Sequence[ObstacleVertex], own_uncertainty: float
                      ) -> Tuple[List[HalfPlane], List[HalfPlane]]:
        """The hard half-planes, and those of them whose wall or robot is nearer than
        the safety distance (inside the tracking margin)."""
        c = self.effective_config
        braking = c.braking_accel
        horizon = c.command_horizon
        own = c.safety_radius(c.radius) + own_uncertainty
        lines, inside = [], []
        for edge in edges:
            line = one_step_obstacle_half_plane(state.position, own, edge, c.time_step, braking,
                                                c.radius, horizon)
            if line is not None:
                lines.append(line)
                if _edge_distance(state.position, edge) < own:
                    inside.append(line)
        px, py = state.position
        for other in close:
            tie = (1.0, 0.0) if self.key < other.key else (-1.0, 0.0)
            rel = (other.position[0] - px, other.position[1] - py)
            combined = own + c.safety_radius(other.radius) + other.uncertainty
            line = one_step_safety_half_plane(
                rel, combined, c.time_step, tie, braking, c.radius + other.radius, horizon,
                None if other.reciprocates else other.velocity)
            lines.append(line)
            if math.hypot(*rel) < combined:
                inside.append(line)
        return lines, inside

    def _neighbor_view(self, state: RobotState, own_radius: float, n: Neighbor) -> NeighborView:
        """A neighbour as the method plans with it: inflated by the planning margin
        (:meth:`ControllerConfig.avoidance_radius`, less
        :meth:`~ControllerConfig.pair_margin_shortfall` at low relative speed or while
        the robot has released its margin, :meth:`_hold_margin`) and by
        its ``uncertainty``, but by at most half the free gap, so an uncertain
        neighbour never looks like an overlap that the method would flee from."""
        c = self.effective_config
        position = state.position
        radius = c.avoidance_radius(n.radius) - c.pair_margin_shortfall(
            c.radius, n.radius, math.hypot(state.velocity[0] - n.velocity[0],
                                           state.velocity[1] - n.velocity[1]), self.margin_held)
        if n.uncertainty > 0.0:
            free = math.dist(position, n.position) - own_radius - radius
            radius += min(n.uncertainty, 0.5 * max(free, 0.0))
        return NeighborView(n.position, n.velocity, radius, n.key, n.reciprocates)

    @property
    def method(self) -> AvoidanceMethod:
        """This robot's instance of its avoidance method: made on first use, and anew
        when the configuration names another method or other parameters."""
        if self._method is not None and self.config is self._method_config:
            return self._method
        self._method_config = self.config
        key = (self.config.method, tuple(sorted(self.config.method_arguments().items())))
        if self._method is None or key != self._method_key:
            self._method = self.config.method_spec.create(**dict(key[1]))
            self._method_key = key
        return self._method

    def _run_method(self, view: RobotView) -> MethodOutput:
        """The method's answer, kept within ``view.hard_half_planes`` and the maximum
        speed: by the method itself if it takes constraints, else by the safety filter
        behind it (with no half-planes, a cap on the speed)."""
        c = self.config
        output = self.method.compute_velocity(view)
        if c.method_spec.takes_constraints:
            return output
        velocity, relaxed = filter_velocity(output.velocity, view.max_speed,
                                            view.hard_half_planes)
        if velocity == output.velocity:
            return output
        return output._replace(velocity=velocity,
                               used_fallback=output.used_fallback or relaxed,
                               waypoint=None, waypoint_speed=None)  # the filter's velocity rules

    def _move_to_target(self, state: RobotState, output: MethodOutput) -> Tuple[float, float]:
        """``(v, omega)`` from the toio SDK's follower
        (:func:`~orca_ros.core.models.toio_cube.move_to_target`):
        towards the method's waypoint at its ``waypoint_speed`` (without a waypoint, or
        when the safety filter changed the velocity: one second along the velocity, at
        its speed); the robot's mat units are its radius over a cube's
        (:data:`~orca_ros.core.models.toio_cube.CUBE_RADIUS_UNITS`)."""
        c = self.effective_config
        speed = math.hypot(*output.velocity)
        if output.waypoint is not None:
            # Towards the waypoint even at a speed limit of 0: the SDK's cube then turns
            # on the spot, towards it.
            target = output.waypoint
            cruise = speed if output.waypoint_speed is None else output.waypoint_speed
        elif speed < 1e-9:
            return 0.0, 0.0
        else:
            target = (state.position[0] + output.velocity[0],
                      state.position[1] + output.velocity[1])
            cruise = speed
        v, omega = move_to_target(state.position, state.heading, target, cruise,
                                  mm_per_unit=1000.0 * c.radius / CUBE_RADIUS_UNITS)
        return min(v, c.max_speed), max(-c.max_angular_speed, min(omega, c.max_angular_speed))

    def compute(self, state: RobotState, neighbors: Sequence[Neighbor],
                obstacle_edges: Sequence[ObstacleVertex] = (),
                close: Optional[Sequence[Neighbor]] = None,
                agent_half_planes: Optional[Sequence[HalfPlane]] = None,
                own_uncertainty: float = 0.0, tethers: Sequence[TetherView] = (),
                links: Sequence[LinkView] = ()) -> Command:
        """This period's command.

        ``neighbors``: the robots the method reasons about, nearest first, at most
        ``max_neighbors`` inside ``neighbor_dist`` (the caller selects them, for
        example with a k-d tree). ``close``: every robot that could be reached
        within one period, whatever ``max_neighbors`` says (default: the
        ``neighbors`` within that reach). ``agent_half_planes``: ORCA's
        half-planes against ``neighbors`` if the caller built them in a batch
        (:func:`~orca_ros.core.methods.orca.orca_half_planes_batch`); the method
        then gets no neighbour list. ``own_uncertainty`` (m): how far the robot
        may be from ``state.position`` (its own odometry is old); it enlarges
        the robot in the hard safety half-planes.

        A neighbour's ``uncertainty`` enlarges it fully in the hard safety
        half-planes, and in the method's view by at most half the free gap
        (:meth:`_neighbor_view`). Against a neighbour that does not reciprocate
        ORCA takes the whole ``u``.
        """
        c = self.effective_config
        spec = c.method_spec
        own_radius = c.avoidance_radius(c.radius)
        edges = select_visible_edges(
            state.position, max(c.time_horizon_obst * c.max_speed + own_radius,
                                self.method.sensing_range(c.radius)),
            obstacle_edges) if obstacle_edges else []
        seen = () if agent_half_planes is not None and not tethers else \
            [self._neighbor_view(state, own_radius, n) for n in neighbors]  # (tethers: see Orca)
        pref = self.preferred_velocity(state, obstacle_edges,
                                       self._standing(state, own_radius, neighbors, seen))
        self._periods += 1
        arrived = self.at_goal(state.position)
        self.goal_reached = self.goal_reached or arrived
        if not self.waypoints:
            return Command((0.0, 0.0), 0.0, 0.0, pref, (0.0, 0.0), None, False)

        safety: List[HalfPlane] = []
        driving: List[HalfPlane] = []
        if c.safety_filter:
            close = self.within_one_step(state, neighbors if close is None else close,
                                         own_uncertainty)
            safety, inside = self._safety_lines(state, close, edges, own_uncertainty)
            driving = self.driving_half_planes(state, inside)
        view = RobotView(state.position, state.velocity, state.heading, own_radius, c.radius,
                         c.max_speed, pref, c.time_step, seen, edges, safety,
                         agent_half_planes, self.goal, self.key, self._pref_target,
                         state.angular_speed, tuple(tethers), tuple(links))
        result = self._run_method(view)
        free = result.velocity
        if not c.diff_drive:
            return Command(free, math.hypot(*free), 0.0, pref, free, result, arrived,
                           self._guide_target, self.stalled_time)
        limits = c.limits
        planned = result
        turn_to = self._turn_to(state, free, pref, result, arrived)
        self.drive_sign = drive_direction(state.heading, turn_to, self.drive_sign,
                                          c.reverse_speed > 0.0, pref)
        if spec.takes_constraints:
            hard = safety + driving + kinematic_half_planes(
                state.heading, state.linear_speed, limits, c.time_step, self.drive_sign,
                c.reverse_speed)
            planned = self._run_method(view._replace(hard_half_planes=hard))
        elif driving:
            velocity, relaxed = filter_velocity(result.velocity, view.max_speed,
                                                safety + driving)
            if velocity != result.velocity:
                planned = result._replace(velocity=velocity,
                                          used_fallback=result.used_fallback or relaxed,
                                          waypoint=None, waypoint_speed=None)
        if c.tracking == "move2target":
            v, omega = self._move_to_target(state, planned)
        else:
            v, omega = unicycle_command(planned.velocity, turn_to, state.heading,
                                        (state.linear_speed, state.angular_speed), limits,
                                        c.time_step, c.heading_time_constant, self.drive_sign,
                                        c.reverse_speed)
        return Command(planned.velocity, v, omega, pref, free, planned, arrived,
                       self._guide_target, self.stalled_time)

    def _turn_to(self, state: RobotState, free: Vector2, pref: Vector2, result: MethodOutput,
                 arrived: bool) -> Vector2:
        """Where a unicycle turns its axis to: the method's velocity without the kinematic
        half-planes (``free``), but for a robot held still on or by its goal."""
        c = self.effective_config
        if not c.method_spec.takes_constraints and free == (0.0, 0.0) and \
                result.waypoint is not None:
            # Held at speed 0 with a waypoint: stand, but face it (as the SDK's cube does).
            return (result.waypoint[0] - state.position[0],
                    result.waypoint[1] - state.position[1])
        if math.hypot(*free) < TURN_FLOOR * c.max_speed and (
                arrived or self._held_by_goal(state.position)):
            # Held (nearly) still on its goal, or pushed off it by others: a velocity
            # this small is the linear program's rounding, its direction jumps from
            # period to period, and turning after it made parked unicycles spin and
            # wander off their goals. Face the preferred velocity (the goal) instead.
            # Only there: in a jam on the way, or short of a goal not yet reached among
            # parked robots, turning after those small velocities is what shuffles
            # robots apart (facing the preferred velocity everywhere gridlocked
            # diff-drive block crowds; within two radii of a goal not yet reached it
            # kept a menge_circle robot 0.5 m short for 40 s).
            return pref
        return free
