"""One robot's avoidance controller: from its state, neighbours and goal to a command.

It runs the stages of one control period in order, each in its own module:

1. the preferred velocity (:mod:`.preferred_velocity`): towards the current waypoint
   or guidance corner, turned by keep-right and the stall escape, round standing
   robots when stalled;
2. the avoidance method (:mod:`orca_ros.core.methods`, ``orca`` by default) picks the
   velocity from the robot's view, its neighbours inflated by the planning margin
   (:meth:`RobotController.neighbor_view`);
3. the safety filter (:mod:`.safety_filter`): hard one-step half-planes against close
   neighbours and walls, inside ORCA's linear program or projected onto after any
   other method;
4. tracking (:mod:`.tracking`): a unicycle keeps to its kinematic half-planes and
   gets ``(v, omega)``; a toio cube may follow the SDK's Move2Target instead.

What the robot perceives (neighbours carried to when the command acts, stale data,
lag) is the cycle's first stage (:mod:`.cycle`, :mod:`.perception`); this controller
takes it as given. Methods whose :class:`~orca_ros.core.methods.base.MethodSpec` is
``strict`` (``orca_strict``: exactly RVO2) run with none of the shared additions: no
turn, no guidance, no safety half-planes, no margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import List, Optional, Sequence, Tuple

from ..geometry.linprog import HalfPlane
from ..geometry.obstacles import ObstacleVertex
from ..geometry.types import Vector2
from ..methods import (AvoidanceMethod, LinkView, MethodOutput, NeighborView, RobotView,
                       TetherView)
from ..orca.orca2d import select_visible_edges
from .config import ControllerConfig
from .preferred_velocity import PreferredVelocity
from .safety_filter import SafetyFilter, filter_velocity
from .state import Command, Neighbor, RobotState
from .tracking import (drive_direction, kinematic_half_planes, move_to_target_command, turn_to,
                       unicycle_command)


@dataclass
class RobotController:
    """One robot's controller: its configuration, its path and preferred velocity
    (:class:`~orca_ros.core.robot.preferred_velocity.PreferredVelocity`), its method
    instance, the supervisor's speed limit if one is in force, and the direction a
    unicycle drives in."""

    config: ControllerConfig
    key: str = ""
    path: Optional[PreferredVelocity] = None  # made from config when not given
    speed_limit: Optional[float] = None
    drive_sign: int = 1  # a unicycle drives forward (+1) or in reverse (-1), see drive_direction
    _method: Optional[AvoidanceMethod] = None
    _method_key: Optional[tuple] = None
    _method_config: Optional[ControllerConfig] = None
    roadmaps: dict = field(default_factory=dict)  # shared by robots of one size in a world

    def __post_init__(self) -> None:
        if self.path is None:
            self.path = PreferredVelocity(self.config, roadmaps=self.roadmaps)
        self.path.key = self.key

    def __setattr__(self, name, value) -> None:
        super().__setattr__(name, value)
        if name == "config" and getattr(self, "path", None) is not None:
            self.path.config = value  # the path follows the robot's own configuration

    # --- the path, as the robot's users see it ------------------------------------

    def set_path(self, waypoints: Sequence[Vector2]) -> None:
        """Follow these points in order; the last one is the goal. Empty: stand still.
        The method forgets what it kept for the old path (:meth:`AvoidanceMethod.reset`)."""
        self.path.set_path(waypoints)
        if self._method is not None:
            self._method.reset()

    def set_directive(self, speed_limit: Optional[float] = None,
                      detour: Sequence[Vector2] = ()) -> None:
        """The supervisor's word: cap the speed (0 stops) and/or go through ``detour`` first.

        ``set_directive()`` with no arguments lifts it; the robot heads straight
        for the rest of its path again.
        """
        self.speed_limit = None if speed_limit is None else max(0.0, float(speed_limit))
        self.path.set_detour(detour)

    @property
    def effective_config(self) -> ControllerConfig:
        """The configuration with the supervisor's speed limit applied."""
        if self.speed_limit is None or self.speed_limit >= self.config.max_speed:
            return self.config
        speed = max(self.speed_limit, 1e-6)
        return replace(self.config, max_speed=speed, pref_speed=min(self.config.pref_speed, speed))

    @property
    def waypoints(self) -> List[Vector2]:
        return self.path.waypoints

    @property
    def goal(self) -> Optional[Vector2]:
        return self.path.goal

    @property
    def goal_of_base_path(self) -> Optional[Vector2]:
        """The goal of the robot's own task (not counting any detour)."""
        return self.path.goal_of_base_path

    def at_goal(self, position: Sequence[float]) -> bool:
        return self.path.at_goal(position)

    def current_target(self, position: Sequence[float]):
        return self.path.current_target(position)

    def preferred_velocity(self, state: RobotState, edges: Sequence[ObstacleVertex] = (),
                           standing: Sequence[Tuple[Vector2, float]] = ()) -> Vector2:
        """This period's preferred velocity (:meth:`PreferredVelocity.compute`)."""
        return self.path.compute(self.effective_config, state, edges, standing)

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
        """A neighbour as the method plans with it: inflated by the planning margin
        (:meth:`ControllerConfig.avoidance_radius`, less
        :meth:`~ControllerConfig.pair_margin_shortfall` at low relative speed or while
        the robot has released its margin, :meth:`_hold_margin`) and by its
        :meth:`planning_uncertainty`, but by at most half the free gap, so an uncertain
        neighbour never looks like an overlap that the method would flee from."""
        c = self.effective_config
        position = state.position
        radius = c.avoidance_radius(n.radius) - c.pair_margin_shortfall(
            c.radius, n.radius, math.hypot(state.velocity[0] - n.velocity[0],
                                           state.velocity[1] - n.velocity[1]),
            self.path.margin_held)
        uncertainty = self.planning_uncertainty(n)
        if uncertainty > 0.0:
            free = math.dist(position, n.position) - own_radius - radius
            radius += min(uncertainty, 0.5 * max(free, 0.0))
        return NeighborView(n.position, n.velocity, radius, n.key, n.reciprocates)

    @staticmethod
    def planning_uncertainty(n: Neighbor) -> float:
        """How much of a neighbour's ``uncertainty`` the method plans with (m): all of it
        for a robot that does not reciprocate; for one that does, all but what comes of
        its data's age (``age_uncertainty``).

        Reciprocal avoidance holds when both robots of a pair plan with the same
        geometry: each then takes its half of ``u`` (van den Berg et al. 2011, section
        4). Through ROS each robot hears some neighbours a period later than others
        (those published after its own odometry), so their discs grow on one side of a
        pair only. The more cautious robot then sees its half-plane through the gap the
        other keeps and gives way for both, pushed back at the other's speed (measured:
        doc/results.md, "The world predicts the nodes"). Both plan with the neighbour
        carried forward to where it is expected; what that guess may miss stays in the
        hard safety half-planes (:class:`SafetyFilter`), which keep the pair apart
        whatever the age."""
        if not n.reciprocates:
            return n.uncertainty
        return max(n.uncertainty - n.age_uncertainty, 0.0)

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

    def compute(self, state: RobotState, neighbors: Sequence[Neighbor],
                obstacle_edges: Sequence[ObstacleVertex] = (),
                close: Optional[Sequence[Neighbor]] = None,
                agent_half_planes: Optional[Sequence[HalfPlane]] = None,
                own_uncertainty: float = 0.0, tethers: Sequence[TetherView] = (),
                links: Sequence[LinkView] = (),
                pref_velocity: Optional[Vector2] = None) -> Command:
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

        ``pref_velocity``: a preferred velocity from outside (orca_node's filter mode:
        Nav2's controller, any controller on ``cmd_vel_in``), instead of the path's: no
        keep-right, stall escape, guidance or detour then; the robot is never at a goal.

        A neighbour's ``uncertainty`` enlarges it fully in the hard safety
        half-planes, and in the method's view by its :meth:`planning_uncertainty`, at
        most half the free gap (:meth:`neighbor_view`). Against a neighbour that does not
        reciprocate ORCA takes the whole ``u``.
        """
        c = self.effective_config
        spec = c.method_spec
        path = self.path
        own_radius = c.avoidance_radius(c.radius)
        edges = select_visible_edges(
            state.position, max(c.time_horizon_obst * c.max_speed + own_radius,
                                self.method.sensing_range(c.radius)),
            obstacle_edges) if obstacle_edges else []
        seen = () if agent_half_planes is not None and not tethers else \
            [self.neighbor_view(state, own_radius, n) for n in neighbors]  # (tethers: see Orca)

        def views():  # only when the path needs them (a stalled robot looks for a detour)
            return seen or [self.neighbor_view(state, own_radius, n) for n in neighbors]
        if pref_velocity is not None:
            pref, arrived = (float(pref_velocity[0]), float(pref_velocity[1])), False
        else:
            pref = path.compute(c, state, obstacle_edges,
                                path.standing(c, state, own_radius, neighbors, views),
                                [(n.position, n.velocity, n.key) for n in neighbors])
            path.periods += 1
            arrived = path.at_goal(state.position)
            path.goal_reached = path.goal_reached or arrived
            if not path.waypoints:
                return Command((0.0, 0.0), 0.0, 0.0, pref, (0.0, 0.0), None, False)

        safety: List[HalfPlane] = []
        driving: List[HalfPlane] = []
        if c.runs_safety_filter:
            guard = SafetyFilter(c, self.key)
            close = guard.within_one_step(state, neighbors if close is None else close,
                                          own_uncertainty)
            safety, inside = guard.half_planes(state, close, edges, own_uncertainty)
            driving = guard.driving_half_planes(state, inside)
        view = RobotView(state.position, state.velocity, state.heading, own_radius, c.radius,
                         c.max_speed, pref, c.time_step, seen, edges, safety,
                         agent_half_planes, path.goal, self.key, path.target,
                         state.angular_speed, tuple(tethers), tuple(links))
        result = self._run_method(view)
        free = result.velocity
        if not c.diff_drive:
            return Command(free, math.hypot(*free), 0.0, pref, free, result, arrived,
                           path.guide_target, path.stalled_time)
        limits = c.limits
        planned = result
        facing = turn_to(c, state, free, pref, result,
                         arrived or path.held_by_goal(c, state.position))
        self.drive_sign = drive_direction(state.heading, facing, self.drive_sign,
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
            v, omega = move_to_target_command(c, state, planned)
        else:
            v, omega = unicycle_command(planned.velocity, facing, state.heading,
                                        (state.linear_speed, state.angular_speed), limits,
                                        c.time_step, c.heading_time_constant, self.drive_sign,
                                        c.reverse_speed)
        return Command(planned.velocity, v, omega, pref, free, planned, arrived,
                       path.guide_target, path.stalled_time)
