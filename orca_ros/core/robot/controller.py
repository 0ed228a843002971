"""One robot's avoidance controller: from its state, neighbours and goal to a command.

:meth:`RobotController.compute` runs the stages of one control period in order, each
an object of its own module that the controller holds:

1. the preferred velocity (:class:`~.preferred_velocity.PreferredVelocity`,
   :meth:`~.preferred_velocity.PreferredVelocity.step`, held as :attr:`RobotController.preferred`):
   towards the current waypoint or guidance corner, turned by keep-right and the stall
   escape, round standing robots when stalled;
2. the avoidance method (:class:`AvoidanceStage`: the robot's instance of its
   :mod:`orca_ros.core.methods` method, ``orca`` by default) picks the velocity from the
   robot's view, its neighbours inflated by the planning margin
   (:meth:`RobotController.neighbor_view`);
3. the safety filter (:class:`~.safety_filter.SafetyFilter`): hard one-step half-planes
   against close neighbours and walls (:meth:`~.safety_filter.SafetyFilter.constraints`),
   built before the method because ORCA's linear program takes them in; behind any other
   method the velocity is projected onto them (:func:`~.safety_filter.filter_output`);
4. tracking (:class:`~.tracking.UnicycleTracking`): a unicycle keeps to its kinematic
   half-planes and gets ``(v, omega)``; a toio cube may follow the SDK's Move2Target
   instead.

What the robot perceives (neighbours carried to when the command acts, stale data,
lag) is the cycle's first stage (:mod:`.cycle`, :mod:`.perception`); this controller
takes it as given. Methods whose :class:`~orca_ros.core.methods.base.MethodSpec` is
``strict`` (``orca_strict``: exactly RVO2) run with none of the shared additions: no
turn, no guidance, no safety half-planes, no margin.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from ..geometry.linprog import HalfPlane
from ..geometry.obstacles import ObstacleVertex
from ..geometry.types import Vector2
from ..methods import (AvoidanceMethod, LinkView, MethodOutput, NeighborView, RobotView,
                       TetherView)
from ..orca import _orca2d
from ..orca.orca2d import select_visible_edges
from .config import ControllerConfig
from .preferred_velocity import Guidance, PreferredVelocity
from .safety_filter import SafetyConstraints, SafetyFilter, filter_output
from .state import Command, Neighbor, RobotState
from .tracking import UnicycleTracking


class AvoidanceStage:
    """The method stage: the robot's instance of its avoidance method, made on first use
    and anew when the configuration names another method or other parameters."""

    def __init__(self) -> None:
        self.instance: Optional[AvoidanceMethod] = None
        self._key: Optional[tuple] = None
        self._config: Optional[ControllerConfig] = None

    def method(self, config: ControllerConfig) -> AvoidanceMethod:
        """The instance for ``config`` (the robot's own configuration)."""
        if self.instance is not None and config is self._config:
            return self.instance
        self._config = config
        key = (config.method, tuple(sorted(config.method_arguments().items())))
        if self.instance is None or key != self._key:
            self.instance = config.method_spec.create(**dict(key[1]))
            self._key = key
        return self.instance

    def reset(self) -> None:
        """A new path: the method forgets what it kept for the old one."""
        if self.instance is not None:
            self.instance.reset()

    def run(self, config: ControllerConfig, view: RobotView) -> MethodOutput:
        """The method's answer, kept within ``view.hard_half_planes`` and the maximum
        speed: by the method itself if it takes constraints, else by the safety filter
        behind it (:func:`~.safety_filter.filter_output`; with no half-planes, a cap on
        the speed)."""
        output = self.method(config).compute_velocity(view)
        if config.method_spec.takes_constraints:
            return output
        return filter_output(output, view.max_speed, view.hard_half_planes)


class RobotController:
    """One robot's controller: its configuration, the supervisor's speed limit if one is
    in force, and its stages: the preferred velocity along its path
    (:attr:`preferred`, a :class:`~orca_ros.core.robot.preferred_velocity.PreferredVelocity`),
    its method (:attr:`avoidance`) and, for a unicycle, its tracking (:attr:`tracking`).
    ``roadmaps``: guidance's planners, shared by robots of one size in a world."""

    def __init__(self, config: ControllerConfig, key: str = "",
                 path: Optional[PreferredVelocity] = None, speed_limit: Optional[float] = None,
                 drive_sign: int = 1, roadmaps: Optional[Dict] = None) -> None:
        self.key = key
        self.roadmaps = {} if roadmaps is None else roadmaps
        self.preferred = PreferredVelocity(config, guidance=Guidance(self.roadmaps)) \
            if path is None else path
        self.preferred.key = key
        self.config = config
        self.speed_limit = speed_limit
        self.avoidance = AvoidanceStage()
        self.tracking = UnicycleTracking(drive_sign)

    @property
    def config(self) -> ControllerConfig:
        """The robot's own configuration (the preferred velocity follows it)."""
        return self._config

    @config.setter
    def config(self, value: ControllerConfig) -> None:
        self._config = value
        self.preferred.config = value

    @property
    def path(self) -> PreferredVelocity:
        """The preferred velocity stage (:attr:`preferred`), by its older name."""
        return self.preferred

    @property
    def drive_sign(self) -> int:
        """The direction a unicycle drives in (:attr:`UnicycleTracking.drive_sign`)."""
        return self.tracking.drive_sign

    # --- the path, as the robot's users see it ------------------------------------

    def set_path(self, waypoints: Sequence[Vector2]) -> None:
        """Follow these points in order; the last one is the goal. Empty: stand still.
        The method forgets what it kept for the old path (:meth:`AvoidanceMethod.reset`)."""
        self.preferred.set_path(waypoints)
        self.avoidance.reset()

    def set_directive(self, speed_limit: Optional[float] = None,
                      detour: Sequence[Vector2] = ()) -> None:
        """The supervisor's word: cap the speed (0 stops) and/or go through ``detour`` first.

        ``set_directive()`` with no arguments lifts it; the robot heads straight
        for the rest of its path again.
        """
        self.speed_limit = None if speed_limit is None else max(0.0, float(speed_limit))
        self.preferred.set_detour(detour)

    @property
    def effective_config(self) -> ControllerConfig:
        """The configuration with the supervisor's speed limit applied."""
        if self.speed_limit is None or self.speed_limit >= self.config.max_speed:
            return self.config
        speed = max(self.speed_limit, 1e-6)
        return replace(self.config, max_speed=speed, pref_speed=min(self.config.pref_speed, speed))

    @property
    def waypoints(self) -> List[Vector2]:
        return self.preferred.waypoints

    @property
    def goal(self) -> Optional[Vector2]:
        return self.preferred.goal

    @property
    def goal_of_base_path(self) -> Optional[Vector2]:
        """The goal of the robot's own task (not counting any detour)."""
        return self.preferred.route.goal

    def at_goal(self, position: Sequence[float]) -> bool:
        return self.preferred.at_goal(position)

    def current_target(self, position: Sequence[float]):
        return self.preferred.current_target(position)

    def preferred_velocity(self, state: RobotState, edges: Sequence[ObstacleVertex] = (),
                           standing: Sequence[Tuple[Vector2, float]] = ()) -> Vector2:
        """This period's preferred velocity (:meth:`PreferredVelocity.compute`)."""
        return self.preferred.compute(self.effective_config, state, edges, standing)

    def safety_half_planes(self, state: RobotState, close: Sequence[Neighbor],
                           edges: Sequence[ObstacleVertex],
                           own_uncertainty: float = 0.0) -> List[HalfPlane]:
        """Hard half-planes against every close neighbour and visible wall, over the
        time the command can act, and for a unicycle inside a tracking margin what
        its forward motion may do (:class:`SafetyFilter`)."""
        safety = SafetyFilter(self.effective_config, self.key)
        lines, inside = safety.half_planes(state, close, edges, own_uncertainty)
        return lines + safety.driving_half_planes(state, inside)

    def neighbor_view(self, state: RobotState, own_radius: float, n: Neighbor) -> NeighborView:
        """One neighbour as the method plans with it (:meth:`neighbor_views`)."""
        return self.neighbor_views(state, own_radius, (n,))[0]

    def neighbor_views(self, state: RobotState, own_radius: float,
                       neighbors: Sequence[Neighbor]) -> List[NeighborView]:
        """The neighbours as the method plans with them: each inflated by the planning
        margin (:meth:`ControllerConfig.avoidance_radius`, less
        :meth:`~ControllerConfig.pair_margin_shortfall` at low relative speed or while
        the robot has released its margin,
        :class:`~.preferred_velocity.MarginHold`) and by its planning uncertainty, but by
        at most half the free gap, so an uncertain neighbour never looks like an overlap
        that the method would flee from. In C, one call for all (``_orca2d.neighbor_views``).

        The planning uncertainty: all of a neighbour's ``uncertainty`` for a robot that
        does not reciprocate; for one that does, all but what comes of its data's age
        (``age_uncertainty``). Reciprocal avoidance holds when both robots of a pair plan
        with the same geometry: each then takes its half of ``u`` (van den Berg et al.
        2011, section 4). Through ROS the two robots of a pair need not hear each other
        equally late (one link delayed, one node busier), so the discs would grow on
        one side of a pair only. The more cautious robot then sees its half-plane
        through the gap the other keeps and gives way for both, pushed back at the
        other's speed (measured: doc/results.md, "The world predicts the nodes"). Both
        plan with the neighbour carried forward to where it is expected; what that guess
        may miss stays in the hard safety half-planes (:class:`SafetyFilter`), which keep
        the pair apart whatever the age."""
        c = self.effective_config
        (x, y), (vx, vy) = state.position, state.velocity
        return _orca2d.neighbor_views(  # (its Python: test/helpers/perception_reference.py)
            neighbors, x, y, vx, vy, own_radius, c.radius, c.margin_ratio, c.tracking_error,
            c.margin_speed_ratio, c.max_speed, self.preferred.margin.held, NeighborView)

    @property
    def method(self) -> AvoidanceMethod:
        """This robot's instance of its avoidance method (:meth:`AvoidanceStage.method`)."""
        return self.avoidance.method(self.config)

    def _run_method(self, view: RobotView) -> MethodOutput:
        """The method stage's answer for ``view`` (:meth:`AvoidanceStage.run`)."""
        return self.avoidance.run(self.config, view)

    def compute(self, state: RobotState, neighbors: Sequence[Neighbor],
                obstacle_edges: Sequence[ObstacleVertex] = (),
                close: Optional[Sequence[Neighbor]] = None,
                agent_half_planes: Optional[Sequence[HalfPlane]] = None,
                own_uncertainty: float = 0.0, tethers: Sequence[TetherView] = (),
                links: Sequence[LinkView] = (),
                pref_velocity: Optional[Vector2] = None, drift: float = 0.0,
                own_localization: float = 0.0) -> Command:
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
        the robot in the hard safety half-planes, ``own_localization`` (m) of it the
        localization fix's; ``drift`` (m) enlarges it further against walls only
        (:class:`~.cycle.OwnReading`).

        ``pref_velocity``: a preferred velocity from outside (orca_node's filter mode:
        Nav2's controller, any controller on ``cmd_vel_in``), instead of the path's: no
        keep-right, stall escape, guidance or detour then; the robot is never at a goal.

        A neighbour's ``uncertainty`` enlarges it fully in the hard safety
        half-planes, and in the method's view by its planning uncertainty, at most half
        the free gap (:meth:`neighbor_views`). Against a neighbour that does not
        reciprocate ORCA takes the whole ``u``.
        """
        c = self.effective_config
        path = self.preferred
        own_radius = c.avoidance_radius(c.radius)
        edges = select_visible_edges(
            state.position, max(c.time_horizon_obst * c.max_speed + own_radius,
                                self.method.sensing_range(c.radius)),
            obstacle_edges) if obstacle_edges else []
        seen = () if agent_half_planes is not None and not tethers else \
            self.neighbor_views(state, own_radius, neighbors)  # (tethers: see Orca)

        def views():  # only when the path needs them (a stalled robot looks for a detour)
            return seen or self.neighbor_views(state, own_radius, neighbors)
        # 1. the preferred velocity
        if pref_velocity is not None:
            pref, arrived = (float(pref_velocity[0]), float(pref_velocity[1])), False
        else:
            pref, arrived = path.step(c, state, obstacle_edges, own_radius, neighbors, views)
            if not path.waypoints:
                return Command((0.0, 0.0), 0.0, 0.0, pref, (0.0, 0.0), None, False)
        # 3. the safety filter's constraints, which 2. the method takes in (or is filtered by)
        constraints = SafetyFilter(c, self.key).constraints(
            state, neighbors if close is None else close, edges, own_uncertainty, drift,
            own_localization) \
            if c.runs_safety_filter else SafetyConstraints([], [])
        view = RobotView(state.position, state.velocity, state.heading, own_radius, c.radius,
                         c.max_speed, pref, c.time_step, seen, edges, constraints.safety,
                         agent_half_planes, path.goal, self.key, path.target,
                         state.angular_speed, tuple(tethers), tuple(links))
        result = self._run_method(view)
        free = result.velocity
        if not c.diff_drive:
            return Command(free, math.hypot(*free), 0.0, pref, free, result, arrived,
                           path.guidance.corner, path.stalled_time)
        # 4. tracking
        planned, v, omega = self.tracking.command(
            c, state, result, pref, arrived or path.held_by_goal(c, state.position),
            constraints.safety, constraints.driving,
            lambda hard: self._run_method(view._replace(hard_half_planes=hard)),
            path.goal if path.target == path.goal else None)
        return Command(planned.velocity, v, omega, pref, free, planned, arrived,
                       path.guidance.corner, path.stalled_time)
