"""One aerial robot's avoidance controller: from its state, neighbours and goal to a
3D velocity (``dimensions: 3``; holonomic, no walls).

What orca_node's 3D mode runs for its robot and what the 3D world
(:mod:`orca_ros.core.sim.world3d`) runs for each agent. Each control period:

1. the preferred velocity points at the current waypoint at ``pref_speed``,
   capped so as not to overshoot, and (``orca``, not ``orca_strict``) turned
   right about the vertical axis by keep-right, more while the robot is
   stalled (the 2D rule, :func:`~orca_ros.core.models.bodies.keep_right_angle`, on the
   horizontal part of the velocity);
2. the robot's method's 3D version (:mod:`orca_ros.core.methods.base3d`;
   ``orca``: :func:`~orca_ros.core.orca.orca3d.solve_orca_3d`) picks the velocity,
   planning with every sphere inflated by the margin
   (``safety_margin_ratio``, as in 2D), within the hard one-step safety
   half-spaces against the neighbours near enough to matter
   (:func:`~orca_ros.core.orca.orca3d.one_step_safety_half_space`: inside ORCA's
   program, or a projection after any other method).

The settings are the 2D controller's :class:`~orca_ros.core.robot.controller.ControllerConfig`;
those of floors only (guidance round walls, unicycles, detours round
standing robots, the margin released when stuck) do not apply. A method
whose spec is ``strict`` (``orca_strict``) runs with none of the additions:
RVO2-3D exactly.
"""

from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from ..geometry.linprog3d import HalfSpace
from ..geometry.types import Vector3
from ..methods.base3d import AvoidanceMethod3D, MethodOutput3D, NeighborView3D, RobotView3D
from .config import ControllerConfig
from .perception import position_uncertainty
from .preferred_velocity import FollowsWaypoints, keep_right_angle
from .safety_filter import filter_velocity_3d, one_step_safety_half_space

__all__ = ["AerialCommand", "AerialController", "Neighbor3D", "perceive_neighbor_3d"]


class Neighbor3D(NamedTuple):
    """Another aerial robot as this one perceives it: where it is and flies, its true
    ``radius``, and how far (m) it may be from ``position`` (``uncertainty``: old data)."""

    position: Vector3
    velocity: Vector3
    radius: float
    key: str = ""
    uncertainty: float = 0.0
    reciprocates: bool = True


class AerialCommand(NamedTuple):
    """The velocity to fly (world frame), the preferred velocity it came from, and the
    method's output (None when the robot has no path)."""

    velocity: Vector3
    pref_velocity: Vector3
    output: Optional[MethodOutput3D] = None


def perceive_neighbor_3d(neighbor: Neighbor3D, age: float, max_speed: float, max_accel: float,
                         max_extrapolation: float) -> Neighbor3D:
    """``neighbor``, measured ``age`` s ago, as it may be now: moved on at its velocity
    for ``min(age, max_extrapolation)`` s, its ``uncertainty`` grown by
    :func:`~orca_ros.core.robot.perception.position_uncertainty` (the 2D rule: the
    bound does not depend on the dimension)."""
    age = max(age, 0.0)
    t = min(age, max_extrapolation)
    vx, vy, vz = neighbor.velocity
    speed = math.sqrt(vx * vx + vy * vy + vz * vz)
    grown = position_uncertainty(age, speed, max_speed, max_accel, t)
    x, y, z = neighbor.position
    return neighbor._replace(position=(x + vx * t, y + vy * t, z + vz * t),
                             uncertainty=neighbor.uncertainty + grown)


class AerialController(FollowsWaypoints):
    """One aerial robot's controller (see the module's description)."""

    def __init__(self, config: ControllerConfig, key: str = "") -> None:
        if config.kinematics != "holonomic":
            raise ValueError(f"aerial robots (dimensions: 3) are holonomic; kinematics "
                             f"{config.kinematics!r} is 2D only")
        spec = config.method_spec
        if spec.factory_3d is None:
            from ..methods import method_names

            raise ValueError(f"method {config.method!r} has no 3D version for one robot; "
                             f"in 3D: {', '.join(method_names(dimensions=3))}")
        self.config = config
        self.key = key
        self.method: AvoidanceMethod3D = spec.create_3d(**config.method_arguments())
        self.waypoints: List[Vector3] = []
        self.waypoint_index = 0
        self.stalled_time = 0.0
        self._last_position: Optional[Vector3] = None

    # --- the path ------------------------------------------------------------------

    def set_path(self, waypoints: Sequence[Sequence[float]]) -> None:
        """Follow these points ``(x, y, z)`` in order; the last one is the goal. Empty:
        hover where it is."""
        self.waypoints = [(float(x), float(y), float(z)) for x, y, z in waypoints]
        self.waypoint_index = 0
        self.stalled_time = 0.0
        self._last_position = None

    @property
    def goal(self) -> Optional[Vector3]:
        return self.waypoints[-1] if self.waypoints else None

    # --- one control period ------------------------------------------------------------

    @property
    def keeps_right(self) -> bool:
        c = self.config
        return c.method_spec.keep_right and not c.strict

    def preferred_velocity(self, position: Vector3) -> Vector3:
        """Towards the current waypoint at ``pref_speed``, capped so as not to overshoot
        in one period, and turned right about the vertical axis by keep-right (more
        while stalled). Call once per period: it keeps the stall time."""
        c = self.config
        target = self.current_target(position)
        moved = math.inf if self._last_position is None else \
            math.dist(position, self._last_position) / c.time_step
        self._last_position = position
        if target is None:
            return (0.0, 0.0, 0.0)
        dx, dy, dz = (target[0] - position[0], target[1] - position[1], target[2] - position[2])
        distance = math.sqrt(dx * dx + dy * dy + dz * dz)
        if self.keeps_right:
            stalled = moved < 0.1 * c.pref_speed and distance > c.goal_tolerance_m
            self.stalled_time = self.stalled_time + c.time_step if stalled else 0.0
        if distance < 1e-12:
            return (0.0, 0.0, 0.0)
        speed = min(c.pref_speed, distance / c.time_step)
        px, py, pz = dx / distance * speed, dy / distance * speed, dz / distance * speed
        if not self.keeps_right:
            return (px, py, pz)
        angle = -math.radians(keep_right_angle(self.stalled_time, c.keep_right_deg,
                                               c.stall_escape_deg, c.stall_escape_time))
        cos_a, sin_a = math.cos(angle), math.sin(angle)
        return (cos_a * px - sin_a * py, sin_a * px + cos_a * py, pz)

    def safety_half_spaces(self, position: Vector3, close: Sequence[Neighbor3D],
                           own_uncertainty: float = 0.0) -> List[HalfSpace]:
        """The hard one-step safety half-spaces against the ``close`` robots that can
        bind: one whose bound on ``v . n`` is at least ``max_speed`` never does."""
        c = self.config
        braking = c.braking_accel
        horizon = c.command_horizon
        own = c.safety_radius(c.radius) + own_uncertainty
        spaces = []
        for other in close:
            tie = (1.0, 0.0, 0.0) if self.key < other.key else (-1.0, 0.0, 0.0)
            rel = (other.position[0] - position[0], other.position[1] - position[1],
                   other.position[2] - position[2])
            combined = own + c.safety_radius(other.radius) + other.uncertainty
            space = one_step_safety_half_space(
                rel, combined, c.time_step, tie, braking, horizon,
                None if other.reciprocates else other.velocity)
            bound = -sum(p * n for p, n in zip(space.point, space.normal))  # v . (-normal)
            if bound < c.max_speed:
                spaces.append(space)
        return spaces

    def neighbor_view(self, position: Vector3, own_radius: float,
                      neighbor: Neighbor3D) -> NeighborView3D:
        """A neighbour as the method plans with it: inflated by the planning margin and by
        its ``uncertainty``, but by at most half the free gap (an uncertain neighbour
        never looks like an overlap the method would flee from)."""
        radius = self.config.avoidance_radius(neighbor.radius)
        if neighbor.uncertainty > 0.0:
            free = math.dist(position, neighbor.position) - own_radius - radius
            radius += min(neighbor.uncertainty, 0.5 * max(free, 0.0))
        return NeighborView3D(neighbor.position, neighbor.velocity, radius, neighbor.key,
                              neighbor.reciprocates)

    def compute(self, position: Vector3, velocity: Vector3, neighbors: Sequence[Neighbor3D],
                close: Optional[Sequence[Neighbor3D]] = None,
                own_uncertainty: float = 0.0) -> AerialCommand:
        """This period's velocity.

        ``neighbors``: the ORCA neighbours, nearest first (at most ``max_neighbors``,
        strictly inside ``neighbor_dist``). ``close``: every robot near enough for the
        safety half-spaces (default: ``neighbors``), however many.
        ``own_uncertainty`` (m): how far the robot may be from ``position``.
        """
        c = self.config
        pref = self.preferred_velocity(position)
        if not self.waypoints:
            return AerialCommand((0.0, 0.0, 0.0), pref)
        own_radius = c.avoidance_radius(c.radius) + own_uncertainty
        hard: Tuple[HalfSpace, ...] = ()
        if c.runs_safety_filter and not c.strict:
            hard = tuple(self.safety_half_spaces(position, neighbors if close is None
                                                 else close, own_uncertainty))
        view = RobotView3D(
            position, velocity, own_radius, c.radius, c.max_speed, pref, c.time_step,
            [self.neighbor_view(position, own_radius, n) for n in neighbors], hard,
            self.goal, self.key, self.waypoints[self.waypoint_index])
        output = self.method.compute_velocity(view)
        if not c.method_spec.takes_constraints:
            filtered, relaxed = filter_velocity_3d(output.velocity, c.max_speed, hard)
            if filtered != output.velocity:
                output = output._replace(velocity=filtered,
                                         used_fallback=output.used_fallback or relaxed)
        return AerialCommand(output.velocity, pref, output)
